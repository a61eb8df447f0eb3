"""The serving search: tensor-parallel degree x batch x replicas for one GPU type.

Every layout (TP degree that divides the heads, inside a node) and every batch up to what the
engine's KV cache holds is an option. Its analytic capacity (estimate.serving.steady_state)
gives a floor on the replicas: fewer cannot carry the load. A fleet is priced whole, its
replicas packed into the instances of the cheapest offer that holds them (estimate.offers): its
price never falls as replicas are added, so the floor's price bounds every count above it. Without a latency target that floor
is the answer (the largest batch is the cheapest: never batch 1). With one, the cheapest GPU
types are confirmed by simulation, branch and bound over the options by their floor cost: an
option whose floor already costs more than the best confirmed one cannot win. The confirmed
candidate is the estimate `gpuwise estimate --gpu G:tp --tp tp --concurrency b` with the same
target gives (one function computes both), and no (tp, batch) estimate at that GPU type is cheaper.

Kept apart from the training search in plan.search, which builds the candidates and ranks them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gpuwise.catalog import GPU, Catalog, GenericArch, TransformerArch
from gpuwise.estimate import estimate, memory
from gpuwise.estimate.bands import Margins, serving_margins
from gpuwise.estimate.comm import topology
from gpuwise.estimate.cost import CostParams, fleet_usd_per_hour, usd_per_hour
from gpuwise.estimate.engine import ShareTooSmall, engine_setup
from gpuwise.estimate.memory import largest_fitting
from gpuwise.estimate.rates import Calibration, compute_rates
from gpuwise.estimate.run import Estimate, LatencyTarget
from gpuwise.estimate.serving import MAX_REPLICAS, capacities, compute_dtype, serving_batch, simulated_requests
from gpuwise.plan.layouts import TP_DEGREES, hardware
from gpuwise.plan.limits import at_least, at_most, memory_meet, packs, priced, shared_limits
from gpuwise.plan.results import Candidate, Code, Meet, Meets, Reason, Serving
from gpuwise.workload import Hardware, InferenceJob, Parallelism
from gpuwise.workload.precision import on_gpu
from gpuwise.workload.requirements import LatencyGoals, Requirements

__all__ = ["Found", "Pending", "confirm_cheapest", "grown_serving", "serving_candidates", "settle_floor"]

CONFIRM_TOP = 1  # GPU types simulated at least (more while an unsimulated floor is cheaper)
CAP_ROUNDING = 1e-9  # a month's cost is the hour's times a constant: room for that product's rounding
# a GPU type's search is first bounded at this multiple of its floor cost (then of the bound it proved),
# so that a type whose answer lies far above its floor yields to cheaper rows before it is searched further
DEEPEN = 1.5
BATCHES = (8, 16, 32, 64, 128, 256, 512, 1024)  # batch caps tried below the engine's largest
MAX_BATCH_SEARCH = 1 << 16  # memory search bound for one-pass models


@dataclass(frozen=True, slots=True)
class Option:
    """One (tp, batch) replica layout with its analytic capacity and replica floor."""

    tp: int
    batch: int
    peak: float  # requests/s of one replica at `batch`
    floor: int  # replicas below which the load exceeds capacity (at the throughput band's low end)
    usd_per_hour: float | None  # one replica
    rate: float = 1.0  # the throughput band's low end over the estimate
    idle_share: float = 0.0  # the largest share of a latency target one request on an idle replica takes
    # n replicas together an hour, packed into instances (None: n x usd_per_hour, one per instance)
    fleet: Callable[[int], float | None] | None = field(default=None, compare=False)

    def fleet_usd(self, replicas: int) -> float | None:
        """What `replicas` of this layout cost an hour together (None: no offer prices them)."""
        if self.fleet is not None:
            return self.fleet(replicas)
        return None if self.usd_per_hour is None else replicas * self.usd_per_hour

    @property
    def floor_cost(self) -> float:
        """The floor's fleet an hour: no replica count the option can need costs less."""
        usd = self.fleet_usd(self.floor)
        return math.inf if usd is None else usd

    @property
    def likely_cost(self) -> float:
        """The floor cost over the square of the share of the tightest target that queueing may still
        take: a guess of what simulation will find (a queue's tail grows faster than linearly as the
        share left shrinks). Over ten plans the square needed 811 simulations, the first power 881,
        the cube 808 but more for short prompts. It orders the search; it bounds nothing."""
        return self.floor_cost / (1 - self.idle_share) ** 2 if self.idle_share < 1 else math.inf


