#!/usr/bin/env python3
"""Derive the uncertainty band of every predicted figure from the errors of the published cases.

Each checked published case of the corpus (memory peaks, training throughput, TTFT, TPOT and
throughput of serving, one-pass inference) gives one signed error, taken as it was predicted out of
sample wherever the model has fitted constants: training throughput with each stack's efficiency
fitted without the case's source family (scripts/fit_efficiency.py), the per-operator model with values
fitted without the case's table family (scripts/fit_operators.py), serving at load with the overheads
fitted without the case's model/GPU pair, or for another engine than TensorRT-LLM with TensorRT-LLM's
fit (scripts/fit_serving.py; both fits write their held-out errors to corpus/data). The memory model
has no fitted constants. LLM inference rows of published_perf.yaml count as in sample: the serving
overheads are fitted to other releases of the same TensorRT-LLM tables (said in each class's basis).

A case belongs to a class: figure x model family x GPU vendor x stack (training framework or serving
engine, LLMs only) x GPU architecture. A new case most likely comes from a source the corpus does not
hold, and the cases of one source family (corpus/data/source_families.yaml: one publication's
releases) share their errors, so a class's cases are weighed by family, each family once. The band of
a class at a level L is the split-conformal interval of |log(measured / predicted)| over its K source
families: the smallest q whose family-weighted share of cases with |error| <= q reaches L (1 + 1/K),
so that a new family's case falls inside [-q, q] with probability at least L when families are
exchangeable. That needs K >= L / (1 - L) families (4 at 80 %, 9 at 90 %, 19 at 95 %) and at least
MIN_FAMILIES; a class with fewer takes its parent's band (architecture -> stack -> vendor -> family ->
figure), widened to hold the central L share of its own cases. A figure with too few families at a
level takes its largest |error| either way. A vendor and stack with no validated case get the widest
band of the figure and family, and say so. The band is symmetric because the corpus' signed errors
do not carry their sign to unseen sources (docs/uncertainty.md measures it); a class whose cases lie
on one side of the estimate keeps its `flag`, and a bias is never fitted away.

The width of every band is then calibrated on errors from sources no fit saw: the corpus' cases
against bands fitted without their family, and the frozen first scorings of the dated holdouts
(corpus/first_scorings.py; their one use, said in each holdout file). Per figure, for classes with a
validated case and for those without, the factor on the log-width is the split-conformal quantile
of each case's error over the band it met, each source family once. The judgements: the corpus
(each family against bands fitted and calibrated without it) and the holdouts (each against the
calibration without it: leave one holdout out), written to docs/uncertainty.md.

Writes src/gpuwise/catalog/data/uncertainty.yaml (`--check`: fail if it is out of date).
Run from the repository root: `python scripts/fit_bands.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import fit_efficiency  # noqa: E402

from corpus import families, holdout, memory_accuracy, operators_accuracy, perf_accuracy, serving_accuracy  # noqa: E402
from corpus.first_scorings import CALIBRATING, first_scorings  # noqa: E402
from corpus.generated import write_or_check  # noqa: E402
from gpuwise.catalog import Catalog  # noqa: E402
from gpuwise.catalog.loader import build_catalog  # noqa: E402
from gpuwise.errors import GpuwiseError  # noqa: E402
from gpuwise.estimate.bands import (  # noqa: E402
    ANY,
    DECODERS,
    FIGURES,
    LEVELS,
    ClassKey,
    bias_word,
    class_key,
    family_of,
    lineage,
    validated_key,
)
from gpuwise.workload import build_workload  # noqa: E402

OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "uncertainty.yaml"
DOC = ROOT / "docs" / "uncertainty.md"  # its corpus table, between the two markers, is written here too
BEGIN, END = "<!-- fit_bands.py: corpus judgement -->", "<!-- end of fit_bands.py's table -->"
HOLD_BEGIN, HOLD_END = "<!-- fit_bands.py: holdouts, leave one out -->", "<!-- end of fit_bands.py's holdout table -->"
KINDS = {
    "memory": "memory",
    "training": "training",
    "prefill": "inference",
    "decode": "inference",
    "onepass": "inference",
}
# The fewest source families that make a class's own band at any level: those of an 80 % band (the
# default), so a class stands on its own at every level up to the default or at none (more above it).
MIN_FAMILIES = 4
# Signed biases whose cause is known and corrected in the model before the errors are taken. Empty:
# no correction is applied here; a bias shows as a flag and a band reaching the measurements until the model's own
# mechanism removes it (the MI300X serving rows: docs/accuracy-serving.md).
SERVING_IN_SAMPLE = "in sample: serving overheads fitted to other releases of TensorRT-LLM's tables"
ENGINES = {"trt-llm": "trtllm", "trtllm": "trtllm", "vllm": "vllm", "sglang": "sglang"}


@dataclass(frozen=True)
class Evidence:
    """One published case as the bands use it: its class, log(measured / predicted) of the class's
    figure in that figure's own sense, and whether the prediction was out of sample."""

    id: str
    source: str
    key: ClassKey
    log_ratio: float
    out_of_sample: bool

    @property
    def family(self) -> str:
        """The source family (releases of one publication count once)."""
        return families.family_of(self.source)


