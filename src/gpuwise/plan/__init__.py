"""The recommender: search GPU type x count x layout x method, check every requirement, rank by
cost (or time), explain, and check growth.

The names load on first use (PEP 562): reading the message catalog (`gpuwise.plan.messages`, which
the CLI renderer does) or one helper module does not import the whole search.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuwise.plan.search import Candidate, PlanResult, Rejection, plan

__all__ = ["Candidate", "PlanResult", "Rejection", "plan"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("gpuwise.plan.search"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
