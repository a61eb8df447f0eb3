"""Filtering and sorting the GPU catalog (shared by the CLI and the web UI)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuwise.catalog.loader import Catalog
from gpuwise.catalog.schema import GPU
from gpuwise.errors import UsageError
from gpuwise.units import GiB, parse_bytes

_SORT_KEYS: dict[str, Callable[[GPU], Any]] = {
    "name": lambda g: g.id,
    "memory": lambda g: g.memory_bytes,
    "bandwidth": lambda g: g.memory_bandwidth,
    "bf16": lambda g: g.peak_flops.get("bf16", g.peak_flops.get("fp16", 0)),
    "fp8": lambda g: g.peak_flops.get("fp8", 0),
    "tdp": lambda g: g.tdp_watts,
    "price": lambda g: g.price.list_usd or float("inf"),
    "cloud": lambda g: g.price.cloud_usd_per_gpu_hour or float("inf"),
    "release": lambda g: g.release or "",
}


def filter_gpus(
    catalog: Catalog,
    vendor: str | None = None,
    architecture: str | None = None,
    min_memory: str | int | None = None,
    sort: str = "name",
    descending: bool = False,
) -> list[GPU]:
    if sort not in _SORT_KEYS:
        raise UsageError(f"--sort must be one of {', '.join(_SORT_KEYS)}; got {sort!r}")
    floor = 0
    if min_memory is not None:
        try:
            # a bare number means GiB: nobody filters GPUs by bytes
            floor = (
                int(float(min_memory) * GiB)
                if str(min_memory).replace(".", "", 1).isdigit()
                else parse_bytes(str(min_memory))
            )
        except ValueError as exc:
            raise UsageError(f"--min-memory: {exc}") from None
    rows = [
        g
        for g in catalog.gpus.values()
        if (vendor is None or g.vendor == vendor.lower())
        and (architecture is None or g.architecture == architecture.lower())
        and g.memory_bytes >= floor
    ]
    return sorted(rows, key=_SORT_KEYS[sort], reverse=descending)