def _key(cat: Catalog, figure: str, family: str, gpu: str, stack: str) -> ClassKey:
    """A case's class: the stack counts for decoders only (the other families have one time model)."""
    g = cat.gpu(gpu)
    return ClassKey(figure, family, g.vendor, stack if family in DECODERS else ANY, g.architecture)


def _family(cat: Catalog, inp: dict[str, Any]) -> str:
    """The case's model family (an architecture given inline is a decoder LLM's)."""
    return "llm" if inp.get("arch") else family_of(cat.model(inp["model"]))


def _log(ratio: float) -> float:
    return math.log(ratio)


# ---------------------------------------------------------------------------------------------
# evidence, one harness at a time
# ---------------------------------------------------------------------------------------------
def training_llm(cat: Catalog) -> Iterator[Evidence]:
    """LLM training throughput, each source predicted with its stack's efficiency fitted without it."""
    cases = {c["id"]: c for c in perf_accuracy.load()["cases"]}
    for fit in fit_efficiency.fit_all(cat).values():
        for cid, err in fit.loso.items():
            c = cases[cid]
            # measured / predicted speed: a time's error is of the time, a rate's of the rate
            speed = 1 + err if c["metric"] in ("step_seconds", "gpu_hours") else 1 / (1 + err)
            fam = _family(cat, c["inputs"])
            key = _key(cat, "training", fam, c["inputs"]["gpu"], perf_accuracy.framework_of_case(c))
            yield Evidence(cid, c["source"], key, _log(speed), True)


def perf_other(cat: Catalog) -> Iterator[Evidence]:
    """Checked published runs of perf_accuracy that no fit used: encoder training (the efficiencies
    are fitted on LLM runs only) and LLM inference (in sample: see SERVING_IN_SAMPLE). Models
    described operator by operator are taken from the operator harness, which holds their tables out."""
    cases = {c["id"]: c for c in perf_accuracy.load()["cases"]}
    for r in perf_accuracy.evaluate_all(cat):
        c = cases[r.id]
        if not r.checked or r.ours is None:
            continue
        fam = _family(cat, c["inputs"])
        if fam == "operators":
            continue
        if r.kind == "training":
            if fam in DECODERS:
                continue  # out of sample through fit_efficiency (training_llm)
            speed = r.ours / r.published if r.metric in ("step_seconds", "gpu_hours") else r.published / r.ours
            yield Evidence(r.id, r.source, _key(cat, "training", fam, r.gpu, ANY), _log(speed), True)
            continue
        figure, ratio = _inference_ratio(r.metric, r.published, r.ours, fam)
        stack = ENGINES.get(str(c["inputs"].get("engine") or ""), str(c["inputs"].get("engine") or ""))
        yield Evidence(r.id, r.source, _key(cat, figure, fam, r.gpu, stack), _log(ratio), fam not in DECODERS)


def _inference_ratio(metric: str, published: float, ours: float, family: str) -> tuple[str, float]:
    """(figure, measured / predicted in that figure's sense) of an inference metric."""
    if family not in DECODERS:  # one forward pass per request: samples/s, or its latency
        return "onepass", (ours / published if metric.endswith("seconds") else published / ours)
    if metric in ("ttft_seconds", "mean_ttft_seconds"):
        return "prefill", published / ours
    if metric == "prefill_tokens_per_second":
        return "prefill", ours / published
    if metric in ("tpot_seconds", "mean_tpot_seconds"):
        return "decode", ours / published
    return "decode", published / ours  # output tokens/s (per GPU, per user): the decode rate


