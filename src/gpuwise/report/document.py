"""The report's content, once, rendered as Markdown or HTML."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from gpuwise import clock
from gpuwise.estimate.bands import known_biases
from gpuwise.estimate.memory.breakdown import COMPONENTS
from gpuwise.i18n import (
    MESSAGES,
    Lang,
    band_line,
    band_range,
    bias_text,
    check_lang,
    cost_text,
    fmt_count_l,
    fmt_duration,
    fmt_gpu_hours,
    fmt_money,
    hours_number,
    localize,
    money_text,
    msg,
    pipeline_text,
    reason_text,
    ruled_out,
    term,
    unit_label,
)
from gpuwise.plan.explain import rate_unit
from gpuwise.plan.results import Candidate, Code, PlanResult, Serving
from gpuwise.report.svg import hbars, stacked
from gpuwise.units import GiB, fmt_bytes, fmt_seconds
from gpuwise.workload import TrainingJob


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    paragraphs: tuple[str, ...] = ()
    table: tuple[tuple[str, ...], ...] = ()  # first row is the header
    chart: str | None = None  # key into charts()
    bulleted: bool = False  # the paragraphs are a list


# characters Markdown gives a meaning to anywhere in a line (emphasis, code, links, tables, headings)
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|#~!])")
_MD_LIST_START = re.compile(r"^([-+]|\d+)([.)]?)(?=\s|$)")


def md_text(text: object) -> str:
    """A string as literal Markdown text: HTML is escaped (a model named `<script>` stays text in
    every renderer), Markdown's control characters are backslash-escaped, and a line break cannot
    start a new block. Every string in a Markdown report goes through here."""
    out = escape(" ".join(str(text).split()), quote=False)
    out = _MD_SPECIAL.sub(r"\\\1", out)
    return _MD_LIST_START.sub(_unlist, out, count=1)


def _unlist(m: re.Match[str]) -> str:
    """'- x' -> '\\- x', '1. x' -> '1\\. x': a text that would read as a list item stays a text."""
    mark, dot = m.group(1), m.group(2)
    if mark in "-+":
        return "\\" + mark + dot
    return mark + ("\\" + dot if dot else "")


def _shown(result: PlanResult, n: int = 6) -> list[Candidate]:
    return list(result.candidates[:n])


def charts(result: PlanResult) -> dict[str, str]:
    """The SVG charts, titled in the report's language."""
    shown = _shown(result)
    lang = check_lang(result.requirements.lang)
    out: dict[str, str] = {}
    if shown:
        rows = [(c.label, {k: getattr(c.est.memory.per_gpu, k) / GiB for k in COMPONENTS}) for c in shown]
        caps = [c.est.memory.capacity / GiB for c in shown]  # each GPU type its own capacity
        names = {k: msg(f"mem_{k}", lang) for k in COMPONENTS} if lang != "en" else None
        title, capacity = msg("chart_memory", lang), msg("chart_capacity", lang)
        out["memory"] = stacked(
            rows, COMPONENTS, title, lambda v: f"{v:.1f} GiB", limit=caps, names=names, limit_label=capacity
        )
        priced = [(c.label, c.cost) for c in shown if c.cost is not None]
        if priced:
            training = isinstance(result.workload, TrainingJob)
            what = msg(
                "chart_cost_run"
                if training and shown[0].hours
                else ("chart_cost_mtok" if training else "chart_cost_month"),
                lang,
            )
            title = msg("chart_cost", lang, pricing=term("pricing", result.requirements.pricing, lang), what=what)
            out["cost"] = hbars(priced, title, lambda v: f"${v:,.0f}" if v >= 100 else f"${v:,.2f}")
        timed = [(c.label, c.time) for c in shown if c.time and c.time != float("inf")]
        if timed:
            title = msg("chart_training_time" if isinstance(result.workload, TrainingJob) else "chart_latency", lang)
            out["time"] = hbars(timed, title, fmt_seconds)
    return out


