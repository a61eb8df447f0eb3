"""A fused-MoE call (a MoE layer's routed experts in one Triton kernel: vLLM's and SGLang's fused_moe)
takes, at small batches, a time beyond streaming its experts' weights: the engines' own kernel
benchmarks at batch 1 (engines.yaml triton-fused-moe-kernel-times), each checked here by hand."""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.compute import EXPERT_OPS, Shape, layer_ops
from gpuwise.estimate.engine import block_fp8_shortfall, fused_moe_call, step_model
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.serving import compute_dtype
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
QWEN3 = CAT.model("qwen3-30b-a3b")


def test_the_time_beyond_the_weights_is_the_published_kernel_time_less_its_reads():
    """Qwen3-30B-A3B's call at batch 1 reads 8 experts of 3 x 768 x 2048 bf16 weights (75.5 MB): on an
    A100-PCIE-40GB (1,555 GB/s at 80 %) 60.7 us of its published 109.21 us, 48.5 us beyond; the same
    call on a B200 (8 TB/s at 80 %) reads them in 11.8 us of 39.61 us, 27.8 us beyond. Hopper's two
    (H100 29.45 us over 7.9 MB of FP8 experts, H200 31.70 us over 18.9 MB) are 26.5 and 26.8 us beyond,
    and the median of the three newer ones, 26.8 us, is the default."""
    experts = 8 * 3 * 768 * 2048 * 2
    assert experts == pytest.approx(75.5e6, rel=1e-3)
    assert 109.21e-6 - experts / (0.8 * 1555e9) == pytest.approx(48.5e-6, abs=0.1e-6)
    assert 39.61e-6 - experts / (0.8 * 8000e9) == pytest.approx(27.8e-6, abs=0.1e-6)
    assert pytest.approx(26.5e-6, abs=0.1e-6) == 29.45e-6 - 10 * 3 * 128 * 2048 / (0.8 * 3350e9)
    assert pytest.approx(26.8e-6, abs=0.1e-6) == 31.70e-6 - 8 * 3 * 192 * 4096 / (0.8 * 4800e9)
    vllm, sglang = CAT.engine("vllm"), CAT.engine("sglang")
    assert fused_moe_call(vllm, QWEN3, "ampere") == pytest.approx(48.5e-6)
    assert fused_moe_call(vllm, QWEN3, "hopper") == fused_moe_call(vllm, QWEN3, "blackwell") == pytest.approx(26.8e-6)
    assert fused_moe_call(sglang, QWEN3, "hopper") == pytest.approx(26.8e-6)
    assert fused_moe_call(sglang, QWEN3, "blackwell") == 0.0  # other MoE backends there: not measured
    assert fused_moe_call(CAT.engine("trtllm"), QWEN3, "hopper") == 0.0  # its CUTLASS MoE: not measured
    assert fused_moe_call(vllm, CAT.model("llama-3.1-8b"), "hopper") == 0.0  # a dense model has no call


def _step(engine: str, model: str, gpu: str, table: dict[str, float] | None = None) -> Any:
    spec = {"model": model, "task": "inference", "engine": engine, "weights_dtype": "bf16", "kv_dtype": "bf16"}
    job = build_workload(spec | {"input_tokens": 128, "output_tokens": 1024, "concurrency": 1}, CAT)
    hw = build_hardware(f"{gpu}:1", CAT)
    cat = CAT
    if table is not None:
        cat = replace(CAT, engines={**CAT.engines, engine: replace(CAT.engine(engine), fused_moe_call_seconds=table)})
    return step_model(job, compute_rates(hw.gpu, "bf16", cat), topology(hw, cat), cat)


def test_each_moe_layer_pays_its_call_once_a_step():
    """Qwen3-30B-A3B has 48 MoE layers: a one-request decode step under vLLM on an A100 carries
    48 x 48.5 us = 2.328 ms more than the same step without the kernel's time; a dense model nothing."""
    with_call = _step("vllm", "qwen3-30b-a3b", "a100-80gb-sxm")
    without = _step("vllm", "qwen3-30b-a3b", "a100-80gb-sxm", table={})
    assert QWEN3.moe_layers == 48
    assert with_call.fixed(1, 1) - without.fixed(1, 1) == pytest.approx(48 * 48.5e-6)
    terms = with_call.decode_terms(1, 1000)
    assert terms["memory-bandwidth"] - without.decode_terms(1, 1000)["memory-bandwidth"] == pytest.approx(48 * 48.5e-6)
    dense = _step("vllm", "llama-3.1-8b", "a100-80gb-sxm")
    assert dense.fixed(1, 1) == _step("vllm", "llama-3.1-8b", "a100-80gb-sxm", table={}).fixed(1, 1)


