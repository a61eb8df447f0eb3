"""bitsandbytes 4-bit weights as transformers loads them with load_in_4bit=True (--bnb-4bit load-in-4bit):
FP4 codes with one fp32 absmax per 64 weights (no double quantization) and an fp32 compute dtype, so a
forward over more than one row dequantizes each weight to 16 bits and copies it to fp32 (bitsandbytes'
MatMul4Bit). Hand-computed on Llama 2 7B (32 layers, hidden 4096, 32 heads, FFN 11008, vocabulary 32000)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate
from gpuwise.estimate.memory.generate import fp32_dequant_bytes
from gpuwise.workload import build_hardware, build_workload

from .conftest import run_process

CAT = load_catalog()
LLAMA7B = CAT.model("llama-2-7b")
BLOCK_LINEAR = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)  # q, k, v, o and the three MLP matrices


def _estimate(bnb: str, prompt: int, out: int, batch: int = 1) -> Any:
    spec = {"model": "llama-2-7b", "task": "inference", "engine": "transformers", "input_tokens": prompt}
    spec |= {"output_tokens": out, "concurrency": batch, "weights_dtype": "nf4", "kv_dtype": "fp16", "bnb_4bit": bnb}
    return estimate(build_workload(spec, CAT), build_hardware("a100-80gb-sxm:1", CAT), CAT)


def test_the_largest_linear_in_fp32_is_the_down_projection():
    """512 rows: down_proj (11008 -> 4096) holds its fp32 input 512 x 11008 x 4, the fp32 weight
    45,088,768 x 4 and, while copying, the 16-bit weight x 2 (more than its fp32 output 512 x 4096 x 4);
    gate/up hold the same weight with a smaller input (512 x 4096 x 4)."""
    w = 4096 * 11008
    down = 512 * 11008 * 4 + w * 4 + w * 2
    assert fp32_dequant_bytes(LLAMA7B, 512, 1) == pytest.approx(down)
    assert down > 512 * 4096 * 4 + w * 4 + w * 2  # gate and up
    # one row runs gemv_4bit on the packed weight: nothing dequantized
    assert fp32_dequant_bytes(LLAMA7B, 1, 1) == 0.0


def test_load_in_4bit_adds_the_single_quant_absmax_and_the_fp32_dequant():
    """Against the QLoRA recipe on the same run (512-token prompt, one output token): the weights grow by
    the absmax without double quantization, (0.5 - 0.127) / 8 bytes per block-linear weight; the prefill
    peak grows by the down projection's fp32 transient."""
    qlora, loaded = _estimate("qlora", 512, 1), _estimate("load-in-4bit", 512, 1)
    extra_weights = BLOCK_LINEAR * (0.5 - 0.127) / 8
    assert loaded.memory.per_gpu.weights - qlora.memory.per_gpu.weights == pytest.approx(extra_weights)
    w = 4096 * 11008
    dequant = 512 * 11008 * 4 + w * 6
    assert loaded.memory.per_gpu.activations - qlora.memory.per_gpu.activations == pytest.approx(dequant)
    assert any("load_in_4bit=True" in a for a in loaded.memory.assumptions)


def test_batched_decode_steps_dequantize_too():
    """Four requests decode four rows a step, so every step runs MatMul4Bit as well: with a one-token
    prompt the prefill holds four rows, the same transient as a step."""
    a = _estimate("load-in-4bit", 1, 8, batch=4)
    b = _estimate("qlora", 1, 8, batch=4)
    w = 4096 * 11008
    step = 4 * 11008 * 4 + w * 6
    gap = a.memory.per_gpu.activations + a.memory.per_gpu.kv_cache
    gap -= b.memory.per_gpu.activations + b.memory.per_gpu.kv_cache
    assert gap == pytest.approx(step)


def test_bnb_4bit_is_refused_where_it_means_nothing():
    base = ("--model", "llama-2-7b", "--task", "inference", "--gpu", "a100-80gb-sxm:1")
    not_nf4 = run_process("estimate", *base, "--bnb-4bit", "load-in-4bit")
    assert not_nf4.returncode == 2 and "--weights-dtype nf4" in not_nf4.stderr
    server = run_process("estimate", *base, "--weights-dtype", "nf4", "--bnb-4bit", "load-in-4bit")
    assert server.returncode == 2 and "generate loop" in server.stderr
    ok = run_process(
        "estimate", *base, "--weights-dtype", "nf4", "--bnb-4bit", "load-in-4bit", "--engine", "transformers"
    )
    assert ok.returncode == 0, ok.stderr


def test_eager_scores_and_the_fp32_dequant_are_not_alive_together():
    """One 512-token prompt under eager attention (fp16 activations): the score matrix's transients,
    32 x 512 x 512 scores of 8 bytes at the softmax's worst (the 16-bit scores, their fp32 softmax and
    its 16-bit cast) plus the 512 x 512 causal mask, and later in the layer the softmaxed weights the
    decoder layer still holds (2 bytes a score) beside the down projection's fp32 dequantization
    (512 x 11008 x 4 + 45,088,768 x 6). The larger of the two moments, not their sum, is above the QLoRA
    recipe's peak (bf16 compute, nothing dequantized: the score matrix's moment)."""

    def run(bnb: str) -> Any:
        spec = {"model": "llama-2-7b", "task": "inference", "engine": "transformers", "input_tokens": 512}
        spec |= {"output_tokens": 1, "concurrency": 1, "weights_dtype": "nf4", "kv_dtype": "fp16"}
        spec |= {"bnb_4bit": bnb, "attention": "eager"}
        return estimate(build_workload(spec, CAT), build_hardware("a100-80gb-sxm:1", CAT), CAT)

    elements = 32 * 512 * 512
    scores = elements * 8 + 512 * 512 * 2
    held = elements * 2 + 512 * 11008 * 4 + 4096 * 11008 * 6
    assert held > scores
    loaded, qlora = run("load-in-4bit"), run("qlora")
    assert loaded.memory.per_gpu.activations - qlora.memory.per_gpu.activations == pytest.approx(held - scores)
