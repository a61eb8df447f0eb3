"""Rich tables and bars for people. Takes the JSON-shaped dicts the API returns."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpuwise.catalog.schema import GPU
from gpuwise.colors import MEMORY_COLORS as _COLORS
from gpuwise.estimate.bands import json_biases, known_biases
from gpuwise.i18n import (
    Lang,
    band_line,
    bias_line,
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
    reason_text,
    ruled_out_lines,
    term,
    unit_label,
    years_text,
)
from gpuwise.store.results import GPU_BOUND_SHARE
from gpuwise.units import fmt_bytes, fmt_count, fmt_gib, fmt_measure, fmt_rate, fmt_seconds, fmt_usd

# highlight=False: the tables style their own cells; rich's automatic highlighting of numbers and
# names in plain strings would recolour them at random (and compiles its large pattern on first use).
# emoji=False: text such as a model or host name between colons is printed as written, not as an
# emoji (and rich's emoji table is not loaded)
console = Console(highlight=False, emoji=False)
if not console.is_terminal:  # piped or captured: do not squeeze tables to 80 columns
    console = Console(width=160, highlight=False, emoji=False)


NAMED_LOSS = 0.001  # what a run loses is named by cause from 0.1 % of its failure-free time


def _tflops(value: float | None) -> str:
    return "—" if not value else f"{value / 1e12:,.0f}"


def gpu_table(rows: list[GPU], cloud: dict[str, float] | None = None) -> None:
    """`cloud`: GPU id -> USD per GPU-hour of its cheapest on-demand offer (gpuwise prices)."""
    cloud = cloud or {}
    t = Table(title="GPU catalog (dense tensor peaks; memory in GiB, bandwidth in decimal GB/s)", header_style="bold")
    for col, just in (
        ("id", "left"),
        ("memory", "right"),
        ("type", "left"),
        ("bandwidth", "right"),
        ("bf16 TFLOP/s", "right"),
        ("fp8 TFLOP/s", "right"),
        ("TDP W", "right"),
        ("GPU link", "left"),
        ("MIG", "right"),
        ("list USD", "right"),
        ("from $/GPU-h", "right"),
    ):
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    for g in rows:
        link = (
            "PCIe"
            if g.interconnect is None
            else (
                f"NVLink{g.interconnect.nvlink} {g.interconnect.bandwidth / 1e9:.0f} GB/s"
                if g.interconnect.nvlink
                else f"{g.interconnect.fabric} {g.interconnect.bandwidth / 1e9:.0f} GB/s"
            )
        )
        bf16 = g.peak_flops.get("bf16") or g.peak_flops.get("fp16")
        t.add_row(
            g.id,
            fmt_gib(g.memory_bytes, 0),
            g.memory_type,
            fmt_rate(g.memory_bandwidth),
            _tflops(bf16),
            _tflops(g.peak_flops.get("fp8")),
            f"{g.tdp_watts:.0f}",
            link,
            str(g.mig_max_instances or "—"),
            f"{g.price.list_usd:,.0f}" if g.price.list_usd else "—",
            f"{cloud[g.id]:.2f}" if g.id in cloud else "—",
        )
    console.print(t)
    console.print(
        "Sources: `gpuwise gpus --json` gives each value's source and date; `from $/GPU-h` is the cheapest "
        "on-demand offer per GPU-hour (`gpuwise prices --gpu ID` names it).",
        style="dim",
    )


def model_table(records: list[dict[str, Any]]) -> None:
    t = Table(title="Model catalog (parameters computed from each architecture)", header_style="bold")
    for col in ("id", "task", "params", "active", "layers", "hidden", "heads/kv", "vocab", "context"):
        t.add_column(col, justify="left" if col in ("id", "task") else "right")
    for r in records:
        a = r["architecture"]
        if r["kind"] == "transformer":
            t.add_row(
                r["id"],
                r["task"],
                fmt_count(r["params"]),
                fmt_count(r["active_params"]) if r["active_params"] != r["params"] else "",
                str(a["layers"]),
                str(a["hidden"]),
                f"{a['heads']}/{a['kv_heads']}",
                str(a["vocab"] or "—"),
                str(a["max_seq"]),
            )
        else:
            t.add_row(r["id"], r["task"], fmt_count(r["params"]), "", "—", "—", "—", "—", "—")
    console.print(t)


def band_text(d: dict[str, Any], path: str, fmt: Any) -> str:
    """' (80 %: low–high)' for a figure of an estimate dict, from its `uncertainty`; '' without one."""
    b = (d.get("uncertainty") or {}).get(path)
    if not b:
        return ""
    return f" ({b['level']:.0%}: {fmt(b['low'])}–{fmt(b['high'])})"


def _bar(value: float, scale: float, width: int, color: str) -> Text:
    n = 0 if scale <= 0 else round(width * value / scale)
    return Text("█" * max(n, 1 if value > 0 else 0), style=color)


def estimate_view(d: dict[str, Any]) -> None:
    w, hw, mem = d["workload"], d["hardware"], d["memory"]
    what = f"{w['model']} ({fmt_count(w['params'])} params) · {w['task']}" + (
        f" · {w['method']} · {w['precision']} · {w['optimizer']}"
        if w["task"] != "inference"
        else f" · weights {w['weights_dtype']}"
        + (f" (computed at {w['precision']} under autocast)" if w.get("precision") else "")
        + f" · KV {w['kv_dtype']}"
    )
    console.print(Text(what, style="bold"))
    layout = f"tp={w['tp']} pp={w['pp']} dp={w['dp']}" + (f" zero={w['zero']}" if "zero" in w else "")
    layout += "".join(f" {k}={w[k]}" for k in ("cp", "vpp", "ep") if (w.get(k) or 1) > 1)  # where used
    seq = f" × seq {w['seq']}" if "layers" in w and "seq" in w else ""
    shape = (
        f"micro-batch {w['micro_batch']}{seq} · recompute {w['recompute']}"
        if w["task"] != "inference"
        else (
            f"a run of {w['requests']} request(s), {w['concurrency']} at once"
            if w.get("requests")
            else f"{w['concurrency']} request(s)"
        )
        + f" × ({w['input_tokens']} in + {w['output_tokens']} out) tokens"
    )
    console.print(
        f"{hw['count']} × {hw['gpu']} on {hw['nodes']} node(s), link {hw['interconnect']} · {layout} · {shape}"
    )
    per = mem["per_gpu"]
    cap = mem["capacity"]
    scale = max(cap, per["total"])
    t = Table(title="Memory on the most loaded GPU", header_style="bold", show_edge=False)
    t.add_column("component")
    t.add_column("size", justify="right")
    t.add_column("share", justify="right")
    t.add_column("", no_wrap=True)
    for comp, color in _COLORS.items():
        t.add_row(
            comp.replace("_", " "),
            fmt_bytes(per[comp]),
            f"{100 * per[comp] / max(per['total'], 1):.0f}%",
            _bar(per[comp], scale, 40, color),
        )
    t.add_row(
        Text("total", style="bold"),
        Text(fmt_bytes(per["total"]), style="bold"),
        "",
        _bar(per["total"], scale, 40, "white"),
    )
    t.add_row("capacity", fmt_bytes(cap), "", _bar(cap, scale, 40, "bright_black"))
    console.print(t)
    _memory_verdict(d, timed=bool(d.get("training") or d.get("inference")))
    if d.get("training"):
        _training_view(d, llm="layers" in w)
    if d.get("inference"):
        _inference_view(d)
    for text in json_biases(d.get("uncertainty")):
        console.print(Text(msg("known_bias", "en", text=text), style="yellow"))
    if d.get("cost"):
        console.print(cost_text(d["cost"]))
    if mem.get("detail"):
        parts = [f"{k.replace('_', ' ')} {fmt_bytes(v)}" for k, v in mem["detail"].items() if v]
        console.print(Text("Parts: " + " · ".join(parts), style="dim"))
    console.print(Text("Assumptions (full sources with --json):", style="bold"))
    for a in d["assumptions"]:
        console.print(Text(f"  • {_short_source(a)}", style="dim"))


def _memory_verdict(d: dict[str, Any], timed: bool) -> None:
    """Fits (with the room left) or not (with the shortfall and what would fit), the peak with its
    band and the out-of-memory risk it carries; a workload that does not fit says that the speed
    printed after it is hypothetical."""
    mem, per = d["memory"], d["memory"]["per_gpu"]
    if mem["fits"]:
        verdict = Text(f"fits, {fmt_bytes(mem['headroom'])} free", style="bold green")
    else:
        verdict = Text(f"does NOT fit: {fmt_bytes(-mem['headroom'])} short", style="bold red")
    verdict.append(f" · peak {fmt_bytes(per['total'])}{band_text(d, 'memory.per_gpu.total', fmt_bytes)}", style="")
    console.print(verdict)
    risk = _oom_risk(d)
    if risk:
        console.print(Text(risk, style="yellow"))
    if mem.get("largest_fitting"):
        parts = [
            f"{k.replace('_', ' ')} {v:,}" if v else f"{k.replace('_', ' ')}: nothing fits"
            for k, v in mem["largest_fitting"].items()
        ]
        console.print("Largest that fits (others unchanged): " + ", ".join(parts))
    if not mem["fits"] and timed:
        console.print(Text(msg("no_fit_speed"), style="yellow"))
        if d.get("training") and d["hardware"]["count"] > 1 and not _layout_searched(d):
            console.print(Text(msg("no_fit_layout_auto"), style="yellow"))


def _layout_searched(d: dict[str, Any]) -> bool:
    """Whether --layout auto chose this layout (its note is among the assumptions)."""
    return any("--layout auto" in a for a in d.get("assumptions", ()))  # found or not, its note names it


def _oom_risk(d: dict[str, Any]) -> str:
    """The out-of-memory risk a fitting training estimate carries when its band's high end passes
    capacity (fits are judged at the estimate: a layout that runs out of memory fails at its first
    step and a lighter layout fixes it, where a missed deadline or latency costs the whole run)."""
    mem = d["memory"]
    b = (d.get("uncertainty") or {}).get("memory.per_gpu.total")
    if not d.get("training") or not b or not mem["fits"] or b["high"] <= mem["capacity"]:
        return ""  # a serving engine sizes its KV cache to the memory left: it runs fewer requests, not out
    return (
        f"out-of-memory risk: the peak may reach {fmt_bytes(b['high'])} at {b['level']:.0%} "
        f"({fmt_bytes(mem['capacity'])} on the GPU)"
    )


def _training_view(d: dict[str, Any], llm: bool = True) -> None:
    t, bottleneck = d["training"], d["bottleneck"]
    tab = Table(title="Training step", header_style="bold", show_edge=False)
    tab.add_column("term")
    tab.add_column("time", justify="right")
    tab.add_column("share", justify="right")
    tab.add_column("", no_wrap=True)
    step = t["step_seconds"]
    for name, sec in t["step_terms"].items():
        tab.add_row(name.replace("_", " "), fmt_seconds(sec), f"{100 * sec / step:.0f}%", _bar(sec, step, 30, "cyan"))
    band = band_text(d, "training.step_seconds", fmt_seconds).strip()  # in the bars' column: the times stay aligned
    tab.add_row(Text("step", style="bold"), Text(fmt_seconds(step), style="bold"), "", Text(band, style="bold"))
    console.print(tab)
    count = lambda x: f"{x:,.0f}"  # noqa: E731
    samples = f"{t['samples_per_second']:,.1f} samples/s" + band_text(
        d, "training.samples_per_second", (lambda x: f"{x:,.1f}") if llm else count
    )
    rate = (
        f"{t['tokens_per_second']:,.0f} tokens/s{band_text(d, 'training.tokens_per_second', count)} · {samples}"
        if llm
        else samples
    )
    console.print(Text(f"{rate} · MFU {t['mfu']:.0%} · bottleneck: {bottleneck}", style="bold"))
    if t.get("total_seconds"):
        console.print(
            f"Whole run: {fmt_seconds(t['total_seconds'])}{band_text(d, 'training.total_seconds', fmt_seconds)}, "
            f"{fmt_gpu_hours(t['gpu_hours'])}{band_text(d, 'training.gpu_hours', hours_number)}"
        )
    if d.get("reliability"):
        console.print(_expected_run(d))


def _expected_run(d: dict[str, Any]) -> str:
    """The run as a plan ranks it: failure-free time plus what a run at its scale loses, each cause
    named where it adds at least 0.1 %, with the band of the training time."""
    r = d["reliability"]
    losses, free = r["losses_seconds"], r["failure_free_seconds"]
    causes = [f"start-up {fmt_seconds(losses['start'])}"]
    if losses["at_scale_efficiency"] >= NAMED_LOSS * free:
        share = losses["at_scale_efficiency"] / free
        causes.append(f"at most {r['at_scale_mfu']:.0%} MFU as published at this scale +{share:.1%}")
    if losses["stragglers"] >= NAMED_LOSS * free:
        causes.append(f"slow hosts +{losses['stragglers'] / free:.1%}")
    if losses["checkpoints_and_failures"] >= NAMED_LOSS * free:
        causes.append(
            f"goodput {r['goodput']:.1%}: an interruption every {fmt_seconds(r['mtbf_seconds'])}, "
            f"a checkpoint every {fmt_seconds(r['checkpoint_interval_seconds'])}"
        )
    return (
        f"Expected with what the run loses: {fmt_seconds(r['expected_seconds'])}"
        f"{band_text(d, 'reliability.expected_seconds', fmt_seconds)}, {fmt_gpu_hours(r['expected_gpu_hours'])}"
        f"{band_text(d, 'reliability.expected_gpu_hours', hours_number)} · {' · '.join(causes)}"
    )


def _inference_view(d: dict[str, Any]) -> None:
    """Two lines: the latencies, each with its band; then the rates and the bottleneck."""
    i, bottleneck = d["inference"], d["bottleneck"]
    times = [f"TTFT {fmt_seconds(i['time_to_first_token_seconds'])}"]
    times[0] += band_text(d, "inference.time_to_first_token_seconds", fmt_seconds)
    rates = []
    if i["decode_seconds_per_token"]:
        times.append(
            f"{fmt_seconds(i['decode_seconds_per_token'])}/token"
            f"{band_text(d, 'inference.decode_seconds_per_token', fmt_seconds)}"
        )
        rates += [
            f"{1 / i['decode_seconds_per_token']:,.0f} tokens/s per request{_per_request_band(d)}",
            f"{i['tokens_per_second']:,.0f} output tokens/s{band_text(d, 'inference.tokens_per_second', hours_number)}",
        ]
    times.append(
        f"request latency {fmt_seconds(i['latency_seconds'])}{band_text(d, 'inference.latency_seconds', fmt_seconds)}"
    )
    requests = band_text(d, "inference.requests_per_second", lambda x: f"{x:,.1f}")
    rates += [f"{i['requests_per_second']:,.1f} requests/s{requests}", f"bottleneck: {bottleneck}"]
    console.print(Text("Serving: " + " · ".join(times), style="bold"))
    console.print(Text("  " + " · ".join(rates), style="bold"))
    s = i.get("serving")
    if s:
        verdict = "meets" if s["meets"] else "does NOT meet"
        console.print(
            Text(
                f"{s['qps']:g} QPS, {_targets_text(s['targets'], s['percentile'])}: {s['replicas']} replica(s), "
                f"{s['gpus']} GPU(s), utilization {s['utilization']:.0%} — {verdict}",
                style="bold green" if s["meets"] else "bold red",
            )
        )
        confident = _serving_at_confidence(s)
        if confident:
            console.print(Text(f"  {confident}", style="bold"))
        for line in _percentile_lines(s["percentiles"]):
            console.print(Text("  " + line))


def _per_request_band(d: dict[str, Any]) -> str:
    """A request's decode rate is one over its time per token: the band of that time, turned over."""
    b = (d.get("uncertainty") or {}).get("inference.decode_seconds_per_token")
    if not b or b["low"] <= 0:
        return ""
    return f" ({b['level']:.0%}: {1 / b['high']:,.0f}–{1 / b['low']:,.0f})"