def serving(cat: Catalog) -> Iterator[Evidence]:
    """Serving at load (TTFT, TPOT, output tokens/s under a request rate or a client count), each case
    as scripts/fit_serving.py predicted it out of sample (corpus/data/serving_held_out.yaml)."""
    doc = serving_accuracy.load()
    cases = {c["id"]: c for c in doc["cases"]}
    held = serving_accuracy.held_out_errors()
    for r in serving_accuracy.evaluate_all(cat):
        if not r.checked:
            continue
        c = cases[r.id]
        figure, ratio = _inference_ratio(r.metric, r.published, r.published * (1 + held[r.id]), "llm")
        stack = ENGINES[str(c["inputs"]["engine"])]
        key = _key(cat, figure, family_of(cat.model(r.model)), r.gpu, stack)
        yield Evidence(r.id, str(c.get("source", "")), key, _log(ratio), True)


def operators(cat: Catalog) -> Iterator[Evidence]:
    """Models described operator by operator (ResNet, EfficientNet, DLRM): each table family
    predicted with the operator values fitted without it (scripts/fit_operators.py writes the errors
    to corpus/data/operators_held_out.yaml)."""
    held = operators_accuracy.held_out_errors()
    for c in operators_accuracy.cases():
        err = held[c["id"]]
        figure = "training" if c["mode"] == "training" else "onepass"
        speed = 1 + err if c["metric"].startswith("latency") else 1 / (1 + err)
        key = _key(cat, figure, family_of(cat.model(c["model"])), c["gpu"], ANY)
        yield Evidence(c["id"], c["source"], key, _log(speed), True)


def memory(cat: Catalog) -> Iterator[Evidence]:
    """Measured peaks (fine-tuning, pretraining, generation): the memory model fits no constant."""
    cases = {c["id"]: c for c in memory_accuracy.load()["cases"]}
    for r in memory_accuracy.evaluate_all(cat):
        if r.kind not in ("finetune_peak", "training_peak", "inference_peak") or not r.checked or r.ours is None:
            continue
        inp = cases[r.id]["inputs"]
        gpu = inp["gpu"] if r.kind == "training_peak" else memory_accuracy.gpu_id(inp.get("gpu"))
        # the stack the estimate ran (memory_accuracy's framework_of); generation: Hugging Face generate()
        stack = r.stack if r.kind != "inference_peak" else "transformers"
        key = _key(cat, "memory", family_of(cat.model(inp["model"])), gpu, str(stack))
        yield Evidence(r.id, r.source, key, _log(r.published / r.ours), True)


def gather(cat: Catalog) -> list[Evidence]:
    return [*training_llm(cat), *perf_other(cat), *serving(cat), *operators(cat), *memory(cat)]


# ---------------------------------------------------------------------------------------------
# bands
# ---------------------------------------------------------------------------------------------
def needed(level: float) -> int:
    """Fewest source families whose conformal band at `level` is finite: K >= level / (1 - level),
    and at least MIN_FAMILIES."""
    return max(MIN_FAMILIES, math.ceil(level / (1 - level) - 1e-9))


def conformal(errors: Sequence[float], fams: Sequence[str], level: float) -> float | None:
    """The half-width q of the band [-q, q] at `level`: the smallest |error| whose family-weighted
    share (each family's cases weigh 1 together) reaches level x (1 + 1/K) of the K families; a new
    family's case then falls inside with probability at least `level` when families are exchangeable.
    None: fewer than needed(level) families."""
    k = len(set(fams))
    if k < needed(level):
        return None
    size = Counter(fams)
    goal = level * (1 + 1 / k) * k  # of the total weight k
    total = 0.0
    for err, fam in sorted(zip((abs(e) for e in errors), fams, strict=True)):
        total += 1 / size[fam]
        if total >= goal - 1e-9:
            return err
    raise AssertionError("the goal is at most the total weight")  # pragma: no cover


def central(errors: Sequence[float], level: float) -> tuple[float, float]:
    """The central `level` share of the cases: the floor(n p)+1-th and ceil(n (1-p))-th smallest
    errors, p = (1 - level) / 2 (all of them when n p < 1)."""
    ordered, n = sorted(errors), len(errors)
    p = (1 - level) / 2
    return ordered[math.floor(n * p + 1e-9)], ordered[max(0, math.ceil(n * (1 - p) - 1e-9) - 1)]