@dataclass(frozen=True, slots=True)
class Pending:
    """What confirming an analytic serving candidate by simulation needs: the search it came from."""

    work: InferenceJob
    gpu: GPU
    options: tuple[Option, ...]
    params: CostParams


@dataclass(slots=True)
class Found:
    """A candidate while the search runs (the search's own state, never part of the result): the
    candidate so far and, for an analytic serving one, what its simulation needs and the fleet an
    hour that its searches so far proved no layout of it meets at (None: its floor only)."""

    c: Candidate
    pending: Pending | None = None
    least: float | None = None

    def ranked(self) -> Candidate:
        """The candidate as it ranks while the search runs: at the cost its searches proved at least."""
        if self.least is None or self.c.hourly is None or self.least <= self.c.hourly:
            return self.c
        return replace(self.c, fleet_usd_per_hour=self.least)


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
) -> tuple[list[Option], Reason]:
    """Every (tp, batch) that fits, with its floor; and why none does, when none does."""
    reason = Reason.of(Code.WEIGHTS_DO_NOT_FIT)
    goals = req.goals
    out: list[Option] = []
    for tp in _serving_layouts(work.model, gpu):
        job = replace(work, parallel=Parallelism(tp=tp), concurrency=1)
        hw = hardware(gpu, tp)
        alone = memory(job, hw, cat)
        if not alone.fits:
            continue
        decoder = isinstance(work.model, TransformerArch) and work.model.decoder
        try:
            setup = engine_setup(job, hw, cat, alone, notes=False) if decoder else None  # what the KV share holds
        except ShareTooSmall:  # a given share leaves no KV cache at this tp: a larger one may
            reason = Reason.of(Code.NO_KV_CACHE, tp=tp, gpu=gpu.id)
            continue
        cap = 1 if decoder else largest_fitting(job, hw, cat, "concurrency", limit=MAX_BATCH_SEARCH)
        largest = setup.max_batch if setup is not None else serving_batch(job, hw, cat, cap)
        if largest < 1 or cap < 1:
            reason = Reason.of(Code.NO_KV_CACHE, tp=tp, gpu=gpu.id)
            continue
        rates = compute_rates(gpu, compute_dtype(job, gpu.peak_flops, cat), cat, cal)
        topo = topology(hw, cat, None, cal)
        price = usd_per_hour(hw, req.pricing, params)
        fleet = _fleet_price(hw, req, params)
        batches = _batches(work, largest)
        lone, peaks = capacities(job, hw, rates, topo, cat, batches, setup)
        spread = cal.spread if cal is not None else None
        m = serving_margins(job, gpu, cat.uncertainty, req.confidence, lone["ttft"], lone["e2e"], spread)
        blocked = _blocked(lone, goals, tp, gpu.id, m)
        if blocked is not None:
            reason = blocked
            continue  # an idle replica misses the target: no batch or replica count helps
        share = _idle_share(lone, goals, m)
        for b, peak in zip(batches, peaks, strict=True):
            floor = math.floor(req.qps / (peak * m.rate)) + 1 if req.qps else 1  # at the throughput band's low end
            out.append(Option(tp, b, peak, floor, price, m.rate, share, fleet))
    return out, reason


