"""The serving search: tensor-parallel degree x batch x replicas for one GPU type.

Every layout (TP degree that divides the heads, inside a node) and every batch up to what the
engine's KV cache holds is an option. Its analytic capacity (estimate.serving.steady_state)
gives a floor on the replicas: fewer cannot carry the load. Without a latency target that floor
is the answer (the largest batch is the cheapest: never batch 1). With one, the cheapest GPU
types are confirmed by simulation, branch and bound over the options by their floor cost: an
option whose floor already costs more than the best confirmed one cannot win. The confirmed
candidate is the estimate `gpuwise estimate --gpu G:tp --tp tp --concurrency b` with the same
target gives (one function computes both), and no (tp, batch) estimate at that GPU type is cheaper.

Kept apart from the training search in plan.search, which builds the candidates and ranks them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gpuwise.catalog import GPU, Catalog, GenericArch, TransformerArch
from gpuwise.estimate import estimate, memory
from gpuwise.estimate.comm import topology
from gpuwise.estimate.cost import CostParams, usd_per_hour
from gpuwise.estimate.engine import engine_setup
from gpuwise.estimate.memory import largest_fitting
from gpuwise.estimate.rates import Calibration, compute_rates
from gpuwise.estimate.run import Estimate, LatencyTarget
from gpuwise.estimate.serving import capacities, compute_dtype, serving_batch, simulated_requests
from gpuwise.plan.layouts import TP_DEGREES, hardware
from gpuwise.plan.limits import owned_horizon_usd, shared_limits
from gpuwise.plan.messages import Lang, check_lang, msg
from gpuwise.units import fmt_seconds
from gpuwise.workload import InferenceJob, Parallelism
from gpuwise.workload.precision import on_gpu
from gpuwise.workload.requirements import LatencyGoals, Requirements

if TYPE_CHECKING:
    from gpuwise.plan.search import Candidate

__all__ = ["confirm_cheapest", "grown_serving", "serving_candidates"]

CONFIRM_TOP = 1  # GPU types simulated at least (more while an unsimulated floor is cheaper)
CONFIRM_OPTIONS = 2  # options simulated per GPU type beyond each TP degree's best (cheapest floors first)
BATCHES = (8, 16, 32, 64, 128, 256, 512, 1024)  # batch caps tried below the engine's largest
MAX_BATCH_SEARCH = 1 << 16  # memory search bound for one-pass models


@dataclass(frozen=True, slots=True)
class Option:
    """One (tp, batch) replica layout with its analytic capacity and replica floor."""

    tp: int
    batch: int
    peak: float  # requests/s of one replica at `batch`
    floor: int  # replicas below which the load exceeds capacity
    usd_per_hour: float | None  # one replica

    @property
    def floor_cost(self) -> float:
        return math.inf if self.usd_per_hour is None else self.floor * self.usd_per_hour


def _candidate(est: Any, usd: float | None, **kw: Any) -> Candidate:
    """A plan candidate (imported here: plan.search imports this module)."""
    from gpuwise.plan.search import Candidate

    return Candidate(est, usd, **kw)


def _serving_layouts(model: TransformerArch | GenericArch, gpu: GPU) -> list[int]:
    """Tensor-parallel degrees of one replica that divide the heads, inside one node."""
    if not isinstance(model, TransformerArch):
        return [1]
    return [
        tp
        for tp in TP_DEGREES
        if tp <= gpu.node_gpus
        and not (model.heads % tp or model.ffn % tp or (model.kv_heads % tp and tp % model.kv_heads))
    ]


def _batches(work: InferenceJob, largest: int) -> list[int]:
    """The user's concurrency if given; else every cap up to the largest the engine holds."""
    if work.concurrency > 1:
        return [min(work.concurrency, largest)]
    return sorted({b for b in BATCHES if b < largest} | {largest})