def _serving_at_confidence(s: dict[str, Any]) -> str:
    """Each latency target at the pessimistic end of its band and the fleet's capacity at the low
    end of its own, as the plan states them: 'At 80% confidence: P99 TTFT 76.3 ms (up to 102.5 ms) ≤ 500.0 ms ...'."""
    c = s.get("confidence")
    if not c:
        return ""
    pct = f"P{s['percentile']:g}"
    items = [
        msg(
            "band_item_high",
            "en",
            what=f"{pct} {_METRIC_NAMES[m]}",
            value=fmt_seconds(s["percentiles"][m][f"p{s['percentile']:g}"]),
            high=fmt_seconds(c["high_seconds"][m]),
            limit=fmt_seconds(s["targets"][f"{m}_seconds"]),
        )
        for m in ("ttft", "tpot", "e2e")
        if s["targets"].get(f"{m}_seconds") is not None and m in c["high_seconds"]
    ]
    capacity = s["capacity_rps_per_replica"] * s["replicas"]
    low, qps = c["capacity_rps_low"], s["qps"]
    items.append(
        msg("band_item_low", "en", what="qps", value=f"{capacity:,.1f}/s", low=f"{low:,.1f}/s", limit=f"{qps:,.1f}/s")
    )
    return msg("at_confidence", "en", level=c["level"], items=" · ".join(items))