def _fleet_price(hw: Hardware, req: Requirements, params: CostParams) -> Callable[[int], float | None]:
    """n replicas on `hw` an hour, as the plan rents them (gpuwise.estimate.cost.fleet_usd_per_hour:
    packed into instances, one per instance where --redundancy spreads them). Kept per count: the
    search asks for the same counts again (each option's floor, the bisection of `_cheaper_than`)."""
    packed = packs(req)
    return functools.cache(lambda n: fleet_usd_per_hour(hw, n, req.pricing, params, packed=packed))


def _blocked(alone: Mapping[str, float], goals: LatencyGoals | None, tp: int, gpu: str, m: Margins) -> Reason | None:
    """The target one request on an idle replica of `tp` x `gpu` already misses at the high end of
    its band, or None."""
    if goals is None:
        return None
    for metric, limit in (("ttft", goals.ttft_seconds), ("tpot", goals.tpot_seconds), ("e2e", goals.e2e_seconds)):
        if limit is not None and alone[metric] * m.of(metric) > limit:
            return Reason.of(
                Code.IDLE_REPLICA_MISSES,
                tp=tp,
                gpu=gpu,
                metric=metric,
                value_seconds=alone[metric] * m.of(metric),
                percentile=goals.percentile,
                limit_seconds=limit,
            )
    return None


def _idle_share(alone: Mapping[str, float], goals: LatencyGoals | None, m: Margins) -> float:
    """The largest share of a latency target that one request on an idle replica takes, at the high
    end of its band (0 without targets)."""
    if goals is None:
        return 0.0
    limits = (("ttft", goals.ttft_seconds), ("tpot", goals.tpot_seconds), ("e2e", goals.e2e_seconds))
    return max((alone[k] * m.of(k) / v for k, v in limits if v), default=0.0)


def _analytic(option: Option, req: Requirements) -> int:
    """Replicas by capacity alone: the floor for a load without a latency target (at most full)."""
    if not req.qps:
        return 1
    return max(1, math.ceil(req.qps / (option.peak * option.rate)))


def _estimate(
    work: InferenceJob,
    gpu: GPU,
    option: Option,
    req: Requirements,
    cat: Catalog,
    cal: Calibration | None,
    useful: int | None = None,
) -> Estimate:
    """What `gpuwise estimate --gpu G:tp --tp tp --concurrency b [target]` gives for this option
    (`useful`: replica counts above it cost more than a plan found already; see plan_replicas)."""
    job = replace(work, parallel=Parallelism(tp=option.tp), concurrency=option.batch)
    goals = req.goals
    target = None
    if req.qps and goals is not None:
        target = LatencyTarget(req.qps, goals.percentile, goals.e2e_seconds, goals.ttft_seconds, goals.tpot_seconds)
    hw = hardware(gpu, option.tp)
    return estimate(
        job,
        hw,
        cat,
        target=target,
        search_largest=False,
        calibration=cal,
        confidence=req.confidence,
        useful_replicas=useful,
    )


def _build(
    est: Estimate, option: Option, req: Requirements, params: CostParams, replicas: int, basis: str, confirmed: bool
) -> Candidate:
    """The candidate for `option` on `est`'s hardware with `replicas`, its requirements checked."""
    hw = est.hardware
    inf, sim = est.inference, est.serving
    serving = Serving(
        tp=option.tp,
        batch=option.batch,
        max_batch=option.batch if sim is None else sim.max_batch,
        capacity_rps_per_replica=option.peak if sim is None else sim.capacity_rps,
        latency_seconds=(inf.latency_seconds if inf else math.inf) if sim is None else sim.value("e2e"),
        replicas=replicas if sim is None else sim.replicas,
        basis=basis,
        simulated=sim,
    )
    usd = usd_per_hour(hw, req.pricing, params)
    fleet = _fleet_price(hw, req, params)(replicas) if replicas > 1 else None
    c = Candidate(
        est,
        usd,
        replicas=replicas,
        serving=serving,
        confirmed=confirmed,
        fleet_usd_per_hour=fleet,
        **priced(hw, req, params, replicas),
    )
    return replace(c, meets=_meets_serving(c, req))


