"""Compare gpuwise's serving simulation with published measurements at load
(corpus/data/published_serving.yaml): TensorRT-LLM's online serving table (mean TTFT, mean
inter-token latency and output tokens/s at a request rate), its maximum-throughput table, and vLLM's
cases (closed-loop client sweeps on an RTX 4090, A100s and H100 NVLs, OCI's MI300X tables, offline
throughput runs).

Each case runs the same engine model and simulator a plan uses: the profile of the engine it names,
the request rate (Poisson) or all requests at once, the published number of requests;
throughput is output tokens over the time the last request finishes, as the benchmarks count it.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from gpuwise.catalog import Catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import StepModel, engine_setup
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.serving import compute_dtype
from gpuwise.estimate.simulate import poisson_arrivals, simulate
from gpuwise.workload import InferenceJob, build_hardware, build_workload

DATA = Path(__file__).parent / "data" / "published_serving.yaml"
GOAL_THROUGHPUT = 0.15  # the goals for the median |error|
GOAL_LATENCY = 0.25


@dataclass(frozen=True)
class ServingResult:
    id: str
    kind: str  # online (at a request rate) | offline (maximum load) | closed (a fixed number of clients)
    metric: str
    gpu: str
    model: str
    published: float
    ours: float
    checked: bool = True  # False: reported, not held to the goals (the case says why)
    engine: str = ""

    @property
    def error(self) -> float:
        return self.ours / self.published - 1


def load() -> dict[str, Any]:
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


@dataclass(frozen=True, slots=True)
class Run:
    """One simulated benchmark run before the engine's per-request overhead: that overhead only adds
    to each request's TTFT and to the end of the run (gpuwise.estimate.simulate), so a fit can try
    its values without simulating again (`value`)."""

    mean_ttft: float  # seconds, without the request overhead
    mean_tpot: float
    end: float  # when the last request finished, without the request overhead
    output_tokens: int  # over all requests

    def value(self, metric: str, request_overhead: float) -> float:
        """The metric as the benchmark counts it, with `request_overhead` seconds per request."""
        if metric == "output_tokens_per_second":
            return self.output_tokens / (self.end + request_overhead)
        if metric == "mean_ttft_seconds":
            return self.mean_ttft + request_overhead
        if metric == "mean_tpot_seconds":
            return self.mean_tpot
        raise ValueError(f"unknown serving metric {metric!r}")


def run_key(inp: dict[str, Any]) -> str:
    """One simulation per distinct input: the metrics of a run share it."""
    return repr(sorted(inp.items()))


def simulate_inputs(inp: dict[str, Any], cat: Catalog) -> Run:
    """The published run of `inp` through the engine model and simulator a plan uses, with the
    engine's request overhead left out (see `Run`)."""
    job = build_workload(
        {
            "model": inp["model"],
            "task": "inference",
            "weights_dtype": inp["weights_dtype"],
            "kv_dtype": inp["kv_dtype"],
            "input_tokens": inp["input_tokens"],
            "output_tokens": inp["output_tokens"],
            "tp": inp["tp"],
            "engine": inp["engine"],
        },
        cat,
    )
    assert isinstance(job, InferenceJob)
    hw = build_hardware(f"{inp['gpu']}:{inp['tp']}", cat)
    rates = compute_rates(hw.gpu, compute_dtype(job, hw.gpu.peak_flops, cat), cat)
    step = StepModel(job, rates, topology(hw, cat), cat)
    n = int(inp["requests"])
    arrivals = poisson_arrivals(float(inp["qps"]), n, 0) if inp.get("qps") else [0.0] * n
    setup = replace(engine_setup(job, hw, cat, notes=False), request_overhead=0.0)
    clients = inp.get("concurrency")  # a closed loop: --max-concurrency clients, each waits for its answer
    if clients:
        setup = replace(setup, max_batch=min(setup.max_batch, int(clients)))
    res = simulate(step, setup, arrivals, job.input_tokens, closed_loop=bool(clients))
    return Run(statistics.fmean(res.ttft), statistics.fmean(res.tpot), res.end, n * job.output_tokens)


def result(case: dict[str, Any], run: Run, request_overhead: float) -> ServingResult:
    inp = case["inputs"]
    return ServingResult(
        case["id"],
        case["kind"],
        case["metric"],
        inp["gpu"],
        inp["model"],
        float(case["published_value"]),
        run.value(case["metric"], request_overhead),
        bool(case.get("checked", True)),
        str(inp["engine"]),
    )


def evaluate_all(cat: Catalog) -> list[ServingResult]:
    """Every case; one simulation per distinct input (the metrics of a run share it)."""
    runs: dict[str, Run] = {}
    out = []
    for case in load()["cases"]:
        inp = case["inputs"]
        key = run_key(inp)
        if key not in runs:
            runs[key] = simulate_inputs(inp, cat)
        out.append(result(case, runs[key], cat.engine(inp["engine"]).request_overhead_seconds))
    return out


def median_abs_error(results: list[ServingResult], metric_prefix: str) -> float:
    """Median |error| over the checked cases of one metric."""
    return statistics.median(abs(r.error) for r in results if r.checked and r.metric.startswith(metric_prefix))


HELD_OUT = Path(__file__).parent / "data" / "serving_held_out.yaml"
METRICS = (
    ("output", "output tokens/s", GOAL_THROUGHPUT),
    ("mean_ttft", "mean TTFT", GOAL_LATENCY),
    ("mean_tpot", "mean TPOT", GOAL_LATENCY),
)


