"""The host's launches of an eager PyTorch training step (estimate/dispatch.py), counted by hand."""

from __future__ import annotations

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.dispatch import host_wait, training_launches
from gpuwise.workload import TrainingJob
from gpuwise.workload.specs import Parallelism

CAT = load_catalog()
LLAMA = CAT.model("llama-3.1-8b")


def test_llama_block_under_the_trainer_by_hand():
    """Llama-3.1-8B under the Hugging Face Trainer (RMSNorm, rotary and SwiGLU unfused), flash attention.
    Forward of a block: 7 GEMMs (q, k, v, o, gate, up, down) + 2 RMSNorms x 6 + rotary 6 + SwiGLU 2 +
    SDPA 1 + the output's layout copy 1 + 2 residual adds = 31. Backward: 2 per GEMM (14) + one per
    other kernel (24) = 38. Head: the embedding lookup 1, final RMSNorm 6, LM head 1, loss 3 = 11
    forward; backward 10 + 2 for the head's GEMM = 12."""
    job = TrainingJob(model=LLAMA, framework="hf-trainer", micro_batch=1, seq=2048)
    got = training_launches(job, LLAMA.layers, CAT)
    assert (got.forward, got.backward, got.recompute) == (32 * 31 + 11, 32 * 38 + 12, 0)
    full = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer", recompute="full"), 32, CAT)
    assert full.recompute == 32 * 31  # a block's forward kernels again
    selective = training_launches(TrainingJob(model=LLAMA, framework="hf-trainer", recompute="selective"), 32, CAT)
    assert selective.recompute == 32 * 1  # the attention kernel


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
    assert host_wait(job, 32, 1, 0.0, CAT, []) == 0.0
    one = training_launches(TrainingJob(model=LLAMA, framework="torchtitan"), 1, CAT)
    tp = training_launches(TrainingJob(model=LLAMA, framework="torchtitan", parallel=Parallelism(tp=2)), 1, CAT)
    assert (tp.forward - one.forward, tp.backward - one.backward) == (2, 2)


def test_wait_is_the_launches_beyond_the_gpu_work():
    """The wait is the step's launches at decode_host_seconds_eager each, less the GPU's seconds."""
    job = TrainingJob(model=LLAMA, framework="hf-trainer", micro_batch=1, seq=2048)
    kernels = training_launches(job, 32, CAT).total
    per = CAT.convention("decode_host_seconds_eager")
    notes: list[str] = []
    assert host_wait(job, 32, 4, 0.01, CAT, notes) == pytest.approx(4 * kernels * per - 0.01)
    assert "kernels per step launched from the host" in notes[0]
    assert host_wait(job, 32, 4, 4 * kernels * per + 1e-6, CAT, []) == 0.0


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
