"""Speed bounds that hold on any machine: each benchmark's target is stated for this project's
reference machine (2 cores, the CI runner) and scaled by how fast the machine running it is,
measured side by side in the same session on a fixed pure-Python workload.

A CI runner a little slower than the one the targets were set on then no longer turns a benchmark
red (one did, at 208 ms against 200 ms), while a real regression — a search twice as slow — still
does. `NOISE` is the spread of a median on a shared machine, measured by repeated runs
(`pytest -n 0 benchmarks --benchmark-enable` five times: up to 15 % between runs).
"""

from __future__ import annotations

import time
from functools import cache

# The reference workload's best time on the machine the targets were set on (2-core CI-class VM,
# 2026-12-02, the best of 7 runs (46-50 ms over four sessions) of `_reference_work`): the unit that every target is stated in.
REFERENCE_SECONDS = 0.048
# How far a median may wander between runs of the same code on a shared machine.
NOISE = 1.25


def _reference_work() -> float:
    """Float arithmetic, dict and list traffic in the proportions of a plan search."""
    table: dict[int, float] = {}
    total = 0.0
    for i in range(240_000):
        x = (i % 97) * 1.000_1 + 0.5
        table[i % 4096] = table.get(i % 4096, 0.0) + x
        total += x * x / (x + 1.0)
    return total + sum(sorted(table.values())[:10])


@cache
def machine_factor() -> float:
    """How many times slower than the reference machine this one is now (never below 1: a fast
    machine does not tighten a target)."""
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        _reference_work()
        best = min(best, time.perf_counter() - start)
    return max(1.0, best / REFERENCE_SECONDS)


def bound(target_seconds: float) -> float:
    """The largest median accepted for a benchmark whose target is `target_seconds` on the
    reference machine."""
    return target_seconds * machine_factor() * NOISE
