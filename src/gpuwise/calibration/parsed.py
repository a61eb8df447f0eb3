"""What a team's measurement file holds once read: figures in SI units with their measured
spread, the workload shape they were measured at, and the hardware and model the file names.

Plain frozen data, no I/O: the parsers (one module per tool) return it, the store keeps it, and
the calibration reads it back.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuwise.errors import ConfigError

# The formats `gpuwise calibrate import --format` reads, and the kind of measurement each gives.
FORMATS = {
    "vllm-bench": "serving",  # vLLM's benchmark_serving.py / `vllm bench serve` --save-result JSON
    "nccl-tests": "collective",  # stdout of all_reduce_perf and its siblings
    "torchtitan-log": "training",  # torchtitan's training log
    "megatron-log": "training",  # Megatron-LM's training log
    "torch-memory": "memory",  # torch.cuda.memory_stats() as JSON, or max_memory_allocated lines
}

# The unit of each figure, by the figure's first dotted part (SI: seconds, bytes, bytes/s, FLOP/s).
UNITS = {
    "ttft": "seconds",
    "tpot": "seconds",
    "itl": "seconds",
    "e2e": "seconds",
    "output_tokens_per_second": "tokens/s",
    "total_tokens_per_second": "tokens/s",
    "requests_per_second": "requests/s",
    "busbw": "bytes/s",
    "busbw_in_place": "bytes/s",
    "algbw": "bytes/s",
    "avg_busbw": "bytes/s",
    "collective_seconds": "seconds",
    "tokens_per_second_per_gpu": "tokens/s",
    "flops_per_gpu": "FLOP/s",
    "mfu": "fraction",
    "step_seconds": "seconds",
    "peak_reserved_bytes": "bytes",
    "peak_allocated_bytes": "bytes",
    "peak_active_bytes": "bytes",
}


def unit_of(figure: str) -> str:
    """The unit of a figure name such as 'ttft.median' or 'busbw'."""
    return UNITS[figure.split(".", 1)[0]]


@dataclass(frozen=True, slots=True)
class Parsed:
    """One measurement read from a file.

    `figures`: name -> value in SI units (names in UNITS, with '.mean', '.median', '.p99' where
    the tool gives several statistics); `samples`: name -> the repeated observations a figure was
    taken from (one per log line), where the file has several; `shape`: the workload it was
    measured at, in gpuwise's workload option names (input_tokens, concurrency, micro_batch...)
    or, for a collective, op/bytes/ranks; `facts`: everything else read (per-size table, tool
    version, request rate), kept as data."""

    format: str
    figures: Mapping[str, float]
    shape: Mapping[str, Any]
    model: str | None = None  # as the file names it
    gpu_name: str | None = None  # as the file names it (e.g. 'NVIDIA H100 80GB HBM3')
    gpu_memory_bytes: int | None = None
    gpu_count: int | None = None
    hosts: int | None = None
    measured_at: str | None = None  # ISO 8601, when the file says
    samples: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    facts: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return FORMATS[self.format]


# ----- helpers every parser uses ---------------------------------------------------------------
_CONTROL = re.compile(  # CSI (colours, cursor), OSC (window title: ESC ] ... BEL), other ESC pairs, controls
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|[\x00-\x1f\x7f-\x9f]"
)
MAX_NAME = 200  # characters kept of a name a file gives (model, GPU, host)


def clean(text: str, most: int = MAX_NAME) -> str:
    """A name from a file as plain text: terminal escapes and every character a terminal acts on
    (controls, bidirectional overrides) removed, cut to `most` characters."""
    return "".join(c for c in _CONTROL.sub("", text) if c.isprintable()).strip()[:most]


def strip_escapes(line: str) -> str:
    """A log line without its colour codes (torchtitan colours its metrics)."""
    return _CONTROL.sub("", line)


def number(value: Any, where: str, *, positive: bool = False) -> float:
    """A finite, non-negative number from a file (JSON booleans are not numbers); a ConfigError
    naming `where` (the key or line) otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}: expected a number, got {clean(repr(value), 40)}")
    out = float(value)
    if not math.isfinite(out) or out < 0 or (positive and out == 0):
        need = "a positive" if positive else "a finite, non-negative"
        raise ConfigError(f"{where}: expected {need} number, got {clean(repr(value), 40)}")
    return out


def whole(value: Any, where: str, *, positive: bool = True) -> int:
    """A whole number from a file (1.0 is accepted as 1)."""
    out = number(value, where, positive=positive)
    if out != int(out):
        raise ConfigError(f"{where}: expected a whole number, got {clean(repr(value), 40)}")
    return int(out)


__all__ = ["FORMATS", "UNITS", "Parsed", "clean", "number", "strip_escapes", "unit_of", "whole"]