def test_published_block_fp8_kernel_times_against_the_model_of_the_call():
    """The fused-MoE kernel times published for block-FP8 experts on Hopper at 16 to 64 tokens, over the step
    model's own estimate of the same call (the routed-expert ops of a model of that shape at those tokens, FP8
    weights, on the rates of the GPU, plus the call's 26.8 us): per source 0.91 x (vLLM PR #36559,
    Qwen3-Next-80B-A3B-FP8 at TP2 on an H200), 1.02 x (SGLang PR #11730, Qwen3-235B-A22B FP8 at TP8 on an
    H200), 1.29 x (FlagGems PR #4434, vLLM 0.20.2's kernel for Mixtral-8x7B block-FP8 on an H20) and 0.60 x
    (bytedance-iaas/sglang PR #733, DeepSeek-V4-Flash's shape on an H20, where the model counts 192 and 256
    experts and uniform routing touches 136 and 174): a median of 0.97 x, so the model keeps the experts at
    the bandwidth rate (docs/time-model.md)."""

    def ratio(e: int, k: int, hidden: int, width: int, tokens: int, seconds: float, gpu: str) -> float:
        model = replace(QWEN3, experts=e, experts_per_token=k, hidden=hidden, ffn=width)  # every layer MoE
        rates = compute_rates(CAT.gpu(gpu), "fp8", CAT)
        shape = Shape(tokens=tokens, seqs=1, context=0.0, weight_bytes=1)
        ops = [op for op in layer_ops(model, shape, 1, sp=False) if op.name in EXPERT_OPS]
        reads = sum(rates.time(op.flops, op.bytes, op.kind) for op in ops)
        return seconds / (reads + fused_moe_call(CAT.engine("vllm"), model, "hopper"))

    qwen3_next = [ratio(512, 10, 2048, 256, m, t, "h200") for m, t in ((16, 93.03e-6), (32, 130.30e-6))]
    qwen3_235b = [ratio(128, 8, 4096, 192, m, t, "h200") for m, t in ((16, 92.36e-6), (32, 124.99e-6))]
    mixtral = [ratio(8, 2, 4096, 14336, m, t, "h20") for m, t in ((16, 0.602e-3), (32, 0.607e-3), (64, 0.846e-3))]
    v4_flash = [ratio(256, 6, 4096, 512, m, t, "h20") for m, t in ((32, 248.90e-6), (48, 316.15e-6))]
    per_source = [statistics.median(s) for s in (qwen3_next, qwen3_235b, mixtral, v4_flash)]
    assert [round(x, 2) for x in per_source] == [0.91, 1.02, 1.29, 0.60]
    assert statistics.median(per_source) == pytest.approx(0.97, abs=0.005)


def test_vllm_holds_block_fp8_gemms_to_their_floor_but_not_the_experts_in_the_fused_call():
    """vLLM's block-FP8 GEMM floor (23.3 us a kernel) binds DeepSeek-V3's dense GEMMs at one token on 8 H200;
    its routed experts run in the fused-MoE call, timed with its own floor (26.8 us beyond its reads, from
    whole published calls), and are not held to the GEMM floor a second time: the step is that much shorter."""
    spec = {"model": "deepseek-v3", "task": "inference", "engine": "vllm", "weights_dtype": "fp8", "kv_dtype": "bf16"}
    job = build_workload(spec | {"input_tokens": 128, "output_tokens": 256, "concurrency": 1, "tp": 8}, CAT)
    hw = build_hardware("h200:8", CAT)
    rates = compute_rates(hw.gpu, compute_dtype(job, hw.gpu.peak_flops, CAT), CAT)
    step = step_model(job, rates, topology(hw, CAT), CAT)
    shape = Shape(tokens=1, seqs=1, context=0.0, weight_bytes=step.w_bytes, kv_bytes=step.kv_bytes)
    ops = [op for op in layer_ops(step.model, shape, 8, sp=False) if op.name != "attention"]
    experts = [op for op in ops if op.name in EXPERT_OPS]
    layers = step.model.layers
    held = block_fp8_shortfall(experts, step.model, step.rates, 23.3e-6, layers)
    assert held > 0  # alone, the experts' two kernels would be held to the GEMM floor
    assert block_fp8_shortfall(experts, step.model, step.rates, 23.3e-6, layers, fused_experts=True) == 0.0
    assert block_fp8_shortfall(ops, step.model, step.rates, 23.3e-6, layers, fused_experts=True) > 0  # dense ones
    assert step.moe_call == pytest.approx(26.8e-6)
    # against vLLM without the call's time: the experts held to the GEMM floor instead, no call
    no_call = replace(CAT, engines={**CAT.engines, "vllm": replace(CAT.engine("vllm"), fused_moe_call_seconds={})})
    plain = step_model(job, rates, topology(hw, no_call), no_call)
    doubled = block_fp8_shortfall(ops, step.model, step.rates, step.fp8_floor, layers)
    once = block_fp8_shortfall(ops, step.model, step.rates, step.fp8_floor, layers, fused_experts=True)
    moe_layers = layers * step.model.moe_layers / step.model.layers
    got = step.linear_terms(1, 1)["memory-bandwidth"] - plain.linear_terms(1, 1)["memory-bandwidth"]
    assert got == pytest.approx(moe_layers * 26.8e-6 - (doubled - once), rel=1e-9)
    assert doubled - once == pytest.approx(held)
