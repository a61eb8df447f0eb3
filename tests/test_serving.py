"""Serving as engines run it: targets as engineers state them, the engine model, the simulator,
and the serving search (plan and estimate give one answer)."""

from __future__ import annotations

import collections
import dataclasses
import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpuwise.api import latency_target, make_estimate, make_plan
from gpuwise.catalog import Catalog, load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import StepModel, engine_setup, tokens_per_decode_step
from gpuwise.estimate.memory.inference import inference_memory
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.serving import PERCENTILES, _percentiles, alone, meets_goals
from gpuwise.estimate.sharing import shared_runs
from gpuwise.estimate.simulate import Targets, poisson_arrivals, simulate
from gpuwise.plan import PlanResult
from gpuwise.stats import percentile, tolerated
from gpuwise.workload import InferenceJob, build_hardware
from gpuwise.workload import build_workload as _build_workload
from gpuwise.workload.requirements import LatencyGoals, build_requirements

CAT = load_catalog()


def build_workload(opts: dict[str, Any], catalog: Catalog) -> InferenceJob:
    """Every workload here serves: the typed job (a training job fails here, not later)."""
    job = _build_workload(opts, catalog)
    assert isinstance(job, InferenceJob)
    return job


# ------------------------------------------------------------------------------------------
# targets
def test_targets_default_to_p99_and_aliases_stay_end_to_end():
    r = build_requirements({"qps": 50, "ttft_ms": 800, "tpot_ms": 50}, CAT)
    assert (r.percentile, r.ttft_seconds, r.tpot_seconds, r.latency_seconds) == (99.0, 0.8, 0.05, None)
    r = build_requirements({"qps": 5, "p95_ms": 2000}, CAT)
    assert (r.percentile, r.latency_seconds) == (95.0, 2.0)
    r = build_requirements({"qps": 5, "e2e_ms": 3000, "percentile": "p90"}, CAT)
    assert (r.percentile, r.latency_seconds) == (90.0, 3.0)


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"qps": 5, "p95_ms": 1, "p99_ms": 2}, "one end-to-end"),
        ({"qps": 5, "p95_ms": 1, "e2e_ms": 2}, "same target"),
        ({"qps": 5, "p95_ms": 1, "percentile": 99}, "contradicts"),
        ({"ttft_ms": 800}, "needs --qps"),
        ({"qps": 5, "ttft_ms": 800, "percentile": 97}, "--percentile must be one of"),
    ],
)
def test_contradictory_targets_are_clear_errors(opts, message):
    with pytest.raises(UsageError, match=message):
        build_requirements(opts, CAT)


def test_estimate_reads_a_target_as_the_plan_does():
    t = latency_target({"qps": 10, "ttft_ms": 500, "percentile": 95})
    assert t is not None and (t.qps, t.percentile, t.ttft_seconds, t.seconds) == (10, 95.0, 0.5, None)
    assert latency_target({}) is None


# ------------------------------------------------------------------------------------------
# engine model
def test_speculative_decoding_gain_is_the_expected_accepted_run():
    """k = 3 proposals accepted with a = 0.5: (1 - 0.5^4) / (1 - 0.5) = 1.875 tokens per step."""
    w = build_workload(
        {"model": "llama-2-7b", "speculative_tokens": 3, "speculative_acceptance": 0.5, "task": "inference"}, CAT
    )
    assert tokens_per_decode_step(w) == pytest.approx(1.875)
    with pytest.raises(UsageError, match="speculative decoding needs"):
        _build_workload({"model": "llama-2-7b", "speculative_tokens": 3}, CAT)


def test_multi_lora_adapters_take_memory_and_step_time_by_hand():
    """llama-2-7b (hidden 4096, FFN 11008, 32 layers, MHA), 4 adapters at rank 16 in bf16, TP 1.
    Per layer and adapter, A + B hold rank x (in + out): q, k, v, o 4 x (4096 + 4096) = 32,768,
    gate and up 2 x (4096 + 11008) = 30,208, down 15,104; 78,080 x 16 = 1,249,280 parameters,
    x 32 layers = 39,976,960 (PEFT's all-linear r=16 adapter of Llama 2 7B has 40.0M), x 2 bytes
    x 4 adapters = 319,815,680 bytes. TP 2 halves every term but the hidden side of each pair:
    (4 x 4096 + 4 x 2048 + 2 x (4096 + 5504) + (5504 + 4096)) x 16 x 32 x 2 x 4 = 218,628,096."""
    base = {"model": "llama-2-7b", "task": "inference", "input_tokens": 512, "output_tokens": 128}
    plain = build_workload(base, CAT)
    lora = build_workload({**base, "lora_adapters": 4, "lora_adapter_rank": 16}, CAT)
    hw = build_hardware("a100-80gb-sxm", CAT)
    mem = inference_memory(lora, hw, CAT).per_gpu
    assert mem.detail["lora_adapters"] == 319_815_680
    assert mem.weights - inference_memory(plain, hw, CAT).per_gpu.weights == 319_815_680
    tp2 = build_workload({**base, "tp": 2, "lora_adapters": 4}, CAT)  # rank defaults to vLLM's 16
    assert inference_memory(tp2, build_hardware("a100-80gb-sxm:2", CAT), CAT).per_gpu.detail["lora_adapters"] == (
        218_628_096
    )
    # the adapters' memory, with the allocator's 5 % fragmentation on it, comes out of the KV cache:
    # 319,815,680 B x 1.05 / 512 KiB per token = 640.5 tokens (truncation on both sides: 640 or 641)
    assert engine_setup(plain, hw, CAT).kv_tokens - engine_setup(lora, hw, CAT).kv_tokens in (640, 641)
    # every step pays Punica's 2 ms for the adapters' matmuls (engines.yaml, punica-multi-lora)
    rates = compute_rates(hw.gpu, "bf16", CAT)
    topo = topology(hw, CAT)
    gap = StepModel(lora, rates, topo, CAT).step(0, 8, 8000.0, 0.0) - StepModel(plain, rates, topo, CAT).step(
        0, 8, 8000.0, 0.0
    )
    assert gap == pytest.approx(0.002)
    with pytest.raises(UsageError, match="--lora-adapters N"):
        _build_workload({**base, "lora_adapter_rank": 8}, CAT)


