"""vLLM's V0 engine (0.5 and before) processed every sequence's output on the host while the GPU waited:
https://github.com/vllm-project/vllm/issues/6913 measured LLMEngine._process_model_outputs at 0.2 ms for one
sequence and 3.4 ms for 32 (Llama3-70B FP8 on 4 H100), 0.1 ms per sequence (engines.yaml
vllm-v0-output-processing). Checked by hand
against today's vLLM profile, which overlaps that work (V1's asynchronous output processing)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import StepModel
from gpuwise.estimate.rates import compute_rates
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
JOB = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 256, "output_tokens": 256, "concurrency": 64}


def _step(engine: str, **extra: object) -> StepModel:
    job = build_workload(JOB | {"engine": engine} | extra, CAT)
    hw = build_hardware("h100-sxm:1", CAT)
    return StepModel(job, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)


def test_each_sequence_of_a_step_adds_its_host_time():
    """A decode step of n sequences takes n x 0.1 ms longer than today's vLLM's, its GPU work alike."""
    v0, v1 = _step("vllm-v0"), _step("vllm")
    assert CAT.engine("vllm-v0").host_seconds_per_sequence == 1e-4
    assert CAT.engine("vllm").host_seconds_per_sequence == 0
    for n in (1, 32, 256):
        assert v0.fixed(n, n) - v1.fixed(n, n) == pytest.approx(n * 1e-4)
    # that issue's own growth from batch 1 to 32: 3.2 ms of output processing
    assert (v0.fixed(32, 32) - v0.fixed(1, 1)) - (v1.fixed(32, 32) - v1.fixed(1, 1)) == pytest.approx(3.1e-3)


def test_speculative_tokens_count_once_per_sequence():
    """A step verifying k + 1 tokens of each sequence carries (k + 1) logits a sequence, one output to process."""
    plain, spec = _step("vllm-v0"), _step("vllm-v0", speculative_tokens=3, speculative_acceptance=0.7)
    base = replace(CAT.engine("vllm-v0"), host_seconds_per_sequence=0.0)
    cat = replace(CAT, engines={**CAT.engines, "vllm-v0": base})
    job = build_workload(JOB | {"engine": "vllm-v0", "speculative_tokens": 3, "speculative_acceptance": 0.7}, CAT)
    hw = build_hardware("h100-sxm:1", CAT)
    bare = StepModel(job, compute_rates(hw.gpu, "bf16", cat), topology(hw, cat), cat)
    assert spec.fixed(4 * 8, 4 * 8) - bare.fixed(4 * 8, 4 * 8) == pytest.approx(8 * 1e-4)
    assert plain.per_sequence == 1e-4


def test_the_estimate_names_the_mechanism_and_runs_slower_under_load():
    v0 = make_estimate(JOB | {"engine": "vllm-v0"}, {"gpu": "h100-sxm:1"}).as_dict()
    v1 = make_estimate(JOB | {"engine": "vllm"}, {"gpu": "h100-sxm:1"}).as_dict()
    assert any("processes every sequence's output on the host" in a for a in v0["assumptions"])
    assert not any("on the host while the GPU waits" in a for a in v1["assumptions"])
    slow = v0["inference"]["decode_seconds_per_token"] / v1["inference"]["decode_seconds_per_token"]
    assert slow > 1.3  # 64 sequences: 6.4 ms a step beside a step of about 10 ms


def test_v0_prefills_up_to_the_models_context():
    """V0 without chunked prefill: max_num_batched_tokens = max(max_model_len, 2048), the model's own context."""
    v0 = CAT.engine("vllm-v0")
    cap = CAT.gpu("h100-sxm").capacity_bytes
    assert v0.budget(cap, "h100-sxm", CAT.model("llama-3.1-8b").max_seq) == (131072, 256)  # unchunked
    assert v0.budget(cap, "h100-sxm", 1024) == (2048, 256)  # at least 2048
    assert CAT.engine("vllm").budget(cap, "h100-sxm", 131072)[0] == 8192  # V1 chunks: its own budget


def test_v0_chunks_long_context_models_as_05_did():
    """vLLM 0.5's arg_utils: chunked prefill on by default above 32,768 positions without a sliding window,
    512 tokens a step; Llama 3.1 (131,072) is chunked, Mistral 7B v0.1 (32,768, a sliding window) and Phi-3-mini-4k are not."""
    from gpuwise.estimate.engine import engine_profile

    def profile(model: str):
        return engine_profile(CAT, build_workload(JOB | {"model": model, "engine": "vllm-v0"}, CAT))

    long = profile("llama-3.1-8b")
    assert long.chunked_prefill and not long.prefill_first and long.token_budget == 512
    for short in ("mistral-7b-v0.1", "phi-3-mini-4k-instruct"):
        p = profile(short)
        assert not p.chunked_prefill and p.prefill_first and p.budget_covers_context
