#!/usr/bin/env python3
"""Fit the serving engines' overheads to published measurements at load, judged out of sample.

What the roofline of a serving step leaves out is three numbers per engine (catalog engines.yaml):
the share of the large-GEMM rate a step's GEMMs reach (`matmul_efficiency`), a fixed cost per layer
of each engine step (`layer_overhead_seconds`: the chain of small kernels a layer launches, with the
step's scheduling and sampling spread over its layers) and per request (`request_overhead_seconds`:
front end, tokenizer). Per layer, not per step: fitted as one cost per step it left Llama 3.1 8B's
TPOT (32 layers) 16-29 % too slow and 70B's (80 layers) 13-21 % too fast, held out by (model, GPU)
pair; per layer, the held-out TPOT median went from 20.9 % to 12.3 % (2026-12-06). They are fitted to the checked cases of
corpus/data/published_serving.yaml of the engine named by an engine's `overheads_from`; today only
TensorRT-LLM's fit is used, every other engine borrows it and its notes say that the values were not
fitted to it (vLLM's own cases, fitted alone, predicted worse out of sample: engines.yaml's
gpuwise-serving-fit-borrowed source).

The fit minimizes the mean |log(ours / published)| over the engine's cases: a pattern search over a
lattice of the GEMM share and the layer overhead (from a fixed start, so the result does not depend
on what the catalog holds), with the request overhead, which only adds to each request's TTFT and
to the run's end, solved on its own lattice at every point. Each held-out unit is then predicted
with values fitted without it: a source family (corpus/data/source_families.yaml) when the engine's
cases come from several publications (as vLLM's would), else a (model, GPU) pair (TensorRT-LLM's
cases are one page republished per release). Those errors, not the in-sample fit, are what
docs/accuracy-serving.md and the README report. Cases of engines that borrow a fit are out of
sample by engine.

Writes src/gpuwise/catalog/data/serving_fit.yaml (the values and the summary) and
corpus/data/serving_held_out.yaml (every checked case's out-of-sample error, which
scripts/accuracy.py and scripts/fit_bands.py read); `--check` fails if either is out of date. The
holdout (corpus/data/holdout.yaml) is never read. Run from the repository root:
`python scripts/fit_serving.py`.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from corpus import families, serving_accuracy  # noqa: E402
from corpus.generated import held_out_yaml, write_or_check  # noqa: E402
from gpuwise.catalog import Catalog  # noqa: E402
from gpuwise.catalog.loader import build_catalog  # noqa: E402

OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "serving_fit.yaml"
CASES_OUT = serving_accuracy.HELD_OUT
# the lattice: GEMM share in steps of 0.5 %, layer overhead in steps of 2 us, request overhead in
# steps of 0.1 ms up to 20 ms; the search starts at the first hand fit (65 %, 2.5 ms a step: 78 us a
# layer of a 32-layer model) with steps of 16, 8, 4, 2 and 1 lattice units
SHARE_UNIT, LAYER_UNIT, REQUEST_UNIT = 0.005, 2e-6, 1e-4
START = (130, 39)
STRIDES = (16, 8, 4, 2, 1)
REQUEST_POINTS = 201
SHARE_RANGE = (40, 200)  # 20 % .. 100 % of the large-GEMM rate


@dataclass(frozen=True)
class Case:
    """A checked published case at load, with its (model, GPU) pair and its source family."""

    id: str
    engine: str
    group: str  # the (model, GPU) pair
    family: str  # the source family (corpus/data/source_families.yaml)
    metric: str
    published: float
    key: str  # its simulation (the metrics of one run share it)
    inputs: dict[str, Any]


@dataclass(frozen=True)
class Fit:
    """The values fitted to one engine's cases, and each case's out-of-sample error."""

    engine: str
    matmul_efficiency: float
    layer_overhead_seconds: float
    request_overhead_seconds: float
    cases: int
    groups: tuple[str, ...]
    held_out_by: str  # "source family" or "(model, GPU) pair"
    in_sample: dict[str, float]  # case id -> error with the values fitted on every case
    held_out: dict[str, float]  # case id -> error with the values fitted without its held-out unit


def checked_cases() -> list[Case]:
    out = []
    for c in serving_accuracy.load()["cases"]:
        if not c.get("checked", True):
            continue
        inp = c["inputs"]
        out.append(
            Case(
                c["id"],
                str(inp["engine"]),
                f"{inp['model']} on {inp['gpu']}",
                families.family_of(str(c["source"])),
                c["metric"],
                float(c["published_value"]),
                serving_accuracy.run_key(inp),
                inp,
            )
        )
    return out


class Lattice:
    """Simulations of the engine's cases at lattice points, each run once however many fits ask."""

    def __init__(self, cat: Catalog, engine: str) -> None:
        self.cat, self.engine = cat, engine
        self.runs: dict[tuple[str, int, int], serving_accuracy.Run] = {}

    def catalog(self, share: int, layer: int) -> Catalog:
        prof = replace(
            self.cat.engines[self.engine],
            matmul_efficiency=share * SHARE_UNIT,
            layer_overhead_seconds=layer * LAYER_UNIT,
            request_overhead_seconds=0.0,
        )
        return replace(self.cat, engines={**self.cat.engines, self.engine: prof})

    def run(self, case: Case, share: int, layer: int) -> serving_accuracy.Run:
        k = (case.key, share, layer)
        if k not in self.runs:
            self.runs[k] = serving_accuracy.simulate_inputs(case.inputs, self.catalog(share, layer))
        return self.runs[k]

    def loss(self, cases: list[Case], share: int, layer: int) -> tuple[float, int]:
        """(mean |log(ours / published)|, request overhead in lattice units) at the best request overhead."""
        runs = [self.run(c, share, layer) for c in cases]
        best = (math.inf, 0)
        for r in range(REQUEST_POINTS):
            sec = r * REQUEST_UNIT
            total = sum(
                abs(math.log(run.value(c.metric, sec) / c.published)) for c, run in zip(cases, runs, strict=True)
            )
            best = min(best, (total / len(cases), r))
        return best