def test_kv_capacity_is_the_engine_share_minus_what_is_fixed():
    """vLLM on an 80 GiB A100: 0.9 x 80 GiB minus weights, workspace and overheads, over the KV
    bytes of one token (llama-2-7b fp16: 2 x 32 layers x 4096 x 2 B = 512 KiB)."""
    w = build_workload({"model": "llama-2-7b", "task": "inference", "input_tokens": 1000, "output_tokens": 24}, CAT)
    hw = build_hardware("a100-80gb-sxm", CAT)
    s = engine_setup(w, hw, CAT)
    one = inference_memory(w, hw, CAT).per_gpu
    fixed = one.total - one.kv_cache
    expected = int((0.9 * hw.gpu.capacity_bytes - fixed) / (2 * 32 * 4096 * 2))
    assert s.kv_tokens == expected
    assert s.max_batch == min(1024, expected // 1024)  # 1024-token requests, 16-token blocks
    sg = engine_setup(dataclasses.replace(w, engine="sglang"), hw, CAT)
    assert sg.kv_tokens < s.kv_tokens  # SGLang 0.5.6's static share on an 80 GiB device at tp 1 is 0.836


def test_sliding_window_decode_is_capped_by_the_window():
    """Mistral-7B at a 32k context reads at most 4,096 keys per layer: a decode step costs what it
    costs at a 4k context, and the weights (14.5 GB) dominate it (about 9 ms on an A100's 2 TB/s,
    plus the engine's step overhead), not the 4.3 GB a full 32k read would add."""
    w = build_workload({"model": "mistral-7b-v0.1", "task": "inference", "input_tokens": 32000}, CAT)
    hw = build_hardware("a100-80gb-sxm", CAT)
    step = StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)
    long_, short = step.step(0, 1, step.keys(32000), 0.0), step.step(0, 1, step.keys(4096), 0.0)
    assert long_ == pytest.approx(short)
    assert step.keys(32000) == 32 * 4096
    est = make_estimate(
        {"model": "mistral-7b-v0.1", "input_tokens": 32000, "output_tokens": 256}, {"gpu": "a100-80gb-sxm"}
    )
    assert est.inference is not None and 0.008 < est.inference.decode_seconds_per_token < 0.013


# ------------------------------------------------------------------------------------------
# simulator
def _replica(model: str = "llama-2-7b", gpu: str = "a100-80gb-sxm", **kw):
    w = build_workload({"model": model, "task": "inference", "input_tokens": 512, "output_tokens": 128, **kw}, CAT)
    hw = build_hardware(gpu, CAT)
    return w, StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT), engine_setup(w, hw, CAT)


def test_a_lone_request_takes_its_prefill_then_its_decode_steps():
    """Arrivals far apart: each request's TTFT is one prefill step of its 512 tokens and its TPOT
    the single-request decode step (hand-composed from the step model)."""
    w, step, setup = _replica()
    res = simulate(step, setup, [0.0, 1000.0], w.input_tokens)
    ttft = step.step(512, 0, 0.0, step.prefill_pairs(0, 512)) + setup.request_overhead
    assert res.ttft == pytest.approx([ttft, ttft])
    assert res.e2e[0] > ttft and all(0 < t < res.e2e[0] for t in res.tpot)


def test_an_engine_that_prefills_apart_stops_the_decodes_for_a_newcomer_prompt():
    """One request decoding when a second arrives: an engine that prefills apart (SGLang) runs the new
    prompt in a step of its own, alone (its TTFT: at least that step, hand-composed), and the running
    request waits through it, so it ends that step's time later than where prompts ride in its steps;
    the decodes then run together either way."""
    w, step, mixed = _replica(engine="sglang")
    mixed = dataclasses.replace(mixed, chunked_prefill=True, prefill_first=False)
    apart = dataclasses.replace(mixed, chunked_prefill=False, prefill_first=True)
    alone = step.step(512, 0, 0.0, step.prefill_pairs(0, 512))
    arrivals = [0.0, alone + 0.05]  # during the first request's decodes
    a, m = simulate(step, apart, arrivals, w.input_tokens), simulate(step, mixed, arrivals, w.input_tokens)
    assert a.ttft[0] == m.ttft[0] == pytest.approx(alone + mixed.request_overhead)
    assert a.ttft[1] >= alone + mixed.request_overhead
    waited = a.e2e[0] - m.e2e[0]  # the first request's delay: the newcomer's own step, less what mixing cost it
    mixed_step = step.step(512, 1, step.keys(512 + 10) * 1, step.prefill_pairs(0, 512)) - step.step(0, 1, 0.0, 0.0)
    assert waited > 0 and waited == pytest.approx(alone - mixed_step, rel=0.05)


def test_every_request_is_served_and_busy_time_is_below_one():
    w, step, setup = _replica()
    res = simulate(step, setup, poisson_arrivals(20.0, 1500, 3), w.input_tokens)
    assert not any(math.isnan(v) for v in res.e2e) and 0 < res.busy < 1


# The simulator jumps over a long prompt's chunks by summing their step times in closed form; a
# step-by-step run adds the same terms one at a time, so the two differ by rounding only (about 1e-11
# relative over 2,000 requests of 16k tokens, measured): any modelling difference is far larger.
SUM_ROUNDING = 1e-9
# A run of prompt chunks: how many steps, the chunk each step takes, the decodes beside it, their mean
# context at the first step and where in the prompt the run starts
CHUNK_RUNS = {
    "steps": st.integers(1, 40),
    "chunk": st.integers(1, 8192),
    "decodes": st.integers(0, 300),
    "context": st.floats(0, 40_000),
    "start": st.integers(0, 40_000),
}


@settings(max_examples=60, deadline=None)
@given(
    **CHUNK_RUNS,
    windowed_layers=st.sampled_from([0, 16, 32]),
)
def test_a_run_of_prompt_chunks_costs_what_its_steps_cost(steps, chunk, decodes, context, start, windowed_layers):
    """chunk_run's closed form against `step` summed step by step: the chunk moving through the
    prompt, the decodes' mean context growing a token a step, sliding windows (all layers, half of
    them, none) capping both where the run crosses the window."""
    w = build_workload({"model": "mistral-7b-v0.1", "task": "inference"}, CAT)
    model = dataclasses.replace(w.model, sliding_window_layers=windowed_layers)
    if not windowed_layers:
        model = dataclasses.replace(model, sliding_window=None)
    w = dataclasses.replace(w, model=model)
    hw = build_hardware("h100-sxm", CAT)
    step = StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)
    one_by_one = sum(
        step.step(chunk, decodes, step.keys(context + j) * decodes, step.prefill_pairs(start + j * chunk, chunk))
        for j in range(steps)
    )
    assert step.chunk_run(steps, chunk, decodes, context, 1.0, start) == pytest.approx(one_by_one, rel=SUM_ROUNDING)