def _requirements_table(result: PlanResult) -> tuple[tuple[str, ...], ...]:
    """What was asked, one row per stated requirement, in the report's language."""
    req, w = result.requirements, result.workload
    lang = check_lang(req.lang)
    asked = [(msg("col_requirement", lang), msg("col_value", lang))]
    if req.deadline_seconds:
        asked.append((msg("req_deadline", lang), fmt_duration(req.deadline_seconds, lang)))
    if req.qps:
        asked.append((msg("req_load", lang), msg("qps_value", lang, qps=req.qps)))
    goals = (("TTFT", req.ttft_seconds), ("TPOT", req.tpot_seconds), (msg("req_latency", lang), req.latency_seconds))
    for name, seconds in goals:  # every latency target stated, each at the one percentile
        if seconds and req.percentile:
            asked.append((f"P{req.percentile:g} {name}", f"≤ {seconds * 1e3:,.0f} ms"))
    if req.budget_usd:
        per = msg("for_run" if isinstance(w, TrainingJob) else "per_month", lang, v=fmt_money(req.budget_usd, lang))
        asked.append((msg("req_budget", lang), per))
    if req.max_gpus:
        asked.append((msg("req_max_gpus", lang), f"≤ {req.max_gpus}"))
    if req.redundancy:
        asked.append((msg("req_redundancy", lang), msg("redundancy_value", lang, n=req.redundancy)))
    if req.growth:
        asked.append((msg("req_growth", lang), req.growth.describe()))
    pricing, objective = term("pricing", req.pricing, lang), term("objective", req.objective, lang)
    asked.append((msg("pricing_objective", lang, pricing=pricing, objective=objective), ""))
    return tuple(asked)


def _workload_line(result: PlanResult, lang: Lang = "en") -> str:
    """The workload in one sentence: model, task and the settings that size it."""
    w = result.workload
    task = msg(f"task_{w.task}", lang) if f"task_{w.task}" in MESSAGES else w.task
    wl = msg("workload_line", lang, model=w.model.name, params=f"{w.model.params / 1e9:.2f}", task=task)
    if isinstance(w, TrainingJob):
        wl += msg("workload_training", lang, method=w.method, precision=w.precision, optimizer=w.optimizer, seq=w.seq)
        if w.tokens:
            wl += msg("workload_tokens", lang, tokens=fmt_count_l(w.tokens, lang))
    else:
        wl += msg("workload_serving", lang, dtype=w.weights_dtype, input=w.input_tokens, output=w.output_tokens)
    return wl


def _chosen_section(chosen: Candidate, lang: Lang = "en") -> Section:
    """The chosen configuration: memory, speed or latency, bottleneck and the fleet's cost, with its
    reasons and the command that reproduces it."""
    rows = [("", chosen.label)]
    mem = chosen.est.memory
    need, cap = fmt_bytes(mem.per_gpu.total), fmt_bytes(mem.capacity)
    est = chosen.est
    memory = msg("row_memory_value", lang, need=need, cap=cap) + band_range(est, "memory.per_gpu.total", fmt_bytes)
    rows.append((msg("row_memory", lang), memory))
    if chosen.est.training:
        t, w = chosen.est.training, chosen.est.workload
        key, unit = rate_unit(w.model.kind, getattr(w.model, "task", None))
        count = lambda x: fmt_count_l(x, lang)  # noqa: E731
        rate = f"{count(getattr(t, key))}{band_range(est, f'training.{key}', count)} {unit_label(unit, lang)}"
        step = fmt_duration(t.step_seconds, lang)
        rows += [
            (msg("row_throughput", lang), f"{rate}, MFU {t.mfu:.0%}"),
            (msg("row_step", lang), step + band_range(est, "training.step_seconds", lambda x: fmt_duration(x, lang))),
        ]
        if t.total_seconds:
            run = band_range(est, "training.total_seconds", lambda x: fmt_duration(x, lang))
            hours = fmt_gpu_hours(t.gpu_hours, lang) + band_range(est, "training.gpu_hours", hours_number)
            whole = f"{fmt_duration(t.total_seconds, lang)}{run}, {hours}"
            rows.append((msg("row_whole_run", lang), whole))
    elif est.inference is not None:
        i = est.inference
        fmt = lambda x: fmt_seconds(x) if x < 60 else fmt_duration(x, lang)  # noqa: E731
        parts = [
            f"TTFT {fmt(i.time_to_first_token_seconds)}{band_range(est, 'inference.time_to_first_token_seconds', fmt)}"
        ]
        if i.decode_seconds_per_token:
            parts.append(
                f"TPOT {fmt(i.decode_seconds_per_token)}{band_range(est, 'inference.decode_seconds_per_token', fmt)}"
            )
        batch = getattr(est.workload, "concurrency", 1)
        rows.append((msg("row_latency_batch", lang, batch=batch), ", ".join(parts)))
    s = chosen.serving
    if s is not None:
        value = msg(
            "row_replicas_value", lang, replicas=chosen.replicas, gpus=chosen.est.hardware.count, batch=s.max_batch
        )
        rows.append((msg("row_replicas", lang), value))
        rows += _latency_rows(s, lang)
    confident = band_line(chosen.meets, lang, memory=chosen.est.training is not None)
    if confident:
        rows.append((msg("row_at_confidence", lang), confident))
    rows += [(msg("row_known_bias", lang), bias_text(b, lang)) for b in known_biases(chosen.est.bands().values())]
    rows.append((msg("row_bottleneck", lang), term("bottleneck", chosen.est.bottleneck, lang)))
    rows.append((msg("row_cost", lang), cost_text(chosen.cost_dict(), lang)))
    rows += _price_rows(chosen, lang)
    if chosen.command:
        rows.append((msg("command", lang), chosen.command))
    why = tuple(reason_text(r, lang) for r in chosen.why)
    return Section(msg("chosen_plan", lang), why, tuple(rows), bulleted=True)


