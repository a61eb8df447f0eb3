"""One percentile for the serving model and the latency benchmark, so that a predicted P99 and a
measured one mean the same thing."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank `p`-th percentile (0..100; no interpolation: a latency some request really had)."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))]
