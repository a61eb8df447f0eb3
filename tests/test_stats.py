"""The nearest-rank percentile and how many values may exceed a limit while it holds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuwise.stats import percentile, tolerated


def test_the_nearest_rank_percentile_is_a_value_some_request_had():
    values = [float(v) for v in range(1, 101)]  # 1 .. 100
    assert (percentile(values, 50), percentile(values, 99), percentile(values, 100)) == (50.0, 99.0, 100.0)
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0  # ceil(1.5) = the 2nd smallest


def test_how_many_may_exceed_a_limit_by_hand():
    """P99 of 1,800 requests is the 1,782nd smallest: 18 may be slower; of 100, the 99th: 1; of 50,
    the 50th (ceil 49.5): none; P50 of 10 is the 5th: 5."""
    assert (tolerated(1800, 99), tolerated(100, 99), tolerated(50, 99), tolerated(10, 50)) == (18, 1, 0, 5)


@settings(deadline=None)  # a loaded machine may pause one example; the property is not about speed
@given(
    values=st.lists(st.floats(0, 10, allow_nan=False), min_size=1, max_size=300),
    p=st.sampled_from([50.0, 90.0, 95.0, 99.0]),
    limit=st.floats(0, 10, allow_nan=False),
)
def test_a_percentile_exceeds_a_limit_exactly_when_more_values_than_tolerated_do(values, p, limit):
    over = sum(v > limit for v in values)
    assert (percentile(values, p) > limit) == (over > tolerated(len(values), p))
