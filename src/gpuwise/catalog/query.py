"""Filtering and sorting the GPU catalog (shared by the CLI and the web UI)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gpuwise.catalog.loader import Catalog
from gpuwise.catalog.schema import GPU
from gpuwise.errors import RequirementNotMet, UsageError, suggest
from gpuwise.units import fmt_bytes, parse_bytes

_SORT_KEYS: dict[str, Callable[[GPU], Any]] = {
    "name": lambda g: g.id,
    "memory": lambda g: g.memory_bytes,
    "bandwidth": lambda g: g.memory_bandwidth,
    "bf16": lambda g: g.peak_flops.get("bf16", g.peak_flops.get("fp16", 0)),
    "fp8": lambda g: g.peak_flops.get("fp8", 0),
    "tdp": lambda g: g.tdp_watts,
    "price": lambda g: g.price.list_usd or float("inf"),
    "cloud": lambda g: 0,  # by the offers' price: filter_gpus(cloud=...) (prices live in offers.yaml)
    "release": lambda g: g.release or "",
}

SORT_CHOICES = tuple(_SORT_KEYS)  # what --sort (and the API's `sort`) accepts


def _known_value(flag: str, value: str, known: Iterable[str], what: str) -> str:
    """`value` lower-cased if some GPU in the catalog has it; else a usage error naming what exists."""
    low = value.strip().lower()
    names = sorted(set(known))
    if low in names:
        return low
    hints = suggest(low, names)
    hint = f"; did you mean {' or '.join(repr(s) for s in hints)}?" if hints else ""
    raise UsageError(f"no GPU in the catalog has {flag} {value!r}{hint} (the catalog's {what}: {', '.join(names)})")


def _min_memory_bytes(min_memory: str | int | None) -> int:
    """--min-memory in bytes; a bare number means GiB (nobody filters GPUs by bytes)."""
    if min_memory is None:
        return 0
    try:
        text = str(min_memory)
        # a bare number is GiB; parse_bytes bounds it (a 400-digit number is out of range, not inf)
        return parse_bytes(f"{text}GiB" if text.replace(".", "", 1).isdigit() else text)
    except ValueError as exc:
        raise UsageError(f"--min-memory: {exc}") from None


def filter_gpus(
    catalog: Catalog,
    vendor: str | None = None,
    architecture: str | None = None,
    min_memory: str | int | None = None,
    sort: str = "name",
    descending: bool = False,
    cloud: Mapping[str, float] | None = None,
) -> list[GPU]:
    """The catalog's GPUs that pass every filter, sorted (`cloud`: USD per GPU-hour by GPU id, what
    --sort cloud orders by; GPUs without one last). A vendor or architecture the catalog lacks
    is a usage error (exit 2, with "did you mean"); valid filters that match nothing together say so
    (RequirementNotMet, exit 1) rather than print an empty table."""
    if sort not in _SORT_KEYS:
        raise UsageError(f"--sort must be one of {', '.join(_SORT_KEYS)}; got {sort!r}")
    gpus = list(catalog.gpus.values())
    vendor, architecture = (vendor or "").strip() or None, (architecture or "").strip() or None  # "": no filter
    if vendor is not None:
        vendor = _known_value("--vendor", vendor, (g.vendor for g in gpus), "vendors")
    if architecture is not None:
        architecture = _known_value("--arch", architecture, (g.architecture for g in gpus), "architectures")
    floor = _min_memory_bytes(min_memory)
    rows = [
        g
        for g in gpus
        if (vendor is None or g.vendor == vendor)
        and (architecture is None or g.architecture == architecture)
        and g.memory_bytes >= floor
    ]
    if not rows:
        raise RequirementNotMet(_no_match(gpus, vendor, architecture, min_memory))
    if sort == "cloud":
        rates = cloud or {}
        return sorted(rows, key=lambda g: rates.get(g.id, math.inf), reverse=descending)
    return sorted(rows, key=_SORT_KEYS[sort], reverse=descending)


def _no_match(gpus: list[GPU], vendor: str | None, architecture: str | None, min_memory: str | int | None) -> str:
    """Which filters were given, and what the catalog has under the vendor/architecture ones."""
    given = [f"{flag} {value}" for flag, value in (("--vendor", vendor), ("--arch", architecture)) if value]
    if min_memory is not None:
        given.append(f"--min-memory {min_memory}")
    same = [g for g in gpus if (vendor is None or g.vendor == vendor)]
    same = [g for g in same if (architecture is None or g.architecture == architecture)]
    if same and min_memory is not None:
        largest = max(same, key=lambda g: g.memory_bytes)
        such = "such " if vendor or architecture else ""
        have = f"the largest {such}GPU is {largest.id} with {fmt_bytes(largest.memory_bytes)}"
    elif vendor is not None and architecture is not None:
        archs = sorted({g.architecture for g in gpus if g.vendor == vendor})
        have = f"{vendor} GPUs in the catalog are {', '.join(archs)}"
    else:
        have = "loosen a filter"
    return f"no GPU in the catalog matches {' '.join(given)}: {have} (`gpuwise gpus` lists them all)"
