"""Words and numbers as the reader's locale writes them: messages by key, the ids the output names,
counts, money, durations, years, and the sentences other modules write in English (`localize`)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from typing import Any

from gpuwise.i18n.messages import LANGS, MESSAGES, Lang
from gpuwise.units import fmt_bytes, fmt_seconds

__all__ = [
    "bias_line",
    "bias_text",
    "check_lang",
    "cost_text",
    "fmt_count_l",
    "fmt_duration",
    "fmt_gpu_hours",
    "fmt_money",
    "localize",
    "money_text",
    "msg",
    "pipeline_text",
    "term",
    "unit_label",
    "years_text",
]

WAN, YI = 10**4, 10**8  # Chinese counts group by ten thousand (万) and a hundred million (亿)


_PERCENTILE_KEY = re.compile(r"^(p[\d.]+|batch)_(ttft|tpot|latency)$")


def term(kind: str, value: object, lang: Lang = "en") -> str:
    """An id the output names (a pricing model, an objective, a bottleneck, a requirement key) in
    `lang`: English keeps the id itself; an id the catalog does not know stays as it is."""
    text = str(value)
    if lang == "en":
        return text
    if kind == "meet":
        m = _PERCENTILE_KEY.match(text)
        if m:  # p99_ttft -> P99 首字延迟 (TTFT)
            head = m.group(1).upper() if m.group(1) != "batch" else msg("t_meet_batch", lang)
            return f"{head} {msg(f't_meet_{m.group(2)}', lang)}"
    entry = MESSAGES.get(f"t_{kind}_{text}")
    return entry[lang] if entry else text


def check_lang(lang: str | None) -> Lang:
    """'en' (default) or 'zh'; anything else is a usage error at the edge, so here a ValueError."""
    value = (lang or "en").strip().lower()
    if value not in LANGS:
        raise ValueError(f"--lang must be one of {', '.join(LANGS)}; got {lang!r}")
    return "zh" if value == "zh" else "en"


def bias_text(bias: Any, lang: Lang = "en") -> str:
    """A known bias (gpuwise.estimate.bands.KnownBias) in `lang`: which cases, measured how, by what
    median; English says it as the JSON does."""
    if lang == "en":
        return str(bias.text())
    k = bias.key
    what = msg(f"t_fig_{k.figure}", lang)
    if k.family != "*":
        what = msg(f"t_fam_{k.family}", lang) + what
    where = " ".join(v for v in (k.vendor_name, k.arch) if v != "*")  # '*' (any) names itself
    stack = "" if k.stack == "*" else f"{k.stack} "
    if where or stack:
        what = msg("bias_where", lang, where=where, stack=stack) + what
    return msg(
        "known_bias_body",
        lang,
        what=what,
        k=bias.cases,
        n=bias.of,
        word=msg(f"t_bias_{bias.word}", lang),
        median=f"{bias.median:+.0%}",
    )


def bias_line(bias: Any, lang: Lang = "en") -> str:
    """The line that names a known bias beside a figure (terminal, web): bias_text with its advice."""
    return msg("known_bias", lang, text=bias_text(bias, lang))


def msg(key: str, lang: Lang = "en", **values: Any) -> str:
    """The message `key` in `lang`, filled with `values`."""
    return MESSAGES[key][lang].format(**values)


def fmt_count_l(value: float, lang: Lang = "en", digits: int = 0) -> str:
    """A count as the locale writes it: 1,234,567 in English, 123.5万 / 1.2亿 in Chinese."""
    if lang == "zh" and abs(value) >= WAN:
        big, unit = (YI, "亿") if abs(value) >= YI else (WAN, "万")
        return f"{value / big:,.1f}{unit}"
    return f"{value:,.{digits}f}"


def fmt_money(value: float | None, lang: Lang = "en") -> str:
    """USD as the locale writes it: $1,234 / $0.88 in English, 1,234 美元 in Chinese."""
    if value is None or not math.isfinite(value):
        return "—"
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"
    return f"${text}" if lang == "en" else f"{text} 美元"


def fmt_duration(seconds: float | None, lang: Lang = "en") -> str:
    """Seconds in the largest unit that keeps the number readable, the unit in the locale's words."""
    if seconds is None or not math.isfinite(seconds):
        return "—"
    for key, size, limit in (("dur_d", 86400, 2 * 86400), ("dur_h", 3600, 2 * 3600), ("dur_min", 60, 120)):
        if seconds >= limit:
            return msg(key, lang, v=f"{seconds / size:,.1f}")
    return msg("dur_s", lang, v=f"{seconds:,.3g}")


