"""The large MoE models as they are built: DeepSeek-V3/R1 (multi-head latent attention, a shared and
256 routed experts, three dense layers, a multi-token prediction module), Llama 4 Scout and Maverick
(a shared expert, dense layers interleaved with MoE ones, chunked attention), Qwen3-MoE (no
shared expert) and gpt-oss (biased experts, alternating 128-token windows). Counts against the published totals; KV cache, weights and FLOPs by hand."""

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.compute import Shape, forward_flops, layer_ops
from gpuwise.estimate.memory.inference import kv_cache_bytes
from gpuwise.estimate.memory.states import stage_params

CAT = load_catalog()


# ----- parameter counts against the published ones ---------------------------------------------------
@pytest.mark.parametrize(
    ("model", "total", "total_tol", "active", "active_tol"),
    [
        # DeepSeek-V3 technical report: 671B total, 37B activated (our active count includes the
        # embedding and the head, 1.85B, which the report's rounded 37B may leave out)
        ("deepseek-v3", 671e9, 0.001, 37e9, 0.02),
        ("deepseek-r1", 671e9, 0.001, 37e9, 0.02),
        # Llama 4 model card: 109B / 400B total including the vision encoder gpuwise does not model
        ("llama-4-scout-17b-16e", 109e9, 0.015, 17e9, 0.015),
        ("llama-4-maverick-17b-128e", 400e9, 0.005, 17e9, 0.015),
        # Qwen3 cards (3.3B and 22B activated); totals exact from the checkpoint indexes
        ("qwen3-30b-a3b", 30_532_122_624, 0, 3.3e9, 0.02),
        ("qwen3-235b-a22b", 235_093_634_560, 0, 22e9, 0.01),
        # gpt-oss model card: 20.9B / 116.8B total, 3.6B / 5.1B active without the embedding table (579,133,440)
        ("gpt-oss-20b", 20.9e9, 0.001, 3.6e9 + 579_133_440, 0.01),
        ("gpt-oss-120b", 116.8e9, 0.001, 5.1e9 + 579_133_440, 0.01),
    ],
)
def test_counts_match_the_published_ones(model, total, total_tol, active, active_tol):
    arch = CAT.model(model)
    assert arch.params == pytest.approx(total, rel=total_tol, abs=0 if total_tol else 0.5)
    assert arch.active_params == pytest.approx(active, rel=active_tol)


def test_deepseek_v3_block_by_block():
    """Hand count from the config: MLA attention 187,107,328 (q_a 7168x1536, q_b 1536x24576, kv_a
    7168x576, kv_b 512x32768, o 16384x7168, latent norms 1536+512); a dense block adds 2 norms and a
    SwiGLU of 18432; a MoE block 257 experts of 2048 (256 routed + 1 shared) and a 7168x256 router."""
    a = CAT.model("deepseek-v3")
    attn = 7168 * 1536 + 1536 * 24576 + 7168 * 576 + 512 * 32768 + 16384 * 7168 + 1536 + 512
    assert attn == 187_107_328
    dense = attn + 2 * 7168 + 3 * 7168 * 18432
    moe = attn + 2 * 7168 + 257 * 3 * 7168 * 2048 + 7168 * 256
    assert (a.block_params(dense=True), a.block_params()) == (dense, moe)
    assert (a.dense_layers, a.moe_layers) == (3, 58)
    assert a.params == 3 * dense + 58 * moe + 2 * 129280 * 7168 + 7168 == 671_026_404_352
    # active: 8 routed + the shared expert in each MoE block
    active_moe = attn + 2 * 7168 + 9 * 3 * 7168 * 2048 + 7168 * 256
    assert a.active_params == 3 * dense + 58 * active_moe + 2 * 129280 * 7168 + 7168
    # the MTP module as the checkpoint stores it: 685B in all (model card)
    assert a.checkpoint_params == pytest.approx(685e9, rel=0.001)


