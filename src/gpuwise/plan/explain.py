"""Reasons a person can read, in the reader's language: why the chosen plan, and for each runner-up the
requirement it misses or the cost term that makes it lose against the chosen plan.

A training run costs price per GPU-hour x GPUs x hours = price per GPU-hour / (rate per GPU), so a
costlier runner-up loses on the GPU-hour price or on the work one GPU does per hour, whichever ratio
is larger; a serving fleet costs price per GPU-hour x GPUs, so it loses on price or on size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuwise.plan.messages import Lang, fmt_count_l, fmt_duration, fmt_money, msg, rate_unit, term
from gpuwise.units import fmt_bytes
from gpuwise.workload import TrainingJob

if TYPE_CHECKING:
    from gpuwise.plan.search import Candidate

__all__ = ["explain", "headline", "layout_text"]


def headline(objective: str, lang: Lang) -> str:
    return msg("why_cheapest" if objective == "cost" else "why_fastest", lang)


def layout_text(w: TrainingJob, count: int, lang: Lang = "en") -> str:
    """The parallel layout in the words of the frameworks: degrees, ZeRO stage, recomputation, batch."""
    par = w.parallel
    sp = " +SP" if par.sequence_parallel and par.tp > 1 else ""
    return msg(
        "layout",
        lang,
        tp=par.tp,
        sp=sp,
        pp=par.pp,
        dp=par.dp(count),
        zero=par.zero,
        recompute=w.recompute,
        mb=w.micro_batch,
        acc=w.grad_accumulation(count),
    )


def _per_gpu_rate(c: Candidate) -> float | None:
    t = c.est.training
    return None if t is None or not c.gpus else t.samples_per_second / c.gpus


def _overhead(c: Candidate) -> float:
    """Wall time over failure-free training time: start-up, failures, checkpoints, staging."""
    t = c.est.training
    if t is None or not t.total_seconds or c.hours is None:
        return 1.0
    return c.hours * 3600 / t.total_seconds


def _gpu_hour(c: Candidate) -> float | None:
    return None if c.usd_per_hour is None else c.usd_per_hour / c.est.hardware.count


def _loss_term(c: Candidate, chosen: Candidate, lang: Lang) -> str:
    """The cost term that makes `c` dearer than `chosen`: the GPU-hour price, the work per GPU, or
    (serving) the fleet's size."""
    p, p0 = _gpu_hour(c), _gpu_hour(chosen)
    price_ratio = p / p0 if p and p0 else 1.0
    if c.est.training is not None and chosen.est.training is not None:
        r, r0 = _per_gpu_rate(c), _per_gpu_rate(chosen)
        slow_ratio = r0 / r if r and r0 else 1.0
        lost, lost0 = _overhead(c), _overhead(chosen)
        if lost / lost0 > max(slow_ratio, price_ratio):
            return msg("term_overhead", lang, share=1 - 1 / lost, chosen=1 - 1 / lost0)
        if slow_ratio > price_ratio:
            w = c.est.workload
            key, unit = rate_unit(w.model.kind, getattr(w.model, "task", None), lang)
            tokens = c.est.training.tokens_per_second / c.est.training.samples_per_second
            scale = tokens if key == "tokens_per_second" else 1.0
            return msg(
                "term_speed",
                lang,
                rate=fmt_count_l((r or 0) * scale, lang),
                chosen=fmt_count_l((r0 or 0) * scale, lang),
                unit=unit,
            )
        return msg("term_price", lang, price=fmt_money(p, lang), chosen=fmt_money(p0, lang))
    if c.gpus / max(chosen.gpus, 1) > price_ratio:
        return msg("term_size", lang, gpus=c.gpus, chosen=chosen.gpus)
    return msg("term_price", lang, price=fmt_money(p, lang), chosen=fmt_money(p0, lang))


def _what_it_is(c: Candidate, lang: Lang) -> list[str]:
    """Method and memory, rate and bottleneck (training), replicas and capacity (serving)."""
    est, w, out = c.est, c.est.workload, []
    if isinstance(w, TrainingJob):
        t = est.training
        if w.method != "full":
            need, cap = fmt_bytes(est.memory.per_gpu.total), fmt_bytes(est.memory.capacity)
            out.append(msg("why_adapter", lang, method=w.method.upper(), dtype=w.weights_dtype, need=need, cap=cap))
        count = est.hardware.count
        out.append(msg("why_layout", lang, layout=layout_text(w, count, lang), count=count, gpu=est.hardware.gpu.id))
        if t:
            key, unit = rate_unit(w.model.kind, getattr(w.model, "task", None), lang)
            rate = fmt_count_l(getattr(t, key), lang)
            out.append(
                msg(
                    "why_speed",
                    lang,
                    rate=rate,
                    unit=unit,
                    mfu=t.mfu,
                    bottleneck=term("bottleneck", est.bottleneck, lang),
                )
            )
            if est.bottleneck == "data-pipeline" and c.pipeline is None:
                out.append(msg("why_data_wait", lang))
        r = c.reliability
        if r is not None:
            out.append(
                msg(
                    "why_goodput",
                    lang,
                    mtbf=fmt_duration(r.mtbf_seconds, lang),
                    interval=fmt_duration(r.interval_seconds, lang),
                    write=fmt_duration(r.write_seconds, lang),
                    goodput=r.goodput,
                )
            )
    elif c.serving:
        capacity = f"{c.serving['capacity_rps_per_replica'] * c.replicas:,.1f}"
        out.append(msg("why_replicas", lang, replicas=c.replicas, batch=c.serving["max_batch"], capacity=capacity))
        n = int(c.serving.get("redundancy") or 0)
        if n:
            out.append(msg("why_redundancy", lang, n=n, replicas=c.replicas, nodes=c.serving["nodes"]))
    return out


def explain(c: Candidate, chosen: Candidate | None, tie: float, lang: Lang = "en") -> None:
    """Append to `c.why`: what it is, what it misses, growth, and last why it loses to `chosen` (a
    cost ratio within `tie` of 1 is a tie, lost on size)."""
    why = c.why
    why += _what_it_is(c, lang)
    for key, m in c.meets.items():
        if key not in ("memory", "growth") and not m["ok"]:
            why.append(
                msg("why_misses", lang, what=term("meet", key, lang).replace("_", " "))
                + (f": {m['why']}" if m.get("why") else "")
            )
    if c.growth is not None:
        why.append(c.growth["summary"])
    if chosen is not None and c is not chosen and c.ok and c.cost is not None and chosen.cost:
        if c.cost > chosen.cost * (1 + tie):
            why.append(msg("why_costlier", lang, ratio=c.cost / chosen.cost, term=_loss_term(c, chosen, lang)))
        elif c.gpus > chosen.gpus:
            why.append(msg("why_more_gpus", lang, gpus=c.gpus, chosen=chosen.gpus))