def _options(
    work: InferenceJob, gpu: GPU, req: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None
) -> tuple[list[Option], str]:
    """Every (tp, batch) that fits, with its floor; and why none does, when none does."""
    lang = check_lang(req.lang)
    reason = msg("why_weights_too_big", lang)
    goals = req.goals
    out: list[Option] = []
    for tp in _serving_layouts(work.model, gpu):
        job = replace(work, parallel=Parallelism(tp=tp), concurrency=1)
        hw = hardware(gpu, tp)
        alone = memory(job, hw, cat)
        if not alone.fits:
            continue
        decoder = isinstance(work.model, TransformerArch) and work.model.decoder
        setup = engine_setup(job, hw, cat, alone, notes=False) if decoder else None  # what the engine's KV share holds
        cap = 1 if decoder else largest_fitting(job, hw, cat, "concurrency", limit=MAX_BATCH_SEARCH)
        largest = setup.max_batch if setup is not None else serving_batch(job, hw, cat, cap)
        if largest < 1 or cap < 1:
            reason = msg("why_no_kv", lang, tp=tp, gpu=gpu.id)
            continue
        rates = compute_rates(gpu, compute_dtype(job, gpu.peak_flops), cat, cal)
        topo = topology(hw, cat)
        price = usd_per_hour(hw, req.pricing, params)
        batches = _batches(work, largest)
        lone, peaks = capacities(job, hw, rates, topo, cat, batches, setup)
        blocked = _blocked(lone, goals, lang)
        if blocked:
            reason = msg("why_latency_blocked", lang, tp=tp, gpu=gpu.id, blocked=blocked)
            continue  # an idle replica misses the target: no batch or replica count helps
        for b, peak in zip(batches, peaks, strict=True):
            floor = math.floor(req.qps / peak) + 1 if req.qps else 1
            out.append(Option(tp, b, peak, floor, price))
    return out, reason


def _blocked(alone: Mapping[str, float], goals: LatencyGoals | None, lang: Lang = "en") -> str | None:
    """The target one request on an idle replica already misses, or None."""
    if goals is None:
        return None
    for metric, limit in (("ttft", goals.ttft_seconds), ("tpot", goals.tpot_seconds), ("e2e", goals.e2e_seconds)):
        if limit is not None and alone[metric] > limit:
            value, target = fmt_seconds(alone[metric]), fmt_seconds(limit)
            return msg("why_alone", lang, metric=metric.upper(), value=value, pct=f"{goals.percentile:g}", limit=target)
    return None


def _analytic(option: Option, req: Requirements) -> int:
    """Replicas by capacity alone: the floor for a load without a latency target (at most full)."""
    if not req.qps:
        return 1
    return max(1, math.ceil(req.qps / option.peak))


def _estimate(
    work: InferenceJob, gpu: GPU, option: Option, req: Requirements, cat: Catalog, cal: Calibration | None
) -> Estimate:
    """What `gpuwise estimate --gpu G:tp --tp tp --concurrency b [target]` gives for this option."""
    job = replace(work, parallel=Parallelism(tp=option.tp), concurrency=option.batch)
    goals = req.goals
    target = None
    if req.qps and goals is not None:
        target = LatencyTarget(req.qps, goals.percentile, goals.e2e_seconds, goals.ttft_seconds, goals.tpot_seconds)
    return estimate(job, hardware(gpu, option.tp), cat, target=target, search_largest=False, calibration=cal)


def _build(
    est: Estimate, option: Option, req: Requirements, params: CostParams, replicas: int, basis: str, confirmed: bool
) -> Candidate:
    hw = est.hardware
    c = _candidate(
        est,
        usd_per_hour(hw, req.pricing, params),
        replicas=replicas,
        confirmed=confirmed,
        owned_usd=owned_horizon_usd(hw, req, params),
    )
    inf = est.inference
    c.serving = {
        "max_batch": option.batch,
        "capacity_rps_per_replica": option.peak,
        "latency_seconds": inf.latency_seconds if inf else math.inf,
        "replicas": replicas,
        "basis": basis,
    }
    if est.serving is not None:
        c.serving.update(est.serving.as_dict())
        c.serving["latency_seconds"] = est.serving.value("e2e")
    c.serving["options"] = [option.tp, option.batch]
    _meets_serving(c, req)
    return c


def serving_candidates(
    work: InferenceJob, gpu: GPU, req: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None = None
) -> tuple[list[Candidate], str | None]:
    """The cheapest (tp, batch) option on this GPU type by its analytic replica count; with a
    latency target it is marked unconfirmed until `confirm_cheapest` simulates it."""
    work = on_gpu(work, gpu)
    options, reason = _options(work, gpu, req, cat, params, cal)
    if not options:
        return [], reason
    best = min(options, key=lambda o: (_analytic(o, req) * (o.usd_per_hour or math.inf), o.tp, -o.batch))
    replicas = _analytic(best, req)
    est = _estimate(work, gpu, best, replace(req, qps=None, latency_seconds=None), cat, cal)
    basis = f"analytic: capacity at batch {best.batch} (the simulation confirms the cheapest)"
    c = _build(est, best, req, params, replicas, basis, confirmed=not req.has_latency)
    assert c.serving is not None
    c.serving["_search"] = (work, gpu, options, params)
    return [c], None


