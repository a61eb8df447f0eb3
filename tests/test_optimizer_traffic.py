"""The optimizer step's time and autocast's weight casts, hand-computed from the conventions and the stacks'
sources: a memory-bound pass over the trainable parameters' states, what PyTorch's foreach AdamW adds over a fused
kernel (its separate _foreach_* kernels, counted from torch/optim/adam.py), the passes a stack makes over the
gradients beside the update (clipping at its default norm, fp16's loss-scale unscaling: frameworks.yaml
step_gradient_passes), and the weight casts of AMP over fp32 parameters each micro-batch."""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate
from gpuwise.estimate.memory.states import framework_of
from gpuwise.estimate.optimizer_step import step_bytes_per_param
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.training import _weight_cast_seconds
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
# a 3.8B full fine-tune on one A100 at one 512-token sequence a step: the update is a large share of it
BASE = {
    "model": "phi-3-mini-4k-instruct",
    "task": "finetune",
    "method": "full",
    "micro_batch": 1,
    "seq": 512,
    "recompute": "none",
    "attention": "flash",
}


def _job(**over):
    return build_workload({**BASE, **over}, CAT)


def _bytes(**over) -> float:
    job = _job(**over)
    return step_bytes_per_param(job, framework_of(job, CAT), CAT, [])


def _step_seconds(**over) -> float:
    w = _job(**over)
    est = estimate(w, build_hardware("a100-80gb-sxm:1", CAT), CAT, search_largest=False)
    assert est.training is not None
    return est.training.terms["optimizer_step"]


def test_a_fused_update_reads_every_state_and_writes_all_but_the_gradient():
    """AMP over fp32 parameters under the plain PyTorch stack (which clips nothing by default): a fused kernel reads
    the 4 B weight, 4 B gradient and 8 B of moments and writes the weight and the moments: 28 B, 7 passes of 4 B."""
    assert _bytes(framework="fsdp", precision="bf16", optimizer_impl="fused") == 4 + 4 + 8 + 4 + 8 == 7 * 4
    # pure bf16 (no master copy): 2 + 2 + 4 read, 2 + 4 written
    assert _bytes(framework="fsdp", precision="bf16", optimizer_impl="fused", master_weights=False) == 7 * 2


def test_foreach_adamw_adds_thirteen_passes_of_the_parameters_dtype():
    """torch.optim.AdamW's foreach step runs 20 whole-tensor passes where a fused kernel runs 7
    (conventions adamw_*_element_passes): 13 more of 4 B (fp32 moments) or 2 B (pure bf16)."""
    assert _bytes(framework="fsdp", precision="bf16", optimizer_impl="foreach") == 20 * 4
    pure = _bytes(framework="fsdp", precision="bf16", optimizer_impl="foreach", master_weights=False)
    assert pure == 20 * 2
    # bitsandbytes' paged optimizer runs its own in-place kernel: no foreach passes
    assert _bytes(framework="fsdp", precision="bf16", optimizer_impl="foreach", paged_optimizer=True) == 7 * 4


def test_each_stack_passes_over_its_gradients_as_its_source_says():
    """Clipping at the default max norm 1.0: torch's clip_grad_norm_ (the Trainer's, torchtitan's) reads the
    gradients for the norm and multiplies them by the clamped coefficient every step (3 passes); Megatron reads
    them for the norm and scales only past the limit (1); fp16 adds the unscale's read and write (2)."""
    fused = {"precision": "bf16", "optimizer_impl": "fused"}
    assert _bytes(framework="hf-trainer", **fused) == 28 + 3 * 4
    assert _bytes(framework="hf-trainer", precision="fp16", optimizer_impl="fused") == 28 + 5 * 4
    assert _bytes(framework="fsdp", precision="fp16", optimizer_impl="fused") == 28 + 2 * 4
    assert _bytes(framework="torchtune", **fused) == 7 * 2  # its recipes train in pure bf16, unclipped
    # Megatron: 2 B weight, 4 B fp32 gradient buffer, 4 B master, 8 B moments read, all but the gradient written;
    # the norm reads the gradient once
    assert _bytes(framework="megatron", precision="bf16") == (2 + 4 + 4 + 8) + (2 + 4 + 8) + 1 * 4


def test_deepspeed_clips_for_the_trainer_and_a_step_in_the_backward_clips_nothing():
    """The Trainer's ZeRO stages run in DeepSpeed's engine, which takes the norm and multiplies every partition by
    its combined scale whatever the precision (3 passes: fp16's unscale is that multiply); a step per parameter
    inside the backward has no norm of all the gradients to clip to."""
    fp16 = _bytes(framework="hf-trainer", precision="fp16", zero=2)
    assert fp16 == _bytes(framework="hf-trainer", precision="bf16", zero=2)  # 3 passes at both
    notes: list[str] = []
    job = _job(framework="hf-trainer", precision="fp16", zero=2)
    step_bytes_per_param(job, framework_of(job, CAT), CAT, notes)
    assert "3 passes" in notes[0] and "DeepSpeed" in notes[0]
    assert _bytes(framework="fsdp", precision="fp16", optimizer_impl="fused", optimizer_in_backward=True) == 7 * 4


