"""Hugging Face transformers' generate as an LLM runtime (--engine transformers, transformers-v4.36, transformers-v4.35):
static batches, a contiguous cache grown by torch.cat, eager or SDPA attention, logits for every
prompt position before logits_to_keep. Hand-computed on Llama 2 7B (32 layers, hidden 4096, 32
heads, 32 KV heads, FFN 11008, vocabulary 32000)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import eager_kernels, step_model
from gpuwise.estimate.memory.generate import eager_score_bytes, score_matrix_peak
from gpuwise.estimate.rates import compute_rates
from gpuwise.workload import build_hardware, build_workload

from .conftest import run_process

CAT = load_catalog()
LLAMA7B = CAT.model("llama-2-7b")
KV_PER_TOKEN = 32 * 2 * 4096 * 2  # layers x (K and V) x width x fp16 bytes, one request
LOOPS = ("transformers", "transformers-v4.36", "transformers-v4.35")


def _estimate(engine: str, batch: int, prompt: int, out: int, **more: Any) -> Any:
    spec = {"model": "llama-2-7b", "task": "inference", "engine": engine, "input_tokens": prompt}
    spec |= {"output_tokens": out, "concurrency": batch, "weights_dtype": "fp16", "kv_dtype": "fp16", **more}
    return estimate(build_workload(spec, CAT), build_hardware("a100-80gb-sxm:1", CAT), CAT)


def test_eager_score_matrix_peak_by_dtype():
    """1 x 2 heads x 4 x 4 = 32 scores, S = 64 bytes in 16-bit, 128 in fp32; the mask 1 x 4 x 4 x 2
    = 32. bf16 converts to an fp32 copy before the softmax: S + 2 x 128 = 320; fp16 upcasts inside
    the kernel, and the cast back holds S + 128 + S = 256."""
    assert score_matrix_peak(1, 2, 4, "bf16") == 320 + 32
    assert score_matrix_peak(1, 2, 4, "fp16") == 256 + 32
    # traffic per score: write 2, scale 2 + 2, mask 2 + 2, softmax 2 + 4 (bf16: its fp32 copy written
    # and read, 4 + 4 more), cast back 4 + 2, PV 2
    assert eager_score_bytes("fp16") == 2 + 4 + 4 + 6 + 6 + 2
    assert eager_score_bytes("bf16") == eager_score_bytes("fp16") + 8


def test_v4_35_prefill_peak_is_the_eager_score_matrix():
    """16 x 1024 tokens, one output token (no decode step): the cache of 16 x 1024 tokens; the
    last layer's attention holds, in fp16, 4 S (S: the 16 x 32 x 1024^2 scores, 1 GiB) plus
    the mask 16 x 1024^2 x 2, plus the layer's activations 16384 x 2 x (2 x 4096 residual and
    norm, 3 x 4096 q, k and v, 3 x 11008 MLP); that beats the logits 16384 x 32000 x (2 + 4)."""
    est = _estimate("transformers-v4.35", 16, 1024, 1)
    s = 16 * 32 * 1024**2 * 2
    attention = 4 * s + 16 * 1024**2 * 2 + 16384 * 2 * (2 * 4096 + 3 * 4096 + 3 * 11008)
    assert est.memory.per_gpu.kv_cache == 16 * 1024 * KV_PER_TOKEN
    assert est.memory.per_gpu.activations == pytest.approx(attention)
    assert attention > 16384 * 32000 * 6


def test_sdpa_drops_the_score_matrix_and_logits_to_keep_the_full_logits():
    """With --attention flash the v4.35 peak is the fp16 and fp32 logits of every position; the
    current transformers (logits_to_keep) keeps the last position's, and the layer's activations
    are the peak."""
    flash = _estimate("transformers-v4.35", 16, 1024, 1, attention="flash")
    assert flash.memory.per_gpu.activations == pytest.approx(16384 * 32000 * (2 + 4))
    current = _estimate("transformers", 16, 1024, 1)
    assert current.memory.per_gpu.activations == pytest.approx(16384 * 2 * (2 * 4096 + 3 * 4096 + 3 * 11008))


def test_v4_36_is_sdpa_with_the_full_logits_and_the_tuple_caches():
    """transformers 4.36-4.41: SDPA by default (no score matrix), so the prefill peak is the 16-bit and
    fp32 logits of every position (16 x 1024 x 32000 x (2 + 4)) as under v4.35 with --attention flash;
    its first decode step holds the 1024-token cache beside the 1025-token one, with the prefill's fp32
    logits, as v4.35's tuples do; and its decode dispatches SDPA's 51 kernels a layer, not eager's 54."""
    prefill = _estimate("transformers-v4.36", 16, 1024, 1)
    assert prefill.memory.per_gpu.activations == pytest.approx(16384 * 32000 * (2 + 4))
    step = _estimate("transformers-v4.36", 16, 1024, 2)
    kept = 16 * 1024 * 32000 * 4 + 16 * 32000 * 6
    assert step.memory.per_gpu.activations == pytest.approx(16 * 1024 * KV_PER_TOKEN + kept)
    assert eager_kernels(CAT.engine("transformers-v4.36"), LLAMA7B, tp=1) == 51 * 32 + 30
    assert eager_kernels(CAT.engine("transformers-v4.35"), LLAMA7B, tp=1) == 54 * 32 + 30


