"""The command line's copy of the option schema, cached so that a start need not build it.

The CLI declares its workload, hardware and requirement options from `gpuwise.workload.schema`
(one schema for every door). Importing that module builds its pydantic models, which costs more
than `gpuwise --help` does otherwise. The field table it yields is plain data, so `gpuwise.cache`
keeps it, keyed by the code of the workload package and of gpuwise.units (all of gpuwise that the
schema imports); an edit there rebuilds it. Each field is a SimpleNamespace with FieldInfo's attributes (and `flag`).
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gpuwise
import gpuwise.workload
from gpuwise import cache

_Table = dict[str, tuple[SimpleNamespace, ...]]


def _sources() -> list[tuple[str, Any]]:
    root = Path(gpuwise.__file__).parent
    return [*cache.python_files(Path(gpuwise.workload.__file__).parent, "workload"), ("units.py", root / "units.py")]


def _build() -> _Table:
    from gpuwise.workload.schema import SECTIONS, fields

    return {
        section: tuple(SimpleNamespace(**dataclasses.asdict(f), flag=f.flag) for f in fields(section))
        for section in SECTIONS
    }


def _valid(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, tuple) for v in value.values())


@functools.cache
def _table() -> _Table:
    return cache.cached(cache.cache_file("cli-options"), lambda: cache.source_key(_sources()), _build, _valid)


def fields(section: str) -> tuple[Any, ...]:
    """The fields of one schema section (workload, hardware, target, plan), in declaration order."""
    return _table()[section]


__all__ = ["fields"]
