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
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpuwise.catalog import GPU, Catalog
from gpuwise.catalog.arch import is_language_model, is_token_encoder, with_masked_lm_head
from gpuwise.errors import GpuwiseError, UsageError
from gpuwise.estimate import estimate
from gpuwise.estimate.bands import band_for, class_key
from gpuwise.estimate.cost import CostParams, rented_hardware, usd_per_hour, why_no_price
from gpuwise.estimate.offers import price_model_of
from gpuwise.estimate.platform import nvfp4_refusal, nvfp4_servers, platform_refusal
from gpuwise.estimate.rates import Calibration, compute_rates
from gpuwise.estimate.run import Estimate, static_batched
from gpuwise.estimate.sharing import shared_runs
from gpuwise.plan.availability import add_redundancy
from gpuwise.plan.explain import explain, headline
from gpuwise.plan.layouts import CostBound, best_layout, cost_bound, hardware
from gpuwise.plan.limits import at_most, band_high, memory_meet, priced, shared_limits
from gpuwise.plan.pipeline_search import best_pipeline
from gpuwise.plan.pricing import completed
from gpuwise.plan.results import Candidate, Code, GpuOnly, Growth, Meets, PlanResult, Reason, Rejection
from gpuwise.plan.serving_search import Found, confirm_cheapest, grown_serving, serving_candidates
from gpuwise.workload import Hardware, InferenceJob, TrainingJob, Workload
from gpuwise.workload.precision import NoBf16Error, on_gpu
from gpuwise.workload.requirements import Requirements

__all__ = ["MAX_COUNT", "plan"]

MAX_COUNT = 4096  # search bound on GPUs per configuration
# explore twice the GPUs only while that cuts the cost by more than this share of the best so far: a
# smaller saving does not justify a configuration twice the size (a stop rule of the search)
DOUBLING_MIN_SAVING = 0.05
COST_TIE_TOLERANCE = 1e-4  # within this share of the cheapest cost is as cheap (rounding): no cost ratio named


