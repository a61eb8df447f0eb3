"""Range checks for the command line's own numeric options (the schema's fields have theirs).

typer's `min`/`max` let NaN through (every comparison with NaN is false) and know nothing of
infinity, so each numeric option is checked here, explicitly, with a message naming the flag.
"""

from __future__ import annotations

import math
from typing import TypeVar

from gpuwise.errors import UsageError

N = TypeVar("N", int, float)

# the largest shortfall against a baseline that `bench accept` allows; a roll-out's gates run it with
# the plan's --tolerance, so `rollout plan` takes no more (at 1 a card that measures nothing passes)
MAX_TOLERANCE = 0.99


def bounded(value: N, flag: str, low: float, high: float) -> N:
    """`value` when it is a finite number within [low, high]; else a usage error naming `flag`."""
    finite = not isinstance(value, float) or math.isfinite(value)
    if not finite or not low <= value <= high:
        shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
        raise UsageError(f"{flag} must be a number from {low:g} to {high:g}; got {shown}")
    return value


__all__ = ["MAX_TOLERANCE", "bounded"]