def _meets_serving(c: Candidate, req: Requirements) -> None:
    c.meets["memory"] = {"ok": c.est.memory.fits, "margin": c.est.memory.headroom}
    goals = req.goals
    sim = c.est.serving
    if goals is not None and c.serving is not None:
        for metric, limit in (("ttft", goals.ttft_seconds), ("tpot", goals.tpot_seconds), ("e2e", goals.e2e_seconds)):
            if limit is None:
                continue
            key = _latency_key(req) if metric == "e2e" else f"p{goals.percentile:g}_{metric}"
            if sim is None:  # not simulated yet: the idle replica meets it, replicas are a floor
                value = _steady(c, metric)
                c.meets[key] = {"ok": True, "value": value, "limit": limit, "margin": None, "why": "analytic floor"}
                continue
            value = sim.value(metric)
            c.meets[key] = {"ok": value <= limit, "value": value, "limit": limit, "margin": limit - value}
    if req.qps is not None and c.serving is not None:
        cap = c.serving["capacity_rps_per_replica"] * c.replicas
        c.meets["qps"] = {"ok": cap >= req.qps, "value": cap, "limit": req.qps, "margin": cap - req.qps}
    shared_limits(c, req, c.cost)


def _steady(c: Candidate, metric: str) -> float:
    """The analytic value of a metric at the candidate's batch (before simulation)."""
    inf = c.est.inference
    if inf is None:
        return math.inf
    return {"ttft": inf.time_to_first_token_seconds, "tpot": inf.decode_seconds_per_token}.get(
        metric, inf.latency_seconds
    )


def _latency_key(req: Requirements) -> str:
    """'p99_latency' for a percentile target; 'batch_latency' when the requirements name no percentile."""
    return f"p{req.percentile:g}_latency" if req.percentile is not None else "batch_latency"


def _fleet_per_hour(c: Candidate) -> float:
    """What the fleet of a candidate costs an hour (the unit of an option's floor cost)."""
    return math.inf if c.usd_per_hour is None else c.usd_per_hour * c.replicas


def _search_order(options: list[Option]) -> list[Option]:
    """Each TP degree's best-capacity option first (a faster replica can meet a TTFT target at a
    load a slower one cannot, whatever its floor), then every other option by floor cost."""
    by_floor = sorted(options, key=lambda o: (o.floor_cost, o.tp, -o.batch))
    heads: dict[int, Option] = {}
    for o in by_floor:
        heads.setdefault(o.tp, o)
    first = list(heads.values())
    return first + [o for o in by_floor if o not in first]


def _confirm(c: Candidate, req: Requirements, cat: Catalog, cal: Calibration | None = None) -> Candidate:
    """Branch and bound over this GPU type's options, each simulated through the same estimate
    `gpuwise estimate` runs: every TP degree's best option, then the others while their floor
    costs less than the best found (at most CONFIRM_OPTIONS more); the cheapest that meets every
    target replaces `c`."""
    work, gpu, options, params = c.serving.pop("_search") if c.serving else (None, None, [], None)
    if work is None or not (req.qps and req.has_latency):
        return c
    best: Candidate | None = None
    order = _search_order(options)
    heads = len({o.tp for o in options})
    tried = 0
    for i, option in enumerate(order):
        bound = best is not None and option.floor_cost >= _fleet_per_hour(best)
        if bound or i >= heads + CONFIRM_OPTIONS:
            if i < heads:
                continue  # another TP degree's first option may still be cheaper
            break
        tried += 1
        est = _estimate(work, gpu, option, req, cat, cal)
        sp = est.serving
        if sp is None or not sp.meets:
            continue
        basis = f"simulated: {simulated_requests(work, cat)} requests per configuration, Poisson arrivals"
        cand = _build(est, option, req, params, sp.replicas, basis, confirmed=True)
        if best is None or _fleet_per_hour(cand) < _fleet_per_hour(best):
            best = cand
    if best is None:  # no option meets the targets in simulation: the candidate misses them
        c.confirmed = True
        for key, m in c.meets.items():
            if key.startswith("p"):
                m["ok"] = False
        c.why.append(msg("why_none_simulated", check_lang(req.lang), tried=tried))
        return c
    return best


