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


def nvfp4_engines(catalog: Catalog) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The engines serving NVFP4 checkpoints on FP4 tensor cores, and those dequantizing them elsewhere with the
    architectures they do it on (engines.yaml nvfp4_on_fp4, nvfp4_weight_only)."""
    on_fp4 = tuple(k for k, p in catalog.engines.items() if p.nvfp4_on_fp4)
    weight_only = {k: p.nvfp4_weight_only for k, p in catalog.engines.items() if p.nvfp4_weight_only}
    return on_fp4, weight_only


def nvfp4_servers(catalog: Catalog) -> dict[str, str]:
    """Who serves NVFP4 where, as a refusal's parameters: `fp4`, the engines on FP4 tensor cores ('a|b|c');
    `weight_only`, those dequantizing it elsewhere with their architectures ('a (x, y), b (x)')."""
    on_fp4, weight_only = nvfp4_engines(catalog)
    later = ", ".join(f"{e} ({', '.join(a)})" for e, a in weight_only.items())
    return {"fp4": "|".join(on_fp4), "weight_only": later}


def nvfp4_refusal(work: Workload, gpu: GPU, catalog: Catalog) -> str | None:
    """Why `work`'s NVFP4 weights cannot be served on `gpu` by its engine, or None (not NVFP4, or it can)."""
    if not isinstance(work, InferenceJob) or work.weights_dtype != "nvfp4":
        return None
    if gpu.vendor != "nvidia":
        return f"NVFP4 kernels are NVIDIA's (CUDA): {gpu.name} cannot serve --weights-dtype nvfp4"
    on_fp4, weight_only = nvfp4_engines(catalog)
    if "fp4" in gpu.peak_flops:
        if work.engine in on_fp4:
            return None
        return f"--engine {work.engine} has no NVFP4 kernels: choose --engine {'|'.join(on_fp4)} for nvfp4"
    here = [e for e, arches in weight_only.items() if gpu.architecture in arches]
    if work.engine in here:
        return None
    servers = nvfp4_servers(catalog)
    instead = "int4 or fp8 weights" if "fp8" in gpu.peak_flops else "int4 weights"
    return (
        f"{gpu.name} has no FP4 tensor cores"
        + (f"; only --engine {'|'.join(here)} dequantizes NVFP4 there (FP4 Marlin)" if here else "")
        + f". NVFP4 is served on FP4 tensor cores by --engine {servers['fp4']}, dequantized for 16-bit GEMMs by "
        f"{servers['weight_only']}; or use {instead}"
    )


def check_platform(work: Workload, gpu: GPU, catalog: Catalog) -> None:
    """Raise PlatformError when the serving engine or runtime of `work` does not run on `gpu`'s vendor,
    and a UsageError when its NVFP4 weights cannot be served there."""
    refusal = platform_refusal(work, gpu, catalog)
    if refusal is not None:
        raise PlatformError(refusal)
    if (why := nvfp4_refusal(work, gpu, catalog)) is not None:
        raise UsageError(why)


__all__ = [
    "PlatformError",
    "Refusal",
    "check_platform",
    "nvfp4_engines",
    "nvfp4_refusal",
    "nvfp4_servers",
    "platform_refusal",
]
