"""LoRA on a bitsandbytes LLM.int8 base: what its int8 linears add to a training step (memory-bound
casts, quantization and dequantization passes, and an fp32 input-gradient GEMM under PEFT's k-bit
preparation), as bitsandbytes 0.45 and later run MatMul8bitLt for a frozen weight."""

from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.training import _llm_int8_seconds
from gpuwise.workload import TrainingJob

INS = 6 * 4096 + 11008  # Llama-2-7B: q, k, v, o, gate, up take 4096 inputs a token, down 11008
OUTS = 4 * 4096 + 2 * 11008 + 4096  # q, k, v, o write 4096, gate and up 11008, down 4096
WEIGHTS = 202_375_168  # 4 x 4096^2 + 3 x 4096 x 11008


def _job(catalog):
    return TrainingJob(
        model=catalog.model("llama-2-7b"), method="lora", weights_dtype="int8", precision="fp16", recompute="full"
    )


def test_int8_linears_add_their_passes_by_hand():
    """fp16 stream, 896 tokens, full recomputation (two forwards): a forward quantizes each input (read
    2 B, write 1 B) and dequantizes each int32 output (read 4 B, write 2 B): 896 x (35,584 x 3 + 42,496 x 6)
    = 324,108,288 B, twice; the backward copies each weight to fp16 and scales it in place (1 + 2 + 2 + 2
    B): 1,416,626,176 B. No fp32 GEMM without the k-bit preparation; no passes on a 16-bit base."""
    catalog = load_catalog()
    rates = compute_rates(catalog.gpu("rtx-3090"), "fp16", catalog)
    assert 896 * (INS * 3 + OUTS * 6) == 324_108_288 and WEIGHTS * 7 == 1_416_626_176
    notes: list[str] = []
    expected = (2 * 324_108_288 + 1_416_626_176) / rates.bandwidth
    assert _llm_int8_seconds(_job(catalog), 896, rates, catalog, notes) == pytest.approx(expected, rel=1e-12)
    assert any("LLM.int8" in n for n in notes) and not any("fp32" in n for n in notes)
    assert _llm_int8_seconds(replace(_job(catalog), weights_dtype="bf16"), 896, rates, catalog, []) == 0.0


def test_the_kbit_preparation_casts_and_computes_the_input_gradient_in_fp32():
    """Under --kbit-fp32-upcast the stream is fp32: each input is cast to fp16 first (read 4, write 2) and
    each output cast back (read 2, write 4): 9 B an input element, 12 an output one; the weight copy is
    fp32 (1 + 3 x 4 B); and the input-gradient GEMM takes its fp32 time less its fp16 time (V100: 15.7
    against 125 TFLOP/s peak), counted as the difference, not as a multiple, so at a few tokens, where both
    GEMMs stream their weights, it adds about the weights' extra bytes only."""
    catalog = load_catalog()
    gpu = catalog.gpu("v100-32gb-sxm")
    rates, wide = compute_rates(gpu, "fp16", catalog), compute_rates(gpu, "fp32", catalog)
    up = replace(_job(catalog), kbit_fp32_upcast=True)
    for tokens in (8192, 16):
        moved = tokens * (INS + OUTS) + WEIGHTS
        gemm = wide.time(2 * tokens * WEIGHTS, 4 * moved) - rates.time(2 * tokens * WEIGHTS, 2 * moved)
        passes = (2 * tokens * (INS * 9 + OUTS * 12) + WEIGHTS * 13) / rates.bandwidth
        assert _llm_int8_seconds(up, tokens, rates, catalog, []) == pytest.approx(passes + gemm, rel=1e-12)
    assert wide.time(2 * 8192 * WEIGHTS, 0.0) > 4 * rates.time(2 * 8192 * WEIGHTS, 0.0)  # compute-bound: fp32 slow
    small = wide.time(2 * 16 * WEIGHTS, 4 * WEIGHTS) - rates.time(2 * 16 * WEIGHTS, 2 * WEIGHTS)
    assert small < 1.5 * 2 * WEIGHTS / min(rates.bandwidth_of("matmul"), wide.bandwidth_of("matmul"))
