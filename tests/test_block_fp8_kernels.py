"""Block-scaled FP8 checkpoints served by vLLM on Hopper: the checkpoint's block size read from its
`quantization_config`, and each block-FP8 GEMM kernel of a decode step held to the least time
vLLM's kernels were measured to take at decode sizes (vLLM PR #23280: 23.3 us for DeepSeek-V3's
2112 x 7168 GEMM on an H100 whether 1 or 16 rows), each against a figure computed by hand."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.catalog.hf_import import arch_from_hf_config
from gpuwise.errors import ConfigError
from gpuwise.estimate.comm import topology
from gpuwise.estimate.compute import Op
from gpuwise.estimate.engine import StepModel, block_fp8_shortfall
from gpuwise.estimate.rates import Rates, compute_rates
from gpuwise.workload import InferenceJob, build_hardware, build_workload

CAT = load_catalog()
FLOOR = 23.3e-6  # 2 x 2112 x 7168 FLOPs / 1.298 TFLOP/s: vLLM's Triton block-FP8 kernel at 1 row on H100
R1 = {"model": "deepseek-r1", "task": "inference", "engine": "vllm", "weights_dtype": "fp8", "kv_dtype": "bf16"}
C4 = {"input_tokens": 228, "output_tokens": 213, "concurrency": 4}


def _config(**quant: Any) -> dict[str, Any]:
    cfg = {
        "model_type": "llama",
        "hidden_size": 1024,
        "intermediate_size": 4096,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "vocab_size": 1000,
    }
    return {**cfg, "quantization_config": quant} if quant else cfg


def test_the_floor_is_the_published_kernel_time():
    """1.298 TFLOP/s for 2 x 1 x 2112 x 7168 FLOPs is 23.3 us; the engine profile holds that figure."""
    published = 2 * 2112 * 7168 / 1.298436e12
    assert published == pytest.approx(FLOOR, rel=1e-3)
    assert CAT.engine("vllm").block_fp8_gemm_seconds == pytest.approx(FLOOR)
    assert CAT.engine("trtllm").block_fp8_gemm_seconds == 0.0  # TensorRT-LLM's kernels: not measured here


def test_block_size_is_read_from_the_quantization_config():
    """DeepSeek-V3's config: quant_method fp8, weight_block_size [128, 128]; per-tensor FP8 (no block
    size) and unquantized checkpoints have none; a malformed block size is refused."""
    assert arch_from_hf_config(_config(quant_method="fp8", weight_block_size=[128, 128])).fp8_weight_block == 128
    assert arch_from_hf_config(_config(quant_method="fp8")).fp8_weight_block == 0
    assert arch_from_hf_config(_config(quant_method="gptq", weight_block_size=[128, 128])).fp8_weight_block == 0
    assert arch_from_hf_config(_config()).fp8_weight_block == 0
    assert CAT.model("deepseek-r1").fp8_weight_block == 128
    assert CAT.model("llama-3.1-8b").fp8_weight_block == 0
    with pytest.raises(ConfigError, match="weight_block_size"):
        arch_from_hf_config(_config(quant_method="fp8", weight_block_size=[128, "128"]))


def test_shortfall_of_each_gemm_below_the_floor_by_its_blocks_share():
    """DeepSeek-R1: 61 layers, 58 MoE, 3 dense. With a floor of 20 us at 1 TB/s (a GEMM's time = its
    bytes / 1e12): q_a at 4 us adds 16 us in every layer; kv_a runs inside q_a's kernel (0); the routed
    experts' up GEMM, 10 us as the mean over the stack, adds 58/61 x 20 - 10 = 9.0164 us; the dense
    MLP's up GEMM, 0.1 us as the mean, adds 3/61 x 20 - 0.1 = 0.8836 us; the o projection at 30 us is
    above the floor (0); the router and the head stay 16-bit (0). Per step: 61 x 25.9 us."""
    model = CAT.model("deepseek-r1")
    gpu = CAT.gpu("h200")
    rates = Rates(gpu=gpu, dtype="fp8", peak=1e15, matmul=1e15, attention=1e15, bandwidth=1e12, notes=())
    us = 1e-6

    def op(name: str, seconds: float) -> Op:
        return Op(name, 1.0, seconds * 1e12, "matmul")

    ops = [
        op("q_a_proj", 4 * us),
        op("kv_a_proj_with_mqa", 1 * us),
        op("experts_up", 10 * us),
        op("mlp_up", 0.1 * us),
        op("attn_out", 30 * us),
        op("router", 0.5 * us),
    ]
    per_layer = 16 + (58 / 61 * 20 - 10) + (3 / 61 * 20 - 0.1)
    assert per_layer == pytest.approx(25.9, abs=1e-9)
    assert block_fp8_shortfall(ops, model, rates, 20 * us, 61) == pytest.approx(61 * per_layer * us, rel=1e-12)


def _step(gpu: str = "h200:8", **opts: Any) -> StepModel:
    job = build_workload({**R1, **C4, "tp": 8, **opts}, CAT)
    assert isinstance(job, InferenceJob)
    hw = build_hardware(gpu, CAT)
    return StepModel(job, compute_rates(hw.gpu, "fp8", CAT), topology(hw, CAT), CAT)


def test_a_decode_step_takes_at_least_its_block_fp8_kernels():
    """A decode step of 4 requests: every MoE layer runs 8 block-FP8 GEMM kernels (q_a with kv_a, q_b,
    kv_b, o, the shared expert's two, the routed experts' two grouped ones), each dense layer 6 (the
    four attention ones and the MLP's two): 58 x 8 + 3 x 6 = 482 kernels of at least 23.3 us, 11.23 ms,
    where the weights' roofline alone gave about 3.5 ms."""
    kernels = 58 * 8 + 3 * 6
    step = _step()
    assert step.fp8_floor == pytest.approx(FLOOR)
    terms = step.linear_terms(4, 4)
    assert kernels * FLOOR == pytest.approx(11.23e-3, rel=1e-3)
    assert terms["memory-bandwidth"] >= kernels * FLOOR
    unfloored = _step(engine="trtllm").linear_terms(4, 4)  # TensorRT-LLM: no floor, the roofline
    assert unfloored["memory-bandwidth"] < 4e-3


@pytest.mark.parametrize(
    ("gpu", "opts"),
    [("b200:8", {}), ("h200:8", {"weights_dtype": "bf16"}), ("h200:8", {"model": "deepseek-r1", "engine": "sglang"})],
)
def test_the_floor_applies_only_where_it_was_measured(gpu: str, opts: dict[str, Any]):
    """Measured on Hopper, for vLLM's kernels, on a block-FP8 checkpoint served in fp8: a Blackwell GPU,
    16-bit weights and another engine keep the roofline."""
    assert _step(gpu, **opts).fp8_floor == 0.0


def test_the_estimate_says_so():
    est = make_estimate({**R1, **C4, "tp": 8}, {"gpu": "h200:8"})
    assert any("block-FP8 GEMM kernels that take at least 23.3 us" in note for note in est.notes)
    assert est.inference is not None and est.inference.decode_seconds_per_token >= 482 * FLOOR
    plain = make_estimate({**R1, **C4, "tp": 8, "engine": "trtllm"}, {"gpu": "h200:8"})
    assert not any("block-FP8" in note for note in plain.notes)


def test_a_dense_block_fp8_model_leaves_the_affine_fast_path():
    """The affine step coefficients of dense models carry no floor: a dense block-FP8 model is timed op by
    op, so its floor applies (a Llama 3.1 8B given DeepSeek's 128 x 128 FP8 blocks)."""
    base = CAT.model("llama-3.1-8b")
    blocked = replace(base, fp8_weight_block=128)
    job = build_workload({**R1, **C4, "model": "llama-3.1-8b", "tp": 1}, CAT)
    assert isinstance(job, InferenceJob)
    hw = build_hardware("h200:1", CAT)
    rates, topo = compute_rates(hw.gpu, "fp8", CAT), topology(hw, CAT)
    plain = StepModel(job, rates, topo, CAT)
    step = StepModel(replace(job, model=blocked), rates, topo, CAT)
    # 32 layers x 4 kernels (qkv, o, gate-up, down) of at least 23.3 us: 2.98 ms, where the 7 GB of fp8
    # block weights stream in about 2 ms at H200's rate; the 16-bit LM head (1.05 GB) and the rest add
    # the same to both, so the floor shows as the difference
    floored = step.linear(4, 4)
    assert floored >= 32 * 4 * FLOOR
    assert floored - plain.linear(4, 4) > 0.1 * floored