def _latency_rows(s: Serving, lang: Lang) -> list[tuple[str, str]]:
    """The simulated percentiles of each latency the service has (TTFT and TPOT for an LLM, then
    end-to-end), each beside the target the requirements set for it."""
    sim = s.simulated
    if sim is None:
        return []
    goals = sim.goals
    targets = {"ttft": goals.ttft_seconds, "tpot": goals.tpot_seconds, "e2e": goals.e2e_seconds}
    names = {"ttft": "TTFT", "tpot": "TPOT", "e2e": msg("row_e2e", lang)}
    rows = []
    for metric, name in names.items():
        pcts = sim.percentiles.get(metric, {})
        if not any(pcts.values()):  # one pass and no tokens after it: no TPOT
            continue
        value = " · ".join(f"P{q} {fmt_duration(pcts[f'p{q}'], lang)}" for q in (50, 95, 99) if f"p{q}" in pcts)
        target = targets[metric]
        if target is not None:
            limit = f"≤ {target * 1e3:,.0f} ms"
            value = msg("row_latency_target", lang, value=value, percentile=f"{goals.percentile:g}", limit=limit)
        rows.append((name, value))
    return rows


def _availability_section(chosen: Candidate, lang: Lang) -> Section | None:
    """Failures priced into a training run; the spare replicas of a service (--redundancy)."""
    rows: list[tuple[str, str]] = []
    r = chosen.reliability
    if r is not None:
        interval, write = fmt_duration(r.interval_seconds, lang), fmt_duration(r.write_seconds, lang)
        restore = fmt_duration(r.restore_seconds, lang)
        rows += [
            (msg("row_mtbf", lang), fmt_duration(r.mtbf_seconds, lang)),
            (
                msg("row_checkpoint", lang),
                msg("row_checkpoint_value", lang, interval=interval, write=write, restore=restore),
            ),
            (msg("row_goodput", lang), f"{r.goodput:.1%}"),
        ]
    n = chosen.serving.redundancy if chosen.serving is not None else 0
    if n:
        rows.append((msg("req_redundancy", lang), msg("redundancy_value", lang, n=n)))
        rows.append((msg("row_spread", lang), msg("spread_per_node", lang)))
    if not rows:
        return None
    head = (msg("col_requirement", lang), msg("col_value", lang))
    return Section(msg("availability", lang), (), (head, *rows), bulleted=True)


