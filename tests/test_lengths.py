"""Requests whose lengths vary (--length-spread): the draws, each request's sizes in the load
simulation, and what a finite run and a plan report with them."""

from __future__ import annotations

import json
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import StepModel, engine_setup
from gpuwise.estimate.lengths import drawn_lengths, request_shapes, spread_lengths, varied_shapes
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.simulate import poisson_arrivals, simulate
from gpuwise.workload import build_hardware, build_workload
from gpuwise.workload.specs import spread_bounds

from .conftest import run_main

CAT = load_catalog()


def _replica(spec: dict, gpu: str = "h100-sxm"):
    w = build_workload({"model": "llama-3.1-8b", "task": "inference", **spec}, CAT)
    hw = build_hardware(gpu, CAT)
    return w, StepModel(w, compute_rates(hw.gpu, "bf16", CAT), topology(hw, CAT), CAT), engine_setup(w, hw, CAT)


def test_the_draws_by_hand():
    """vLLM's RandomDataset range: 100 at R 0.5 is 50..150 (mean 100); 1 at R 0.5 is 1..2 (never 0);
    R 0 is every request the same; the draws are reproducible by seed and cover the range."""
    assert spread_bounds(100, 0.5) == (50, 150)
    assert spread_bounds(1, 0.5) == (1, 2)
    assert spread_bounds(0, 0.5) == (0, 0)
    assert spread_bounds(333, 0.0) == (333, 333)
    assert spread_bounds(1000, 0.1) == (900, 1100)
    # SGLang's --random-range-ratio 0 draws from 1 to L: --length-spread 1 about the mean, never a 0-token request
    assert spread_bounds(500, 1.0) == (1, 1000)
    assert min(spread_lengths(500, 1.0, 200, 3)) >= 1
    draws = spread_lengths(100, 0.5, 101, 7)
    assert draws == spread_lengths(100, 0.5, 101, 7) != spread_lengths(100, 0.5, 101, 8)
    assert sorted(draws) == list(range(50, 151))  # 101 slices of 50..150: one value each
    assert sorted(spread_lengths(100, 0.5, 4, 0)) == [62, 87, 113, 138]  # 50 + (2i + 1) x 101 // 8
    assert statistics.fmean(spread_lengths(800, 0.6, 300, 0)) == pytest.approx(800, abs=1)
    assert spread_lengths(100, 0.0, 5, 7) == (100,) * 5
    w = build_workload(
        {
            "model": "llama-3.1-8b",
            "task": "inference",
            "input_tokens": 1000,
            "output_tokens": 200,
            "length_spread": 0.5,
        },
        CAT,
    )
    assert w.longest_context == 1500 + 300
    inputs, outputs = drawn_lengths(w, 300, 0)
    assert inputs != outputs and min(inputs) >= 500 and max(outputs) <= 300  # two streams, each its own range


@settings(max_examples=40, deadline=None)
@given(
    prompt=st.integers(1, 3000),
    output=st.integers(1, 300),
    rate=st.floats(0.5, 300.0),
    n=st.integers(1, 60),
    seed=st.integers(0, 50),
    speculation=st.sampled_from([0, 3]),
)
def test_requests_of_the_setups_sizes_run_as_the_setup_bit_for_bit(prompt, output, rate, n, seed, speculation):
    """Shapes that give every request the setup's sizes are the run without shapes, to the last bit:
    the per-request bookkeeping (a heap of finish steps, each request's context and KV) is the same
    arithmetic as the run of equal requests."""
    spec = {"input_tokens": prompt, "output_tokens": output}
    if speculation:
        spec |= {"speculative_tokens": speculation, "speculative_acceptance": 0.6}
    w, step, setup = _replica(spec)
    arrivals = poisson_arrivals(rate, n, seed)
    alike = request_shapes(w, setup, [prompt] * n, [output] * n)
    assert simulate(step, setup, arrivals, prompt, shapes=alike) == simulate(step, setup, arrivals, prompt)


def test_a_shorter_output_leaves_first_and_the_longer_decodes_alone_by_hand():
    """Two 100-token prompts at once, outputs of 100 and 10 tokens: both first tokens come from one
    step; 9 decode steps at batch 2 end the short one; the long one then decodes its last 90 steps
    alone, at a mean context of 155 (101 at its first decode, 110 after the 9 shared steps, plus 45):
    its latency is the short one's plus 90 x (a one-request step + its keys at that context)."""
    w, step, setup = _replica({"input_tokens": 100, "output_tokens": 55})
    shapes = request_shapes(w, setup, [100, 100], [100, 10])
    res = simulate(step, setup, [0.0, 0.0], 100, shapes=shapes)
    assert res.ttft[0] == res.ttft[1]
    alone = step.fixed(1, 1) + step.decode_per_key * step.layers * 155
    assert res.e2e[0] - res.e2e[1] == pytest.approx(90 * alone, rel=1e-12)
    assert res.tpot[1] == pytest.approx((res.e2e[1] - res.ttft[1]) / 9, rel=1e-12)