def test_llama_4_maverick_interleaves_dense_and_moe_blocks():
    a = CAT.model("llama-4-maverick-17b-128e")
    attn = 5120 * 5120 * 2 + 5120 * 1024 * 2
    dense = attn + 2 * 5120 + 3 * 5120 * 16384
    moe = attn + 2 * 5120 + 129 * 3 * 5120 * 8192 + 5120 * 128  # 128 routed + 1 shared expert
    assert (a.dense_layers, a.moe_layers) == (24, 24)
    assert a.params == 24 * (dense + moe) + 2 * 202048 * 5120 + 5120
    scout = CAT.model("llama-4-scout-17b-16e")
    assert (scout.dense_layers, scout.shared_ffn, scout.experts_per_token) == (0, 8192, 1)


def test_glm4_moe_reads_as_its_class_builds_it():
    """GLM-4.6 (corpus/data/holdout_configs/glm-4.6.json, zai-org's config values): GLM-4's attention (96
    query / 8 key-value heads of 128, q/k/v biased, o_proj not, a query/key RMSNorm of 128 each) over
    DeepSeek's expert layout: 3 dense blocks of 12288, then 89 blocks of 160 routed experts of 1536 plus
    one shared, a 5120x160 router. Published: 355B in all, 32B active; the multi-token prediction block,
    which transformers does not load, sits outside `params`."""
    import json
    from pathlib import Path

    from gpuwise.catalog.hf_import import arch_from_hf_config

    root = Path(__file__).resolve().parent.parent
    a = arch_from_hf_config(json.loads((root / "corpus/data/holdout_configs/glm-4.6.json").read_text()), "glm-4.6")
    attn = 5120 * 12288 + 12288 + 2 * (5120 * 1024 + 1024) + 12288 * 5120 + 2 * 128
    dense = attn + 2 * 5120 + 3 * 5120 * 12288
    moe = attn + 2 * 5120 + 161 * 3 * 5120 * 1536 + 5120 * 160
    assert (a.block_params(dense=True), a.block_params()) == (dense, moe)
    assert (a.dense_layers, a.moe_layers, a.experts_per_token, a.o_bias, a.qk_norm) == (3, 89, 8, False, True)
    assert a.params == 3 * dense + 89 * moe + 2 * 151552 * 5120 + 5120 == 352_797_814_784
    assert a.params == pytest.approx(355e9, rel=0.01)
    embed = 2 * 151552 * 5120  # the report's 32B active leaves the embedding and the head out
    assert a.active_params - embed == pytest.approx(32e9, rel=0.01)
    assert a.mtp_layers == 1 and a.checkpoint_params > a.params
    # GLM-4.5-Air from the class's defaults (one dense block, 128 experts of 1408, no query/key norm):
    # 106B in all, 12B active (model card)
    air = {
        "model_type": "glm4_moe",
        "hidden_size": 4096,
        "num_hidden_layers": 46,
        "num_attention_heads": 96,
        "head_dim": 128,
        "intermediate_size": 10944,
        "vocab_size": 151552,
        "attention_bias": True,
    }
    b = arch_from_hf_config(air, "glm-4.5-air")
    assert (b.dense_layers, b.experts, b.ffn, b.shared_ffn, b.qk_norm) == (1, 128, 1408, 1408, False)
    assert b.params == pytest.approx(106e9, rel=0.01)
    assert b.active_params - 2 * 151552 * 4096 == pytest.approx(12e9, rel=0.02)


def test_qwen3_moe_has_no_shared_expert():
    a = CAT.model("qwen3-235b-a22b")
    assert (a.shared_ffn, a.dense_layers, a.experts, a.ffn) == (0, 0, 128, 1536)


# ----- the KV cache ------------------------------------------------------------------------------------
def test_deepseek_v3_kv_cache_is_the_latent():
    """61 layers x (512 latent + 64 rotary key) x 2 bytes in bf16 = 70,272 bytes a token, on every
    tensor-parallel rank (the latent is not split by heads); 128 heads of 2 x 128 would be 3.9 MB."""
    a = CAT.model("deepseek-v3")
    assert kv_cache_bytes(a, tokens=1, batch=1, kv_bytes=2) == 61 * (512 + 64) * 2 == 70_272
    assert kv_cache_bytes(a, tokens=4096, batch=8, kv_bytes=2, tp=8) == 4096 * 8 * 70_272
    assert kv_cache_bytes(a, tokens=1000, batch=1, kv_bytes=1) == 61 * 576 * 1000  # fp8 cache