def _pipeline_section(chosen: Candidate, lang: Lang) -> Section | None:
    """The upgraded data pipeline, with the GPU-only answer and its cost beside it."""
    p = chosen.pipeline
    if p is None:
        return None
    rows = [(msg("row_pipeline", lang), pipeline_text(p.loader_cores_per_node, p.storage, p.format, lang))]
    extra = chosen.cost_dict().get("pipeline_usd")
    rows.append((msg("row_pipeline_extra", lang), fmt_money(extra, lang)))
    alt = p.gpu_only
    if alt is not None:
        value = msg("row_gpu_only_value", lang, label=alt.label, cost=fmt_money(alt.cost, lang))
        rows.append((msg("row_gpu_only", lang), value))
    return Section(msg("data_pipeline", lang), (), ((msg("col_requirement", lang), msg("col_value", lang)), *rows))


def _price_rows(chosen: Candidate, lang: Lang = "en") -> list[tuple[str, str]]:
    """The offer behind the price (provider, instance, date, source) and the cost in --currency;
    the offer is a source citation and stays as the price list writes it."""
    offer = chosen.offer
    rows = [(msg("row_priced_from", lang), localize(offer.describe(), lang))] if offer is not None else []
    money = money_text(chosen.money(), lang)
    if money:
        rows.append((msg("row_currency", lang), money))
    return rows


def _alternatives_section(result: PlanResult, lang: Lang = "en") -> Section:
    """The candidates shown, ranked, with the Pareto front marked, what each misses and why it lost."""
    head = ("#", msg("col_configuration", lang), msg("col_gpus", lang), msg("col_time", lang), msg("row_cost", lang))
    alt = [(*head, msg("col_meets", lang), msg("col_why_loses", lang))]
    front = {id(c) for c in result.pareto()}
    for i, c in enumerate(_shown(result), 1):
        bad = c.meets.missed()
        alt.append(
            (
                str(i) + (msg("pareto_mark", lang) if id(c) in front else ""),
                c.label,
                str(c.gpus),
                fmt_duration(c.time, lang),
                fmt_money(c.cost, lang),
                msg("floor_not_confirmed", lang)
                if not c.confirmed
                else msg("meets_all", lang)
                if not bad
                else msg("misses", lang, what=", ".join(term("meet", k, lang) for k in bad)),
                "" if i == 1 and c.ok else (reason_text(c.why[-1], lang) if c.why else ""),
            )
        )
    note = msg("alternatives_note", lang, objective=term("objective", result.requirements.objective, lang))
    return Section(msg("comparison", lang), (note,), tuple(alt))


def sections(result: PlanResult) -> list[Section]:
    """The report's sections in order; Markdown and HTML render the same list."""
    chosen = result.chosen
    lang = check_lang(result.requirements.lang)
    out = [Section(msg("workload", lang), (_workload_line(result, lang),), _requirements_table(result))]
    if chosen is None:
        out.append(Section(msg("section_result", lang), (msg("no_plan", lang),)))
    else:
        out.append(_chosen_section(chosen, lang))
        out += [s for s in (_availability_section(chosen, lang), _pipeline_section(chosen, lang)) if s]
    out.append(_alternatives_section(result, lang))
    out.append(Section(msg("section_memory", lang), chart="memory"))
    out.append(Section(msg("section_cost", lang), chart="cost"))
    out.append(Section(msg("section_time", lang), chart="time"))
    if result.rejected:
        head = (msg("col_gpu", lang), msg("col_binding", lang))
        rows = (head, *ruled_out(result.rejected, lang))
        out.append(Section(msg("ruled_out", lang), (msg("ruled_out_note", lang),), rows))
    out.append(Section(msg("risks", lang), tuple(_risks(result, lang)), bulleted=True))
    if chosen is not None:  # the estimators' notes are data with their sources: listed as they are written
        heading = (msg("assumptions_note", lang),) if lang != "en" else ()
        notes = (*heading, *chosen.est.as_dict()["assumptions"])
        out.append(Section(msg("assumptions", lang), notes, bulleted=True))
    return out


