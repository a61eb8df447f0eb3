"""Compare gpuwise's serving simulation with published measurements at load
(corpus/data/published_serving.yaml): TensorRT-LLM's online serving table (mean TTFT, mean
inter-token latency and output tokens/s at a request rate), its maximum-throughput table, and a
vLLM concurrency sweep on an RTX 4090 (clients in a closed loop).

Each case runs the same engine model and simulator a plan uses: the catalog's TensorRT-LLM
profile, the request rate (Poisson) or all requests at once, the published number of requests;
throughput is output tokens over the time the last request finishes, as the benchmarks count it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from gpuwise.catalog import Catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import StepModel, engine_setup
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.serving import compute_dtype
from gpuwise.estimate.simulate import SimResult, poisson_arrivals, simulate
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

    @property
    def error(self) -> float:
        return self.ours / self.published - 1


def load() -> dict[str, Any]:
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def _run(inp: dict[str, Any], cat: Catalog) -> tuple[SimResult, list[float], InferenceJob]:
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
    rates = compute_rates(hw.gpu, compute_dtype(job, hw.gpu.peak_flops), cat)
    step = StepModel(job, rates, topology(hw, cat), cat)
    n = int(inp["requests"])
    arrivals = poisson_arrivals(float(inp["qps"]), n, 0) if inp.get("qps") else [0.0] * n
    setup = engine_setup(job, hw, cat)
    clients = inp.get("concurrency")  # a closed loop: --max-concurrency clients, each waits for its answer
    if clients:
        setup = replace(setup, max_batch=min(setup.max_batch, int(clients)))
    return simulate(step, setup, arrivals, job.input_tokens, closed_loop=bool(clients)), arrivals, job


def evaluate_all(cat: Catalog) -> list[ServingResult]:
    """Every case; one simulation per distinct input (the metrics of a run share it)."""
    runs: dict[str, tuple[SimResult, list[float], InferenceJob]] = {}
    out = []
    for case in load()["cases"]:
        inp = case["inputs"]
        key = repr(sorted(inp.items()))
        if key not in runs:
            runs[key] = _run(inp, cat)
        res, arrivals, job = runs[key]
        end = res.end
        ours = {
            "output_tokens_per_second": len(arrivals) * job.output_tokens / end,
            "mean_ttft_seconds": statistics.fmean(res.ttft),
            "mean_tpot_seconds": statistics.fmean(res.tpot),
        }[case["metric"]]
        out.append(
            ServingResult(
                case["id"],
                case["kind"],
                case["metric"],
                inp["gpu"],
                inp["model"],
                float(case["published_value"]),
                ours,
                bool(case.get("checked", True)),
            )
        )
    return out


def median_abs_error(results: list[ServingResult], metric_prefix: str) -> float:
    """Median |error| over the checked cases of one metric."""
    return statistics.median(abs(r.error) for r in results if r.checked and r.metric.startswith(metric_prefix))


def _bias_rows(results: list[ServingResult]) -> list[str]:
    """Median signed error per GPU and metric over the checked cases: a family the model misses shows here."""
    groups: dict[tuple[str, str], list[float]] = {}
    for r in results:
        if r.checked:
            groups.setdefault((r.gpu, r.metric), []).append(r.error)
    return [
        f"| {gpu} | {metric} | {len(errs)} | {statistics.median(errs):+.1%} | {statistics.median(map(abs, errs)):.1%} |"
        for (gpu, metric), errs in sorted(groups.items())
    ]


def report(results: list[ServingResult]) -> str:
    """docs/accuracy-serving.md: the medians against the goals, the bias per GPU, every case."""
    checked = [r for r in results if r.checked]
    lines = [
        "# Serving accuracy at load",
        "",
        "Generated by `python scripts/accuracy.py` from corpus/data/published_serving.yaml "
        "(each case names its source, what was measured and how it maps to gpuwise's inputs).",
        "",
        f"{len(results)} cases, {len(checked)} checked, on {len({r.gpu for r in checked})} GPU models and "
        f"{len({r.model for r in checked})} models.",
        "",
        "| metric | checked cases | median abs error | goal |",
        "| --- | --- | --- | --- |",
    ]
    for prefix, name, goal in (
        ("output", "output tokens/s", GOAL_THROUGHPUT),
        ("mean_ttft", "mean TTFT", GOAL_LATENCY),
        ("mean_tpot", "mean TPOT", GOAL_LATENCY),
    ):
        n = sum(r.metric.startswith(prefix) for r in checked)
        lines.append(f"| {name} | {n} | {median_abs_error(results, prefix):.1%} | {goal:.0%} |")
    lines += ["", "## Bias per GPU (checked cases)", "", "| GPU | metric | cases | median error | median abs error |"]
    lines += ["| --- | --- | --- | --- | --- |", *_bias_rows(results), ""]
    lines += [
        "MI300X (vLLM on ROCm, OCI's Llama 3.1 405B FP8 tables of October 2024): the model overestimates every row "
        "by 41-63 %, at batch 1 (bandwidth- and latency-bound: 36 tokens/s measured, 27.8 ms a token, against 9.5 ms "
        "for the FP8 weights at 5.3 TB/s) as at batch 256 and at maximum load. A miss that uniform across bound "
        "regimes is the software stack, not one roofline term: the efficiencies in engines.yaml were fitted on "
        "NVIDIA GPUs with CUDA kernels, and vLLM's ROCm path of that time reaches less of the peak (likely its "
        "FP8 GEMM and attention kernels and RCCL's all-reduce latency over 8 GPUs; the post does not break the time "
        "down). It is reported, not fitted away: one published source is "
        "not enough to fit and judge a per-vendor efficiency out of sample.",
        "",
        "## Every case",
        "",
        "| case | metric | published | gpuwise | error | checked |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r.id} | {r.metric} | {r.published:.4g} | {r.ours:.4g} | {r.error:+.1%} | {'yes' if r.checked else 'no'} |"
        for r in results
    ]
    return "\n".join(lines) + "\n"
