"""Memory formulas against hand-computed cases. Each case says where its numbers come from."""

from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.hf_import import arch_from_hf_config
from gpuwise.estimate.memory import (
    _Notes,
    inference_memory,
    kv_cache_bytes,
    largest_fitting,
    layer_activation_bytes,
    lora_params,
    shard_model_states,
    stage_params,
    training_memory,
)
from gpuwise.workload import Hardware, InferenceJob, Parallelism, TrainingJob

from .conftest import hf

GB = 1e9

# GPT-3 175B shape used by Korthikanti et al. (Table 3): h=12288, a=96, L=96, s=2048, with dropout.
GPT3 = arch_from_hf_config(
    {
        "model_type": "gpt2",
        "n_embd": 12288,
        "n_layer": 96,
        "n_head": 96,
        "vocab_size": 51200,
        "n_positions": 2048,
        "attn_pdrop": 0.1,
        "resid_pdrop": 0.1,
    },
    name="gpt3-175b",
)


def hw(catalog, gpu="a100-80gb-sxm", count=1, per_node=None):
    return Hardware(gpu=catalog.gpu(gpu), count=count, gpus_per_node=per_node or min(count, 8))


# --- ZeRO (Rajbhandari et al. 2019, Figure 1: 7.5B parameters, Nd = 64, K = 12) ---------------
@pytest.mark.parametrize(("stage", "published_gb"), [(0, 120), (1, 31.4), (2, 16.6), (3, 1.88)])
def test_zero_paper_figure1(stage, published_gb):
    p = 7.5e9
    w, g, o, m = shard_model_states(2 * p, 2 * p, 8 * p, 4 * p, dp=64, zero=stage)
    assert (w + g + o + m) / GB == pytest.approx(published_gb, rel=0.005)  # the paper rounds to 3 digits


# --- Korthikanti et al. 2022, section 4 (bytes per layer, 16-bit activations) -----------------
def _korthikanti(arch, s, b, t=1, sp=False, recompute="none"):
    # Megatron's fused LayerNorm keeps its 16-bit input: norm_bytes=2 as in the paper
    return layer_activation_bytes(arch, s, b, 2, t, sp, "eager", recompute, _Notes(load_catalog()), norm_bytes=2)


def test_korthikanti_no_parallelism():
    s, b, h, a = 2048, 1, 12288, 96
    assert _korthikanti(GPT3, s, b) == pytest.approx(s * b * h * (34 + 5 * a * s / h))


@pytest.mark.parametrize("t", [2, 4, 8])
def test_korthikanti_tensor_parallel(t):
    s, b, h, a = 2048, 1, 12288, 96
    assert _korthikanti(GPT3, s, b, t) == pytest.approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t)))


@pytest.mark.parametrize("t", [2, 8])
def test_korthikanti_tensor_and_sequence_parallel(t):
    s, b, h, a = 2048, 1, 12288, 96
    assert _korthikanti(GPT3, s, b, t, sp=True) == pytest.approx(s * b * h / t * (34 + 5 * a * s / h))


def test_korthikanti_selective_and_full_recompute():
    s, b, h, t = 2048, 1, 12288, 8
    assert _korthikanti(GPT3, s, b, t, sp=True, recompute="selective") == pytest.approx(34 * s * b * h / t)
    assert _korthikanti(GPT3, s, b, t, sp=True, recompute="full") == pytest.approx(2 * s * b * h / t)


def test_gated_gqa_layer_without_dropout_generalizes(catalog):
    """Llama-2-7B full training, flash attention, no dropout, in bytes per token: 2 fp32 norm
    inputs (8h) + attention and MLP block inputs (4h) + Q and out-proj input (4h) + K, V (4h) +
    gate, silu(gate), up and the down-proj input (8f) + one fp32 log-sum-exp per head."""
    m = hf("llama-2-7b")
    s, b, h, f, a = 2048, 1, 4096, 11008, 32
    got = layer_activation_bytes(m, s, b, 2, 1, False, "flash", "none", _Notes(catalog))
    assert got == pytest.approx(s * b * (8 * h + 4 * h + 4 * h + 4 * h + 8 * f) + 4 * s * b * a)