@settings(max_examples=60, deadline=None)
@given(
    **CHUNK_RUNS,
    speculation=st.sampled_from([0, 3]),
)
def test_the_loops_run_of_prompt_chunks_is_the_step_models_bit_for_bit(
    steps, chunk, decodes, context, start, speculation
):
    """The event loop writes StepModel.chunk_run out for models without sliding windows (a closure over
    the run's constants, simulate._chunk_runner) with the same operations in the same order, so that no
    figure moves by a rounding: equal to the last bit, also with speculative decoding (a step adds
    more than one token to each context), with running requests that end at or after the run's last step."""
    from gpuwise.estimate import simulate as sim

    spec = {"speculative_tokens": speculation, "speculative_acceptance": 0.7} if speculation else {}
    w = build_workload({"model": "llama-3.1-8b", "task": "inference", **spec}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    step = StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)
    setup = dataclasses.replace(engine_setup(w, hw, CAT), prefill_tokens=start + steps * chunk + 1)
    finish = steps if decodes else 10**9  # the oldest running request's last step: the run stops there too
    running = [(finish, r, 0.0) for r in range(decodes)]  # a heap: every request ends at the same step
    run_of_chunks = sim._chunk_runner(sim._Ends(sim._Run(step, setup, [0.0], sim.alike(setup, 1, 0), None)), running)
    head = [0, start]
    expected = step.chunk_run(steps, chunk, decodes, context, setup.tokens_per_step, start)
    assert run_of_chunks(head, chunk, 0, context) == (expected, steps)
    assert head[1] == start + steps * chunk


def _long_prompts(model: str = "llama-3.1-8b", gpu: str = "h100-sxm", prompt: int = 16000):
    w = build_workload({"model": model, "task": "inference", "input_tokens": prompt, "output_tokens": 512}, CAT)
    hw = build_hardware(gpu, CAT)
    return w, StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT), engine_setup(w, hw, CAT)


def _replica_search() -> tuple[tuple[Any, ...], dict[str, Any]]:
    """plan_replicas' arguments and keywords for the 8B with 16k-token prompts on H100s at 20 QPS,
    P99 TTFT 2 s and TPOT 50 ms."""
    w, _, setup = _long_prompts()
    hw = build_hardware("h100-sxm", CAT)
    rates, topo = compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT)
    goals = LatencyGoals(percentile=99.0, ttft_seconds=2.0, tpot_seconds=0.05)
    return (w, hw, rates, topo, CAT), {"qps": 20.0, "goals": goals, "max_batch": setup.max_batch}


def _count_simulations(monkeypatch) -> list[int]:
    """A list that grows by one each time a serving simulation runs."""
    from gpuwise.estimate import serving

    runs: list[int] = []
    counted = serving.simulate_once

    def counting(*a, **k):
        runs.append(1)
        return counted(*a, **k)

    monkeypatch.setattr(serving, "simulate_once", counting)
    return runs


@pytest.mark.parametrize(
    ("model", "prompt"), [("llama-3.1-8b", 16000), ("llama-3.1-8b", 32000), ("mistral-7b-v0.1", 30000)]
)
def test_jumping_over_prompt_chunks_gives_the_step_by_step_simulation(monkeypatch, model, prompt):
    """The simulation with chunk runs against the same simulation made to take one step per event
    (the run replaced by single mixed steps): every request's TTFT, TPOT and latency agree."""
    from gpuwise.estimate import simulate as sim

    w, step, setup = _long_prompts(model, prompt=prompt)
    arrivals = poisson_arrivals(0.6, 600, 5)
    jumped = simulate(step, setup, arrivals, w.input_tokens)

    def one_step_at_a_time(ends, running):
        def one_step(head, chunk, step_no, context):
            t, ready = ends.mixed_step(collections.deque([head]), len(running), context)
            assert not ready
            return t, 1

        return one_step

    monkeypatch.setattr(sim, "_chunk_runner", one_step_at_a_time)
    stepped = simulate(step, setup, arrivals, w.input_tokens)
    for metric in ("ttft", "tpot", "e2e"):
        assert getattr(jumped, metric) == pytest.approx(getattr(stepped, metric), rel=SUM_ROUNDING), metric
    assert jumped.busy == pytest.approx(stepped.busy, rel=SUM_ROUNDING)


def _decode_run(model: StepModel, setup, running: list[list[Any]], to_arrival: float | None, kv: int) -> list[float]:
    """A pure-decode run from now: its steps (to the next finish, or to the next arrival the batch
    and KV cache could admit, at the whole run's step time) and the context each step reads beyond a
    request's own (the run's middle)."""
    grow, steps = setup.tokens_per_step, min(left for _, left, _ in running)
    fits = len(running) < setup.max_batch and kv + setup.tokens_per_request <= setup.kv_tokens
    if to_arrival is not None and fits:
        t = model.step(0, len(running), sum(model.keys(c + steps * grow / 2) for _, _, c in running), 0.0, None, 0)
        steps = min(steps, max(1, math.ceil(to_arrival / t))) if t > 0 else steps
    return [steps * grow / 2, 0, steps]


def _one_step_at_a_time(model: StepModel, setup, arrivals: list[float], prompt_tokens: int):
    """The engine as the simulator's module docstring states it, one step per iteration with no
    jumps: every step carries each running request's decode and prompt chunks in arrival order
    within the token budget; arrivals are admitted at step boundaries while the batch and the KV
    cache have room. One rule is the simulator's own approximation: pure-decode steps from an event
    (an admission, a prompt step, a finish) on read each request's context at the middle of the run
    up to the next finish or, when an arrival could be admitted before it, of the steps up to that
    arrival (counted at the whole run's step time), until the next event. Returns (ttft, tpot, e2e)
    per request."""
    n = len(arrivals)
    ttft, tpot, e2e, first = [math.nan] * n, [math.nan] * n, [math.nan] * n, [0.0] * n
    waiting: collections.deque[int] = collections.deque()
    prefilling: collections.deque[list[int]] = collections.deque()  # [request, prompt tokens done]
    running: list[list[Any]] = []  # [request, decode steps left, context]
    now, kv, nxt, done, grow = 0.0, 0, 0, 0, setup.tokens_per_step
    run: list[float] | None = None  # [context read beyond a request's own, steps into the decode run, its steps]
    after_first = max(1.0, setup.decode_steps * grow)
    while done < n:
        while nxt < n and arrivals[nxt] <= now:
            waiting.append(nxt)
            nxt += 1
        while waiting and len(prefilling) + len(running) < setup.max_batch:
            if kv + setup.tokens_per_request > setup.kv_tokens:
                break
            prefilling.append([waiting.popleft(), 0])
            kv, run = kv + setup.tokens_per_request, None
        if not prefilling and not running:
            if nxt >= n:
                break
            now = arrivals[nxt]
            continue
        left, chunk, pairs, ends = setup.token_budget - len(running) * model.verify, 0, 0.0, 0
        for item in prefilling:
            take = min(left, setup.prefill_tokens - item[1])
            if take <= 0:
                break
            pairs += model.prefill_pairs(item[1], take)
            item[1], left, chunk = item[1] + take, left - take, chunk + take
            ends += item[1] >= setup.prefill_tokens  # a prompt ends: its first token's logits
        if chunk:
            run, beyond = None, 0.0
        else:
            run = run or _decode_run(
                model, setup, running, arrivals[nxt] - now if nxt < n and not waiting else None, kv
            )
            beyond, run[1] = run[0] - run[1] * grow, run[1] + 1
        now += model.step(chunk, len(running), sum(model.keys(c + beyond) for _, _, c in running), pairs, None, ends)
        run = None if run is not None and run[1] >= run[2] else run
        for req in running:
            req[1], req[2] = req[1] - 1, req[2] + grow
        for r, _, _ in [req for req in running if req[1] == 0]:
            e2e[r], tpot[r] = now - arrivals[r], (now - first[r]) / after_first
            kv, done, run = kv - setup.tokens_per_request, done + 1, None
        running = [req for req in running if req[1] > 0]
        while prefilling and prefilling[0][1] >= setup.prefill_tokens:
            r = prefilling.popleft()[0]
            ttft[r], first[r] = now - arrivals[r], now
            running.append([r, setup.decode_steps, prompt_tokens + 1])
    extra = setup.request_overhead
    return [v + extra for v in ttft], tpot, [v + extra for v in e2e]