# ------------------------------------------------------------------------------------------
def _counts(gpu: GPU, limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        if n <= gpu.node_gpus or n % gpu.node_gpus == 0:
            out.append(n)
        n *= 2
    return out


def _meets_training(c: Candidate, req: Requirements) -> Candidate:
    """`c` with memory, the deadline (the run's expected hours) and the shared limits checked."""
    meets = Meets().put("memory", memory_meet(c))
    if req.deadline_seconds is not None:
        total = c.hours * 3600 if c.hours is not None else None
        why = Reason.of(Code.NEEDS_AMOUNT) if total is None else None
        factor = band_high(c, "training.total_seconds")  # the run's time at its band's high end
        level = c.est.confidence
        meets = meets.put("deadline", at_most(total, req.deadline_seconds, why, factor=factor, level=level))
    return replace(c, meets=shared_limits(meets, c, req, c.cost if c.hours is not None else None))


def _trained(
    est: Estimate, price: float | None, req: Requirements, params: CostParams, cat: Catalog, **kw: Any
) -> Candidate:
    """The training candidate on `est` at `price` per hour: its failures at scale modelled, its
    requirements checked."""
    hw = est.hardware
    c = Candidate(est, price, **priced(hw, req, params), **kw)
    return _meets_training(c, req)


def _training_candidates(
    work: TrainingJob,
    gpu: GPU,
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    grown: Workload | None = None,
    cal: Calibration | None = None,
    bound: CostBound | None = None,
) -> tuple[list[Candidate], Reason | None]:
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
        return [], Reason.of(Code.ABOVE_BEST, bound_usd=beaten[0], best_usd=beaten[1])
    counts = _counts(gpu, limit)
    unpriced = 0
    out: list[Candidate] = []
    smallest_need = math.inf
    met = 0
    best_cost = math.inf
    lasts = grown is None
    worth_doubling = DOUBLING_MIN_SAVING
    slow = _time_high(work, gpu, req, cat)
    for count in counts:
        ideal = bound.ideal_seconds(variant, rates, count)
        if req.deadline_seconds and ideal and ideal * slow > req.deadline_seconds and count < counts[-1]:
            continue  # too few GPUs to meet the deadline at the band's high end even at the roofline
        rented = rented_hardware(gpu, count, req.pricing, params)
        price = None if rented is None else usd_per_hour(rented, req.pricing, params)
        if rented is None or price is None:
            unpriced += 1
            continue  # no offer delivers this many GPUs (one instance, or a cluster): nothing to rank it by
        hw = rented
        if ideal and price and bound.prune_cost and price * ideal / 3600 >= bound.best.get(variant, math.inf):
            continue  # even at the roofline this count costs more than the best plan so far
        choice = best_layout(work, hw, cat, rates, level=req.confidence)
        smallest_need = min(smallest_need, choice.smallest_need)
        job = choice.job
        if job is None:
            continue
        est = estimate(job, hw, cat, search_largest=False, calibration=cal, confidence=req.confidence)
        c = _trained(est, price, req, params, cat)
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
    if not out and unpriced:
        largest = _largest_rented(gpu, req, params)
        return [], Reason.of(Code.NO_PRICED_SIZE, pricing=req.pricing, gpu=gpu.id, limit=limit, largest=largest)
    if not out and not math.isfinite(smallest_need):  # no count got as far as a layout: each was pruned
        return [], Reason.of(Code.COUNTS_PRUNED, limit=limit)
    if not out:
        need = smallest_need
        return [], Reason.of(Code.DOES_NOT_FIT, limit=limit, need_bytes=need, capacity_bytes=gpu.capacity_bytes)
    return out, None


def _time_high(work: TrainingJob, gpu: GPU, req: Requirements, cat: Catalog) -> float:
    """The training time band's high end over the estimate for this stack on this GPU (1 without
    bands): a deadline is met there."""
    if cat.uncertainty is None:
        return 1.0
    return band_for(cat.uncertainty, class_key("training", work, gpu), req.confidence).inverted().high


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
    deadline = req.deadline_seconds
    if deadline is not None:  # met at the training time band's high end
        deadline /= _time_high(work, gpu, req, cat)
    shape = lambda n: rented_hardware(gpu, n, req.pricing, params)  # noqa: E731
    found = best_pipeline(work, gpu, cat, rates, price, deadline, start, shape)
    if found is None:
        return []
    job, hw, design = found
    est = estimate(job, hw, cat, search_largest=False, calibration=cal, confidence=req.confidence)
    return [_trained(est, usd_per_hour(hw, req.pricing, params), req, params, cat, pipeline=design.upgrade(hw.nodes))]


def _beside_gpu_only(chosen: Candidate, candidates: Sequence[Candidate]) -> Candidate:
    """The chosen plan upgrades the data pipeline: name the cheapest answer that buys GPUs instead."""
    assert chosen.pipeline is not None
    gpu_only = [c for c in candidates if c.ok and c.pipeline is None and c.est.training is not None and c.cost]
    alt = min(gpu_only, key=lambda c: c.cost or 0.0, default=None)  # the cheapest, wherever it ranks
    p = replace(chosen.pipeline, gpu_only=None if alt is None else GpuOnly(alt.label, alt.gpus, alt.cost))
    why = Reason.of(
        Code.PIPELINE,
        cores=p.loader_cores_per_node,
        storage=p.storage,
        format=p.format,
        cost_usd=chosen.cost,
        gpu_only_usd=alt.cost if alt else None,
        gpu_only_label=alt.label if alt else None,
    )
    return replace(chosen, pipeline=p, why=(*chosen.why, why))


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
        model = g.model
        if isinstance(work, TrainingJob) and work.masked_positions and is_token_encoder(model):
            model = with_masked_lm_head(model)  # the same objective on the grown encoder
        new = replace(new, model=model)
        if isinstance(new, TrainingJob) and new.packed_doc_tokens and not is_language_model(model):
            new = replace(new, packed_doc_tokens=None)  # documents of tokens pack into a language model only
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
        job = _with_layout(grown, today)
        est = estimate(job, hw, cat, search_largest=False, calibration=cal, confidence=req.confidence)
    except GpuwiseError:
        return False
    band = est.bands().get("training.total_seconds")
    high = 1.0 if band is None else band.high  # the deadline is met at the band's high end
    # the expected run (start-up and failures counted), as the deadline check and the growth check take it
    total = Candidate(est, None).time if est.training is not None and est.training.total_seconds else None
    in_time = req.deadline_seconds is None or (total is not None and total * high <= req.deadline_seconds)
    return est.memory.fits and in_time


def _growth_training(
    c: Candidate,
    grown: TrainingJob,
    today: TrainingJob,
    greq: Requirements,
    cat: Catalog,
    params: CostParams,
    cal: Calibration | None,
) -> Reason | None:
    """Does today's layout meet the grown requirements (None)? If not, the path: scale out on the
    same GPU type, or a larger GPU."""
    try:
        est = estimate(
            _with_layout(grown, today),
            c.est.hardware,
            cat,
            search_largest=False,
            calibration=cal,
            confidence=greq.confidence,
        )
        if _meets_training(Candidate(est, c.usd_per_hour), greq).ok:
            return None
    except GpuwiseError:
        pass
    more, _ = _training_candidates(grown, c.est.hardware.gpu, greq, cat, params, cal=cal)
    ok = [m for m in more if m.ok]
    if ok:
        return Reason.of(Code.GROWTH_SCALE_OUT, label=ok[0].label, gpus=ok[0].gpus)
    return Reason.of(Code.GROWTH_LARGER_GPU)


def _growth_serving(
    c: Candidate, grown: InferenceJob, greq: Requirements, describe: str, found: tuple[list[Candidate], Reason | None]
) -> Growth:
    """The growth check of a serving candidate from the grown load's serving search on its GPU type."""
    gpu = c.est.hardware.gpu.id
    cands, reason = found
    if not cands:
        return Growth(
            False,
            Reason.of(Code.GROWTH_NO_FIT, describe=describe, gpu=gpu, reason=reason),
            Reason.of(Code.GROWTH_CANNOT_SERVE, gpu=gpu, reason=reason),
        )
    g = cands[0]
    count = g.est.hardware.count
    if count == c.est.hardware.count and g.replicas <= c.replicas:
        return Growth(True, Reason.of(Code.GROWTH_FITS_REPLICAS, describe=describe, replicas=c.replicas))
    return Growth(
        False,
        Reason.of(
            Code.GROWTH_NEEDS_REPLICAS, describe=describe, replicas=g.replicas, count=count, gpu=gpu, today=c.replicas
        ),
        Reason.of(Code.GROWTH_PATH_REPLICAS, replicas=g.replicas, count=count, gpu=gpu),
    )


def _check_growth(
    c: Candidate, grown: Workload, req: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None = None
) -> Growth | None:
    """Does today's configuration hold for the workload six months from now? If not, name the path
    (None: nothing to check)."""
    if req.growth is None:
        return None
    greq = replace(req, qps=req.qps * req.growth.users_factor if req.qps else None, growth=None)
    describe = req.growth.describe()
    today = c.est.workload
    if isinstance(grown, TrainingJob) and isinstance(today, TrainingJob):
        path = _growth_training(c, grown, today, greq, cat, params, cal)
        if path is None:
            return Growth(True, Reason.of(Code.GROWTH_HOLDS, describe=describe))
        hw = c.est.hardware
        summary = Reason.of(Code.GROWTH_BREAKS, describe=describe, count=hw.count, gpu=hw.gpu.id, path=path)
        return Growth(False, summary, path)
    if not isinstance(grown, InferenceJob):
        return None  # growth keeps the task: a serving candidate grows into a serving job
    return _growth_serving(c, grown, greq, describe, grown_serving(c, grown, greq, cat, params, cal))


def _rank_key(c: Candidate, req: Requirements, tie: float) -> tuple[Any, ...]:
    """Requirements met first, then plans whose GPUs do the work before those whose extra nodes
    were bought for their hosts' data loaders, then the objective; equal objectives (within `tie`,
    a fraction) go to fewer GPUs, then fewer nodes, then the other objective."""
    primary = c.cost if req.objective == "cost" else c.time
    secondary = c.time if req.objective == "cost" else c.cost
    finite = primary is not None and primary > 0 and math.isfinite(primary)
    level = round(math.log(primary) / math.log1p(tie)) if finite and primary else 0
    nodes = c.est.hardware.nodes * c.replicas
    return (not c.ok, not c.growth_ok, c.hosts_for_data, primary is None, level, c.gpus, nodes, secondary or 0.0)


def _misses(gpu: GPU, found: list[Candidate], req: Requirements, params: CostParams) -> Rejection:
    """Why no candidate on this GPU type meets the requirements, with the fastest one for a deadline;
    when no offer rents any of them (a serving replica's node is larger than any instance the type is
    rented in), the sizes."""
    largest = _largest_rented(gpu, req, params)
    if largest is not None and all(c.usd_per_hour is None for c in found):
        limit = max(c.est.hardware.count for c in found)
        reason = Reason.of(Code.NO_PRICED_SIZE, pricing=req.pricing, gpu=gpu.id, limit=limit, largest=largest)
        return Rejection(gpu.id, reason)
    misses = sorted({k for c in found for k in c.meets.missed()})
    best = min(found, key=lambda c: c.time)
    fastest = None
    if "deadline" in misses and best.est.training and best.est.training.total_seconds:
        t, bottleneck = best.est.training.total_seconds, best.est.bottleneck
        fastest = Reason.of(Code.FASTEST_SEEN, seconds=t, label=best.label, bottleneck=bottleneck)
    return Rejection(gpu.id, Reason.of(Code.MISSES, missed=tuple(misses), fastest=fastest))


def _variant_found(
    work: Workload,
    gpu: GPU,
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    cal: Calibration | None,
    bound: CostBound | None,
) -> tuple[list[Found], Reason | None]:
    """One workload variant on one GPU type: its candidates, or why it has none."""
    try:
        work = on_gpu(work, gpu)
    except NoBf16Error as exc:  # bf16 named for a GPU without it: the precision rule's refusal
        return [], Reason.of(Code.NO_TENSOR_CORES, precision=getattr(work, exc.field))
    refusal = platform_refusal(work, gpu, cat)
    if refusal is not None:  # an NVIDIA-only runtime on an AMD GPU: never timed there
        return [], Reason.of(
            Code.NOT_ON_VENDOR, engine=refusal.engine, vendors=refusal.vendors, gpu=gpu.id, runs=refusal.runs
        )
    if nvfp4_refusal(work, gpu, cat) is not None:  # NVFP4 weights no kernel of the engine serves there: never timed
        return [], Reason.of(Code.NO_NVFP4, engine=getattr(work, "engine", ""), **nvfp4_servers(cat))
    try:
        if isinstance(work, TrainingJob):
            if work.precision != "fp32" and work.precision not in gpu.peak_flops:
                return [], Reason.of(Code.NO_TENSOR_CORES, precision=work.precision)
            grown = _growth_workload(work, req)
            cands, reason = _training_candidates(work, gpu, req, cat, params, grown, cal, bound)
            cands += _pipeline_candidate(work, gpu, req, cat, params, cal)
            return [Found(c) for c in cands], reason
        return serving_candidates(work, gpu, req, cat, params, cal)
    except GpuwiseError as exc:
        return [], Reason.of(Code.ERROR, message=str(exc))


def _gpu_candidates(
    gpu: GPU,
    workloads: list[Workload],
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    cal: Calibration | None,
    bound: CostBound | None = None,
) -> tuple[list[Found], list[Rejection]]:
    """Every workload variant on one GPU type, and what rules the type out when nothing meets (per
    method when the plan compares methods and the reason is that method's)."""
    if not gpu.peak_flops:
        return [], [Rejection(gpu.id, Reason.of(Code.NO_COMPUTE_FIGURES))]
    one = hardware(gpu, 1)
    if usd_per_hour(one, req.pricing, params) is None:
        return [], [Rejection(gpu.id, _no_price(one, req, params))]
    found: list[Found] = []
    reasons: list[Rejection] = []
    for work in workloads:
        cands, reason = _variant_found(work, gpu, req, cat, params, cal, bound)
        found += cands
        if reason is not None:
            several = len(workloads) > 1 and reason.code != Code.NO_TENSOR_CORES  # that one is the type's
            method = work.method if several and isinstance(work, TrainingJob) else None
            reasons.append(Rejection(gpu.id, reason, method))
    if not found:
        return [], list(dict.fromkeys(reasons)) or [Rejection(gpu.id, Reason.of(Code.NO_LAYOUT))]
    return found, ([] if any(f.c.ok for f in found) else [_misses(gpu, [f.c for f in found], req, params)])


def _no_price(one: Hardware, req: Requirements, params: CostParams) -> Reason:
    """Why one GPU of the type has no price: only indicative or undated offers, or the offers' words."""
    gpu = one.gpu.id
    n = (
        0
        if req.pricing == "owned" or params.market is None
        else params.market.set_aside(gpu, price_model_of(req.pricing))
    )
    if n:
        return Reason.of(Code.INDICATIVE_ONLY, gpu=gpu, pricing=req.pricing, offers=n)
    return Reason.of(Code.NO_PRICE, gpu=gpu, pricing=req.pricing, detail=why_no_price(one, req.pricing, params))


def _largest_rented(gpu: GPU, req: Requirements, params: CostParams) -> int | None:
    """The most GPUs of the type one offer delivers (None: owned, or no market)."""
    if req.pricing == "owned" or params.market is None:
        return None
    return params.market.largest(gpu.id, price_model_of(req.pricing))


def _cheapest_gpu_hour(gpu: GPU, req: Requirements, params: CostParams) -> float | None:
    """The lowest price per GPU-hour of one GPU or a whole node (offers rent whole instances)."""
    shapes = [hw for n in {1, gpu.node_gpus} if (hw := rented_hardware(gpu, n, req.pricing, params)) is not None]
    prices = [p / hw.count for hw in shapes if (p := usd_per_hour(hw, req.pricing, params)) is not None]
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


def _explained(candidates: list[Candidate], req: Requirements, tie: float, cat: Catalog) -> list[Candidate]:
    """The ranked candidates with their reasons: the chosen plan's (and its GPU-only alternative
    when it upgrades the data pipeline), each runner-up's against it."""
    chosen = candidates[0] if candidates and candidates[0].ok else None
    if chosen is not None and chosen.pipeline is not None:
        chosen = candidates[0] = _beside_gpu_only(chosen, candidates)
    out = [replace(c, why=explain(c, chosen, tie, cat)) for c in candidates]
    if chosen is not None:
        out[0] = replace(out[0], why=(headline(req.objective), *out[0].why))
    return out


def plan(
    workloads: list[Workload],
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    calibrations: Mapping[str, Calibration] | None = None,
    options: Sequence[Mapping[str, Any]] = (),
    targets: Mapping[str, Any] | None = None,
    show: int = 5,
) -> PlanResult:
    """Every method variant in `workloads` (e.g. full, LoRA, QLoRA of one job) on every GPU type;
    `calibrations` (GPU id -> measured rates) replace the cited efficiencies where they exist.
    `options[i]` (the options the user gave for `workloads[i]`) and `targets` (the serving-target
    options) make each candidate's `command`; the first `show` rows are confirmed by simulation
    where a serving target needs it (the rest stay floors that meet nothing). The result is
    complete: prices, offers, commands, reasons. Identical simulations are run once within it."""
    with shared_runs():
        return _plan(workloads, req, cat, params, calibrations, options, targets, show)


def _refuse_generate_loops(workloads: list[Workload], cat: Catalog) -> None:
    """A plan sizes a serving fleet under continuous batching; a generate loop (static batches, one
    call at a time) is no server to size: `estimate` answers for it."""
    for w in workloads:
        if not isinstance(w, InferenceJob):
            continue
        if w.requests:
            raise UsageError(
                "--requests times one finite benchmark run: plan sizes serving fleets for --qps; use gpuwise "
                "estimate for the run's figures"
            )
        kind = static_batched(w, cat)
        if kind == "static batch":
            raise UsageError(
                "--batching static times one static batch: plan sizes serving fleets under continuous batching; "
                "use gpuwise estimate for the batch's figures"
            )
        if kind == "generate loop":
            raise UsageError(
                f"--engine {w.engine} is a generate loop (static batches, no server): plan sizes serving fleets "
                "under continuous batching; use gpuwise estimate for it, or a serving engine (vllm, sglang, trtllm)"
            )


def _plan(
    workloads: list[Workload],
    req: Requirements,
    cat: Catalog,
    params: CostParams,
    calibrations: Mapping[str, Calibration] | None,
    options: Sequence[Mapping[str, Any]],
    targets: Mapping[str, Any] | None,
    show: int,
) -> PlanResult:
    _refuse_generate_loops(workloads, cat)
    cals = dict(calibrations or {})
    # a multi-die board (mi250x) is searched as the devices software sees (mi250x-gcd), once
    named = [cat.device(g)[0] for g in req.gpus] if req.gpus else [g for g in cat.gpus.values() if g.devices is None]
    gpus = list({g.id: g for g in named}.values())
    found: list[Found] = []
    rejected: list[Rejection] = []
    bound = cost_bound(cat, prune_cost=req.objective == "cost" and req.pricing != "owned" and req.growth is None)
    for gpu in sorted(gpus, key=lambda g: _price_per_flop(g, workloads[0], req, cat, params)):
        more, rejections = _gpu_candidates(gpu, workloads, req, cat, params, cals.get(gpu.id), bound)
        found += more
        rejected += rejections
    tie = COST_TIE_TOLERANCE
    grown = [_growth_workload(w, req) for w in workloads]

    def regrow(c: Candidate) -> Candidate:
        g = _variant(c, workloads, grown) if c.ok else None
        growth = None if g is None else _check_growth(c, g, req, cat, params, cals.get(c.est.hardware.gpu.id))
        return c if growth is None else replace(c, growth=growth)

    for f in found if req.growth is not None else []:
        f.c = regrow(f.c)
    # serving: simulated until the best is a simulated candidate (growth re-checked on each)
    notes = confirm_cheapest(
        found, req, cat, cals, lambda c: _rank_key(c, req, tie), regrow if req.growth is not None else None, show, tie
    )
    candidates = [_with_spares(f.c, req) for f in found]
    candidates.sort(key=lambda c: _rank_key(c, req, tie))
    candidates = _explained(candidates, req, tie, cat)
    if cals:
        notes.append(Reason.of(Code.NOTE_MEASURED, gpus=tuple(sorted(cals))))
    candidates, price_notes = completed(candidates, workloads, req, params, options, targets)
    return PlanResult(workloads[0], req, tuple(candidates), tuple(rejected), (*notes, *price_notes))


def _with_spares(c: Candidate, req: Requirements) -> Candidate:
    """N+1 (--redundancy N): spares beyond the (simulated) replicas of a serving candidate, its
    limits checked again at the larger size."""
    if not req.redundancy or c.serving is None:
        return c
    c = add_redundancy(c, req.redundancy)
    return replace(c, meets=shared_limits(c.meets, c, req, c.cost))
