"""Per-tensor FP8 GEMMs at decode sizes: the engine's own linear layer takes more than half the 16-bit
GEMM's time (NVIDIA aiconfigurator's measured vLLM 0.24.0 and SGLang 0.5.14 tables, engines.yaml
aiconfigurator-fp8-gemm-tables), so FP8 weights stream below the 16-bit kernels' rate; checked by hand."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import fp8_gemm_share, step_model
from gpuwise.estimate.rates import compute_rates
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
FP8 = {"weights_dtype": "fp8", "precision": "fp8", "kv_dtype": "bf16"}


def _job(engine: str, model: str = "llama-3.1-8b", **extra: Any) -> Any:
    spec = {"model": model, "task": "inference", "engine": engine, "input_tokens": 128, "output_tokens": 1024}
    return build_workload(spec | FP8 | {"concurrency": 1} | extra, CAT)


def _step(engine: str, gpu: str, table: dict[str, float] | None = None) -> Any:
    hw = build_hardware(f"{gpu}:1", CAT)
    cat = CAT
    if table is not None:
        cat = replace(CAT, engines={**CAT.engines, engine: replace(CAT.engine(engine), fp8_gemm_time_share=table)})
    return step_model(_job(engine), compute_rates(hw.gpu, "fp8", cat), topology(hw, cat), cat)


def test_the_measured_shares_by_engine_and_gpu():
    vllm, sglang, trtllm = CAT.engine("vllm"), CAT.engine("sglang"), CAT.engine("trtllm")
    h100, h200, h100_pcie = CAT.gpu("h100-sxm"), CAT.gpu("h200"), CAT.gpu("h100-pcie")
    assert fp8_gemm_share(vllm, _job("vllm"), h100) == 0.627
    assert fp8_gemm_share(vllm, _job("vllm"), h200) == 0.711
    assert fp8_gemm_share(sglang, _job("sglang"), h100) == 0.606
    assert fp8_gemm_share(vllm, _job("vllm"), h100_pcie) == 0.627  # other Hopper GPUs: the H100 SXM table
    assert (
        fp8_gemm_share(trtllm, _job("trtllm"), h100) == 0.0
    )  # its tables time the PyTorch flow, not the fit's engines
    assert fp8_gemm_share(vllm, _job("vllm"), CAT.gpu("a100-80gb-sxm")) == 0.0  # no FP8 tensor cores
    assert fp8_gemm_share(vllm, _job("vllm", weights_dtype="bf16", precision="bf16"), h100) == 0.0
    assert fp8_gemm_share(vllm, _job("vllm", model="qwen3-30b-a3b"), h100) == 0.0  # experts: fused-MoE kernels
    block = _job("sglang")
    block = replace(block, model=replace(block.model, fp8_weight_block=128))  # a block-scaled checkpoint
    for gpu in (h100, h200, CAT.gpu("b200")):  # its own kernels (block_fp8_floor), not the per-tensor table
        assert fp8_gemm_share(sglang, block, gpu) == fp8_gemm_share(vllm, block, gpu) == 0.0


def test_fp8_weights_stream_at_half_over_the_share_of_the_16_bit_rate():
    """vLLM on an H100 SXM: 0.627 x the 16-bit time for half the bytes, so FP8 weights stream at
    0.5 / 0.627 = 79.7 % of the rate the 16-bit GEMMs reach; a decode step's weight reads grow by
    0.627 / 0.5 = 1.254, its other terms stay."""
    measured, plain = _step("vllm", "h100-sxm"), _step("vllm", "h100-sxm", table={})
    assert measured.w_bytes == pytest.approx(plain.w_bytes * 0.627 / 0.5)  # 1 B streamed as 1.254 B
    assert measured.rates.matmul_bandwidth == plain.rates.matmul_bandwidth
    a, b = measured.linear_terms(1, 1), plain.linear_terms(1, 1)
    assert a["memory-bandwidth"] > b["memory-bandwidth"]
    # the block linears' FP8 weights only (their one-token activations, 0.1 % of the bytes, do not grow):
    # the LM head stays 16-bit and streams as it did
    weights = sum(_matmul_bytes(plain, head=False))
    assert a["memory-bandwidth"] - b["memory-bandwidth"] == pytest.approx(
        weights / plain.rates.bandwidth_of("matmul") * (0.627 / 0.5 - 1), rel=2e-3
    )
    assert _matmul_bytes(measured, layers=False) == _matmul_bytes(plain, layers=False)


def test_the_lm_head_of_a_quantized_checkpoint_streams_16_bit_weights():
    """Llama 3.1 8B: its 128,256 x 4,096 head is 1.05 GB at 16 bits whatever the block linears' dtype
    (quantized checkpoints and engines leave lm_head unquantized); fp32 weights keep theirs."""
    from gpuwise.estimate.compute import Shape, head_ops

    model = CAT.model("llama-3.1-8b")
    for w_bytes, head_bytes in ((1, 2), (0.5, 2), (2, 2), (4, 4)):
        shape = Shape(tokens=1, seqs=1, context=0.0, weight_bytes=w_bytes)
        (head,) = [op for op in head_ops(model, shape, 1, 1) if op.name == "lm_head"]
        acts = 2 * (4096 + 128256)  # one token's 16-bit input row and logits row
        assert head.bytes == head_bytes * 128256 * 4096 + acts


def _matmul_bytes(step: Any, layers: bool = True, head: bool = True) -> list[float]:
    """The bytes of one token's memory-bound GEMMs over the whole model (its layers', its LM head's)."""
    from gpuwise.estimate.compute import Shape, head_ops, layer_ops

    shape = Shape(tokens=1, seqs=1, context=0.0, weight_bytes=step.w_bytes, kv_bytes=step.kv_bytes)
    ops = [op for op in layer_ops(step.model, shape, 1, sp=False) if op.name != "attention" and op.kind == "matmul"]
    heads = [op for op in head_ops(step.model, shape, 1, 1) if op.kind == "matmul"]
    return [op.bytes * step.layers for op in ops if layers] + [op.bytes for op in heads if head]


def test_the_estimate_names_the_measurement():
    est = make_estimate(
        {"model": "llama-3.1-8b", "task": "inference", "engine": "vllm", **FP8, "concurrency": 8}, {"gpu": "h100-sxm:1"}
    ).as_dict()
    assert any("per-tensor FP8 GEMMs at decode sizes take 0.63 x" in a for a in est["assumptions"])
    bf16 = make_estimate(
        {"model": "llama-3.1-8b", "task": "inference", "engine": "vllm", "concurrency": 8}, {"gpu": "h100-sxm:1"}
    ).as_dict()
    assert not any("per-tensor FP8 GEMMs" in a for a in bf16["assumptions"])