@settings(max_examples=40, deadline=None)
@given(
    prompt=st.integers(1, 3000),
    output=st.integers(2, 40),
    budget=st.integers(16, 4096),
    max_batch=st.integers(1, 12),
    kv_requests=st.integers(1, 16),
    rate=st.floats(0.5, 200.0),
    n=st.integers(1, 40),
    seed=st.integers(0, 1000),
)
def test_the_event_simulation_is_the_step_by_step_engine(prompt, output, budget, max_batch, kv_requests, rate, n, seed):
    """The simulator jumps over decode runs, prompt-chunk runs and retires requests in batches; on
    random small workloads (short and long prompts against small and large token budgets, batch
    and KV caps that bind or not, light to overloaded arrivals) every request's TTFT, TPOT and
    latency are those of the engine run one step at a time (with the simulator's one approximation,
    a decode run's mean context), up to the rounding of summing the same step times in another
    order."""
    w = build_workload(
        {"model": "llama-2-7b", "task": "inference", "input_tokens": prompt, "output_tokens": output}, CAT
    )
    hw = build_hardware("a100-80gb-sxm", CAT)
    step = StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)
    setup = engine_setup(w, hw, CAT)
    setup = dataclasses.replace(
        setup, token_budget=budget, max_batch=max_batch, kv_tokens=kv_requests * setup.tokens_per_request
    )
    arrivals = poisson_arrivals(rate, n, seed)
    res = simulate(step, setup, arrivals, w.input_tokens)
    ttft, tpot, e2e = _one_step_at_a_time(step, setup, arrivals, w.input_tokens)
    for metric, stepped in (("ttft", ttft), ("tpot", tpot), ("e2e", e2e)):
        assert getattr(res, metric) == pytest.approx(stepped, rel=SUM_ROUNDING), metric


@settings(max_examples=40, deadline=None)
@given(
    prompt=st.integers(1, 3000),
    budget=st.integers(16, 4096),
    caps=st.tuples(st.integers(1, 12), st.integers(1, 12)),
    kv_requests=st.integers(1, 16),
    rate=st.floats(0.5, 200.0),
    seed=st.integers(0, 1000),
)
def test_a_run_shared_across_batch_caps_is_the_run_under_the_other_cap(prompt, budget, caps, kv_requests, rate, seed):
    """Within `shared_runs`, a run asked for again under another batch cap is answered by the first
    run only when the cap never bound it; whatever it answers is exactly what a fresh run under the
    second cap gives (same caps included)."""
    from gpuwise.estimate import simulate as sim

    w = build_workload({"model": "llama-2-7b", "task": "inference", "input_tokens": prompt, "output_tokens": 9}, CAT)
    hw = build_hardware("a100-80gb-sxm", CAT)
    step = StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)
    setup = dataclasses.replace(engine_setup(w, hw, CAT), token_budget=budget)
    setup = dataclasses.replace(setup, kv_tokens=kv_requests * setup.tokens_per_request)
    arrivals = poisson_arrivals(rate, 30, seed)
    first, second = (dataclasses.replace(setup, max_batch=cap) for cap in caps)
    with shared_runs():
        sim.simulate_once("replica", step, first, arrivals, w.input_tokens, None)
        shared = sim.simulate_once("replica", step, second, arrivals, w.input_tokens, None)
    assert shared == simulate(step, second, arrivals, w.input_tokens)


def test_runs_that_no_batch_cap_binds_are_made_once(monkeypatch):
    """Ten requests a minute on a replica that holds 64: caps of 64 and 32 never bind, so the second
    run is the first one; a cap of 1 binds (requests queue behind each other), so it is run anew;
    outside `shared_runs` every run is made."""
    from gpuwise.estimate import simulate as sim

    made = []
    real = sim._simulated
    monkeypatch.setattr(sim, "_simulated", lambda *a: made.append(1) or real(*a))
    _, step, setup = _replica()
    arrivals = poisson_arrivals(1 / 6, 200, 0)
    with shared_runs():
        for cap in (64, 32, 1):
            sim.simulate_once("replica", step, dataclasses.replace(setup, max_batch=cap), arrivals, 512, None)
    assert len(made) == 2
    sim.simulate_once("replica", step, dataclasses.replace(setup, max_batch=32), arrivals, 512, None)
    assert len(made) == 3


def test_sharing_identical_runs_changes_no_row(monkeypatch):
    """A plan whose search asks for the same run under several batch caps (16k-token prompts: each
    GPU type's smaller caps at the count the best layout set): the same candidates with and without
    sharing, on fewer runs."""
    import contextlib

    from gpuwise.estimate import simulate as sim
    from gpuwise.plan import search

    made = []
    real = sim._simulated
    monkeypatch.setattr(sim, "_simulated", lambda *a: made.append(1) or real(*a))
    work = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 16000, "output_tokens": 512}
    req = {"qps": 20, "ttft_ms": 2000, "tpot_ms": 50, "gpus": "gh200,h100-nvl"}
    shared = make_plan(work, req)
    runs = len(made)
    monkeypatch.setattr(search, "shared_runs", contextlib.nullcontext)
    alone = make_plan(work, req)
    assert shared.candidates == alone.candidates and shared.chosen == alone.chosen
    assert runs < len(made) - runs


