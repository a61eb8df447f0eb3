"""Training as the stacks implement it: reentrant and non-reentrant activation checkpointing with
bitsandbytes' 4-bit linears (what each keeps alive), LAMB and Lion optimizer states, none at all (a
forward-and-backward benchmark), GPTQ/AWQ int4
bases under QLoRA-style adapters, and a GPU power cap; each hand-computed from its source."""

from __future__ import annotations

import pytest

from gpuwise.catalog import TransformerArch, load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate import estimate, memory
from gpuwise.estimate.rates import compute_rates, power_capped
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()
LLAMA = CAT.model("llama-2-7b")
assert isinstance(LLAMA, TransformerArch)


def _job(**opts: object) -> TrainingJob:
    job = build_workload({"model": "llama-2-7b", "task": "finetune", **opts}, CAT)
    assert isinstance(job, TrainingJob)
    return job


def _held(job: TrainingJob, gpu: str = "rtx-4090:2") -> float:
    return memory(job, build_hardware(gpu, CAT), CAT).per_gpu.detail.get("bnb_inputs_held", 0.0)


# one micro-batch of 4-bit linear inputs, llama-2-7b, micro-batch 2 x 1024 tokens, bf16: per token and
# layer the q/k/v input and the gate/up input (h each), o_proj's (q_dim) and down_proj's (ffn):
# (2 x 4096 + 4096 + 11008) x 32 layers x 2048 tokens x 2 B = 3,053,453,312 B
ONE_MICRO_BATCH = (2 * 4096 + 4096 + 11008) * 32 * 2048 * 2
QLORA = {
    "method": "qlora",
    "recompute": "full",
    "micro_batch": 2,
    "seq": 1024,
    "zero": 3,
    "quantized_linear": "bitsandbytes-legacy",
}


def test_reentrant_checkpointing_keeps_no_4bit_inputs():
    """Reentrant: the checkpointed forward runs under no_grad, MatMul4Bit stores (None, None)."""
    assert ONE_MICRO_BATCH == 3_053_453_312
    assert _held(_job(framework="fsdp", checkpoint_impl="reentrant", **QLORA)) == 0.0
    assert _held(_job(framework="hf-trainer", **{**QLORA, "zero": 0}), "rtx-4090") == 0.0  # HF's default


def test_non_reentrant_checkpointing_keeps_every_layers_4bit_inputs():
    """Non-reentrant: the graph is built, ctx.tensors = (A, B) lives until the layer's backward; FSDP's
    loop keeps the previous micro-batch's `loss` (and graph) bound too: two micro-batches."""
    assert _held(_job(framework="fsdp", **QLORA)) == ONE_MICRO_BATCH * 2  # checkpoint_wrapper's default
    one = _job(framework="hf-trainer", checkpoint_impl="non-reentrant", **{**QLORA, "zero": 0})
    assert _held(one, "rtx-4090") == ONE_MICRO_BATCH  # HF keeps no loss between steps


def test_bitsandbytes_from_0_43_2_keeps_no_4bit_inputs():
    """bitsandbytes 0.43.2 (commit 9e75374) stores `ctx.tensors = (None, B)`: under either checkpointing and
    with the loop's loss held, no 4-bit input outlives its forward, and a linear keeps its input only
    for its LoRA adapter: QLoRA on q_proj,v_proj keeps what LoRA on them keeps (the default)."""
    current = {**QLORA, "quantized_linear": None}
    for impl in ("reentrant", "non-reentrant"):
        assert _held(_job(framework="fsdp", checkpoint_impl=impl, **current)) == 0.0
    hw = build_hardware("rtx-4090", CAT)
    no_recompute = {**current, "recompute": "none", "zero": 0}
    q = memory(_job(framework="hf-trainer", **no_recompute), hw, CAT).per_gpu.detail
    lora = memory(_job(framework="hf-trainer", **{**no_recompute, "method": "lora"}), hw, CAT).per_gpu.detail
    assert q["layer_activations"] == lora["layer_activations"]
    legacy = memory(_job(framework="hf-trainer", **{**QLORA, "recompute": "none", "zero": 0}), hw, CAT).per_gpu.detail
    # the legacy 4-bit layers keep the MLP's inputs too: per token and layer the gate/up input (h) and
    # down_proj's (ffn), 2 B each; k_proj shares q_proj's input and o_proj's is the attention output,
    # which the attention's backward keeps anyway
    extra = (4096 + 11008) * 32 * 2048 * 2
    assert legacy["layer_activations"] - q["layer_activations"] == pytest.approx(extra)


def test_cut_cross_entropy_keeps_no_logits():
    """--loss cce (Wijmans et al. 2024): the loss is computed block by block on chip from the hidden
    states, so no logits tensor is allocated; the fused kernel keeps the 16-bit logits: 2 B x 2048
    tokens x 32000 = 131,072,000 B."""
    hw = build_hardware("h100-sxm", CAT)
    opts = {"method": "lora", "micro_batch": 2, "seq": 1024, "framework": "hf-trainer"}
    fused = memory(_job(loss="fused", **opts), hw, CAT).per_gpu.detail["logits_and_loss"]
    cce = memory(_job(loss="cce", **opts), hw, CAT).per_gpu.detail["logits_and_loss"]
    assert (fused, cce) == (2 * 2048 * 32000, 0.0)


def test_the_default_implementation_is_named_with_its_source():
    est = estimate(_job(framework="hf-trainer", **{**QLORA, "zero": 0}), build_hardware("rtx-4090", CAT), CAT)
    text = " ".join(est.memory.assumptions)
    assert "checkpointing reentrant (Hugging Face Trainer (Transformers, PEFT)'s default" in text
    assert "Transformers modeling_utils.py" in text


def test_checkpoint_impl_contradicting_the_recomputation_is_refused():
    with pytest.raises(UsageError, match="give --recompute full"):
        _job(method="qlora", checkpoint_impl="reentrant", recompute="none")
    # without --recompute it stays for a plan, whose layout search may choose full recomputation
    assert _job(method="qlora", checkpoint_impl="reentrant").checkpoint_impl == "reentrant"


@pytest.mark.parametrize(("optimizer", "state_bytes"), [("lamb", 8), ("lion", 4), ("adamw", 8)])
def test_lamb_and_lion_states_per_parameter(optimizer: str, state_bytes: int):
    """LAMB: Adam's two fp32 moments (You et al., Algorithm 2); Lion: one fp32 momentum (Chen et
    al., Program 1). Full training on one GPU, so the states are every parameter's."""
    job = build_workload({"model": "llama-2-7b", "task": "pretrain", "optimizer": optimizer, "zero": 0}, CAT)
    mem = memory(job, build_hardware("h100-sxm", CAT), CAT).per_gpu
    master = mem.detail.get("master_weights", 0.0) + mem.detail.get("main_gradients", 0.0)
    assert mem.optimizer - master == pytest.approx(LLAMA.params * state_bytes)


def test_no_optimizer_keeps_weights_and_gradients_only_by_hand():
    """--optimizer none (a forward-and-backward benchmark: zero_grad, forward, backward): Llama 2 7B in bf16
    under Megatron keeps 2 B weights + 4 B fp32 gradients per parameter and nothing else: no optimizer
    states, no master copy, no main gradients (AdamW adds 8 + 4 B), no update in the step."""
    job = build_workload(
        {"model": "llama-2-7b", "task": "pretrain", "optimizer": "none", "zero": 0, "framework": "megatron"}, CAT
    )
    mem = memory(job, build_hardware("h100-sxm", CAT), CAT).per_gpu
    assert mem.optimizer == 0.0 and not mem.detail.get("master_weights") and not mem.detail.get("main_gradients")
    assert mem.weights == pytest.approx(LLAMA.params * 2)
    assert mem.gradients == pytest.approx(LLAMA.params * 4)  # Megatron accumulates gradients in fp32
    adamw = memory(
        build_workload({"model": "llama-2-7b", "task": "pretrain", "zero": 0, "framework": "megatron"}, CAT),
        build_hardware("h100-sxm", CAT),
        CAT,
    ).per_gpu
    # Adam's two fp32 moments and the fp32 master copy (Megatron's fp32 gradients are the main gradients)
    assert adamw.optimizer - mem.optimizer == pytest.approx(LLAMA.params * (8 + 4))
    assert adamw.weights == mem.weights and adamw.gradients == mem.gradients and adamw.activations == mem.activations
    est = estimate(job, build_hardware("h100-sxm:8", CAT), CAT)
    assert est.training is not None and est.training.terms["optimizer_step"] == 0.0
    assert any("--optimizer none: forward and backward only" in a for a in est.as_dict()["assumptions"])


@pytest.mark.parametrize(
    "flag", [{"optimizer_in_backward": True}, {"paged_optimizer": True}, {"offload": ["optimizer"]}, {"zero": 2}]
)
def test_no_optimizer_refuses_what_places_an_optimizer(flag: dict[str, object]):
    with pytest.raises(UsageError, match="--optimizer none runs forward and backward only"):
        _job(optimizer="none", **flag)


def test_gptq_awq_int4_base_stores_packed_weights_and_group_scales():
    """A GPTQ/AWQ checkpoint: 4 bits per weight plus one fp16 scale and one 4-bit zero per group of
    128 (0.5 + 2.5 / 128 B per block-linear weight); embeddings, norms and the head stay 16-bit."""
    block = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)
    other = LLAMA.params - block
    mem = memory(_job(method="qlora", weights_dtype="int4"), build_hardware("rtx-4090", CAT), CAT).per_gpu
    assert mem.detail["frozen_base"] == pytest.approx(block * (0.5 + 2.5 / 128) + other * 2)
    nf4 = memory(_job(method="qlora"), build_hardware("rtx-4090", CAT), CAT).per_gpu.detail["frozen_base"]
    assert nf4 < mem.detail["frozen_base"]  # NF4 with double quantization: 0.5 + 0.127 / 8 B
    with pytest.raises(UsageError, match=r"nf4 .*or int4"):
        _job(method="qlora", weights_dtype="int8")


def test_power_cap_scales_compute_by_the_cube_root_and_leaves_bandwidth():
    """200 W on a 400 W A100: compute at (1/2)^(1/3) = 79.4 % of its clock; memory bandwidth and
    the nominal peak (the MFU denominator) unchanged; a cap at the TDP changes nothing."""
    rates = compute_rates(CAT.gpu("a100-80gb-sxm"), "bf16", CAT)
    capped = power_capped(rates, 200.0, CAT)
    assert capped.matmul == pytest.approx(rates.matmul * 0.5 ** (1 / 3))
    assert capped.attention == pytest.approx(rates.attention * 0.5 ** (1 / 3))
    assert (capped.bandwidth, capped.peak) == (rates.bandwidth, rates.peak)
    assert power_capped(rates, 400.0, CAT).matmul == rates.matmul


def test_power_cap_against_a_published_rtx3090_sweep():
    """qwertyforce's RTX 3090 sweep (timm ViT-B/16 TF32 training): 80 % of full-power throughput at
    230 W and 95 % at 320 W, a ratio of 0.842; the cube-root rule gives (230/320)^(1/3) = 0.896 for a
    compute-bound step: 6 % optimistic, within the 10 % this test allows."""
    rates = compute_rates(CAT.gpu("rtx-3090"), "tf32", CAT)
    ratio = power_capped(rates, 230.0, CAT).matmul / power_capped(rates, 320.0, CAT).matmul
    assert ratio == pytest.approx((230 / 320) ** (1 / 3))
    assert abs(ratio / (0.80 / 0.95) - 1) < 0.10


def test_power_cap_end_to_end_and_refused_below_a_quarter_of_the_tdp():
    work = build_workload({"model": "llama-2-7b", "task": "pretrain", "micro_batch": 2}, CAT)
    full = estimate(work, build_hardware("a100-80gb-sxm:8", CAT), CAT)
    capped = estimate(work, build_hardware("a100-80gb-sxm:8", CAT, power_cap=300), CAT)
    assert full.training is not None and capped.training is not None
    assert capped.training.tokens_per_second < full.training.tokens_per_second
    assert capped.as_dict()["hardware"]["power_cap_watts"] == 300
    with pytest.raises(UsageError, match="under 25% of the 400 W TDP"):
        build_hardware("a100-80gb-sxm", CAT, power_cap=50)


def test_eager_decoder_attention_keeps_the_fp32_softmax_and_its_16bit_copy():
    """Transformers' decoders: `softmax(scores, dtype=torch.float32).to(query.dtype)`: per score the fp32
    softmax output (softmax's backward) and its bf16 copy (the PV matmul's) are kept, 4 + 2 B; FlashAttention
    keeps one fp32 log-sum-exp per row. llama-2-7b, pure bf16 LoRA, 512 tokens, no recomputation, per
    layer 32 heads x 512^2 x 6 B = 50,331,648 B against 32 x 512 x 4 B = 65,536 B, over 32 layers."""
    hw = build_hardware("a100-40gb-sxm", CAT)
    opts = {"method": "lora", "micro_batch": 1, "seq": 512, "precision": "bf16", "master_weights": False}
    eager = memory(_job(framework="fsdp", attention="eager", **opts), hw, CAT).per_gpu.detail["layer_activations"]
    flash = memory(_job(framework="fsdp", attention="flash", **opts), hw, CAT).per_gpu.detail["layer_activations"]
    assert eager - flash == pytest.approx(32 * (32 * 512**2 * 6 - 32 * 512 * 4)) == 1_608_515_584


def test_the_fp32_softmax_copy_is_transformers_own_and_not_megatrons():
    """Megatron writes its own attention (a fused scale-mask-softmax over 16-bit scores): under
    --attention eager it keeps the activation size per score, not Transformers' 4 + 2 B."""
    hw = build_hardware("a100-40gb-sxm", CAT)
    opts = {"micro_batch": 1, "seq": 512, "precision": "bf16", "task": "pretrain", "recompute": "none"}
    megatron = memory(_job(framework="megatron", attention="eager", **opts), hw, CAT).assumptions
    hf = memory(_job(framework="hf-trainer", attention="eager", **opts), hw, CAT).assumptions
    assert not any("Transformers' decoders" in str(n) for n in megatron)
    assert any("Transformers' decoders" in str(n) for n in hf)


def test_no_optimizer_layouts_neither_partition_nor_offload_an_optimizer(capsys):
    """--layout auto under --optimizer none: no ZeRO-1/2 stage (they partition an optimizer's states and step)
    and, where nothing fits, no optimizer kept in CPU memory: the layout chosen is one the command it prints
    reproduces."""
    import json

    from gpuwise.plan.layouts import best_layout

    from .conftest import run_main

    args = ["estimate", "--model", "llama-3.1-8b", "--task", "finetune", "--gpu", "rtx-4090:1", "--seq", "2048"]
    args += ["--micro-batch", "1", "--optimizer", "none", "--framework", "deepspeed", "--layout", "auto", "--json"]
    code, out, err = run_main(capsys, *args)
    assert code in (0, 1) and "Traceback" not in err
    work = json.loads(out)["workload"]
    assert work["zero"] not in (1, 2) and "optimizer" not in (work.get("offload") or [])
    job = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "optimizer": "none"}, CAT)
    hw = build_hardware("h100-sxm:8", CAT)
    choice = best_layout(job, hw, CAT, compute_rates(hw.gpu, "bf16", CAT))
    assert choice.job is not None and choice.job.parallel.zero in (0, 3)