def serving_candidates(
    work: InferenceJob, gpu: GPU, req: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None = None
) -> tuple[list[Found], Reason | None]:
    """The cheapest (tp, batch) option on this GPU type by its analytic replica count; with a
    latency target it is marked unconfirmed until `confirm_cheapest` simulates it (its `pending`
    search says how)."""
    work = on_gpu(work, gpu)
    options, reason = _options(work, gpu, req, cat, params, cal)
    if not options:
        return [], reason
    best = min(options, key=lambda o: (_or_inf(o.fleet_usd(_analytic(o, req))), o.tp, -o.batch))
    replicas = _analytic(best, req)
    est = _estimate(work, gpu, best, replace(req, qps=None, latency_seconds=None), cat, cal)
    basis = f"analytic: capacity at batch {best.batch} (the simulation confirms the cheapest)"
    c = _build(est, best, req, params, replicas, basis, confirmed=not req.has_latency)
    pending = Pending(work, gpu, tuple(options), params) if req.has_latency else None
    return [Found(c, pending)], None


def _meets_serving(c: Candidate, req: Requirements) -> Meets:
    """Memory, each latency target (the analytic floor before simulation), the load, and the
    checks every candidate gets; each latency at its band's high end and the load at the
    throughput band's low end (the plan's confidence)."""
    meets = Meets().put("memory", memory_meet(c))
    goals = req.goals
    sim = c.est.serving
    m = _margins(c, req)
    if goals is not None and c.serving is not None:
        for metric, limit in (("ttft", goals.ttft_seconds), ("tpot", goals.tpot_seconds), ("e2e", goals.e2e_seconds)):
            if limit is None:
                continue
            key = _latency_key(req) if metric == "e2e" else f"p{goals.percentile:g}_{metric}"
            if sim is None:  # not simulated yet: the idle replica meets it, replicas are a floor
                value = _steady(c, metric)
                floor = Reason.of(Code.ANALYTIC_FLOOR)
                meets = meets.put(key, Meet(True, value, limit, None, floor, value * m.of(metric), None, m.level))
                continue
            factor, level = m.of(metric), m.level
            meets = meets.put(key, at_most(sim.value(metric), limit, factor=factor, level=level))
    if req.qps is not None and c.serving is not None:
        cap = c.serving.capacity_rps_per_replica * c.replicas
        meets = meets.put("qps", at_least(cap, req.qps, m.rate, m.level))
    return shared_limits(meets, c, req, c.cost)


def _margins(c: Candidate, req: Requirements) -> Margins:
    """The candidate's margins: its simulation's, else its estimate's bands."""
    sim = c.est.serving
    if sim is not None and sim.margins is not None:
        return sim.margins
    inf = c.est.inference
    if inf is None:
        return Margins(req.confidence)
    w, gpu = c.est.workload, c.est.hardware.gpu
    return serving_margins(
        w, gpu, c.est.band_table, req.confidence, inf.time_to_first_token_seconds, inf.latency_seconds, c.est.measured
    )


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
    return _or_inf(c.hourly)


def _or_inf(usd: float | None) -> float:
    return math.inf if usd is None else usd


def _search_order(options: list[Option]) -> list[Option]:
    """Each TP degree's best-capacity option first (a faster replica can meet a TTFT target at a
    load a slower one cannot, whatever its floor), then every other option by floor cost."""
    by_floor = sorted(options, key=lambda o: (o.floor_cost, o.tp, -o.batch))
    heads: dict[int, Option] = {}
    for o in by_floor:
        heads.setdefault(o.tp, o)
    first = list(heads.values())
    return first + [o for o in by_floor if o not in first]