_METRIC_NAMES = {"ttft": "TTFT", "tpot": "TPOT", "e2e": "end-to-end"}


def _targets_text(targets: dict[str, Any], pct: float) -> str:
    """'P99 TTFT ≤ 800 ms, P99 TPOT ≤ 100 ms' from a serving plan's targets (seconds)."""
    parts = [
        f"P{pct:g} {_METRIC_NAMES[m]} ≤ {targets[f'{m}_seconds'] * 1e3:,.0f} ms"
        for m in ("ttft", "tpot", "e2e")
        if targets.get(f"{m}_seconds") is not None
    ]
    return ", ".join(parts) or "no latency target"


def _percentile_lines(pcts: dict[str, dict[str, float]]) -> list[str]:
    """One line per metric: simulated P50 / P90 / P95 / P99."""
    one_pass = not any(pcts.get("tpot", {}).values())  # no tokens after the first: TTFT is the latency
    return [
        f"simulated {_METRIC_NAMES[m]}: " + ", ".join(f"{k.upper()} {fmt_seconds(v)}" for k, v in pcts[m].items())
        for m in ("ttft", "tpot", "e2e")
        if m in pcts and not (one_pass and m != "e2e")
    ]


def _short_source(note: str) -> str:
    """'... [Rajbhandari et al., ZeRO: Memory ...]' -> '... [Rajbhandari et al.]' for the terminal."""
    head, sep, src = note.partition(" [")
    if not sep:
        return note
    return f"{head} [{re.split(r'[,:(]', src.rstrip(']'), maxsplit=1)[0].strip()}]"