@dataclass
class Class:
    """A class's cases and, per level, its band in log space and the class whose quantiles gave it."""

    key: ClassKey
    evidence: list[Evidence]
    bands: dict[float, tuple[float, float]]
    source: dict[float, str]

    @property
    def errors(self) -> list[float]:
        return [e.log_ratio for e in self.evidence]

    @property
    def families(self) -> list[str]:
        return [e.family for e in self.evidence]


def classes_of(evidence: Iterable[Evidence]) -> dict[str, Class]:
    """Every class that holds a case: each case counts in its own class and all its parents."""
    out: dict[str, Class] = {}
    for e in evidence:
        for k in lineage(e.key):
            out.setdefault(k.text, Class(k, [], {}, {})).evidence.append(e)
    return out


def _parent(key: ClassKey, classes: dict[str, Class]) -> Class | None:
    chain = lineage(key)
    return next((classes[k.text] for k in chain[1:] if k.text in classes), None)


def fit_bands(classes: dict[str, Class], levels: Sequence[float] = LEVELS) -> None:
    """Each class's band per level, parents first: its own conformal band when it has the source
    families, else its parent's widened to hold the central `level` share of its own cases; a figure
    with too few families takes its largest error either way. Every band holds 0 (the estimate) and
    the band of each lower level (a class that stands on its own at 80 % but borrows its parent's at
    85 % never narrows)."""
    order = sorted(classes.values(), key=lambda c: len(lineage(c.key)))
    ordered = sorted(levels)
    for i, level in enumerate(ordered):
        for c in order:
            q = conformal(c.errors, c.families, level)
            parent = _parent(c.key, classes)
            if q is not None or parent is None:
                q = q if q is not None else max(abs(e) for e in c.errors)
                lo, hi = -q, q
                c.source[level] = c.key.text
            else:
                p_lo, p_hi = parent.bands[level]
                own_lo, own_hi = central(c.errors, level)
                lo, hi = min(p_lo, own_lo), max(p_hi, own_hi)
                c.source[level] = parent.source[level]
            below = c.bands[ordered[i - 1]] if i else (0.0, 0.0)
            c.bands[level] = (min(lo, below[0]), max(hi, below[1]))


def widest(classes: dict[str, Class]) -> dict[str, dict[float, tuple[float, float]]]:
    """Per figure and figure/family: the widest band of its classes that stand on their own cases
    at each level, or the scope's own band where none does (what an unvalidated vendor and stack get)."""
    out: dict[str, dict[float, tuple[float, float]]] = {}
    for c in classes.values():
        if c.key.vendor != ANY:
            continue
        scope = c.key.figure if c.key.family == ANY else f"{c.key.figure}/{c.key.family}"
        out[scope] = dict(c.bands)
    for c in classes.values():
        for scope in {c.key.figure, f"{c.key.figure}/{c.key.family}"} & out.keys():
            for level in c.bands:
                if c.source[level] == c.key.text:
                    lo, hi = c.bands[level]
                    w_lo, w_hi = out[scope][level]
                    out[scope][level] = (min(lo, w_lo), max(hi, w_hi))
    return out


def biased_side(c: Class) -> int | None:
    """How many of a class's cases lie on one side of the estimate, when the central 80 % of them do
    (the class is biased: said, never fitted away); else None."""
    own = central(c.errors, 0.8)
    if len(c.errors) < 3 or (own[0] <= 0 <= own[1]):
        return None
    low_side = own[1] < 0  # measured below the estimate
    return sum((e < 0) == low_side for e in c.errors)


def bias_flag(c: Class) -> str | None:
    """The words of a biased class's flag (biased_side), in the band's basis."""
    k = biased_side(c)
    if k is None:
        return None
    med = math.exp(statistics.median(c.errors)) - 1
    return (
        f"biased: {k} of {len(c.errors)} cases measured {bias_word(c.key.figure, med)} than estimated "
        f"(median {med:+.0%}); the cause is not corrected in the model, so the band reaches the measurements"
    )


def _f(x: float) -> str:
    return f"{round(math.exp(x), 4):g}"


