"""A serving engine's KV block pool, allocated whole at start, is what nvidia-smi and torch's
counters show, not the load's need (vLLM gpu_memory_utilization, SGLang mem_fraction_static of the
device; TensorRT-LLM free_gpu_memory_fraction of what the weights leave). Hand-computed from the
catalog's capacities and the engines' defaults (catalog engines.yaml)."""

from __future__ import annotations

import pytest

from gpuwise.api import make_estimate

GIB = 2**30
LLAMA = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 1000, "output_tokens": 1000, "concurrency": 1}


def _memory(engine: str, gpu: str) -> tuple[dict[str, float], dict[str, float], tuple[str, ...]]:
    est = make_estimate({**LLAMA, "engine": engine}, {"gpu": gpu})
    m = est.memory
    return m.as_reported(), m.per_gpu.detail | {"total": m.per_gpu.total, "kv": m.per_gpu.kv_cache}, m.assumptions


def test_vllm_shows_its_share_of_the_device_whatever_the_load() -> None:
    """H200: 141 GiB x 0.90 = 126.9 GiB on the device; torch reserved = that less the CUDA context."""
    shown, need, notes = _memory("vllm", "h200:1")
    assert shown["device_used"] == pytest.approx(0.9 * 141 * GIB)
    assert shown["max_reserved"] == pytest.approx(0.9 * 141 * GIB - need["cuda_context"])
    assert need["total"] < 20 * GIB  # the load itself needs the 8B weights and one request's cache
    assert any(n.startswith("vLLM allocates its KV block pool at start: 90% of the device, 126.9 GiB") for n in notes)


def test_sglang_takes_its_static_fraction() -> None:
    shown, _, _ = _memory("sglang", "h100-sxm:1")
    assert shown["device_used"] == pytest.approx(0.88 * 80 * GIB)


def test_trtllm_takes_its_fraction_of_what_the_weights_leave() -> None:
    """fixed (weights, workspace, context: all but the KV cache) + 0.9 x (80 GiB - fixed)."""
    shown, need, _ = _memory("trtllm", "h100-sxm:1")
    fixed = need["total"] - need["kv"]
    assert shown["device_used"] == pytest.approx(fixed + 0.9 * (80 * GIB - fixed))


def test_a_generate_loop_allocates_as_it_goes() -> None:
    shown, need, notes = _memory("transformers", "h100-sxm:1")
    assert shown["device_used"] == pytest.approx(need["total"])
    assert not any("KV block pool" in n for n in notes)


def test_a_load_above_the_share_reports_its_need() -> None:
    """Concurrency 64 of 2,000 tokens on a 24 GiB card needs more than vLLM's 21.6 GiB: no pool is
    added, the figure is the need (which does not fit the engine's share)."""
    est = make_estimate({**LLAMA, "engine": "vllm", "concurrency": 64}, {"gpu": "rtx-4090:1"})
    m = est.memory
    assert m.engine_reserved is None
    assert 0.9 * m.capacity < m.per_gpu.total
    assert m.as_reported()["device_used"] == pytest.approx(m.per_gpu.total)


def test_an_engine_not_named_stands_for_any_runtime() -> None:
    """Without --engine the time figures are vLLM's, but the memory figures stay the load's need
    (published peaks of generate loops are compared with them); the note says what vLLM would hold."""
    est = make_estimate(LLAMA, {"gpu": "h200:1"})
    m = est.memory
    assert m.engine_reserved is None
    assert m.as_reported()["device_used"] == pytest.approx(m.per_gpu.total)
    assert any(
        n.startswith("no engine named: the memory figures are this load's need") and "126.9 GiB" in n
        for n in m.assumptions
    )