def _requirements_line(req: Any, lang: Lang = "en") -> str:
    """What was asked, in one line (or that nothing was: the cheapest configuration that fits)."""
    asked = []
    if req.deadline_seconds:
        asked.append(f"{msg('req_deadline', lang)} {fmt_duration(req.deadline_seconds, lang)}")
    if req.qps:
        goals = [
            f"{name} ≤ {seconds * 1e3:,.0f} ms"
            for name, seconds in (
                ("TTFT", getattr(req, "ttft_seconds", None)),
                ("TPOT", getattr(req, "tpot_seconds", None)),
                ("E2E", req.latency_seconds),
            )
            if seconds
        ]
        at = f" P{req.percentile:g} " + ", ".join(goals) if goals and req.percentile else ""
        asked.append(msg("qps_value", lang, qps=req.qps) + at)
    if req.budget_usd:
        fx = getattr(req, "fx", None)  # --currency: the budget as given, then in USD
        given = f"{req.budget_usd * fx.per_usd:,.0f} {fx.currency} = " if fx is not None else ""
        asked.append(f"{msg('req_budget', lang)} {given}{fmt_money(req.budget_usd, lang)}")
    if req.max_gpus:
        asked.append(f"{msg('req_max_gpus', lang)} {req.max_gpus}")
    if getattr(req, "redundancy", 0):
        asked.append(f"{msg('req_redundancy', lang)} N+{req.redundancy}")
    if req.growth:
        asked.append(f"{msg('req_growth', lang)}: {req.growth.describe()}")
    return f"{msg('requirements', lang)}: {', '.join(asked) or msg('requirements_none', lang)} · " + msg(
        "pricing_objective",
        lang,
        pricing=term("pricing", req.pricing, lang),
        objective=term("objective", req.objective, lang),
    )


