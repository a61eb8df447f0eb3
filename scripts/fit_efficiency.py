#!/usr/bin/env python3
"""Derive each training framework's efficiency from that stack's published runs, judged out of sample.

The efficiency of a profile is the factor that makes the median measured/estimated throughput of
its checked runs (corpus/data/published_perf.yaml) equal to 1. Each source is also predicted with an
efficiency fitted without it (leave one source out: the other sources of the same stack, or every
other stack's runs when the stack has one source family); releases of one publication are one family
(corpus/data/source_families.yaml: NeMo and Megatron-Bridge releases, torchtitan's performance page,
...) and are left out together. Those errors, not the in-sample fit, are what docs/accuracy-time.md
reports. A stack without published runs gets the pooled fit over all runs. The holdout
(corpus/data/holdout.yaml) is never read.

Writes src/gpuwise/catalog/data/framework_efficiency.yaml (`--check`: fail if it is out of date).
Run from the repository root: `python scripts/fit_efficiency.py`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus import perf_accuracy  # noqa: E402
from corpus.families import family_of  # noqa: E402
from corpus.generated import write_or_check  # noqa: E402
from gpuwise.catalog import Catalog  # noqa: E402
from gpuwise.catalog.loader import build_catalog  # noqa: E402

OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "framework_efficiency.yaml"
ITERATIONS = 6  # fixed-point steps; the ratio is near-linear in the efficiency, 4 reach 1e-4
START = 0.7  # any positive start converges


@dataclass(frozen=True)
class Case:
    """A checked LLM training run, with the stack it ran on."""

    id: str
    source: str
    framework: str
    raw: dict[str, Any]

    @property
    def family(self) -> str:
        """The source's family: releases of one publication are left out together."""
        return family_of(self.source)


@dataclass(frozen=True)
class Fit:
    value: float
    cases: int
    sources: tuple[str, ...]
    pooled: bool
    loso: dict[str, float]  # case id -> out-of-sample error (ours / published - 1)

    def loso_errors(self) -> list[float]:
        return list(self.loso.values())


def with_efficiency(cat: Catalog, framework: str, value: float) -> Catalog:
    prof = replace(cat.frameworks[framework], efficiency=value)
    return replace(cat, frameworks={**cat.frameworks, framework: prof})


def fittable(cat: Catalog) -> list[Case]:
    """Checked LLM training runs (models known by totals, ResNet/BERT, are not a stack's LLM runs)."""
    out = []
    for c in perf_accuracy.load()["cases"]:
        if c["kind"] != "training":
            continue
        r = perf_accuracy.evaluate(c, cat)
        if r.checked and r.error is not None and perf_accuracy.is_llm(c["id"]):
            out.append(Case(c["id"], c["source"], perf_accuracy.framework_of_case(c), c))
    return out


def _ratio(case: Case, cat: Catalog, framework: str, value: float) -> float:
    """published / estimated speed of one case when `framework` runs at `value` (and the case's
    own stack at `value` too: each case is estimated under its own profile)."""
    r = perf_accuracy.evaluate(case.raw, with_efficiency(cat, case.framework, value))
    assert r.error is not None, case.id
    return 1 / (1 + r.error) if case.raw["metric"] != "step_seconds" else 1 + r.error


def fit_value(cases: Iterable[Case], cat: Catalog) -> float:
    """The efficiency e with median(published / estimated(e)) = 1, by fixed-point iteration."""
    group = list(cases)
    value = START
    for _ in range(ITERATIONS):
        value *= statistics.median(_ratio(c, cat, c.framework, value) for c in group)
    return value


def _error(case: Case, cat: Catalog, value: float) -> float:
    r = perf_accuracy.evaluate(case.raw, with_efficiency(cat, case.framework, value))
    assert r.error is not None
    return r.error


def leave_out_groups(cases: list[Case]) -> dict[str, list[Case]]:
    """The cases held out together: one group per source family (releases of one publication)."""
    groups: dict[str, list[Case]] = {}
    for c in cases:
        groups.setdefault(c.family, []).append(c)
    return dict(sorted(groups.items()))


def fit_all(cat: Catalog) -> dict[str, Fit]:
    cases = fittable(cat)
    pooled = fit_value(cases, cat)
    out: dict[str, Fit] = {}
    for fw in cat.frameworks:
        own = [c for c in cases if c.framework == fw]
        sources = tuple(sorted({c.source for c in own}))
        loso: dict[str, float] = {}
        for fam, held in leave_out_groups(own).items():
            train = [c for c in own if c.family != fam] or [c for c in cases if c.family != fam]
            value = fit_value(train, cat)
            loso.update({c.id: _error(c, cat, value) for c in held})
        value = fit_value(own, cat) if own else pooled
        out[fw] = Fit(round(value, 4), len(own), sources, not own, loso)
    return out


def render(fits: dict[str, Fit]) -> str:
    lines = [
        "# Generated by scripts/fit_efficiency.py from corpus/data/published_perf.yaml; do not edit.",
        "# value: the efficiency making the median measured/estimated speed of the stack's checked runs 1;",
        "# loso_*: errors of each source family predicted with an efficiency fitted without it (out of sample);",
        "# bias: median signed error (ours / published - 1; negative = gpuwise slower than measured).",
        "efficiency:",
    ]
    for fw, f in fits.items():
        errs = f.loso_errors()
        bits = [f"value: {f.value}", f"cases: {f.cases}"]
        if f.sources:
            bits.append(f"sources: [{', '.join(f.sources)}]")
        bits.append(f"pooled: {'true' if f.pooled else 'false'}")
        if errs:
            bits.append(f"loso_median_abs_error: {round(statistics.median(abs(e) for e in errs), 4)}")
            bits.append(f"loso_bias: {round(statistics.median(errs), 4)}")
        lines.append(f"  {fw}: {{{', '.join(bits)}}}")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the catalog file is out of date")
    args = ap.parse_args()
    text = render(fit_all(build_catalog()))
    return write_or_check({OUT: text}, args.check, "python scripts/fit_efficiency.py")


if __name__ == "__main__":
    sys.exit(main())
