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


def _on(gpu: str, **options: Any) -> dict[str, Any]:
    job = build_workload(SPEC | options, CAT)
    return estimate(job, build_hardware(gpu, CAT), CAT).as_dict()


def test_engine_copies_are_the_data_parallel_replicas():
    """tp x pp GPUs make one engine; the rest of the hardware holds copies of it (8 GPUs at tp 2: four; at
    tp 4 and pp 2: one; a MoE at tp 8 and ep 8 on 16 GPUs: two, its experts inside each copy's tp ranks)."""
    from gpuwise.estimate.serving import engine_copies

    def copies(gpu: str, model: str = "llama-3.1-8b", **par: int) -> int:
        spec = {"model": model, "task": "inference", "engine": "vllm"} | par
        return engine_copies(build_workload(spec, CAT), build_hardware(gpu, CAT))

    assert (copies("h100-sxm:1"), copies("h100-sxm:8", tp=2), copies("h100-sxm:8", tp=4, pp=2)) == (1, 4, 1)
    assert copies("h100-sxm:16", "mixtral-8x7b-v0.1", tp=8, ep=8) == 2


def test_a_run_on_two_engine_copies_is_two_runs_of_half_its_requests():
    """vllm bench serve against two data-parallel copies (2 GPUs at tp 1): 128 requests are 64 on each, so
    each request's TTFT and TPOT are those of a 64-request run on one GPU, the span is that run's, and the
    output rate over the span twice its own."""
    one, two = _on("h100-sxm:1", requests=64), _on("h100-sxm:2", requests=128)
    for key in ("time_to_first_token_seconds", "decode_seconds_per_token", "latency_seconds"):
        assert two["inference"][key] == pytest.approx(one["inference"][key], rel=1e-12), key
    assert two["inference"]["tokens_per_second"] == pytest.approx(2 * one["inference"]["tokens_per_second"], rel=1e-12)
    assert two["workload"]["concurrency"] == one["workload"]["concurrency"] == 64  # one copy's batch in memory
    assert any("dealt in arrival order over 2 of the 2 engine copies" in note for note in two["assumptions"])


def test_an_uneven_split_deals_the_odd_request_to_the_first_copy_and_ends_with_it():
    """65 requests on two copies: requests 0, 2, .. 64 (33) to the first, 1, 3, .. 63 (32) to the second. The
    means are over all 65 requests (33 and 32 of each copy's), the span the 33-request copy's, the output
    tokens all 65 x 200."""
    two = _on("h100-sxm:2", requests=65)["inference"]
    big, small = _run(requests=33), _run(requests=32)
    for key in ("time_to_first_token_seconds", "decode_seconds_per_token", "latency_seconds"):
        assert two[key] == pytest.approx((33 * big[key] + 32 * small[key]) / 65, rel=1e-12), key
    span = 33 * 200 / big["tokens_per_second"]
    assert two["tokens_per_second"] == pytest.approx(65 * 200 / span, rel=1e-12)


