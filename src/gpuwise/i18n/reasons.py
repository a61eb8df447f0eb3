"""The planner's reasons in the reader's words: each code's sentence (gpuwise.i18n.messages, keyed by
the code) filled with its parameters, each formatted as the locale writes it (bytes, money, durations,
the ids the output names). A reason's JSON is its code and parameters, the same in every language,
with the sentence beside them.

The core (gpuwise.plan) never imports this module; this one reads the core's types by their fields
and imports them only for type checking.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from gpuwise.i18n.messages import MESSAGES, Lang
from gpuwise.i18n.words import fmt_count_l, fmt_duration, fmt_money, localize, msg, term, unit_label
from gpuwise.units import fmt_bytes, fmt_seconds

if TYPE_CHECKING:  # for the reader and mypy only: the core's types, never imported here at run time
    from gpuwise.plan.results import Reason, Rejection

__all__ = [
    "FORMATS",
    "reason_json",
    "reason_text",
    "rejection_json",
    "rejection_text",
    "ruled_out",
    "ruled_out_lines",
]

Fmt = Callable[[Any, Lang], str]


def _reason(value: Any, lang: Lang) -> str:
    return reason_text(value, lang)


def _paren_reason(value: Any, lang: Lang) -> str:
    return "" if value is None else msg("paren", lang, text=reason_text(value, lang))


def _colon_reason(value: Any, lang: Lang) -> str:
    return "" if value is None else f": {reason_text(value, lang)}"


BYTES: Fmt = lambda v, _: fmt_bytes(v)  # noqa: E731
MONEY: Fmt = fmt_money
DURATION: Fmt = fmt_duration
LATENCY: Fmt = lambda v, _: fmt_seconds(v)  # noqa: E731
COUNT: Fmt = fmt_count_l
UPPER: Fmt = lambda v, _: str(v).upper()  # noqa: E731
UNIT: Fmt = unit_label
PRICING: Fmt = lambda v, lang: term("pricing", v, lang)  # noqa: E731
BOTTLENECK: Fmt = lambda v, lang: term("bottleneck", v, lang)  # noqa: E731
MEETS: Fmt = lambda v, lang: ", ".join(term("meet", k, lang) for k in v)  # noqa: E731
MEET_SPACED: Fmt = lambda v, lang: term("meet", v, lang).replace("_", " ")  # noqa: E731
LIST: Fmt = lambda v, _: ", ".join(map(str, v))  # noqa: E731
DASH: Fmt = lambda v, _: "—" if v is None else str(v)  # noqa: E731
SP: Fmt = lambda v, _: " +SP" if v else ""  # noqa: E731
EP: Fmt = lambda v, _: f" (EP{v})" if v and v > 1 else ""  # noqa: E731  # the experts sharded over ep ranks
LOCALIZE: Fmt = lambda v, lang: localize(str(v), lang)  # noqa: E731
VERDICT: Fmt = lambda v, lang: msg(f"disagg_{v}", lang)  # noqa: E731
PERCENTILE: Fmt = lambda v, _: f"P{v:g}"  # noqa: E731
TIME: Fmt = lambda v, lang: fmt_seconds(v) if v < 60 else fmt_duration(v, lang)  # noqa: E731
RATE: Fmt = lambda v, _: f"{v:,.1f}"  # noqa: E731
VENDORS: Fmt = lambda v, _: "/".join(str(x).upper() for x in v)  # noqa: E731
ALTERNATIVES: Fmt = lambda v, _: "|".join(v)  # noqa: E731

# How each code's parameters are written (a parameter not named here is written as it is, or by the
# format spec its sentence gives it, e.g. {mfu:.0%}).
FORMATS: dict[str, dict[str, Fmt]] = {
    "compute.no_figures": {},
    "compute.no_tensor_cores": {},
    "platform.not_on_vendor": {"vendors": VENDORS, "runs": ALTERNATIVES},
    "platform.no_nvfp4": {},
    "price.no_offer": {"detail": LOCALIZE},
    "price.no_node_size": {"pricing": PRICING, "largest": DASH},
    "price.indicative_only": {"pricing": PRICING},
    "cost.above_best": {"bound_usd": MONEY, "best_usd": MONEY},
    "cost.counts_pruned": {},
    "memory.does_not_fit": {"need_bytes": BYTES, "capacity_bytes": BYTES},
    "memory.no_layout": {},
    "memory.weights_do_not_fit": {},
    "memory.no_kv_cache": {},
    "latency.idle_replica_misses": {"metric": UPPER, "value_seconds": LATENCY, "limit_seconds": LATENCY},
    "requirements.missed": {"missed": MEETS, "fastest": _paren_reason},
    "plan.fastest_seen": {"seconds": DURATION, "bottleneck": BOTTLENECK},
    "plan.error": {},
    "plan.cheapest": {},
    "plan.fastest": {},
    "method.adapter": {"method": UPPER, "need_bytes": BYTES, "capacity_bytes": BYTES},
    "layout.fastest_fit": {"sequence_parallel": SP, "expert": EP},
    "layout.embedding_sharded": {"table_params": COUNT, "dense_params": COUNT},
    "layout.sharded_one_rank": {},
    "layout.plain_ddp": {"count": COUNT},
    "layout.ddp_does_not_fit": {},
    "layout.batch_sized": {"global_batch": COUNT, "bound": COUNT},
    "speed.rate": {"rate": COUNT, "unit": UNIT, "bottleneck": BOTTLENECK},
    "pipeline.gpus_wait": {},
    "pipeline.hosts_for_data": {},
    "reliability.goodput": {"mtbf_seconds": DURATION, "interval_seconds": DURATION, "write_seconds": DURATION},
    "reliability.at_scale": {"gpus": COUNT},
    "serving.replicas": {},
    "serving.redundancy": {},
    "requirement.missed": {"requirement": MEET_SPACED, "why": _colon_reason},
    "cost.costlier": {"term": _reason},
    "cost.term.price": {"price_usd": MONEY, "chosen_usd": MONEY},
    "cost.term.speed": {"rate": COUNT, "chosen": COUNT, "unit": UNIT},
    "cost.term.overhead": {},
    "cost.term.size": {},
    "cost.more_gpus": {},
    "pipeline.upgrade": {"cost_usd": MONEY, "gpu_only_usd": MONEY, "gpu_only_label": DASH},
    "latency.none_simulated": {},
    "deadline.needs_amount": {},
    "price.no_node_offer": {"pricing": PRICING},
    "serving.analytic_floor": {},
    "band.misses_at_confidence": {"value": TIME, "high": TIME, "limit": TIME},
    "band.capacity_at_confidence": {"value": RATE, "low": RATE, "limit": RATE},
    "memory.oom_risk": {"high_bytes": BYTES, "capacity_bytes": BYTES},
    "serving.spares": {},
    "serving.packed": {},
    "serving.packed_owned": {},
    "growth.holds": {},
    "growth.breaks": {"path": _reason},
    "growth.cannot_serve": {"reason": _reason},
    "growth.does_not_fit": {"reason": _reason},
    "growth.fits_replicas": {},
    "growth.path_replicas": {},
    "growth.needs_replicas": {},
    "growth.scale_out": {},
    "growth.larger_gpu": {},
    "note.measured": {"gpus": LIST},
    "note.simulated_types": {},
    "note.disaggregated_none": {},
    "note.disaggregated": {
        "verdict": VERDICT,
        "percentile": PERCENTILE,
        "ttft_seconds": LATENCY,
        "kv_seconds": LATENCY,
        "tpot_seconds": LATENCY,
        "colocated_tpot_seconds": LATENCY,
    },
    "price.ranking_may_flip": {},
    "price.stale": {"instances": LIST},
}


def _filled(key: str, code: str, items: Iterable[tuple[str, Any]], lang: Lang, **more: Any) -> str:
    """The message `key` with a reason's parameters, each written by its code's formatter."""
    spec = FORMATS[code]
    values = {k: spec[k](v, lang) if k in spec else v for k, v in items}
    return MESSAGES[key][lang].format(**values, **more)


def reason_text(reason: Reason, lang: Lang = "en") -> str:
    """A reason (gpuwise.plan.results.Reason) as a sentence in `lang`."""
    code = str(reason.code)
    if "{band}" not in MESSAGES[code]["en"]:
        return _filled(code, code, reason.items, lang)
    return _filled(code, code, reason.items, lang, band=_band(reason, FORMATS[code]["rate"], lang))


def _band(reason: Reason, fmt: Fmt, lang: Lang) -> str:
    """' (80%: low–high)' of a figure whose reason carries its band (level, low, high), written as the
    figure is; '' without one."""
    level, low, high = reason.get("level"), reason.get("low"), reason.get("high")
    if not isinstance(level, float) or not isinstance(low, int | float) or not isinstance(high, int | float):
        return ""
    return f" ({level:.0%}: {fmt(low, lang)}–{fmt(high, lang)})"


def _param_json(value: Any, lang: Lang) -> Any:
    if hasattr(value, "code") and hasattr(value, "items"):
        return reason_json(value, lang)
    return list(value) if isinstance(value, tuple) else value


def reason_json(reason: Reason, lang: Lang = "en") -> dict[str, Any]:
    """`{"code", "params", "text"}`: code and parameters the same in every language, the text in `lang`."""
    params = {k: _param_json(v, lang) for k, v in reason.items}
    return {"code": str(reason.code), "params": params, "text": reason_text(reason, lang)}


def rejection_text(r: Rejection, lang: Lang = "en") -> str:
    """A ruled-out GPU type's reason, with the method it concerns when the plan compares methods."""
    text = reason_text(r.reason, lang)
    return text if r.method is None else msg("method_reason", lang, method=r.method, reason=text)