def _confirm(
    found: Found, req: Requirements, cat: Catalog, cal: Calibration | None = None, cap: float = math.inf
) -> tuple[Candidate, bool, bool]:
    """Branch and bound over this GPU type's options, each simulated through the same estimate
    `gpuwise estimate` runs: every TP degree's best option, then the others while their floor
    costs less than the best found (an option's floor cost bounds every count it can need, and each
    option's search is complete: the fewest replicas that meet); the cheapest that meets every
    target replaces the analytic candidate, the first in `_search_order` among equal costs. The TP
    degrees' options are tried likeliest cheapest first (a tighter bound for the others), which
    changes how many counts are simulated, not the answer. `cap`: a fleet an hour that the caller
    has no use for a candidate above (see confirm_cheapest). Returns (the candidate, whether it was
    replaced, whether nothing up to the cap meets while more might: the candidate is then unchanged)."""
    c, pending = found.c, found.pending
    if pending is None or not (req.qps and req.has_latency):
        return c, False, False
    best, best_rank = None, -1
    order = _search_order(list(pending.options))
    heads = len({o.tp for o in pending.options})
    rank = {(o.tp, o.batch): i for i, o in enumerate(order)}
    visit = sorted(order[:heads], key=lambda o: (o.likely_cost, rank[o.tp, o.batch])) + order[heads:]
    simulated: dict[tuple[int, int], Estimate] = {}
    basis = f"simulated: {simulated_requests(pending.work)} requests per configuration, Poisson arrivals"
    cut = False  # whether the cap kept a count from being searched
    for i, option in enumerate(visit):
        fleet, ties = cap, True  # before a best: no row costing more than the cap is shown
        if best is not None:
            fleet, ties = _fleet_per_hour(best), rank[option.tp, option.batch] < best_rank
        if option.floor_cost > fleet if ties else option.floor_cost >= fleet:
            # a layout no offer prices (floor cost inf) is beyond every cap: raising it never reaches one
            cut = cut or (best is None and math.isfinite(option.floor_cost))
            if i < heads:
                continue  # another TP degree's first option may still be cheaper
            break
        useful = _cheaper_than(fleet, option, ties)
        # counts above `useful` that an offer still prices: a larger cap would search them
        priced = useful is not None and option.fleet_usd(useful + 1) is not None
        cut = cut or (best is None and useful is not None and useful < MAX_REPLICAS and priced)
        est = simulated[(option.tp, option.batch)] = _estimate(pending.work, pending.gpu, option, req, cat, cal, useful)
        sp = est.serving
        if sp is None or not sp.meets:
            continue
        cand = _build(est, option, req, pending.params, sp.replicas, basis, confirmed=True)
        if best is None or _fleet_per_hour(cand) < fleet or (ties and _fleet_per_hour(cand) == fleet):
            best, best_rank = cand, rank[option.tp, option.batch]
    if best is None and cut:
        return c, False, True  # none costs at most the cap: still a floor (confirm_cheapest raises it)
    if best is None:
        return _missed(c, pending, simulated, req, cat, cal, basis), False, False
    return best, True, False


def _cheaper_than(fleet_per_hour: float, option: Option, ties: bool = False) -> int | None:
    """The most replicas of `option` whose fleet costs less an hour than `fleet_per_hour` (more cannot
    replace the best found: the search keeps the first of equal costs), or as much with `ties` (an
    option before the best in the search's order keeps an equal cost); None when unbounded. A
    fleet's price never falls as replicas are added, so doubling then bisecting finds the count,
    each step the comparison the search makes (no division to round)."""
    one = option.fleet_usd(1)
    if one is None or one <= 0 or not math.isfinite(fleet_per_hour):
        return None

    def fits(n: int) -> bool:
        usd = option.fleet_usd(n)
        return usd is not None and (usd <= fleet_per_hour if ties else usd < fleet_per_hour)

    if not fits(1):
        return 0
    low, high = 1, 2  # fits(low), and the first count known not to fit is above it
    while fits(high):
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


