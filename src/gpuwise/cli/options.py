"""The command line's view of the option schema: the cached field table, so that a start need not build it.

The CLI declares its workload, hardware and requirement options from `gpuwise.workload.schema`
(one schema for every door). Importing that module builds its pydantic models, which costs more
than `gpuwise --help` does otherwise; `gpuwise.workload.table` keeps the plain field records
derived from it across processes (keyed by the workload package's code), and the same table
serves the light validator of `estimate` and `plan`. Each field is a FieldInfo (with `flag`).
"""

from __future__ import annotations

from typing import Any

from gpuwise.workload import table


def fields(section: str) -> tuple[Any, ...]:
    """The fields of one schema section (workload, hardware, target, plan), in declaration order."""
    return table.fields(section)


__all__ = ["fields"]
