"""What a benchmark ran on: host name, CPU, and (on a GPU) its model, count, driver, CUDA and
torch versions and clocks. Torch and NVML (nvidia-ml-py) are optional: without
them the fields they would fill stay empty. The hardware is read through `gpuwise.hw`, which
records why an NVML read failed (`HostFacts.errors`)."""

from __future__ import annotations

import contextlib
import os
import platform
import socket
from typing import Any

from gpuwise.hw.host import cpu_model, device_tree_compatible, nvidia_driver_version, pci_vendor_device
from gpuwise.hw.nvml import gpu_clocks
from gpuwise.store.results import HostFacts


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
        for module in () if found else device_tree_compatible():
            found = identify(module, memory_bytes=memory_bytes)
            if found:
                break
        return found
    except Exception:  # a catalog problem must not stop a benchmark from recording its host
        return None


def _pci_id(props: Any) -> str | None:
    """'vendor:device' of a torch device, via the PCI address torch reports (None when it reports none)."""
    try:
        bus_id = f"{int(props.pci_domain_id):04x}:{int(props.pci_bus_id):02x}:{int(props.pci_device_id):02x}.0"
    except (AttributeError, TypeError, ValueError):
        return None
    return pci_vendor_device(bus_id)


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
    driver, clocks, errors = gpu_clocks(index, uuid)
    name = torch.cuda.get_device_name(index)
    facts.update(
        gpu_model=name,
        gpu_id=catalog_gpu_id(name, int(props.total_memory), _pci_id(props)),
        gpu_count=torch.cuda.device_count(),
        driver=driver or nvidia_driver_version(),
        errors=errors,
        clocks={"device_index": index, "memory_bytes": int(props.total_memory),
                "multiprocessors": int(props.multi_processor_count),
                "capability": f"{props.major}.{props.minor}", **clocks},
    )  # fmt: skip
    return HostFacts(**facts)
