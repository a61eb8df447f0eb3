"""Search over GPU model x count x parallel layout x method, pruned by memory first.

For each GPU type the search walks GPU counts upward in powers of two from the smallest that
fits, picks for each count the lightest layout that fits (least tensor/pipeline parallelism, then
the least memory-saving ZeRO stage and recomputation), estimates time and cost, and stops a
little past the point where the requirements are met. Serving walks tensor-parallel degrees and
batch sizes and sizes replicas analytically; the best few are then confirmed by simulation.
A GPU type with no candidate gets the constraint that ruled it out ("binding constraint").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpuwise.catalog import GPU, Catalog
from gpuwise.errors import GpuwiseError
from gpuwise.estimate import estimate
from gpuwise.estimate.cost import HOURS_PER_MONTH, CostParams, fleet_cost, usd_per_hour, why_no_price
from gpuwise.estimate.rates import Calibration, compute_rates
from gpuwise.estimate.run import Estimate
from gpuwise.plan.explain import explain, headline
from gpuwise.plan.layouts import CostBound, best_layout, cost_bound, hardware
from gpuwise.plan.limits import at_most, owned_horizon_usd, shared_limits
from gpuwise.plan.messages import check_lang, fmt_duration, fmt_money, localize, msg, pipeline_text, term
from gpuwise.plan.pipeline_search import best_pipeline
from gpuwise.plan.serving_search import confirm_cheapest, grown_serving, serving_candidates
from gpuwise.units import fmt_bytes
from gpuwise.workload import Hardware, InferenceJob, TrainingJob, Workload
from gpuwise.workload.precision import NoBf16Error, on_gpu
from gpuwise.workload.requirements import Requirements

if TYPE_CHECKING:  # availability is imported by the training branches and --redundancy
    from gpuwise.plan.availability import Reliability

__all__ = ["HOURS_PER_MONTH", "Candidate", "PlanResult", "Rejection", "plan"]

MAX_COUNT = 4096  # search bound on GPUs per configuration


@dataclass(slots=True)
class Candidate:
    est: Estimate
    usd_per_hour: float | None  # one replica / the whole training configuration
    replicas: int = 1
    serving: dict[str, Any] | None = None
    meets: dict[str, dict[str, Any]] = field(default_factory=dict)
    why: list[str] = field(default_factory=list)
    growth: dict[str, Any] | None = None
    confirmed: bool = True
    owned_usd: float | None = None  # pricing "owned": what buying the hardware costs over the horizon
    command: str | None = None  # the `gpuwise estimate ...` line that reproduces this candidate
    price_detail: dict[str, Any] | None = None  # the offer behind the price, costs in --currency (gpuwise.api)
    pricing: str = "on-demand"
    horizon_years: float | None = None  # owned pricing: the horizon `owned_usd` covers
    reliability: Reliability | None = None  # training: expected losses to failures at this scale
    pipeline: dict[str, Any] | None = None  # training: the upgraded data pipeline (plan.pipeline_search)

    @property
    def gpus(self) -> int:
        return self.est.hardware.count * self.replicas

    @property
    def ok(self) -> bool:
        return all(v["ok"] for k, v in self.meets.items() if k != "growth")

    @property
    def growth_ok(self) -> bool:
        return self.growth is None or bool(self.growth.get("holds"))

    @property
    def pipeline_usd_per_hour(self) -> float:
        """What the upgraded data pipeline adds per hour of the run (0 without one)."""
        return (self.pipeline or {}).get("extra_usd_per_hour", 0.0)

    @property
    def hours(self) -> float | None:
        """The run's expected wall hours: failure-free time / goodput (failure-free without a model)."""
        staging = (self.pipeline or {}).get("staging_seconds", 0.0)
        if self.reliability is not None:
            return (self.reliability.expected_seconds + staging) / 3600
        t = self.est.training
        return (t.total_seconds + staging) / 3600 if t and t.total_seconds else None

    @property
    def cost(self) -> float | None:
        """What the objective ranks. Renting: the run's cost for training, a month of serving.
        Owning: the hardware's total cost over the horizon, however little of it the job uses."""
        if self.owned_usd is not None:
            extra = self.pipeline_usd_per_hour * (self.hours or 0.0)
            return self.owned_usd * self.replicas + extra
        if self.usd_per_hour is None:
            return None
        if self.est.training is not None:
            if self.hours is not None:
                return (self.usd_per_hour + self.pipeline_usd_per_hour) * self.hours
            return _per_million_tokens(self)
        return self.usd_per_hour * self.replicas * HOURS_PER_MONTH

    @property
    def time(self) -> float:
        if self.est.training is not None:
            t = self.est.training
            if self.reliability is not None:
                return self.reliability.expected_seconds
            return t.total_seconds if t.total_seconds else t.step_seconds
        if self.serving:
            return self.serving["latency_seconds"]
        return self.est.inference.latency_seconds if self.est.inference else math.inf

    @property
    def label(self) -> str:
        w, hw = self.est.workload, self.est.hardware
        par = w.parallel
        base = f"{hw.count}x {hw.gpu.id}"
        if self.replicas > 1:
            base = f"{self.replicas} x ({base})"
        layout = [f"tp{par.tp}" if par.tp > 1 else "", f"pp{par.pp}" if par.pp > 1 else ""]
        if isinstance(w, TrainingJob):
            layout += [
                w.method,
                f"zero{par.zero}" if par.zero else "",
                f"rc-{w.recompute}" if w.recompute != "none" else "",
                f"offload-{'+'.join(w.offload)}" if w.offload else "",
            ]
        else:
            layout += [w.weights_dtype]
        return base + " " + " ".join(x for x in layout if x)

    def cost_dict(self) -> dict[str, Any]:
        """The fleet's cost as the JSON `cost` of `as_dict` writes it (without building the rest)."""
        t = self.est.training
        run = t.total_seconds if t is not None else None  # failure-free, as `estimate` says
        fleet = fleet_cost(self.usd_per_hour, self.replicas, self.est.hardware.count, run, self.pricing)
        expected = self.hours if self.reliability is not None else None
        return {
            **(fleet or {"usd_per_hour": None, "usd_per_month": None, "total_usd": None}),
            "expected_total_usd": None
            if expected is None or self.usd_per_hour is None
            else (self.usd_per_hour * self.replicas + self.pipeline_usd_per_hour) * expected,
            "pipeline_usd": None
            if self.pipeline is None or self.hours is None
            else self.pipeline["extra_usd_per_hour"] * self.hours,
            "usd_per_million_tokens": _per_million_tokens(self),
            "usd_per_thousand_requests": _per_thousand_requests(self),
            "owned": None
            if self.owned_usd is None
            else {
                "amortised_usd_per_month": fleet["usd_per_month"] if fleet else None,
                "horizon_years": self.horizon_years,
                "horizon_total_usd": self.owned_usd * self.replicas,
            },
        }

    def as_dict(self) -> dict[str, Any]:
        d = self.est.as_dict()
        d["label"] = self.label
        d["replicas"] = self.replicas
        d["gpus_total"] = self.gpus
        if d.get("inference") is not None and self.serving is not None:
            d["inference"]["serving"] = self.serving
        d["cost"] = self.cost_dict()
        d["meets"] = self.meets
        d["why"] = self.why
        d["growth"] = self.growth
        d["confirmed_by_simulation"] = self.confirmed
        d["command"] = self.command
        d["reliability"] = None if self.reliability is None else self.reliability.as_dict()
        d["pipeline"] = self.pipeline
        d.update(self.price_detail or {})  # "offer" and "currency"
        return d