def _missed(
    c: Candidate,
    pending: Pending,
    simulated: Mapping[tuple[int, int], Estimate],
    req: Requirements,
    cat: Catalog,
    cal: Calibration | None,
    basis: str,
) -> Candidate:
    """No option meets the targets in simulation: the candidate's own option as simulated (what its
    command gives), missing them; when no replica count can meet them, the analytic row, missing."""
    why = (*c.why, Reason.of(Code.NONE_SIMULATED, tried=len(simulated)))
    s = c.serving
    assert s is not None
    option = next(o for o in pending.options if (o.tp, o.batch) == (s.tp, s.batch))
    est = simulated.get((s.tp, s.batch)) or _estimate(pending.work, pending.gpu, option, req, cat, cal)
    sp = est.serving
    if sp is not None and sp.replicas > 0:
        return replace(_build(est, option, req, pending.params, sp.replicas, basis, confirmed=True), why=why)
    meets = c.meets
    for key, m in c.meets.items():
        if key.startswith("p"):
            meets = meets.put(key, replace(m, ok=False))
    return replace(c, confirmed=True, meets=meets, why=why)


def _disaggregated_note(
    c: Candidate, req: Requirements, cat: Catalog, cals: Mapping[str, Calibration]
) -> Reason | None:
    """The chosen layout with prefill and decode on separate pools, for comparison: its GPUs and
    TPOT beside the colocated plan's (the plan keeps colocated serving, which deploy writes), each
    pool sized to meet the targets at the confidence the colocated plan meets them."""
    job, goals = c.est.workload, req.goals
    if not (isinstance(job, InferenceJob) and isinstance(job.model, TransformerArch) and job.model.decoder):
        return None
    if goals is None or not req.qps or c.est.serving is None:
        return None
    hw = c.est.hardware
    rates = compute_rates(hw.gpu, compute_dtype(job, hw.gpu.peak_flops, cat), cat, cals.get(hw.gpu.id))
    from gpuwise.estimate.disagg import plan_disaggregated  # only a latency target compares it

    m = c.est.serving.margins  # the pools are held to the targets at the bands' pessimistic end, as the colocated plan
    held = goals if m is None else goals.tightened(m.ttft, m.tpot, m.e2e)
    d = plan_disaggregated(job, hw, rates, topology(hw, cat), cat, qps=req.qps, goals=held)
    if not d.meets:
        return Reason.of(Code.NOTE_DISAGG_NONE, count=hw.count, gpu=hw.gpu.id)
    key = f"p{goals.percentile:g}"
    return Reason.of(
        Code.NOTE_DISAGG,
        count=hw.count,
        gpu=hw.gpu.id,
        prefill=d.prefill_replicas,
        decode=d.decode_replicas,
        gpus=d.gpus,
        verdict="fewer" if d.gpus < c.gpus else ("as_many" if d.gpus == c.gpus else "more"),
        colocated=c.gpus,
        percentile=goals.percentile,
        ttft_seconds=d.percentiles["ttft"][key],
        kv_seconds=d.kv_transfer_seconds,
        tpot_seconds=d.percentiles["tpot"][key],
        colocated_tpot_seconds=c.est.serving.value("tpot"),
    )


def grown_serving(
    c: Candidate, grown: InferenceJob, greq: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None
) -> tuple[list[Candidate], Reason | None]:
    """The serving candidate for the grown load on this GPU type: a simulated candidate is checked
    on its own layout by the same simulation (an analytic floor would flatter it), an analytic one
    by the analytic search."""
    s = c.serving
    if c.confirmed and s is not None and greq.qps and greq.has_latency:
        option = Option(s.tp, s.batch, s.capacity_rps_per_replica, 1, c.usd_per_hour)
        gpu = c.est.hardware.gpu
        est = _estimate(on_gpu(grown, gpu), gpu, option, greq, cat, cal)
        if est.serving is not None and est.serving.meets:
            basis = "simulated: the grown load on today's layout"
            return [_build(est, option, greq, params, est.serving.replicas, basis, confirmed=True)], None
    found, reason = serving_candidates(grown, c.est.hardware.gpu, greq, cat, params, cal)
    return [f.c for f in found], reason