def _risks(result: PlanResult, lang: Lang = "en") -> list[str]:
    """What could make the chosen plan fail, in the report's language."""
    risks = []
    c = result.chosen
    req = result.requirements
    if c is None:
        return [msg("risk_nothing", lang)]
    if c.growth is not None:
        holds, summary = c.growth.holds, reason_text(c.growth.summary, lang)
        path = None if c.growth.upgrade_path is None else reason_text(c.growth.upgrade_path, lang)
        risks.append(
            msg("risk_growth_holds", lang, summary=summary)
            if holds
            else msg("risk_growth_breaks", lang, summary=summary, path=path)
        )
    elif req.growth is None:
        risks.append(msg("risk_growth_unstated", lang))
    if c.gpus == 1 or (c.replicas == 1 and c.est.inference is not None):
        risks.append(msg("risk_single", lang))
    if c.est.hardware.nodes == 1 and c.est.training is not None and c.gpus > 1:
        risks.append(msg("risk_one_node", lang))
    if req.pricing == "spot":
        risks.append(msg("risk_spot", lang))
    prices = (Code.RANKING_MAY_FLIP, Code.STALE_PRICES)
    risks += [reason_text(n, lang) for n in result.notes if n.code in prices]
    headroom = c.est.memory.headroom / c.est.memory.capacity
    if headroom < 0.1:
        risks.append(msg("risk_headroom", lang, share=headroom))
    deadline = c.meets.get("deadline")
    if deadline is not None and deadline.margin is not None and req.deadline_seconds:
        margin = deadline.margin / req.deadline_seconds
        if margin < 0.2:
            risks.append(msg("risk_deadline", lang, share=margin))
    if not c.confirmed:
        risks.append(msg("risk_analytic", lang))
    return risks


def render_markdown(result: PlanResult, chart_files: dict[str, str]) -> str:
    """The report as Markdown; every text is escaped (`md_text`), the chart links are ours."""
    lang = check_lang(result.requirements.lang)
    lines = [
        f"# {md_text(msg('report_title', lang, what=result.workload.model.name))}",
        "",
        f"_{md_text(msg('generated', lang, date=clock.today().isoformat()))}_",
        "",
    ]
    for s in sections(result):
        if s.chart and s.chart not in chart_files:
            continue
        lines += [f"## {md_text(s.title)}", ""]
        for p in s.paragraphs:
            lines.append(f"- {md_text(p)}" if s.bulleted else md_text(p))
        if s.paragraphs:
            lines.append("")
        if s.table:
            head, *rows = s.table
            lines.append("| " + " | ".join(md_text(h) for h in head) + " |")
            lines.append("|" + "---|" * len(head))
            lines += ["| " + " | ".join(md_text(c) for c in r) + " |" for r in rows]
            lines.append("")
        if s.chart:
            lines += [f"![{md_text(s.title)}]({_md_link(chart_files[s.chart])})", ""]
    return "\n".join(lines)


def _md_link(target: str) -> str:
    """A chart's address (a file name beside the report, or a data: URI) inside `(...)`."""
    return target.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


_CSS = """body{font-family:system-ui,"Noto Sans CJK SC","Noto Sans SC",sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#1a202c}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #cbd5e0;padding:4px 8px;text-align:left}
th{background:#edf2f7}h1{border-bottom:2px solid #2b6cb0}h2{color:#2b6cb0;margin-top:1.5em}.note{color:#4a5568}"""


def render_html(result: PlanResult) -> str:
    svgs = charts(result)
    lang = check_lang(result.requirements.lang)
    body = [
        f"<h1>{escape(msg('report_title', lang, what=result.workload.model.name))}</h1>",
        f'<p class="note">{escape(msg("generated", lang, date=clock.today().isoformat()))}</p>',
    ]
    for s in sections(result):
        if s.chart and s.chart not in svgs:
            continue
        body.append(f"<h2>{escape(s.title)}</h2>")
        if s.paragraphs:
            if s.bulleted:
                body.append("<ul>" + "".join(f"<li>{escape(p)}</li>" for p in s.paragraphs) + "</ul>")
            else:
                body += [f"<p>{escape(p)}</p>" for p in s.paragraphs]
        if s.table:
            head, *rows = s.table
            body.append(
                "<table><tr>"
                + "".join(f"<th>{escape(h)}</th>" for h in head)
                + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
                + "</table>"
            )
        if s.chart:
            body.append(f'<figure id="chart-{s.chart}">{svgs[s.chart]}</figure>')
    return (
        f'<!doctype html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8"><title>{escape(msg("html_title", lang))}</title>'
        f"<style>{_CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n"
    )
