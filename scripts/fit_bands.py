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
engine, LLMs only) x GPU architecture. The band of a class at a level L is the split-conformal
interval of its cases' log(measured / predicted): the floor((n+1)p)-th and ceil((n+1)(1-p))-th of
the n sorted errors, p = (1-L)/2. That needs n >= 1/p - 1 cases (9 at 80 %, 39 at 95 %) and at least
MIN_CASES; a class with fewer takes its parent's band (architecture -> stack -> vendor -> family ->
figure), widened to reach its own cases. A vendor and stack with no validated case get the widest
band of the figure and family, and say so. Every band is widened to hold the estimate itself
(low <= value <= high), so a bias is never fitted away: it shows as a one-sided band and a `flag`.
The holdout (corpus/data/holdout.yaml) is never read here: it judges the bands.

Writes src/gpuwise/catalog/data/uncertainty.yaml (`--check`: fail if it is out of date).
Run from the repository root: `python scripts/fit_bands.py`.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import fit_efficiency  # noqa: E402

from corpus import memory_accuracy, operators_accuracy, perf_accuracy, serving_accuracy  # noqa: E402
from corpus.generated import write_or_check  # noqa: E402
from gpuwise.catalog import Catalog  # noqa: E402
from gpuwise.catalog.loader import build_catalog  # noqa: E402
from gpuwise.estimate.bands import ANY, FIGURES, LEVELS, ClassKey, family_of, lineage  # noqa: E402

OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "uncertainty.yaml"
MIN_CASES = 8  # fewest cases whose own quantiles make a band at any level (more where the level needs it)
# Signed biases whose cause is known and corrected in the model before the errors are taken. Empty:
# no correction is applied here; a bias shows as a one-sided band and a flag until the model's own
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


def _key(cat: Catalog, figure: str, family: str, gpu: str, stack: str) -> ClassKey:
    """A case's class: the stack counts for LLMs only (the other families have one time model)."""
    g = cat.gpu(gpu)
    return ClassKey(figure, family, g.vendor, stack if family == "llm" else ANY, g.architecture)


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
            key = _key(cat, "training", "llm", c["inputs"]["gpu"], perf_accuracy.framework_of_case(c))
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
            if fam == "llm":
                continue  # out of sample through fit_efficiency (training_llm)
            speed = r.ours / r.published if r.metric in ("step_seconds", "gpu_hours") else r.published / r.ours
            yield Evidence(r.id, r.source, _key(cat, "training", fam, r.gpu, ANY), _log(speed), True)
            continue
        figure, ratio = _inference_ratio(r.metric, r.published, r.ours, fam)
        stack = ENGINES.get(str(c["inputs"].get("engine") or ""), str(c["inputs"].get("engine") or ""))
        yield Evidence(r.id, r.source, _key(cat, figure, fam, r.gpu, stack), _log(ratio), fam != "llm")


def _inference_ratio(metric: str, published: float, ours: float, family: str) -> tuple[str, float]:
    """(figure, measured / predicted in that figure's sense) of an inference metric."""
    if family != "llm":  # one forward pass per request: samples/s, or its latency
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
    """Fewest cases whose split-conformal interval at `level` is finite, and at least MIN_CASES."""
    p = (1 - level) / 2
    return max(MIN_CASES, math.ceil(1 / p - 1 - 1e-9))


def conformal(errors: list[float], level: float) -> tuple[float, float] | None:
    """The floor((n+1)p)-th and ceil((n+1)(1-p))-th smallest errors, p = (1-level)/2: each tail
    holds at most p of a new case's error when the cases are exchangeable. None: too few cases."""
    n = len(errors)
    if n < needed(level):
        return None
    p = (1 - level) / 2
    lo, hi = math.floor((n + 1) * p + 1e-9), math.ceil((n + 1) * (1 - p) - 1e-9)
    ordered = sorted(errors)
    return ordered[lo - 1], ordered[min(hi, n) - 1]


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


def fit_bands(classes: dict[str, Class]) -> None:
    """Each class's band per level, parents first: its own conformal interval when it has the
    cases, else its parent's widened to reach its own cases; always holding 0 (the estimate)."""
    order = sorted(classes.values(), key=lambda c: len(lineage(c.key)))
    for level in LEVELS:
        for c in order:
            own = conformal(c.errors, level)
            parent = _parent(c.key, classes)
            if own is not None or parent is None:
                lo, hi = own if own is not None else (min(c.errors), max(c.errors))
                c.source[level] = c.key.text
            else:
                p_lo, p_hi = parent.bands[level]
                lo, hi = min(p_lo, min(c.errors)), max(p_hi, max(c.errors))
                c.source[level] = parent.source[level]
            c.bands[level] = (min(lo, 0.0), max(hi, 0.0))


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
            for level in LEVELS:
                if c.source[level] == c.key.text:
                    lo, hi = c.bands[level]
                    w_lo, w_hi = out[scope][level]
                    out[scope][level] = (min(lo, w_lo), max(hi, w_hi))
    return out


WORSE = {"speed": ("slower", "faster"), "time": ("slower", "faster"), "memory": ("larger", "smaller")}


def bias_flag(c: Class) -> str | None:
    """A class whose cases lie on one side of the estimate (its 80 % interval, or its whole range
    when it has too few cases for one) is biased: said, never fitted away."""
    own = conformal(c.errors, 0.8) or (min(c.errors), max(c.errors))
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
        "is not corrected in the model, so the band runs from the estimate to the measurements"
    )


def _f(x: float) -> str:
    return f"{round(math.exp(x), 4):g}"


def render(classes: dict[str, Class]) -> str:
    wide = widest(classes)
    lines = [
        "# Generated by scripts/fit_bands.py from the corpus' published cases (corpus/data); do not edit.",
        "# Per class (figure/family/vendor/stack/arch, '*' = every): cases, sources, how many were predicted",
        "# out of sample, bias (median measured / predicted - 1 in the figure's own sense: memory, speed, or",
        "# time for prefill), a flag when the cases lie on one side of the estimate, and per level the",
        "# multipliers [low, high] on the estimate (split-conformal interval of log(measured / predicted));",
        "# widened_from: the class whose band was taken where this one has too few cases for the level.",
        f"# min_cases: the fewest cases that make a class's own band at each level (at least {MIN_CASES}).",
        f"levels: [{', '.join(f'{lv:g}' for lv in LEVELS)}]",
        "min_cases: {" + ", ".join(f"'{lv:g}': {needed(lv)}" for lv in LEVELS) + "}",
        "classes:",
    ]
    for text in sorted(classes):
        c = classes[text]
        oos = sum(e.out_of_sample for e in c.evidence)
        lines.append(f"  {text}:")
        lines.append(f"    cases: {len(c.evidence)}")
        lines.append(f"    sources: {len({e.source for e in c.evidence})}")
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the catalog file is out of date")
    args = ap.parse_args()
    classes = classes_of(gather(build_catalog()))
    fit_bands(classes)
    text = render(classes)
    return write_or_check({OUT: text}, args.check, "python scripts/fit_bands.py")


if __name__ == "__main__":
    sys.exit(main())
