"""GPU sharing: how serving replicas (or a dev pool) share GPUs, and the GPU operator config
that makes it real: a mig-parted ConfigMap and the `nvidia.com/mig.config` node label (MIG, only
on GPUs the catalog says have it), or a device-plugin time-slicing ConfigMap and the
`nvidia.com/device-plugin.config` node label.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog import GPU
from gpuwise.deploy import gpu as gpuinfo
from gpuwise.deploy.common import (
    Bundle,
    DeployConventions,
    DeployOptions,
    NodeLabel,
    file_path,
    make,
    meta,
    why,
    yaml_text,
)
from gpuwise.errors import UsageError
from gpuwise.plan.results import Candidate
from gpuwise.units import fmt_gib


@dataclass(frozen=True, slots=True)
class Sharing:
    mode: str  # none | mig | time-slicing
    mig: gpuinfo.MigProfile | None = None
    per_gpu: int = 1  # replicas (slices) per physical GPU
    fraction: float = 1.0  # share of one GPU's throughput each replica gets
    reason: str = ""


def serving_sharing(c: Candidate, options: DeployOptions, conv: DeployConventions) -> Sharing:
    """How the replicas of a one-GPU serving plan share GPUs, as `--sharing` asks."""
    mode = options.sharing
    if mode == "none":
        return Sharing("none")
    hw = c.est.hardware
    gpu = hw.gpu
    need = c.est.memory.per_gpu.total
    if hw.count > 1:
        raise UsageError(f"a replica spans {hw.count} GPUs (tensor parallel): it needs whole GPUs; drop --sharing")
    if gpuinfo.vendor(gpu) == "amd":
        raise UsageError(f"{gpu.id}: the AMD device plugin offers neither MIG nor time-slicing; drop --sharing")
    if mode == "auto":
        mode = "mig" if gpuinfo.mig_capable(gpu) else "time-slicing"
    if mode == "mig":
        return _mig_sharing(gpu, need)
    per = min(conv.time_slices_max, int(gpu.capacity_bytes // max(need, 1)))
    if per < 2:
        raise UsageError(
            f"one replica needs {fmt_gib(need)} of {gpu.id}'s {fmt_gib(gpu.capacity_bytes)}: two do not fit "
            "on one GPU, so time-slicing gains nothing; deploy without --sharing"
        )
    return Sharing(
        "time-slicing",
        None,
        per,
        1.0 / per,
        f"time-slicing: {per} replicas of {fmt_gib(need)} fit in {fmt_gib(gpu.capacity_bytes)}; they take turns "
        "on the GPU (no memory or fault isolation)",
    )


def _mig_sharing(gpu: GPU, need: float) -> Sharing:
    """The smallest MIG slice that holds one replica (`UsageError` on GPUs without MIG)."""
    profile = gpuinfo.smallest_mig_profile(gpu, need)
    if profile is None:
        raise UsageError(
            f"one replica needs {fmt_gib(need)}: no MIG slice of {gpu.id} smaller than the whole GPU holds it; "
            "deploy without --sharing"
        )
    frac = profile.compute_slices / gpuinfo.MIG_COMPUTE_SLICES
    return Sharing(
        "mig",
        profile,
        profile.per_gpu,
        frac,
        f"MIG {profile.name}: one replica needs {fmt_gib(need)}; {profile.per_gpu} such slices per {gpu.id}, "
        f"each with {profile.compute_slices}/{gpuinfo.MIG_COMPUTE_SLICES} of the GPU's compute",
    )


# ------------------------------------------------------------------------------------------
def sharing_layout(gpu: GPU, share: Sharing, options: DeployOptions, nodes: str, purpose: str) -> Bundle:
    """The GPU operator config for `share` (an empty bundle when nothing is shared)."""
    if share.mode == "mig":
        return _mig_layout(gpu, share, options, nodes, purpose)
    if share.mode == "time-slicing":
        return _time_slicing_layout(gpu, share, options, nodes, purpose)
    return Bundle()


def _mig_layout(gpu: GPU, share: Sharing, options: DeployOptions, nodes: str, purpose: str) -> Bundle:
    """A mig-parted ConfigMap with one layout, and the node label that selects it."""
    assert share.mig is not None
    profiles = gpuinfo.mig_profiles(gpu)  # refuses GPUs without MIG
    config = gpuinfo.mig_parted_config([p for p in profiles if p.name == share.mig.name])
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(
            "gpuwise-mig-parted-config",
            gpuinfo.GPU_OPERATOR_NAMESPACE,
            {"app.kubernetes.io/name": "gpuwise-mig-layout"},
        ),
        "data": {
            "config.yaml": why(
                yaml_text(config), f"{share.reason}; layout name as in the GPU operator's default config"
            )
        },
    }
    header = [
        f"MIG layout for {purpose} on {gpu.id}: point the GPU operator at this config, MIG strategy 'single':",
        "  kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge -p "
        '\'{"spec":{"mig":{"strategy":"single"},"migManager":{"config":{"name":"gpuwise-mig-parted-config"}}}}\'',
        f"then label the nodes: kubectl label nodes <node> {gpuinfo.MIG_CONFIG_LABEL}={share.mig.config_name} --overwrite",
    ]
    out = Bundle()
    out.manifests.append(
        make(
            cm, file_path(options, "05-mig-layout.yaml"), f"MIG {share.mig.name} x{share.per_gpu} per {gpu.id}", header
        )
    )
    out.node_labels.append(
        NodeLabel(
            gpuinfo.MIG_CONFIG_LABEL,
            share.mig.config_name,
            f"{gpu.id} {nodes}",
            f"mig-manager repartitions each GPU into {share.per_gpu}x {share.mig.name}",
        )
    )
    return out


def _time_slicing_layout(gpu: GPU, share: Sharing, options: DeployOptions, nodes: str, purpose: str) -> Bundle:
    """A device-plugin time-slicing ConfigMap, and the node label that selects it."""
    key = f"{gpu.id}-x{share.per_gpu}"
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(
            "gpuwise-time-slicing", gpuinfo.GPU_OPERATOR_NAMESPACE, {"app.kubernetes.io/name": "gpuwise-time-slicing"}
        ),
        "data": {
            key: why(
                yaml_text(gpuinfo.time_slicing_config(gpu, share.per_gpu)),
                f"{share.reason}; {gpu.id} has no MIG (catalog mig_max_instances {gpu.mig_max_instances})",
            )
        },
    }
    header = [
        f"Time-slicing for {purpose} on {gpu.id}: point the device plugin at this config:",
        "  kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge -p "
        '\'{"spec":{"devicePlugin":{"config":{"name":"gpuwise-time-slicing"}}}}\'',
        f"then label the nodes: kubectl label nodes <node> {gpuinfo.DEVICE_PLUGIN_CONFIG_LABEL}={key} --overwrite",
    ]
    out = Bundle()
    out.manifests.append(
        make(cm, file_path(options, "05-time-slicing.yaml"), f"{gpu.id} advertised {share.per_gpu}x per GPU", header)
    )
    out.node_labels.append(
        NodeLabel(
            gpuinfo.DEVICE_PLUGIN_CONFIG_LABEL,
            key,
            f"{gpu.id} {nodes}",
            f"the device plugin advertises each GPU {share.per_gpu} times",
        )
    )
    return out