def test_a_prompt_too_long_for_the_cache_waits_for_room_and_the_others_behind_it():
    """KV for 2,048 tokens: a 1,500-token request is admitted alone, the 1,000-token one behind it
    waits (first come, first served) although a 400-token one further back would fit."""
    w, step, setup = _replica({"input_tokens": 500, "output_tokens": 20})
    import dataclasses

    setup = dataclasses.replace(setup, kv_tokens=2048)
    shapes = request_shapes(w, setup, [1500, 1000, 400], [20, 20, 20])
    res = simulate(step, setup, [0.0, 0.0, 0.0], 500, shapes=shapes)
    assert res.ttft[1] > res.e2e[0] - 1e-12  # admitted when the first one left
    assert res.ttft[2] >= res.ttft[1]


def test_a_finite_run_counts_the_outputs_it_drew(capsys):
    """--requests 300 --length-spread 0.6: throughput is the drawn outputs over the run's span (not 300 x
    the mean), the note names the ranges drawn; R 0 is the run of equal requests."""
    base = ["estimate", "--model", "llama-3.1-8b", "--task", "inference", "--input-tokens", "800"]
    base += ["--output-tokens", "300", "--requests", "300", "--gpu", "h100-sxm:1", "--json"]
    code, out, _ = run_main(capsys, *base, "--length-spread", "0.6")
    assert code == 0
    doc = json.loads(out)
    inf = doc["inference"]
    span = 300 / inf["requests_per_second"]
    w = build_workload(
        {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 800, "output_tokens": 300, "length_spread": 0.6},
        CAT,
    )
    outputs = sum(drawn_lengths(w, 300, 0)[1])  # 300 x 300: the even spread's mean is the mean asked
    assert inf["tokens_per_second"] * span == pytest.approx(outputs, rel=1e-9)
    assert any("prompts 321-1,279 tokens, outputs 120-480 (means 800 and 300, medians" in a for a in doc["assumptions"])
    code0, plain, _ = run_main(capsys, *base)
    code1, zero, _ = run_main(capsys, *base, "--length-spread", "0")
    assert code0 == code1 == 0 and json.loads(plain)["inference"] == json.loads(zero)["inference"]


def test_the_longest_request_must_fit_the_cache(capsys):
    """The 8B on one RTX 4090 holds 29,009 tokens of KV beside a 20,000-token prompt's workspace: a run
    whose longest draw (38,000 + 190 tokens at R 0.9) needs more is refused with the reason (exit 1),
    though its mean request fits."""
    args = ["estimate", "--model", "llama-3.1-8b", "--task", "inference", "--input-tokens", "20000"]
    args += ["--output-tokens", "100", "--requests", "20", "--gpu", "rtx-4090:1"]
    code, _, _ = run_main(capsys, *args)
    assert code == 0
    code, out, err = run_main(capsys, *args, "--length-spread", "0.9")
    assert code == 1
    assert "the longest --length-spread 0.9 draws" in out + err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--length-spread", "1.5"], "length-spread"),
        (["--length-spread", "0.5", "--engine", "transformers"], "static batch"),
        (["--length-spread", "0.5", "--model", "resnet-50"], "LLM serving"),
    ],
)
def test_lengths_that_cannot_vary_are_usage_errors(capsys, extra, message):
    code, out, err = run_main(
        capsys, "estimate", "--model", "llama-3.1-8b", "--task", "inference", "--gpu", "l4", *extra
    )
    assert code == 2
    assert message in out + err
    assert "Traceback" not in out + err


def test_the_steady_state_says_it_is_at_the_mean(capsys):
    code, out, _ = run_main(
        capsys,
        "estimate",
        "--model",
        "llama-3.1-8b",
        "--task",
        "inference",
        "--length-spread",
        "0.5",
        "--gpu",
        "l4",
        "--json",
    )
    assert code == 0
    assert any("the steady state is at the mean lengths" in a for a in json.loads(out)["assumptions"])


