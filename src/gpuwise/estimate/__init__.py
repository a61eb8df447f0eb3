"""Pure estimators: memory now; compute, communication, pipeline, serving and cost build on it."""

from __future__ import annotations

from gpuwise.estimate.memory import (
    MemoryBreakdown,
    MemoryEstimate,
    kv_cache_bytes,
    largest_fitting,
    memory,
)
from gpuwise.estimate.run import Estimate, LatencyTarget, estimate

__all__ = [
    "Estimate",
    "LatencyTarget",
    "MemoryBreakdown",
    "MemoryEstimate",
    "estimate",
    "kv_cache_bytes",
    "largest_fitting",
    "memory",
]
