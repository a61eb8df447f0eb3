"""The snapshot of a host and its GPUs (frozen dataclasses: None is unknown, never zero), the
`Source` protocol that produces one, and the strict reading of a snapshot from JSON (an unknown key
or a wrong type is a mistake in the file)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from gpuwise.errors import UsageError, shorten
from gpuwise.hw.convert import as_text

_T = TypeVar("_T")
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
    text = as_text(bus_id)
    if not text:
        return None
    m = re.fullmatch(r"(?:([0-9a-fA-F]+):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\.([0-7]))?", text.strip())
    if not m:
        return text.strip().lower()
    domain, bus, dev, fn = m.groups()
    return f"{int(domain or '0', 16):04x}:{int(bus, 16):02x}:{int(dev, 16):02x}.{int(fn or '0')}"


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
        return host_from_dict(data)


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


def host_from_dict(data: Mapping[str, Any]) -> HostSnapshot:
    snap = _dataclass_from(HostSnapshot, data, "snapshot")
    try:
        snap.datetime  # noqa: B018 - parsed once here, so that no reader of the snapshot fails later
    except ValueError:
        raise _bad("snapshot.time", "an ISO 8601 time such as 2026-11-02T09:14:05+00:00", snap.time) from None
    return snap


@runtime_checkable
class Source(Protocol):
    def read(self) -> HostSnapshot: ...


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