@pytest.mark.parametrize(("gpus", "clients"), [(8, 1), (2, 3), (2, 5), (4, 6)])
def test_closed_loop_clients_are_dealt_whole_over_the_copies(gpus, clients):
    """C clients over k copies: C // k each, the first C mod k one more, and a copy no client sends to
    serves nothing. One client keeps one request in flight however many copies there are (its run on 8
    GPUs is its run on one); 3 clients on two copies are a 2-client and a 1-client copy (50 and 50 requests
    dealt alternately, the span the slower's), never 4."""
    run = _on(f"h100-sxm:{gpus}", requests=100, concurrency=clients)
    busy = min(gpus, clients)
    shares = [clients // busy + (c < clients % busy) for c in range(busy)]
    assert sum(shares) == clients
    dealt = [100 // busy + (c < 100 % busy) for c in range(busy)]
    runs = [_run(requests=dealt[c], concurrency=shares[c]) for c in range(busy)]
    span = max(dealt[c] * 200 / r["tokens_per_second"] for c, r in enumerate(runs))
    assert run["inference"]["tokens_per_second"] == pytest.approx(100 * 200 / span, rel=1e-12)
    assert run["workload"]["concurrency"] == max(shares)  # memory holds the busiest copy's share
    if busy == 1:  # one client: the run on one GPU, whatever the copies
        one = _run(requests=100, concurrency=1)
        for key in ("time_to_first_token_seconds", "decode_seconds_per_token", "tokens_per_second"):
            assert run["inference"][key] == pytest.approx(one[key], rel=1e-12), key


def test_a_paced_run_on_copies_is_one_draw_dealt_and_ends_after_its_last_arrival():
    """16 requests at 2 a second on 8 copies: the arrivals are one Poisson draw of the whole run (as vllm
    bench serve sends them), dealt to the copies, so the run cannot end before its last arrival (about 7.5 s
    on average): each copy runs 2 requests, and the span is the last arrival plus about one request's latency,
    not eight copies each starting a request at t = 0."""
    from gpuwise.estimate.simulate import poisson_arrivals

    eight = _on("h100-sxm:8", requests=16, request_rate=2.0)["inference"]
    lasts = [(a := poisson_arrivals(2.0, 16, seed))[-1] - a[0] for seed in range(5)]
    span = 16 * 200 / eight["tokens_per_second"]
    assert span > sum(lasts) / 5 + eight["latency_seconds"] * 0.9
    one = _run(requests=16, request_rate=2.0)  # one copy: the same arrivals, one engine
    assert eight["latency_seconds"] <= one["latency_seconds"]


def test_a_recommender_is_one_model_over_its_gpus_not_copies():
    """DLRM's embedding tables are sharded over all the GPUs (memory.states): two L40S hold one model, so
    the estimate is not doubled as copies would be."""
    from gpuwise.estimate.serving import engine_copies

    job = build_workload({"model": "dlrm-criteo-1tb", "task": "inference", "concurrency": 1024}, CAT)
    assert engine_copies(job, build_hardware("l40s:2", CAT)) == 1


def test_the_steady_state_of_engine_copies_is_their_throughput_together_at_one_copys_latency():
    """No run: two copies each at concurrency 32 serve twice one copy's tokens/s at its TTFT and TPOT."""
    one, two = _on("h100-sxm:1", concurrency=32)["inference"], _on("h100-sxm:2", concurrency=32)["inference"]
    for key in ("time_to_first_token_seconds", "decode_seconds_per_token"):
        assert two[key] == pytest.approx(one[key], rel=1e-12), key
    for key in ("tokens_per_second", "samples_per_second", "requests_per_second"):
        assert two[key] == pytest.approx(2 * one[key], rel=1e-12), key


def test_a_served_load_on_a_replica_of_two_copies_is_half_the_load_on_each():
    """--qps 20 on replicas of 2 GPUs at tp 1 is --qps 10 on replicas of one: the same count of replicas
    (each of two GPUs) at the same percentiles, with each replica's capacity twice one GPU's."""
    from gpuwise.estimate.run import LatencyTarget

    def plan(gpu: str, qps: float) -> dict[str, Any]:
        target = LatencyTarget(qps=qps, percentile=99, ttft_seconds=1.0, tpot_seconds=0.06)
        return estimate(build_workload(SPEC, CAT), build_hardware(gpu, CAT), CAT, target=target).as_dict()["inference"][
            "serving"
        ]

    one, two = plan("h100-sxm:1", 10.0), plan("h100-sxm:2", 20.0)
    assert two["replicas"] == one["replicas"] and two["gpus"] == 2 * one["gpus"]
    assert two["percentiles"] == one["percentiles"]
    assert two["capacity_rps_per_replica"] == pytest.approx(2 * one["capacity_rps_per_replica"], rel=1e-12)
