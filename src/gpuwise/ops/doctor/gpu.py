"""Checks of the GPUs themselves: driver and CUDA, health (lost GPUs, read errors), firmware
agreement across the host, persistence mode."""

from __future__ import annotations

from collections import Counter, defaultdict

from gpuwise.hw import GpuSnapshot, HostSnapshot
from gpuwise.ops.doctor.check import (
    FAIL,
    WARN,
    CheckResult,
    DoctorOptions,
    live_gpus,
    passed,
    skipped,
    version_tuple,
)


def binding_missing(snap: HostSnapshot) -> bool:
    return "nvidia-ml-py" in (snap.nvml_error or "")


def check_driver(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if not snap.has_nvidia:
        if binding_missing(snap):
            return skipped(
                "driver",
                "NVML cannot be read: nvidia-ml-py is not installed; GPU checks skipped",
                snap.nvml_error or "",
                "pip install 'gpuwise[ops]'",
            )
        return skipped(
            "driver",
            "No NVIDIA GPU or driver found on this host: GPU checks skipped",
            snap.nvml_error or "",
            "On a GPU host, install the NVIDIA driver (e.g. apt install nvidia-driver-550-server) and nvidia-ml-py",
        )
    count = len(snap.gpus)
    if count == 0:
        return [
            CheckResult(
                "driver",
                WARN,
                "The NVIDIA driver is loaded but reports no GPU",
                f"driver {snap.driver_version}; {snap.errors.get('gpu_count', 'nvmlDeviceGetCount returned 0')}",
                "Check `lspci | grep -i nvidia` and `dmesg | grep -i nvrm`; a GPU that fell off the bus needs a reboot",
            )
        ]
    cuda = f", CUDA {snap.cuda_driver_version} at most" if snap.cuda_driver_version else ""
    models = Counter(g.name or "unknown model" for g in snap.gpus)
    return passed(
        "driver",
        f"NVIDIA driver {snap.driver_version}{cuda}; {count} GPU(s)",
        "; ".join(f"{n} x {m}" for m, n in models.items()),
    )


def check_cuda_runtime(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if snap.cuda_runtime_version is None:
        why = (
            "PyTorch is not installed" if snap.torch_version is None else f"PyTorch {snap.torch_version} is a CPU build"
        )
        return skipped("cuda-runtime", f"No CUDA runtime to compare: {why}")
    if not snap.has_nvidia or snap.cuda_driver_version is None:
        return skipped(
            "cuda-runtime",
            "The driver's CUDA version is unknown",
            f"PyTorch built for CUDA {snap.cuda_runtime_version}",
        )
    runtime, driver = version_tuple(snap.cuda_runtime_version), version_tuple(snap.cuda_driver_version)
    evidence = f"PyTorch {snap.torch_version} built for CUDA {snap.cuda_runtime_version}; driver {snap.driver_version} supports CUDA {snap.cuda_driver_version}"
    if runtime and driver and runtime[:2] > driver[:2]:
        return [
            CheckResult(
                "cuda-runtime",
                FAIL,
                f"CUDA runtime {snap.cuda_runtime_version} is newer than the driver supports ({snap.cuda_driver_version})",
                evidence,
                f"Install a driver that supports CUDA {snap.cuda_runtime_version} (a newer driver branch), or a PyTorch "
                f"build for CUDA {snap.cuda_driver_version} or older (pip install torch --index-url "
                "https://download.pytorch.org/whl/cuXYZ)",
            )
        ]
    return passed("cuda-runtime", f"CUDA runtime {snap.cuda_runtime_version} runs on this driver", evidence)


def check_gpu_health(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out = []
    for g in snap.gpus:
        if g.lost:
            out.append(
                CheckResult(
                    "gpu-health",
                    FAIL,
                    f"GPU {g.index} stopped answering (lost)",
                    "; ".join(f"{k}: {v}" for k, v in g.errors.items()),
                    f"Look for XID 79 in `sudo dmesg | grep -i xid`; drain, then `sudo nvidia-smi -r -i {g.index}` or "
                    "reboot; reseat or RMA the card if it repeats",
                    g.index,
                )
            )
        elif g.errors:
            out.append(
                CheckResult(
                    "gpu-health",
                    WARN,
                    f"GPU {g.index}: {len(g.errors)} field(s) could not be read",
                    "; ".join(f"{k}: {v}" for k, v in sorted(g.errors.items())),
                    "Run as root if it says 'No permission'; otherwise check `nvidia-smi -q -i "
                    f"{g.index}` and the driver log",
                    g.index,
                )
            )
    return out or passed("gpu-health", f"All {len(snap.gpus)} GPU(s) answered every query")


def check_firmware(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out = []
    by_model: dict[str | None, list[GpuSnapshot]] = defaultdict(list)
    for g in live_gpus(snap):
        by_model[g.name].append(g)
    compared = 0
    for model, gpus in by_model.items():
        if len(gpus) < 2:
            continue
        for attr, label in (("vbios", "VBIOS"), ("inforom", "InfoROM")):
            versions = Counter(getattr(g, attr) for g in gpus if getattr(g, attr))
            if len(versions) < 2:
                compared += 1
                continue
            common = versions.most_common(1)[0][0]
            for g in gpus:
                mine = getattr(g, attr)
                if not mine or mine == common:
                    continue
                link_down = attr == "vbios" and any(not n.active for n in g.nvlinks or ()) and bool(g.active_nvlinks)
                status = FAIL if link_down else WARN
                why = "; it also has an NVLink link down to its peers" if link_down else ""
                out.append(
                    CheckResult(
                        "firmware",
                        status,
                        f"GPU {g.index}: {label} {mine} differs from its {versions[common]} peer(s) ({common}){why}",
                        f"{model}: " + ", ".join(f"{v} on {n}" for v, n in versions.items()),
                        f"Flash all {model} GPUs in this node to one {label} with the server vendor's firmware bundle "
                        "(HGX: NVIDIA's firmware update tool), then reset the GPUs",
                        g.index,
                    )
                )
    if not out:
        if compared == 0:
            return skipped("firmware", "Nothing to compare (one GPU per model, or versions unknown)")
        return passed("firmware", "VBIOS and InfoROM versions match across GPUs of the same model")
    return out


def check_persistence(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    gpus = [g for g in live_gpus(snap) if g.persistence_mode is not None]
    if not gpus:
        return skipped("persistence-mode", "Persistence mode unknown (not supported)")
    off = [g.index for g in gpus if not g.persistence_mode]
    if off:
        return [
            CheckResult(
                "persistence-mode",
                WARN,
                f"Persistence mode is off on GPU {', '.join(map(str, off))}",
                "without it the driver tears the GPU state down when the last client exits, so the next start is slower",
                "sudo systemctl enable --now nvidia-persistenced  (or: sudo nvidia-smi -pm 1)",
            )
        ]
    return passed("persistence-mode", f"Persistence mode on for all {len(gpus)} GPU(s)")
