"""FastAPI application: pages for people, a JSON API for machines, both over `gpuwise.api`."""

from __future__ import annotations

import base64
import json
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from gpuwise.errors import GpuwiseError, UsageError
from gpuwise.web.models import EstimateIn, PlanIn
from gpuwise.workload.schema import all_fields, applying, names

WORKLOAD_FIELDS = names("workload")
REQUIREMENT_FIELDS = names("target", "plan") - {"gpus"}
# form fields the schema types as whole numbers (counts like 20M in other fields stay strings)
INT_FIELDS = frozenset(f.name for f in all_fields() if f.kind is int)
# fields that do not apply to the other task (a form keeps hidden values)
TRAINING_ONLY = applying("training", "workload", "target", "plan")
SERVING_ONLY = (*applying("inference", "workload", "target", "plan"), "target_ms")


def _package_dir(name: str) -> str:
    return str(resources.files("gpuwise.web").joinpath(name))


def create_app() -> FastAPI:
    app = FastAPI(
        title="gpuwise",
        version=_version(),
        description="Which GPUs, how many, how connected, and "
        "what they cost, for a workload. The same API as the `gpuwise` command line; SI units.",
    )
    app.mount("/static", StaticFiles(directory=_package_dir("static")), name="static")
    templates = Jinja2Templates(directory=_package_dir("templates"))

    @app.exception_handler(GpuwiseError)
    async def _domain_error(request: Request, exc: GpuwiseError) -> Response:
        status = 422 if exc.exit_code == 1 else 400
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": str(exc)}, status_code=status)
        return templates.TemplateResponse(request, "error.html", {"message": str(exc)}, status_code=status)

    # ---------------------------------------------------------------------------------- API
    @app.get("/api/gpus", tags=["catalog"])
    def api_gpus(
        vendor: str | None = Query(None, max_length=32),
        min_memory: str | None = Query(None, max_length=32),
        sort: str = Query("name", max_length=16),
    ) -> list[dict[str, Any]]:
        """The GPU catalog, each value with its source (as `gpuwise gpus --json`)."""
        from gpuwise.catalog import load_catalog
        from gpuwise.catalog.query import filter_gpus
        from gpuwise.catalog.records import gpu_record

        cat = load_catalog()
        return [gpu_record(g, cat) for g in filter_gpus(cat, vendor=vendor, min_memory=min_memory, sort=sort)]

    @app.get("/api/models", tags=["catalog"])
    def api_models() -> list[dict[str, Any]]:
        """The model catalog (as `gpuwise models --json`)."""
        from gpuwise.catalog import load_catalog
        from gpuwise.catalog.records import model_record

        cat = load_catalog()
        return [model_record(m, cat) for m in cat.models.values()]

    @app.post("/api/estimate", tags=["estimate"])
    def api_estimate(body: EstimateIn) -> dict[str, Any]:
        """Memory, time and cost of one workload on one configuration (as `gpuwise estimate --json`)."""
        return _estimate(body).as_dict()

    @app.post("/api/plan", tags=["plan"])
    def api_plan(body: PlanIn) -> dict[str, Any]:
        """The cheapest configuration meeting the requirements, runners-up and why (`gpuwise plan --json`)."""
        d = _plan(
            body.workload.model_dump(exclude_none=True), body.requirements.model_dump(exclude_none=True)
        ).as_dict()
        d["candidates"] = d["candidates"][: body.top]
        return d

    @app.get("/api/tco", tags=["cost"])
    def api_tco(
        gpu: list[str] = Query(..., max_length=8),
        years: float = Query(3.0, gt=0, le=30),
        busy: float = Query(1.0, gt=0, le=1),
    ) -> dict[str, Any]:
        """Buy versus rent over `years` for each `gpu=ID:N` (as `gpuwise tco --json`)."""
        from gpuwise.catalog import load_catalog
        from gpuwise.estimate.cost import CostParams, compare
        from gpuwise.workload import build_hardware

        cat = load_catalog()
        params = CostParams.from_catalog(cat)
        return {"configurations": [compare(build_hardware(g, cat), years, params, busy).as_dict() for g in gpu]}

    @app.get("/api/matrix", tags=["measure"])
    def api_matrix() -> dict[str, Any]:
        """The capability matrix from the result store (as `gpuwise matrix --json`)."""
        return _matrix()

    @app.get("/api/fleet", tags=["operate"])
    def api_fleet() -> dict[str, Any]:
        """The card inventory and its latest inspections, when the fleet has been scanned."""
        return _fleet()

    # -------------------------------------------------------------------------------- pages
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home(request: Request) -> Response:
        return templates.TemplateResponse(request, "plan.html", _form_context({}, None))

    @app.post("/plan", response_class=HTMLResponse, include_in_schema=False)
    async def plan_page(request: Request, config: UploadFile | None = File(None)) -> Response:
        form = await request.form()
        fields = {k: str(v).strip() for k, v in form.items() if isinstance(v, str) and str(v).strip()}
        fields["methods"] = ",".join(str(v) for v in form.getlist("methods") if v)
        config_json = fields.pop("config_json", "")
        if config is not None and config.filename:
            config_json = (await config.read()).decode("utf-8", errors="replace")
        result = _plan_from_fields(fields, config_json)
        return templates.TemplateResponse(request, "plan.html", _form_context(fields, result, config_json))

    @app.post("/plan/report", include_in_schema=False)
    async def plan_report(request: Request, fmt: str = Form("html")) -> Response:
        form = await request.form()
        fields = {k: str(v).strip() for k, v in form.items() if isinstance(v, str) and str(v).strip()}
        config_json = fields.pop("config_json", "")
        fields.pop("fmt", None)
        result = _plan_from_fields(fields, config_json)
        from gpuwise.report import render_html, render_markdown
        from gpuwise.report.document import charts

        if fmt == "md":
            inline = {
                k: "data:image/svg+xml;base64," + base64.b64encode(v.encode()).decode()
                for k, v in charts(result).items()
            }
            return PlainTextResponse(
                render_markdown(result, inline),
                media_type="text/markdown",
                headers={"Content-Disposition": 'attachment; filename="gpuwise-plan.md"'},
            )
        return HTMLResponse(
            render_html(result), headers={"Content-Disposition": 'attachment; filename="gpuwise-plan.html"'}
        )

    @app.get("/estimate", response_class=HTMLResponse, include_in_schema=False)
    def estimate_page(request: Request) -> Response:
        q = {k: v.strip() for k, v in request.query_params.items() if v.strip()}
        result = None
        if q.get("model") and q.get("gpu"):
            gpu = q.pop("gpu")
            work = {k: v for k, v in q.items() if k in WORKLOAD_FIELDS}
            try:
                body = EstimateIn.model_validate({"workload": _typed(work), "gpu": gpu})
            except ValidationError as exc:  # a hand-edited query: a message, not a 500
                first = exc.errors()[0]
                raise UsageError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
            result = _estimate(body).as_dict()
            q["gpu"] = gpu
        return templates.TemplateResponse(
            request,
            "estimate.html",
            {
                "q": q,
                "result": result,
                "models": _model_ids(),
                "gpus": _gpu_ids(),
                "chart": _memory_chart(result) if result else None,
            },
        )

    @app.get("/gpus", response_class=HTMLResponse, include_in_schema=False)
    def gpus_page(
        request: Request,
        vendor: str | None = None,
        min_memory: str | None = None,
        sort: str = "name",
        desc: bool = False,
    ) -> Response:
        from gpuwise.catalog import load_catalog
        from gpuwise.catalog.query import filter_gpus

        rows = filter_gpus(
            load_catalog(), vendor=vendor or None, min_memory=min_memory or None, sort=sort, descending=desc
        )
        return templates.TemplateResponse(
            request, "gpus.html", {"rows": rows, "vendor": vendor or "", "min_memory": min_memory or "", "sort": sort}
        )

    @app.get("/matrix", response_class=HTMLResponse, include_in_schema=False)
    def matrix_page(request: Request) -> Response:
        m = _matrix()
        from gpuwise.report.svg import hbars

        ratios = [
            (f"{gpu} · {k}", c["ratio"]) for gpu, cells in m["rows"].items() for k, c in cells.items() if c.get("ratio")
        ]
        chart = (
            hbars(ratios, "Measured / estimated (1.0 = gpuwise's model holds)", lambda v: f"{v:.2f}")
            if ratios
            else None
        )
        return templates.TemplateResponse(request, "matrix.html", {"m": m, "chart": chart})

    @app.get("/fleet", response_class=HTMLResponse, include_in_schema=False)
    def fleet_page(request: Request) -> Response:
        return templates.TemplateResponse(request, "fleet.html", {"fleet": _fleet()})

    return app