def rejection_json(r: Rejection, lang: Lang = "en") -> dict[str, Any]:
    """One entry of `rejected[]`: the GPU type, the method (or null), code, params and text."""
    return {"gpu": r.gpu, "method": r.method, **reason_json(r.reason, lang), "text": rejection_text(r, lang)}


def _by_gpu(rejected: Iterable[Rejection]) -> dict[str, list[Rejection]]:
    out: dict[str, list[Rejection]] = {}
    for r in rejected:
        out.setdefault(r.gpu, []).append(r)
    return out


def ruled_out(rejected: Iterable[Rejection], lang: Lang = "en") -> list[tuple[str, str]]:
    """(GPU type, its reasons in one sentence), in the order the types were ruled out."""
    return [(gpu, "; ".join(rejection_text(r, lang) for r in rs)) for gpu, rs in _by_gpu(rejected).items()]


def _heading(rs: list[Rejection], lang: Lang, n: int) -> str | None:
    """The heading `n` GPU types share when their reasons are all of one code that has one."""
    codes = {str(r.reason.code) for r in rs}
    code = next(iter(codes))
    if len(codes) != 1 or f"ruled.{code}" not in MESSAGES:
        return None
    return _filled(f"ruled.{code}", code, rs[0].reason.items, lang, n=n)


