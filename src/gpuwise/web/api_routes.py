"""The JSON API (/api/*): the same answers as the CLI's --json, over `gpuwise.api`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query

from gpuwise.errors import UsageError
from gpuwise.web import data
from gpuwise.web.models import ERRORS, INPUT_ERRORS, EstimateIn, PlanIn, WorkloadIn

router = APIRouter(prefix="/api", responses=ERRORS)


def _work(workload: WorkloadIn, config_json: str | None) -> dict[str, Any]:
    """The workload's fields; its model is a catalog id or the uploaded config, exactly one."""
    work = workload.model_dump(exclude_none=True)
    if (work.get("model") is None) == (config_json is None):
        raise UsageError("give workload.model (a catalog id, GET /api/models) or config_json, one of them")
    return work


@router.get("/gpus", tags=["catalog"], responses=INPUT_ERRORS)
def api_gpus(
    vendor: str | None = Query(None, max_length=32),
    min_memory: str | None = Query(None, max_length=32),
    sort: str = Query("name", max_length=16),
) -> list[dict[str, Any]]:
    """The GPU catalog, each value with its source (as `gpuwise gpus --json`: the same offers price it)."""
    from gpuwise.api import gpu_records

    return gpu_records(vendor, None, min_memory, sort)


@router.get("/models", tags=["catalog"])
def api_models() -> list[dict[str, Any]]:
    """The model catalog (as `gpuwise models --json`)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.records import model_record

    cat = load_catalog()
    return [model_record(m, cat) for m in cat.models.values()]


@router.post("/estimate", tags=["estimate"], responses=INPUT_ERRORS)
def api_estimate(body: EstimateIn) -> dict[str, Any]:
    """Memory, time and cost of one workload on one configuration (as `gpuwise estimate --json`)."""
    hardware = body.model_dump(exclude={"workload", "config_json"}, exclude_none=True)
    result = data.run_estimate(_work(body.workload, body.config_json), hardware, body.config_json or "")
    return dict(result.as_dict())


@router.post("/plan", tags=["plan"], responses=INPUT_ERRORS)
def api_plan(body: PlanIn) -> dict[str, Any]:
    """The cheapest configuration meeting the requirements, runners-up and why (`gpuwise plan --json`)."""
    work = _work(body.workload, body.config_json)
    result = data.run_plan(work, body.requirements.model_dump(exclude_none=True), body.config_json or "")
    from gpuwise.report.as_json import plan_json

    d = plan_json(result)
    d["candidates"] = d["candidates"][: body.top]
    return d


@router.get("/tco", tags=["cost"], responses=INPUT_ERRORS)
def api_tco(
    gpu: list[str] = Query(..., max_length=8),
    years: float = Query(3.0, gt=0, le=30),
    busy: float = Query(1.0, gt=0, le=1),
) -> dict[str, Any]:
    """Buy versus rent over `years` for each `gpu=ID:N` (as `gpuwise tco --json`)."""
    from gpuwise.api import tco

    return tco(gpu, years, busy).as_dict()


@router.get("/matrix", tags=["measure"])
def api_matrix() -> dict[str, Any]:
    """The capability matrix from the result store (as `gpuwise matrix --json`)."""
    return data.matrix()


@router.get("/fleet", tags=["operate"])
def api_fleet() -> dict[str, Any]:
    """The card inventory and its latest inspections, when the fleet has been scanned."""
    return data.fleet()
