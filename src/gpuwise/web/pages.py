"""The pages for people: plan and estimate forms generated from the schema, the GPU catalog, the
capability matrix and the fleet. Every answer comes from `gpuwise.api`, as on the command line."""

from __future__ import annotations

import base64
from typing import Any

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from gpuwise.web import data
from gpuwise.web.forms import (
    ESTIMATE_DEFAULTS,
    ESTIMATE_SECTIONS,
    PERCENTILES,
    PLAN_DEFAULTS,
    PLAN_SECTIONS,
    estimate_inputs,
    form_sections,
    plan_inputs,
    read_form,
)
from gpuwise.web.templating import templates

router = APIRouter(include_in_schema=False)


def _form_context(form: dict[str, str], sections: tuple[str, ...]) -> dict[str, Any]:
    """What every schema form needs: the submitted values, the laid-out fields, the catalog ids."""
    return {
        "f": form,
        "sections": form_sections(sections),
        "models": data.model_ids(),
        "gpus": data.gpu_ids(),
        "percentiles": PERCENTILES,
    }


def _plan_context(form: dict[str, str], result: Any, config_json: str = "") -> dict[str, Any]:
    ctx: dict[str, Any] = {
        **_form_context(form, PLAN_SECTIONS),
        "config_json": config_json,
        "result": result,
        "chosen": None,
        "rows": [],
        "rejected": [],
        "charts": {},
        "notes": [],
    }
    if result is not None:
        from gpuwise.report.document import charts

        ctx.update(
            chosen=result.chosen,
            rows=result.candidates[:8],
            rejected=result.rejected,
            charts=charts(result),
            notes=result.notes,
        )
    return ctx


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    return templates.TemplateResponse(request, "plan.html", _plan_context(dict(PLAN_DEFAULTS), None))


@router.post("/plan", response_class=HTMLResponse)
async def plan_page(request: Request, config: UploadFile | None = File(None)) -> Response:
    form = read_form((await request.form()).multi_items())
    config_json = form.pop("config_json", "")
    if config is not None and config.filename:
        config_json = data.upload_text(await config.read(data.MAX_CONFIG_BYTES + 1))
    result = data.run_plan(*plan_inputs(form), config_json)
    return templates.TemplateResponse(request, "plan.html", _plan_context(form, result, config_json))


@router.post("/plan/report")
async def plan_report(request: Request) -> Response:
    """The plan as a report file to download: self-contained HTML, or Markdown with inline charts."""
    form = read_form((await request.form()).multi_items())
    config_json = form.pop("config_json", "")
    fmt = form.pop("fmt", "html")
    result = data.run_plan(*plan_inputs(form), config_json)
    from gpuwise.report import render_html, render_markdown
    from gpuwise.report.document import charts

    if fmt == "md":
        inline = {
            k: "data:image/svg+xml;base64," + base64.b64encode(v.encode()).decode() for k, v in charts(result).items()
        }
        return PlainTextResponse(
            render_markdown(result, inline),
            media_type="text/markdown",
            headers={"Content-Disposition": 'attachment; filename="gpuwise-plan.md"'},
        )
    return HTMLResponse(
        render_html(result), headers={"Content-Disposition": 'attachment; filename="gpuwise-plan.html"'}
    )


@router.get("/estimate", response_class=HTMLResponse)
def estimate_page(request: Request) -> Response:
    """One configuration, training or serving; estimated once a model and a GPU are given."""
    q = read_form(request.query_params.multi_items())
    result = None
    if q.get("model") and q.get("gpu"):
        result = data.run_estimate(*estimate_inputs(q)).as_dict()
    ctx = {
        **_form_context(q or dict(ESTIMATE_DEFAULTS), ESTIMATE_SECTIONS),
        "result": result,
        "chart": data.memory_chart(result) if result else None,
    }
    return templates.TemplateResponse(request, "estimate.html", ctx)


@router.get("/gpus", response_class=HTMLResponse)
def gpus_page(
    request: Request, vendor: str | None = None, min_memory: str | None = None, sort: str = "name", desc: bool = False
) -> Response:
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.query import filter_gpus

    rows = filter_gpus(load_catalog(), vendor=vendor or None, min_memory=min_memory or None, sort=sort, descending=desc)
    ctx = {"rows": rows, "vendor": vendor or "", "min_memory": min_memory or "", "sort": sort, "desc": desc}
    return templates.TemplateResponse(request, "gpus.html", ctx)


@router.get("/matrix", response_class=HTMLResponse)
def matrix_page(request: Request) -> Response:
    m = data.matrix()
    return templates.TemplateResponse(request, "matrix.html", {"m": m, "chart": data.matrix_chart(m)})


@router.get("/fleet", response_class=HTMLResponse)
def fleet_page(request: Request) -> Response:
    return templates.TemplateResponse(request, "fleet.html", {"fleet": data.fleet()})