def render(classes: dict[str, Class], wide: dict[str, dict[float, tuple[float, float]]], cal: Calibration) -> str:
    """The catalog file: the classes' bands and the widest, already scaled by the calibration."""
    lines = [
        "# Generated by scripts/fit_bands.py from the corpus' published cases (corpus/data); do not edit.",
        "# Per class (figure/family/vendor/stack/arch, '*' = every): cases, sources, source families, how",
        "# many were predicted out of sample, bias (median measured / predicted - 1 in the figure's own sense:",
        "# memory, speed, or time for prefill), a flag when the cases lie on one side of the estimate, and per",
        "# level the multipliers [low, high] on the estimate (split-conformal band of |log(measured /",
        "# predicted)| over source families, each family weighed once, its log-width scaled by the calibration",
        "# below); widened_from: the class whose band was taken where this one has too few source families.",
        f"# min_families: the fewest source families that make a class's own band at each level (at least {MIN_FAMILIES}).",
        "# calibration: per figure, for classes with a validated case and for those with none, the factor on the",
        "# log-width of the corpus band that holds each level of the errors on sources no fit saw (the corpus'",
        "# cases against bands fitted without their family, and the holdouts' frozen first scorings), each",
        "# source family once; pooled: the scope whose errors gave it where this one has too few families.",
        f"levels: [{', '.join(f'{lv:g}' for lv in LEVELS)}]",
        "min_families: {" + ", ".join(f"'{lv:g}': {needed(lv)}" for lv in LEVELS) + "}",
        "classes:",
    ]
    for text in sorted(classes):
        lines += _render_class(text, classes[text])
    lines.append("widest:")
    for scope in sorted(wide):
        lines.append(f"  {scope}:")
        lines += [f"    '{lv:g}': [{_f(lo)}, {_f(hi)}]" for lv, (lo, hi) in sorted(wide[scope].items())]
    lines.append("calibration:")
    for scope in sorted(cal.factors):
        lines.append(f"  {scope}:")
        lines.append(f"    corpus_families: {cal.families[scope][0]}")
        lines.append(f"    unseen_families: {cal.families[scope][1]}")
        lines.append(
            "    factors: {" + ", ".join(f"'{lv:g}': {f:.4g}" for lv, f in sorted(cal.factors[scope].items())) + "}"
        )
        pooled = {lv: src for lv, src in cal.pooled[scope].items() if src != scope}
        if pooled:
            lines.append("    pooled: {" + ", ".join(f"'{lv:g}': {src}" for lv, src in sorted(pooled.items())) + "}")
    return "\n".join(lines) + "\n"


def _render_class(text: str, c: Class) -> list[str]:
    oos = sum(e.out_of_sample for e in c.evidence)
    lines = [
        f"  {text}:",
        f"    cases: {len(c.evidence)}",
        f"    sources: {len({e.source for e in c.evidence})}",
        f"    families: {len(set(c.families))}",
        f"    out_of_sample: {oos}",
    ]
    if oos < len(c.evidence):
        lines.append(f"    in_sample_note: {SERVING_IN_SAMPLE!r}")
    lines.append(f"    bias: {round(math.exp(statistics.median(c.errors)) - 1, 4)}")
    flag = bias_flag(c)
    if flag:
        lines.append(f"    flag: {flag!r}")
        lines.append(f"    biased_cases: {biased_side(c)}")
    lines.append("    bands:")
    for level in LEVELS:
        lo, hi = c.bands[level]
        lines.append(f"      '{level:g}': [{_f(lo)}, {_f(hi)}]")
    widened = {lv: s for lv, s in c.source.items() if s != text}
    if widened:
        lines.append("    widened_from:")
        lines += [f"      '{lv:g}': {s}" for lv, s in widened.items()]
    return lines


# ---------------------------------------------------------------------------------------------
# errors on sources no fit saw: the corpus held out by family, and the holdouts' first scorings
# ---------------------------------------------------------------------------------------------
def band_of(
    classes: dict[str, Class], wide: dict[str, dict[float, tuple[float, float]]], key: ClassKey, level: float
) -> tuple[float, float] | None:
    """The band (log low, log high) a case of `key` gets, looked up as gpuwise.estimate.bands does;
    None when no case of its figure is left."""
    if validated_key(key).text not in classes:
        scope = wide.get(f"{key.figure}/{key.family}") or wide.get(key.figure)
        return None if scope is None else scope[level]
    return next(classes[k.text].bands[level] for k in lineage(key) if k.text in classes)


