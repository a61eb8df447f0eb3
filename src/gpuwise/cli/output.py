"""The one JSON printer of the command line: strict JSON (no NaN or Infinity), SI values as computed.

Every command's `--json` goes through `print_json`, so a script reading the output can trust that
it parses with any JSON reader. A non-finite number reaching here slipped past input validation:
that is gpuwise's bug, reported (exit 70 in `main`) with where the value sits, never printed.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any


def _where_not_finite(data: Any, path: str = "$") -> str | None:
    """The JSON path of the first NaN or infinity in `data` (for the bug report)."""
    if isinstance(data, float) and not math.isfinite(data):
        return path
    if isinstance(data, dict):
        items: Any = ((f"{path}.{k}", v) for k, v in data.items())
    elif isinstance(data, list | tuple):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(data))
    else:
        return None
    for sub, value in items:
        found = _where_not_finite(value, sub)
        if found:
            return found
    return None


def to_json(data: Any) -> str:
    """`data` as indented strict JSON; objects JSON lacks (dates, paths) as their text."""
    try:
        return json.dumps(data, indent=2, default=str, allow_nan=False)
    except ValueError:
        raise RuntimeError(f"a non-finite number at {_where_not_finite(data)} reached the JSON output") from None


def print_json(data: Any) -> None:
    """Write `data` to stdout as strict JSON, one document ending in a newline."""
    sys.stdout.write(to_json(data) + "\n")


__all__ = ["print_json", "to_json"]
