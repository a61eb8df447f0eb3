"""The NVML reader: `NvmlSource` starts NVML once and reads every GPU group by group through
`nvml_call`, the one helper every NVML call goes through (not supported -> None, any other error
recorded, a lost GPU marked), beside the host facts of `gpuwise.hw.host`."""

from __future__ import annotations

import datetime as dt
import importlib
import importlib.util
import os
import socket
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpuwise.hw.convert import as_float, as_int, as_text, cuda_version_text, mhz_to_hz, percent_ratio
from gpuwise.hw.host import process_state, read_host_facts, read_int
from gpuwise.hw.snapshot import (
    NVLINK_ERROR_COUNTERS,
    GpuSnapshot,
    HostSnapshot,
    NvLinkSnapshot,
    ProcessSnapshot,
    normalize_bus_id,
)

# NVML constants this module uses (values from the NVML reference; looked up on the module when present).
_TEMPERATURE_GPU = 0
_THRESHOLD_SHUTDOWN, _THRESHOLD_SLOWDOWN, _THRESHOLD_MEM_MAX = 0, 1, 2
_CLOCK_SM, _CLOCK_MEM = 1, 2
_ERR_CORRECTED, _ERR_UNCORRECTED = 0, 1
_VOLATILE, _AGGREGATE = 0, 1
_RETIRE_SBE, _RETIRE_DBE = 0, 1
_PCIE_TX, _PCIE_RX = 0, 1
_FI_MEMORY_TEMP = 82
_FI_NVLINK_DATA_TX, _FI_NVLINK_DATA_RX = 138, 139  # KiB transferred, per link (scopeId = link)
_NVML_SUCCESS, _NVML_NOT_SUPPORTED = 0, 3
_MAX_NVLINKS = 18
KERNEL_LOG_RETRY_S = 300.0


class NvmlSource:
    """Reads this machine: NVML for the GPUs (started once, kept for later reads), sysfs/procfs.

    `nvml` is the pynvml module (imported lazily when None; tests pass a fake). `root` prefixes
    every sysfs/procfs path, so tests can lay out a fake /sys and /proc. `kernel_log=False` skips
    reading XID events from the kernel log.
    """

    def __init__(
        self,
        nvml: Any = None,
        *,
        root: str | Path = "/",
        environ: Mapping[str, str] | None = None,
        kernel_log: bool = True,
        hostname: str | None = None,
    ) -> None:
        self._nvml = nvml
        self._started = False
        self._start_error: str | None = None
        self.root = Path(root)
        self.environ = environ
        self.kernel_log = kernel_log
        self._log_retry_at = 0.0  # an unreadable kernel log is tried again after KERNEL_LOG_RETRY_S
        self._log_error: str | None = None
        self.hostname = hostname

    # ----- NVML life cycle ---------------------------------------------------------------------
    def _start(self) -> Any:
        if self._started:
            return self._nvml
        if self._nvml is None:
            try:
                self._nvml = importlib.import_module("pynvml")
            except ImportError:
                self._start_error = "nvidia-ml-py is not installed (pip install 'gpuwise[ops]')"
                return None
        errors: dict[str, str] = {}
        _value, status = nvml_call(self._nvml, errors, "init", "nvmlInit")
        if status != "ok":
            self._start_error = errors.get("init") or "NVML is not supported on this machine"
            self._start_error = _explain_init_error(self._start_error)
            return None
        self._started, self._start_error = True, None
        return self._nvml

    def close(self) -> None:
        if self._started:
            nvml_call(self._nvml, {}, "shutdown", "nvmlShutdown")
            self._started = False

    def __enter__(self) -> NvmlSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- reading ---------------------------------------------------------------------------
    def read(self) -> HostSnapshot:
        try_log = self.kernel_log and time.monotonic() >= self._log_retry_at
        facts = read_host_facts(self.root, self.environ, kernel_log=try_log)
        if try_log and facts["xid_events"] is None:  # e.g. dmesg_restrict: do not spawn dmesg on every scrape
            self._log_retry_at, self._log_error = time.monotonic() + KERNEL_LOG_RETRY_S, facts["kernel_log_error"]
        elif self.kernel_log and not try_log:
            facts["kernel_log_error"] = self._log_error
        hostname = self.hostname or socket.gethostname()
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        nvml = self._start()
        if nvml is None:
            return HostSnapshot(hostname=hostname, time=now, nvml_error=self._start_error, **facts)
        errors: dict[str, str] = {}
        driver, _ = nvml_call(nvml, errors, "driver_version", "nvmlSystemGetDriverVersion")
        cuda, _ = nvml_call(nvml, errors, "cuda_driver_version", "nvmlSystemGetCudaDriverVersion_v2")
        count, _ = nvml_call(nvml, errors, "gpu_count", "nvmlDeviceGetCount")
        gpus: list[GpuSnapshot] = []
        handles: list[Any] = []
        known = _catalog_ids()
        for index in range(int(count or 0)):
            gerrors: dict[str, str] = {}
            handle, hstatus = nvml_call(nvml, gerrors, "handle", "nvmlDeviceGetHandleByIndex", index)
            if hstatus != "ok":
                gpus.append(GpuSnapshot(index=index, lost=True, errors=gerrors or {"handle": "no handle"}))
                handles.append(None)
                continue
            gpus.append(_read_gpu(nvml, handle, index, self.root, known))
            handles.append(None if gpus[-1].lost else handle)
        topology = _read_topology(nvml, handles, errors) if len(handles) > 1 else None
        return HostSnapshot(
            hostname=hostname,
            time=now,
            driver_version=as_text(driver),
            cuda_driver_version=cuda_version_text(cuda),
            topology=topology,
            gpus=tuple(gpus),
            errors=errors,
            **facts,
        )


