#!/usr/bin/env python3
"""Write docs/accuracy-holdout.md: gpuwise against the dated holdout (corpus/data/holdout.yaml),
published measurements first read on or after 2026-12-01 that nothing was fitted or tuned to.

Run from the repository root: `python scripts/holdout.py` (add `--check` to fail when the file on
disk is out of date, as the test suite does). `--freeze` writes the first scoring once, to
docs/accuracy-holdout-2026-12-01.md, and refuses to overwrite it: that record is the baseline later
work is judged against.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus import holdout  # noqa: E402
from corpus.holdout import GOAL, KINDS, UNITS, Scored, summarize  # noqa: E402

OUT = ROOT / "docs" / "accuracy-holdout.md"
FROZEN = ROOT / "docs" / f"accuracy-holdout-{holdout.FIRST_READ}.md"
GOALS = {"memory": 0.06, "training": 0.12, "inference": 0.12}  # median |error|; and >= 85 % within ±20 %
SHARE_GOAL = 0.85
BAND_COVERAGE_GOAL, BAND_WIDTH_GOAL = 0.70, 1.8


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.1%}" if signed else f"{x:.1%}"


def _value(si: float | None, unit: str) -> str:
    """A figure in the case's own unit, as the source printed it."""
    if si is None:
        return "—"
    x = si / UNITS[unit]
    return f"{x:,.4g} {unit}" if abs(x) < 1e4 else f"{x:,.0f} {unit}"


def _summary_rows(title: str, results: list[Scored]) -> list[str]:
    rows = []
    for kind in (*KINDS, "all"):
        group = [r for r in results if kind in ("all", r.kind)]
        s = summarize(group)
        goal = GOALS.get(kind)
        meets = ""
        if s.median_abs is not None and s.within is not None:
            ok = (goal is None or s.median_abs <= goal) and s.within >= SHARE_GOAL
            meets = "yes" if ok else "no"
        within = "—" if s.within is None else f"{s.within:.0%} ({round(s.within * s.cases)}/{s.cases})"
        goal_text = f"≤ {goal:.0%}, ≥ {SHARE_GOAL:.0%}" if goal else f"≥ {SHARE_GOAL:.0%} within"
        rows.append(
            f"| {title} | {kind} | {s.cases} | {_pct(s.median_abs)} | {_pct(s.bias, True)} | {within} | "
            f"{goal_text} | {meets} |"
        )
    return rows


def render_summary(results: list[Scored], overlap: int) -> list[str]:
    clean = [r for r in results if not r.overlap_risk]
    unscored = [r for r in results if r.predicted is None]
    lines = [
        "## Summary",
        "",
        "| cases | kind | n | median abs error | bias | within ±20% | goal | meets |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
        *_summary_rows("all", results),
        *_summary_rows(f"without the {overlap} overlap-risk", clean),
        "",
    ]
    if unscored:
        lines += [
            f"Not estimable ({len(unscored)}: left out of the medians, counted outside ±20 %):",
            "",
            *(f"- {r.id}: {r.note}" for r in unscored),
            "",
        ]
    return lines


