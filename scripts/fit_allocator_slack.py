#!/usr/bin/env python3
"""Fit the caching allocator's slack to published max-reserved peaks, judged out of sample.

torch.cuda.max_memory_reserved = max_memory_allocated + the caching allocator's free blocks. gpuwise
adds a fraction of the allocated bytes (the convention `allocator_fragmentation`). This script takes
every checked published peak measured as max reserved that is not a named miss (corpus/memory_accuracy.py
KNOWN_MISSES: those miss for reasons the slack is not), reads the estimate's allocated bytes, and fits
the slack as the median implied slack (published / allocated - 1) over all of them; each source family
(releases of one publication are one family: corpus/data/source_families.yaml) is also predicted by the
slack fitted on the other families. It prints, per source and pooled, the median |error| and the signed
bias with the former 5 % assumption and with the fitted slack held out by family.

Writes src/gpuwise/catalog/data/allocator_fit.yaml (the fitted convention, merged into the catalog's
conventions by the loader); `--check` fails if it is out of date; `--json` prints the numbers. The
dated holdouts are never read (docs/memory-model.md, 'Allocator slack'). Run from the repository root:
`python scripts/fit_allocator_slack.py`.
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
from corpus.generated import write_or_check  # noqa: E402
from corpus.memory_accuracy import KNOWN_MISSES, evaluate_all, load, measured_as  # noqa: E402
from gpuwise.catalog import load_catalog  # noqa: E402

KINDS = ("finetune_peak", "training_peak")
OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "allocator_fit.yaml"


@dataclass(frozen=True)
class Peak:
    id: str
    source: str
    published: float  # bytes, max reserved
    allocated: float  # the estimate's max allocated (bytes)


def reserved_peaks() -> tuple[list[Peak], float]:
    """The checked max-reserved peaks outside the named misses and outside stacks that keep their
    parameters and gradients in contiguous buffers (their slack is the convention
    allocator_fragmentation_assumed, not this fit), with the estimate's allocated bytes (the
    estimate less the slack the catalog holds, so the fit does not depend on it); and the assumed
    slack (what the catalog held for these peaks before the fit, reported beside it)."""
    cat = load_catalog()
    slack = cat.conventions["allocator_fragmentation"].value
    cases = {c["id"]: c for c in load()["cases"]}
    out = []
    for r in evaluate_all(cat):
        if r.kind not in KINDS or not r.checked or r.ours is None or r.id in KNOWN_MISSES:
            continue
        if measured_as(cases[r.id]) != "max_reserved":
            continue
        if r.stack is not None and cat.frameworks[r.stack].contiguous_buffers:  # the stack the estimate ran
            continue
        out.append(Peak(r.id, r.source, r.published, r.ours / (1 + slack)))  # max_reserved = allocated x (1 + slack)
    return out, cat.conventions["allocator_fragmentation_assumed"].value


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
    """Errors with the assumed `slack` and with a slack fitted without each source family."""
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


def render(rep: dict[str, object], peaks: list[Peak]) -> str:
    """The generated conventions file: the slack fitted over every family, with what it was fitted to."""
    fit, oos = rep["fitted_slack_all_sources"], rep["out_of_sample"]
    assert isinstance(fit, float) and isinstance(oos, dict)
    families = len({family_of(p.source) for p in peaks})
    q1, _, q3 = statistics.quantiles([implied(p) for p in peaks], n=4)
    why = (
        f"max reserved over max allocated: the caching allocator keeps freed and split blocks reserved, and the "
        f"fit also absorbs what the allocated estimate misses (an empirical correction): the median implied "
        f"slack (published max reserved / estimated max allocated - 1) of {len(peaks)} checked peaks from "
        f"{families} source families of PyTorch-native stacks (interquartile range {q1:.1%} to {q3:.1%}); each "
        f"family predicted by the slack fitted without it: median |error| {oos['median_abs_error']:.1%}, bias "
        f"{oos['bias']:+.1%} (out of sample)"
    )
    return (
        "\n".join(
            [
                "# Generated by scripts/fit_allocator_slack.py from the published max-reserved peaks of corpus/data;",
                "# do not edit. Merged into conventions.yaml's by the loader; docs/memory-model.md, 'Allocator slack'.",
                "conventions:",
                "  allocator_fragmentation:",
                f"    value: {round(fit, 4)}",
                "    unit: fraction of allocated bytes",
                "    source: gpuwise-fit-allocator-slack",
                f'    why: "{why}"',
            ]
        )
        + "\n"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true", help="print the numbers, write nothing")
    ap.add_argument("--check", action="store_true", help="exit 1 if the written file is out of date")
    args = ap.parse_args()
    peaks, assumed = reserved_peaks()
    rep = report(peaks, assumed)
    if args.json:
        print(json.dumps(rep, indent=2))
        return 0
    written = write_or_check({OUT: render(rep, peaks)}, args.check, "python scripts/fit_allocator_slack.py")
    if written or args.check:
        return written
    w, o = rep["with_assumed"], rep["out_of_sample"]
    assert isinstance(w, dict) and isinstance(o, dict)
    print(
        f"{len(peaks)} checked max-reserved peaks; assumption {assumed:.0%}, fit over all {rep['fitted_slack_all_sources']:.1%}"
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