def test_llama_4_chunked_layers_cap_their_cache():
    """Three of four layers attend within 8192-token chunks: at 100,000 tokens of context, 12 layers
    hold them all and 36 hold one chunk; each layer 8 key/value heads of 128, K and V, 2 bytes."""
    a = CAT.model("llama-4-scout-17b-16e")
    per_token_layer = 2 * 8 * 128 * 2
    assert kv_cache_bytes(a, 100_000, 1, 2) == per_token_layer * (12 * 100_000 + 36 * 8192)


# ----- weights and FLOPs --------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["deepseek-v3", "llama-4-maverick-17b-128e", "qwen3-235b-a22b"])
def test_the_weights_of_one_replica_are_every_parameter(model):
    a = CAT.model(model)
    assert stage_params(a, tp=1, pp=1, stage="only").total == pytest.approx(a.params, rel=1e-9)
    split = stage_params(a, tp=8, pp=1, stage="only")
    whole = a.layers * (7168 * 1536 + 7168 * 576) if a.mla else 0  # MLA's down projections on every rank
    assert split.total == pytest.approx((a.params - whole) / 8 + whole, rel=1e-9)


@pytest.mark.parametrize("model", ["deepseek-v3", "llama-4-maverick-17b-128e", "qwen3-30b-a3b", "mixtral-8x7b-v0.1"])
def test_a_forward_pass_multiplies_every_active_weight_once(model):
    """The GEMMs of a block, summed over the stack (dense and MoE blocks mixed by their counts), are
    2 FLOPs per active block weight per token: 2 x (active - embeddings - head - norms)."""
    a = CAT.model(model)
    m = 4096
    ops = layer_ops(a, Shape(tokens=m, seqs=1, context=1.0), tp=1, sp=False)
    gemms = a.layers * sum(o.flops for o in ops if o.kind == "matmul")
    norms = a.layers * a.norms_per_layer * a.hidden + (a.q_lora_rank + a.kv_lora_rank) * a.layers
    block_weights = (
        a.active_params
        - a.embedding_params
        - a.head_params
        - norms
        - (2 * a.qk_head_dim * a.layers if a.qk_norm else 0)
    )
    assert gemms == pytest.approx(2 * m * block_weights, rel=1e-9)


def test_mla_attention_flops():
    """Training/prefill attention per token per layer: 2 x context x (scores over 128 heads x 192,
    values over 128 heads x 128); DeepSeek-V3 forward over 4096 tokens by hand."""
    a = CAT.model("deepseek-v3")
    ctx = 2048.5
    dense = 2 * (a.active_params - a.embedding_params) * 4096
    attention = 2 * 4096 * ctx * (128 * 192 + 128 * 128) * 61
    assert forward_flops(a, 4096, ctx) == pytest.approx(dense + attention)


# ----- end to end -------------------------------------------------------------------------------------
def test_deepseek_v3_serves_on_eight_h200_in_fp8():
    est = make_estimate(
        {
            "model": "deepseek-v3",
            "task": "inference",
            "weights_dtype": "fp8",
            "kv_dtype": "bf16",
            "tp": 8,
            "concurrency": 16,
            "input_tokens": 2048,
            "output_tokens": 512,
        },
        {"gpu": "h200:8"},
    )
    mem = est.memory.per_gpu
    assert mem.kv_cache == pytest.approx(16 * 2560 * 70_272)  # the latent, whole on every rank
    assert 671e9 / 8 < mem.weights < 1.02 * 671e9 / 8 + 2 * 2 * 129280 * 7168 / 8  # fp8 blocks, 16-bit embeddings
    assert est.inference is not None and est.inference.decode_seconds_per_token > 0


def test_lora_on_latent_attention_names_its_targets():
    """PEFT's q_proj/v_proj default matches no linear of DeepSeek-V3: refused, not zero adapters."""
    from gpuwise.errors import UsageError
    from gpuwise.workload import build_workload

    with pytest.raises(UsageError, match=r"has no q_proj/v_proj.*q_a_proj"):
        build_workload({"model": "deepseek-v3", "task": "finetune", "method": "lora"}, CAT)
    job = build_workload(
        {"model": "deepseek-v3", "task": "finetune", "method": "lora", "lora_targets": ["q_b_proj", "kv_b_proj"]}, CAT
    )
    assert job.lora_targets == ("q_b_proj", "kv_b_proj")