def fmt_gpu_hours(value: float | None, lang: Lang = "en") -> str:
    """GPU-hours with enough digits that a short job never reads as 0."""
    if value is None or not math.isfinite(value):
        return "—"
    return msg("gpu_hours", lang, v=hours_number(value))


def hours_number(value: float) -> str:
    """The number of GPU-hours (or any amount read in thousands down to fractions): 1,234 / 42.7 / 0.707."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def cost_text(c: dict[str, Any], lang: Lang = "en") -> str:
    """The whole fleet's cost (replicas x GPUs per replica), never one GPU's: per hour, per month,
    the run for training (with failures and the pipeline where the plan priced them); owned
    pricing labels the amortised month and the horizon total. `c` is a candidate's JSON `cost`."""
    replicas, gpus = c.get("replicas", 1), c.get("gpus", "?")
    pricing = term("pricing", c.get("pricing", "on-demand"), lang)
    if replicas == 0 and c.get("usd_per_replica_hour") is not None:  # a serving target no replica count meets
        return msg("cost_unmet", lang, pricing=pricing, v=fmt_money(c["usd_per_replica_hour"], lang))
    size = msg("fleet_size", lang, replicas=replicas, gpus=gpus) if replicas > 1 else msg("gpus_size", lang, gpus=gpus)
    parts = [msg("per_hour", lang, v=fmt_money(c["usd_per_hour"], lang))]
    parts.append(msg("per_month", lang, v=fmt_money(c["usd_per_month"], lang)))
    run = c.get("expected_total_usd") or c.get("total_usd")
    if run:
        parts.append(msg("for_run", lang, v=fmt_money(run, lang)))
    owned = c.get("owned")
    if owned:
        parts[1] = msg("amortised_month", lang, v=fmt_money(owned["amortised_usd_per_month"], lang))
        years = years_text(owned["horizon_years"], lang)
        parts.append(msg("horizon_total", lang, v=fmt_money(owned["horizon_total_usd"], lang), years=years))
    return msg("cost_line", lang, pricing=pricing, size=size, parts=", ".join(parts))


def money_text(m: Mapping[str, Any], lang: Lang = "en") -> str | None:
    """A cost converted to --currency (estimate.offers.money's dict) in the reader's words, with the
    rate, its date and source: per hour, per month (amortised when owned), the run, and owned
    pricing's horizon total; None for USD, which the cost line already shows."""
    if m.get("code", "USD") == "USD":
        return None
    owned = m.get("horizon_total") is not None
    parts = [
        msg(key, lang, v=f"{m[field]:,.2f}")
        for field, key in (
            ("per_hour", "per_hour"),
            ("per_month", "amortised_month" if owned else "per_month"),
            ("run", "for_run"),
        )
        if m.get(field) is not None
    ]
    if owned:
        years = years_text(float(m["horizon_years"]), lang)
        parts.append(msg("horizon_total", lang, v=f"{m['horizon_total']:,.2f}", years=years))
    shown = ", ".join(parts) or msg("money_no_price", lang)
    return msg(
        "money_line", lang, code=m["code"], parts=shown, per_usd=f"{m['per_usd']:g}", date=m["date"], source=m["source"]
    )


_FIELD = re.compile(r"\\\{(\w+)(?::[^}]*)?\\\}")


