"""A finite benchmark run (--requests N): `vllm bench serve --num-prompts N` sends N requests at the start,
all at once (a burst the engine admits as its batch cap and KV cache allow) or through --max-concurrency C
clients that each send the next request when one of theirs ends. The run's figures are its own: mean TTFT
and TPOT over its requests, and output tokens over its whole span, start-up and drain included."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate
from gpuwise.workload import build_hardware, build_workload

from .conftest import run_process

CAT = load_catalog()
SPEC = {"model": "llama-3.1-8b", "task": "inference", "engine": "vllm", "input_tokens": 1000, "output_tokens": 200}


def _run(**options: Any) -> dict[str, Any]:
    job = build_workload(SPEC | options, CAT)
    return estimate(job, build_hardware("h100-sxm:1", CAT), CAT).as_dict()["inference"]


def test_one_request_is_the_single_request_figures_and_its_rate_is_its_own_latency():
    """One request alone: the same prefill and decode as the steady state at concurrency 1 (the steady state
    decodes at the mean context, the run each step at its own: equal to 1e-5); the run's throughput is its 200
    output tokens over its latency, nothing else in the span."""
    alone, run = _run(concurrency=1), _run(concurrency=1, requests=1)
    assert run["time_to_first_token_seconds"] == pytest.approx(alone["time_to_first_token_seconds"], rel=1e-9)
    assert run["decode_seconds_per_token"] == pytest.approx(alone["decode_seconds_per_token"], rel=1e-5)
    assert run["tokens_per_second"] == pytest.approx(200 / run["latency_seconds"], rel=1e-9)
    assert run["requests_per_second"] == pytest.approx(1 / run["latency_seconds"], rel=1e-9)


def test_a_burst_the_engine_admits_whole_is_n_clients_sending_one_each():
    """64 requests at once fit vLLM's batch cap on an H100: the burst and 64 closed-loop clients with one
    request each are one run."""
    burst, clients = _run(requests=64), _run(requests=64, concurrency=64)
    for key in ("time_to_first_token_seconds", "decode_seconds_per_token", "tokens_per_second"):
        assert burst[key] == pytest.approx(clients[key], rel=1e-9), key


def test_the_prompts_of_a_burst_queue_behind_each_other():
    """64 prompts of 1,000 tokens sent together go through the engine's 8,192-token prefill budget a few at
    a time: their mean TTFT is several single-prompt prefills, while the steady state at concurrency 64
    (requests arriving spread out) pays one prefill beside the running decodes."""
    steady, burst = _run(concurrency=64), _run(requests=64)
    assert burst["time_to_first_token_seconds"] > 5 * steady["time_to_first_token_seconds"]


def test_a_longer_run_loses_less_to_its_start_and_drain():
    """64 clients: the output rate over the run rises with its length and stays below the steady state's,
    which has no start and no end."""
    steady = _run(concurrency=64)["tokens_per_second"]
    rates = [_run(requests=n, concurrency=64)["tokens_per_second"] for n in (64, 256, 1024)]
    assert rates == sorted(rates)
    assert rates[-1] < steady


def test_the_run_is_echoed_and_explained():
    proc = run_process(
        "estimate", "--model", "llama-3.1-8b", "--task", "inference", "--engine", "vllm", "--input-tokens", "1000",
        "--output-tokens", "200", "--requests", "256", "--concurrency", "64", "--gpu", "h100-sxm:1", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["workload"]["requests"] == 256
    assert out["workload"]["clients"] == 64
    assert any(
        "a finite run of 256 requests sent at the start by 64 closed-loop clients" in str(a) for a in out["assumptions"]
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["estimate", "--qps", "5", "--ttft-ms", "500", "--gpu", "h100-sxm:1"], "drop --qps"),
        (["plan", "--qps", "5", "--ttft-ms", "500"], "use gpuwise estimate"),
        (["estimate", "--engine", "transformers", "--gpu", "h100-sxm:1"], "continuous batching"),
        (["estimate", "--batching", "static", "--gpu", "h100-sxm:1"], "continuous batching"),
    ],
)
def test_what_a_finite_run_does_not_describe_is_refused(args, says):
    base = ["--model", "llama-3.1-8b", "--task", "inference", "--requests", "100"]
    proc = run_process(*args[:1], *base, *args[1:])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr


def test_a_model_no_serving_engine_runs_is_refused():
    proc = run_process("estimate", "--model", "resnet-50", "--task", "inference", "--requests", "10", "--gpu", "t4:1")
    assert proc.returncode == 2
    assert "--requests applies to LLM serving engines" in proc.stderr


def test_clients_beyond_the_engines_batch_wait_in_its_queue():
    """2,000 requests: with more clients than the engine runs at once (351 on an H100 at these lengths) the
    requests past its batch wait in its queue, counted in their TTFT from the moment their client sent them;
    the output rate is the engine's either way. As many clients as requests is the burst."""
    runs = {c: _run(requests=2000, concurrency=c) for c in (300, 1000, 2000)}
    burst = _run(requests=2000)
    for key in ("time_to_first_token_seconds", "decode_seconds_per_token", "tokens_per_second"):
        assert runs[2000][key] == pytest.approx(burst[key], rel=1e-9), key
    ttfts = [runs[c]["time_to_first_token_seconds"] for c in (300, 1000, 2000)]
    assert ttfts == sorted(ttfts) and ttfts[1] > 5 * ttfts[0]
    assert runs[1000]["tokens_per_second"] == pytest.approx(burst["tokens_per_second"], rel=1e-9)