def test_a_lone_long_prompt_takes_its_budget_sized_chunks():
    """A 16k-token prompt alone: its TTFT is `alone`'s, which adds its chunks one by one."""
    w, step, setup = _long_prompts()
    res = simulate(step, setup, [0.0, 1e6], w.input_tokens)
    assert res.ttft == pytest.approx([alone(step, setup, w.input_tokens)[0]] * 2, rel=SUM_ROUNDING)


@pytest.mark.parametrize("rate", [0.45, 0.6])
@pytest.mark.parametrize("metric", ["ttft", "tpot", "e2e"])
@pytest.mark.parametrize("factor", [0.995, 1.005])
def test_a_simulation_judging_targets_stops_only_when_one_is_missed(rate, metric, factor):
    """A target just under (0.995x) or just over (1.005x) the full run's P99: judged, the simulation
    says missed exactly for the first, and a run that is not stopped is the full run."""
    w, step, setup = _long_prompts()
    arrivals = poisson_arrivals(rate, 1000, 0)
    full = simulate(step, setup, arrivals, w.input_tokens)
    limit = percentile(getattr(full, metric)[100:], 99) * factor
    judged = simulate(
        step, setup, arrivals, w.input_tokens, targets=Targets(100, tolerated(900, 99), **{metric: limit})
    )
    assert judged.missed == (factor < 1)
    if not judged.missed:
        assert judged == dataclasses.replace(full, met=True)


@settings(max_examples=150, deadline=None)
@given(
    prompt=st.integers(1, 3000),
    output=st.integers(2, 40),
    budget=st.integers(16, 4096),
    max_batch=st.integers(1, 12),
    kv_requests=st.integers(1, 16),
    rate=st.floats(0.5, 200.0),
    n=st.integers(2, 120),
    seed=st.integers(0, 1000),
    p=st.sampled_from(PERCENTILES),
    skip_share=st.floats(0.0, 0.5),
    picks=st.tuples(
        *[st.one_of(st.none(), st.tuples(st.floats(0, 1), st.sampled_from((1.0, 1 - 1e-12, 1 + 1e-12))))] * 3
    ),
)
def test_a_judged_simulation_gives_the_full_simulations_verdict(
    prompt, output, budget, max_batch, kv_requests, rate, n, seed, p, skip_share, picks
):
    """The replica search's verdict without reading percentiles: a simulation judging targets stops
    once more requests than the percentile tolerates exceed a limit, and one that runs to its end
    says whether they hold (`met`). On random small workloads and loads, with limits drawn at some
    request's own figure (a percentile exactly at its limit included) or just beside it, that verdict
    is always the one the full run's percentiles give, and a run not stopped is the full run."""
    w = build_workload(
        {"model": "llama-2-7b", "task": "inference", "input_tokens": prompt, "output_tokens": output}, CAT
    )
    hw = build_hardware("a100-80gb-sxm", CAT)
    step = StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)
    setup = dataclasses.replace(engine_setup(w, hw, CAT), token_budget=budget, max_batch=max_batch)
    setup = dataclasses.replace(setup, kv_tokens=kv_requests * setup.tokens_per_request)
    arrivals = poisson_arrivals(rate, n, seed)
    full = simulate(step, setup, arrivals, w.input_tokens)
    skip = int(skip_share * n)
    limits = {}
    for metric, pick in zip(("ttft", "tpot", "e2e"), picks, strict=True):
        if pick is not None:  # a limit at (or a rounding beside) one judged request's figure
            values = getattr(full, metric)[skip:]
            limits[metric] = values[min(len(values) - 1, int(pick[0] * len(values)))] * pick[1]
    goals = LatencyGoals(p, limits.get("e2e"), limits.get("ttft"), limits.get("tpot"))
    judged = simulate(step, setup, arrivals, w.input_tokens, targets=Targets(skip, tolerated(n - skip, p), **limits))
    verdict = False if judged.missed else judged.met
    assert verdict == meets_goals(_percentiles(full.warm(skip)), goals)
    if not judged.missed:
        assert judged == dataclasses.replace(full, met=verdict)


def test_the_replica_search_finds_what_full_simulations_find(monkeypatch):
    """plan_replicas lets a replica count that misses stop its simulation; the count it finds, and
    the figures it reports, are those of the search that runs every simulation in full."""
    from gpuwise.estimate import serving

    args, kw = _replica_search()
    judged = serving.plan_replicas(*args, **kw)
    full_simulate = serving.simulate_once
    # (key, step model, setup, arrivals, prompt, targets, shapes): every run without targets
    monkeypatch.setattr(serving, "simulate_once", lambda *a: full_simulate(*a[:5], None, *a[6:]))
    full = serving.plan_replicas(*args, **kw)
    assert judged == full and judged.meets