def _explain_init_error(message: str) -> str:
    low = message.lower()
    if "library not found" in low or "librarynotfound" in low:
        return "the NVML library (libnvidia-ml.so) was not found"
    if "driver not loaded" in low or "drivernotloaded" in low:
        return "the NVIDIA kernel driver is not loaded (modprobe nvidia, or install the driver)"
    return message


def nvml_call(nvml: Any, errors: dict[str, str], key: str, fn_name: str, *args: Any) -> tuple[Any, str]:
    """Call `nvml.<fn_name>(*args)`; return (value, status).

    status: 'ok'; 'unsupported' (NVMLError_NotSupported, or a function this driver or binding
    lacks: the value is None, unknown); 'lost' (the GPU fell off the bus: errors[key] says so);
    'error' (any other failure: errors[key] holds the message, the value is None).
    """
    fn = getattr(nvml, fn_name, None)
    if fn is None:
        return None, "unsupported"
    base = getattr(nvml, "NVMLError", None)
    unsupported = tuple(
        c
        for c in (getattr(nvml, "NVMLError_NotSupported", None), getattr(nvml, "NVMLError_FunctionNotFound", None))
        if c
    )
    lost = tuple(c for c in (getattr(nvml, "NVMLError_GpuIsLost", None),) if c)
    try:
        return fn(*args), "ok"
    except Exception as exc:
        if unsupported and isinstance(exc, unsupported):
            return None, "unsupported"
        if lost and isinstance(exc, lost):
            errors[key] = f"{fn_name}: GPU is lost (fell off the bus?)"
            return None, "lost"
        kind = "" if base is not None and isinstance(exc, base) else f"{type(exc).__name__}: "
        errors[key] = f"{fn_name}: {kind}{exc}"
        return None, "error"


