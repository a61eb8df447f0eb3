"""The frozen first scorings of the dated holdouts (docs/accuracy-holdout*-2026-*.md, the file each
holdout YAML names under `frozen`): what gpuwise predicted for each case before any mechanism changed
for it, from sources the project had not used. Read here for one use only: the width of the
uncertainty bands (scripts/fit_bands.py), which they calibrate as the honest record of how wrong the
model is on unseen sources. No model constant is fitted to them, and a set not yet scored (a sealed
one) has no frozen scoring to read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus import holdout

ROOT = Path(__file__).resolve().parent.parent
# the holdouts whose frozen first scoring calibrates the band widths (a set joins once it is scored)
CALIBRATING = (1, 2, 3, 4, 5)
_ROW = re.compile(r"^\| \[(?P<id>[^\]]+)\]\([^)]*\)[^|]* \| (?P<metric>[^|]+) \|[^|]*\|[^|]*\| (?P<error>[^|]+) \|")


@dataclass(frozen=True, slots=True)
class FirstScored:
    """One case as its holdout's first scoring had it: error = predicted / published - 1 on the
    figure as published; `source` the document (or repository) it came from, as that holdout counts them."""

    holdout: int
    id: str
    metric: str
    error: float
    source: str
    case: Mapping[str, Any]

    @property
    def family(self) -> str:
        """Each document of a holdout weighs once, apart from every corpus family."""
        return f"holdout{self.holdout}:{self.source}"

    def log_ratio(self, time_sense: bool) -> float:
        """log(measured / predicted) of the figure in a band's sense: a time's (`time_sense`) or a
        rate's and memory's; the published figure is turned when it is the other."""
        x = -math.log1p(self.error)  # of the figure as published
        return -x if time_sense != holdout.METRICS[self.metric].time else x


def frozen_errors(doc: Path) -> dict[str, tuple[str, float]]:
    """case id -> (metric, error) from a frozen scoring's case tables (cases with no prediction left out)."""
    out: dict[str, tuple[str, float]] = {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m is None or not m["error"].strip().endswith("%"):
            continue
        out[m["id"]] = (m["metric"].strip(), float(m["error"].strip().rstrip("%").replace(",", "")) / 100)
    return out


def _source(case: Mapping[str, Any], hs: holdout.HoldoutSet) -> str:
    url = str(case["source"]["url"])
    return url if hs.by_document else url.split("/blob/")[0]


def first_scorings(sets: tuple[int, ...] = CALIBRATING) -> Iterator[FirstScored]:
    """Every case of the given holdouts with a prediction in its frozen first scoring."""
    for n in sets:
        hs = holdout.SETS[n]
        doc = holdout.load(hs.data)
        errors = frozen_errors(ROOT / str(doc["frozen"]))
        for case in doc["cases"]:
            hit = errors.get(str(case["id"]))
            if hit is None:
                continue
            metric, error = hit
            if metric != case["metric"]:
                raise ValueError(f"{hs.data.name} {case['id']}: frozen as {metric}, now {case['metric']}")
            yield FirstScored(n, str(case["id"]), metric, error, _source(case, hs), case)
