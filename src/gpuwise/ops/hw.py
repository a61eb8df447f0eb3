"""The one door to the hardware: NVML (nvidia-ml-py), sysfs and procfs, read into typed snapshots.

No other gpuwise module imports NVML or reads /sys or /proc. Everything the checks, the exporter
and the fleet records need is read here, in one pass, into frozen dataclasses:

- `HostSnapshot`: host facts (driver, CUDA versions, CPU governors, C-states, kernel command line,
  NCCL environment, InfiniBand devices, XID events from the kernel log, the PCIe topology matrix)
  and one `GpuSnapshot` per GPU.
- Units are SI: bytes, bytes/s, watts, hertz, degrees Celsius. NVML's milliwatts, megahertz and
  KB/s are converted on the way in.
- "Not supported" answers (GeForce boards, MIG, older drivers) become `None`: unknown, never 0.
  Any other NVML error becomes a message in the snapshot's `errors` (field -> text), and a GPU
  that is lost (fell off the bus) is marked `lost`, so one bad field or GPU never spoils the rest.

Sources: `NvmlSource` reads the machine; `ReplaySource` replays a recorded JSON file written by
`record()`. Both satisfy the `Source` protocol (`read() -> HostSnapshot`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import importlib
import importlib.util
import json
import math
import os
import re
import socket
import stat
import subprocess
import time
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from gpuwise.errors import UsageError, shorten

_T = TypeVar("_T")
SNAPSHOT_FORMAT = "gpuwise.host-snapshot"
SNAPSHOT_VERSION = 1

# NVML clocks event (throttle) reasons, nvmlClocksEventReason* in the NVML reference.
THROTTLE_REASONS: dict[int, str] = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}

# nvmlGpuTopologyLevel_t: the closest common ancestor of two GPUs on the PCIe tree.
TOPOLOGY_LEVELS: dict[int, str] = {
    0: "internal",  # the same board (e.g. the two GPUs of a K80)
    10: "single",  # one PCIe switch
    20: "multiple",  # several PCIe switches, no host bridge
    30: "hostbridge",  # the same host bridge
    40: "node",  # the same NUMA node, several host bridges
    50: "system",  # across NUMA nodes (SMP interconnect)
}

NVLINK_ERROR_COUNTERS = ("replay", "recovery", "crc_flit", "crc_data", "ecc_data")  # nvmlNvLinkErrorCounter_t order

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


def decode_throttle(mask: int | None) -> tuple[str, ...] | None:
    """Names of the bits set in an NVML clocks event reasons mask (unknown bits as hex)."""
    if mask is None:
        return None
    names = [name for bit, name in THROTTLE_REASONS.items() if mask & bit]
    rest = mask & ~sum(THROTTLE_REASONS)
    if rest:
        names.append(hex(rest))
    return tuple(names)


def normalize_bus_id(bus_id: str | bytes | None) -> str | None:
    """PCI address as sysfs writes it: 4-digit domain, lower case ('0000:17:00.0').

    NVML gives an 8-digit domain ('00000000:17:00.0'); kernel XID lines give no function
    ('0000:17:00'), which is read as function 0.
    """
    text = _text(bus_id)
    if not text:
        return None
    m = re.fullmatch(r"(?:([0-9a-fA-F]+):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\.([0-7]))?", text.strip())
    if not m:
        return text.strip().lower()
    domain, bus, dev, fn = m.groups()
    return f"{int(domain or '0', 16):04x}:{int(bus, 16):02x}:{int(dev, 16):02x}.{int(fn or '0')}"


# ---------------------------------------------------------------------------------------------
# Snapshots
@dataclass(frozen=True, slots=True)
class NvLinkSnapshot:
    link: int
    active: bool | None
    version: int | None = None
    remote_bus_id: str | None = None
    errors: dict[str, int | None] = field(default_factory=dict)  # NVLINK_ERROR_COUNTERS -> count


@dataclass(frozen=True, slots=True)
class ProcessSnapshot:
    pid: int
    used_memory_bytes: int | None
    state: str | None = None  # alive | zombie | dead | gone (no /proc entry) | None (could not look)
    name: str | None = None


@dataclass(frozen=True, slots=True)
class CState:
    name: str
    latency_us: int | None
    disabled: bool | None


@dataclass(frozen=True, slots=True)
class XidEvent:
    xid: int
    bus_id: str | None  # normalized PCI address of the GPU the driver named
    message: str
    seq: int | None = None  # kernel log sequence number (/dev/kmsg), to count each event once


@dataclass(frozen=True, slots=True)
class GpuSnapshot:
    """One GPU as NVML saw it. None means unknown or not supported, never zero."""

    index: int
    uuid: str | None = None
    serial: str | None = None
    name: str | None = None
    catalog_id: str | None = None
    pci_bus_id: str | None = None
    vbios: str | None = None
    inforom: str | None = None
    memory_total_bytes: int | None = None
    memory_used_bytes: int | None = None
    utilization_gpu: float | None = None  # 0..1, share of time a kernel ran
    utilization_memory: float | None = None  # 0..1, share of time memory was read or written
    temperature_celsius: float | None = None
    temperature_slowdown_celsius: float | None = None
    temperature_shutdown_celsius: float | None = None
    memory_temperature_celsius: float | None = None
    memory_temperature_max_celsius: float | None = None
    power_watts: float | None = None
    power_limit_watts: float | None = None
    clock_sm_hz: float | None = None
    clock_mem_hz: float | None = None
    clock_sm_max_hz: float | None = None
    clock_mem_max_hz: float | None = None
    throttle_reasons: int | None = None
    ecc_enabled: bool | None = None
    ecc_corrected_volatile: int | None = None
    ecc_uncorrected_volatile: int | None = None
    ecc_corrected_aggregate: int | None = None
    ecc_uncorrected_aggregate: int | None = None
    retired_pages_sbe: int | None = None
    retired_pages_dbe: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_corrected: int | None = None
    remapped_rows_uncorrected: int | None = None
    remap_pending: bool | None = None
    remap_failure: bool | None = None
    pcie_gen: int | None = None
    pcie_width: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_max: int | None = None
    pcie_replay_count: int | None = None
    pcie_tx_bytes_per_second: float | None = None
    pcie_rx_bytes_per_second: float | None = None
    nvlinks: tuple[NvLinkSnapshot, ...] | None = None  # None: no NVLink on this GPU (not supported)
    nvlink_tx_bytes: int | None = None  # data payload sent over all links since the driver loaded
    nvlink_rx_bytes: int | None = None
    persistence_mode: bool | None = None
    mig_mode: bool | None = None
    processes: tuple[ProcessSnapshot, ...] | None = None
    numa_node: int | None = None
    lost: bool = False  # the GPU stopped answering (fell off the bus, or its handle failed)
    errors: dict[str, str] = field(default_factory=dict)  # field -> what went wrong reading it

    @property
    def throttle_names(self) -> tuple[str, ...] | None:
        return decode_throttle(self.throttle_reasons)

    @property
    def active_nvlinks(self) -> int | None:
        return None if self.nvlinks is None else sum(1 for link in self.nvlinks if link.active)

    @property
    def label(self) -> str:
        return f"GPU {self.index}" + (f" ({self.name})" if self.name else "")


@dataclass(frozen=True, slots=True)
class HostSnapshot:
    """One reading of a host. `nvml_error` says why there are no GPUs when NVML could not start."""

    hostname: str
    time: str  # ISO 8601, UTC
    nvml_error: str | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None  # the newest CUDA the driver supports, e.g. '12.4'
    cuda_runtime_version: str | None = None  # torch.version.cuda of the installed PyTorch, if any
    torch_version: str | None = None
    cpu_governors: dict[int, str] | None = None  # cpu index -> scaling_governor; None: no cpufreq
    cpuidle_driver: str | None = None
    cstates: tuple[CState, ...] | None = None  # idle states of cpu0; None: no cpuidle
    kernel_cmdline: str | None = None
    nccl_env: dict[str, str] = field(default_factory=dict)
    infiniband_devices: tuple[str, ...] | None = None
    net_interfaces: tuple[str, ...] | None = None
    xid_events: tuple[XidEvent, ...] | None = None  # None: the kernel log could not be read
    kernel_log_error: str | None = None
    in_container: bool | None = None
    topology: tuple[tuple[int | None, ...], ...] | None = None  # [i][j]: TOPOLOGY_LEVELS key
    gpus: tuple[GpuSnapshot, ...] = ()
    errors: dict[str, str] = field(default_factory=dict)

    def gpu(self, index: int) -> GpuSnapshot:
        for g in self.gpus:
            if g.index == index:
                return g
        raise KeyError(index)

    @property
    def has_nvidia(self) -> bool:
        return self.nvml_error is None

    @property
    def datetime(self) -> dt.datetime:
        t = dt.datetime.fromisoformat(self.time.replace("Z", "+00:00"))
        return t if t.tzinfo else t.replace(tzinfo=dt.UTC)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> HostSnapshot:
        return _host_from_dict(data)


# ----- JSON <-> dataclasses (strict: an unknown key or a wrong type is a mistake in the file) ----
MAX_TEXT = 65536  # characters in one text field of a recording (a kernel command line is at most 4 KiB)
MAX_INT = 2**63  # counters are 64-bit in NVML; anything past it is not a reading
MAX_ITEMS = 4096  # GPUs, links, processes, events... in one snapshot
MAX_READING = 1e300  # |float reading| below it: a sum over a snapshot's readings stays finite (float max ~1.8e308)


def _bad(where: str, want: str, value: Any) -> UsageError:
    return UsageError(f"{where}: must be {want}, got {shorten(repr(value))}")


def _scalar(value: Any, hint: Any, where: str) -> Any:
    """A JSON scalar of the type a snapshot field declares: bool, int, finite float or text."""
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise _bad(where, "true or false", value)
    if isinstance(value, bool):
        raise _bad(where, "a number" if hint in (int, float) else "text", value)
    if hint is int:
        if isinstance(value, int) and -MAX_INT < value < MAX_INT:
            return value
        raise _bad(where, f"a whole number below {MAX_INT:.3g} in size", value)
    if hint is float:
        if isinstance(value, int | float) and abs(value) < MAX_READING and math.isfinite(value):
            return float(value)
        raise _bad(where, "a finite number", value)
    if hint is str:
        if isinstance(value, str) and len(value) <= MAX_TEXT:
            return value
        raise _bad(where, f"text of at most {MAX_TEXT} characters", value)
    raise UsageError(f"{where}: no reader for {hint!r}")  # pragma: no cover - the dataclasses use the above


def _typed(value: Any, hint: Any, where: str) -> Any:
    """`value` read as `hint` (a snapshot field's annotation): checked, containers rebuilt as tuples."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]  # the dataclasses use only `X | None`
        return _typed(value, inner, where)
    if dataclasses.is_dataclass(hint):
        return _dataclass_from(hint, value, where)  # type: ignore[arg-type]
    if origin is tuple:
        if not isinstance(value, list | tuple) or len(value) > MAX_ITEMS:
            raise _bad(where, f"a list of at most {MAX_ITEMS} items", value)
        return tuple(_typed(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, Mapping) or len(value) > MAX_ITEMS:
            raise _bad(where, f"an object of at most {MAX_ITEMS} entries", value)
        key_hint, value_hint = args
        out = {}
        for k, v in value.items():
            key = k
            if key_hint is int:
                if not isinstance(k, str) or not re.fullmatch(r"\d{1,9}", k):
                    raise _bad(f"{where} key", "a small whole number", k)
                key = int(k)
            out[key] = _typed(v, value_hint, f"{where}[{k!r}]")
        return out
    if value is None:
        raise _bad(where, "given (null is not allowed here)", value)
    return _scalar(value, hint, where)


@functools.cache
def _hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _dataclass_from(cls: type[_T], data: Any, where: str) -> _T:
    """An instance of snapshot dataclass `cls` from a JSON object, each field type-checked."""
    if not isinstance(data, Mapping):
        raise _bad(where, "an object", data)
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(map(str, set(data) - names))
    if unknown:
        raise UsageError(f"{where}: unknown field(s) {', '.join(u[:40] for u in unknown[:5])}")
    hints = _hints(cast(Any, cls))
    kw = {k: _typed(v, hints[k], f"{where}.{k}") for k, v in data.items()}
    try:
        return cls(**kw)
    except TypeError as exc:  # a required field missing
        raise UsageError(f"{where}: {exc}") from None


def _host_from_dict(data: Mapping[str, Any]) -> HostSnapshot:
    snap = _dataclass_from(HostSnapshot, data, "snapshot")
    try:
        snap.datetime  # noqa: B018 - parsed once here, so that no reader of the snapshot fails later
    except ValueError:
        raise _bad("snapshot.time", "an ISO 8601 time such as 2026-11-02T09:14:05+00:00", snap.time) from None
    return snap


def record(
    snapshot: HostSnapshot | list[HostSnapshot],
    path: str | Path,
    *,
    synthetic: bool = False,
    note: str | None = None,
) -> Path:
    """Write exactly what was read (every field, None as null, the errors) as JSON.

    A list writes a sequence that `ReplaySource` plays back one reading per `read()`. `synthetic`
    marks a host that was built, not read from a machine (examples/hosts/), so no one takes its
    faults for observed ones; `note` says how it was made.
    """
    path = Path(path)
    body: dict[str, Any] = {"format": SNAPSHOT_FORMAT, "version": SNAPSHOT_VERSION}
    if synthetic:
        body["synthetic"] = True
    if note is not None:
        body["note"] = note
    if isinstance(snapshot, list):
        body["snapshots"] = [s.to_dict() for s in snapshot]
    else:
        body["snapshot"] = snapshot.to_dict()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the recording {str(path)!r}: {exc}") from None
    return path


@dataclass(frozen=True, slots=True)
class Recording:
    """A recording file: its snapshots, whether the host was synthetic, and the note it carries."""

    snapshots: list[HostSnapshot]
    synthetic: bool = False
    note: str | None = None


_RECORDING_KEYS = ("format", "version", "synthetic", "note", "snapshot", "snapshots")


def _recording_doc(path: Path) -> dict[str, Any]:
    """The recording's JSON object, its format, version and top-level keys checked."""
    from gpuwise.files import read_json  # size, depth, UTF-8 and finite-number limits

    try:
        missing = not path.exists()
    except OSError:  # a name too long for the file system: read_json says so
        missing = False
    if missing:
        raise UsageError(f"no recording at {str(path)[:200]!r}")
    doc = read_json(path, "recording")
    if not isinstance(doc, dict) or doc.get("format") != SNAPSHOT_FORMAT:
        raise UsageError(f'{path}: not a gpuwise host recording (expected "format": "{SNAPSHOT_FORMAT}")')
    if doc.get("version") != SNAPSHOT_VERSION:
        raise UsageError(f"{path}: recording version {doc.get('version')!r}; this gpuwise reads {SNAPSHOT_VERSION}")
    unknown = sorted(set(doc) - set(_RECORDING_KEYS))
    if unknown:
        raise UsageError(
            f"{path}: unknown top-level key(s) {', '.join(map(repr, unknown))}; known: {', '.join(_RECORDING_KEYS)}"
        )
    if not isinstance(doc.get("synthetic", False), bool):
        raise UsageError(f'{path}: "synthetic" must be true or false, got {doc["synthetic"]!r}')
    if not isinstance(doc.get("note", ""), str):
        raise UsageError(f'{path}: "note" must be text, got {doc["note"]!r}')
    return doc


def read_recording(path: str | Path) -> Recording:
    """A recording written by `record()`, with its synthetic flag and note."""
    path = Path(path)
    doc = _recording_doc(path)
    items = doc.get("snapshots") if "snapshots" in doc else [doc.get("snapshot")]
    if not isinstance(items, list) or not items:
        raise UsageError(f"{path}: the recording holds no snapshot")
    try:
        snapshots = [_host_from_dict(s) for s in items]
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None
    return Recording(snapshots, bool(doc.get("synthetic", False)), doc.get("note"))


def load_recording(path: str | Path) -> list[HostSnapshot]:
    """The snapshots in a recording written by `record()`."""
    return read_recording(path).snapshots


# ---------------------------------------------------------------------------------------------
# Sources
@runtime_checkable
class Source(Protocol):
    def read(self) -> HostSnapshot: ...


class ReplaySource:
    """Plays back a recording: each `read()` returns the next snapshot, then the last one again."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        recording = read_recording(self.path)
        self.snapshots = recording.snapshots
        self.synthetic, self.note = recording.synthetic, recording.note  # a built example host, not a reading
        self._next = 0

    def read(self) -> HostSnapshot:
        snap = self.snapshots[min(self._next, len(self.snapshots) - 1)]
        self._next += 1
        return snap

    def close(self) -> None:
        pass


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
            driver_version=_text(driver),
            cuda_driver_version=_cuda_version(cuda),
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


# ---------------------------------------------------------------------------------------------
# The one helper every NVML call goes through.
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
    name = _text(r.get("name", "nvmlDeviceGetName"))
    uuid = _text(r.get("uuid", "nvmlDeviceGetUUID"))
    serial = _text(r.get("serial", "nvmlDeviceGetSerial"))
    pci = r.get("pci_bus_id", "nvmlDeviceGetPciInfo")
    return {
        "name": name,
        "uuid": uuid,
        "serial": serial,
        "pci_bus_id": normalize_bus_id(getattr(pci, "busId", None)) if pci is not None else None,
        "vbios": _text(r.get("vbios", "nvmlDeviceGetVbiosVersion")),
        "inforom": _text(r.get("inforom", "nvmlDeviceGetInforomImageVersion")),
    }


def _read_usage(r: _GpuReader) -> dict[str, Any]:
    """Memory in use and utilization (NVML percent -> share 0..1)."""
    mem = r.get("memory", "nvmlDeviceGetMemoryInfo")
    util = r.get("utilization", "nvmlDeviceGetUtilizationRates")
    return {
        "memory_total_bytes": _int(getattr(mem, "total", None)),
        "memory_used_bytes": _int(getattr(mem, "used", None)),
        "utilization_gpu": _ratio(getattr(util, "gpu", None)),
        "utilization_memory": _ratio(getattr(util, "memory", None)),
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
        "temperature_celsius": _float(temp),
        "temperature_slowdown_celsius": _float(slowdown),
        "temperature_shutdown_celsius": _float(shutdown),
        "memory_temperature_celsius": _float(mem_temp),
        "memory_temperature_max_celsius": _float(mem_max),
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
        "clock_sm_hz": _mhz(clock_sm),
        "clock_mem_hz": _mhz(clock_mem),
        "clock_sm_max_hz": _mhz(clock_sm_max),
        "clock_mem_max_hz": _mhz(clock_mem_max),
        "throttle_reasons": _int(throttle),
    }


def _read_ecc(nvml: Any, r: _GpuReader) -> dict[str, Any]:
    """ECC mode and counters (None while ECC is off: the counters mean nothing then)."""
    ecc_mode = r.get("ecc_mode", "nvmlDeviceGetEccMode")
    ecc_enabled = None if ecc_mode is None else bool(ecc_mode[0])

    def ecc(kind: int, scope: int, key: str) -> int | None:
        if ecc_enabled is False:
            return None
        return _int(r.get(key, "nvmlDeviceGetTotalEccErrors", kind, scope))

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
        "pcie_gen": _int(pcie_gen),
        "pcie_width": _int(pcie_width),
        "pcie_gen_max": _int(pcie_gen_max),
        "pcie_width_max": _int(pcie_width_max),
        "pcie_replay_count": _int(replay),
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
        numa = _read_int(root / "sys/bus/pci/devices" / bus_id / "numa_node")
    if numa is not None and numa < 0:
        numa = None
    processes = None
    if procs is not None:
        processes = tuple(
            ProcessSnapshot(
                pid=int(p.pid),
                used_memory_bytes=_int(getattr(p, "usedGpuMemory", None)),
                **_process_state(root, int(p.pid)),
            )
            for p in procs
        )
    return {
        "persistence_mode": None if persistence is None else bool(persistence),
        "mig_mode": None if mig is None else bool(mig[0]),
        "processes": processes,
        "numa_node": _int(numa),
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
            counters[counter] = _int(r.get(f"nvlink[{link}].{counter}", "nvmlDeviceGetNvLinkErrorCounter", link, i))
        links.append(
            NvLinkSnapshot(
                link=link,
                active=active,
                version=_int(version),
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
            matrix[i][j] = matrix[j][i] = _int(level)
    return tuple(tuple(row) for row in matrix)


# ---------------------------------------------------------------------------------------------
# sysfs / procfs / environment
def read_host_facts(
    root: str | Path = "/", environ: Mapping[str, str] | None = None, *, kernel_log: bool = True
) -> dict[str, Any]:
    """Everything about the host that is not NVML, as HostSnapshot keyword arguments."""
    root = Path(root)
    env = os.environ if environ is None else environ
    cpu_dir = root / "sys/devices/system/cpu"
    governors: dict[int, str] = {}
    for gov in sorted(cpu_dir.glob("cpu[0-9]*/cpufreq/scaling_governor")):
        value = _read_text(gov)
        if value:
            governors[int(gov.parent.parent.name[3:])] = value
    cstates: list[CState] = []
    for state in sorted(cpu_dir.glob("cpu0/cpuidle/state[0-9]*"), key=lambda p: int(p.name[5:])):
        name = _read_text(state / "name") or state.name
        disabled = _read_int(state / "disable")
        cstates.append(
            CState(
                name=name,
                latency_us=_read_int(state / "latency"),
                disabled=None if disabled is None else bool(disabled),
            )
        )
    xids, log_error = read_xid_events(root) if kernel_log else (None, "not read (kernel_log=False)")
    torch_version, cuda_runtime = _torch_versions()
    return {
        "cuda_runtime_version": cuda_runtime,
        "torch_version": torch_version,
        "cpu_governors": governors or None,
        "cpuidle_driver": _read_text(cpu_dir / "cpuidle/current_driver"),
        "cstates": tuple(cstates) if cstates else None,
        "kernel_cmdline": _read_text(root / "proc/cmdline"),
        "nccl_env": {k: v for k, v in sorted(env.items()) if k.startswith("NCCL_")},
        "infiniband_devices": _list_dir(root / "sys/class/infiniband"),
        "net_interfaces": _list_dir(root / "sys/class/net"),
        "xid_events": xids,
        "kernel_log_error": log_error,
        "in_container": _in_container(root),
    }


_XID = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\): (\d+),\s*(.*)")


def parse_xid_lines(lines: list[tuple[int | None, str]]) -> tuple[XidEvent, ...]:
    """XID events from kernel log lines (seq may be None when the source has no sequence numbers)."""
    events = []
    for seq, line in lines:
        m = _XID.search(line)
        if m:
            events.append(
                XidEvent(xid=int(m.group(2)), bus_id=normalize_bus_id(m.group(1)), message=m.group(3).strip(), seq=seq)
            )
    return tuple(events)


def read_xid_events(root: str | Path = "/") -> tuple[tuple[XidEvent, ...] | None, str | None]:
    """XID events from /dev/kmsg (non-blocking, one record per read), else `dmesg`.

    Returns (events, None), or (None, why) when neither can be read (e.g. kernel.dmesg_restrict).
    """
    root = Path(root)
    kmsg = root / "dev/kmsg"
    why = []
    try:
        if kmsg.exists() and stat.S_ISCHR(kmsg.stat().st_mode):
            return parse_xid_lines(_read_kmsg_device(kmsg)), None
        if kmsg.is_file():  # a recorded log laid out by a test
            return parse_xid_lines(_kmsg_records(kmsg.read_text(encoding="utf-8", errors="replace").splitlines())), None
        why.append(f"{kmsg} does not exist")
    except OSError as exc:
        why.append(f"{kmsg}: {exc.strerror or exc}")
    if str(root) != "/":
        return None, "; ".join(why)
    try:
        out = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        why.append(f"dmesg: {exc}")
        return None, "; ".join(why)
    if out.returncode != 0:
        why.append(f"dmesg: {out.stderr.strip() or 'exit ' + str(out.returncode)}")
        return None, "; ".join(why)
    return parse_xid_lines([(None, line) for line in out.stdout.splitlines()]), None


def _kmsg_records(lines: list[str]) -> list[tuple[int | None, str]]:
    out: list[tuple[int | None, str]] = []
    for line in lines:
        head, sep, msg = line.partition(";")
        parts = head.split(",")
        if sep and len(parts) >= 2 and parts[1].isdigit():
            out.append((int(parts[1]), msg))
        else:
            out.append((None, line))
    return out


def _read_kmsg_device(path: Path) -> list[tuple[int | None, str]]:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    records: list[str] = []
    try:
        for _ in range(200_000):  # the ring buffer holds far fewer records; a bound, not a limit
            try:
                chunk = os.read(fd, 16384)
            except BlockingIOError:
                break
            except BrokenPipeError:  # a record was overwritten while reading: skip it
                continue
            if not chunk:
                break
            records.append(chunk.decode("utf-8", errors="replace").rstrip("\n"))
    finally:
        os.close(fd)
    return _kmsg_records(records)


def _process_state(root: Path, pid: int) -> dict[str, Any]:
    proc = root / "proc" / str(pid)
    try:
        raw = (proc / "stat").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {"state": "gone", "name": None}
    except OSError:
        return {"state": None, "name": None}
    code = raw.rpartition(")")[2].split()[:1]
    state = {"Z": "zombie", "X": "dead", "x": "dead"}.get(code[0] if code else "", "alive")
    return {"state": state, "name": _read_text(proc / "comm")}


def _in_container(root: Path) -> bool | None:
    if (root / ".dockerenv").exists() or (root / "run/.containerenv").exists():
        return True
    cgroup = _read_text(root / "proc/1/cgroup")
    if cgroup is None:
        return None
    return any(word in cgroup for word in ("docker", "kubepods", "containerd", "libpod", "lxc"))


def _torch_versions() -> tuple[str | None, str | None]:
    """PyTorch's version and the CUDA it was built for, read from torch/version.py without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None, None
    if spec is None or not spec.origin:
        return None, None
    text = _read_text(Path(spec.origin).parent / "version.py", strip=False) or ""
    version = re.search(r"^__version__\s*(?::[^=]+)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
    cuda = re.search(r"^cuda\s*(?::[^=]+)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
    return (version.group(1) if version else None), (cuda.group(1) if cuda else None)


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


# ----- small converters ----------------------------------------------------------------------
def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return str(value).strip("\x00").strip() or None


def _int(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def _float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _ratio(percent: Any) -> float | None:
    value = _float(percent)
    return None if value is None else value / 100.0


def _mhz(value: Any) -> float | None:
    value = _float(value)
    return None if value is None else value * 1e6


def _cuda_version(value: Any) -> str | None:
    """NVML's 1000*major + 10*minor (12040) as '12.4'."""
    v = _int(value)
    if not v:
        return None
    return f"{v // 1000}.{(v % 1000) // 10}"


def _read_text(path: Path, strip: bool = True) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return text.strip() if strip else text


def _read_int(path: Path) -> int | None:
    return _int(_read_text(path))


def _list_dir(path: Path) -> tuple[str, ...] | None:
    try:
        return tuple(sorted(p.name for p in path.iterdir()))
    except OSError:
        return None


def close_source(source: object) -> None:
    """Close a source if it has a `close()` (closing is optional on a source)."""
    close = getattr(source, "close", None)
    if callable(close):
        close()


def read_source(make: Callable[[], Source]) -> HostSnapshot:
    """Build a source, read it once and close it."""
    source = make()
    try:
        return source.read()
    finally:
        close_source(source)


__all__ = [
    "NVLINK_ERROR_COUNTERS",
    "THROTTLE_REASONS",
    "TOPOLOGY_LEVELS",
    "CState",
    "GpuSnapshot",
    "HostSnapshot",
    "NvLinkSnapshot",
    "NvmlSource",
    "ProcessSnapshot",
    "Recording",
    "ReplaySource",
    "Source",
    "XidEvent",
    "close_source",
    "decode_throttle",
    "load_recording",
    "normalize_bus_id",
    "nvml_call",
    "parse_xid_lines",
    "read_host_facts",
    "read_recording",
    "read_source",
    "read_xid_events",
    "record",
]