# ------------------------------------------------------------------------------------------
def _version() -> str:
    from gpuwise import __version__

    return __version__


def _model_ids() -> list[str]:
    from gpuwise.catalog import load_catalog

    return list(load_catalog().models)


def _gpu_ids() -> list[str]:
    from gpuwise.catalog import load_catalog

    return list(load_catalog().gpus)


def _typed(fields: dict[str, str]) -> dict[str, Any]:
    """Form strings -> the API's types (counts like 20M stay strings for the workload parser)."""
    out: dict[str, Any] = {}
    for k, v in fields.items():
        try:
            out[k] = int(float(v)) if k in INT_FIELDS else v
        except (ValueError, OverflowError):  # 'abc', 'inf': the validation names the field
            out[k] = v
    return out


def _plan(work: dict[str, Any], reqs: dict[str, Any]) -> Any:
    from gpuwise.api import make_plan

    return make_plan(work, reqs)


def _plan_from_fields(fields: dict[str, str], config_json: str) -> Any:
    """Fields that do not apply to the chosen task are dropped."""
    drop = TRAINING_ONLY if fields.get("task") == "inference" else SERVING_ONLY
    fields = {k: v for k, v in fields.items() if k not in drop}
    work = _typed({k: v for k, v in fields.items() if k in WORKLOAD_FIELDS})
    reqs = _typed({k: v for k, v in fields.items() if k in REQUIREMENT_FIELDS and v})
    if fields.get("target_ms") and fields.get("percentile") in ("95", "99"):
        reqs[f"p{fields['percentile']}_ms"] = fields["target_ms"]
    if config_json:
        try:
            json.loads(config_json)
        except json.JSONDecodeError as exc:
            from gpuwise.errors import ConfigError

            raise ConfigError(f"the uploaded config.json is not valid JSON (line {exc.lineno}: {exc.msg})") from None
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "config.json"
            path.write_text(config_json, encoding="utf-8")
            work["model"] = str(path)
            return _plan(work, reqs)
    return _plan(work, reqs)


