"""Continuous batching in steady state: a step's prompt chunks are those of the slots that happen to be
prefilling in it (each slot in c of its c + s steps), so a step's time is averaged over that count
rather than taken at its mean. The difference is large where a step's time is not linear in its
tokens: a MoE decode step reads the experts its few tokens choose, a step with a prompt chunk reads
almost all of them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gpuwise.api import make_estimate
from gpuwise.estimate.serving import SLOTS_POINTS, prefilling_slots, steady_state


def test_prefilling_slots_is_the_binomial_by_hand():
    """Binomial(3, 1/2): 1/8, 3/8, 3/8, 1/8."""
    points = prefilling_slots(3, 0.5)
    assert [k for k, _ in points] == [0, 1, 2, 3]
    assert [w for _, w in points] == pytest.approx([0.125, 0.375, 0.375, 0.125])
    assert prefilling_slots(0, 0.3) == [(0.0, 1.0)]
    assert prefilling_slots(5, 0.0) == [(0.0, 1.0)]
    assert prefilling_slots(5, 1.0) == [(5.0, 1.0)]


def test_a_wide_count_is_merged_into_few_points_that_keep_its_mean():
    """Binomial(1000, 0.3): mean 300, about 200 counts above the tail cut, merged into at most
    SLOTS_POINTS points whose weights add up to 1 and whose mean stays 300."""
    points = prefilling_slots(1000, 0.3)
    assert len(points) <= SLOTS_POINTS
    assert sum(w for _, w in points) == pytest.approx(1.0)
    assert sum(k * w for k, w in points) == pytest.approx(300.0, rel=1e-6)


class _Step:
    """A step model whose time is not linear in its tokens: 10 ms fixed, 50 ms when any prompt
    chunk is in it (whatever its size), 1 ms per decode."""

    verify, lanes, layers = 1, 1, 1
    prefill_per_pair = 0.0

    def prefill_pairs(self, start: int, chunk: int) -> float:
        return 0.0

    def keys(self, context: float) -> float:
        return 0.0

    def step(self, prefill: int, decodes: int, decode_keys: float, pairs: float, routed: Any = None) -> float:
        return 0.010 + (0.050 if prefill else 0.0) + 0.001 * decodes


def _setup(**kw: Any) -> Any:
    base = dict(
        max_batch=8,
        static_batching=False,
        chunked_prefill=True,
        decode_steps=3,
        prefill_tokens=100,
        token_budget=1000,
        tokens_per_step=1,
        request_overhead=0.0,
    )
    return SimpleNamespace(**{**base, **kw})


def test_two_slots_by_hand():
    """b = 2, a 100-token prompt in one chunk (c = 1), 3 decode steps: each slot prefills in 1 of 4
    steps (p = 1/4). A step: no chunk (9/16) 10 + 2 = 12 ms, one (6/16) 10 + 50 + 1 = 61 ms, two
    (1/16) 60 ms: 33.375 ms. A decoding request's step: the other slot prefills with 1/4: 3/4 x 12 +
    1/4 x 61 = 24.25 ms. Its own chunk's step: beside the other's decode (3/4) 61 ms, beside its chunk
    (1/4) 60 ms: 60.75 ms. Capacity: 2 requests per 4 steps of 33.375 ms = 14.98 requests/s.
    (Taken at the mean count, a step would be 10 + 50 + 1.5 = 61.5 ms: every step with a chunk.)"""
    st = steady_state(_Step(), _setup(), 2, 100)  # type: ignore[arg-type]
    assert st.step_seconds == pytest.approx(0.033375)
    assert st.tpot_seconds == pytest.approx(0.02425)
    assert st.ttft_seconds == pytest.approx(0.06075)
    assert st.requests_per_second == pytest.approx(2 / (4 * 0.033375))
    assert st.latency_seconds == pytest.approx(0.06075 + 3 * 0.02425)


def test_one_slot_alternates_its_prefill_and_its_decodes():
    """b = 1: one prefill step of 60 ms and 3 decode steps of 11 ms, 0.093 s a request."""
    st = steady_state(_Step(), _setup(), 1, 100)  # type: ignore[arg-type]
    assert st.tpot_seconds == pytest.approx(0.011)
    assert st.ttft_seconds == pytest.approx(0.060)
    assert st.requests_per_second == pytest.approx(1 / 0.093)


def test_moe_decode_beside_rare_long_prompts_reads_only_its_own_experts():
    """DeepSeek-R1 FP8 on 8 x H200 (SGLang, TP 8), 4 requests of 8,192 + 1,024 tokens: a request's
    prompt is in 2 of its 1,026 steps, so a decode step carries a chunk with probability about
    1 - (1024/1026)^3 = 0.6 %. Its TPOT is then close to a step of 4 decodes alone, not a step of
    4 decodes and 24 prompt tokens (the mean), which would read about 150 of the 256 experts of every
    layer instead of at most 32."""
    opts = {"model": "deepseek-r1", "task": "inference", "engine": "sglang", "weights_dtype": "fp8"}
    opts |= {"kv_dtype": "bf16", "tp": 8, "concurrency": 4, "input_tokens": 8192, "output_tokens": 1024}
    est = make_estimate(opts, {"gpu": "h200:8"})
    inf = est.inference
    assert inf is not None
    alone = make_estimate({**opts, "concurrency": 4, "input_tokens": 1}, {"gpu": "h200:8"}).inference
    assert alone is not None
    # 4 decodes at 8.7k context against 4 decodes at 0.5k context: the KV reads differ a little
    assert inf.decode_seconds_per_token < 1.25 * alone.decode_seconds_per_token
    # 13.5 ms, 5.1 ms of it the 61 layers' fixed cost (one per layer since 2026-12-06); it was 25.2 ms with
    # the prompt tokens spread over every step
    assert inf.decode_seconds_per_token < 0.015