def search(lattice: Lattice, cases: list[Case]) -> tuple[int, int, int]:
    """The lattice point (share, layer, request) of least loss: a pattern search with shrinking strides."""
    share, layer = START
    score, req = lattice.loss(cases, share, layer)
    for stride in STRIDES:
        moved = True
        while moved:
            moved = False
            for ds, dt in ((stride, 0), (-stride, 0), (0, stride), (0, -stride)):
                s2, t2 = share + ds, layer + dt
                if not SHARE_RANGE[0] <= s2 <= SHARE_RANGE[1] or t2 < 0:
                    continue
                trial, r2 = lattice.loss(cases, s2, t2)
                if trial < score - 1e-12:
                    share, layer, score, req, moved = s2, t2, trial, r2, True
    return share, layer, req


def errors(lattice: Lattice, cases: Iterable[Case], point: tuple[int, int, int]) -> dict[str, float]:
    share, layer, req = point
    return {c.id: lattice.run(c, share, layer).value(c.metric, req * REQUEST_UNIT) / c.published - 1 for c in cases}


def held_out_unit(own: list[Case]) -> tuple[str, Callable[[Case], str]]:
    """What one held-out fit leaves out: a whole source family when the cases come from several
    (a publication's cases share its harness, so they are not independent of each other), else a
    (model, GPU) pair."""
    if len({c.family for c in own}) > 1:
        return "source family", lambda c: c.family
    return "(model, GPU) pair", lambda c: c.group


def fit_engine(cat: Catalog, engine: str, cases: list[Case]) -> Fit:
    """Fit on every case of `engine`, then each held-out unit predicted by a fit without it."""
    own = [c for c in cases if c.engine == engine]
    lattice = Lattice(cat, engine)
    point = search(lattice, own)
    unit_name, unit = held_out_unit(own)
    groups = tuple(sorted({unit(c) for c in own}))
    held: dict[str, float] = {}
    for g in groups:
        rest = [c for c in own if unit(c) != g]
        held.update(errors(lattice, [c for c in own if unit(c) == g], search(lattice, rest)))
    return Fit(
        engine,
        round(point[0] * SHARE_UNIT, 4),
        round(point[1] * LAYER_UNIT, 6),
        round(point[2] * REQUEST_UNIT, 6),
        len(own),
        groups,
        unit_name,
        errors(lattice, own, point),
        held,
    )


def fitted_engines(cat: Catalog) -> list[str]:
    """The engines whose own cases are fitted: those some engine's `overheads_from` names."""
    return sorted({p.overheads_from for p in cat.engines.values()})


