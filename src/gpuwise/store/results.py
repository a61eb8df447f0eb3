"""What a benchmark returns: measurements with their units and parameters, and the host they ran on.

Plain dataclasses (no torch, no SQL) kept with the store that persists them, so that the store
imports nothing of bench; bench, the matrix, calibration and the fleet view read them from here.
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

# Benchmarks and the unit of the value each reports (SI units: FLOP/s, bytes/s, seconds, 1/s).
BENCHMARKS = {
    "matmul": "FLOP/s",  # achieved matmul rate for one dtype and shape (best of the sweep = MAMF)
    "membw": "bytes/s",  # device copy bandwidth, bytes read + written
    "h2d": "bytes/s",  # host<->device copy, pinned or pageable, per direction
    "allreduce": "bytes/s",  # bus bandwidth (nccl-tests convention) for one message size
    "io": "samples/s",  # read + decode rate of a data set with N workers
    "step": "seconds",  # one training step, split into data/forward/backward/optimizer
    "latency": "seconds",  # request latency percentiles under open-loop load
    "launch": "seconds",  # the host's time to issue one kernel from eager PyTorch (forward: Python; backward: autograd)
}
# `gpuwise bench launch`'s figures: a kernel issued from Python without gradients (a generate loop), one in a
# training forward (recording the autograd graph), one in the backward (issued by the autograd engine)
LAUNCH_NAMES = ("inference_seconds_per_kernel", "training_forward_seconds_per_kernel", "backward_seconds_per_kernel")
# the GPU's busy share of a launch round above which the host did not set its pace (a gpuwise threshold:
# the stand-in's kernels are sized to run shorter than their launch, so a host-paced round leaves the GPU idle
# most of the time, and a busier one measured the GPU)
GPU_BOUND_SHARE = 0.8
# What the acceptance check (`gpuwise bench accept`, the fleet view) compares: (benchmark,
# measurement name, the params that must match).
ACCEPT_KEYS = (("matmul", "best", ("dtype",)), ("membw", "copy", ()), ("allreduce", "busbw", ("bytes", "ranks")))


@dataclass(frozen=True, slots=True)
class Measurement:
    """One result: `value` in `unit`, the median of `samples` (after warm-up) unless `name` says
    otherwise (e.g. 'best'); `params` are the inputs that produced it (dtype, shape, size...)."""

    benchmark: str
    name: str
    value: float
    unit: str
    params: dict[str, Any] = field(default_factory=dict)
    samples: tuple[float, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def median_of(benchmark: str, name: str, samples: list[float], unit: str, **params: Any) -> Measurement:
        return Measurement(benchmark, name, statistics.median(samples), unit, params, tuple(samples))


@dataclass(frozen=True, slots=True)
class HostFacts:
    """Recorded with every run: what the numbers were measured on."""

    hostname: str
    cpu: str
    cpu_count: int
    device: str  # 'cpu' or 'cuda'
    gpu_model: str | None = None  # as the driver names it, e.g. 'NVIDIA H100 80GB HBM3'
    gpu_id: str | None = None  # the catalog id it maps to, when it does
    gpu_count: int = 0
    driver: str | None = None
    cuda: str | None = None
    torch: str | None = None
    python: str | None = None
    clocks: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # what failed reading the host (NVML call -> message)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ImportedMeasurement:
    """One measurement the team imported (`gpuwise calibrate import`): what its file said, in SI
    units, with the catalog model and GPU it is of. `shape` is the workload it was measured at,
    in gpuwise's option names; `sha256` names the file it came from."""

    id: int
    sha256: str
    part: int
    format: str
    kind: str
    model: str | None
    gpu_id: str
    gpu_count: int
    source: str
    measured_at: str | None
    imported_at: dt.datetime
    shape: dict[str, Any]
    figures: dict[str, float]
    samples: dict[str, list[float]] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """'#12 (sha256 3f2a9c1d0b7e, vllm-bench, measured 2025-11-04)': how outputs name it (the
        import date where the file gives no date of its own)."""
        when = f"measured {self.measured_at[:10]}" if self.measured_at else f"imported {self.imported_at.date()}"
        return f"#{self.id} (sha256 {self.sha256[:12]}, {self.format}, {when})"

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["imported_at"] = self.imported_at.isoformat()
        out["notes"] = list(self.notes)
        return out
