"""PyTorch's memory counters: `torch.cuda.memory_stats()` dumped as JSON (one device's flat
mapping, or one per device: a list, or a mapping of device names such as 'cuda:0'), or text lines
a script printed (`max_memory_allocated: 52345678901`, `max_memory_reserved = 61.2 GiB`; a line
holding only a number is `torch.cuda.max_memory_allocated()` in bytes).

Keys read from memory_stats (torch/cuda/memory.py): allocated_bytes.all.peak,
reserved_bytes.all.peak, active_bytes.all.peak, num_ooms, num_alloc_retries. With several
devices the most loaded one counts, as gpuwise's per-GPU memory is the most loaded GPU's.
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.calibration.parsed import Parsed, clean, number
from gpuwise.errors import ConfigError
from gpuwise.files import parse_json
from gpuwise.units import GB, KB, MB, GiB, KiB, MiB

FORMAT = "torch-memory"
_STATS = {
    "allocated_bytes.all.peak": "peak_allocated_bytes",
    "reserved_bytes.all.peak": "peak_reserved_bytes",
    "active_bytes.all.peak": "peak_active_bytes",
}
_TEXT = {
    "max_memory_allocated": "peak_allocated_bytes",
    "max_memory_reserved": "peak_reserved_bytes",
}
_LINE = re.compile(
    r"(max_memory_allocated|max_memory_reserved)\b[^0-9]*?([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*"
    r"(bytes|B|KiB|MiB|GiB|KB|MB|GB)?\b"
)
_BARE = re.compile(r"^\s*([0-9]+)\s*$")
_UNITS = {None: 1, "bytes": 1, "B": 1, "KiB": KiB, "MiB": MiB, "GiB": GiB, "KB": KB, "MB": MB, "GB": GB}


def parse(text: str) -> tuple[Parsed, ...]:
    stripped = text.strip()
    if not stripped:
        raise ConfigError(
            "the file is empty: expected torch.cuda.memory_stats() as JSON, or max_memory_allocated lines"
        )
    if stripped[0] in "{[":
        figures, facts = _from_json(parse_json(stripped, "the file"))
    else:
        figures, facts = _from_text(text)
    return (Parsed(format=FORMAT, figures=figures, shape={}, gpu_count=facts.get("devices"), facts=facts),)


def _from_json(doc: Any) -> tuple[dict[str, float], dict[str, Any]]:
    devices = _devices(doc)
    read = [_stats(d, where) for where, d in devices]
    figures = max(read, key=lambda f: max(f.values()))
    facts: dict[str, Any] = {"devices": len(read)} if len(read) > 1 else {}
    for key in ("num_ooms", "num_alloc_retries"):
        values = [number(d[key], f"{where}key {key!r}") for where, d in devices if key in d]
        if values:
            facts[key] = int(max(values))
    return figures, facts


def _devices(doc: Any) -> list[tuple[str, dict[str, Any]]]:
    """(where, stats) per device: a flat memory_stats mapping, a list of them, or a mapping of them."""
    if isinstance(doc, dict) and any(k in doc for k in _STATS):
        return [("", doc)]
    if isinstance(doc, list) and doc and all(isinstance(d, dict) for d in doc):
        return [(f"item {i}: ", d) for i, d in enumerate(doc)]
    if isinstance(doc, dict) and doc and all(isinstance(d, dict) for d in doc.values()):
        return [(f"{clean(str(k), 40)!r}: ", d) for k, d in doc.items()]
    raise ConfigError(
        f"no key {' or '.join(repr(k) for k in _STATS)}: not the JSON of torch.cuda.memory_stats() (or a list or "
        "mapping of it per device)"
    )


def _stats(stats: dict[str, Any], where: str) -> dict[str, float]:
    out = {ours: number(stats[theirs], f"{where}key {theirs!r}") for theirs, ours in _STATS.items() if theirs in stats}
    if not out:
        raise ConfigError(f"{where}no key {' or '.join(repr(k) for k in _STATS)}: not torch.cuda.memory_stats()")
    return out


def _from_text(text: str) -> tuple[dict[str, float], dict[str, Any]]:
    figures: dict[str, float] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if (m := _LINE.search(line)) is not None:
            value = number(float(m.group(2)), f"line {n}") * _UNITS[m.group(3)]
            key = _TEXT[m.group(1)]
            figures[key] = max(figures.get(key, 0.0), value)
        elif (b := _BARE.match(line)) is not None:
            key = "peak_allocated_bytes"
            figures[key] = max(figures.get(key, 0.0), float(b.group(1)))
        elif line.strip():
            raise ConfigError(
                f"line {n}: expected 'max_memory_allocated: BYTES' or 'max_memory_reserved: BYTES' (or a number of "
                f"bytes alone), got {clean(line, 60)!r}"
            )
    return figures, {}