def test_a_plans_rows_carry_the_spread_and_their_commands_reproduce_it(capsys):
    """A plan's load is simulated with the lengths drawn; each row's command names --length-spread, and
    the shortest request drawn is the floor a replica count is held to (a sound bound: never above the
    simulated run)."""
    args = ["plan", "--model", "llama-3.1-8b", "--task", "inference", "--qps", "20", "--ttft-ms", "1500"]
    args += ["--tpot-ms", "60", "--gpus", "h100-sxm", "--length-spread", "0.8", "--json"]
    code, out, _ = run_main(capsys, *args)
    assert code == 0
    doc = json.loads(out)
    assert "--length-spread 0.8" in doc["chosen"]["command"]
    w, _, setup = _replica({"length_spread": 0.8})
    shapes = varied_shapes(w, setup, 50, 0)
    assert shapes is not None and min(shapes.prefill) < 1024 < max(shapes.prefill)


def test_a_finite_run_reports_its_percentiles_as_a_benchmark_prints_them(capsys):
    """`vllm bench serve` prints mean, median and P99 TTFT/TPOT/latency: a finite run gives them over its
    requests (nearest rank). Equal requests sent by one client run alone, one after another: every TPOT
    percentile is the mean TPOT, and the P99 of five TTFTs and latencies is their largest, at or above
    their mean; with lengths that vary the P99 latency is above the median."""
    base = ["estimate", "--model", "llama-3.1-8b", "--task", "inference", "--input-tokens", "500"]
    base += ["--output-tokens", "100", "--requests", "5", "--gpu", "h100-sxm:1", "--json"]
    code, out, _ = run_main(capsys, *base, "--concurrency", "1")
    assert code == 0
    inf = json.loads(out)["inference"]
    means = {"ttft": "time_to_first_token_seconds", "tpot": "decode_seconds_per_token", "e2e": "latency_seconds"}
    pcts = inf["run_percentiles"]
    for p in ("p50", "p90", "p95", "p99"):
        assert pcts["tpot"][p] == pytest.approx(inf[means["tpot"]], rel=1e-9), p
    for metric in ("ttft", "e2e"):
        assert pcts[metric]["p50"] <= pcts[metric]["p99"] and pcts[metric]["p99"] >= inf[means[metric]] * (1 - 1e-12)
    code, out, _ = run_main(capsys, *base[:-1], "--length-spread", "0.8", "--requests", "200", "--json")
    pcts = json.loads(out)["inference"]["run_percentiles"]
    assert pcts["e2e"]["p50"] < pcts["e2e"]["p90"] <= pcts["e2e"]["p95"] <= pcts["e2e"]["p99"]
    code, out, _ = run_main(
        capsys, "estimate", "--model", "llama-3.1-8b", "--task", "inference", "--gpu", "l4", "--json"
    )
    assert "run_percentiles" not in json.loads(out)["inference"]  # the steady state has none


def test_a_spread_of_one_is_sglangs_range_ratio_zero():
    """SGLang's bench_serving draws randint(max(int(L r), 1), L + 1): at r 0 lengths 1..L, a spread of
    (1 - 0) / (1 + 0) = 1 about the mean L / 2 (the option's own help); a spread above 1 is refused."""
    opts = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 500, "output_tokens": 500, "requests": 50}
    w = build_workload({**opts, "length_spread": 1.0}, CAT)
    inputs, outputs = drawn_lengths(w, 50, 0)
    assert min(inputs) >= 1 and max(inputs) <= 1000 and min(outputs) >= 1
    with pytest.raises(UsageError, match="length"):
        build_workload({**opts, "length_spread": 1.01}, CAT)


def test_one_token_requests_have_no_time_per_output_token():
    """vllm bench serve and SGLang's bench_serving average TPOT over requests of two output tokens or more (a
    one-token request has none): a run whose drawn outputs include ones reports the mean and percentiles of
    the others, each above zero; a run of one-token requests only reports 0, as the benchmarks print it."""
    from gpuwise.estimate.serving import _split_run

    w, step, setup = _replica({"input_tokens": 256, "output_tokens": 3, "length_spread": 1.0, "requests": 200})
    run = _split_run(w, step, setup, 1)
    outputs = drawn_lengths(w, 200, 0)[1]
    assert 0 < sum(o == 1 for o in outputs) < 200
    assert len(run.each["tpot"]) == sum(o > 1 for o in outputs)
    assert min(run.each["tpot"]) > 0 and run.tpot == pytest.approx(statistics.fmean(run.each["tpot"]), rel=1e-12)
    w1, step1, setup1 = _replica({"input_tokens": 256, "output_tokens": 1, "requests": 50})
    one = _split_run(w1, step1, setup1, 1)
    assert one.tpot == 0.0 and one.each["tpot"] == []
