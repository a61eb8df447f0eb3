"""Published GPU-hours of whole large training runs (corpus/data/published_large_runs.yaml) against
what `gpuwise plan` expects them to cost: each stage of the run's schedule on its GPU count, in the
layout the source publishes or else the planner's own (plan.layouts.best_layout), its failure-free
time from the time model plus what runs at that scale lose (plan.availability: the efficiency runs
at that scale reached, slow hosts, failures and checkpoints, the start-up).

A prediction is out of sample when no constant it uses was derived from the run it predicts; a run
that gave the catalog constants (the Llama 3 405B run: its interruption count, restart time, MFU
rows and part of the Megatron fit) is also predicted with those replaced by what its case's
`out_of_sample` names. Used by scripts/large_runs.py and tests/test_large_runs.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpuwise.catalog import Catalog
from gpuwise.estimate import estimate
from gpuwise.estimate.rates import compute_rates
from gpuwise.plan.layouts import best_layout
from gpuwise.workload import TrainingJob, build_hardware, build_workload

DATA = Path(__file__).parent / "data" / "published_large_runs.yaml"
BOUND = 0.25  # the goal: every run's GPU-hours within 25 %, out of sample


@dataclass(frozen=True)
class StageResult:
    """One stage of a run as the planner lays it out and what it expects the stage to cost."""

    tokens: float
    seq: int
    gpus: int
    layout: str
    mfu: float  # the layout's modelled MFU (dense 16-bit peak)
    failure_free_gpu_hours: float
    expected_gpu_hours: float
    losses_gpu_hours: dict[str, float]


@dataclass(frozen=True)
class RunResult:
    id: str
    published: float
    predicted: float
    stages: tuple[StageResult, ...]
    sample: str  # "in sample" or "out of sample"

    @property
    def error(self) -> float:
        return self.predicted / self.published - 1

    @property
    def failure_free(self) -> float:
        return sum(s.failure_free_gpu_hours for s in self.stages)

    def losses(self) -> dict[str, float]:
        """GPU-hours by cause over the stages; with the failure-free hours they add up to the prediction."""
        out: dict[str, float] = {}
        for s in self.stages:
            for k, v in s.losses_gpu_hours.items():
                out[k] = out.get(k, 0.0) + v
        return out


def load() -> dict[str, Any]:
    with DATA.open(encoding="utf-8") as f:
        data: dict[str, Any] = yaml.safe_load(f)
    return data


def _layout(job: TrainingJob) -> str:
    p = job.parallel
    text = f"TP{p.tp} PP{p.pp}" + (f" CP{p.cp}" if p.cp > 1 else "") + (f" VPP{p.vpp}" if p.vpp > 1 else "")
    return f"{text} ZeRO-{p.zero}, mb {job.micro_batch}, recompute {job.recompute}"


def stage(run: dict[str, Any], st: dict[str, Any], cat: Catalog) -> tuple[TrainingJob, StageResult]:
    """One stage: the planner's fastest layout that fits (within the published degrees) and its
    expected cost."""
    opts = {"model": run["model"], "task": "pretrain", "precision": "bf16", "micro_batch": 1}
    opts |= {"seq": st["seq"], "global_batch": st["global_batch"], "tokens": float(st["tokens"])}
    work = build_workload(opts | {"framework": run["framework"]}, cat)
    assert isinstance(work, TrainingJob)
    gpus = int(st.get("gpus") or run["gpus"])
    hw = build_hardware(f"{run['gpu']}:{gpus}", cat)
    degrees = tuple(st["layout"]) if st.get("layout") else None
    choice = best_layout(work, hw, cat, compute_rates(hw.gpu, "bf16", cat), degrees)  # type: ignore[arg-type]
    if choice.job is None:
        raise ValueError(f"{run['id']}: no layout fits {gpus} x {run['gpu']} at sequence {st['seq']}")
    job = choice.job
    if st.get("recompute"):  # the recomputation the source states, where the memory model would choose otherwise
        job = dataclasses.replace(job, recompute=st["recompute"])
    est = estimate(job, hw, cat, search_largest=False)
    rel = est.reliability
    t = est.training
    assert t is not None and t.total_seconds and rel is not None
    to_hours = gpus / 3600
    peak = hw.gpu.peak_flops["bf16"]
    return job, StageResult(
        tokens=float(st["tokens"]),
        seq=int(st["seq"]),
        gpus=gpus,
        layout=_layout(job),
        mfu=t.flops_per_step / t.step_seconds / (gpus * peak),
        failure_free_gpu_hours=t.total_seconds * to_hours,
        expected_gpu_hours=rel.expected_seconds * to_hours,
        losses_gpu_hours={k: v * to_hours for k, v in rel.losses.items()},
    )


def predict(run: dict[str, Any], cat: Catalog, sample: str) -> RunResult:
    stages = tuple(stage(run, st, cat)[1] for st in run["stages"])
    total = sum(s.expected_gpu_hours for s in stages)
    return RunResult(run["id"], float(run["published_gpu_hours"]), total, stages, sample)


def out_of_sample_catalog(run: dict[str, Any], cat: Catalog, efficiency: float | None) -> Catalog:
    """The catalog without the constants this run gave it: its at_scale_mfu rows dropped, the
    reliability constants it set replaced by its case's stand-ins, and the stack's efficiency
    refitted without its source (`efficiency`, from scripts/fit_efficiency.py's fit)."""
    oos = run.get("out_of_sample") or {}
    drop = oos.get("drop_at_scale_run")
    at_scale = tuple(r for r in cat.at_scale if r.run != drop)
    reliability = dict(cat.reliability)
    for key, v in (oos.get("reliability") or {}).items():
        reliability[key] = dataclasses.replace(cat.reliability[key], value=float(v["value"]), why=v["why"])
    frameworks = dict(cat.frameworks)
    if efficiency is not None:
        fw = run["framework"]
        frameworks[fw] = dataclasses.replace(frameworks[fw], efficiency=efficiency)
    return dataclasses.replace(cat, at_scale=at_scale, reliability=reliability, frameworks=frameworks)


__all__ = [
    "BOUND",
    "DATA",
    "RunResult",
    "StageResult",
    "load",
    "out_of_sample_catalog",
    "predict",
    "stage",
]