class _GpuReader:
    """Per-GPU wrapper over `nvml_call`: remembers a lost GPU and stops asking it."""

    def __init__(self, nvml: Any, handle: Any) -> None:
        self.nvml, self.handle = nvml, handle
        self.errors: dict[str, str] = {}
        self.lost = False

    def get(self, key: str, fn_name: str, *args: Any, record: bool = True) -> Any:
        if self.lost:
            return None
        errors: dict[str, str] = {}
        value, status = nvml_call(self.nvml, errors, key, fn_name, self.handle, *args)
        if status == "lost":
            self.lost = True
        if record or status == "lost":
            self.errors.update(errors)
        return value if status == "ok" else None

    def status(self, fn_name: str, *args: Any) -> tuple[Any, str]:
        if self.lost:
            return None, "lost"
        errors: dict[str, str] = {}
        value, status = nvml_call(self.nvml, errors, fn_name, fn_name, self.handle, *args)
        if status == "lost":
            self.lost = True
            self.errors.update(errors)
        return value, status

    def fields(self, key: str, ids: list[Any]) -> list[float | None]:
        """nvmlDeviceGetFieldValues: each field's own return code; not supported -> None."""
        values = self.get(key, "nvmlDeviceGetFieldValues", ids)
        if values is None:
            return [None] * len(ids)
        out: list[float | None] = []
        for v in values:
            ret = getattr(v, "nvmlReturn", _NVML_SUCCESS)
            if ret != _NVML_SUCCESS:
                if ret != _NVML_NOT_SUPPORTED:
                    self.errors[f"{key}[{getattr(v, 'fieldId', '?')}]"] = f"field value: NVML return code {ret}"
                out.append(None)
                continue
            out.append(_field_value(v))
        return out


def _field_value(v: Any) -> float | None:
    value = getattr(v, "value", None)
    if value is None:
        return None
    attr = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal", 6: "usVal"}.get(
        getattr(v, "valueType", 3), "ullVal"
    )
    return getattr(value, attr, None)


def _const(nvml: Any, name: str, default: int) -> int:
    value = getattr(nvml, name, default)
    return value if isinstance(value, int) else default


def _read_identity(r: _GpuReader) -> dict[str, Any]:
    """Name, UUID, serial, PCI address and firmware versions (read first: a lost GPU spoils what follows)."""
    name = as_text(r.get("name", "nvmlDeviceGetName"))
    uuid = as_text(r.get("uuid", "nvmlDeviceGetUUID"))
    serial = as_text(r.get("serial", "nvmlDeviceGetSerial"))
    pci = r.get("pci_bus_id", "nvmlDeviceGetPciInfo")
    return {
        "name": name,
        "uuid": uuid,
        "serial": serial,
        "pci_bus_id": normalize_bus_id(getattr(pci, "busId", None)) if pci is not None else None,
        "vbios": as_text(r.get("vbios", "nvmlDeviceGetVbiosVersion")),
        "inforom": as_text(r.get("inforom", "nvmlDeviceGetInforomImageVersion")),
    }


def _read_usage(r: _GpuReader) -> dict[str, Any]:
    """Memory in use and utilization (NVML percent -> share 0..1)."""
    mem = r.get("memory", "nvmlDeviceGetMemoryInfo")
    util = r.get("utilization", "nvmlDeviceGetUtilizationRates")
    return {
        "memory_total_bytes": as_int(getattr(mem, "total", None)),
        "memory_used_bytes": as_int(getattr(mem, "used", None)),
        "utilization_gpu": percent_ratio(getattr(util, "gpu", None)),
        "utilization_memory": percent_ratio(getattr(util, "memory", None)),
    }


