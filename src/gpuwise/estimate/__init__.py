"""Pure estimators: memory now; compute, communication, pipeline, serving and cost build on it."""

from __future__ import annotations

from gpuwise.estimate.memory import (
    MemoryBreakdown,
    MemoryEstimate,
    kv_cache_bytes,
    largest_fitting,
    memory,
)
from gpuwise.estimate.report import Estimate, estimate

__all__ = [
    "Estimate",
    "MemoryBreakdown",
    "MemoryEstimate",
    "estimate",
    "kv_cache_bytes",
    "largest_fitting",
    "memory",
]
