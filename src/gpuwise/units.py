"""Unit constants, parsing of human sizes/durations and formatting for people.

JSON output is SI base units (bytes, seconds, FLOP/s); these helpers are for people.
"""

from __future__ import annotations

import math
import re

from gpuwise.errors import UsageError

KiB = 2**10
MiB = 2**20
GiB = 2**30
TiB = 2**40
KB = 10**3
MB = 10**6
GB = 10**9
TB = 10**12
DAYS_PER_YEAR = 365.25  # the Julian year: calendars average to it
MONTHS_PER_YEAR = 12
DAYS_PER_MONTH = DAYS_PER_YEAR / MONTHS_PER_YEAR
_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(m|mo|months?|y|years?|d|days?)?\s*$", re.IGNORECASE)
MAX_QUANTITY = 1e18  # the largest size, count or duration a person may type

_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "k": KB,
    "kb": KB,
    "m": MB,
    "mb": MB,
    "g": GB,
    "gb": GB,
    "t": TB,
    "tb": TB,
    "kib": KiB,
    "mib": MiB,
    "gib": GiB,
    "tib": TiB,
}
SIZE_PATTERN = r"\s*([0-9.]+(?:e[+-]?\d+)?)\s*([a-zA-Z]*)\s*"  # a number, then a unit of _SIZE_UNITS
_COUNT_UNITS = {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_DURATION_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def _finite(value: float, text: object, what: str) -> float:
    """Sizes and counts a person types are finite and at most 1e18 (an exabyte; no overflow later)."""
    if not math.isfinite(value) or abs(value) > MAX_QUANTITY:
        raise ValueError(f"{what} {str(text)[:40]!r} is out of range (at most {MAX_QUANTITY:.0e})")
    return value


def parse_bytes(text: str | int | float) -> int:
    """'24GiB', '80GB', '512MiB', 1024 -> bytes. Bare numbers are bytes."""
    if isinstance(text, int | float):
        return int(_finite(float(text) if abs(text) < 1e300 else math.inf, text, "size"))
    m = re.fullmatch(SIZE_PATTERN, text[:200])
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise ValueError(f"not a size: {text[:40]!r} (examples: 24GiB, 80GB, 512MiB)")
    try:
        number = float(m.group(1))
    except ValueError:
        raise ValueError(f"not a size: {text[:40]!r} (examples: 24GiB, 80GB, 512MiB)") from None
    return int(_finite(number * _SIZE_UNITS[m.group(2).lower()], text, "size"))


def parse_count(text: str | int | float) -> float:
    """'2T', '300B', '1.5M', 1e9 -> a count (tokens, samples). B means billion here."""
    if isinstance(text, int | float):
        return _finite(float(text) if abs(text) < 1e300 else math.inf, text, "count")
    m = re.fullmatch(r"\s*([0-9.]+(?:e[+-]?\d+)?)\s*([a-zA-Z]?)\s*", text[:200])
    if not m or m.group(2).lower() not in _COUNT_UNITS:
        raise ValueError(f"not a count: {text[:40]!r} (examples: 2T, 300B, 1.5M, 1e9)")
    try:
        number = float(m.group(1))
    except ValueError:
        raise ValueError(f"not a count: {text[:40]!r} (examples: 2T, 300B, 1.5M, 1e9)") from None
    return _finite(number * _COUNT_UNITS[m.group(2).lower()], text, "count")


def parse_age(text: str) -> float:
    """An age as a price's is counted, in months: '12m', '1y', '90d', '6' (months)."""
    m = _AGE.match(str(text))
    if not m:
        raise UsageError(f"--max-age {str(text)[:40]!r}: give a number of months like 12m, or 1y, or 90d")
    value, unit = float(m.group(1)), (m.group(2) or "m").lower()
    if unit.startswith("y"):
        return value * MONTHS_PER_YEAR
    if unit.startswith("d"):
        return value / DAYS_PER_MONTH
    return value


def parse_duration(text: str | int | float) -> float:
    """'2h', '3d', '90m', '1h30m', 3600 -> seconds."""
    if isinstance(text, int | float):
        return _finite(float(text) if abs(text) < 1e300 else math.inf, text, "duration")
    parts = re.findall(r"([0-9.]+)\s*([a-zA-Z]+)", text)
    rebuilt = "".join(f"{n}{u}" for n, u in parts)
    if not parts or rebuilt != re.sub(r"\s+", "", text):
        raise ValueError(f"not a duration: {text!r} (examples: 2h, 3d, 90m, 1h30m)")
    total = 0.0
    for number, unit in parts:
        if unit.lower() not in _DURATION_UNITS:
            raise ValueError(f"unknown time unit {unit!r} in {text[:40]!r} (use s, m, h, d, w)")
        try:
            total += float(number) * _DURATION_UNITS[unit.lower()]
        except ValueError:
            raise ValueError(f"not a duration: {text[:40]!r} (examples: 2h, 3d, 90m, 1h30m)") from None
    return _finite(total, text, "duration")


def fmt_gib(n_bytes: float, digits: int = 1) -> str:
    return f"{n_bytes / GiB:.{digits}f} GiB"


def fmt_bytes(n_bytes: float) -> str:
    """Binary units, chosen for size."""
    for unit, size in (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if abs(n_bytes) >= size:
            return f"{n_bytes / size:.1f} {unit}"
    return f"{n_bytes:.0f} B"


def fmt_rate(bytes_per_s: float) -> str:
    """Bandwidths are quoted in decimal units by every vendor: keep GB/s."""
    if bytes_per_s >= TB:
        return f"{bytes_per_s / TB:.2f} TB/s"
    if bytes_per_s >= 10 * GB:
        return f"{bytes_per_s / GB:.0f} GB/s"
    if bytes_per_s >= GB:
        return f"{bytes_per_s / GB:.1f} GB/s"
    return f"{bytes_per_s / 1e6:.1f} MB/s"  # small messages, CPU collectives


def fmt_flops(flops: float) -> str:
    if flops >= 1e15:
        return f"{flops / 1e15:.2f} PFLOP/s"
    if flops >= 1e12:
        return f"{flops / 1e12:.1f} TFLOP/s"
    return f"{flops / 1e9:.1f} GFLOP/s"


def fmt_count(n: float) -> str:
    for suffix, size in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.2f}{suffix}"
    return f"{n:.0f}"


def fmt_seconds(s: float) -> str:
    if 0 < s < 1e-4:  # a kernel's launch, a short kernel: "0.0 ms" would say nothing
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    if s < 172800:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} d"


def fmt_usd(x: float | None) -> str:
    """Dollars for people: cents only below $100 (a $2.27 fine-tune run is not "$2")."""
    if x is None:
        return "—"
    return f"${x:,.0f}" if abs(x) >= 100 else f"${x:,.2f}"


def fmt_measure(value: float, unit: str) -> str:
    """A measured value in the unit it was stored with (a capability-matrix cell): the CLI's
    `gpuwise matrix` and the web's matrix page both write it this way."""
    if unit == "FLOP/s":
        return fmt_flops(value)
    if unit == "bytes/s":
        return fmt_rate(value)
    if unit == "seconds":
        return fmt_seconds(value)
    return f"{value:,.1f} {unit}"
