"""FSDP gradient accumulation without synchronisation (--defer-grad-sync) and tensor parallelism
whose LM head gathers full logits (--no-loss-parallel): what each keeps per GPU, hand-computed from
PyTorch's FSDP2 (FSDPParam.to_accumulated_grad_if_needed upcasts each unsharded gradient to the reduce
dtype and keeps it until the synchronising micro-batch) and DTensor's ColwiseParallel(output_layouts=
Replicate()) (the LM head's output all-gathered over the vocabulary)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuwise.catalog import load_catalog
from gpuwise.cli.app import app
from gpuwise.errors import UsageError
from gpuwise.estimate import memory
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()
# Llama 3.1 8B: embedding and head 2 x 128,256 x 4,096 = 1,050,673,152; each of 32 layers
# 4,096 x (2 x 4,096 + 2 x 1,024) + 3 x 4,096 x 14,336 + 2 x 4,096 = 218,112,000; final norm 4,096
PARAMS_8B = 2 * 128_256 * 4_096 + 32 * (4_096 * (2 * 4_096 + 2 * 1_024) + 3 * 4_096 * 14_336 + 2 * 4_096) + 4_096
PURE_BF16 = {
    "model": "llama-3.1-8b",
    "task": "pretrain",
    "framework": "torchtitan",
    "precision": "bf16",
    "master_weights": False,
    "micro_batch": 1,
    "seq": 1024,
    "recompute": "full",
}


def _detail(gpu: str, **opts: object) -> tuple[float, dict[str, float]]:
    job = build_workload({**PURE_BF16, **opts}, CAT)
    assert isinstance(job, TrainingJob)
    per_gpu = memory(job, build_hardware(gpu, CAT), CAT).per_gpu
    return per_gpu.gradients, per_gpu.detail


def test_the_parameter_count_is_the_published_one():
    assert PARAMS_8B == 8_030_261_248 == CAT.model("llama-3.1-8b").params


def test_deferred_sync_keeps_every_unsharded_gradient_in_fp32():
    """FSDP2 over 4 GPUs, two micro-batches a step, bf16 parameters with an fp32 reduce dtype: each rank
    keeps the whole model's gradient unsharded in fp32 (4 B x 8,030,261,248 = 32,121,044,992 B), not its
    bf16 quarter (2 B x P / 4); the sharded gradients appear only as each layer's accumulated gradient is
    reduce-scattered and freed, so the two do not add."""
    grads, detail = _detail("h200:4", zero=3, global_batch=8, defer_grad_sync=True)
    assert detail["unsharded_gradients"] == pytest.approx(4 * PARAMS_8B) == 32_121_044_992
    assert grads == pytest.approx(4 * PARAMS_8B)
    synced, detail = _detail("h200:4", zero=3, global_batch=8)
    assert "unsharded_gradients" not in detail
    assert synced == pytest.approx(2 * PARAMS_8B / 4)


def test_deferred_sync_with_one_micro_batch_accumulates_nothing():
    """global batch 4 on 4 ranks at micro-batch 1: every backward synchronises."""
    grads, detail = _detail("h200:4", zero=3, global_batch=4, defer_grad_sync=True)
    assert "unsharded_gradients" not in detail
    assert grads == pytest.approx(2 * PARAMS_8B / 4)


def test_loss_parallel_off_keeps_full_vocabulary_logits_on_every_rank():
    """TP 4, 1,024 tokens, torchtitan's eager loss at 12 B per logit: 1,024 x 128,256 / 4 x 12 B =
    394,002,432 B with the loss on vocabulary shards, four times that with the head's output gathered."""
    _, sharded = _detail("h200:4", tp=4)
    _, gathered = _detail("h200:4", tp=4, loss_parallel=False)
    assert sharded["logits_and_loss"] == pytest.approx(1_024 * 128_256 / 4 * 12) == 394_002_432
    assert gathered["logits_and_loss"] == pytest.approx(1_024 * 128_256 * 12)


