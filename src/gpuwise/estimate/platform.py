"""Which GPUs an engine or runtime runs on: TensorRT, TensorRT-LLM, ONNX Runtime's CUDA provider
and LMDeploy's TurboMind are NVIDIA-only (catalog engines.yaml `vendors`, sourced), so an estimate
or a plan never times them on an AMD GPU. The refusal is data (`Refusal`: the runtime, the vendors
it runs on, the GPU, what runs there); an estimate raises it as a PlatformError, a plan gives it as
a reason code that the edges word."""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog import GPU, Catalog
from gpuwise.errors import UsageError
from gpuwise.workload.specs import InferenceJob, Workload

VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD"}


@dataclass(frozen=True, slots=True)
class Refusal:
    """`engine` (a catalog key) runs on `vendors` only, not on `gpu` (an id); `runs`: the keys of the
    engines (or runtimes) of the same family that do run on it."""

    engine: str
    name: str
    vendors: tuple[str, ...]
    gpu: str
    gpu_name: str
    runs: tuple[str, ...]

    @property
    def vendor_names(self) -> str:
        return " and ".join(VENDOR_NAMES.get(v, v) for v in self.vendors)


class PlatformError(UsageError):
    """An engine or runtime named (or defaulted) for a GPU vendor it does not run on."""

    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal
        r = refusal
        super().__init__(
            f"{r.name} runs on {r.vendor_names} GPUs only, not on {r.gpu_name}: "
            f"choose --engine {'|'.join(r.runs)} for {r.gpu}"
        )


def platform_refusal(work: Workload, gpu: GPU, catalog: Catalog) -> Refusal | None:
    """Why the serving engine or runtime of `work` cannot run on `gpu`'s vendor, or None when it can
    (training, and every engine that runs there)."""
    if not isinstance(work, InferenceJob):
        return None
    family = catalog.engines if work.engine in catalog.engines else catalog.runtimes
    profile = family.get(work.engine)
    if profile is None or gpu.vendor in profile.vendors:
        return None
    runs = tuple(sorted(k for k, p in family.items() if gpu.vendor in p.vendors))
    return Refusal(work.engine, profile.name, profile.vendors, gpu.id, gpu.name, runs)


def check_platform(work: Workload, gpu: GPU, catalog: Catalog) -> None:
    """Raise PlatformError when the serving engine or runtime of `work` does not run on `gpu`'s vendor."""
    refusal = platform_refusal(work, gpu, catalog)
    if refusal is not None:
        raise PlatformError(refusal)


__all__ = ["PlatformError", "Refusal", "check_platform", "platform_refusal"]