def test_a_replica_search_bounded_by_a_cheaper_plan_stops_early_or_finds_the_same_answer(monkeypatch):
    """`useful` at the full search's answer: the same plan. Half of it: the search stops once a count
    at or above it misses (fewer simulations), and says the targets are not met: no count sized, an
    idle replica's figures (finite), not an infinite percentile."""
    from gpuwise.estimate import serving

    args, kw = _replica_search()
    runs = _count_simulations(monkeypatch)
    full = serving.plan_replicas(*args, **kw)
    every = len(runs)
    assert serving.plan_replicas(*args, **kw, useful=full.replicas) == full and full.meets
    before = len(runs)
    short = serving.plan_replicas(*args, **kw, useful=full.replicas // 2)
    assert not short.meets and short.replicas == 0 and len(runs) - before < every
    assert len(set(short.percentiles["ttft"].values())) == 1 and 0 < short.value("ttft") <= full.value("ttft")


def test_a_replica_search_bounded_below_its_answer_simulates_no_count_above_the_bound(monkeypatch):
    """`useful` one below the full search's answer: no count up to it meets (the full search tried
    them all), so the bounded search says the targets are not met, sizes no count (an idle replica's
    figures, never an infinite one), and simulates no rate below the bound's (no count above it)."""
    from gpuwise.estimate import serving

    args, kw = _replica_search()
    rates_run: list[float] = []
    counted = serving.simulate_once

    def counting(key, step, setup, arrivals, *a):
        rates_run.append(len(arrivals) / arrivals[-1])
        return counted(key, step, setup, arrivals, *a)

    full = serving.plan_replicas(*args, **kw)
    assert full.meets and 1 < full.replicas < 256
    monkeypatch.setattr(serving, "simulate_once", counting)
    short = serving.plan_replicas(*args, **kw, useful=full.replicas - 1)
    assert not short.meets and short.replicas == 0 and math.isfinite(short.value("ttft"))
    assert rates_run and min(rates_run) > 20.0 / full.replicas


@pytest.mark.parametrize(("fleet", "usd", "most"), [(10.0, 2.5, 3), (10.0001, 2.5, 4), (0.3, 0.1, 2), (2.0, 3.0, 0)])
def test_the_most_replicas_cheaper_than_a_plan_by_hand(fleet, usd, most):
    """r x usd < fleet: 3 x 2.5 = 7.5 < 10 <= 4 x 2.5; 4 x 2.5 < 10.0001; 3 x 0.1 = 0.30000000000000004 >= 0.3
    (the comparison the search makes decides, not the division); one replica already costs more."""
    from gpuwise.plan.serving_search import Option, _cheaper_than

    assert _cheaper_than(fleet, Option(1, 8, 1.0, 1, usd)) == most


@pytest.mark.parametrize(("fleet", "usd", "most"), [(10.0, 2.5, 4), (9.9999, 2.5, 3), (0.3, 0.1, 2), (2.0, 3.0, 0)])
def test_the_most_replicas_costing_no_more_than_a_plan_by_hand(fleet, usd, most):
    """With ties (an option before the best in the search's order keeps an equal cost): r x usd <= fleet,
    4 x 2.5 = 10 <= 10; 4 x 2.5 > 9.9999; 3 x 0.1 = 0.30000000000000004 > 0.3 still; one costs more."""
    from gpuwise.plan.serving_search import Option, _cheaper_than

    assert _cheaper_than(fleet, Option(1, 8, 1.0, 1, usd), ties=True) == most


def _same_rows_on_each_side(monkeypatch, work, req, change) -> tuple[PlanResult, int, int]:
    """The plan, then the plan again once `change` has patched the search: the same candidates and
    choice (asserted), the first plan and how many serving simulations each ran."""
    runs = _count_simulations(monkeypatch)
    plan = make_plan(work, req)
    first = len(runs)
    change()
    other = make_plan(work, req)
    assert plan.candidates == other.candidates and plan.chosen == other.chosen
    return plan, first, len(runs) - first


def test_trying_the_likeliest_tp_degree_first_changes_no_row(monkeypatch):
    """32k-token prompts on B200: one GPU's prefill takes most of a 2 s TTFT target, so the search tries
    the larger TP degrees first and bounds the others by them; against the order by floor cost (every
    option's guess its floor): the same candidates, on no more simulations (the first-token floor now
    rules TP1 out unsimulated in either order)."""
    from gpuwise.plan import serving_search

    work = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 32000, "output_tokens": 512}
    req = {"qps": 20, "ttft_ms": 2000, "tpot_ms": 50, "gpus": "b200"}
    by_floor = property(lambda o: o.floor_cost)
    likeliest, first, floor_runs = _same_rows_on_each_side(
        monkeypatch, work, req, lambda: monkeypatch.setattr(serving_search.Option, "likely_cost", by_floor)
    )
    assert likeliest.chosen is not None and likeliest.chosen.serving is not None
    assert likeliest.chosen.serving.tp > 1 and first <= floor_runs


def test_the_cost_bound_on_the_serving_search_changes_no_row(monkeypatch):
    """The plan with the bounds (counts dearer than the best layout found on a GPU type, or than a
    multiple of its floor, are not simulated) against the plan without them: the same candidates, on fewer simulations. Older GPUs
    at 50 QPS: their single-GPU layouts meet the 8B's targets only at hundreds of replicas."""
    from gpuwise.plan import serving_search

    work = {"model": "llama-3.1-8b", "task": "inference"}
    req = {"qps": 50, "ttft_ms": 500, "tpot_ms": 50, "gpus": "rtx-3090,rtx-a6000,rtx-5090"}
    _, with_bound, unbounded = _same_rows_on_each_side(
        monkeypatch,
        work,
        req,
        lambda: _unbounded(monkeypatch, serving_search),
    )
    assert with_bound < unbounded


def test_a_gpu_type_whose_larger_layouts_no_offer_prices_stops_deepening_its_cost_bound(monkeypatch):
    """RTX 4090s are rented one to an instance, so their TP2 and TP4 layouts have no price (floor cost
    inf) and no cost bound, however raised, admits them. At a million QPS no priced layout carries the
    load within the most replicas searched: the type's search deepens its bound a few times (x DEEPEN)
    until every priced layout is searched whole, then says it misses, as the search without the bound
    does; it does not keep raising the bound for the unpriced layouts until the price overflows. The
    load needs more replicas than are searched (4,096), so no count is simulated: the row is the
    capacity's count, not confirmed, and never an infinite figure."""
    from gpuwise.plan import serving_search

    confirm, calls = serving_search._confirm, []

    def counted(*args, **kwargs):
        calls.append(args)
        assert len(calls) <= 50, "the cost bound keeps deepening"
        return confirm(*args, **kwargs)

    monkeypatch.setattr(serving_search, "_confirm", counted)
    work = {"model": "llama-3.1-8b", "task": "inference"}
    r = make_plan(work, {"qps": 1e6, "ttft_ms": 1000, "tpot_ms": 100, "gpus": "rtx-4090"})
    assert r.chosen is None
    (c,) = r.candidates
    assert c.serving is not None and c.serving.simulated is None and not c.ok
    assert c.replicas > 4096 and 1 < len(calls) < 50


def test_counts_no_offer_prices_are_not_cut_by_a_gpu_types_cost_bound(monkeypatch):
    """Offers that price at most one replica of a layout (a provider's largest cluster): counts above
    it have no price, so no cost bound, however high, admits them. A search bounded far above the one
    replica's price that finds nothing is then not "cut" (a higher bound would search no more), so the
    bound stops deepening there instead of rising until the price overflows (before: 1,746 searches
    of the type in one plan)."""
    from gpuwise.plan import serving_search

    priced, confirm, seen = serving_search._fleet_price, serving_search._confirm, []

    def one_replica(hw, req, params):
        fleet = priced(hw, req, params)
        return lambda n: fleet(n) if n <= 1 else None

    def capture(found, req, cat, cal=None, cap=math.inf):
        seen.append((found, req, cat, cal))
        return confirm(found, req, cat, cal, cap)

    monkeypatch.setattr(serving_search, "_fleet_price", one_replica)
    monkeypatch.setattr(serving_search, "_confirm", capture)
    make_plan(
        {"model": "llama-3.1-8b", "task": "inference"}, {"qps": 20, "ttft_ms": 50, "tpot_ms": 100, "gpus": "h100-sxm"}
    )
    found, req, cat, cal = seen[0]
    _, replaced, cut = confirm(found, req, cat, cal, 1e12)
    assert not replaced and not cut and len(seen) < 10


