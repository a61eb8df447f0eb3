"""Accuracy of the serving model at load against published measurements
(corpus/data/published_serving.yaml): TensorRT-LLM's online-serving table (mean TTFT, mean
inter-token latency and output throughput at 2-16 QPS and with every request at once) and its
maximum-throughput table, a vLLM concurrency sweep on an RTX 4090, and vLLM on 8x MI300X (OCI's
Llama 3.1 405B FP8 batch and throughput tables, predicted with CDNA3 rates from published kernel
measurements and nothing fitted to them: see docs/accuracy-serving.md). Every case has a regression
bound; the medians over the checked cases are held to the goals, in sample and out of sample (each
case as scripts/fit_serving.py predicted it without its model/GPU pair, or without its engine)."""

from __future__ import annotations

import pytest

from corpus.serving_accuracy import (
    GOAL_LATENCY,
    GOAL_THROUGHPUT,
    evaluate_all,
    held_out_errors,
    load,
    median_abs_error,
    out_of_sample,
)
from gpuwise.catalog import load_catalog

CASES = {c["id"]: c for c in load()["cases"]}
RESULTS = {r.id: r for r in evaluate_all(load_catalog())}


def test_coverage_at_load():
    """At least 40 checked cases, TTFT and TPOT among them, six GPU models, four model sizes, one MoE."""
    results = list(RESULTS.values())
    assert len([r for r in results if r.checked]) >= 40
    assert {r.metric for r in results} == {"output_tokens_per_second", "mean_ttft_seconds", "mean_tpot_seconds"}
    assert len({r.gpu for r in results if r.checked}) >= 6
    models = {r.model for r in results}
    assert {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mixtral-8x7b-v0.1"} <= models


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_each_case_within_its_regression_bound(case_id):
    r = RESULTS[case_id]
    assert abs(r.error) <= CASES[case_id]["bound"], f"{case_id}: {r.ours:.4g} vs {r.published:.4g} ({r.error:+.0%})"


def test_median_errors_meet_the_goals():
    """The goals: median |error| at most 15 % on throughput, 25 % on TTFT and TPOT."""
    results = list(RESULTS.values())
    assert median_abs_error(results, "output") <= GOAL_THROUGHPUT
    assert median_abs_error(results, "mean_ttft") <= GOAL_LATENCY
    assert median_abs_error(results, "mean_tpot") <= GOAL_LATENCY


def test_latency_grows_with_load_as_published():
    """At 16 QPS the simulated mean TTFT of Llama 3.1 70B (TP4, H100) exceeds the one at 2 QPS,
    as in the table (62 ms -> 175 ms for 467/256)."""
    low = RESULTS["trtllm014-llama-3.1-70b-h100-sxm-tp4-467-256-qps2-ttft"]
    high = RESULTS["trtllm014-llama-3.1-70b-h100-sxm-tp4-467-256-qps16-ttft"]
    assert high.ours > low.ours and high.published > low.published


def test_out_of_sample_medians_meet_the_goals():
    """The same goals on the held-out errors: every checked case has one."""
    results = list(RESULTS.values())
    held = held_out_errors()
    assert {r.id for r in results if r.checked} == set(held)
    for prefix, goal in (("output", GOAL_THROUGHPUT), ("mean_ttft", GOAL_LATENCY), ("mean_tpot", GOAL_LATENCY)):
        s = out_of_sample(results, held, prefix)
        assert s is not None and s.median_abs <= goal, (prefix, s)


def test_mi300x_small_batches_follow_the_measured_weight_streaming():
    """OCI's batch-1 row (36 tokens/s, 27.8 ms a token): with hipBLASLt's measured one-row GEMM rate the
    estimate is within 25 % (it was 45 % optimistic at the copy rate); optimistic while a serving step's
    fixed cost was one per step, 14 % slow since it is one per layer (2026-12-06: 126 layers)."""
    r = RESULTS["oci-vllm-llama-3.1-405b-mi300x-tp8-128-128-batch1"]
    assert abs(r.error) <= 0.25