def _figure(metric: str, family: str) -> str:
    """The band figure a holdout's metric is judged by."""
    path = holdout.METRICS[metric].bands[0][0]
    if path.startswith(("memory.", "training.")):
        return path.split(".")[0]
    if family not in DECODERS:
        return "onepass"
    return "prefill" if "first_token" in path or ".ttft." in path else "decode"


def _workload_of(cat: Catalog, case: dict[str, Any]) -> tuple[Any, Any]:
    """The workload and GPU a holdout case is scored with: its nearest options, then each need's
    `wants` that gpuwise accepts (as corpus.holdout.resolve takes them)."""
    options = dict(case["gpuwise"])
    if str(options.get("model", "")).endswith(".json"):
        options["model"] = str(ROOT / str(options["model"]))
    work = build_workload(holdout.split(options)[0], cat)
    for need in case.get("needs") or ():
        if need.get("wants"):
            trial = {**options, **need["wants"]}
            with contextlib.suppress(GpuwiseError):
                work, options = build_workload(holdout.split(trial)[0], cat), trial
    return work, cat.gpu(str(options["gpu"]).split(":")[0])


def unseen(cat: Catalog, sets: tuple[int, ...] = CALIBRATING) -> list[tuple[int, Evidence]]:
    """(holdout, evidence) of each case of the holdouts' frozen first scorings, in its class today
    (a case gpuwise now refuses to estimate has no band to calibrate and is left out)."""
    out = []
    for s in first_scorings(sets):
        try:
            work, gpu = _workload_of(cat, dict(s.case))
        except GpuwiseError:
            continue
        figure = _figure(s.metric, family_of(work.model))
        ratio = s.log_ratio(FIGURES[figure][0] == "time")
        out.append((s.holdout, Evidence(s.id, s.family, class_key(figure, work, gpu), ratio, True)))
    return out


@dataclass(frozen=True)
class Met:
    """One case against the corpus band it meets (fitted without its family when it is the corpus'),
    per level; `holdout`: its holdout (0: the corpus)."""

    evidence: Evidence
    holdout: int
    validated: bool
    bands: dict[float, tuple[float, float]]

    @property
    def scope(self) -> str:
        return f"{self.evidence.key.figure}/{'validated' if self.validated else 'unvalidated'}"

    def score(self, level: float) -> float:
        """The error as a multiple of the band's half on its side (<= 1: inside)."""
        x = self.evidence.log_ratio
        edge = self.bands[level][1] if x >= 0 else self.bands[level][0]
        return abs(x / edge) if edge else (0.0 if x == 0 else math.inf)


def _met(
    e: Evidence, n: int, classes: dict[str, Class], wide: dict[str, dict[float, tuple[float, float]]]
) -> Met | None:
    bands = {lv: band_of(classes, wide, e.key, lv) for lv in LEVELS}
    if any(b is None for b in bands.values()):
        return None
    return Met(e, n, validated_key(e.key).text in classes, {lv: b for lv, b in bands.items() if b is not None})


def corpus_held_out(evidence: list[Evidence]) -> list[Met]:
    """Each corpus case against the bands fitted without its source family, at every level."""
    out = []
    for fam in sorted({e.family for e in evidence}):
        classes = classes_of(e for e in evidence if e.family != fam)
        fit_bands(classes)
        wide = widest(classes)
        out += [m for e in evidence if e.family == fam if (m := _met(e, 0, classes, wide)) is not None]
    return out


# ---------------------------------------------------------------------------------------------
# calibration: the factor on each figure's band widths that holds unseen sources' errors
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Calibration:
    """Per scope (figure/validated or figure/unvalidated) and level: the factor on the log-width,
    the scope whose errors gave it, and the (corpus, unseen) source families in the scope."""

    factors: dict[str, dict[float, float]]
    pooled: dict[str, dict[float, str]]
    families: dict[str, tuple[int, int]]


SCOPES = tuple(f"{fig}/{v}" for fig in FIGURES for v in ("validated", "unvalidated"))


