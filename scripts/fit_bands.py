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
The holdouts (corpus/data/holdout*.yaml) are never read here: they judge the bands.

Writes src/gpuwise/catalog/data/uncertainty.yaml (`--check`: fail if it is out of date).
Run from the repository root: `python scripts/fit_bands.py`.
"""

from __future__ import annotations

import argparse
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

from corpus import families, memory_accuracy, operators_accuracy, perf_accuracy, serving_accuracy  # noqa: E402
from corpus.generated import write_or_check  # noqa: E402
from gpuwise.catalog import Catalog  # noqa: E402
from gpuwise.catalog.loader import build_catalog  # noqa: E402
from gpuwise.estimate.bands import ANY, DECODERS, FIGURES, LEVELS, ClassKey, family_of, lineage, validated_key  # noqa: E402

OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "uncertainty.yaml"
DOC = ROOT / "docs" / "uncertainty.md"  # its corpus table, between the two markers, is written here too
BEGIN, END = "<!-- fit_bands.py: corpus judgement -->", "<!-- end of fit_bands.py's table -->"
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
        if r.kind == "training_peak":
            gpu, stack = inp["gpu"], inp.get("framework") or cat.default_framework(inp.get("task", "pretrain"))
        elif r.kind == "finetune_peak":
            gpu = memory_accuracy.gpu_id(inp.get("gpu"))
            stack = (
                inp.get("framework")
                or memory_accuracy.SOURCE_FRAMEWORKS.get(r.source)
                or cat.default_framework("finetune")
            )
        else:
            gpu, stack = memory_accuracy.gpu_id(inp.get("gpu")), "transformers"  # Hugging Face generate()
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


WORSE = {"speed": ("slower", "faster"), "time": ("slower", "faster"), "memory": ("larger", "smaller")}


def bias_flag(c: Class) -> str | None:
    """A class whose cases lie on one side of the estimate (the central 80 % of them) is biased:
    said, never fitted away."""
    own = central(c.errors, 0.8)
    if len(c.errors) < 3 or (own[0] <= 0 <= own[1]):
        return None
    sense = FIGURES[c.key.figure][0]
    low_side = own[1] < 0  # measured below the estimate
    worse, better = WORSE[sense]
    word = (worse if low_side else better) if sense != "memory" else (better if low_side else worse)
    k = sum((e < 0) == low_side for e in c.errors)
    med = math.exp(statistics.median(c.errors)) - 1
    return (
        f"biased: {k} of {len(c.errors)} cases measured {word} than estimated (median {med:+.0%}); the cause "
        "is not corrected in the model, so the band reaches the measurements"
    )


def _f(x: float) -> str:
    return f"{round(math.exp(x), 4):g}"


def render(classes: dict[str, Class]) -> str:
    wide = widest(classes)
    lines = [
        "# Generated by scripts/fit_bands.py from the corpus' published cases (corpus/data); do not edit.",
        "# Per class (figure/family/vendor/stack/arch, '*' = every): cases, sources, source families, how",
        "# many were predicted out of sample, bias (median measured / predicted - 1 in the figure's own sense:",
        "# memory, speed, or time for prefill), a flag when the cases lie on one side of the estimate, and per",
        "# level the multipliers [low, high] on the estimate (split-conformal band of |log(measured /",
        "# predicted)| over source families, each family weighed once); widened_from: the class whose band",
        "# was taken where this one has too few source families for the level.",
        f"# min_families: the fewest source families that make a class's own band at each level (at least {MIN_FAMILIES}).",
        f"levels: [{', '.join(f'{lv:g}' for lv in LEVELS)}]",
        "min_families: {" + ", ".join(f"'{lv:g}': {needed(lv)}" for lv in LEVELS) + "}",
        "classes:",
    ]
    for text in sorted(classes):
        c = classes[text]
        oos = sum(e.out_of_sample for e in c.evidence)
        lines.append(f"  {text}:")
        lines.append(f"    cases: {len(c.evidence)}")
        lines.append(f"    sources: {len({e.source for e in c.evidence})}")
        lines.append(f"    families: {len(set(c.families))}")
        lines.append(f"    out_of_sample: {oos}")
        if oos < len(c.evidence):
            lines.append(f"    in_sample_note: {SERVING_IN_SAMPLE!r}")
        lines.append(f"    bias: {round(math.exp(statistics.median(c.errors)) - 1, 4)}")
        flag = bias_flag(c)
        if flag:
            lines.append(f"    flag: {flag!r}")
        lines.append("    bands:")
        for level in LEVELS:
            lo, hi = c.bands[level]
            lines.append(f"      '{level:g}': [{_f(lo)}, {_f(hi)}]")
        widened = {lv: s for lv, s in c.source.items() if s != text}
        if widened:
            lines.append("    widened_from:")
            lines += [f"      '{lv:g}': {s}" for lv, s in widened.items()]
    lines.append("widest:")
    for scope in sorted(wide):
        lines.append(f"  {scope}:")
        lines += [f"    '{lv:g}': [{_f(lo)}, {_f(hi)}]" for lv, (lo, hi) in sorted(wide[scope].items())]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# the bands judged on the corpus: each source family's cases against bands fitted without it
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


@dataclass(frozen=True)
class Judged:
    """One kind's cases against bands fitted without their source family."""

    cases: int
    families: int
    covered: float  # share of the cases inside
    covered_by_family: float  # each family's share inside, averaged (each family once)
    width: float  # median high / low