def _candidate_speed(c: Any, w: Any, req: Any, training: bool, lang: Lang = "en") -> tuple[str, str]:
    """(time or latency, throughput) of one candidate as the plan table shows them, in the unit the
    model is measured in (tokens/s for LLMs, images/s or samples/s for the others)."""
    if training:
        from gpuwise.plan.explain import rate_unit

        tr = c.est.training
        key, unit = rate_unit(w.model.kind, getattr(w.model, "task", None))
        tput = f"{fmt_count_l(getattr(tr, key), lang)} {unit_label(unit, lang)}" if tr else "—"
        when = (
            fmt_duration(c.hours * 3600 if c.hours else tr.total_seconds, lang)  # expected: start-up, failures
            if tr and tr.total_seconds
            else (msg("per_step", lang, t=fmt_duration(tr.step_seconds, lang)) if tr else "—")
        )
        return when, tput
    s = c.serving
    cap = s.capacity_rps_per_replica * c.replicas if s else 0
    rate = f"{cap:,.1f} {msg('unit_requests', lang)}"
    pcts = s.simulated.percentiles if s and s.simulated else None
    if pcts and req.percentile:  # simulated: the percentiles the targets are stated in
        key = f"p{req.percentile:g}"
        if not pcts["tpot"][key]:  # one forward pass per request: its latency is the request's
            return f"{key.upper()} {fmt_seconds(pcts['e2e'][key])}", rate
        shown = f"{key.upper()} TTFT {fmt_seconds(pcts['ttft'][key])}, TPOT {fmt_seconds(pcts['tpot'][key])}"
        return shown, rate
    inf = c.est.inference
    if req.has_latency and inf is not None and inf.decode_seconds_per_token:  # not simulated: the analytic floor
        batch = s.max_batch if s else None
        ttft, tpot = fmt_seconds(inf.time_to_first_token_seconds), fmt_seconds(inf.decode_seconds_per_token)
        return msg("not_simulated", lang, batch=batch, ttft=ttft, tpot=tpot), rate
    return fmt_duration(c.time, lang), rate