def _unbounded(monkeypatch, serving_search) -> None:
    """The serving search without its cost bounds: no count dearer than the best found is skipped,
    and no GPU type's search is first bounded at a multiple of its floor (DEEPEN)."""
    monkeypatch.setattr(serving_search, "_cheaper_than", lambda fleet, option, ties=False: None)
    monkeypatch.setattr(serving_search, "DEEPEN", math.inf)


# ------------------------------------------------------------------------------------------
# the serving search
def test_no_concurrency_is_never_batch_one():
    r = make_plan({"model": "llama-2-7b", "task": "inference"}, {"qps": 10, "gpus": "h100-sxm"})
    assert r.chosen is not None and r.chosen.serving is not None and r.chosen.serving.max_batch > 1


def test_the_plan_is_what_estimate_gives_for_the_same_layout_and_target():
    req = {"qps": 20, "ttft_ms": 800, "tpot_ms": 100, "gpus": "h100-sxm"}
    work = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 1024, "output_tokens": 256}
    r = make_plan(work, req)
    c = r.chosen
    assert c is not None and c.confirmed and c.serving is not None
    tp, batch = c.serving.tp, c.serving.batch
    e = make_estimate(
        {**work, "tp": tp, "concurrency": batch},
        {"gpu": f"h100-sxm:{tp}", "qps": 20, "ttft_ms": 800, "tpot_ms": 100},
    )
    assert e.serving is not None and e.serving.replicas == c.replicas
    assert e.serving.percentiles == c.serving.simulated.percentiles


def test_the_chosen_serving_layout_is_never_worse_than_another_tp_or_batch_estimate():
    """Every (tp, concurrency) that `estimate` says meets the target costs at least what the plan's
    chosen candidate costs on that GPU type (the fleet's $/hour, replicas packed into instances)."""
    req = {"qps": 10, "ttft_ms": 2000, "tpot_ms": 60, "gpus": "h100-sxm"}
    work = {"model": "llama-3.1-70b", "task": "inference", "input_tokens": 1024, "output_tokens": 256}
    c = make_plan(work, req).chosen
    assert c is not None and c.hourly is not None
    for tp in (4, 8):
        for batch in (32, 128, 512):
            e = make_estimate({**work, "tp": tp, "concurrency": batch}, {"gpu": f"h100-sxm:{tp}", **req})
            cost = e.cost()
            if e.serving is not None and e.serving.meets and cost is not None:
                assert c.hourly <= cost["usd_per_hour"] * (1 + 1e-9), (tp, batch)