def calibrate(rows: list[Met]) -> Calibration:
    """Each scope's factor per level: the split-conformal quantile of its cases' scores over their
    source families (each family once). A scope with too few families takes its figure's (classes
    with a validated case) or every figure's (classes with none: their own errors are few, and a
    figure's few would be its validated classes'); the largest score where even those are too few."""
    factors: dict[str, dict[float, float]] = defaultdict(dict)
    pooled: dict[str, dict[float, str]] = defaultdict(dict)
    fams: dict[str, tuple[int, int]] = {}
    for scope in SCOPES:
        figure, status = scope.split("/")
        own = [r for r in rows if r.scope == scope]
        pools = [(scope, own)]
        if status == "validated":
            pools.append((figure, [r for r in rows if r.evidence.key.figure == figure]))
        pools.append(("all", rows))
        fams[scope] = (
            len({r.evidence.family for r in own if not r.holdout}),
            len({r.evidence.family for r in own if r.holdout}),
        )
        for level in LEVELS:
            factors[scope][level], pooled[scope][level] = _factor(pools, level)
    for figure in FIGURES:  # what no case validates is never surer than a validated class: the widest band
        val, unval = factors[f"{figure}/validated"], factors[f"{figure}/unvalidated"]
        for level in LEVELS:
            if val[level] > unval[level]:
                unval[level], pooled[f"{figure}/unvalidated"][level] = val[level], f"{figure}/validated"
    return Calibration(dict(factors), dict(pooled), fams)


def _factor(pools: list[tuple[str, list[Met]]], level: float) -> tuple[float, str]:
    """(factor, the pool that gave it): the first pool with the families for a conformal quantile."""
    for name, pool in pools:
        if pool:
            q = conformal([r.score(level) for r in pool], [r.evidence.family for r in pool], level)
            if q is not None:
                return q, name
    return max(r.score(level) for r in pools[-1][1]), "all (wide)"


def scaled(bands: dict[float, tuple[float, float]], factors: dict[float, float]) -> dict[float, tuple[float, float]]:
    """A band per level with its log-width scaled by the level's factor, never narrower than a lower level's."""
    out: dict[float, tuple[float, float]] = {}
    lo_run, hi_run = 0.0, 0.0
    for level in sorted(bands):
        lo, hi = bands[level]
        lo_run, hi_run = min(lo_run, lo * factors[level]), max(hi_run, hi * factors[level])
        out[level] = (lo_run, hi_run)
    return out


def apply(
    classes: dict[str, Class], wide: dict[str, dict[float, tuple[float, float]]], cal: Calibration
) -> dict[str, dict[float, tuple[float, float]]]:
    """Scale every class's bands (validated) and the widest (for what no case validates) in place;
    returns the scaled widest."""
    for c in classes.values():
        c.bands = scaled(c.bands, cal.factors[f"{c.key.figure}/validated"])
    return {s: scaled(b, cal.factors[f"{s.split('/')[0]}/unvalidated"]) for s, b in wide.items()}


# ---------------------------------------------------------------------------------------------
# the bands judged on sources the fit did not see
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Judged:
    """One kind's cases against bands calibrated without them."""

    cases: int
    families: int
    covered: float  # share of the cases inside
    covered_by_family: float  # each family's share inside, averaged (each family once)
    width: float  # median high / low
    bias: float  # median measured / predicted - 1 in the figure's own sense


def _inside(m: Met, cal: Calibration, level: float) -> tuple[bool, float]:
    lo, hi = scaled(m.bands, cal.factors[m.scope])[level]
    return lo <= m.evidence.log_ratio <= hi, math.exp(hi - lo)


def summarize_kinds(rows: list[tuple[Met, bool, float]]) -> dict[str, Judged]:
    """Per kind (memory, training, inference) and all."""
    out = {}
    for kind in ("memory", "training", "inference", "all"):
        mine = [r for r in rows if kind == "all" or KINDS[r[0].evidence.key.figure] == kind]
        if not mine:
            continue
        per_fam: dict[str, list[bool]] = defaultdict(list)
        for m, inside, _ in mine:
            per_fam[m.evidence.family].append(inside)
        out[kind] = Judged(
            cases=len(mine),
            families=len(per_fam),
            covered=sum(r[1] for r in mine) / len(mine),
            covered_by_family=statistics.fmean(sum(v) / len(v) for v in per_fam.values()),
            width=statistics.median(r[2] for r in mine),
            bias=math.exp(statistics.median(r[0].evidence.log_ratio for r in mine)) - 1,
        )
    return out


