"""A measurement in words: its headline figures and the workload it was measured at, for the
import message, `calibrate list` and the matrix. Pure text, from plain values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuwise.calibration.parsed import unit_of
from gpuwise.units import fmt_bytes, fmt_measure

# The figures each kind leads with, in order (the rest stay in --json).
HEADLINE = {
    "serving": ("ttft.median", "tpot.median", "output_tokens_per_second"),
    "collective": ("busbw",),
    "training": ("tokens_per_second_per_gpu", "mfu", "peak_reserved_bytes"),
    "memory": ("peak_allocated_bytes", "peak_reserved_bytes"),
}
_LABEL = {
    "ttft": "TTFT",
    "tpot": "TPOT",
    "itl": "ITL",
    "e2e": "end-to-end",
    "output_tokens_per_second": "output",
    "total_tokens_per_second": "prompt + output",
    "requests_per_second": "requests",
    "busbw": "bus bandwidth",
    "busbw_in_place": "bus bandwidth in place",
    "algbw": "algorithm bandwidth",
    "avg_busbw": "average bus bandwidth",
    "collective_seconds": "time",
    "tokens_per_second_per_gpu": "per GPU",
    "flops_per_gpu": "per GPU",
    "mfu": "MFU",
    "step_seconds": "step",
    "peak_reserved_bytes": "peak reserved",
    "peak_allocated_bytes": "peak allocated",
    "peak_active_bytes": "peak active",
}


def label(name: str) -> str:
    """'ttft.median' -> 'TTFT median', 'tokens_per_second_per_gpu' -> 'per GPU'."""
    head, _, stat = name.partition(".")
    return f"{_LABEL.get(head, head)} {stat}".strip()


def fmt_figure(name: str, value: float) -> str:
    """A figure in its unit, for people."""
    unit = unit_of(name)
    if unit == "bytes":
        return fmt_bytes(value)
    if unit == "fraction":
        return f"{value:.1%}"
    if unit in ("tokens/s", "requests/s"):
        return f"{value:,.0f} {unit}" if value >= 100 else f"{value:,.2f} {unit}"
    return fmt_measure(value, unit)


def headline(kind: str, figures: Mapping[str, float]) -> str:
    """'TTFT median 78.4 ms, TPOT median 12.9 ms, output 2,403 tokens/s'."""
    return ", ".join(f"{label(k)} {fmt_figure(k, figures[k])}" for k in HEADLINE.get(kind, ()) if k in figures)


def shape_text(kind: str, shape: Mapping[str, Any]) -> str:
    """'concurrency 32, 1,024 in / 256 out' or 'all_reduce of 8.0 GiB over 8 ranks'."""
    if kind == "serving":
        return f"concurrency {shape.get('concurrency')}, {shape.get('input_tokens'):,} in / {shape.get('output_tokens'):,} out"
    if kind == "collective":
        return (
            f"{shape.get('collective')} of {fmt_bytes(float(shape.get('bytes') or 0))} over {shape.get('ranks')} ranks"
        )
    if kind == "training":
        parts = [f"micro-batch {shape['micro_batch']}" if "micro_batch" in shape else None]
        parts += [f"global batch {shape['global_batch']}" if "global_batch" in shape else None]
        parts += [f"seq {shape['seq']:,}" if "seq" in shape else None]
        parts += [f"{k} {shape[k]}" for k in ("tp", "pp", "cp", "zero") if k in shape]
        return ", ".join(p for p in parts if p) or "shape not in the log"
    return ", ".join(f"{k} {v}" for k, v in shape.items()) or "no workload shape"


__all__ = ["HEADLINE", "fmt_figure", "headline", "label", "shape_text"]
