"""The pages for people: plan and estimate forms generated from the schema, the GPU catalog, the
capability matrix and the fleet. Every answer comes from `gpuwise.api`, as on the command line."""

from __future__ import annotations

import base64
from typing import Any

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import HTMLResponse, PlainTextResponse, Response

from gpuwise.i18n import Lang, msg
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
        from gpuwise.api import UPLOADED_CONFIG
        from gpuwise.estimate.bands import known_biases
        from gpuwise.estimate.offers import rate_line
        from gpuwise.i18n import bias_line, check_lang, reason_text, ruled_out
        from gpuwise.report.document import charts

        lang = check_lang(result.requirements.lang)
        rows = result.candidates[:8]
        w = result.workload
        ctx.update(
            plan_for=msg("plan_for", lang, what=f"{w.model.name} · {w.task}"),
            uploaded_as=UPLOADED_CONFIG,
            chosen=result.chosen,
            why=[reason_text(r, lang) for r in result.chosen.why] if result.chosen else [],
            rows=rows,
            rejected=ruled_out(result.rejected, lang),
            charts=charts(result),
            notes=[reason_text(n, lang) for n in result.notes],
            rate=rate_line(result.requirements.fx),
            offers=[_offer_lines(c, lang) for c in rows],
            chosen_offer=_offer_lines(result.chosen, lang),
            cost_label=msg("row_cost", lang).capitalize(),
            biases=[
                bias_line(b, lang) for b in (known_biases(result.chosen.est.bands().values()) if result.chosen else ())
            ],
        )
    return ctx


def _offer_lines(c: Any, lang: Lang = "en") -> dict[str, str | None]:
    """The offer behind a candidate's price and the cost in --currency, in the words the CLI and
    reports use, in the plan's language (nothing for no candidate)."""
    from gpuwise.i18n.words import money_text

    if c is None:
        return {"offer": None, "money": None}
    return {"offer": None if c.offer is None else c.offer.describe(), "money": money_text(c.money(), lang)}


def _estimate_prices(hardware: Any, cost: dict[str, Any] | None, currency: str) -> dict[str, str | None]:
    """The on-demand offer behind an estimate's price and its cost in `currency` (the dated rate)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.cost import CostParams, rent_quote
    from gpuwise.estimate.offers import default_market, fx_rate, money_of_cost, rate_line
    from gpuwise.i18n.words import money_text

    cat = load_catalog()
    replicas = int((cost or {}).get("replicas") or 1)  # a serving fleet: its replicas packed, as its cost is
    quote = rent_quote(
        hardware, "on-demand", CostParams.from_catalog(cat, market=default_market(cat)), replicas=replicas
    )
    fx = fx_rate(cat.fx, currency or "USD")
    amounts = money_of_cost(fx, cost)
    offer = None if quote is None else quote.describe()
    return {"offer": offer, "money": money_text(amounts) if cost else None, "rate": rate_line(fx)}


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
    from gpuwise.estimate.bands import json_biases

    q = read_form(request.query_params.multi_items())
    result = None
    prices: dict[str, str | None] = {}
    if q.get("model") and q.get("gpu"):
        est = data.run_estimate(*estimate_inputs(q))
        result = est.as_dict()
        prices = _estimate_prices(est.hardware, result.get("cost"), q.get("currency", "USD"))
    ctx = {
        **_form_context(q or dict(ESTIMATE_DEFAULTS), ESTIMATE_SECTIONS),
        "result": result,
        "prices": prices,
        "chart": data.memory_chart(result) if result else None,
        "no_fit_speed": msg("no_fit_speed"),
        "biases": [msg("known_bias", text=text) for text in json_biases(result.get("uncertainty"))] if result else [],
    }
    return templates.TemplateResponse(request, "estimate.html", ctx)


@router.get("/gpus", response_class=HTMLResponse)
def gpus_page(
    request: Request, vendor: str | None = None, min_memory: str | None = None, sort: str = "name", desc: bool = False
) -> Response:
    from gpuwise.api import gpu_records  # the CLI's records and prices (the offers a plan rents)

    rows = gpu_records(vendor or None, None, min_memory or None, sort, desc)
    ctx = {"rows": rows, "vendor": vendor or "", "min_memory": min_memory or "", "sort": sort, "desc": desc}
    return templates.TemplateResponse(request, "gpus.html", ctx)


@router.get("/matrix", response_class=HTMLResponse)
def matrix_page(request: Request) -> Response:
    m = data.matrix()
    return templates.TemplateResponse(request, "matrix.html", {"m": m, "chart": data.matrix_chart(m)})


@router.get("/fleet", response_class=HTMLResponse)
def fleet_page(request: Request) -> Response:
    return templates.TemplateResponse(request, "fleet.html", {"fleet": data.fleet()})
