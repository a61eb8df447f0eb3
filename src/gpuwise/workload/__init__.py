"""Typed workload specs (training, inference, hardware) and their validated construction.

The names load on first use (PEP 562) so that reading the option schema
(`gpuwise.workload.schema`, which every CLI start does) does not import the catalog.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_BUILD = ("build_hardware", "build_workload", "check_layout", "data_parallel")
_SPECS = ("DTYPE_BYTES", "DataPipeline", "Hardware", "InferenceJob", "Parallelism", "TrainingJob", "Workload")
_WHERE = {**dict.fromkeys(_BUILD, "gpuwise.workload.build"), **dict.fromkeys(_SPECS, "gpuwise.workload.specs")}

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


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