def borrowed(cat: Catalog, fits: dict[str, Fit], cases: list[Case]) -> dict[str, float]:
    """Cases of engines that borrow another engine's fit, predicted with it (out of sample by engine)."""
    out: dict[str, float] = {}
    for engine, prof in sorted(cat.engines.items()):
        fit = fits[prof.overheads_from]
        own = [c for c in cases if c.engine == engine]
        if engine == prof.overheads_from or not own:
            continue
        lattice = Lattice(cat, engine)
        point = (
            round(fit.matmul_efficiency / SHARE_UNIT),
            round(fit.layer_overhead_seconds / LAYER_UNIT),
            round(fit.request_overhead_seconds / REQUEST_UNIT),
        )
        out.update(errors(lattice, own, point))
    return out


def fit_all(cat: Catalog) -> tuple[dict[str, Fit], dict[str, float]]:
    """(fit per fitted engine, every checked case's out-of-sample error)."""
    cases = checked_cases()
    fits = {e: fit_engine(cat, e, cases) for e in fitted_engines(cat)}
    held = {cid: e for f in fits.values() for cid, e in f.held_out.items()}
    held.update(borrowed(cat, fits, cases))
    return fits, held


def _median_abs(errs: list[float]) -> float:
    return round(statistics.median(abs(e) for e in errs), 4)


def _summary(errs: dict[str, float], cases: list[Case]) -> str:
    metric = {c.id: c.metric for c in cases}
    bits = []
    for m in ("output_tokens_per_second", "mean_ttft_seconds", "mean_tpot_seconds"):
        group = [e for cid, e in errs.items() if metric[cid] == m]
        if group:
            bits.append(
                f"{m}: {{cases: {len(group)}, median_abs_error: {_median_abs(group)}, "
                f"bias: {round(statistics.median(group), 4)}}}"
            )
    return "{" + ", ".join(bits) + "}"


def render(fits: dict[str, Fit], cases: list[Case]) -> str:
    lines = [
        "# Generated by scripts/fit_serving.py from corpus/data/published_serving.yaml; do not edit.",
        "# Per fitted engine: the GEMM share of the large-GEMM rate, the layer and request overheads that",
        "# minimize the mean |log(ours / published)| over its checked cases (in sample), and the errors of",
        "# each held-out unit (held_out_by: a source family, or a (model, GPU) pair when every case is",
        "# from one publication) predicted with values fitted without it (held_out: out of sample);",
        "# bias: median signed error (ours / published - 1). Engines take the fit their `overheads_from`",
        "# names (engines.yaml); one that borrows another engine's fit says so in every estimate.",
        "fits:",
    ]
    for engine, f in fits.items():
        lines += [
            f"  {engine}:",
            f"    matmul_efficiency: {f.matmul_efficiency}",
            f"    layer_overhead_seconds: {f.layer_overhead_seconds:.6f}",  # a plain decimal YAML reads as a float
            f"    request_overhead_seconds: {f.request_overhead_seconds}",
            f"    cases: {f.cases}",
            f"    groups: {len(f.groups)}  # held out by {f.held_out_by}",
            f"    in_sample: {_summary(f.in_sample, cases)}",
            f"    held_out: {_summary(f.held_out, cases)}",
        ]
    return "\n".join(lines) + "\n"


def render_cases(held: dict[str, float]) -> str:
    return held_out_yaml(
        [
            "# Generated by scripts/fit_serving.py; do not edit. Every checked case of published_serving.yaml",
            "# with its out-of-sample error (ours / published - 1): a case of a fitted engine predicted with the",
            "# overheads fitted without its held-out unit (a source family, or a (model, GPU) pair when all its",
            "# cases are one publication's); a case of an engine that borrows a fit, predicted with it (never",
            "# fitted to that engine).",
            "# Read by scripts/accuracy.py and scripts/fit_bands.py.",
        ],
        held,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the written files are out of date")
    args = ap.parse_args()
    cat = build_catalog()
    fits, held = fit_all(cat)
    texts = {OUT: render(fits, checked_cases()), CASES_OUT: render_cases(held)}
    return write_or_check(texts, args.check, "python scripts/fit_serving.py")


if __name__ == "__main__":
    sys.exit(main())