def _cost_cells(cost: dict[str, Any], training: bool, lang: Lang) -> tuple[str, str]:
    """The two cost columns: the run (training) or the month (serving), and the fleet's hour;
    owned pricing: the amortised month and the horizon total."""
    owned = cost.get("owned")
    if owned:
        return fmt_money(owned["amortised_usd_per_month"], lang), fmt_money(owned["horizon_total_usd"], lang)
    first = (cost.get("expected_total_usd") or cost.get("total_usd")) if training else cost.get("usd_per_month")
    return fmt_money(first, lang), fmt_money(cost.get("usd_per_hour"), lang)


def _cost_columns(req: Any, training: bool, years: float | None, lang: Lang) -> tuple[str, str]:
    if req.pricing == "owned":
        return msg("col_amortised", lang), msg("col_horizon", lang, years=years or 0)
    return msg("col_run_cost" if training else "col_month", lang), msg("col_hour", lang)


def _candidates_table(result: Any, top: int, lang: Lang = "en") -> Table:
    """The best `top` candidates: size, time, throughput, the fleet's cost, what they meet, the
    Pareto front."""
    req, w = result.requirements, result.workload
    front = {id(c) for c in result.pareto()}
    training = hasattr(w, "method")
    shown = result.candidates[: max(top, 1)]
    years = next((c.horizon_years for c in shown if getattr(c, "horizon_years", None)), None)
    t = Table(header_style="bold", show_edge=False)
    cols = (
        msg("col_rank", lang),
        msg("col_configuration", lang),
        msg("col_gpus", lang),
        msg("col_time" if training else "col_latency", lang),
        msg("col_throughput", lang),
        *_cost_columns(req, training, years, lang),
        msg("col_meets", lang),
        msg("col_pareto", lang),
    )
    for i, col in enumerate(cols):
        t.add_column(col, justify="left" if i in (1, 7) else "right")
    for i, c in enumerate(shown, 1):
        when, tput = _candidate_speed(c, w, req, training, lang)
        bad = c.meets.missed()
        meets = (
            msg("meets_all", lang)
            if not bad
            else msg("misses", lang, what=", ".join(term("meet", k, lang) for k in bad))
        )
        if not c.confirmed:  # an analytic floor: it never says it meets
            meets = msg("floor_not_confirmed", lang)
        if c.growth is not None:
            verdict = msg("growth_cell_holds" if c.growth.holds else "growth_cell_breaks", lang)
            meets += msg("growth_cell", lang, verdict=verdict)
        style = "bold green" if i == 1 and c.ok else ("" if c.ok else "dim")
        first, second = _cost_cells(c.cost_dict(), training, lang)
        t.add_row(
            str(i), c.label, str(c.gpus), when, tput, first, second, meets, "●" if id(c) in front else "", style=style
        )
    return t


def plan_view(result: Any, top: int, verbose: bool = False) -> None:
    """The chosen plan, runners-up, Pareto front and why; the GPU types ruled out, grouped by reason
    (each with its own with `verbose`); in the language the requirements name (--lang)."""
    req = result.requirements
    lang = check_lang(getattr(req, "lang", "en"))
    w = result.workload
    methods = req.methods or ((w.method,) if hasattr(w, "method") else ())
    what = f"{w.model.name} · {w.task}" + (f" · {'/'.join(methods)}" if methods else "")
    console.print(Text(msg("plan_for", lang, what=what), style="bold"))
    console.print(_requirements_line(req, lang))
    if result.candidates:  # no row at all: the reasons below say why, under no empty table
        console.print(_candidates_table(result, top, lang))
    chosen = result.chosen
    if chosen is not None:
        _chosen_view(chosen, lang)
    else:
        console.print(Text(msg("nothing_meets", lang), style="bold red"))
    runners = [c for c in result.candidates[1 : max(top, 1)] if c.why]
    if chosen is not None and runners:
        console.print(Text(msg("runners_up", lang) + ":", style="bold"))
        for c in runners:
            console.print(Text(f"  {c.label}: {reason_text(c.why[-1], lang)}", style="dim"))
    if result.rejected:
        console.print(Text(msg("ruled_out", lang) + ":", style="bold"))
        lines = ruled_out_lines(result.rejected, lang, grouped=not verbose)
        for line in lines:
            console.print(Text(f"  {line}", style="dim"))
        if len(lines) < len({r.gpu for r in result.rejected}):
            console.print(Text(f"  {msg('ruled_full', lang)}", style="dim"))
    for note in result.notes:
        console.print(Text(reason_text(note, lang), style="dim"))