def ruled_out_lines(rejected: Iterable[Rejection], lang: Lang = "en", grouped: bool = True) -> list[str]:
    """The ruled-out GPU types, one line each ('gpu: reason; reason'); `grouped`: types with the
    same sentence on one line ('t4, v100: no bf16 tensor cores'), and types whose reasons share a
    code but not the numbers as a count ('7 types cost more even at their best rate: a, b, ...')."""
    by_gpu = _by_gpu(rejected)
    texts = dict(ruled_out(rejected, lang))
    if not grouped:
        return [f"{gpu}: {text}" for gpu, text in texts.items()]
    same: dict[str, list[str]] = {}
    for gpu, text in texts.items():
        same.setdefault(text, []).append(gpu)
    groups: dict[tuple[str, str], list[str]] = {}  # (kind, sentence) -> GPU types, in the order ruled out
    for text, gpus in same.items():
        heading = _heading(by_gpu[gpus[0]], lang, 0) if len(gpus) == 1 else None
        groups.setdefault(("text", text) if heading is None else ("heading", heading), []).extend(gpus)
    lines = []
    for (kind, text), gpus in groups.items():
        if kind == "text":
            lines.append(f"{', '.join(gpus)}: {text}")
        elif len(gpus) == 1:
            lines.append(f"{gpus[0]}: {texts[gpus[0]]}")
        else:
            lines.append(f"{_heading(by_gpu[gpus[0]], lang, len(gpus))}: {', '.join(gpus)}")
    return lines