def confirm_cheapest(
    found: list[Found],
    req: Requirements,
    cat: Catalog,
    cals: Mapping[str, Calibration],
    rank_key: Callable[[Candidate], Any],
    regrow: Callable[[Candidate], Candidate] | None = None,
    show: int = CONFIRM_TOP,
    tie: float = 0.0,
) -> list[Reason]:
    """Simulate the serving candidates that would be among the first `show` rows (and at least the
    best) while they meet a latency target on their analytic floor, until every one of those rows
    is a simulated one (`found` is updated in place): a row shown is confirmed by the same model as
    the chosen one. `regrow` re-checks growth for a candidate the simulation replaced. What stays
    unconfirmed is settled as a floor that meets nothing (`settle_floors`). Returns the notes."""
    if not req.has_latency:
        return []
    confirmed = 0
    rows = max(show, CONFIRM_TOP)
    while confirmed < len(found):  # until the first rows that meet every target are simulated ones
        found.sort(key=lambda f: rank_key(f.ranked()))
        i = next((i for i, f in enumerate(found[:rows]) if f.c.ok and not f.c.confirmed), None)
        if i is None:
            break
        f, cap = found[i], _shown_cap(found, req, rows, tie)
        hourly = f.ranked().hourly
        trial = min(cap, DEEPEN * hourly) if _by_hourly(req) and hourly and math.isfinite(hourly) else cap
        new, replaced, cut = _confirm(f, req, cat, cals.get(f.c.est.hardware.gpu.id), trial)
        if cut:  # no layout costing at most `trial` meets: it ranks at that cost from now on
            if trial < cap:
                f.least = trial
            else:
                f.c = settle_floor(f.c)  # it cannot be among the rows shown: a floor, not confirmed
            continue
        if regrow is not None and replaced:
            new = regrow(new)
        found[i] = Found(new)
        confirmed += 1
    for f in found:
        f.c = settle_floor(f.c)
    best = next((c for c in sorted((f.c for f in found), key=rank_key) if c.ok and c.confirmed and c.serving), None)
    disagg = _disaggregated_note(best, req, cat, cals) if best is not None else None
    return [*([disagg] if disagg else []), Reason.of(Code.NOTE_SIMULATED, n=confirmed)]


def _by_hourly(req: Requirements) -> bool:
    """Whether serving candidates rank by their fleet's hourly price as the search knows it (the
    cost objective, renting, no spares added after the search)."""
    return req.objective == "cost" and req.pricing != "owned" and not req.redundancy


def _shown_cap(found: list[Found], req: Requirements, rows: int, tie: float) -> float:
    """The fleet an hour above which a serving candidate cannot be among the first `rows`: the
    `rows`-th cheapest of the confirmed candidates that meet everything (growth included, GPUs
    doing the work), with the rank's tie tolerance (a cost more than `tie` above it ranks after it
    whatever else it has). inf while fewer are confirmed, or where the rank is not the fleet's
    hourly price alone (another objective, owned pricing, spares added after the search)."""
    if not _by_hourly(req):
        return math.inf
    costs = sorted(
        f.c.hourly
        for f in found
        if f.c.ok and f.c.confirmed and f.c.growth_ok and not f.c.hosts_for_data and f.c.hourly is not None
    )
    return costs[rows - 1] * (1 + tie) * (1 + CAP_ROUNDING) if len(costs) >= rows else math.inf


def settle_floor(c: Candidate) -> Candidate:
    """A candidate left on its analytic floor meets no latency target: it is a floor, not confirmed."""
    if c.confirmed:
        return c
    meets = c.meets
    for key, m in c.meets.items():
        if m.why is not None and m.why.code == Code.ANALYTIC_FLOOR:
            meets = meets.put(key, replace(m, ok=False))
    return replace(c, meets=meets)