def test_the_term_is_the_bytes_at_the_memory_rate():
    """The step term is the traffic of every trainable parameter at the GPU's memory rate, the same rate a
    fused step took before the foreach and gradient passes were counted."""
    job = _job(framework="hf-trainer", precision="bf16")
    rates = compute_rates(CAT.gpu("a100-80gb-sxm"), "bf16", CAT)
    seconds = _step_seconds(framework="hf-trainer", precision="bf16")
    assert seconds == pytest.approx(rates.time(0.0, 40 * job.model.params, "memory"), rel=1e-9)


def test_foreach_against_fused_as_published():
    """deepmd-kit PR 4463 (2024-12, https://github.com/deepmodeling/deepmd-kit/pull/4463): fused=True took the
    fp32 Adam update from 22 ms to 8 ms, 2.75x. The model's foreach step over its fused one, fp32 everything:
    20 / 7 = 2.86x (Adam without weight decay runs two passes fewer: 2.57x); within 15 %."""
    foreach = _step_seconds(framework="fsdp", precision="fp32", optimizer_impl="foreach")
    fused = _step_seconds(framework="fsdp", precision="fp32", optimizer_impl="fused")
    assert foreach / fused == pytest.approx(20 / 7, rel=1e-9)
    assert foreach / fused == pytest.approx(22 / 8, rel=0.15)


def test_the_assumptions_name_the_passes():
    est = estimate(
        _job(framework="fsdp", precision="bf16"), build_hardware("a100-80gb-sxm:1", CAT), CAT, search_largest=False
    )
    note = next(a for a in est.notes if a.startswith("optimizer step, memory-bound"))
    assert "foreach AdamW 52 B more" in note and "step_gradient_passes" in note


def _cast_seconds(hardware: str = "a100-80gb-sxm:1", **over) -> tuple[float, list[str]]:
    job = _job(**over)
    hw = build_hardware(hardware, CAT)
    notes: list[str] = []
    rates = compute_rates(CAT.gpu(hw.gpu.id), job.precision, CAT)
    return _weight_cast_seconds(job, hw, rates, CAT, notes), notes


def test_autocast_casts_every_matmul_weight_each_micro_batch_by_hand():
    """AMP over fp32 parameters on one GPU: each forward casts every block linear and the LM head to bf16 (4 B
    read, 2 B written) and the backward casts each weight's gradient back (2 + 4): 12 B a weight a micro-batch,
    18 B when a full recomputation casts them again. Phi-3-mini: 32 layers of 4 x 3072^2 attention and
    3 x 3072 x 8192 MLP weights, and a 32,064 x 3,072 head: 3,722,379,264 weights."""
    weights = 32 * (4 * 3072**2 + 3 * 3072 * 8192) + 32064 * 3072
    assert weights == 3_722_379_264
    rates = compute_rates(CAT.gpu("a100-80gb-sxm"), "bf16", CAT)
    plain, notes = _cast_seconds(framework="hf-trainer", precision="bf16")
    assert plain == pytest.approx(rates.time(0.0, 12 * weights, "memory"), rel=1e-9)
    assert "12 B a weight a micro-batch" in notes[0]
    again, _ = _cast_seconds(framework="hf-trainer", precision="bf16", recompute="full")
    assert again == pytest.approx(rates.time(0.0, 18 * weights, "memory"), rel=1e-9)


def test_no_cast_where_the_weights_are_16_bit_or_sharded():
    """Pure 16-bit weights (--no-master-weights), fp32 training, and FSDP's sharded ZeRO-3 (its all-gather hands
    the layers 16-bit copies) cast nothing per micro-batch; DeepSpeed's stages hold 16-bit parameters."""
    assert _cast_seconds(framework="hf-trainer", precision="bf16", master_weights=False)[0] == 0
    assert _cast_seconds(framework="hf-trainer", precision="fp32")[0] == 0
    assert _cast_seconds("a100-80gb-sxm:8", framework="fsdp", precision="bf16", zero=3)[0] == 0
    assert _cast_seconds("a100-80gb-sxm:8", framework="deepspeed", precision="bf16", zero=2)[0] == 0
    assert _cast_seconds("a100-80gb-sxm:8", framework="fsdp", precision="bf16", zero=0)[0] > 0  # DDP casts


def test_the_per_operator_model_casts_each_way_only_where_told():
    """A CNN's convolutions and GEMMs: autocast's forward cast and the weight gradient's cast back are the same
    bytes (6 a weight) in the same kind of kernel, so the backward gains what the forward does; without casts
    (16-bit weights, sharded FSDP, DeepSpeed: autocast_casts_weights) neither."""
    from gpuwise.estimate.operators import operator_seconds

    model = CAT.model("resnet-50")
    rates = compute_rates(CAT.gpu("a100-80gb-sxm"), "bf16", CAT)
    on = operator_seconds(model, 64, rates, CAT, training=True, autocast=True)
    off = operator_seconds(model, 64, rates, CAT, training=True, autocast=False)
    assert on.forward > off.forward
    assert on.backward - off.backward == pytest.approx(on.forward - off.forward, rel=1e-9)