def _read_thermal(nvml: Any, r: _GpuReader) -> dict[str, Any]:
    """GPU and memory temperatures with the driver's slowdown, shutdown and memory limits."""

    def threshold(key: str, const: str, default: int) -> Any:
        return r.get(key, "nvmlDeviceGetTemperatureThreshold", _const(nvml, const, default))

    temp = r.get("temperature", "nvmlDeviceGetTemperature", _const(nvml, "NVML_TEMPERATURE_GPU", _TEMPERATURE_GPU))
    slowdown = threshold("temperature_slowdown", "NVML_TEMPERATURE_THRESHOLD_SLOWDOWN", _THRESHOLD_SLOWDOWN)
    shutdown = threshold("temperature_shutdown", "NVML_TEMPERATURE_THRESHOLD_SHUTDOWN", _THRESHOLD_SHUTDOWN)
    mem_max = threshold("memory_temperature_max", "NVML_TEMPERATURE_THRESHOLD_MEM_MAX", _THRESHOLD_MEM_MAX)
    (mem_temp,) = r.fields("memory_temperature", [_const(nvml, "NVML_FI_DEV_MEMORY_TEMP", _FI_MEMORY_TEMP)])
    return {
        "temperature_celsius": as_float(temp),
        "temperature_slowdown_celsius": as_float(slowdown),
        "temperature_shutdown_celsius": as_float(shutdown),
        "memory_temperature_celsius": as_float(mem_temp),
        "memory_temperature_max_celsius": as_float(mem_max),
    }


