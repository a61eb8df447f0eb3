"""Pure estimators (memory, compute, communication, data pipeline, training time, serving, cost),
each taking the catalog as input; `estimate` runs them for one configuration (estimate/run.py)."""

from __future__ import annotations

from gpuwise.estimate.memory import largest_fitting, memory
from gpuwise.estimate.memory.breakdown import MemoryBreakdown, MemoryEstimate
from gpuwise.estimate.memory.inference import kv_cache_bytes
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
