"""The optimizer step's memory traffic per trainable parameter: the update, what PyTorch's foreach AdamW adds
over a fused kernel, and the passes a step makes over the gradients beside the update (clipping them to the
stack's default norm, unscaling fp16's loss scale).

Each is a whole pass over tensors of every trainable parameter's size, memory-bound: a large share of the step
of a full fine-tune at a small batch, a few tenths of a percent of a large-batch pre-training step.
"""

from __future__ import annotations

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Framework
from gpuwise.estimate.memory.states import (
    optimizer_bytes_per_param,
    runs_foreach_adamw,
    state_bytes,
    training_element_bytes,
)
from gpuwise.workload import TrainingJob


def _foreach_extra(job: TrainingJob, prof: Framework, element: float, catalog: Catalog) -> float:
    """Bytes per parameter torch's foreach AdamW moves beyond a fused kernel's one pass: its separate _foreach_*
    kernels each read and write whole tensors of the parameters' dtype (`element` bytes)."""
    if not runs_foreach_adamw(job, prof):
        return 0.0
    passes = catalog.convention("adamw_foreach_element_passes") - catalog.convention("adamw_fused_element_passes")
    return passes * element


def _gradient_passes(job: TrainingJob, prof: Framework, catalog: Catalog) -> tuple[int, str]:
    """Passes over the gradients beside the update, and whose: the stack's at the job's precision; DeepSpeed's
    engine's where a Trainer stack runs its ZeRO stages through it (`zero_offload`); none for a step inside the
    backward (each parameter updated as its gradient arrives: no norm of them all to clip to)."""
    if job.optimizer_in_backward:
        return 0, prof.name
    if prof.zero_offload and job.parallel.zero >= 1:
        prof = catalog.framework("deepspeed")
    return prof.step_gradient_passes[job.precision], prof.name


def step_bytes_per_param(job: TrainingJob, prof: Framework, catalog: Catalog, notes: list[str]) -> float:
    """Bytes the optimizer step reads and writes per trainable parameter on one GPU (before any sharding): every
    model state read and every one but the gradient written (a fused update: 7 passes of 4 B under AMP), torch's
    foreach AdamW's further passes, and the stack's passes over the gradients it updates from
    (`step_gradient_passes` at the training precision)."""
    if job.method == "full":
        sb = state_bytes(job, prof, catalog.convention)
        gradient, element = sb.main_gradient or sb.gradient, sb.optimizer / 2
        update = 2 * sb.total - sb.gradient
    else:
        e = training_element_bytes(job)
        opt = optimizer_bytes_per_param(job, catalog.convention)
        gradient, element = e, e
        update = 2 * (e + e + opt) - e
    foreach = _foreach_extra(job, prof, element, catalog)
    passes, whose = _gradient_passes(job, prof, catalog)
    gradients = passes * gradient
    if foreach or gradients:
        bits = [f"the update {update:g} B a parameter"]
        cite = ["frameworks.yaml step_gradient_passes"]
        if foreach:
            bits.append(f"PyTorch's foreach AdamW {foreach:g} B more (its separate kernels over every tensor)")
            cite.insert(0, "conventions adamw_foreach_element_passes, adamw_fused_element_passes")
        if gradients:
            what = "its gradient clipping" + (" and fp16 unscaling" if job.precision == "fp16" else "")
            bits.append(f"{passes} passes over the {gradient:g}-byte gradients ({whose}: {what})")
        notes.append(f"optimizer step, memory-bound: {'; '.join(bits)} [{'; '.join(cite)}]")
    return update + foreach + gradients