def _disaggregated_note(c: Candidate, req: Requirements, cat: Catalog, cals: Mapping[str, Calibration]) -> str | None:
    """The chosen layout with prefill and decode on separate pools, for comparison: its GPUs and
    TPOT beside the colocated plan's (the plan keeps colocated serving, which deploy writes)."""
    job, goals = c.est.workload, req.goals
    if not (isinstance(job, InferenceJob) and isinstance(job.model, TransformerArch) and job.model.decoder):
        return None
    if goals is None or not req.qps or c.est.serving is None:
        return None
    hw = c.est.hardware
    rates = compute_rates(hw.gpu, compute_dtype(job, hw.gpu.peak_flops), cat, cals.get(hw.gpu.id))
    from gpuwise.estimate.disagg import plan_disaggregated  # only a latency target compares it

    d = plan_disaggregated(job, hw, rates, topology(hw, cat), cat, qps=req.qps, goals=goals)
    lang = check_lang(req.lang)
    if not d.meets:
        return msg("note_disagg_none", lang, count=hw.count, gpu=hw.gpu.id)
    key = f"p{goals.percentile:g}"
    verdict = msg(
        "disagg_fewer" if d.gpus < c.gpus else ("disagg_as_many" if d.gpus == c.gpus else "disagg_more"), lang
    )
    return msg(
        "note_disagg",
        lang,
        count=hw.count,
        gpu=hw.gpu.id,
        prefill=d.prefill_replicas,
        decode=d.decode_replicas,
        gpus=d.gpus,
        verdict=verdict,
        colocated=c.gpus,
        pct=key.upper(),
        ttft=fmt_seconds(d.percentiles["ttft"][key]),
        kv=fmt_seconds(d.kv_transfer_seconds),
        tpot=fmt_seconds(d.percentiles["tpot"][key]),
        tpot0=fmt_seconds(c.est.serving.value("tpot")),
    )


def grown_serving(
    c: Candidate, grown: InferenceJob, greq: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None
) -> tuple[list[Candidate], str | None]:
    """The serving candidate for the grown load on this GPU type: a simulated candidate is checked
    on its own layout by the same simulation (an analytic floor would flatter it), an analytic one
    by the analytic search."""
    layout = (c.serving or {}).get("options")
    if c.confirmed and layout and greq.qps and greq.has_latency:
        tp, batch = layout
        option = Option(tp, batch, c.serving["capacity_rps_per_replica"] if c.serving else 0.0, 1, c.usd_per_hour)
        gpu = c.est.hardware.gpu
        est = _estimate(on_gpu(grown, gpu), gpu, option, greq, cat, cal)
        if est.serving is not None and est.serving.meets:
            basis = "simulated: the grown load on today's layout"
            return [_build(est, option, greq, params, est.serving.replicas, basis, confirmed=True)], None
    return serving_candidates(grown, c.est.hardware.gpu, greq, cat, params, cal)


def confirm_cheapest(
    candidates: list[Candidate],
    req: Requirements,
    cat: Catalog,
    cals: Mapping[str, Calibration],
    rank_key: Callable[[Candidate], Any],
    regrow: Callable[[Candidate], None] | None = None,
) -> list[str]:
    """Simulate the cheapest serving candidates that meet a latency target, until the best is a
    simulated one; `regrow` re-checks growth for a candidate the simulation replaced (the ranking
    prefers configurations that last). Returns the note."""
    for c in candidates:
        if c.serving is not None and not req.has_latency:
            c.serving.pop("_search", None)
    if not req.has_latency:
        return []
    confirmed = 0
    while confirmed < len(candidates):  # until the best that meets every target is a simulated one
        candidates.sort(key=rank_key)
        i = next((i for i, c in enumerate(candidates) if c.ok and not c.confirmed), None)
        first_ok = next((c for c in candidates if c.ok), None)
        if i is None or (first_ok is not None and first_ok.confirmed and confirmed >= CONFIRM_TOP):
            break
        c = candidates[i]
        candidates[i] = _confirm(c, req, cat, cals.get(c.est.hardware.gpu.id))
        if regrow is not None and candidates[i] is not c:
            regrow(candidates[i])
        confirmed += 1
    for c in candidates:
        if c.serving is not None:
            c.serving.pop("_search", None)
    best = next((c for c in sorted(candidates, key=rank_key) if c.ok and c.confirmed and c.serving), None)
    disagg = _disaggregated_note(best, req, cat, cals) if best is not None else None
    return [
        *([disagg] if disagg else []),
        msg("note_searched", check_lang(req.lang), n=confirmed),
    ]