def test_the_options_reach_the_cli_and_are_named_in_the_assumptions():
    args = [
        "estimate",
        "--model", "llama-3.1-8b", "--task", "pretrain", "--framework", "torchtitan", "--zero", "3",
        "--precision", "bf16", "--no-master-weights", "--micro-batch", "1", "--global-batch", "16",
        "--seq", "1024", "--recompute", "full", "--tp", "2", "--gpu", "h200:8",
        "--defer-grad-sync", "--no-loss-parallel", "--json",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["workload"]["defer_grad_sync"] is True
    assert out["workload"]["loss_parallel"] is False
    text = " ".join(out["assumptions"])
    assert "--defer-grad-sync" in text and "--no-loss-parallel" in text


def test_a_replicated_embedding_keeps_its_states_on_every_tp_rank():
    """TP 4, pure bf16 with AdamW: the 128,256 x 4,096 = 525,336,576-parameter embedding split over 4
    ranks, or whole on each: 3/4 of it more per rank, 2 B of weight, 2 B of gradient and 2 x 2 B of
    Adam states per parameter (788,004,864 B of weights)."""
    job = {"tp": 4, "global_batch": 1}
    extra = 128_256 * 4_096 * 3 / 4
    on = memory(build_workload({**PURE_BF16, **job}, CAT), build_hardware("h200:4", CAT), CAT).per_gpu
    off_job = build_workload({**PURE_BF16, **job, "tp_embedding": False}, CAT)
    off = memory(off_job, build_hardware("h200:4", CAT), CAT).per_gpu
    assert off.weights - on.weights == pytest.approx(2 * extra) == 788_004_864
    assert off.gradients - on.gradients == pytest.approx(2 * extra)
    assert off.optimizer - on.optimizer == pytest.approx(4 * extra)


# Llama 2 7B: each of 32 blocks 4 x 4,096^2 + 3 x 4,096 x 11,008 + 2 x 4,096 = 202,383,360 parameters;
# LoRA r=8 on q and v: 32 x 2 x 8 x (4,096 + 4,096) = 4,194,304 (lit-gpt's printed trainable count)
BLOCKS_7B = 32 * (4 * 4_096**2 + 3 * 4_096 * 11_008 + 2 * 4_096)
LITGPT_LORA = {
    "model": "llama-2-7b",
    "task": "finetune",
    "framework": "fsdp",
    "method": "lora",
    "precision": "bf16",
    "master_weights": False,
    "micro_batch": 1,
    "seq": 1304,
    "recompute": "full",
    "lora_rank": 8,
    "lora_targets": ["q_proj", "v_proj"],
    "zero": 3,
    "global_batch": 256,
}


def _lora(**opts: object) -> tuple[float, dict[str, float]]:
    job = build_workload({**LITGPT_LORA, **opts}, CAT)
    per_gpu = memory(job, build_hardware("a100-40gb-sxm:2", CAT), CAT).per_gpu
    return per_gpu.gradients, per_gpu.detail


def test_the_block_count_is_the_models():
    assert BLOCKS_7B == 6_476_267_520
    assert CAT.model("llama-2-7b").layer_params * 32 == BLOCKS_7B


def test_mixed_frozen_units_give_every_block_weight_a_gradient():
    """lit-gpt's FSDP LoRA (Lightning 2.1, use_orig_params=True, one unit per Block): the frozen block
    weights get bf16 gradients, 2 B x 6,476,267,520 = 12,952,535,040 B before sharding; the embedding and
    head unit holds no adapter and gets none. Synchronised every micro-batch, each of 2 ranks keeps half of
    them with its adapters' 2 B x 4,194,304 / 2."""
    grads, detail = _lora(mixed_frozen_units=True)
    assert detail["frozen_weight_gradients"] == pytest.approx(2 * BLOCKS_7B) == 12_952_535_040
    assert grads == pytest.approx((2 * BLOCKS_7B + 2 * 4_194_304) / 2)
    plain, detail = _lora()
    assert "frozen_weight_gradients" not in detail
    assert plain == pytest.approx(2 * 4_194_304 / 2)


def test_fsdp1_no_sync_keeps_the_mixed_units_gradients_unsharded_in_bf16():
    """Under no_sync() (128 micro-batches per rank) FSDP1 keeps each unit's gradient unsharded in the
    dtype the backward computed it (bf16 here: its post-backward hook returns before the reduce-dtype
    cast), not the fsdp profile's 4 B reduce dtype: 2 B x (6,476,267,520 + 4,194,304) = 12,960,923,648 B
    per rank, about the 13 GB by which lit-gpt's 2-GPU 7B peak (22.18 GB) exceeds a sharded estimate."""
    grads, detail = _lora(mixed_frozen_units=True, defer_grad_sync=True)
    assert detail["unsharded_gradients"] == pytest.approx(2 * (BLOCKS_7B + 4_194_304)) == 12_960_923_648
    assert grads == pytest.approx(12_960_923_648)


def test_mixed_frozen_units_need_lora_under_fsdp():
    with pytest.raises(UsageError, match="--mixed-frozen-units"):
        build_workload({**LITGPT_LORA, "method": "full", "mixed_frozen_units": True}, CAT)
    job = build_workload({**LITGPT_LORA, "zero": 0, "mixed_frozen_units": True}, CAT)
    with pytest.raises(UsageError, match="--mixed-frozen-units"):
        memory(job, build_hardware("a100-40gb-sxm:2", CAT), CAT)


def test_mixed_frozen_units_reach_the_cli():
    args = [
        "estimate", "--model", "llama-2-7b", "--task", "finetune", "--framework", "fsdp", "--method", "lora",
        "--precision", "bf16", "--no-master-weights", "--micro-batch", "1", "--global-batch", "256",
        "--seq", "1304", "--recompute", "full", "--zero", "3", "--gpu", "a100-40gb-sxm:2",
        "--mixed-frozen-units", "--defer-grad-sync", "--json",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["workload"]["mixed_frozen_units"] is True
    assert "--mixed-frozen-units" in " ".join(out["assumptions"])
