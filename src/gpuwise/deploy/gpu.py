"""What Kubernetes sees of a GPU: device-plugin resource names, node labels, MIG profiles.

Facts here are about the cluster software (NVIDIA GPU operator, AMD device plugin), not about
the hardware, so they live beside the manifests rather than in the catalog. Each table says
where it comes from.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gpuwise.catalog import GPU
from gpuwise.errors import UsageError
from gpuwise.units import fmt_gib

# --- node labels ---------------------------------------------------------------------------
# NVIDIA GPU feature discovery (GFD, part of the GPU operator) sets `nvidia.com/gpu.product` to
# the NVML device name with runs of spaces replaced by '-' and characters outside [A-Za-z0-9-_.]
# dropped (NVIDIA/k8s-device-plugin v0.20.0, internal/lm/resource.go `sanitise`). The NVML names
# are the catalog's (`identity.nvml`, first entry: what current drivers print, with sources); a
# few older parts change name with the driver, so a cluster's real value wins:
# `kubectl get nodes -L nvidia.com/gpu.product`, then `--gpu-product`.
NVIDIA_PRODUCT_LABEL = "nvidia.com/gpu.product"
# AMD's node labeller (ROCm/k8s-device-plugin, also run by the AMD GPU operator) labels
# `amd.com/gpu.product-name` with the product name (catalog `identity.rocm`, first entry),
# underscores for spaces.
AMD_PRODUCT_LABEL = "amd.com/gpu.product-name"

# --- MIG -----------------------------------------------------------------------------------
# Uniform MIG layouts (profile -> instances per GPU) per catalog GPU, from the NVIDIA GPU
# operator's default mig-parted configuration (NVIDIA/gpu-operator
# assets/state-mig-manager/0400_configmap.yaml at a22dbf671f2e, 2026-08-21), where each is a
# config named `all-<profile>`.
_MIG_A100_40 = (("1g.5gb", 7), ("2g.10gb", 3), ("3g.20gb", 2), ("4g.20gb", 1), ("7g.40gb", 1))
_MIG_80 = (("1g.10gb", 7), ("1g.20gb", 4), ("2g.20gb", 3), ("3g.40gb", 2), ("4g.40gb", 1), ("7g.80gb", 1))
_MIG_94 = (("1g.12gb", 7), ("1g.24gb", 4), ("2g.24gb", 3), ("3g.47gb", 2), ("4g.47gb", 1), ("7g.94gb", 1))
_MIG_96 = (("1g.12gb", 7), ("1g.24gb", 4), ("2g.24gb", 3), ("3g.48gb", 2), ("4g.48gb", 1), ("7g.96gb", 1))
_MIG_141 = (("1g.18gb", 7), ("1g.35gb", 4), ("2g.35gb", 3), ("3g.71gb", 2), ("4g.71gb", 1), ("7g.141gb", 1))
_MIG_180 = (("1g.23gb", 7), ("1g.45gb", 4), ("2g.45gb", 3), ("3g.90gb", 2), ("4g.90gb", 1), ("7g.180gb", 1))
MIG_LAYOUTS: dict[str, tuple[tuple[str, int], ...]] = {
    "a100-40gb-pcie": _MIG_A100_40,
    "a100-40gb-sxm": _MIG_A100_40,
    "a100-80gb-pcie": _MIG_80,
    "a100-80gb-sxm": _MIG_80,
    "a800-80gb-sxm": _MIG_80,
    "h100-pcie": _MIG_80,
    "h100-sxm": _MIG_80,
    "h800-sxm": _MIG_80,
    "h100-nvl": _MIG_94,
    "h20": _MIG_96,
    "h200": _MIG_141,
    "b200": _MIG_180,
}
MIG_COMPUTE_SLICES = 7  # every MIG-capable part in the table divides its SMs into 7 slices
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
GPU_OPERATOR_NAMESPACE = "gpu-operator"


@dataclass(frozen=True, slots=True)
class MigProfile:
    name: str  # e.g. "2g.20gb"
    per_gpu: int  # instances of it in the uniform layout

    @property
    def compute_slices(self) -> int:
        return int(self.name.split("g.", 1)[0])

    @property
    def memory_bytes(self) -> float:
        """The profile's nominal memory, read as decimal GB (a little under what it has)."""
        return float(re.findall(r"\.(\d+)gb", self.name)[0]) * 1e9

    @property
    def config_name(self) -> str:
        return f"all-{self.name}"


def vendor(gpu: GPU) -> str:
    return "amd" if gpu.vendor.lower() == "amd" else "nvidia"


def resource_name(gpu: GPU) -> str:
    """The extended resource its device plugin advertises (whole GPUs, or slices when shared)."""
    return "amd.com/gpu" if vendor(gpu) == "amd" else "nvidia.com/gpu"