# ------------------------------------------------------------------------------------------
# disaggregated prefill/decode
def test_disaggregated_pools_send_the_prompt_kv_and_decode_without_interference():
    """The KV transfer is the prompt's KV shard over the network (llama-3.1-8b, 1024 tokens, bf16:
    2 x 32 layers x 8 KV heads x 128 x 2 B = 128 KiB per token); each pool is sized to its own
    target and the TTFT includes the transfer."""
    from gpuwise.estimate.disagg import kv_transfer_seconds, plan_disaggregated
    from gpuwise.workload.requirements import LatencyGoals

    w = build_workload({"model": "llama-3.1-8b", "task": "inference", "input_tokens": 1024, "output_tokens": 256}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    two = build_hardware("h100-sxm:16", CAT)
    link = topology(two, CAT).inter
    assert link is not None
    assert kv_transfer_seconds(w, hw, CAT) == pytest.approx(1024 * 128 * 1024 / link.bandwidth + link.latency)
    goals = LatencyGoals(99, None, 0.8, 0.1)
    d = plan_disaggregated(w, hw, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT, qps=40, goals=goals)
    assert d.meets and d.prefill_replicas >= 1 and d.decode_replicas >= 1
    assert d.percentiles["ttft"]["p99"] <= 0.8 and d.percentiles["tpot"]["p99"] <= 0.1
    # the TTFT includes the transfer: it is never below the transfer itself
    assert d.percentiles["ttft"]["p50"] > d.kv_transfer_seconds


def test_a_decode_pool_runs_no_forward_pass_for_arriving_kv_whatever_the_engine():
    """A decode replica receives each request's KV over the network: an engine that prefills apart
    (SGLang) stops nothing for it, so its decode pool is vLLM's at the same GEMM share and overheads, once
    vLLM's own host work per sequence (its synchronous scheduler) is set aside; with it, vLLM's is slower."""
    from dataclasses import replace as _replace

    from gpuwise.estimate.disagg import plan_disaggregated
    from gpuwise.workload.requirements import LatencyGoals

    hw = build_hardware("h100-sxm", CAT)
    goals = LatencyGoals(99, None, 0.8, 0.1)
    bare = _replace(CAT, engines={**CAT.engines, "vllm": _replace(CAT.engine("vllm"), host_seconds_per_sequence=0.0)})
    pools = {}
    for engine, cat in (("vllm", CAT), ("vllm-bare", bare), ("sglang", CAT)):
        w = build_workload(
            {
                "model": "llama-3.1-8b",
                "task": "inference",
                "engine": engine.removesuffix("-bare"),
                "input_tokens": 1024,
                "output_tokens": 256,
            },
            cat,
        )
        pools[engine] = plan_disaggregated(
            w, hw, compute_rates(hw.gpu, "bf16", cat), topology(hw, cat), cat, qps=20, goals=goals
        )
    assert pools["sglang"].percentiles["tpot"] == pools["vllm-bare"].percentiles["tpot"]
    assert pools["vllm"].percentiles["tpot"]["p50"] > pools["sglang"].percentiles["tpot"]["p50"]


# The tight targets are where counts below the answer are simulated and stop early: 0.1 s at 1,024 tokens (three
# counts stop) and 0.6 s at 8,000. They were 0.15 s and 1.0 s until the serving fit's GEMM share rose 0.67 -> 0.69
# (2026-12-05), and 0.7 s at 8,000 until it rose to 0.74 with the step's fixed cost one per layer (2026-12-06): the
# prefills got faster and the first count the floor allows met them, so nothing stopped.
@pytest.mark.parametrize(
    ("prompt", "qps", "ttft"), [(1024, 40, 0.1), (1024, 300, 0.3), (8000, 40, 0.6), (8000, 40, 0.2), (1024, 40, 2.0)]
)
def test_the_disaggregated_prefill_pool_judged_by_its_target_is_the_one_full_runs_size(monkeypatch, prompt, qps, ttft):
    """The prefill pool's replica counts that miss its TTFT target may stop their simulations (the
    target less the KV transfer, as floats add): the pools, figures and verdict are those that full
    runs give, from tight targets (the search passing missing counts; at 8,000 tokens and 0.2 s no
    pool up to the search's bound meets, whose figures are then shown) to a loose one."""
    from gpuwise.estimate import disagg
    from gpuwise.workload.requirements import LatencyGoals

    w = build_workload(
        {"model": "llama-3.1-8b", "task": "inference", "input_tokens": prompt, "output_tokens": 256}, CAT
    )
    hw = build_hardware("h100-sxm", CAT)
    args = (w, hw, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT)
    goals = LatencyGoals(99, None, ttft, 0.1)
    stopped: list[bool] = []
    real = disagg.simulate
    monkeypatch.setattr(disagg, "simulate", lambda *a, **k: stopped.append(real(*a, **k).missed) or real(*a, **k))
    judged = disagg.plan_disaggregated(*args, qps=qps, goals=goals)
    monkeypatch.setattr(disagg, "simulate", lambda *a, targets=None, shapes=None: real(*a, shapes=shapes))
    assert judged == disagg.plan_disaggregated(*args, qps=qps, goals=goals)
    # the tight targets: some count stopped early, except where the first-token floor rules out every
    # count (8,000 tokens in 0.2 s), so that only the bound's own figures are simulated, in full
    assert any(stopped) == (ttft < 2 and (prompt, ttft) != (8000, 0.2))


def test_a_disaggregated_pool_is_the_fewest_that_meets_when_the_verdict_is_not_monotone():
    """Verdicts that miss at 3, meet at 4, miss at 5 and meet from 6 on: doubling then bisecting
    (3 misses, 6 meets, 5 misses: 6) would miss 4; every count is tried in turn, and a count the
    floor rules out (3) is not simulated."""
    from gpuwise.estimate.disagg import _fewest

    tried: list[int] = []

    def ok(r: int) -> bool:
        tried.append(r)
        return r == 4 or r >= 6

    assert _fewest(ok, 3, lambda r: r < 4) == 4 and tried == [4]
    assert _fewest(ok, 5) == 6 and tried == [4, 5, 6]
    assert _fewest(lambda r: False, 4090) == disagg_max_pool()


def disagg_max_pool() -> int:
    from gpuwise.estimate.disagg import MAX_POOL

    return MAX_POOL


@pytest.mark.parametrize(
    ("prompt", "qps", "ttft", "tpot"), [(1024, 40, 0.15, 0.1), (2048, 60, 0.3, 0.02), (512, 97, 0.2, 0.03)]
)
def test_every_disaggregated_pool_below_the_answer_misses_in_full_simulation(monkeypatch, prompt, qps, ttft, tpot):
    """Each pool's answer is the first count that meets: every smaller count from the capacity floor
    on, those the first-token floor ruled out included, misses when simulated in full."""
    from gpuwise.estimate import disagg
    from gpuwise.workload.requirements import LatencyGoals

    w = build_workload(
        {"model": "llama-3.1-8b", "task": "inference", "input_tokens": prompt, "output_tokens": 128}, CAT
    )
    hw = build_hardware("h100-sxm", CAT)
    real = disagg._fewest
    checked: list[int] = []

    def every(ok: Any, lo: int, surely: Any = None) -> int:
        found = real(ok, lo, surely)
        assert found < disagg.MAX_POOL and ok(found)
        assert not any(ok(r) for r in range(lo, found))
        checked.append(found)
        return found

    monkeypatch.setattr(disagg, "_fewest", every)
    goals = LatencyGoals(99, None, ttft, tpot)
    d = disagg.plan_disaggregated(
        w, hw, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT, qps=qps, goals=goals
    )
    assert d.meets and checked == [d.prefill_replicas, d.decode_replicas]


@settings(max_examples=300, deadline=None)
@given(
    limit=st.floats(1e-6, 1e4, allow_nan=False),
    transfer=st.one_of(st.floats(0, 1e4, allow_nan=False), st.floats(1e-9, 1e-3)),
)
@example(limit=1.0, transfer=1.0)  # the sum stays 1.0 for every TTFT up to half a unit in its last place
@example(limit=0.3, transfer=0.1)
def test_the_largest_ttft_within_a_target_after_a_transfer_is_exact_as_floats_add(limit, transfer):
    """`_most`: that TTFT plus the transfer is within the limit, the next float above it is not."""
    from gpuwise.estimate.disagg import _most

    x = _most(limit, transfer)
    assert x + transfer <= limit < math.nextafter(x, math.inf) + transfer


def test_the_plans_command_reproduces_the_serving_candidate():
    """`plan --json` gives each candidate the `gpuwise estimate` line that reproduces it: for the
    chat example the replicas, the fleet cost and the simulated percentiles come out the same."""
    import json
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).parent.parent / "examples" / "chat-7b-p99.yaml"
    run = [sys.executable, "-m", "gpuwise.cli.app"]
    plan = json.loads(
        subprocess.run([*run, "plan", "-f", str(example), "--json"], capture_output=True, text=True).stdout
    )
    chosen = plan["chosen"]
    args = shlex.split(chosen["command"])[1:]  # drop the program name
    out = subprocess.run([*run, *args, "--json"], capture_output=True, text=True)
    est = json.loads(out.stdout)
    serving = est["inference"]["serving"]
    assert serving["replicas"] == chosen["replicas"]
    assert serving["percentiles"] == chosen["inference"]["serving"]["percentiles"]
    assert est["cost"]["usd_per_hour"] == pytest.approx(chosen["cost"]["usd_per_hour"], rel=1e-9)


def test_pipeline_parallel_serving_keeps_the_latency_and_multiplies_the_batches():
    """pp=2 behind tp=4 for Llama 3.1 70B: a token still passes every layer (its TPOT is TP4's plus
    one stage-to-stage hop), while two batches run at once, so a replica carries twice the requests
    at the same batch."""
    base = {"model": "llama-3.1-70b", "task": "inference", "input_tokens": 1024, "output_tokens": 256}
    one = make_estimate({**base, "tp": 4, "concurrency": 32}, {"gpu": "h100-sxm:4"}).inference
    two = make_estimate({**base, "tp": 4, "pp": 2, "concurrency": 32}, {"gpu": "h100-sxm:8"}).inference
    assert one is not None and two is not None
    assert two.decode_seconds_per_token == pytest.approx(one.decode_seconds_per_token, rel=0.02)
    assert two.requests_per_second == pytest.approx(2 * one.requests_per_second, rel=0.02)