def _chosen_view(chosen: Any, lang: Lang) -> None:
    """The chosen plan: its reasons, the fleet's cost and the offer behind it, the command that
    reproduces it, and the upgrade path when growth will not hold."""
    console.print(Text(f"{msg('chosen', lang)}: {chosen.label}", style="bold green"))
    for reason in chosen.why:
        console.print(f"  • {reason_text(reason, lang)}")
    line = band_line(chosen.meets, lang, memory=chosen.est.training is not None)
    if line:
        console.print(Text(f"  {line}", style="bold"))
    for b in known_biases(chosen.est.bands().values()):
        console.print(Text(f"  {bias_line(b, lang)}", style="yellow"))
    console.print(cost_text(chosen.cost_dict(), lang))  # the same words as the report
    for line in offer_lines(chosen, lang):
        console.print(Text(f"  {line}", style="cyan"))
    if chosen.command:
        console.print(Text(f"{msg('command', lang)}: {chosen.command}", style="dim"))
    if chosen.growth and not chosen.growth.holds and chosen.growth.upgrade_path is not None:
        path = reason_text(chosen.growth.upgrade_path, lang)
        console.print(Text(f"  ! {msg('upgrade_path', lang)}: {path}", style="yellow"))


def offer_lines(c: Any, lang: Lang = "en") -> list[str]:
    """The offer behind a candidate's price and its costs in --currency (with the rate and date);
    the offer itself is a source citation and stays as the price list writes it."""
    lines = []
    if c.offer is not None:
        lines.append(msg("priced_from", lang, offer=localize(c.offer.describe(), lang)))
    money = money_text(c.money(), lang)
    if money:
        lines.append(money)
    return lines


def _amount(value: float | None, fx: Any) -> str:
    """USD, or the amount converted at `fx` (an FxRate) with the currency's code."""
    if value is None:
        return "—"
    if fx is None:
        return fmt_usd(value)
    return f"{value * fx.per_usd:,.0f} {fx.currency}"


def tco_view(rows: list[dict[str, Any]], params: Any, fx: Any = None) -> None:
    """Buy against rent (on-demand, 1- and 3-year commitments) with the offer behind each rent total."""
    code = "USD" if fx is None else fx.currency
    t = Table(title=f"Buy vs rent over {years_text(rows[0]['years'])} ({code})", header_style="bold", show_edge=False)
    cols = (
        "configuration",
        "capex",
        "opex/year",
        "own total",
        "own /h",
        "on-demand",
        "1y commit",
        "3y commit",
        "cheapest",
    )
    for col in cols:
        t.add_column(col, justify="left" if col in ("configuration", "cheapest") else "right")
    for r in rows:
        own = r["owned"]
        rent = r["rent_total_usd"]
        t.add_row(
            f"{r['count']}x {r['gpu']}",
            *(_amount(own and own[k], fx) for k in ("capex_usd", "opex_usd_per_year", "total_usd")),
            "—" if not own else (f"{own['horizon_usd_per_hour'] * (fx.per_usd if fx else 1):,.2f}"),
            *(_amount(rent.get(k), fx) for k in ("on-demand", "1y", "3y")),
            str(r["cheapest"]),
        )
    console.print(t)
    for r in rows:
        own = r["owned"]
        if own and own.get("platform"):
            name = own["platform"].split(": ")[0]  # what the server is; the JSON has its whole description
            rate = own["usd_per_hour"] * (fx.per_usd if fx else 1)
            line = f"{own['servers']} x {name}, {rate:,.2f}/h amortised over {years_text(params.depreciation_years)} (source {own['server_source']})"
            console.print(Text(f"  {r['count']}x {r['gpu']} owned: {line}", style="dim"))
        for model, q in (r.get("offers") or {}).items():
            from gpuwise.estimate.offers import describe_offer

            line = describe_offer(q) if q else (r.get("why_no_rent") or {}).get(model, "no offer")
            console.print(Text(f"  {r['count']}x {r['gpu']} {model}: {line}", style="dim"))
    spot = next((r["why_no_rent"].get("spot") for r in rows if r.get("why_no_rent")), None)
    if spot:
        console.print(Text(f"  spot: {spot}", style="dim"))
    if fx is not None:
        console.print(Text(f"{fx.per_usd:g} {fx.currency} per USD on {fx.date} (source {fx.source})", style="bold"))
    console.print(
        Text(
            f"Power {params.electricity_usd_per_kwh:g} $/kWh x PUE {params.pue:g}, GPUs at {params.gpu_utilization:.0%} of TDP, "
            f"depreciation {years_text(params.depreciation_years)}, maintenance {params.maintenance_fraction_per_year:.0%}/year; "
            f"rent at {rows[0]['busy_fraction']:.0%} busy. own /h: the own total per hour of the same "
            f"{years_text(rows[0]['years'])} as the rent totals. Sources: `gpuwise tco --json` and costs.yaml.",
            style="dim",
        )
    )


