"""Which GPUs an engine or runtime runs on: TensorRT, TensorRT-LLM, ONNX Runtime's CUDA provider
and LMDeploy's TurboMind are NVIDIA-only (catalog engines.yaml `vendors`, sourced), so an estimate
or a plan never times them on an AMD GPU; the refusal names what does run there."""

from __future__ import annotations

from gpuwise.catalog import GPU, Catalog
from gpuwise.errors import UsageError
from gpuwise.workload.specs import InferenceJob, Workload

VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD"}


class PlatformError(UsageError):
    """An engine or runtime named (or defaulted) for a GPU vendor it does not run on."""


def check_platform(work: Workload, gpu: GPU, catalog: Catalog) -> None:
    """Raise PlatformError when the serving engine or runtime of `work` does not run on `gpu`'s vendor."""
    if not isinstance(work, InferenceJob):
        return
    family = catalog.engines if work.engine in catalog.engines else catalog.runtimes
    profile = family.get(work.engine)
    if profile is None or gpu.vendor in profile.vendors:
        return
    runs = sorted(k for k, p in family.items() if gpu.vendor in p.vendors)
    vendors = " and ".join(VENDOR_NAMES.get(v, v) for v in profile.vendors)
    raise PlatformError(
        f"{profile.name} runs on {vendors} GPUs only, not on {gpu.name}: choose --engine {'|'.join(runs)} for {gpu.id}"
    )


__all__ = ["PlatformError", "check_platform"]
