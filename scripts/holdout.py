#!/usr/bin/env python3
"""Write docs/accuracy-holdout.md: gpuwise against the dated holdout (corpus/data/holdout.yaml),
published measurements first read on or after 2026-12-01 that nothing was fitted or tuned to; with
`--set 2`, docs/accuracy-holdout2.md against the second holdout (corpus/data/holdout2.yaml),
gathered apart after the first had been read for diagnosis; with `--set 3`, docs/accuracy-holdout3.md
against the third (corpus/data/holdout3.yaml), gathered apart from both; with `--set 4`,
docs/accuracy-holdout4.md against the fourth (corpus/data/holdout4.yaml), gathered apart from all three;
with `--set 5`, docs/accuracy-holdout5.md against the fifth (corpus/data/holdout5.yaml), gathered apart from
all four; with `--set 6`, docs/accuracy-holdout6.md against the sixth (corpus/data/holdout6.yaml), gathered
apart from all five; with `--set 7`, docs/accuracy-holdout7.md against the seventh (corpus/data/holdout7.yaml),
gathered apart from all six; with `--set 8`, docs/accuracy-holdout8.md against the eighth
(corpus/data/holdout8.yaml), gathered apart from all seven; with `--set 9`, docs/accuracy-holdout9.md against
the ninth (corpus/data/holdout9.yaml), gathered apart from all eight; with `--set 10`,
docs/accuracy-holdout10.md against the tenth (corpus/data/holdout10.yaml), gathered apart from all nine; with
`--set 11`, docs/accuracy-holdout11.md against the eleventh (corpus/data/holdout11.yaml), gathered apart from all ten;
with `--set 12`, docs/accuracy-holdout12.md against the twelfth (corpus/data/holdout12.yaml), gathered apart from all
eleven; with `--set 13`, docs/accuracy-holdout13.md against the thirteenth (corpus/data/holdout13.yaml), gathered apart
from all twelve; with `--set 14`, docs/accuracy-holdout14.md against the fourteenth (corpus/data/holdout14.yaml), gathered
apart from all thirteen; with `--set 15`, docs/accuracy-holdout15.md against the fifteenth (corpus/data/holdout15.yaml),
gathered apart from all fourteen; with `--set 16`, docs/accuracy-holdout16.md against the sixteenth
(corpus/data/holdout16.yaml), gathered apart from all fifteen; with `--set 17`, docs/accuracy-holdout17.md against the
seventeenth (corpus/data/holdout17.yaml), gathered apart from all sixteen; with `--set 18`, docs/accuracy-holdout18.md
against the eighteenth (corpus/data/holdout18.yaml), gathered apart from all seventeen; with `--set 19`,
docs/accuracy-holdout19.md against the nineteenth (corpus/data/holdout19.yaml), gathered apart from all eighteen; with
`--set 20`, docs/accuracy-holdout20.md against the twentieth (corpus/data/holdout20.yaml), gathered apart from all nineteen;
with `--set 21`, docs/accuracy-holdout21.md against the twenty-first (corpus/data/holdout21.yaml), gathered apart from all
twenty; with `--set 22`, docs/accuracy-holdout22.md against the twenty-second (corpus/data/holdout22.yaml), gathered apart
from all twenty-one; with `--set 23`, docs/accuracy-holdout23.md against the twenty-third (corpus/data/holdout23.yaml),
gathered apart from all twenty-two; with `--set 24`, docs/accuracy-holdout24.md against the twenty-fourth
(corpus/data/holdout24.yaml), gathered apart from all twenty-three; with `--set 25`, docs/accuracy-holdout25.md against
the twenty-fifth (corpus/data/holdout25.yaml), gathered apart from all twenty-four; with `--set 26`,
docs/accuracy-holdout26.md against the twenty-sixth (corpus/data/holdout26.yaml), gathered apart from all twenty-five;
with `--set 27`, docs/accuracy-holdout27.md against the twenty-seventh (corpus/data/holdout27.yaml), gathered apart
from all twenty-six; with `--set 28`, docs/accuracy-holdout28.md against the twenty-eighth
(corpus/data/holdout28.yaml), gathered apart from all twenty-seven; with `--set 29`, docs/accuracy-holdout29.md
against the twenty-ninth (corpus/data/holdout29.yaml), gathered apart from all twenty-eight; with `--set 30`,
docs/accuracy-holdout30.md against the thirtieth (corpus/data/holdout30.yaml), gathered apart from all twenty-nine;
with `--set 31`, docs/accuracy-holdout31.md against the thirty-first (corpus/data/holdout31.yaml), gathered apart
from all thirty; with `--set 32`, docs/accuracy-holdout32.md against the thirty-second (corpus/data/holdout32.yaml),
gathered apart from all thirty-one; with `--set 33`, docs/accuracy-holdout33.md against the thirty-third
(corpus/data/holdout33.yaml), gathered apart from all thirty-two; with `--set 34`, docs/accuracy-holdout34.md against
the thirty-fourth (corpus/data/holdout34.yaml), gathered apart from all thirty-three; with `--set 35`,
docs/accuracy-holdout35.md against the thirty-fifth (corpus/data/holdout35.yaml), gathered apart from all thirty-four;
with `--set 36`, docs/accuracy-holdout36.md against the thirty-sixth (corpus/data/holdout36.yaml), gathered apart from
all thirty-five; with `--set 37`, docs/accuracy-holdout37.md against the thirty-seventh (corpus/data/holdout37.yaml),
gathered apart from all thirty-six; with `--set 38`, docs/accuracy-holdout38.md against the thirty-eighth
(corpus/data/holdout38.yaml), gathered apart from all thirty-seven; with `--set 39`, docs/accuracy-holdout39.md
against the thirty-ninth (corpus/data/holdout39.yaml), gathered apart from all thirty-eight; with `--set 40`,
docs/accuracy-holdout40.md against the fortieth (corpus/data/holdout40.yaml), gathered apart from all thirty-nine;
with `--set 41`, docs/accuracy-holdout41.md against the forty-first (corpus/data/holdout41.yaml), gathered apart from
all forty; with `--set 42`, docs/accuracy-holdout42.md against the forty-second (corpus/data/holdout42.yaml), gathered
apart from all forty-one; with `--set 43`, docs/accuracy-holdout43.md against the forty-third
(corpus/data/holdout43.yaml), gathered apart from all forty-two; with `--set 44`, docs/accuracy-holdout44.md against
the forty-fourth (corpus/data/holdout44.yaml), gathered apart from all forty-three; with `--set 45`,
docs/accuracy-holdout45.md against the forty-fifth (corpus/data/holdout45.yaml), gathered apart from all forty-four.

Run from the repository root: `python scripts/holdout.py [--set N]` (add `--check` to fail when the
file on disk is out of date, as the test suite does). `--freeze` writes the set's first scoring once,
to the file its YAML names under `frozen` (docs/accuracy-holdout-2026-12-01.md for the first), and
refuses to overwrite it: that record is the baseline later work is judged against.
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
from corpus.generated import write_or_check  # noqa: E402
from corpus.holdout import GOAL, KINDS, SETS, UNITS, HoldoutSet, Scored, summarize  # noqa: E402

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


def _marked(cases: Iterable[Mapping[str, Any]], key: str) -> set[str]:
    """The ids of the cases that set `key` (an overlap risk, a family, an extra row)."""
    return {str(c["id"]) for c in cases if c.get(key)}


def render_summary(results: list[Scored], cases: list[Mapping[str, Any]], hs: HoldoutSet) -> list[str]:
    unscored = [r for r in results if r.predicted is None]
    lines = [
        "## Summary",
        "",
        "| cases | kind | n | median abs error | bias | within ±20% | goal | meets |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
        *_summary_rows("all", results),
    ]
    for apart in hs.apart:
        ids = _marked(cases, apart.key)
        lines += _summary_rows(f"without the {len(ids)} {apart.label}", [r for r in results if r.id not in ids])
    lines.append("")
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
    meets = []
    for kind in (*KINDS, "all"):
        group = [r for r in banded if kind in ("all", r.kind)]
        if not group:
            lines.append(f"| {kind} | 0 | — | — |")
            continue
        covered = sum(bool(r.covered) for r in group)
        width = statistics.median(b[1] / b[0] for r in group if (b := r.band) is not None and b[0] > 0)
        lines.append(f"| {kind} | {len(group)} | {covered / len(group):.0%} ({covered}) | {width:.2f}x |")
        ok = covered / len(group) >= BAND_COVERAGE_GOAL and width <= BAND_WIDTH_GOAL
        meets.append(f"{kind} {'yes' if ok else 'no'}")
    return [*lines, "", f"Meets the goal (both): {', '.join(meets)}.", ""]


def render_gaps(
    cases: list[Mapping[str, Any]], results: list[Scored], catalogue: Mapping[str, str], hs: HoldoutSet
) -> list[str]:
    by_id = {r.id: r for r in results}
    lines = [
        "## What gpuwise cannot express yet",
        "",
        f"Each need is named in the cases it affects (`needs:` in corpus/data/{hs.data.name}); those cases are",
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


def render_cases(cases: list[Mapping[str, Any]], results: list[Scored], hs: HoldoutSet) -> list[str]:
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
            unit, devices = str(case["measured"]["unit"]), holdout.run_devices(case)
            published = _value(r.published, unit)
            if devices > 1:  # a per-GPU figure, compared as the whole run's
                unit = "tokens/s"
                published = f"{case['measured']['value']:,} {case['measured']['unit']} x {devices} = {_value(r.published, unit)}"
            name = f"[{r.id}]({case['source']['url']})" + "".join(f" ({a.marker})" for a in hs.apart if case.get(a.key))
            lines.append(
                f"| {name} | {r.metric} | {published} | {_value(r.predicted, unit)} | "
                f"{_pct(r.error, True)} | {_expressed(case, r)} | `{holdout.command(r.options)}` |"
            )
        lines.append("")
    return lines


def _sources(cases: list[Mapping[str, Any]], hs: HoldoutSet) -> tuple[int, str]:
    """How many sources the cases come from: documents (their URLs), or repositories."""
    urls = [str(c["source"]["url"]) for c in cases]
    if hs.by_document:
        return len(set(urls)), "documents"
    return len({u.split("/blob/")[0] for u in urls}), "sources"


def render(doc: Mapping[str, Any], results: list[Scored], frozen: Iterable[str] = (), hs: HoldoutSet = SETS[1]) -> str:
    """The document; with `frozen` (its header lines), the dated record of the first scoring."""
    cases = list(doc["cases"])
    sources, noun = _sources(cases, hs)
    header = list(frozen) or [
        f"Generated by `{hs.command}` from `corpus/data/{hs.data.name}`; do not edit (`--check` fails",
        "when it is out of date).",
    ]
    name = Path(str(doc["frozen"])).name
    first = "this is that record." if frozen else f"that record is [{name}]({name}), never regenerated."
    notes = [line for a in hs.apart for line in a.note.format(n=len(_marked(cases, a.key))).split("\n")]
    lines = [
        f"# Accuracy on {hs.name} ({_status(doc, bool(frozen))})",
        "",
        *header,
        "",
        f"**{'The cases' if doc.get('diagnostic_since') and not frozen else 'Out of sample'}.** {len(cases)} published "
        f"measurements from {sources} {noun} the project had not used,",
        f"first read on or after {doc['first_read']}: nothing in gpuwise was fitted or tuned to them. Each is",
        "predicted as `gpuwise estimate` predicts it (the command in its row reproduces the figure). They were",
        f"scored first before any mechanism changed for them; {first}",
        *_diagnostic_note(doc, bool(frozen), hs),
        "",
        "`error` = predicted / published − 1 on the figure as the source printed it; `bias` = median signed",
        "error with one sign for every figure: positive when gpuwise predicts more memory or a faster run (for",
        f"figures that are times the sign of the error is flipped); `within ±20%`: |error| ≤ {GOAL:.0%}. Goals:",
        "memory median |error| ≤ 6 %, training and inference ≤ 12 %, at least 85 % within ±20 %.",
        *notes,
        "",
        *render_summary(results, cases, hs),
        *render_bands(results),
        *render_gaps(cases, results, doc["needs"], hs),
        *render_cases(cases, results, hs),
    ]
    return "\n".join(lines).rstrip() + "\n"


def _status(doc: Mapping[str, Any], frozen: bool) -> str:
    """Out of sample for the frozen first scoring; diagnostic once the cases' misses were read."""
    since = doc.get("diagnostic_since")
    return "out of sample" if frozen or not since else f"diagnostic since {since}, not out of sample"


