"""One percentile for the serving model and the latency benchmark, so that a predicted P99 and a
measured one mean the same thing."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank `p`-th percentile (0..100; no interpolation: a latency some request really had)."""
    if not values:
        raise ValueError("percentile of no values")
    return sorted(values)[rank(len(values), p)]


def rank(count: int, p: float) -> int:
    """Where the nearest-rank `p`-th percentile of `count` values sits in their sorted order (0-based)."""
    return max(0, min(count - 1, math.ceil(p / 100 * count) - 1))


def tolerated(count: int, p: float) -> int:
    """How many of `count` values may exceed a limit while their `p`-th percentile stays within it:
    those above the percentile's rank."""
    return count - 1 - rank(count, p)
