"""The Python API behind both front doors (CLI and web): loose options in, typed results out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.cost import CostParams
from gpuwise.estimate.rates import Calibration
from gpuwise.plan import PlanResult, plan
from gpuwise.workload import TrainingJob, build_workload
from gpuwise.workload.requirements import build_requirements


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
    workloads = [base]
    if req.methods:
        if not isinstance(base, TrainingJob):
            raise UsageError("--methods compares training methods; this workload is serving")
        workloads = []
        for method in req.methods:
            opts = {**work_opts, "method": method, "task": "finetune"}
            opts.pop("weights_dtype", None)
            workloads.append(build_workload(opts, cat))
    if req.qps is not None and isinstance(base, TrainingJob):
        raise UsageError("--qps and latency targets apply to serving workloads (--task inference)")
    if isinstance(base, TrainingJob) and req.deadline_seconds and not (base.tokens or base.samples):
        raise UsageError("a deadline needs the amount of training: --tokens or --samples")
    return plan(workloads, req, cat, CostParams.from_catalog(cat, costs), calibrations)


def measured_calibrations(db: str | None = None) -> dict[str, Calibration]:
    """Measured rates per GPU model from the store's full (non --quick) benchmark runs."""
    from gpuwise.bench.calibrate import calibrations
    from gpuwise.store import open_store

    with open_store(db) as store:
        return calibrations(store.results(include_quick=False))
