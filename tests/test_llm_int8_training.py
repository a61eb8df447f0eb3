"""LoRA on a bitsandbytes LLM.int8 base: what its int8 linears add to a training step (memory-bound
quantization and dequantization passes, and an fp32 input-gradient GEMM under PEFT's k-bit preparation)."""

from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.training import _llm_int8_seconds
from gpuwise.workload import TrainingJob


def test_int8_linears_add_their_quantization_passes_by_hand():
    """Llama-2-7B at 896 tokens, fp16, full recomputation (two forwards). Per layer its seven int8
    linears take 6 x 4096 + 11008 = 35,584 input and 4 x 4096 + 2 x 11008 + 4096 = 42,496 output
    elements a token: a forward quantizes the inputs (read 2 B, write two int8 copies: 4 B) and
    dequantizes the int32 outputs (read 4 B, write 2 B): 896 x (35,584 x 4 + 42,496 x 6) = 355,991,552
    B, twice; the backward dequantizes the 202,375,168 weights (read 1 B, write 2 B): 607,125,504 B."""
    catalog = load_catalog()
    rates = compute_rates(catalog.gpu("rtx-3090"), "fp16", catalog)
    job = TrainingJob(
        model=catalog.model("llama-2-7b"), method="lora", weights_dtype="int8", precision="fp16", recompute="full"
    )
    notes: list[str] = []
    expected = (2 * 355_991_552 + 607_125_504) / rates.bandwidth
    assert _llm_int8_seconds(job, 896, rates, catalog, notes) == pytest.approx(expected, rel=1e-12)
    assert any("LLM.int8" in n for n in notes)
    assert _llm_int8_seconds(replace(job, weights_dtype="bf16"), 896, rates, catalog, []) == 0.0


def test_the_kbit_preparation_computes_the_input_gradient_in_fp32():
    """Under --kbit-fp32-upcast the stream is fp32 (4 B a pass) and the input gradient's GEMM runs at the
    fp32 rate: it adds the 16-bit GEMM's time times (16-bit rate / fp32 rate - 1), more than the fp32
    passes alone, and so more on a V100 (125 against 15.7 TFLOP/s) than the passes would."""
    catalog = load_catalog()
    rates = compute_rates(catalog.gpu("v100-32gb-sxm"), "fp16", catalog)
    job = TrainingJob(
        model=catalog.model("llama-2-7b"), method="lora", weights_dtype="int8", precision="fp16", recompute="full"
    )
    plain = _llm_int8_seconds(job, 8192, rates, catalog, [])
    up = _llm_int8_seconds(replace(job, kbit_fp32_upcast=True), 8192, rates, catalog, [])
    gemm = rates.time(2.0 * 8192 * 202_375_168, 0.0, "matmul")
    ratio = rates.matmul / compute_rates(catalog.gpu("v100-32gb-sxm"), "fp32", catalog).matmul
    assert ratio > 4
    assert up > plain + gemm * (ratio - 1) * 0.99
