"""NVML and sysfs values made typed and SI on the way in: text, numbers, percent, MHz, CUDA versions."""

from __future__ import annotations

from typing import Any


def as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return str(value).strip("\x00").strip() or None


def as_int(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def as_float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def percent_ratio(percent: Any) -> float | None:
    value = as_float(percent)
    return None if value is None else value / 100.0


def mhz_to_hz(value: Any) -> float | None:
    value = as_float(value)
    return None if value is None else value * 1e6


def cuda_version_text(value: Any) -> str | None:
    """NVML's 1000*major + 10*minor (12040) as '12.4'."""
    v = as_int(value)
    if not v:
        return None
    return f"{v // 1000}.{(v % 1000) // 10}"