def _diagnostic_note(doc: Mapping[str, Any], frozen: bool, hs: HoldoutSet) -> list[str]:
    since, diagnosis = doc.get("diagnostic_since"), doc.get("diagnosis")
    if frozen or not since:
        return []
    ordinal = {
        1: "first",
        2: "second",
        3: "third",
        4: "fourth",
        5: "fifth",
        6: "sixth",
        7: "seventh",
        8: "eighth",
        9: "ninth",
        10: "tenth",
        11: "eleventh",
        12: "twelfth",
        13: "thirteenth",
        14: "fourteenth",
        15: "fifteenth",
        16: "sixteenth",
        17: "seventeenth",
        18: "eighteenth",
        19: "nineteenth",
        20: "twentieth",
        21: "twenty-first",
        22: "twenty-second",
        23: "twenty-third",
        24: "twenty-fourth",
        25: "twenty-fifth",
        26: "twenty-sixth",
        27: "twenty-seventh",
        28: "twenty-eighth",
        29: "twenty-ninth",
        30: "thirtieth",
        31: "thirty-first",
        32: "thirty-second",
        33: "thirty-third",
        34: "thirty-fourth",
        35: "thirty-fifth",
        36: "thirty-sixth",
        37: "thirty-seventh",
        38: "thirty-eighth",
        39: "thirty-ninth",
        40: "fortieth",
        41: "forty-first",
        42: "forty-second",
        43: "forty-third",
        44: "forty-fourth",
        45: "forty-fifth",
        46: "forty-sixth",
    }
    name = Path(str(diagnosis)).name
    judge = ordinal[hs.number + 1]
    article = "An" if judge[0] in "aeiou" else "A"
    return [
        "",
        f"**Diagnostic since {since}, not out of sample.** The misses of this {ordinal[hs.number]} holdout were read to find",
        f"their causes ([{name}]({name})); mechanisms changed for causes found in the runs'",
        "own sources, never constants fitted to these rows, but the figures below are no longer out of sample:",
        f"the frozen record is. {article} {judge} holdout, gathered apart, judges the changes.",
    ]


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--set", type=int, choices=sorted(SETS), default=1, help="which holdout (default: the first)")
    ap.add_argument("--check", action="store_true", help="exit 1 if the set's document is out of date")
    ap.add_argument("--freeze", action="store_true", help="write the set's first scoring to its frozen file (once)")
    args = ap.parse_args()
    hs = SETS[args.set]
    doc = holdout.load(hs.data)
    results = holdout.evaluate_all(hs.data)
    text = render(doc, results, hs=hs)
    out, frozen = ROOT / "docs" / hs.doc, ROOT / str(doc["frozen"])
    missing = [] if frozen.exists() else [f"{frozen.name} (missing: run with --freeze once)"]
    if args.check:
        return write_or_check({out: text}, True, hs.command, missing)
    if args.freeze:
        if frozen.exists():
            print(f"{frozen.relative_to(ROOT)} exists: the first scoring is never regenerated", file=sys.stderr)
            return 1
        header = [
            f"**Frozen first scoring**, made on {datetime.date.today()} by `{hs.command} --freeze` on main",
            f"at commit {_commit()}, before any mechanism changed for these cases. Never regenerated; the current",
            f"scoring is [{hs.doc}]({hs.doc}).",
        ]
        frozen.write_text(render(doc, results, header, hs), encoding="utf-8")
        print(f"wrote {frozen.relative_to(ROOT)}")
    return write_or_check({out: text}, False, hs.command)


if __name__ == "__main__":
    sys.exit(main())
