"""A fused-MoE call (a MoE layer's routed experts in one Triton kernel: vLLM's and SGLang's fused_moe)
takes, at small batches, a time beyond streaming its experts' weights: the engines' own kernel
benchmarks at batch 1 (engines.yaml triton-fused-moe-kernel-times), each checked here by hand."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import fused_moe_call, step_model
from gpuwise.estimate.rates import compute_rates
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