def _per_million_tokens(c: Candidate) -> float | None:
    if c.usd_per_hour is None:
        return None
    if c.est.training is not None:
        return c.usd_per_hour / (c.est.training.tokens_per_second * 3600) * 1e6
    inf = c.est.inference
    if inf and inf.tokens_per_second:
        return c.usd_per_hour / (inf.tokens_per_second * 3600) * 1e6
    return None


def _per_thousand_requests(c: Candidate) -> float | None:
    inf = c.est.inference
    if c.usd_per_hour is None or inf is None or not inf.requests_per_second:
        return None
    return c.usd_per_hour / (inf.requests_per_second * 3600) * 1e3


@dataclass(frozen=True, slots=True)
class Rejection:
    gpu: str
    reason: str


@dataclass(slots=True)
class PlanResult:
    workload: Workload
    requirements: Requirements
    candidates: list[Candidate]
    rejected: list[Rejection]
    notes: list[str]

    @property
    def chosen(self) -> Candidate | None:
        return self.candidates[0] if self.candidates and self.candidates[0].ok else None

    def pareto(self) -> list[Candidate]:
        """Candidates meeting every requirement that no other beats on both cost and time (those
        without a price cannot be compared on cost and are left out)."""
        priced = [(c, cost) for c in self.candidates if c.ok and (cost := c.cost) is not None]
        return [
            c
            for c, cost in priced
            if not any(
                o is not c and o_cost <= cost and o.time <= c.time and (o_cost < cost or o.time < c.time)
                for o, o_cost in priced
            )
        ]

    def as_dict(self) -> dict[str, Any]:
        front = {id(c) for c in self.pareto()}
        cands = []
        for c in self.candidates:
            d = c.as_dict()
            d["pareto"] = id(c) in front
            cands.append(d)
        chosen = self.chosen
        return {
            "requirements": self.requirements.as_dict(),
            "candidates": cands,
            "chosen": None if chosen is None else cands[0],
            "rejected": [{"gpu": r.gpu, "reason": r.reason} for r in self.rejected],
            "notes": self.notes,
        }