def test_v4_35_first_decode_step_holds_two_caches_and_the_prefill_logits():
    """Two output tokens: the decode step builds the 1025-token cache while the 1024-token one and
    the prefill's fp32 logits (16 x 1024 x 32000 x 4) stay referenced, plus the step's own logits
    (16 x 32000 x 6); the final cache is the 1025-token one, the rest is the transient."""
    est = _estimate("transformers-v4.35", 16, 1024, 2, attention="flash")
    assert est.memory.per_gpu.kv_cache == 16 * 1025 * KV_PER_TOKEN
    kept = 16 * 1024 * 32000 * 4 + 16 * 32000 * 6
    assert est.memory.per_gpu.activations == pytest.approx(16 * 1024 * KV_PER_TOKEN + kept)


def test_the_memory_note_names_how_each_loop_grows_its_cache():
    """The note that says where a loop's peak is reads as a sentence under both profiles: the cache
    grown by torch.cat, the previous step's whole cache held beside it only under v4.35's tuples."""
    notes = {e: [a for a in _estimate(e, 4, 512, 16).memory.assumptions if "torch.cat" in a] for e in LOOPS}
    assert [n.split(";")[0] for n in notes["transformers"]] == [
        "Hugging Face transformers generate: a contiguous KV cache grown by torch.cat"
    ]
    assert [n.split(";")[0] for n in notes["transformers-v4.35"]] == [
        "Hugging Face transformers 4.35 generate: a contiguous KV cache grown by torch.cat (the previous step's "
        "whole cache held until the step returns)"
    ]


def test_static_batch_times_and_host_floor():
    """A static batch: throughput is the batch's tokens over its whole run, the request latency
    its prefill plus (out - 1) decode steps; every step takes at least its (42 - 2) x 32 + 50 host
    dispatches (Transformers v4.49's SDPA layer less repeat_kv's two copies, which Llama 2 7B's 32 KV
    heads do not launch; no CUDA graphs). Llama 3.1 8B groups its KV heads: 42 x 32 + 50."""
    h = CAT.convention("decode_host_seconds_eager")
    assert eager_kernels(CAT.engine("transformers"), LLAMA7B, tp=1) == (42 - 2) * 32 + 50
    assert eager_kernels(CAT.engine("transformers"), CAT.model("llama-3.1-8b"), tp=1) == 42 * 32 + 50
    inf = _estimate("transformers", 4, 512, 100).inference
    assert inf.decode_seconds_per_token >= ((42 - 2) * 32 + 50) * h
    assert inf.latency_seconds == pytest.approx(inf.time_to_first_token_seconds + 99 * inf.decode_seconds_per_token)
    assert inf.tokens_per_second == pytest.approx(4 * 100 / inf.latency_seconds)


def test_eager_prefill_and_concatenated_cache_cost_time():
    """Eager attention computes the whole square of scores and moves each through memory: its
    prefill is slower than SDPA's; a cache grown by torch.cat is read and written whole at every
    step on top of attention's read: a decode token costs 3 x the bytes per cached key of a paged
    engine."""
    eager = _estimate("transformers", 1, 4096, 2, attention="eager").inference
    flash = _estimate("transformers", 1, 4096, 2, attention="flash").inference
    assert eager.prefill_seconds > flash.prefill_seconds
    hw = build_hardware("a100-80gb-sxm:1", CAT)
    rates, topo = compute_rates(hw.gpu, "fp16", CAT), topology(hw, CAT)
    spec = {"model": "llama-2-7b", "task": "inference", "weights_dtype": "fp16", "kv_dtype": "fp16"}
    loop = step_model(build_workload(spec | {"engine": "transformers"}, CAT), rates, topo, CAT)
    paged = step_model(build_workload(spec | {"engine": "vllm"}, CAT), rates, topo, CAT)
    assert loop.decode_per_key == pytest.approx(3 * paged.decode_per_key)


def test_cli_accepts_the_loop_and_refuses_what_does_not_apply():
    """--attention in serving belongs to a generate loop; plan sizes servers, not loops; a loop has
    no prefix cache (exit 2 each)."""
    base = ("--model", "llama-2-7b", "--task", "inference")
    ok = run_process("estimate", *base, "--engine", "transformers", "--attention", "eager", "--gpu", "a10g:1")
    assert ok.returncode == 0, ok.stderr
    wrong = run_process("estimate", *base, "--engine", "vllm", "--attention", "eager", "--gpu", "a10g:1")
    assert wrong.returncode == 2 and "generate loop" in wrong.stderr
    plan = run_process("plan", *base, "--engine", "transformers", "--gpus", "a10g")
    assert plan.returncode == 2 and "generate loop" in plan.stderr
    cached = run_process("estimate", *base, "--engine", "transformers", "--prefix-hit-rate", "0.5", "--gpu", "a10g:1")
    assert cached.returncode == 2 and "--prefix-hit-rate" in cached.stderr


