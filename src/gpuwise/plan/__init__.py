"""The recommender: search GPU type x count x layout x method, check every requirement, rank by
cost (or time), explain, and check growth. `plan()` returns frozen, complete results
(gpuwise.plan.results); the words for its reasons are the edges' (gpuwise.i18n).

The names load on first use (PEP 562): importing one helper module does not import the whole search.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuwise.plan.results import Candidate, PlanResult, Reason, Rejection
    from gpuwise.plan.search import plan

__all__ = ["Candidate", "PlanResult", "Reason", "Rejection", "plan"]

_HOME = {"plan": "gpuwise.plan.search"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module(_HOME.get(name, "gpuwise.plan.results")), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
