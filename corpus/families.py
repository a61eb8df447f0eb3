"""Source families (corpus/data/source_families.yaml): releases of one publication count as one
source when a fit leaves a source out, so no release is predicted by a fit to another release of itself."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

DATA = Path(__file__).parent / "data" / "source_families.yaml"


@functools.cache
def _members() -> dict[str, str]:
    """source id -> family id."""
    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for family, entry in doc["families"].items():
        for source in entry["sources"]:
            if source in out:
                raise ValueError(f"{DATA.name}: source {source!r} is in two families")
            out[str(source)] = str(family)
    return out


def family_of(source: str) -> str:
    """The family a source belongs to (a source no family names is its own)."""
    return _members().get(source, source)


def families() -> dict[str, tuple[str, ...]]:
    """family id -> its sources, as the data file lists them."""
    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    return {str(f): tuple(str(s) for s in e["sources"]) for f, e in doc["families"].items()}
