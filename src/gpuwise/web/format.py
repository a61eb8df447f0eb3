"""Numbers on the pages written as the CLI writes them: the same `gpuwise.units` helpers, as Jinja
filters, with "—" where a value is missing (never "0.0" for a peak a card does not have)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from jinja2 import Environment

from gpuwise.units import fmt_bytes, fmt_count, fmt_flops, fmt_gib, fmt_measure, fmt_rate, fmt_seconds, fmt_usd

MISSING = "—"


def _or_missing(fmt: Callable[..., str], zero_is_missing: bool = False) -> Callable[..., str]:
    """`fmt`, but "—" for None (and for 0 where zero means "the card has no such unit")."""

    @wraps(fmt)
    def wrapped(value: Any, *args: Any) -> str:
        if value is None or (zero_is_missing and not value):
            return MISSING
        return fmt(value, *args)

    return wrapped


def fmt_number(value: float, digits: int = 0) -> str:
    """Thousands separators, as the CLI prints rates: 12,345 tokens/s."""
    return f"{value:,.{digits}f}"


def fmt_percent(fraction: float) -> str:
    return f"{fraction:.0%}"


FILTERS: dict[str, Callable[..., str]] = {
    "bytes": _or_missing(fmt_bytes),
    "gib": _or_missing(fmt_gib),
    "rate": _or_missing(fmt_rate, zero_is_missing=True),
    "flops": _or_missing(fmt_flops, zero_is_missing=True),
    "count": _or_missing(fmt_count),
    "seconds": _or_missing(fmt_seconds),
    "usd": fmt_usd,
    "num": _or_missing(fmt_number),
    "pct": _or_missing(fmt_percent),
    "measure": _or_missing(fmt_measure),
    "missing": lambda value: MISSING if value is None or value == "" else str(value),
}


def register(env: Environment) -> None:
    """Make the filters available to every template of `env`."""
    env.filters.update(FILTERS)
