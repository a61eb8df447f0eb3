"""Work one plan's search would repeat, done once: within `shared_runs` (one search), identical
simulations (gpuwise.estimate.simulate.simulate_once) and the step models they run on
(gpuwise.estimate.engine.step_model) are kept and handed out again. Nothing outlives the search:
another plan, or the same plan again, computes everything anew."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_SHARED: ContextVar[dict[Hashable, Any] | None] = ContextVar("shared_runs", default=None)


@contextmanager
def shared_runs() -> Iterator[None]:
    """One search's sharing: what is kept inside is dropped when it ends."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def shared() -> dict[Hashable, Any] | None:
    """The current search's store (keys are namespaced by their users), or None outside a search."""
    return _SHARED.get()
