"""A server engine timed in static batches (--batching static): vLLM's benchmark_latency, TGI's
text-generation-benchmark and TensorRT-LLM's gptSessionBenchmark run one batch of requests, prefilled
together and decoded together until the last ends; the TTFT they report is the whole batch's prefill."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import engine_setup, step_model
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.serving import steady_state
from gpuwise.workload import build_hardware, build_workload

from .conftest import run_process

CAT = load_catalog()


def _state(concurrency: int, batching: str | None, prompt: int = 246, gpu: str = "a100-80gb-sxm") -> tuple[Any, ...]:
    spec: dict[str, Any] = {"model": "llama-2-7b", "task": "inference", "engine": "vllm", "input_tokens": prompt}
    spec |= {"output_tokens": 50, "concurrency": concurrency, "weights_dtype": "fp16", "kv_dtype": "fp16"}
    if batching:
        spec["batching"] = batching
    job = build_workload(spec, CAT)
    hw = build_hardware(f"{gpu}:1", CAT)
    setup = engine_setup(job, hw, CAT)
    model = step_model(job, compute_rates(hw.gpu, "fp16", CAT), topology(hw, CAT), CAT)
    return setup, model, steady_state(model, setup, concurrency, setup.prefill_tokens)


def test_a_static_batch_prefills_every_prompt_then_decodes_the_batch():
    """8 prompts of 246 tokens (1,968, inside vLLM's token budget): one prefill step over all of them
    (8 logits; per layer 8 x 246 x 247 / 2 = 243,048 causal query-key pairs), then 49 decode steps of
    the 8 requests at a mean context of 246 + 49 / 2 tokens; the TTFT is that prefill plus the
    request overhead, the end-to-end latency adds the 49 steps."""
    setup, model, state = _state(8, "static")
    assert setup.static_batching and setup.token_budget >= 8 * 246
    assert 8 * model.prefill_pairs(0, 246) == 8 * 246 * 247 / 2 == 243_048
    prefill = model.fixed(1968, 8) + model.prefill_per_pair * 243_048 * model.layers
    decode = model.step(0, 8, 8 * model.keys(246 + 49 / 2), 0.0)
    assert state.ttft_seconds == pytest.approx(prefill + setup.request_overhead)
    assert state.tpot_seconds == pytest.approx(decode)
    assert state.latency_seconds == pytest.approx(prefill + setup.request_overhead + 49 * decode)
    assert state.requests_per_second == pytest.approx(8 / state.latency_seconds)


def test_a_static_batch_over_the_token_budget_prefills_in_budget_sized_steps():
    """32 prompts of 1,024 tokens (32,768) on a server: its steps carry at most its token budget, so
    the batch's prefill is ceil(32,768 / budget) steps, each at the mean pairs per prompt token."""
    setup, model, state = _state(32, "static", prompt=1024)
    budget, tokens = setup.token_budget, 32 * 1024
    assert tokens > budget and setup.max_batch >= 32
    per_token = model.prefill_pairs(0, 1024) / 1024
    steps = [min(budget, tokens - done) for done in range(0, tokens, budget)]
    assert len(steps) == math.ceil(tokens / budget)
    prefill = sum(model.step(t, 0, 0.0, per_token * t) for t in steps)
    assert state.ttft_seconds == pytest.approx(prefill + setup.request_overhead)


def test_a_static_batch_waits_for_its_whole_prefill_where_continuous_batching_does_not():
    """Under continuous batching a new prompt is chunked in beside the running decodes; in a static
    batch the first token of every request comes after all the batch's prompts."""
    _, _, static = _state(24, "static", prompt=256)
    _, _, rolling = _state(24, None, prompt=256)
    assert static.ttft_seconds > 2 * rolling.ttft_seconds


def _cli(*extra: str) -> Any:
    return run_process("estimate", "--model", "llama-3.1-8b", "--task", "inference", *extra)


def test_batching_in_the_cli_and_its_refusals():
    r = _cli("--batching", "static", "--concurrency", "8", "--gpu", "h200:1", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["workload"]["batching"] == "static"
    assert any("a static batch of 8 request(s)" in a for a in out["assumptions"])
    r = _cli("--batching", "static", "--qps", "5", "--ttft-ms", "500", "--gpu", "h200:1")
    assert r.returncode == 2 and "--batching static times one static batch" in r.stderr + r.stdout
    r = _cli("--engine", "transformers", "--batching", "continuous")
    assert r.returncode == 2 and "generate loop" in r.stderr + r.stdout
    r = run_process("estimate", "--model", "resnet-50", "--task", "inference", "--batching", "static")
    assert r.returncode == 2 and "LLM serving engines" in r.stderr + r.stdout
    r = _cli("--batching", "stat")
    assert r.returncode == 2 and "did you mean 'static'" in r.stderr + r.stdout
    r = run_process("plan", "--model", "llama-3.1-8b", "--task", "inference", "--batching", "static", "--qps", "5")
    assert r.returncode == 2 and "plan sizes serving fleets" in r.stderr + r.stdout
