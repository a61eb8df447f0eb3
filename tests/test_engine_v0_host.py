"""vLLM's V0 engine (0.5 and before) processed every sequence's output on the host while the GPU waited:
https://github.com/vllm-project/vllm/issues/6913 measured LLMEngine._process_model_outputs at 0.2 ms for one
sequence and 3.4 ms for 32 (Llama3-70B FP8 on 4 H100), 0.1 ms per sequence (engines.yaml
vllm-v0-output-processing). Checked by hand against today's vLLM profile (V1), which processes outputs in a
process of its own but schedules each step in turn with the GPU: 0.0125 ms per sequence
(https://github.com/vllm-project/vllm/pull/23914, engines.yaml vllm-v1-sync-scheduling)."""

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
    """A decode step of n sequences takes n x (0.1 - 0.0125) ms longer than today's vLLM's, its GPU work alike."""
    v0, v1 = _step("vllm-v0"), _step("vllm")
    assert CAT.engine("vllm-v0").host_seconds_per_sequence == 1e-4
    assert CAT.engine("vllm").host_seconds_per_sequence == 1.25e-5
    for n in (1, 32, 256):
        assert v0.fixed(n, n) - v1.fixed(n, n) == pytest.approx(n * (1e-4 - 1.25e-5))
    # that issue's own growth from batch 1 to 32: 3.2 ms of output processing (31 x 0.1 ms), V1's 31 x 0.0125 ms
    assert (v0.fixed(32, 32) - v0.fixed(1, 1)) - (v1.fixed(32, 32) - v1.fixed(1, 1)) == pytest.approx(3.1e-3 - 3.875e-4)


def test_v1_schedules_each_sequence_in_turn_with_the_gpu():
    """vLLM pull request 23914: V1 at TP2 on A100s, 4039 output tokens/s at 256 sequences with synchronous
    scheduling and 4258 with it overlapped, 256/4039 - 256/4258 = 3.26 ms hidden a step, 12.7 us a sequence
    (10.6-13.3 us over its four batch sizes; 12.5 us the median). A step of n sequences is n x 12.5 us longer
    than the same step without that host work."""
    bare = replace(CAT.engine("vllm"), host_seconds_per_sequence=0.0)
    cat = replace(CAT, engines={**CAT.engines, "vllm": bare})
    job = build_workload(JOB | {"engine": "vllm"}, CAT)
    hw = build_hardware("h100-sxm:1", CAT)
    without = StepModel(job, compute_rates(hw.gpu, "bf16", cat), topology(hw, cat), cat)
    v1 = _step("vllm")
    table = {32: (1014, 1025), 64: (1853, 1896), 128: (3048, 3177), 256: (4039, 4258)}  # sync, async tokens/s
    hidden = sorted((b / sync - b / overlapped) / b for b, (sync, overlapped) in table.items())
    assert (hidden[1] + hidden[2]) / 2 == pytest.approx(CAT.engine("vllm").host_seconds_per_sequence, rel=0.01)
    for n in (1, 64, 256):
        assert v1.fixed(n, n) - without.fixed(n, n) == pytest.approx(n * 1.25e-5)


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
    said = "does host work for each sequence of a step while the GPU waits"
    assert any(said in a and "0.1 ms longer" in a for a in v0["assumptions"])
    assert any(said in a and "0.013 ms longer" in a for a in v1["assumptions"])
    slow = v0["inference"]["decode_seconds_per_token"] / v1["inference"]["decode_seconds_per_token"]
    assert slow > 1.3  # 64 sequences: 6.4 ms a step (V1: 0.8 ms) beside a step of about 10 ms


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
