"""Per-GPU memory: weights, gradients, optimizer states, activations, KV cache, overheads.

Pure functions over specs, one module per part: `breakdown` (the result and its notes), `states`
(parameters, gradients and optimizer states after Rajbhandari et al., ZeRO), `activations` (after
Korthikanti et al. 2022, generalized to GQA, gated FFNs, MoE, FlashAttention and dropout-free
training), `training` and `inference` (KV cache, serving workspace) assemble them. Conventions
(bytes per state, overheads) come from the catalog's `conventions.yaml`, each with its source;
every one used is named in `assumptions`.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.memory.breakdown import MemoryEstimate
from gpuwise.estimate.memory.inference import inference_memory
from gpuwise.estimate.memory.training import training_memory
from gpuwise.workload.specs import Hardware, TrainingJob, Workload


def memory(work: Workload, hw: Hardware, catalog: Catalog) -> MemoryEstimate:
    if isinstance(work, TrainingJob):
        return training_memory(work, hw, catalog)
    return inference_memory(work, hw, catalog)


SEARCH_LIMIT = 1 << 24  # the largest value `largest_fitting` tries unless told: a search bound, not a model constant


def largest_fitting(work: Workload, hw: Hardware, catalog: Catalog, field_name: str, limit: int = SEARCH_LIMIT) -> int:
    """Largest value of `field_name` (micro_batch, seq, concurrency, input_tokens) that fits; 0 if none."""

    if field_name not in {f.name for f in fields(work)}:
        raise UsageError(f"{type(work).__name__} has no field {field_name!r} to size")

    def fits(v: int) -> bool:
        changes: dict[str, Any] = {field_name: v}
        if field_name == "micro_batch" and isinstance(work, TrainingJob) and work.optimizer_in_backward:
            # a step in backward takes one micro-batch a step: the global batch follows the micro-batch
            changes["global_batch"] = None if work.global_batch is None else v * work.parallel.dp(hw.count)
        return memory(replace(work, **changes), hw, catalog).fits

    if not fits(1):
        return 0
    lo, hi = 1, 2
    while hi <= limit and fits(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, limit + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo
