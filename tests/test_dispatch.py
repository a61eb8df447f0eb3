"""The host's launches of an eager PyTorch training step (estimate/dispatch.py), counted by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.dispatch import host_wait, training_launches
from gpuwise.estimate.rates import LaunchTimes, compute_rates
from gpuwise.workload import TrainingJob
from gpuwise.workload.specs import Parallelism

CAT = load_catalog()
LLAMA = CAT.model("llama-3.1-8b")
RATES = compute_rates(CAT.gpu("h100-sxm"), "bf16", CAT)


def test_llama_block_under_the_trainer_by_hand():
    """Llama-3.1-8B under the Hugging Face Trainer (Transformers' decoder code, unfused), SDPA attention.
    Forward of a block: 7 GEMMs (q, k, v, o, gate, up, down) + 2 RMSNorms x 8 + rotary on q and k 10 +
    SwiGLU 2 + repeat_kv's 2 copies (8 KV heads for 32) + SDPA 1 + the output's layout copy 1 + 2 residual
    adds = 41. Backward: 2 per GEMM (14) + one per other kernel (34) = 48. Head: the embedding lookup 1,
    final RMSNorm 8, LM head 1, loss 3 = 13, and rotary's cos/sin 9 once a forward = 22 forward; backward
    13 + 1 for the head's weight gradient = 14 (the tables have no gradient)."""
    job = TrainingJob(model=LLAMA, framework="hf-trainer", micro_batch=1, seq=2048)
    got = training_launches(job, LLAMA.layers, CAT)
    assert (got.forward, got.backward, got.recompute) == (32 * 41 + 22, 32 * 48 + 14, 0)
    full = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer", recompute="full"), 32, CAT)
    assert full.recompute == 32 * 41  # a block's forward kernels again
    selective = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer", recompute="selective"), 32, CAT)
    assert selective.recompute == 32 * 3  # the attention kernel and the copies before it


def test_torchtitan_counts_its_own_code():
    """torchtitan's eager ops (without torch.compile): RMSNorm 6, rotary 3 a tensor, no repeat_kv copies
    counted, no per-forward tables: 7 + 12 + 6 + 2 + 1 + 1 + 2 = 31 forward, 14 + 24 = 38 backward; head
    1 + 6 + 1 + 3 = 11 forward, 12 backward."""
    job = TrainingJob(model=LLAMA, framework="torchtitan", compile=False)
    got = training_launches(job, 32, CAT)
    assert (got.forward, got.backward) == (32 * 31 + 11, 32 * 38 + 12)


def test_qlora_dequantizes_each_call_and_moe_adapters_are_grouped():
    """QLoRA (bitsandbytes NF4): each of the 7 frozen linears launches 3 more kernels forward and 3 more
    for its input gradient (bnb_4bit_dequant_extra_launches_qlora); the LM head stays 16-bit. A MoE
    block's adapters follow its GEMMs: one launch set per adapted matrix, not per expert."""
    lora = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer", method="lora"), 1, CAT)
    qlora = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer", method="qlora"), 1, CAT)
    assert (qlora.forward - lora.forward, qlora.backward - lora.backward) == (7 * 3, 7 * 3)
    moe = CAT.model("qwen3-30b-a3b")
    dense_targets = TrainingJob(model=moe, framework="hf-trainer", method="lora")
    all_targets = TrainingJob(
        model=moe, framework="hf-trainer", method="lora", lora_targets=("q_proj", "v_proj", "gate_proj", "up_proj")
    )
    got, base = training_launches(all_targets, 1, CAT), training_launches(dense_targets, 1, CAT)
    assert (got.forward - base.forward, got.backward - base.backward) == (2 * 4, 2 * 5)


def test_fused_stack_and_eager_attention_by_hand():
    """Megatron's fused norm, rotary and activation: 7 + 2 x 1 + 2 + 1 + 1 + 1 + 2 = 16 forward, 14 + 9 = 23
    backward. Eager attention (seven kernels) instead of SDPA: six more each way."""
    job = TrainingJob(model=LLAMA, framework="megatron")
    got = training_launches(job, 1, CAT)
    head = training_launches(job, 0, CAT)
    assert (got.forward - head.forward, got.backward - head.backward) == (16, 23)
    eager = training_launches(TrainingJob(model=LLAMA, framework="megatron", attention="eager"), 1, CAT)
    assert (eager.forward - got.forward, eager.backward - got.backward) == (6, 6)


def test_frozen_gemms_and_lora_adapters():
    """LoRA on q and v under PEFT (the Trainer): the frozen GEMMs' backward is the input gradient only
    (7 instead of 14), and each adapted matrix adds 4 kernels forward and 5 backward."""
    full = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer"), 1, CAT)
    lora = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer", method="lora"), 1, CAT)
    assert lora.forward - full.forward == 2 * 4
    assert lora.backward - full.backward == -7 - 1 + 2 * 5  # the LM head's weight gradient too


def test_compile_and_tensor_parallel():
    """torch.compile: no host floor. Tensor parallelism: two collectives a block, each way."""
    job = TrainingJob(model=LLAMA, framework="torchtitan", compile=True)
    assert host_wait(job, 32, 1, 0.0, RATES, CAT, []) == 0.0
    one = training_launches(TrainingJob(model=LLAMA, framework="torchtitan"), 1, CAT)
    tp = training_launches(TrainingJob(model=LLAMA, framework="torchtitan", parallel=Parallelism(tp=2)), 1, CAT)
    assert (tp.forward - one.forward, tp.backward - one.backward) == (2, 2)


def test_wait_is_the_launches_beyond_the_gpu_work():
    """The wait is the step's launches at decode_host_seconds_eager each, less the GPU's seconds."""
    job = TrainingJob(model=LLAMA, framework="hf-trainer", micro_batch=1, seq=2048)
    kernels = training_launches(job, 32, CAT).total
    per = CAT.convention("decode_host_seconds_eager")
    notes: list[str] = []
    assert host_wait(job, 32, 4, 0.01, RATES, CAT, notes) == pytest.approx(4 * kernels * per - 0.01)
    assert "kernels per step launched from the host" in notes[0]
    assert host_wait(job, 32, 4, 4 * kernels * per + 1e-6, RATES, CAT, []) == 0.0


def test_a_measured_host_times_forward_and_backward_kernels_apart():
    """The GPU model's measured hosts (gpuwise bench launch: 7 us a kernel in a generate loop, 9 us in a
    training forward, 4 us in the backward from autograd) replace the default: the wait is (forward +
    recomputed) x 9 us + backward x 4 us per micro-batch, less the GPU's work, and the note names the
    measurement. Without one, the wait is the kernels at the default exactly, as before."""
    job = TrainingJob(model=LLAMA, framework="hf-trainer", micro_batch=1, seq=2048, recompute="selective")
    n = training_launches(job, 32, CAT)
    measured = replace(RATES, launch=LaunchTimes(inference=7e-6, forward=9e-6, backward=4e-6))
    notes: list[str] = []
    by_hand = 2 * ((n.forward + n.recompute) * 9e-6 + n.backward * 4e-6) - 0.001
    assert host_wait(job, 32, 2, 0.001, measured, CAT, notes) == pytest.approx(by_hand)
    assert "9.0 us a forward kernel and 4.0 us a backward one" in notes[0]
    assert "measured: gpuwise bench launch" in notes[0]
    per = CAT.convention("decode_host_seconds_eager")
    assert host_wait(job, 32, 2, 0.001, RATES, CAT, []) == n.total * 2 * per - 0.001


def test_small_model_at_batch_one_is_host_bound_end_to_end():
    """GPT-2 at batch 1 under the Trainer on an H100: the step is its launches, the bottleneck the host,
    and the step still the sum of its terms; at batch 64 the GPU's work hides them."""
    work = {"model": "gpt2", "task": "pretrain", "framework": "hf-trainer", "micro_batch": 1, "seq": 1024}
    small = make_estimate(work, {"gpu": "h100-sxm:1"}).training
    assert small.bottleneck == "host" and small.terms["host_dispatch_wait"] > 0
    assert small.step_seconds == pytest.approx(sum(small.terms.values()))
    job = TrainingJob(model=CAT.model("gpt2"), task="pretrain", framework="hf-trainer", micro_batch=1, seq=1024)
    launched = training_launches(job, 12, CAT).total * CAT.convention("decode_host_seconds_eager")
    assert small.step_seconds == pytest.approx(launched)
    large = make_estimate(work | {"micro_batch": 64}, {"gpu": "h100-sxm:1"}).training
    assert "host_dispatch_wait" not in large.terms and large.bottleneck != "host"
    compiled = make_estimate(work | {"compile": True}, {"gpu": "h100-sxm:1"}).training
    assert "host_dispatch_wait" not in compiled.terms


def test_bert_encoder_by_hand():
    """BERT-large under the Trainer with eager attention: a block runs 6 GEMMs with biases (q, k, v, o, the
    two MLP matrices), the eager attention's 7 kernels and its dropout, 2 LayerNorms of one kernel, the
    layout copy, 2 residual adds, GELU and 2 hidden dropouts: 6 + 8 + 8 = 22 forward; backward 6 x 3
    (data, weight and bias gradients) + 8 + 8 = 34. Outside the blocks: three lookups (tokens, positions,
    token types) and their 2 adds, the embedding LayerNorm and its dropout = 7 each way; no LM head, no
    rotary tables (learned positions), no repeat_kv copies (a KV head per query head); the pooler is not
    counted."""
    bert = CAT.model("bert-large-uncased")
    job = TrainingJob(model=bert, framework="hf-trainer", attention="eager", micro_batch=4, seq=512)
    got = training_launches(job, bert.layers, CAT)
    assert (got.forward, got.backward) == (24 * 22 + 7, 24 * 34 + 7)


def test_models_timed_by_operators_get_no_transformer_floor():
    """A CNN is timed kernel by kernel with its own host clock (estimate/operators.py): no wait term here."""
    est = make_estimate({"model": "resnet-50", "task": "pretrain", "micro_batch": 1}, {"gpu": "h100-sxm:1"}).training
    assert "host_dispatch_wait" not in est.terms and est.bottleneck != "host"
