"""One exception family for every input problem; front doors map it to exit codes/HTTP."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any


class GpuwiseError(Exception):
    """Base class: a message a person can act on. Never a bug in gpuwise itself."""

    exit_code = 2


class UsageError(GpuwiseError):
    """Bad or contradictory input (negative sizes, impossible layout, malformed file)."""


class UnknownNameError(UsageError):
    """A GPU, model or interconnect id that is not in the catalog."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        self.kind, self.name = kind, name
        names = sorted(known)
        self.suggestions = suggest(name, names)
        hint = f"; did you mean {' or '.join(repr(s) for s in self.suggestions)}?" if self.suggestions else ""
        # the catalogs with a command of their own are named by it; the others list their few names here
        where = f"`gpuwise {kind}s` lists them" if kind in LISTED else f"known: {', '.join(names)}"
        super().__init__(f"unknown {kind} {shorten(name)!r}{hint} ({where})")


LISTED = frozenset({"gpu", "model"})  # catalogs with a listing command (gpuwise gpus, gpuwise models)


class LayoutError(UsageError):
    """A parallel layout that cannot exist (tp not dividing heads, pp > layers, ...)."""


class ConfigError(UsageError):
    """A model config or data file that is missing a field or has a wrong one."""


class RequirementNotMet(GpuwiseError):
    """The question was valid but no configuration meets it (exit 1)."""

    exit_code = 1


def shorten(text: str, most: int = 60) -> str:
    """`text` cut to `most` characters (its end shown as '...'): a pasted essay in a message stays a line."""
    return text if len(text) <= most else text[: most - 3] + "..."


def suggest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Nearest names by edit similarity, plus names that contain what was typed."""
    known = list(known)
    low = name.strip().lower()[:200]  # difflib is quadratic: a pasted essay is not a name

    def ratio(k: str) -> float:
        return difflib.SequenceMatcher(None, low, k).ratio()

    containing = sorted((k for k in known if low and low in k), key=lambda k: (not k.startswith(low), -ratio(k)))
    close = [k for k in difflib.get_close_matches(low, known, n=n, cutoff=0.5) if k not in containing]
    return (containing + close)[:n]


def check_unknown(opts: Mapping[str, Any], known: Iterable[str], what: str) -> None:
    """Unknown keys are a usage error with the nearest known names."""
    known = frozenset(known)
    unknown = sorted(set(opts) - known)
    if unknown:
        hints = []
        for u in unknown:
            near = suggest(u, known)
            hints.append(f"{u!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
        raise UsageError(f"unknown {what} field(s): {', '.join(hints)}")