def gfd_product(nvml_name: str) -> str:
    """The `nvidia.com/gpu.product` value GFD derives from an NVML name ('NVIDIA H100 80GB HBM3'
    -> 'NVIDIA-H100-80GB-HBM3')."""
    return re.sub(r"[^A-Za-z0-9\-_.]", "", re.sub(r"\s+", "-", nvml_name.strip()))


def _catalog_product(gpu: GPU) -> str | None:
    ident = gpu.identity
    if ident is None:
        return None
    if vendor(gpu) == "amd":
        return ident.rocm[0].replace(" ", "_") if ident.rocm else None
    return gfd_product(ident.nvml[0]) if ident.nvml else None


def product_label(gpu: GPU, override: str | None = None) -> tuple[str, str] | None:
    """(label key, value) that selects nodes with this GPU, or None when none is known. An
    override that names another catalog GPU (by the one identity lookup) is a usage error."""
    key = AMD_PRODUCT_LABEL if vendor(gpu) == "amd" else NVIDIA_PRODUCT_LABEL
    if override:
        from gpuwise.catalog.identity import identify

        other = identify(override)
        if other is not None and other != gpu.id:
            raise UsageError(
                f"--gpu-product {override!r} is the node label of {other}, but the plan's GPU is {gpu.id}: "
                "give the label your nodes with this GPU carry (kubectl get nodes -L nvidia.com/gpu.product)"
            )
        return key, override
    value = _catalog_product(gpu)
    return (key, value) if value else None


def mig_capable(gpu: GPU) -> bool:
    """The catalog decides: a GPU with `mig_max_instances` 0 never gets a MIG layout."""
    return gpu.mig_max_instances > 0 and vendor(gpu) == "nvidia" and gpu.id in MIG_LAYOUTS


def mig_profiles(gpu: GPU) -> list[MigProfile]:
    if not mig_capable(gpu):
        raise UsageError(
            f"{gpu.id} has no MIG (catalog mig_max_instances {gpu.mig_max_instances}): "
            "share it with time-slicing instead (--sharing time-slicing)"
        )
    return [MigProfile(name, n) for name, n in MIG_LAYOUTS[gpu.id]]


def smallest_mig_profile(gpu: GPU, need_bytes: float) -> MigProfile | None:
    """The smallest uniform profile whose memory holds `need_bytes`, or None if only a whole GPU does."""
    fitting = [p for p in mig_profiles(gpu) if p.memory_bytes >= need_bytes and p.per_gpu > 1]
    return min(fitting, key=lambda p: (p.compute_slices, p.memory_bytes)) if fitting else None


def mig_profile_for_users(gpu: GPU, gpus: int, users: int, need_bytes: float = 0.0) -> tuple[MigProfile, int]:
    """The largest uniform profile that gives every user a slice on `gpus` GPUs and holds
    `need_bytes`; when none does, the smallest fitting profile and the GPUs it takes."""
    fitting = [p for p in mig_profiles(gpu) if p.memory_bytes >= need_bytes]
    if not fitting:
        raise UsageError(f"no MIG slice of {gpu.id} holds {fmt_gib(need_bytes)}; the dev pool needs whole GPUs")
    enough = [p for p in fitting if p.per_gpu * gpus >= users]
    if enough:
        return max(enough, key=lambda p: (p.memory_bytes, -p.per_gpu)), gpus
    best = max(fitting, key=lambda p: p.per_gpu)
    return best, max(gpus, math.ceil(users / best.per_gpu))


def mig_parted_config(profiles: list[MigProfile]) -> dict:
    """A mig-parted config (version v1) with `all-disabled` plus one uniform layout per profile."""
    configs: dict[str, list[dict]] = {"all-disabled": [{"devices": "all", "mig-enabled": False}]}
    for p in profiles:
        configs[p.config_name] = [{"devices": "all", "mig-enabled": True, "mig-devices": {p.name: p.per_gpu}}]
    return {"version": "v1", "mig-configs": configs}


def time_slicing_config(gpu: GPU, replicas: int) -> dict:
    """The device plugin's `sharing.timeSlicing` config: each GPU advertised `replicas` times."""
    return {
        "version": "v1",
        "sharing": {
            "timeSlicing": {
                "renameByDefault": False,
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": resource_name(gpu), "replicas": replicas}],
            }
        },
    }


def shared_product(value: str, mig: MigProfile | None = None, time_sliced: bool = False) -> str:
    """The product label GFD writes once the GPU is shared: MIG 'single' strategy appends
    -MIG-<profile>, time-slicing with renameByDefault=false appends -SHARED
    (NVIDIA/k8s-device-plugin README, 'Shared Access to GPUs')."""
    if mig is not None:
        value += f"-MIG-{mig.name}"
    if time_sliced:
        value += "-SHARED"
    return value