def _pattern(template: str) -> re.Pattern[str]:
    """An English template as a regex: each placeholder captures text (the last one, to the end)."""
    body = _FIELD.sub(lambda m: f"(?P<{m.group(1)}>.+?)", re.escape(template))
    return re.compile(body[:-3] + "*)$" if body.endswith(".+?)") else body)


@functools.cache
def _external() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The `ext_*` sentences as patterns, compiled on the first translation (English output, the
    common case, never needs them)."""
    return tuple((k, _pattern(v["en"])) for k, v in MESSAGES.items() if k.startswith("ext_"))


def localize(text: str, lang: Lang = "en") -> str:
    """A sentence another module wrote in English (estimate.offers, estimate.cost), in `lang`:
    each known `ext_*` sentence in it is replaced by its translation; anything else is left as it is."""
    if lang == "en":
        return text
    for key, pattern in _external():
        template = MESSAGES[key][lang]

        def fill(m: re.Match[str], template: str = template) -> str:
            return template.format(**m.groupdict())

        text = pattern.sub(fill, text)
    return text


def unit_label(unit: str, lang: Lang = "en") -> str:
    """A rate's unit ('tokens', 'images', 'samples', 'requests', as gpuwise.plan.explain.rate_unit
    names them) per second, in `lang`."""
    return msg(f"unit_{unit}", lang)


def years_text(years: float, lang: Lang = "en") -> str:
    """'1 year', '1.5 years', '3 years'; in Chinese '3 年' (no plural)."""
    return msg("years_one" if years == 1 else "years", lang, n=f"{years:g}")


def pipeline_text(cores: int, storage: str, fmt: str, lang: Lang = "en") -> str:
    """A data-pipeline design in the reader's words; its ids (storage tier, sample format) stay as they are."""
    return msg("pipeline_label", lang, cores=cores, storage=storage, fmt=fmt)


def _figure(key: str, value: float, lang: Lang) -> str:
    """A requirement's figure as people read it: bytes, requests/s, or a time."""
    if key == "memory":
        return fmt_bytes(value)
    if key == "qps":
        return f"{value:,.1f}/s"
    return fmt_seconds(value) if value < 60 else fmt_duration(value, lang)


def _meet_name(key: str, lang: Lang) -> str:
    """'P99 TPOT' for p99_tpot in English (the locale's words otherwise, and for the other keys)."""
    m = re.fullmatch(r"p(\d+)_(ttft|tpot|latency)", key)
    if lang != "en" or m is None:
        return term("meet", key, lang).replace("_", " ")
    return f"P{m.group(1)} " + {"ttft": "TTFT", "tpot": "TPOT"}.get(m.group(2), "latency")


def band_line(meets: Any, lang: Lang, memory: bool = True) -> str:
    """Each requirement with a band at the pessimistic end it is judged at: 'At 80% confidence:
    P99 TPOT 13.3 ms (up to 21.7 ms) ≤ 50.0 ms · ...' ('' when no requirement has a band); `memory`
    False leaves memory out (a serving engine fills the memory it is given by design)."""
    items, level = [], None
    for key, m in meets.items():
        if m.level is None or m.value is None or m.limit is None or (key == "memory" and not memory):
            continue
        level = m.level
        what = _meet_name(key, lang)
        value, limit = _figure(key, m.value, lang), _figure(key, m.limit, lang)
        if m.low is not None:
            items.append(msg("band_item_low", lang, what=what, value=value, low=_figure(key, m.low, lang), limit=limit))
        elif m.high is not None:
            kind = "band_item_memory" if key == "memory" else "band_item_high"
            items.append(msg(kind, lang, what=what, value=value, high=_figure(key, m.high, lang), limit=limit))
    return "" if level is None else msg("at_confidence", lang, level=level, items=" · ".join(items))


def band_range(est: Any, path: str, fmt: Any) -> str:
    """' (80%: low–high)' for one figure of an estimate (gpuwise.estimate.run.Estimate), '' without a band."""
    b = est.bands().get(path)
    value = est.figures().get(path)
    if b is None or not value:
        return ""
    return f" ({b.level:.0%}: {fmt(value * b.low)}–{fmt(value * b.high)})"
