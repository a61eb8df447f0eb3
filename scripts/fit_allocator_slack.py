#!/usr/bin/env python3
"""Would a fitted caching-allocator slack make max-reserved peaks come out better? Judged out of sample.

torch.cuda.max_memory_reserved = max_memory_allocated + the caching allocator's free blocks. gpuwise
adds a fraction of the allocated bytes (conventions.yaml `allocator_fragmentation`, an assumption).
This script takes every checked published peak measured as max reserved that is not a named miss
(corpus/memory_accuracy.py KNOWN_MISSES: those miss for reasons the slack is not), reads the estimate's
allocated bytes, and for each source family (releases of one publication are one family:
corpus/data/source_families.yaml) fits the slack on the other families (median implied slack,
published / allocated - 1) to predict it. It prints, per source and pooled, the median |error| and
the signed bias with the current assumption and with the fitted slack, and the fit over all sources.

Nothing is written: the catalog keeps its value unless the out-of-sample error improves (see
docs/memory-model.md, 'Allocator slack'). Run from the repository root:
`python scripts/fit_allocator_slack.py` (`--json` for the numbers).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus.families import family_of  # noqa: E402
from corpus.memory_accuracy import KNOWN_MISSES, evaluate_all, load, measured_as  # noqa: E402
from gpuwise.catalog import load_catalog  # noqa: E402

KINDS = ("finetune_peak", "training_peak")


@dataclass(frozen=True)
class Peak:
    id: str
    source: str
    published: float  # bytes, max reserved
    allocated: float  # the estimate's max allocated (bytes)


def reserved_peaks() -> tuple[list[Peak], float]:
    """The checked max-reserved peaks outside the named misses, and the slack the catalog assumes."""
    cat = load_catalog()
    slack = cat.conventions["allocator_fragmentation"].value
    cases = {c["id"]: c for c in load()["cases"]}
    out = []
    for r in evaluate_all(cat):
        if r.kind not in KINDS or not r.checked or r.ours is None or r.id in KNOWN_MISSES:
            continue
        if measured_as(cases[r.id]) != "max_reserved":
            continue
        out.append(Peak(r.id, r.source, r.published, r.ours / (1 + slack)))  # max_reserved = allocated x (1 + slack)
    return out, slack


def implied(p: Peak) -> float:
    return p.published / p.allocated - 1


def errors(peaks: list[Peak], slack: float) -> list[float]:
    return [p.allocated * (1 + slack) / p.published - 1 for p in peaks]


def summary(errs: list[float]) -> dict[str, float]:
    return {
        "cases": len(errs),
        "median_abs_error": statistics.median(abs(e) for e in errs) if errs else 0.0,
        "bias": statistics.median(errs) if errs else 0.0,
    }


def leave_one_source_out(peaks: list[Peak]) -> dict[str, tuple[float, list[float]]]:
    """Per source family: the slack fitted on the other families and that family's errors with it."""
    out = {}
    for fam in sorted({family_of(p.source) for p in peaks}):
        rest = [implied(p) for p in peaks if family_of(p.source) != fam]
        fit = max(0.0, statistics.median(rest)) if rest else 0.0
        out[fam] = (fit, errors([p for p in peaks if family_of(p.source) == fam], fit))
    return out


def report(peaks: list[Peak], slack: float) -> dict[str, object]:
    loso = leave_one_source_out(peaks)
    oos = [e for _, errs in loso.values() for e in errs]
    return {
        "assumed_slack": slack,
        "fitted_slack_all_sources": max(0.0, statistics.median(implied(p) for p in peaks)) if peaks else 0.0,
        "with_assumed": summary(errors(peaks, slack)),
        "out_of_sample": summary(oos),
        "sources": {
            src: {
                "fit_without_it": fit,
                **summary(errs),
                "assumed": summary(errors([p for p in peaks if family_of(p.source) == src], slack)),
            }
            for src, (fit, errs) in loso.items()
        },
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    peaks, slack = reserved_peaks()
    rep = report(peaks, slack)
    if args.json:
        print(json.dumps(rep, indent=2))
        return 0
    w, o = rep["with_assumed"], rep["out_of_sample"]
    assert isinstance(w, dict) and isinstance(o, dict)
    print(
        f"{len(peaks)} checked max-reserved peaks; assumed slack {slack:.0%}, fit over all {rep['fitted_slack_all_sources']:.1%}"
    )
    print(f"assumed:        median |error| {w['median_abs_error']:.1%}, bias {w['bias']:+.1%}")
    print(f"fitted, LOSO:   median |error| {o['median_abs_error']:.1%}, bias {o['bias']:+.1%}")
    sources = rep["sources"]
    assert isinstance(sources, dict)
    for src, s in sources.items():
        a = s["assumed"]
        print(
            f"  {src:40s} {s['cases']:3d} cases  fit without it {s['fit_without_it']:+.1%}: "
            f"|error| {s['median_abs_error']:.1%} bias {s['bias']:+.1%}  (assumed: {a['median_abs_error']:.1%}, {a['bias']:+.1%})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
