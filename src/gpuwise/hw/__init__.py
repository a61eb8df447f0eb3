"""The one door to the hardware: NVML (nvidia-ml-py), sysfs and procfs, read into typed snapshots.

No gpuwise module outside this package imports NVML or reads /sys or /proc (tests/test_ops_hw.py
checks it). The checks, the exporter, the fleet records and the benchmarks' host record read the
machine here, in one pass, into frozen dataclasses:

- `HostSnapshot`: host facts (driver, CUDA versions, CPU governors, C-states, kernel command line,
  NCCL environment, InfiniBand devices, XID events from the kernel log, the PCIe topology matrix)
  and one `GpuSnapshot` per GPU (`snapshot`, with the strict reading of recorded JSON).
- Units are SI: bytes, bytes/s, watts, hertz, degrees Celsius. NVML's milliwatts, megahertz and
  KB/s are converted on the way in (`convert`).
- "Not supported" answers (GeForce boards, MIG, older drivers) become `None`: unknown, never 0.
  Any other NVML error becomes a message in the snapshot's `errors` (field -> text), and a GPU
  that is lost (fell off the bus) is marked `lost`, so one bad field or GPU never spoils the rest
  (`nvml.nvml_call`, the one helper every NVML call goes through).

Sources: `NvmlSource` reads the machine (`nvml`, with the host facts of `host`); `ReplaySource`
replays a recorded JSON file written by `record()` (`recording`). Both satisfy the `Source`
protocol (`read() -> HostSnapshot`).
"""

from gpuwise.hw.host import parse_xid_lines, read_host_facts, read_xid_events
from gpuwise.hw.nvml import NvmlSource, nvml_call
from gpuwise.hw.recording import Recording, ReplaySource, load_recording, read_recording, record
from gpuwise.hw.snapshot import (
    NVLINK_ERROR_COUNTERS,
    THROTTLE_REASONS,
    TOPOLOGY_LEVELS,
    CState,
    GpuSnapshot,
    HostSnapshot,
    NvLinkSnapshot,
    ProcessSnapshot,
    Source,
    XidEvent,
    close_source,
    decode_throttle,
    normalize_bus_id,
    read_source,
)

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