def held_out_errors() -> dict[str, float]:
    """Every checked case's out-of-sample error (ours / published - 1) as scripts/fit_serving.py wrote
    it: a case of a fitted engine (TensorRT-LLM) predicted with the overheads fitted without its held-out
    unit, another engine's case with the fit it borrows (never fitted to that engine). The test suite
    runs `fit_serving.py --check`, so the file is the fit's."""
    doc = yaml.safe_load(HELD_OUT.read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in doc["held_out"].items()}


@dataclass(frozen=True, slots=True)
class Summary:
    """Median |error| and signed bias (median error) of a group of cases."""

    cases: int
    median_abs: float
    bias: float


def summarize(errors: list[float]) -> Summary | None:
    if not errors:
        return None
    return Summary(len(errors), statistics.median(abs(e) for e in errors), statistics.median(errors))


def out_of_sample(results: list[ServingResult], held: Mapping[str, float], prefix: str) -> Summary | None:
    """The held-out errors of the checked cases of one metric."""
    return summarize([held[r.id] for r in results if r.checked and r.metric.startswith(prefix)])


def in_sample(results: list[ServingResult], prefix: str) -> Summary | None:
    return summarize([r.error for r in results if r.checked and r.metric.startswith(prefix)])


def _bias_rows(results: list[ServingResult], held: Mapping[str, float]) -> list[str]:
    """Per GPU and metric over the checked cases, out of sample: a family the model misses shows here."""
    groups: dict[tuple[str, str], list[float]] = {}
    for r in results:
        if r.checked:
            groups.setdefault((r.gpu, r.metric), []).append(held[r.id])
    return [
        f"| {gpu} | {metric} | {len(errs)} | {statistics.median(errs):+.1%} | {statistics.median(map(abs, errs)):.1%} |"
        for (gpu, metric), errs in sorted(groups.items())
    ]


def _engine_rows(results: list[ServingResult], held: Mapping[str, float]) -> list[str]:
    """Per engine and metric, out of sample beside in sample: a fitted engine's held-out units, a borrowing
    engine's cases with the fit it borrows (the same values both ways)."""
    rows = []
    for engine in sorted({r.engine for r in results if r.checked}):
        mine = [r for r in results if r.engine == engine]
        for prefix, name, _ in METRICS:
            oos, ins = out_of_sample(mine, held, prefix), in_sample(mine, prefix)
            if oos is not None:
                rows.append(f"| {engine} | {name} | {oos.cases} | {_cell(oos)} | {_cell(ins)} |")
    return rows


def _cell(s: Summary | None) -> str:
    return "— | —" if s is None else f"{s.median_abs:.1%} | {s.bias:+.1%}"


def _summary_rows(results: list[ServingResult], held: Mapping[str, float]) -> list[str]:
    rows = []
    for prefix, name, goal in METRICS:
        n = sum(r.checked and r.metric.startswith(prefix) for r in results)
        oos, ins = out_of_sample(results, held, prefix), in_sample(results, prefix)
        rows.append(f"| {name} | {n} | {_cell(oos)} | {_cell(ins)} | {goal:.0%} |")
    return rows


def report(results: list[ServingResult], held: Mapping[str, float], notes: list[str]) -> str:
    """docs/accuracy-serving.md: the medians out of sample and in sample against the goals, the bias
    per GPU, every case; `notes`: what the document says about the misses (MI300X)."""
    checked = [r for r in results if r.checked]
    lines = [
        "# Serving accuracy at load",
        "",
        "Generated by `python scripts/accuracy.py` from corpus/data/published_serving.yaml and the held-out "
        "errors `python scripts/fit_serving.py` writes (corpus/data/serving_held_out.yaml); do not edit. Each "
        "case names its source, what was measured and how it maps to gpuwise's inputs.",
        "",
        f"{len(results)} cases, {len(checked)} checked, on {len({r.gpu for r in checked})} GPU models and "
        f"{len({r.model for r in checked})} models. `error` = ours / published − 1; `bias` = median signed error.",
        "",
        "**Out of sample**: the serving overheads (GEMM share, layer and request overheads) are fitted by "
        "`scripts/fit_serving.py` to TensorRT-LLM's published tables; each TensorRT-LLM (model, GPU) pair is "
        "predicted with overheads fitted without it (leave one group out), and every other engine's cases "
        "(vLLM) with TensorRT-LLM's fit, never fitted to them. **In sample**: the catalog's overheads, fitted "
        "on every TensorRT-LLM case (for vLLM's cases the same borrowed values, so both columns agree).",
        "",
        "| metric | checked cases | out of sample: median abs error | bias | in sample: median abs error | bias "
        "| goal (median abs error) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        *_summary_rows(results, held),
        "",
        "## Per engine (checked cases)",
        "",
        "| engine | metric | cases | out of sample: median abs error | bias | in sample: median abs error | bias |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
        *_engine_rows(results, held),
        "",
        "## Bias per GPU (checked cases, out of sample)",
        "",
        "| GPU | metric | cases | median error | median abs error |",
        "| --- | --- | --- | --- | --- |",
        *_bias_rows(results, held),
        "",
        *[line for note in notes for line in (note, "")],
        "## Every case",
        "",
        "| case | metric | published | gpuwise | error (in sample) | out of sample | checked |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r.id} | {r.metric} | {r.published:.4g} | {r.ours:.4g} | {r.error:+.1%} | "
        f"{f'{held[r.id]:+.1%}' if r.id in held else '—'} | {'yes' if r.checked else 'no'} |"
        for r in results
    ]
    return "\n".join(lines) + "\n"
