"""The serving search: tensor-parallel degree x batch x replicas for one GPU type.

Each replica layout is sized analytically for the QPS first; the cheapest few are then confirmed
by simulating the engine under Poisson arrivals (estimate.serving). Kept apart from the training
search in plan.search, which builds the candidates and ranks them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpuwise.catalog import GPU, Catalog, GenericArch, TransformerArch
from gpuwise.estimate import estimate, memory
from gpuwise.estimate.comm import topology
from gpuwise.estimate.cost import CostParams, usd_per_hour
from gpuwise.estimate.memory import largest_fitting
from gpuwise.estimate.rates import Calibration, compute_rates
from gpuwise.estimate.serving import batch_seconds_fn, compute_dtype, plan_replicas
from gpuwise.units import fmt_seconds
from gpuwise.workload import Hardware, InferenceJob, Parallelism
from gpuwise.workload.requirements import Requirements

if TYPE_CHECKING:
    from gpuwise.plan.search import Candidate

__all__ = ["confirm_cheapest", "serving_candidates"]

CONFIRM_TOP = 3  # serving candidates confirmed by simulation
TP_DEGREES = (1, 2, 4, 8)  # tensor parallelism stays inside a node
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)  # serving batch sizes tried


def _hardware(gpu: GPU, count: int) -> Hardware:
    return Hardware(gpu=gpu, count=count, gpus_per_node=min(count, gpu.node_gpus))


def _candidate(est: Any, usd: float | None, **kw: Any) -> Candidate:
    """A plan candidate (imported here: plan.search imports this module)."""
    from gpuwise.plan.search import Candidate

    return Candidate(est, usd, **kw)


def _shared_limits(c: Candidate, req: Requirements, cost: float | None) -> None:
    from gpuwise.plan.search import _shared_limits as shared

    shared(c, req, cost)


def _owned(hw: Hardware, req: Requirements, params: CostParams) -> float | None:
    from gpuwise.plan.search import _owned as owned

    return owned(hw, req, params)


def _serving_layouts(model: TransformerArch | GenericArch, gpu: GPU) -> list[int]:
    """Tensor-parallel degrees of one replica that divide the heads, inside one node."""
    if not isinstance(model, TransformerArch):
        return [1]
    return [
        tp
        for tp in TP_DEGREES
        if tp <= gpu.node_gpus and not (model.heads % tp or (model.kv_heads % tp and tp % model.kv_heads))
    ]


def _serving_batch(
    work: InferenceJob, req: Requirements, latency: Callable[[int], float], cap: int, share: float
) -> int | None:
    """The user's concurrency when no target; else the batch with the most requests/s whose latency
    stays within `share` of the target, leaving the rest for queueing (None: not even one request)."""
    batches = [b for b in BATCHES if b <= cap]
    if not batches:
        return None
    if req.latency_seconds is None:
        return max(b for b in batches if b <= max(work.concurrency, 1)) if work.concurrency <= cap else max(batches)
    usable = [b for b in batches if latency(b) <= req.latency_seconds * share]
    return max(usable, key=lambda b: b / latency(b)) if usable else None


def serving_candidates(
    work: InferenceJob, gpu: GPU, req: Requirements, cat: Catalog, params: CostParams, cal: Calibration | None = None
) -> tuple[list[Candidate], str | None]:
    """The lightest tensor-parallel replica that fits and leaves room for queueing, sized
    analytically for the QPS (the cheapest few are confirmed by simulation later)."""
    last_reason = "memory: the weights do not fit"
    share = cat.convention("serving_batch_latency_share")
    for tp in _serving_layouts(work.model, gpu):
        job = replace(work, parallel=Parallelism(tp=tp), concurrency=1)
        hw = _hardware(gpu, tp)
        if not memory(job, hw, cat).fits:
            continue
        cap = largest_fitting(job, hw, cat, "concurrency", limit=max(BATCHES))
        rates = compute_rates(gpu, compute_dtype(job, gpu.peak_flops), cat, cal)
        latency = batch_seconds_fn(job, rates, topology(hw, cat), cat)
        batch = _serving_batch(work, req, latency, cap, share)
        if batch is None:
            if cap >= 1 and req.latency_seconds is not None:
                last_reason = (
                    f"latency: one request alone takes {fmt_seconds(latency(1))} on {tp}x {gpu.id}, "
                    f"more than {share:.0%} of the {_percentile_name(req)} target of "
                    f"{fmt_seconds(req.latency_seconds)} (no room left for queueing)"
                )
            continue
        est = estimate(replace(job, concurrency=batch), hw, cat, search_largest=False, calibration=cal)
        capacity = batch / latency(batch)
        replicas = max(1, math.ceil(req.qps / capacity)) if req.qps else 1
        c = _candidate(
            est,
            usd_per_hour(hw, req.pricing, params),
            replicas=replicas,
            confirmed=not req.has_latency,
            owned_usd=_owned(hw, req, params),
        )
        c.serving = {
            "max_batch": batch,
            "capacity_rps_per_replica": capacity,
            "latency_seconds": latency(batch),
            "replicas": replicas,
            "basis": f"analytic: capacity at the largest batch within {share:.0%} of the target"
            if req.latency_seconds is not None
            else "analytic: capacity at the requested concurrency",
        }
        _meets_serving(c, req)
        return [c], None
    return [], last_reason


def _meets_serving(c: Candidate, req: Requirements) -> None:
    c.meets["memory"] = {"ok": c.est.memory.fits, "margin": c.est.memory.headroom}
    limit = req.latency_seconds
    if limit is not None and c.serving is not None:
        value = c.serving.get(f"{_percentile_name(req).lower()}_seconds", c.serving["latency_seconds"])
        c.meets[_latency_key(req)] = {"ok": value <= limit, "value": value, "limit": limit, "margin": limit - value}
    if req.qps is not None and c.serving is not None:
        cap = c.serving["capacity_rps_per_replica"] * c.replicas
        c.meets["qps"] = {"ok": cap >= req.qps, "value": cap, "limit": req.qps, "margin": cap - req.qps}
    _shared_limits(c, req, c.cost)


def _percentile_name(req: Requirements) -> str:
    """'P99' for a percentile target; 'batch' when the requirements name no percentile, so the
    analytic batch latency is what is compared."""
    return f"P{req.percentile:g}" if req.percentile is not None else "batch"


def _latency_key(req: Requirements) -> str:
    return f"{_percentile_name(req).lower()}_latency"


def _confirm(c: Candidate, req: Requirements, cat: Catalog, cal: Calibration | None = None) -> None:
    """Replace the analytic replica count by the simulated one for a latency target."""
    job = c.est.workload
    if not (req.qps and req.latency_seconds and req.percentile and c.serving and isinstance(job, InferenceJob)):
        return  # nothing to simulate: no rate, no target, or not a serving candidate
    hw = c.est.hardware
    rates = compute_rates(hw.gpu, compute_dtype(job, hw.gpu.peak_flops), cat, cal)
    sp = plan_replicas(
        job,
        rates,
        topology(hw, cat),
        cat,
        qps=req.qps,
        pct=req.percentile,
        target=req.latency_seconds,
        max_batch=c.serving["max_batch"],
        gpus_per_replica=hw.count,
    )
    c.confirmed = True
    c.replicas = max(sp.replicas, 1)
    c.serving.update(sp.as_dict())
    c.serving["basis"] = "simulated: continuous/dynamic batching under Poisson arrivals"
    c.meets.clear()
    _meets_serving(c, req)
    c.meets[_latency_key(req)]["ok"] = sp.meets


def confirm_cheapest(
    candidates: list[Candidate],
    req: Requirements,
    cat: Catalog,
    cals: Mapping[str, Calibration],
    rank_key: Callable[[Candidate], Any],
) -> list[str]:
    """Simulate the cheapest serving candidates that meet a latency target; returns the note."""
    if not req.has_latency:
        return []
    candidates.sort(key=rank_key)
    for c in [c for c in candidates if c.ok][:CONFIRM_TOP]:
        _confirm(c, req, cat, cals.get(c.est.hardware.gpu.id))
    return [
        f"replica counts of the {CONFIRM_TOP} cheapest serving candidates confirmed by simulation; "
        "the others are analytic"
    ]
