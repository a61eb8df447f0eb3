"""The Python API behind both front doors (CLI and web): loose options in, typed results out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.cost import CostParams
from gpuwise.estimate.rates import Calibration
from gpuwise.estimate.run import Estimate, LatencyTarget, estimate
from gpuwise.plan import PlanResult, plan
from gpuwise.plan.command import estimate_command
from gpuwise.workload import TrainingJob, Workload, build_hardware, build_workload
from gpuwise.workload.requirements import build_requirements, latency_goals
from gpuwise.workload.schema import TargetFields, check_unknown, names, validate


def make_plan(
    workload: Mapping[str, Any],
    requirements: Mapping[str, Any],
    costs: Mapping[str, Any] | None = None,
    calibrations: Mapping[str, Calibration] | None = None,
) -> PlanResult:
    """Plan a workload against requirements; the hardware is what the plan chooses. `calibrations`
    (GPU id -> measured rates, see `measured_calibrations`) replace the cited efficiencies."""
    cat = load_catalog()
    work_opts = dict(workload)
    for key in ("tp", "pp", "zero", "recompute"):  # the search chooses the layout
        work_opts.pop(key, None)
    req = build_requirements(requirements, cat)
    base = build_workload(work_opts, cat)
    variants = [(base, work_opts)]
    if req.methods:
        if not isinstance(base, TrainingJob):
            raise UsageError("--methods compares training methods; this workload is serving")
        variants = []
        for method in req.methods:
            opts = {**work_opts, "method": method, "task": "finetune"}
            opts.pop("weights_dtype", None)
            variants.append((build_workload(opts, cat), opts))
    if req.qps is not None and isinstance(base, TrainingJob):
        raise UsageError("--qps and latency targets apply to serving workloads (--task inference)")
    if isinstance(base, TrainingJob) and req.deadline_seconds and not (base.tokens or base.samples):
        raise UsageError("a deadline needs the amount of training: --tokens or --samples")
    result = plan([w for w, _ in variants], req, cat, CostParams.from_catalog(cat, costs), calibrations)
    _attach_commands(result, variants, requirements)
    return result


def _attach_commands(
    result: PlanResult, variants: list[tuple[Workload, dict[str, Any]]], requirements: Mapping[str, Any]
) -> None:
    """Each candidate's `gpuwise estimate ...` line, from the options of the variant it was planned for."""
    targets = {str(k).replace("-", "_"): v for k, v in requirements.items() if v is not None}
    for c in result.candidates:
        w = c.est.workload
        planned, opts = next(
            (
                (v, o)
                for v, o in variants
                if type(v) is type(w) and getattr(v, "method", None) == getattr(w, "method", None)
            ),
            variants[0],
        )
        c.command = estimate_command(w, c.est.hardware, opts, targets, planned)


def make_estimate(
    workload: Mapping[str, Any],
    hardware: Mapping[str, Any],
    calibrations: Mapping[str, Calibration] | None = None,
) -> Estimate:
    """Estimate a workload on the hardware `hardware['gpu']` names; `hardware` may also carry
    `gpus_per_node`, `network` and a serving target (`qps` with `ttft_ms`, `tpot_ms`, `e2e_ms` at
    `percentile`, or the aliases `p95_ms`/`p99_ms`)."""
    cat = load_catalog()
    hw_opts = {k: v for k, v in hardware.items() if v is not None}
    target_opts = {k: hw_opts.pop(k) for k in list(hw_opts) if k in names("target")}
    check_unknown(hw_opts, names("hardware"), "hardware")
    work = build_workload(workload, cat)
    if not hw_opts.get("gpu"):
        raise UsageError("give the hardware with --gpu ID[:N], e.g. --gpu a100-80gb-sxm:8")
    hw = build_hardware(
        str(hw_opts["gpu"]),
        cat,
        hw_opts.get("gpus_per_node"),
        hw_opts.get("network"),
        default_count=work.parallel.model_parallel,
    )
    calibration = (calibrations or {}).get(hw.gpu.id)
    return estimate(work, hw, cat, target=latency_target(target_opts), calibration=calibration)


def latency_target(options: Mapping[str, Any]) -> LatencyTarget | None:
    """`qps` with `ttft_ms`, `tpot_ms` and/or `e2e_ms` at `percentile` (default 99; `p95_ms`/`p99_ms`
    are end-to-end aliases) -> a LatencyTarget; no target -> None. The same rules as a plan's."""
    t = validate(TargetFields, {k: v for k, v in options.items() if v is not None})
    goals = latency_goals(t)
    if goals is None:
        if t.qps is not None:
            raise UsageError("a serving target needs --qps and one of --ttft-ms, --tpot-ms or --e2e-ms")
        return None
    assert t.qps is not None  # latency_goals requires it
    return LatencyTarget(
        qps=t.qps,
        percentile=goals.percentile,
        seconds=goals.e2e_seconds,
        ttft_seconds=goals.ttft_seconds,
        tpot_seconds=goals.tpot_seconds,
    )


def measured_calibrations(db: str | None = None) -> dict[str, Calibration]:
    """Measured rates per GPU model from the store's full (non --quick) benchmark runs."""
    from gpuwise.bench.calibrate import calibrations
    from gpuwise.store import open_store

    with open_store(db) as store:
        return calibrations(store.results(include_quick=False))
