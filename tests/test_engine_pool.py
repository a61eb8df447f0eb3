"""A serving engine's KV block pool, allocated whole at start, is what nvidia-smi and torch's
counters show, not the load's need (vLLM gpu_memory_utilization, SGLang mem_fraction_static of the
device; TensorRT-LLM free_gpu_memory_fraction of what the weights leave). Hand-computed from the
catalog's capacities and the engines' defaults (catalog engines.yaml)."""

from __future__ import annotations

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.memory.inference import memory_fraction, reserved_mib
from gpuwise.workload import build_hardware, build_workload

GIB = 2**30
CAT = load_catalog()
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
    """SGLang 0.5.6 on an 80 GiB H100 at tp 1: 512 + 1.5 x 8192 + 2 x 256 + 1024 / 8 = 13,440 MiB
    reserved, mem_fraction_static round((81,920 - 13,440) / 81,920, 3) = 0.836."""
    shown, _, notes = _memory("sglang", "h100-sxm:1")
    assert shown["device_used"] == pytest.approx(0.836 * 80 * GIB)
    assert any(n.startswith("SGLang allocates its KV block pool at start: 83.6% of the device") for n in notes)


@pytest.mark.parametrize(
    ("gpu", "tp", "fraction"),
    [
        ("h100-sxm", 8, 0.819),  # 512 + 12288 + 2 x 512 + 1024 = 14,848 of 81,920
        ("h200", 8, 0.897),  # the same 14,848 of 144,384
        ("b200", 8, 0.853),  # 512 + 1.5 x 16384 + 1024 + 1024 = 27,136 of 184,320
        ("l40s", 1, 0.861),  # 512 + 1.5 x 4096 + 2 x 32 + 128 = 6,848 of 49,152 (no 10 GiB floor under 60 GiB)
        ("rtx-4090", 1, 0.847),  # 512 + 1.5 x 2048 + 2 x 24 + 128 = 3,760 of 24,576
        ("t4", 1, 0.772),  # 512 + 3072 + 2 x 8 + 128 = 3,728 of 16,384 (the catalog's 16 GiB): 0.77246
    ],
)
def test_sglang_computes_its_share_from_the_device(gpu: str, tp: int, fraction: float) -> None:
    """server_args._handle_gpu_memory_settings (engines.yaml sglang-mem-fraction-056), by hand."""

    cat = CAT
    hw = build_hardware(f"{gpu}:{tp}", cat)
    job = build_workload({**LLAMA, "engine": "sglang", "tp": tp}, cat)
    assert memory_fraction(cat.engine("sglang"), cat, hw.gpu, job) == fraction


def test_sglang_on_amd_scales_its_share_for_long_context_models() -> None:
    """aiter, SGLang's default attention backend on AMD for models without latent attention, takes 0.85 of the
    share for models of more than 8,192 positions: Llama 3.1 (131,072) on eight MI300X 0.862 x 0.85; Llama 2
    (4,096) and DeepSeek-V3 (latent attention) keep 0.862."""
    hw = build_hardware("mi300x:8", CAT)
    sglang = CAT.engine("sglang")

    def share(model: str, **extra: object) -> float:
        job = build_workload({**LLAMA, "model": model, "engine": "sglang", "tp": 8} | extra, CAT)
        return memory_fraction(sglang, CAT, hw.gpu, job)

    assert share("llama-3.1-8b") == pytest.approx(0.862 * 0.85)
    assert share("llama-2-7b") == 0.862
    assert share("deepseek-v3") == 0.862
    h100 = build_hardware("h100-sxm:8", CAT)
    job = build_workload({**LLAMA, "engine": "sglang", "tp": 8}, CAT)
    assert memory_fraction(sglang, CAT, h100.gpu, job) == 0.819  # NVIDIA: no scale


def test_sglang_reserves_more_for_attention_ranks_not_for_ngram_speculation() -> None:
    """gpuwise's speculation (n-gram lookup) adds nothing: SGLang reserves 2,048 MiB for draft models, none for
    NGRAM; attention data parallelism over 8 ranks adds 3 x 512 x 8 and, above a graph batch of 300, 1.5 x 512 x 8
    more: 14,848 + 18,432 = 33,280 MiB of an H200's 144,384."""

    cat = CAT
    rule = cat.engine("sglang").memory_reserve
    assert rule is not None

    cap = cat.gpu("h200").capacity_bytes
    plain = build_workload({**LLAMA, "engine": "sglang", "tp": 8}, cat)
    draft = build_workload(
        {**LLAMA, "engine": "sglang", "tp": 8, "speculative_tokens": 3, "speculative_acceptance": 0.7}, cat
    )
    assert reserved_mib(rule, 8192, cap, plain) == (14848, 512)
    assert reserved_mib(rule, 8192, cap, draft) == (14848, 512)
    moe = {"model": "deepseek-v3", "task": "inference", "engine": "sglang", "tp": 8, "ep": 8, "attention_dp": True}
    ranks = build_workload({**moe, "input_tokens": 1000, "output_tokens": 100}, cat)
    assert ranks.attention_ranks == 8
    assert reserved_mib(rule, 8192, cap, ranks) == (14848 + (3 + 1.5) * 512 * 8, 512)


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