def test_a_request_larger_than_the_kv_cache_is_a_requirement_not_met():
    proc = run_process(
        "estimate", "--model", "llama-3.1-8b", "--task", "inference", "--input-tokens", "440000",
        "--requests", "5", "--gpu", "h100-sxm:1",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "needs more KV cache than the replica has" in proc.stderr


def test_a_run_holds_what_the_engine_admits_at_once():
    """A burst of 2,000 holds the engine's batch at once, not 2,000 (which would not fit) nor the default
    1: its memory, header and echo are at that batch; 100 clients hold 100."""
    from gpuwise.estimate.engine import engine_setup

    job = build_workload(SPEC | {"concurrency": 1}, CAT)
    cap = engine_setup(job, build_hardware("h100-sxm:1", CAT), CAT, notes=False).max_batch
    assert 1 < cap < 2000
    for extra, held in (({}, cap), ({"concurrency": 100}, 100)):
        est = estimate(build_workload(SPEC | {"requests": 2000} | extra, CAT), build_hardware("h100-sxm:1", CAT), CAT)
        out = est.as_dict()
        assert out["workload"]["concurrency"] == held
        assert out["memory"]["per_gpu"]["total"] <= out["memory"]["capacity"]
    proc = run_process(
        "estimate", "--model", "llama-3.1-8b", "--task", "inference", "--engine", "vllm", "--input-tokens", "1000",
        "--output-tokens", "200", "--requests", "2000", "--gpu", "h100-sxm:1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"a run of 2000 request(s), {cap} at once" in proc.stdout


def test_a_paced_run_between_one_request_at_a_time_and_the_burst():
    """--request-rate R (vllm bench serve's Poisson pacing): at 1 request a second each 200-token request
    (about 1.7 s alone on an H100) mostly runs beside one or two others, so its TTFT stays near the single
    prefill and the run serves about R requests a second; at 1,000 a second it is nearly the burst."""
    alone = _run(concurrency=1)
    slow = _run(requests=200, request_rate=1.0)
    assert slow["time_to_first_token_seconds"] < 1.5 * alone["time_to_first_token_seconds"]
    assert 0.8 < slow["requests_per_second"] < 1.0  # the last arrivals' drain: below the rate, near it
    fast, burst = _run(requests=200, request_rate=1000.0), _run(requests=200)
    assert fast["tokens_per_second"] == pytest.approx(burst["tokens_per_second"], rel=0.05)
    assert _run(requests=200, request_rate=5.0)["tokens_per_second"] < fast["tokens_per_second"]


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--request-rate", "5"], "give --requests N"),
        (["--request-rate", "5", "--requests", "100", "--concurrency", "10"], "give one of them"),
        (["--request-rate", "0", "--requests", "100"], "request-rate"),
    ],
)
def test_a_paced_run_needs_its_requests(extra, says):
    proc = run_process("estimate", "--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm:1", *extra)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert says in proc.stderr


def test_an_engine_that_prefills_apart_says_the_run_is_optimistic():
    """TGI 2.x prefills behind its router's waiting rule, not in chunks beside the decodes as the simulation
    does: the run's figures carry the caveat the serving search gives; vLLM's do not."""
    for engine, said in (("tgi-v2", True), ("vllm", False)):
        job = build_workload(SPEC | {"engine": engine, "requests": 100}, CAT)
        out = estimate(job, build_hardware("h100-sxm:1", CAT), CAT).as_dict()
        assert any("the run's TTFT and TPOT are optimistic" in str(a) for a in out["assumptions"]) is said, engine