def _estimate(body: EstimateIn) -> Any:
    from gpuwise.api import make_estimate

    return make_estimate(
        body.workload.model_dump(exclude_none=True), body.model_dump(exclude={"workload"}, exclude_none=True)
    )


def _matrix() -> dict[str, Any]:
    try:
        from gpuwise.bench.matrix import matrix, matrix_dict
        from gpuwise.catalog import load_catalog
        from gpuwise.store import open_store

        with open_store() as s:
            return matrix_dict(matrix(s.results(), load_catalog()))
    except (ImportError, GpuwiseError) as exc:
        return {"scenarios": {}, "rows": {}, "note": f"no store available: {exc}"}


def _fleet() -> dict[str, Any]:
    """Inventory, each card's latest inspection, and the watch/retire list from the fleet rules."""
    try:
        from gpuwise.ops.fleet import evaluate, inspections_of, list_cards, load_rules
        from gpuwise.store import open_store

        with open_store() as s:
            cards = list_cards(s)
            latest: dict[str, Any] = {}
            for ins in inspections_of(s):
                latest[ins.card_uuid] = ins.as_dict()
            verdicts = evaluate(s, load_rules())
    except (ImportError, GpuwiseError) as exc:
        return {"cards": [], "inspections": [], "retire": [], "note": f"no fleet data: {exc}"}
    return {
        "cards": [c.as_dict() for c in cards],
        "inspections": [latest[c.uuid] for c in cards if c.uuid in latest],
        "retire": [
            {"uuid": v.card.uuid, "verdict": v.verdict, "reasons": [r.evidence for r in v.reasons]} for v in verdicts
        ],
    }


def _memory_chart(d: dict[str, Any]) -> str:
    from gpuwise.estimate.memory import COMPONENTS
    from gpuwise.report.svg import stacked
    from gpuwise.units import GiB

    per = d["memory"]["per_gpu"]
    return stacked(
        [(d["hardware"]["gpu"], {k: per[k] / GiB for k in COMPONENTS})],
        COMPONENTS,
        "Memory on the most loaded GPU (GiB)",
        lambda v: f"{v:.1f} GiB",
        limit=d["memory"]["capacity"] / GiB,
    )


def _form_context(fields: dict[str, str], result: Any, config_json: str = "") -> dict[str, Any]:
    ctx: dict[str, Any] = {
        "f": fields,
        "result": None,
        "models": _model_ids(),
        "config_json": config_json,
        "charts": {},
        "rows": [],
        "chosen": None,
        "rejected": [],
        "notes": [],
    }
    if result is not None:
        from gpuwise.report.document import charts

        ctx["result"] = result
        ctx["chosen"] = result.chosen
        ctx["rows"] = result.candidates[:8]
        ctx["rejected"] = result.rejected
        ctx["charts"] = charts(result)
        ctx["notes"] = result.notes
    return ctx


app = create_app()