# --- KV cache ----------------------------------------------------------------------------------
def test_kv_cache_llama2_7b_mha():
    # 2 (K,V) x 32 layers x 32 heads x 128 dims x 2 bytes = 512 KiB per token
    assert kv_cache_bytes(hf("llama-2-7b"), tokens=1, batch=1, kv_bytes=2) == 524288


def test_kv_cache_gqa_and_tensor_parallel(catalog):
    llama70 = catalog.model("llama-2-70b")
    # 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 320 KiB per token
    assert kv_cache_bytes(llama70, 1, 1, 2) == 327680
    assert kv_cache_bytes(llama70, 1, 1, 2, tp=8) == 327680 / 8
    # tp beyond the 8 KV heads replicates them: each GPU still holds one head
    assert kv_cache_bytes(llama70, 1, 1, 2, tp=16) == 327680 / 8


def test_kv_cache_sliding_window_caps_tokens():
    m = hf("mistral-7b-v0.1")
    assert kv_cache_bytes(m, 8192, 1, 2) == kv_cache_bytes(m, 4096, 1, 2)
    assert kv_cache_bytes(m, 2048, 1, 2) == 2 * 32 * 8 * 128 * 2048 * 2


def test_kv_cache_none_for_encoders():
    assert kv_cache_bytes(hf("bert-base-uncased"), 512, 8, 2) == 0


# --- weights and adapters ------------------------------------------------------------------------
def test_lora_adapter_count_matches_peft():
    # PEFT prints "trainable params: 4,194,304" for Llama-2-7B with r=8 on q_proj, v_proj
    job = TrainingJob(model=hf("llama-2-7b"), method="lora", lora_rank=8, lora_targets=("q_proj", "v_proj"))
    assert lora_params(job, layers=32, tp=1) == 4_194_304


def test_qlora_weights_hand_computed(catalog):
    m = hf("llama-2-7b")
    block = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    other = m.params - block
    sp_ = stage_params(m, 1, 1, "only")
    assert sp_.block_linear == block and sp_.other == other
    job = TrainingJob(model=m, method="qlora", weights_dtype="nf4")
    est = training_memory(job, hw(catalog), catalog)
    assert est.per_gpu.detail["frozen_base"] == pytest.approx(block * (0.5 + 0.127 / 8) + other * 2)


def test_full_finetune_model_states_are_16_bytes_per_param(catalog):
    m = hf("llama-2-7b")
    est = training_memory(TrainingJob(model=m, method="full"), hw(catalog), catalog)
    pg = est.per_gpu
    assert pg.weights + pg.gradients + pg.optimizer == pytest.approx(16 * m.params)


def test_pipeline_first_stage_holds_pp_microbatches(catalog):
    m = catalog.model("llama-2-13b")
    base = TrainingJob(model=m, micro_batch=1, global_batch=64, seq=4096, parallel=Parallelism(pp=4))
    est = training_memory(base, hw(catalog, count=8), catalog)
    per_layer = layer_activation_bytes(m, 4096, 1, 2, 1, False, "flash", "none", _Notes(catalog))
    # 40 layers / 4 stages = 10 layers, 4 micro-batches in flight on the first stage
    assert est.per_gpu.detail["layer_activations"] == pytest.approx(per_layer * 10 * 4)


def test_tensor_parallel_splits_weights(catalog):
    m = catalog.model("llama-2-70b")
    one = stage_params(m, 1, 1, "only").total
    eight = stage_params(m, 8, 1, "only").total
    assert eight == pytest.approx(one / 8, rel=0.001)


def test_inference_weights_at_int4_and_kv(catalog):
    m = hf("llama-2-7b")
    job = InferenceJob(model=m, weights_dtype="int4", input_tokens=1000, output_tokens=24, concurrency=4)
    est = inference_memory(job, hw(catalog), catalog)
    block = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    assert est.per_gpu.weights == pytest.approx(block * (0.5 + 2.5 / 128) + (m.params - block) * 2)
    assert est.per_gpu.kv_cache == 524288 * 1024 * 4


def test_largest_fitting_is_the_boundary(catalog):
    job = InferenceJob(model=hf("llama-2-7b"), input_tokens=2048, output_tokens=2048, concurrency=1)
    h = hw(catalog, "a10")
    n = largest_fitting(job, h, catalog, "concurrency")
    assert n >= 1
    assert inference_memory(replace(job, concurrency=n), h, catalog).fits
    assert not inference_memory(replace(job, concurrency=n + 1), h, catalog).fits
