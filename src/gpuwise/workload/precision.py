"""One rule, for training and serving alike, for bf16 on a GPU without bf16 tensor cores (Turing:
T4; Volta: V100), so that no plan or estimate ever says "t4 bf16".

- bf16 that the user did not ask for (the default) runs as fp16: training as fp16 mixed precision
  with dynamic loss scaling, serving with the bf16 checkpoint cast to fp16. This is what the stacks
  do on these GPUs (vLLM's `--dtype auto` serves a bf16 model in fp16 there; torch.amp and DeepSpeed
  train fp16 with a loss scaler). The values stay 2 bytes, so memory is unchanged; the estimate
  says so in its assumptions.
- bf16 that the user named (`--precision bf16`, `--weights-dtype bf16`, `--kv-dtype bf16`) is
  refused with the reason, as vLLM (`--dtype bfloat16`) and the Hugging Face Trainer (`--bf16`)
  refuse it on these GPUs: a silent switch would answer another question than the one asked.

Which dtype fields hold the bf16 default is recorded when the workload is built
(`dtype_defaults`); a job made in Python without it counts every field as named.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from gpuwise.catalog import GPU
from gpuwise.errors import UsageError
from gpuwise.workload.specs import InferenceJob, TrainingJob, Workload

_W = TypeVar("_W", bound=TrainingJob | InferenceJob)

# The 16-bit dtype fields of each kind of job, with the flags that name each (a serving job's
# weights follow --precision when --weights-dtype is not given).
FLAGS = {
    "precision": "--precision",
    "weights_dtype": "--weights-dtype",
    "kv_dtype": "--kv-dtype",
    "autocast_dtype": "--precision",  # fp32 weights computed at 16 bits under torch.autocast
}
SERVING_FLAGS = {**FLAGS, "weights_dtype": "--precision/--weights-dtype"}
TRAINING_FIELDS = ("precision", "weights_dtype")
SERVING_FIELDS = ("weights_dtype", "kv_dtype", "autocast_dtype")


class NoBf16Error(UsageError):
    """bf16 named for a GPU without bf16 tensor cores."""

    def __init__(self, gpu: GPU, field: str, training: bool) -> None:
        self.gpu_id = gpu.id
        self.field = field
        instead = (
            "--precision fp16 (mixed precision with loss scaling)"
            if training
            else "fp16 (--weights-dtype fp16 --kv-dtype fp16; a model trained in bf16 may overflow in fp16)"
        )
        flag = (FLAGS if training else SERVING_FLAGS)[field]
        super().__init__(
            f"{gpu.name} has no bf16 tensor cores ({gpu.architecture}), so {flag} bf16 cannot run on it: "
            f"use {instead}, or a GPU with bf16 (Ampere or newer)"
        )


def lacks_bf16(gpu: GPU) -> bool:
    """A GPU with fp16 tensor cores but none for bf16 (a GPU without published figures is not judged)."""
    return "fp16" in gpu.peak_flops and "bf16" not in gpu.peak_flops


def _fields(work: Workload) -> tuple[str, ...]:
    return TRAINING_FIELDS if isinstance(work, TrainingJob) else SERVING_FIELDS


def on_gpu(work: _W, gpu: GPU) -> _W:
    """The workload as `gpu` runs it: the bf16 default as fp16 where the GPU has no bf16; a bf16
    the user named there is a NoBf16Error. Unchanged on every other GPU (and when applied twice)."""
    if not lacks_bf16(gpu):
        return work
    swaps: dict[str, Any] = {}
    for field in _fields(work):
        if getattr(work, field) != "bf16":
            continue
        if field not in work.dtype_defaults:
            raise NoBf16Error(gpu, field, isinstance(work, TrainingJob))
        swaps[field] = "fp16"
    return replace(work, **swaps) if swaps else work


def precision_notes(work: Workload, gpu: GPU) -> list[str]:
    """The assumption an estimate states where the bf16 default runs as fp16 on `gpu`."""
    if not lacks_bf16(gpu):
        return []
    swapped = [f for f in _fields(work) if f in work.dtype_defaults and getattr(work, f) == "fp16"]
    if not swapped:
        return []
    if isinstance(work, TrainingJob):
        how = (
            "fp16 mixed precision with dynamic loss scaling (torch.amp GradScaler, DeepSpeed fp16): gradients "
            "are scaled up before backward and unscaled before the step, and a step that overflows is skipped"
        )
    else:
        how = (
            "the bf16 checkpoint cast to fp16 (as vLLM's --dtype auto does here); a model trained in bf16 may overflow"
        )
    ask = "--precision fp16" if isinstance(work, TrainingJob) else "--weights-dtype fp16"
    return [
        f"{gpu.id} has no bf16 tensor cores: the bf16 default ({', '.join(FLAGS[f] for f in swapped)}) runs as {how}; "
        f"values stay 2 bytes, so memory is unchanged (name {ask} to ask for this; bf16 named is refused here)"
    ]


__all__ = ["NoBf16Error", "lacks_bf16", "on_gpu", "precision_notes"]
