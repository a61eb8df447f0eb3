"""Typed workload specs (training, inference, hardware) and their validated construction."""

from __future__ import annotations

from gpuwise.workload.build import build_hardware, build_workload, check_layout, data_parallel
from gpuwise.workload.specs import (
    DTYPE_BYTES,
    DataPipeline,
    Hardware,
    InferenceJob,
    Parallelism,
    TrainingJob,
    Workload,
)

__all__ = [
    "DTYPE_BYTES",
    "DataPipeline",
    "Hardware",
    "InferenceJob",
    "Parallelism",
    "TrainingJob",
    "Workload",
    "build_hardware",
    "build_workload",
    "check_layout",
    "data_parallel",
]