def bench_view(host: Any, measurements: list[Any], run_id: int | None) -> None:
    t = Table(
        title=f"Benchmarks on {host.hostname} ({host.gpu_model or host.cpu}, {host.device})",
        header_style="bold",
        show_edge=False,
    )
    for col in ("benchmark", "measurement", "value", "parameters"):
        t.add_column(col, justify="right" if col == "value" else "left", overflow="fold")
    for m in measurements:
        t.add_row(
            m.benchmark,
            m.name,
            fmt_measure(m.value, m.unit),
            ", ".join(f"{k}={_param(k, v)}" for k, v in m.params.items() if not isinstance(v, dict | list)),
        )
    console.print(t)
    for m in measurements:
        if m.benchmark == "launch" and m.params.get("gpu_busy_share", 0.0) > GPU_BOUND_SHARE:
            console.print(
                Text(
                    f"{m.name}: the GPU was busy {m.params['gpu_busy_share']:.0%} of the time, so it set the pace, "
                    "not the host: the figure is an upper bound of the host's",
                    style="yellow",
                )
            )
    if run_id is not None:
        console.print(Text(f"stored as run {run_id}; `gpuwise matrix` shows the capability matrix", style="dim"))
        if host.gpu_id and any(m.benchmark == "launch" for m in measurements):
            console.print(
                Text("`gpuwise estimate --calibrated` times eager PyTorch's kernel launches with it", style="dim")
            )


def _param(key: str, value: Any) -> str:
    """Benchmark parameters for people: sizes in binary units, bandwidths and times with units."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if key == "bytes" or key.endswith("_bytes"):
        return fmt_bytes(value)
    if key.endswith("bw"):
        return fmt_rate(value)
    if key == "seconds" or key.endswith("_seconds"):
        return fmt_seconds(value)
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def matrix_view(m: dict[str, Any], scenarios: dict[str, str]) -> None:
    t = Table(title="Capability matrix: measured (estimate, measured/estimate)", header_style="bold", show_edge=False)
    t.add_column("GPU")
    used = [k for k in scenarios if any(k in cells for cells in m.values())]
    for k in used:
        t.add_column(scenarios[k])
    for gpu, cells in m.items():
        row = [gpu]
        for k in used:
            c = cells.get(k)
            if c is None:
                row.append("—")
            else:
                est = f" ({fmt_measure(c.estimated, c.unit)}, {c.ratio:.0%})" if c.estimated else ""
                row.append(fmt_measure(c.measured, c.unit) + est)
        t.add_row(*row)
    console.print(t)


def imported_view(rows: list[dict[str, Any]]) -> None:
    """The team's imported measurements beside gpuwise's prediction: one line per figure."""
    from gpuwise.calibration.describe import fmt_figure, label
    from gpuwise.terminal import shown

    t = Table(
        title="Imported measurements beside gpuwise's prediction of the same workload",
        header_style="bold",
        show_edge=False,
    )
    for col, just in (("id", "left"), ("measured on", "left"), ("workload", "left"), ("figure", "left"),
                      ("measured", "right"), ("predicted", "right"), ("measured/predicted", "right"),
                      ("predicted band", "right")):  # fmt: skip
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    for r in rows:
        who = f"{r['model'] + ' on ' if r['model'] else ''}{r['count']} x {r['gpu']}"
        head = [Text(shown(x)) for x in (f"#{r['id']}", who, r["workload"])]
        if not r["figures"]:
            t.add_row(*head, Text(shown(r["why"] or "—")), "", "", "", "")
            continue
        for name, f in r["figures"].items():
            band = f["band"]
            spread = f"{fmt_figure(name, band['low'])} – {fmt_figure(name, band['high'])}" if band else "—"
            ratio = f"{f['ratio']:.0%}" if f["ratio"] is not None else "—"
            t.add_row(
                *head, label(name), fmt_figure(name, f["measured"]), fmt_figure(name, f["predicted"]), ratio, spread
            )
            head = [Text(""), Text(""), Text("")]
    console.print(t)