def judge(evidence: list[Evidence], level: float = 0.8) -> dict[str, Judged]:
    """Per kind (memory, training, inference) and all: each case against the band fitted without
    its source family, as a case from a source the corpus does not hold would get it."""
    seen: dict[str, list[tuple[str, bool, float]]] = defaultdict(list)
    for fam in sorted({e.family for e in evidence}):
        classes = classes_of(e for e in evidence if e.family != fam)
        fit_bands(classes, [lv for lv in LEVELS if lv <= level + 1e-9])
        wide = widest(classes)
        for e in (e for e in evidence if e.family == fam):
            b = band_of(classes, wide, e.key, level)
            if b is None:
                continue
            row = (fam, b[0] <= e.log_ratio <= b[1], math.exp(b[1] - b[0]))
            seen[KINDS[e.key.figure]].append(row)
            seen["all"].append(row)
    out = {}
    for kind in ("memory", "training", "inference", "all"):
        rows = seen[kind]
        per_fam: dict[str, list[bool]] = defaultdict(list)
        for fam, inside, _ in rows:
            per_fam[fam].append(inside)
        out[kind] = Judged(
            cases=len(rows),
            families=len(per_fam),
            covered=sum(r[1] for r in rows) / len(rows),
            covered_by_family=statistics.fmean(sum(v) / len(v) for v in per_fam.values()),
            width=statistics.median(r[2] for r in rows),
        )
    return out


def render_judgement(judged: dict[str, Judged]) -> str:
    lines = [
        BEGIN,
        "| kind | cases | source families | covered | covered, each family once | median width (high/low) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind, j in judged.items():
        lines.append(
            f"| {kind} | {j.cases} | {j.families} | {j.covered:.0%} | {j.covered_by_family:.0%} | {j.width:.2f}x |"
        )
    return "\n".join([*lines, END])


def with_judgement(doc: str, table: str) -> str:
    """docs/uncertainty.md with its corpus table replaced by `table`."""
    head, rest = doc.split(BEGIN, 1)
    return head + table + rest.split(END, 1)[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the catalog file or the doc's table is out of date")
    args = ap.parse_args()
    evidence = gather(build_catalog())
    classes = classes_of(evidence)
    fit_bands(classes)
    text = render(classes)
    doc = with_judgement(DOC.read_text(encoding="utf-8"), render_judgement(judge(evidence)))
    return write_or_check({OUT: text, DOC: doc}, args.check, "python scripts/fit_bands.py")


if __name__ == "__main__":
    sys.exit(main())