# ------------------------------------------------------------------------------------------
def _counts(gpu: GPU, limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        if n <= gpu.node_gpus or n % gpu.node_gpus == 0:
            out.append(n)
        n *= 2
    return out


def _meets_training(c: Candidate, req: Requirements) -> None:
    est = c.est
    c.meets["memory"] = {"ok": est.memory.fits, "margin": est.memory.headroom}
    if req.deadline_seconds is not None:
        total = c.hours * 3600 if c.hours is not None else None
        c.meets["deadline"] = at_most(total, req.deadline_seconds)
        if total is None:
            c.meets["deadline"]["why"] = msg("why_need_amount", check_lang(req.lang))
    shared_limits(c, req, c.cost if c.hours is not None else None)


def _training_candidates(
    work: TrainingJob,
    gpu: GPU,
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    grown: Workload | None = None,
    cal: Calibration | None = None,
    bound: CostBound | None = None,
) -> tuple[list[Candidate], str | None]:
    """Counts from the smallest that fits, until two meet the requirements and a larger count stops
    being cheaper (with growth, also until one carries the grown workload, so the ranking can prefer a
    configuration that lasts). Each count gets its fastest layout (plan.layouts). `bound` skips the
    type when it cannot beat the best plan so far, and counts too small to meet the deadline."""
    work = on_gpu(work, gpu)
    limit = min(req.max_gpus or MAX_COUNT, MAX_COUNT)
    bound = bound or cost_bound(cat, prune_cost=False)
    variant = id(work)
    rates = compute_rates(gpu, work.precision, cat, cal)
    beaten = bound.beaten(variant, rates, _cheapest_gpu_hour(gpu, req, params))
    if beaten is not None:
        lg = check_lang(req.lang)
        return [], msg("why_bound", lg, bound=fmt_money(beaten[0], lg), best=fmt_money(beaten[1], lg))
    counts = _counts(gpu, limit)
    unpriced = 0
    out: list[Candidate] = []
    smallest_need = math.inf
    met = 0
    best_cost = math.inf
    lasts = grown is None
    worth_doubling = cat.convention("plan_doubling_min_saving")
    for count in counts:
        ideal = bound.ideal_seconds(variant, rates, count)
        if req.deadline_seconds and ideal and ideal > req.deadline_seconds and count < counts[-1]:
            continue  # too few GPUs to meet the deadline even at the roofline
        hw = hardware(gpu, count)
        price = usd_per_hour(hw, req.pricing, params)
        if price is None:
            unpriced += 1
            continue  # no offer rents nodes of this size: nothing to rank it by
        if ideal and price and bound.prune_cost and price * ideal / 3600 >= bound.best.get(variant, math.inf):
            continue  # even at the roofline this count costs more than the best plan so far
        choice = best_layout(work, hw, cat, rates)
        smallest_need = min(smallest_need, choice.smallest_need)
        job = choice.job
        if job is None:
            continue
        est = estimate(job, hw, cat, search_largest=False, calibration=cal)
        c = Candidate(est, price, owned_usd=owned_horizon_usd(hw, req, params))
        from gpuwise.plan.availability import training_reliability

        c.reliability = training_reliability(est, cat)
        _meets_training(c, req)
        out.append(c)
        bound.record(variant, _run_flops(est), c.cost, c.ok and c.growth_ok)
        cheaper = c.cost is not None and c.cost < best_cost * (1 - worth_doubling)
        if c.ok:
            met += 1
            best_cost = min(best_cost, c.cost if c.cost is not None else math.inf)
            if not lasts and isinstance(grown, TrainingJob):
                lasts = _holds(grown, job, hw, req, cat, cal)
        if met >= 2 and lasts and not cheaper:
            break
    lg = check_lang(req.lang)
    if not out and unpriced:
        return [], msg("why_unpriced_sizes", lg, pricing=term("pricing", req.pricing, lg), gpu=gpu.id, limit=limit)
    if not out:
        need, cap = fmt_bytes(smallest_need), fmt_bytes(gpu.capacity_bytes)
        return [], msg("why_too_big", lg, limit=limit, need=need, cap=cap)
    return out, None


def _pipeline_candidate(
    work: TrainingJob, gpu: GPU, req: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None
) -> list[Candidate]:
    """A data-fed job on a few nodes with the cheapest host-side upgrade that meets the deadline."""
    if work.data is None:
        return []
    work = on_gpu(work, gpu)
    rates = compute_rates(gpu, work.precision, cat, cal)
    start = cat.reliability["restart_seconds_per_interruption"].value  # as plan.availability counts it
    price = lambda hw: usd_per_hour(hw, req.pricing, params)  # noqa: E731
    found = best_pipeline(work, gpu, cat, rates, price, req.deadline_seconds, start)
    if found is None:
        return []
    job, hw, design = found
    est = estimate(job, hw, cat, search_largest=False, calibration=cal)
    c = Candidate(est, usd_per_hour(hw, req.pricing, params), owned_usd=owned_horizon_usd(hw, req, params))
    c.pipeline = design.as_dict(hw.nodes)
    from gpuwise.plan.availability import training_reliability

    c.reliability = training_reliability(est, cat)
    _meets_training(c, req)
    return [c]


def _beside_gpu_only(chosen: Candidate, candidates: list[Candidate], lang: str) -> None:
    """The chosen plan upgrades the data pipeline: name the cheapest answer that buys GPUs instead."""
    assert chosen.pipeline is not None
    alt = next((c for c in candidates if c.ok and c.pipeline is None and c.est.training is not None), None)
    lg = check_lang(lang)
    chosen.pipeline["gpu_only"] = None if alt is None else {"label": alt.label, "gpus": alt.gpus, "cost": alt.cost}
    chosen.why.append(
        msg(
            "why_pipeline",
            lg,
            pipeline=pipeline_text(chosen.pipeline, lg),
            cost=fmt_money(chosen.cost, lg),
            gpu_only=fmt_money(alt.cost, lg) if alt else "—",
            gpu_only_label=alt.label if alt else "—",
        )
    )


def _run_flops(est: Estimate) -> float | None:
    """Model FLOPs of the whole run (None without --tokens or --samples)."""
    t = est.training
    if t is None or not t.total_seconds or not t.step_seconds:
        return None
    return t.flops_per_step * t.total_seconds / t.step_seconds


# ------------------------------------------------------------------------------------------
def _growth_workload(work: Workload, req: Requirements) -> Workload | None:
    g = req.growth
    if g is None:
        return None
    new = work
    if g.model is not None:
        new = replace(new, model=g.model)
    if isinstance(new, TrainingJob):
        if new.tokens:
            new = replace(new, tokens=new.tokens * g.data_factor)
        if new.samples:
            new = replace(new, samples=new.samples * g.data_factor)
    return new


def _with_layout(grown: TrainingJob, today: TrainingJob) -> TrainingJob:
    """The grown training workload on today's parallel layout, recomputation and micro-batch."""
    return replace(grown, parallel=today.parallel, recompute=today.recompute, micro_batch=today.micro_batch)


def _holds(
    grown: TrainingJob,
    today: TrainingJob,
    hw: Hardware,
    req: Requirements,
    cat: Catalog,
    cal: Calibration | None = None,
) -> bool:
    """Does the grown training workload fit and meet the deadline with today's layout?"""
    try:
        est = estimate(_with_layout(grown, today), hw, cat, search_largest=False, calibration=cal)
    except GpuwiseError:
        return False
    t = est.training
    in_time = req.deadline_seconds is None or (
        t is not None and t.total_seconds is not None and t.total_seconds <= req.deadline_seconds
    )
    return est.memory.fits and in_time


def _growth_training(
    c: Candidate,
    grown: TrainingJob,
    today: TrainingJob,
    greq: Requirements,
    cat: Catalog,
    params: CostParams,
    cal: Calibration | None,
) -> tuple[bool, str]:
    """Does today's layout meet the grown requirements? If not, the path: scale out on the same
    GPU type, or a larger GPU."""
    try:
        est = estimate(_with_layout(grown, today), c.est.hardware, cat, search_largest=False, calibration=cal)
        g = Candidate(est, c.usd_per_hour)
        _meets_training(g, greq)
        if g.ok:
            return True, ""
    except GpuwiseError:
        pass
    more, _ = _training_candidates(grown, c.est.hardware.gpu, greq, cat, params, cal=cal)
    ok = [m for m in more if m.ok]
    lg = check_lang(greq.lang)
    if ok:
        return False, msg("growth_scale_out", lg, label=ok[0].label)
    return False, msg("growth_larger_gpu", lg)


def _check_growth(
    c: Candidate, grown: Workload, req: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None = None
) -> None:
    """Does today's configuration hold for the workload six months from now? If not, name the path."""
    if req.growth is None:
        return
    gpu = c.est.hardware.gpu
    greq = replace(req, qps=req.qps * req.growth.users_factor if req.qps else None, growth=None)
    describe, lg = req.growth.describe(), check_lang(req.lang)
    today = c.est.workload
    if isinstance(grown, TrainingJob) and isinstance(today, TrainingJob):
        holds, path = _growth_training(c, grown, today, greq, cat, params, cal)
        if holds:
            c.growth = {"holds": True, "summary": msg("growth_holds", lg, describe=describe)}
        else:
            c.growth = {
                "holds": False,
                "upgrade_path": path,
                "summary": msg(
                    "growth_breaks", lg, describe=describe, count=c.est.hardware.count, gpu=gpu.id, path=path
                ),
            }
        return
    if not isinstance(grown, InferenceJob):
        return  # growth keeps the task: a serving candidate grows into a serving job
    cands, reason = grown_serving(c, grown, greq, cat, params, cal)
    if not cands:
        c.growth = {
            "holds": False,
            "upgrade_path": msg("growth_cannot_serve", lg, gpu=gpu.id, reason=reason),
            "summary": msg("growth_no_fit", lg, describe=describe, gpu=gpu.id, reason=reason),
        }
        return
    g = cands[0]
    if g.est.hardware.count == c.est.hardware.count and g.replicas <= c.replicas:
        c.growth = {"holds": True, "summary": msg("growth_fits_replicas", lg, describe=describe, replicas=c.replicas)}
    else:
        c.growth = {
            "holds": False,
            "upgrade_path": msg(
                "growth_path_replicas", lg, replicas=g.replicas, count=g.est.hardware.count, gpu=gpu.id
            ),
            "summary": msg(
                "growth_needs_replicas",
                lg,
                describe=describe,
                replicas=g.replicas,
                count=g.est.hardware.count,
                gpu=gpu.id,
                today=c.replicas,
            ),
        }


def _rank_key(c: Candidate, req: Requirements, tie: float) -> tuple[Any, ...]:
    """Requirements met first, then the objective; equal objectives (within `tie`, a fraction) go
    to fewer GPUs, then fewer nodes, then the other objective."""
    primary = c.cost if req.objective == "cost" else c.time
    secondary = c.time if req.objective == "cost" else c.cost
    finite = primary is not None and primary > 0 and math.isfinite(primary)
    level = round(math.log(primary) / math.log1p(tie)) if finite and primary else 0
    nodes = c.est.hardware.nodes * c.replicas
    return (not c.ok, not c.growth_ok, primary is None, level, c.gpus, nodes, secondary or 0.0)


def _misses(gpu: GPU, found: list[Candidate], lang: str = "en") -> Rejection:
    """Why no candidate on this GPU type meets the requirements, with the fastest one for a deadline."""
    lg = check_lang(lang)
    misses = sorted({k for c in found for k, v in c.meets.items() if not v["ok"]})
    best = min(found, key=lambda c: c.time)
    detail = ""
    if "deadline" in misses and best.est.training and best.est.training.total_seconds:
        time = fmt_duration(best.est.training.total_seconds, lg)
        bottleneck = term("bottleneck", best.est.bottleneck, lg)
        seen = msg("why_fastest_seen", lg, time=time, label=best.label, bottleneck=bottleneck)
        detail = msg("paren", lg, text=seen)
    what = ", ".join(term("meet", k, lg) for k in misses)
    return Rejection(gpu.id, msg("why_misses", lg, what=what) + detail)


def _gpu_candidates(
    gpu: GPU,
    workloads: list[Workload],
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    cal: Calibration | None,
    bound: CostBound | None = None,
) -> tuple[list[Candidate], Rejection | None]:
    """Every workload variant on one GPU type, and what rules the type out when nothing meets."""
    lg = check_lang(req.lang)
    if not gpu.peak_flops:
        return [], Rejection(gpu.id, msg("why_no_compute", lg))
    if usd_per_hour(hardware(gpu, 1), req.pricing, params) is None:
        return [], Rejection(gpu.id, localize(why_no_price(hardware(gpu, 1), req.pricing, params), lg))
    found: list[Candidate] = []
    reasons: list[str] = []
    for work in workloads:
        try:
            work = on_gpu(work, gpu)
        except NoBf16Error as exc:  # bf16 named for a GPU without it: the rule's refusal, in the reader's language
            reasons.append(msg("why_no_tensor_cores", lg, precision=getattr(work, exc.field)))
            continue
        try:
            if isinstance(work, TrainingJob):
                if work.precision != "fp32" and work.precision not in gpu.peak_flops:
                    reasons.append(msg("why_no_tensor_cores", lg, precision=work.precision))
                    continue
                grown = _growth_workload(work, req)
                cands, reason = _training_candidates(work, gpu, req, cat, params, grown, cal, bound)
                cands += _pipeline_candidate(work, gpu, req, cat, params, cal)
            else:
                cands, reason = serving_candidates(work, gpu, req, cat, params, cal)
        except GpuwiseError as exc:
            cands, reason = [], str(exc)
        found += cands
        if reason:
            if len(workloads) > 1 and isinstance(work, TrainingJob):
                reason = msg("why_method", lg, method=work.method, reason=reason)
            reasons.append(reason)
    if not found:
        return [], Rejection(gpu.id, "; ".join(dict.fromkeys(reasons)) or msg("why_no_layout", lg))
    return found, (None if any(c.ok for c in found) else _misses(gpu, found, req.lang))


def _cheapest_gpu_hour(gpu: GPU, req: Requirements, params: CostParams) -> float | None:
    """The lowest price per GPU-hour of one GPU or a whole node (offers rent whole instances)."""
    prices = [
        p / n for n in {1, gpu.node_gpus} if (p := usd_per_hour(hardware(gpu, n), req.pricing, params)) is not None
    ]
    return min(prices, default=None)


def _price_per_flop(gpu: GPU, work: Workload, req: Requirements, cat: Catalog, params: CostParams) -> float:
    """$/hour per achievable FLOP/s: the order in which GPU types are searched, so that the bound
    meets a cheap plan early (types without a price or figures last)."""
    price = _cheapest_gpu_hour(gpu, req, params)
    if not isinstance(work, TrainingJob) or price is None or not gpu.peak_flops:
        return math.inf
    try:
        return price / compute_rates(gpu, on_gpu(work, gpu).precision, cat).matmul
    except GpuwiseError:
        return math.inf


def _variant(c: Candidate, workloads: list[Workload], grown: list[Workload | None]) -> Workload | None:
    """The grown form of the workload variant (task and method) a candidate was planned for."""
    w = c.est.workload
    for today, later in zip(workloads, grown, strict=True):
        if type(today) is type(w) and getattr(today, "method", None) == getattr(w, "method", None):
            return later
    return None


def plan(
    workloads: list[Workload],
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    calibrations: Mapping[str, Calibration] | None = None,
) -> PlanResult:
    """Every method variant in `workloads` (e.g. full, LoRA, QLoRA of one job) on every GPU type;
    `calibrations` (GPU id -> measured rates) replace the cited efficiencies where they exist."""
    cals = dict(calibrations or {})
    # a multi-die board (mi250x) is searched as the devices software sees (mi250x-gcd), once
    named = [cat.device(g)[0] for g in req.gpus] if req.gpus else [g for g in cat.gpus.values() if g.devices is None]
    gpus = list({g.id: g for g in named}.values())
    candidates: list[Candidate] = []
    rejected: list[Rejection] = []
    bound = cost_bound(cat, prune_cost=req.objective == "cost" and req.pricing != "owned" and req.growth is None)
    for gpu in sorted(gpus, key=lambda g: _price_per_flop(g, workloads[0], req, cat, params)):
        found, rejection = _gpu_candidates(gpu, workloads, req, cat, params, cals.get(gpu.id), bound)
        candidates += found
        if rejection is not None:
            rejected.append(rejection)
    for c in candidates:  # what the cost figures mean, for every output
        c.pricing = req.pricing
        c.horizon_years = (req.years or params.depreciation_years) if req.pricing == "owned" else None
    tie = cat.convention("plan_cost_tie_tolerance")
    grown = [_growth_workload(w, req) for w in workloads]

    def regrow(c: Candidate) -> None:
        g = _variant(c, workloads, grown) if c.ok else None
        if g is not None:
            _check_growth(c, g, req, cat, params, cals.get(c.est.hardware.gpu.id))

    for c in candidates if req.growth is not None else []:
        regrow(c)
    # serving: simulated until the best is a simulated candidate (growth re-checked on each)
    notes = confirm_cheapest(
        candidates, req, cat, cals, lambda c: _rank_key(c, req, tie), regrow if req.growth is not None else None
    )
    for c in candidates if req.redundancy else []:  # N+1: spares beyond the (simulated) replicas
        if c.serving is not None:
            from gpuwise.plan.availability import add_redundancy

            add_redundancy(c, req.redundancy)
            shared_limits(c, req, c.cost)
    candidates.sort(key=lambda c: _rank_key(c, req, tie))
    lang = check_lang(req.lang)
    chosen = candidates[0] if candidates and candidates[0].ok else None
    if chosen is not None and chosen.pipeline is not None:
        _beside_gpu_only(chosen, candidates, lang)
    for c in candidates:
        explain(c, chosen, tie, lang)
    if chosen is not None:
        chosen.why.insert(0, headline(req.objective, lang))
    if cals:
        notes.append(msg("note_measured", lang, gpus=", ".join(sorted(cals))))
    return PlanResult(workload=workloads[0], requirements=req, candidates=candidates, rejected=rejected, notes=notes)