@pytest.mark.parametrize("engine", LOOPS)
def test_a_loop_with_a_request_stream_is_refused_not_simulated_as_a_server(engine):
    """--qps with a latency target sizes replicas by simulating a server's continuous batching, which
    a generate loop is not (no request joins a running batch): a usage error that says so, where it
    used to answer with continuously batched replicas beside the note that the loop batches statically."""
    from gpuwise.api import make_estimate
    from gpuwise.errors import UsageError

    work = {"model": "llama-2-7b", "task": "inference", "engine": engine}
    with pytest.raises(UsageError, match=r"generate loop.*continuous batching"):
        make_estimate(work, {"gpu": "a100-80gb-sxm:1", "qps": 5, "ttft_ms": 1000})
    assert make_estimate(work, {"gpu": "a100-80gb-sxm:1"}).serving is None


def test_layers_split_over_gpus_run_one_stage_at_a_time():
    """--pp 2 under a generate loop is Accelerate's device_map split: one batch passes the stages in
    turn, so the throughput is that batch's alone (a serving engine keeps 2 batches in flight)."""
    spec = {"model": "llama-2-13b", "task": "inference", "pp": 2, "input_tokens": 100, "output_tokens": 100}
    spec |= {"weights_dtype": "fp16", "kv_dtype": "fp16"}
    hw = build_hardware("a10g:2", CAT)
    loop = estimate(build_workload(spec | {"engine": "transformers-v4.35"}, CAT), hw, CAT).inference
    served = estimate(build_workload(spec | {"engine": "vllm"}, CAT), hw, CAT).inference
    assert loop.tokens_per_second == pytest.approx(100 / loop.latency_seconds)
    assert served.tokens_per_second == pytest.approx(2 * 100 / served.latency_seconds, rel=0.05)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(list(LOOPS)),
    st.sampled_from(["flash", "eager"]),
    st.integers(1, 16),
    st.integers(1, 4096),
    st.integers(0, 512),
)
def test_a_loop_peak_grows_with_batch_and_prompt(engine, attention, batch, prompt, out):
    """More requests or a longer prompt never lower a generate loop's peak; every figure is finite."""
    base = _estimate(engine, batch, prompt, out, attention=attention).memory.per_gpu.total
    assert math.isfinite(base) and base > 0
    assert _estimate(engine, batch + 1, prompt, out, attention=attention).memory.per_gpu.total >= base
    assert _estimate(engine, batch, prompt + 64, out, attention=attention).memory.per_gpu.total >= base


def test_fp32_weights_multiply_without_tf32():
    """PyTorch leaves TF32 off for fp32 matmuls (allow_tf32 False since 1.12; engines.yaml runtimes:
    eager, tf32_gemm), so a generate loop over fp32 weights runs its GEMMs on the A100's CUDA cores
    (19.5 TFLOP/s fp32 peak), not TF32's 156. The prefill of 8 x 1024 tokens multiplies 32 layers x (4 x
    4096^2 + 3 x 4096 x 11008) = 6.477e9 weights: 2 x 6.477e9 x 8192 = 1.061e14 FLOPs at the measured
    98.36 % of 19.5 TFLOP/s (matmul_efficiency_a100-80gb-sxm_fp32) times the engine's GEMM share (0.74, the
    TensorRT-LLM serving fit that transformers borrows): 0.9836 x 19.5e12 x 0.74 = 1.419e13 FLOP/s,
    1.061e14 / 1.419e13 = 7.48 s; attention and the per-step costs add under a tenth. vLLM (its own kernels,
    TF32 allowed) keeps the TF32 rate."""
    from gpuwise.estimate.serving import compute_dtype

    spec = {"model": "llama-2-7b", "task": "inference", "input_tokens": 1024, "output_tokens": 2}
    spec |= {"concurrency": 8, "weights_dtype": "fp32", "kv_dtype": "fp32"}
    a100 = CAT.gpu("a100-80gb-sxm")
    assert compute_dtype(build_workload(spec | {"engine": "transformers"}, CAT), a100.peak_flops, CAT) == "fp32"
    assert compute_dtype(build_workload(spec | {"engine": "vllm"}, CAT), a100.peak_flops, CAT) == "tf32"
    est = estimate(build_workload(spec | {"engine": "transformers"}, CAT), build_hardware("a100-80gb-sxm:1", CAT), CAT)
    flops = 2 * 32 * (4 * 4096**2 + 3 * 4096 * 11008) * 8192
    gemm = flops / (0.9836 * 19.5e12 * CAT.engine("transformers").matmul_efficiency)
    assert est.inference is not None
    assert gemm == pytest.approx(7.48, abs=0.2)
    assert gemm <= est.inference.time_to_first_token_seconds <= 1.1 * gemm
