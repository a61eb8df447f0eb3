"""What a benchmark ran on: host name, CPU, and (on a GPU) its model, count, driver, CUDA and
torch versions and clocks. Torch and NVML (`pynvml`, from nvidia-ml-py) are optional: without
them the fields they would fill stay empty."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import platform
import re
import socket
from pathlib import Path
from typing import Any

from gpuwise.bench.result import HostFacts


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo (Linux), else what `platform` knows."""
    with contextlib.suppress(OSError):
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        for key in ("model name", "Hardware", "Processor", "cpu model", "cpu"):
            m = re.search(rf"^{key}\s*:\s*(.+)$", text, re.MULTILINE)
            if m and m.group(1).strip():
                return m.group(1).strip()
    return platform.processor() or platform.machine() or "unknown"


def usable_cpus() -> int:
    """CPUs this process may run on (the affinity mask: containers and taskset), else all."""
    if hasattr(os, "sched_getaffinity"):
        with contextlib.suppress(OSError):
            return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def catalog_gpu_id(name: str, memory_bytes: int | None = None, pci_id: str | None = None) -> str | None:
    """The catalog id of the GPU a benchmark ran on, from the same lookup the fleet and deploy
    use (`gpuwise.catalog.identity.identify`), or None when the catalog does not list the board.
    On a Jetson the device tree's module ids are tried too (its GPU name is the same on every
    Orin module)."""
    try:
        from gpuwise.catalog.identity import identify

        found = identify(name, pci_id=pci_id, memory_bytes=memory_bytes)
        for module in () if found else _device_tree_compatible():
            found = identify(module, memory_bytes=memory_bytes)
            if found:
                break
        return found
    except Exception:  # a catalog problem must not stop a benchmark from recording its host
        return None


def _device_tree_compatible(root: Path = Path("/")) -> list[str]:
    """Entries of /proc/device-tree/compatible (NUL-separated; Jetson module ids), or []."""
    with contextlib.suppress(OSError):
        raw = (root / "proc/device-tree/compatible").read_bytes()
        return [part.decode("ascii", "replace") for part in raw.split(b"\0") if part]
    return []


def _pci_id(props: Any) -> str | None:
    """'vendor:device' of a torch device from sysfs (Linux), via the PCI address torch reports."""
    with contextlib.suppress(AttributeError, TypeError, ValueError, OSError):
        bus_id = f"{int(props.pci_domain_id):04x}:{int(props.pci_bus_id):02x}:{int(props.pci_device_id):02x}.0"
        dev = Path("/sys/bus/pci/devices") / bus_id
        vendor = (dev / "vendor").read_text().strip().removeprefix("0x")
        device = (dev / "device").read_text().strip().removeprefix("0x")
        return f"{vendor}:{device}"
    return None


def _nvidia_driver_from_proc() -> str | None:
    with contextlib.suppress(OSError):
        text = Path("/proc/driver/nvidia/version").read_text(encoding="utf-8", errors="replace")
        m = re.search(r"Kernel Module(?:\s+for\s+\S+)?\s+([0-9][0-9.]*)", text)
        if m:
            return m.group(1)
    return None


def _nvml(index: int, uuid: str | None) -> tuple[str | None, dict[str, Any]]:
    """(driver version, clocks) from NVML when pynvml is importable; (None, {}) otherwise."""
    if importlib.util.find_spec("pynvml") is None:
        return None, {}
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # no driver, no library, no permission: NVML is optional
        return None, {}
    clocks: dict[str, Any] = {}
    driver = None
    try:
        with contextlib.suppress(Exception):
            raw = pynvml.nvmlSystemGetDriverVersion()
            driver = raw.decode() if isinstance(raw, bytes) else str(raw)
        handle = None
        if uuid:
            with contextlib.suppress(Exception):
                handle = pynvml.nvmlDeviceGetHandleByUUID(uuid if uuid.startswith("GPU-") else f"GPU-{uuid}")
        if handle is None and "CUDA_VISIBLE_DEVICES" not in os.environ:
            with contextlib.suppress(Exception):
                handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        if handle is not None:
            reads = {
                "sm_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                "mem_mhz": lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM),
                "sm_max_mhz": lambda: pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM),
                "mem_max_mhz": lambda: pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM),
                "power_limit_w": lambda: pynvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1000.0,
                "temperature_c": lambda: pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU),
            }
            for key, read in reads.items():
                with contextlib.suppress(Exception):
                    clocks[key] = read()
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()
    return driver, clocks


def host_facts(device: str = "cpu") -> HostFacts:
    """Facts about this host for `device` ('cpu' or 'cuda[:i]'); GPU fields for that GPU."""
    facts: dict[str, Any] = {
        "hostname": socket.gethostname() or platform.node(),
        "cpu": cpu_model(),
        "cpu_count": usable_cpus(),
        "device": "cuda" if device.strip().lower().startswith("cuda") else "cpu",
        "python": platform.python_version(),
    }
    try:
        import torch
    except ImportError:
        return HostFacts(**facts)
    facts["torch"] = torch.__version__
    facts["cuda"] = torch.version.cuda or (f"hip {torch.version.hip}" if getattr(torch.version, "hip", None) else None)
    if facts["device"] == "cpu":
        return HostFacts(**facts)
    from gpuwise.bench._common import resolve_device

    resolved = resolve_device(device)
    index = int(resolved.split(":")[1])
    props = torch.cuda.get_device_properties(index)
    uuid = str(getattr(props, "uuid", "") or "") or None
    driver, clocks = _nvml(index, uuid)
    name = torch.cuda.get_device_name(index)
    facts.update(
        gpu_model=name,
        gpu_id=catalog_gpu_id(name, int(props.total_memory), _pci_id(props)),
        gpu_count=torch.cuda.device_count(),
        driver=driver or _nvidia_driver_from_proc(),
        clocks={"device_index": index, "memory_bytes": int(props.total_memory),
                "multiprocessors": int(props.multi_processor_count),
                "capability": f"{props.major}.{props.minor}", **clocks},
    )  # fmt: skip
    return HostFacts(**facts)