def render_bands(results: list[Scored]) -> list[str]:
    lines = ["## Bands", ""]
    banded = [r for r in results if r.band is not None]
    if not banded:
        return [
            *lines,
            "Not yet available: no estimate JSON carries `uncertainty`. When it does, this section reports, per",
            "kind, the share of published figures inside the band and the median width (high / low); the goal",
            f"is at least {BAND_COVERAGE_GOAL:.0%} covered with a median width of at most {BAND_WIDTH_GOAL}x.",
            "",
        ]
    lines += [
        "The band of each prediction from the estimate's `uncertainty` (low, high at its level); `covered`:",
        f"the published figure lies inside it. Goal: ≥ {BAND_COVERAGE_GOAL:.0%} covered, median width ≤ {BAND_WIDTH_GOAL}x.",
        "",
        "| kind | with a band | covered | median width (high/low) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for kind in (*KINDS, "all"):
        group = [r for r in banded if kind in ("all", r.kind)]
        if not group:
            lines.append(f"| {kind} | 0 | — | — |")
            continue
        covered = sum(bool(r.covered) for r in group)
        width = statistics.median(b[1] / b[0] for r in group if (b := r.band) is not None and b[0] > 0)
        lines.append(f"| {kind} | {len(group)} | {covered / len(group):.0%} ({covered}) | {width:.2f}x |")
    return [*lines, ""]


def render_gaps(cases: list[Mapping[str, Any]], results: list[Scored], catalogue: Mapping[str, str]) -> list[str]:
    by_id = {r.id: r for r in results}
    lines = [
        "## What gpuwise cannot express yet",
        "",
        "Each need is named in the cases it affects (`needs:` in corpus/data/holdout.yaml); those cases are",
        "scored with the nearest option gpuwise has. A need with `wants` is met as soon as gpuwise accepts",
        "those options: the case then uses them.",
        "",
        "| need | what | cases | open | met | cases |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for need, what in catalogue.items():
        ids = [str(c["id"]) for c in cases if any(n["id"] == need for n in c.get("needs") or ())]
        met = [i for i in ids if need in by_id[i].met]
        lines.append(f"| `{need}` | {what} | {len(ids)} | {len(ids) - len(met)} | {len(met)} | {', '.join(ids)} |")
    return [*lines, ""]


def _expressed(case: Mapping[str, Any], r: Scored) -> str:
    parts = []
    for need in case.get("needs") or ():
        mark = "met" if need["id"] in r.met else "open"
        parts.append(f"`{need['id']}` ({mark}): {need.get('as_run', '')}")
    if r.note:
        parts.append(f"not estimable: {r.note}")
    return "; ".join(parts) or "as published"


def render_cases(cases: list[Mapping[str, Any]], results: list[Scored]) -> list[str]:
    by_id = {r.id: r for r in results}
    lines = ["## Cases", ""]
    for kind in KINDS:
        lines += [
            f"### {kind}",
            "",
            "| case | figure | published | predicted | error | expressed as | inputs |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
        ]
        for case in (c for c in cases if c["kind"] == kind):
            r = by_id[str(case["id"])]
            unit = str(case["measured"]["unit"])
            name = f"[{r.id}]({case['source']['url']})" + (" (overlap risk)" if r.overlap_risk else "")
            lines.append(
                f"| {name} | {r.metric} | {_value(r.published, unit)} | {_value(r.predicted, unit)} | "
                f"{_pct(r.error, True)} | {_expressed(case, r)} | `{holdout.command(r.options)}` |"
            )
        lines.append("")
    return lines


def render(doc: Mapping[str, Any], results: list[Scored], frozen: Iterable[str] = ()) -> str:
    """The document; with `frozen` (its header lines), the dated record of the first scoring."""
    cases = list(doc["cases"])
    overlap = sum(bool(c.get("overlap_risk")) for c in cases)
    sources = len({str(c["source"]["url"]).split("/blob/")[0] for c in cases})
    header = list(frozen) or [
        "Generated by `python scripts/holdout.py` from `corpus/data/holdout.yaml`; do not edit (`--check` fails",
        "when it is out of date).",
    ]
    first = "this is that record." if frozen else f"that record is [{FROZEN.name}]({FROZEN.name}), never regenerated."
    lines = [
        f"# Accuracy on the dated holdout ({_status(doc, bool(frozen))})",
        "",
        *header,
        "",
        f"**{'The cases' if doc.get('diagnostic_since') and not frozen else 'Out of sample'}.** {len(cases)} published "
        f"measurements from {sources} sources the project had not used,",
        f"first read on or after {doc['first_read']}: nothing in gpuwise was fitted or tuned to them. Each is",
        "predicted as `gpuwise estimate` predicts it (the command in its row reproduces the figure). They were",
        f"scored first before any mechanism changed for them; {first}",
        *_diagnostic_note(doc, bool(frozen)),
        "",
        "`error` = predicted / published − 1 on the figure as the source printed it; `bias` = median signed",
        "error with one sign for every figure: positive when gpuwise predicts more memory or a faster run (for",
        f"figures that are times the sign of the error is flipped); `within ±20%`: |error| ≤ {GOAL:.0%}. Goals:",
        "memory median |error| ≤ 6 %, training and inference ≤ 12 %, at least 85 % within ±20 %.",
        f"`overlap risk`: {overlap} cases from sources the project's own diagnostic cases probably drew on",
        "(the gatherer's judgement), also reported without them.",
        "",
        *render_summary(results, overlap),
        *render_bands(results),
        *render_gaps(cases, results, doc["needs"]),
        *render_cases(cases, results),
    ]
    return "\n".join(lines).rstrip() + "\n"


def _status(doc: Mapping[str, Any], frozen: bool) -> str:
    """Out of sample for the frozen first scoring; diagnostic once the cases' misses were read."""
    since = doc.get("diagnostic_since")
    return "out of sample" if frozen or not since else f"diagnostic since {since}, not out of sample"


def _diagnostic_note(doc: Mapping[str, Any], frozen: bool) -> list[str]:
    since, diagnosis = doc.get("diagnostic_since"), doc.get("diagnosis")
    if frozen or not since:
        return []
    return [
        "",
        f"**Diagnostic since {since}, not out of sample.** The misses of this first holdout were read to find",
        f"their causes ([{Path(str(diagnosis)).name}]({Path(str(diagnosis)).name})); mechanisms changed for causes found in the runs'",
        "own sources, never constants fitted to these rows, but the figures below are no longer out of sample:",
        "the frozen record is. A second holdout, gathered apart, judges the changes.",
    ]


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/accuracy-holdout.md is out of date")
    ap.add_argument("--freeze", action="store_true", help=f"write the first scoring to {FROZEN.name} (once)")
    args = ap.parse_args()
    doc = holdout.load()
    results = holdout.evaluate_all()
    text = render(doc, results)
    if args.check:
        stale = [p.name for p in (OUT,) if not p.exists() or p.read_text(encoding="utf-8") != text]
        if not FROZEN.exists():
            stale.append(f"{FROZEN.name} (missing: run with --freeze once)")
        if stale:
            print(f"{', '.join(stale)} out of date: run python scripts/holdout.py", file=sys.stderr)
            return 1
        return 0
    if args.freeze:
        if FROZEN.exists():
            print(f"{FROZEN.relative_to(ROOT)} exists: the first scoring is never regenerated", file=sys.stderr)
            return 1
        header = [
            f"**Frozen first scoring**, made on {datetime.date.today()} by `python scripts/holdout.py --freeze` on main",
            f"at commit {_commit()}, before any mechanism changed for these cases. Never regenerated; the current",
            "scoring is [accuracy-holdout.md](accuracy-holdout.md).",
        ]
        FROZEN.write_text(render(doc, results, header), encoding="utf-8")
        print(f"wrote {FROZEN.relative_to(ROOT)}")
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