def _read_power_clocks(nvml: Any, r: _GpuReader) -> dict[str, Any]:
    """Power (NVML mW -> W), clocks (MHz -> Hz) and the clock throttle reasons mask."""
    power = r.get("power", "nvmlDeviceGetPowerUsage")
    limit = r.get("power_limit", "nvmlDeviceGetEnforcedPowerLimit")
    sm, memc = _const(nvml, "NVML_CLOCK_SM", _CLOCK_SM), _const(nvml, "NVML_CLOCK_MEM", _CLOCK_MEM)
    clock_sm = r.get("clock_sm", "nvmlDeviceGetClockInfo", sm)
    clock_mem = r.get("clock_mem", "nvmlDeviceGetClockInfo", memc)
    clock_sm_max = r.get("clock_sm_max", "nvmlDeviceGetMaxClockInfo", sm)
    clock_mem_max = r.get("clock_mem_max", "nvmlDeviceGetMaxClockInfo", memc)
    if hasattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons"):
        throttle = r.get("throttle_reasons", "nvmlDeviceGetCurrentClocksEventReasons")
    else:  # bindings older than the rename
        throttle = r.get("throttle_reasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
    return {
        "power_watts": None if power is None else power / 1000.0,
        "power_limit_watts": None if limit is None else limit / 1000.0,
        "clock_sm_hz": mhz_to_hz(clock_sm),
        "clock_mem_hz": mhz_to_hz(clock_mem),
        "clock_sm_max_hz": mhz_to_hz(clock_sm_max),
        "clock_mem_max_hz": mhz_to_hz(clock_mem_max),
        "throttle_reasons": as_int(throttle),
    }


def _read_ecc(nvml: Any, r: _GpuReader) -> dict[str, Any]:
    """ECC mode and counters (None while ECC is off: the counters mean nothing then)."""
    ecc_mode = r.get("ecc_mode", "nvmlDeviceGetEccMode")
    ecc_enabled = None if ecc_mode is None else bool(ecc_mode[0])

    def ecc(kind: int, scope: int, key: str) -> int | None:
        if ecc_enabled is False:
            return None
        return as_int(r.get(key, "nvmlDeviceGetTotalEccErrors", kind, scope))

    corrected = _const(nvml, "NVML_MEMORY_ERROR_TYPE_CORRECTED", _ERR_CORRECTED)
    uncorrected = _const(nvml, "NVML_MEMORY_ERROR_TYPE_UNCORRECTED", _ERR_UNCORRECTED)
    volatile, aggregate = _const(nvml, "NVML_VOLATILE_ECC", _VOLATILE), _const(nvml, "NVML_AGGREGATE_ECC", _AGGREGATE)
    return {
        "ecc_enabled": ecc_enabled,
        "ecc_corrected_volatile": ecc(corrected, volatile, "ecc_corrected_volatile"),
        "ecc_uncorrected_volatile": ecc(uncorrected, volatile, "ecc_uncorrected_volatile"),
        "ecc_corrected_aggregate": ecc(corrected, aggregate, "ecc_corrected_aggregate"),
        "ecc_uncorrected_aggregate": ecc(uncorrected, aggregate, "ecc_uncorrected_aggregate"),
    }


def _read_retired_memory(r: _GpuReader) -> dict[str, Any]:
    """Retired pages (older GPUs) and remapped rows (Ampere and later)."""
    sbe_pages = r.get("retired_pages_sbe", "nvmlDeviceGetRetiredPages", _RETIRE_SBE)
    dbe_pages = r.get("retired_pages_dbe", "nvmlDeviceGetRetiredPages", _RETIRE_DBE)
    pending_pages = r.get("retired_pages_pending", "nvmlDeviceGetRetiredPagesPendingStatus")
    remap = r.get("remapped_rows", "nvmlDeviceGetRemappedRows")
    return {
        "retired_pages_sbe": None if sbe_pages is None else len(sbe_pages),
        "retired_pages_dbe": None if dbe_pages is None else len(dbe_pages),
        "retired_pages_pending": None if pending_pages is None else bool(pending_pages),
        "remapped_rows_corrected": None if remap is None else int(remap[0]),
        "remapped_rows_uncorrected": None if remap is None else int(remap[1]),
        "remap_pending": None if remap is None else bool(remap[2]),
        "remap_failure": None if remap is None else bool(remap[3]),
    }


def _read_pcie(nvml: Any, r: _GpuReader) -> dict[str, Any]:
    """PCIe link now and at most, replays, and throughput (NVML: KB/s over 20 ms -> bytes/s)."""
    pcie_gen = r.get("pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration")
    pcie_width = r.get("pcie_width", "nvmlDeviceGetCurrPcieLinkWidth")
    pcie_gen_max = r.get("pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration")
    pcie_width_max = r.get("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth")
    replay = r.get("pcie_replay_count", "nvmlDeviceGetPcieReplayCounter")
    pcie_tx = r.get("pcie_tx", "nvmlDeviceGetPcieThroughput", _const(nvml, "NVML_PCIE_UTIL_TX_BYTES", _PCIE_TX))
    pcie_rx = r.get("pcie_rx", "nvmlDeviceGetPcieThroughput", _const(nvml, "NVML_PCIE_UTIL_RX_BYTES", _PCIE_RX))
    return {
        "pcie_gen": as_int(pcie_gen),
        "pcie_width": as_int(pcie_width),
        "pcie_gen_max": as_int(pcie_gen_max),
        "pcie_width_max": as_int(pcie_width_max),
        "pcie_replay_count": as_int(replay),
        "pcie_tx_bytes_per_second": None if pcie_tx is None else pcie_tx * 1000.0,
        "pcie_rx_bytes_per_second": None if pcie_rx is None else pcie_rx * 1000.0,
    }


def _sum_kib(values: list[float | None]) -> int | None:
    """Total bytes of per-link KiB counters; None if any link's counter is unknown."""
    known = [v for v in values if v is not None]
    return None if len(known) < len(values) else int(sum(known)) * 1024


def _read_nvlink_bytes(nvml: Any, r: _GpuReader, nvlinks: tuple[NvLinkSnapshot, ...] | None) -> dict[str, Any]:
    """Data payload sent and received over all active links since the driver loaded."""
    active = [n.link for n in nvlinks or () if n.active]
    if not active:
        return {"nvlink_tx_bytes": None, "nvlink_rx_bytes": None}
    tx_id = _const(nvml, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX", _FI_NVLINK_DATA_TX)
    rx_id = _const(nvml, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX", _FI_NVLINK_DATA_RX)
    vals = r.fields("nvlink_throughput", [(tx_id, link) for link in active] + [(rx_id, link) for link in active])
    return {"nvlink_tx_bytes": _sum_kib(vals[: len(active)]), "nvlink_rx_bytes": _sum_kib(vals[len(active) :])}


def _read_modes_processes(r: _GpuReader, root: Path, bus_id: str | None) -> dict[str, Any]:
    """Persistence and MIG modes, compute processes (with their /proc state) and the NUMA node."""
    persistence = r.get("persistence_mode", "nvmlDeviceGetPersistenceMode")
    mig = r.get("mig_mode", "nvmlDeviceGetMigMode")
    procs = r.get("processes", "nvmlDeviceGetComputeRunningProcesses")
    numa = r.get("numa_node", "nvmlDeviceGetNumaNodeId", record=False)
    if numa is None and bus_id:
        numa = read_int(root / "sys/bus/pci/devices" / bus_id / "numa_node")
    if numa is not None and numa < 0:
        numa = None
    processes = None
    if procs is not None:
        processes = tuple(
            ProcessSnapshot(
                pid=int(p.pid),
                used_memory_bytes=as_int(getattr(p, "usedGpuMemory", None)),
                **process_state(root, int(p.pid)),
            )
            for p in procs
        )
    return {
        "persistence_mode": None if persistence is None else bool(persistence),
        "mig_mode": None if mig is None else bool(mig[0]),
        "processes": processes,
        "numa_node": as_int(numa),
    }


def _read_gpu(nvml: Any, handle: Any, index: int, root: Path, known: object) -> GpuSnapshot:
    """One GPU, read group by group in a fixed order (after a lost GPU, later fields stay None)."""
    r = _GpuReader(nvml, handle)
    identity = _read_identity(r)
    values: dict[str, Any] = {
        **identity,
        **_read_usage(r),
        **_read_thermal(nvml, r),
        **_read_power_clocks(nvml, r),
        **_read_ecc(nvml, r),
        **_read_retired_memory(r),
        **_read_pcie(nvml, r),
    }
    nvlinks = _read_nvlinks(nvml, r)
    values.update(_read_nvlink_bytes(nvml, r, nvlinks))
    values.update(_read_modes_processes(r, root, identity["pci_bus_id"]))
    return GpuSnapshot(
        index=index,
        catalog_id=_catalog_id(identity["name"], known, values["memory_total_bytes"]),
        nvlinks=nvlinks,
        lost=r.lost,
        errors=r.errors,
        **values,
    )


def _read_nvlinks(nvml: Any, r: _GpuReader) -> tuple[NvLinkSnapshot, ...] | None:
    """Links 0.. until NVML says the link does not exist; None when the GPU has no NVLink."""
    links: list[NvLinkSnapshot] = []
    for link in range(min(_const(nvml, "NVML_NVLINK_MAX_LINKS", _MAX_NVLINKS), 64)):
        state, status = r.status("nvmlDeviceGetNvLinkState", link)
        if status != "ok":
            break  # not supported (no NVLink) or past the last link (invalid argument)
        active = bool(state)
        version = r.get(f"nvlink[{link}].version", "nvmlDeviceGetNvLinkVersion", link) if active else None
        remote = r.get(f"nvlink[{link}].remote", "nvmlDeviceGetNvLinkRemotePciInfo", link) if active else None
        counters = {}
        for i, counter in enumerate(NVLINK_ERROR_COUNTERS):
            counters[counter] = as_int(r.get(f"nvlink[{link}].{counter}", "nvmlDeviceGetNvLinkErrorCounter", link, i))
        links.append(
            NvLinkSnapshot(
                link=link,
                active=active,
                version=as_int(version),
                remote_bus_id=normalize_bus_id(getattr(remote, "busId", None)) if remote is not None else None,
                errors=counters,
            )
        )
    return tuple(links) if links else None


def _read_topology(nvml: Any, handles: list[Any], errors: dict[str, str]) -> tuple[tuple[int | None, ...], ...]:
    n = len(handles)
    matrix: list[list[int | None]] = [[0 if i == j else None for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if handles[i] is None or handles[j] is None:
                continue
            level, _ = nvml_call(
                nvml, errors, f"topology[{i}][{j}]", "nvmlDeviceGetTopologyCommonAncestor", handles[i], handles[j]
            )
            matrix[i][j] = matrix[j][i] = as_int(level)
    return tuple(tuple(row) for row in matrix)


def _catalog_ids() -> object:
    """The catalog that names GPUs (None when it cannot load: a reading must not fail on it)."""
    try:
        from gpuwise.catalog import load_catalog

        return load_catalog()
    except Exception:  # a broken catalog must not stop a hardware reading
        return None


def _catalog_id(name: str | None, known: object, memory_bytes: int | None = None) -> str | None:
    """The catalog id from the one GPU identity lookup (gpuwise.catalog.identity.identify)."""
    from gpuwise.catalog import Catalog
    from gpuwise.catalog.identity import identify

    return identify(name, catalog=known, memory_bytes=memory_bytes) if isinstance(known, Catalog) else None


def gpu_clocks(
    index: int, uuid: str | None, nvml: Any = None, environ: Mapping[str, str] | None = None
) -> tuple[str | None, dict[str, float], dict[str, str]]:
    """(driver version, clocks, errors) of the GPU a benchmark ran on, for its host record: the GPU
    is found by `uuid` (torch's), else by `index` unless CUDA_VISIBLE_DEVICES renumbers devices.
    NVML is optional (no nvidia-ml-py: nothing read, nothing to report); every failed call is
    recorded in `errors` (field -> text) as a snapshot records it, a clock NVML lacks is left out."""
    if nvml is None:
        if importlib.util.find_spec("pynvml") is None:
            return None, {}, {}
        nvml = importlib.import_module("pynvml")
    errors: dict[str, str] = {}
    if nvml_call(nvml, errors, "init", "nvmlInit")[1] != "ok":
        if "init" in errors:
            errors["init"] = _explain_init_error(errors["init"])
        return None, {}, errors
    try:
        driver = as_text(nvml_call(nvml, errors, "driver_version", "nvmlSystemGetDriverVersion")[0])
        handle = None
        if uuid:
            gpu_uuid = uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"
            handle = nvml_call(nvml, errors, "handle_by_uuid", "nvmlDeviceGetHandleByUUID", gpu_uuid)[0]
        if handle is None and "CUDA_VISIBLE_DEVICES" not in (os.environ if environ is None else environ):
            handle = nvml_call(nvml, errors, "handle_by_index", "nvmlDeviceGetHandleByIndex", index)[0]
        clocks: dict[str, Any] = {}
        if handle is not None:
            r = _GpuReader(nvml, handle)
            sm, mem = _const(nvml, "NVML_CLOCK_SM", _CLOCK_SM), _const(nvml, "NVML_CLOCK_MEM", _CLOCK_MEM)
            limit = r.get("power_limit_w", "nvmlDeviceGetEnforcedPowerLimit")
            clocks = {
                "sm_mhz": r.get("sm_mhz", "nvmlDeviceGetClockInfo", sm),
                "mem_mhz": r.get("mem_mhz", "nvmlDeviceGetClockInfo", mem),
                "sm_max_mhz": r.get("sm_max_mhz", "nvmlDeviceGetMaxClockInfo", sm),
                "mem_max_mhz": r.get("mem_max_mhz", "nvmlDeviceGetMaxClockInfo", mem),
                "power_limit_w": None if limit is None else limit / 1000.0,
                "temperature_c": r.get(
                    "temperature_c", "nvmlDeviceGetTemperature", _const(nvml, "NVML_TEMPERATURE_GPU", _TEMPERATURE_GPU)
                ),
            }
            errors.update(r.errors)
    finally:
        nvml_call(nvml, errors, "shutdown", "nvmlShutdown")
    return driver, {k: v for k, v in clocks.items() if v is not None}, errors