def judge_corpus(corpus: list[Met], holdouts: list[Met], level: float = 0.8) -> dict[str, Judged]:
    """Each corpus family's cases against bands fitted and calibrated without that family."""
    rows = []
    for fam in sorted({m.evidence.family for m in corpus}):
        cal = calibrate([m for m in corpus if m.evidence.family != fam] + holdouts)
        rows += [(m, *_inside(m, cal, level)) for m in corpus if m.evidence.family == fam]
    return summarize_kinds(rows)


def judge_holdouts(
    corpus: list[Met], holdouts: list[Met], level: float = 0.8, calibrated: bool = True
) -> dict[int, dict[str, Judged]]:
    """Per holdout k and all: its frozen first-scoring errors against the bands calibrated without
    holdout k (leave one holdout out: an out-of-sample estimate); `calibrated` False: as the corpus
    bands alone would have them (the factor 1)."""
    rows_all = []
    out = {}
    for k in sorted({m.holdout for m in holdouts}):
        if calibrated:
            cal = calibrate(corpus + [m for m in holdouts if m.holdout != k])
        else:
            cal = Calibration({s: dict.fromkeys(LEVELS, 1.0) for s in SCOPES}, {}, {})
        rows = [(m, *_inside(m, cal, level)) for m in holdouts if m.holdout == k]
        out[k] = summarize_kinds(rows)
        rows_all += rows
    out[0] = summarize_kinds(rows_all)
    return out


def render_judgement(judged: dict[str, Judged]) -> str:
    lines = [
        BEGIN,
        "| kind | cases | source families | covered | covered, each family once | median width (high/low) | bias |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind, j in judged.items():
        lines.append(
            f"| {kind} | {j.cases} | {j.families} | {j.covered:.0%} | {j.covered_by_family:.0%} | {j.width:.2f}x "
            f"| {j.bias:+.1%} |"
        )
    return "\n".join([*lines, END])


def render_holdouts(before: dict[int, dict[str, Judged]], after: dict[int, dict[str, Judged]]) -> str:
    """The leave-one-holdout-out table: per holdout and kind, the corpus bands alone and the calibrated ones."""
    lines = [
        HOLD_BEGIN,
        "| holdout | kind | cases | documents | bias | corpus bands alone: covered | width | calibrated without it: covered | width |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for k in sorted(after, key=lambda n: (n == 0, n)):
        for kind, j in after[k].items():
            b = before[k][kind]
            name = "1-5" if k == 0 else str(k)
            lines.append(
                f"| {name} | {kind} | {j.cases} | {j.families} | {j.bias:+.1%} | {b.covered:.0%} | {b.width:.2f}x "
                f"| {j.covered:.0%} | {j.width:.2f}x |"
            )
    return "\n".join([*lines, HOLD_END])


def with_table(doc: str, table: str, begin: str, end: str) -> str:
    """docs/uncertainty.md with the table between `begin` and `end` replaced by `table`."""
    head, rest = doc.split(begin, 1)
    return head + table + rest.split(end, 1)[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--check", action="store_true", help="exit 1 if the catalog file or the doc's tables are out of date"
    )
    args = ap.parse_args()
    cat = build_catalog()
    evidence = gather(cat)
    classes = classes_of(evidence)
    fit_bands(classes)
    wide = widest(classes)
    corpus = corpus_held_out(evidence)
    holdouts = [m for n, e in unseen(cat) if (m := _met(e, n, classes, wide)) is not None]
    cal = calibrate(corpus + holdouts)
    scaled_wide = apply(classes, wide, cal)
    doc = with_table(DOC.read_text(encoding="utf-8"), render_judgement(judge_corpus(corpus, holdouts)), BEGIN, END)
    before, after = judge_holdouts(corpus, holdouts, calibrated=False), judge_holdouts(corpus, holdouts)
    doc = with_table(doc, render_holdouts(before, after), HOLD_BEGIN, HOLD_END)
    text = render(classes, scaled_wide, cal)
    return write_or_check({OUT: text, DOC: doc}, args.check, "python scripts/fit_bands.py")


if __name__ == "__main__":
    sys.exit(main())
