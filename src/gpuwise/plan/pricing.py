"""What a plan's candidates carry once the search has ranked them: the offer behind each price, the
`gpuwise estimate ...` line that reproduces each, and the notes about prices (the ranking could
flip within the spread of current offers; offers older than a year)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpuwise.estimate.cost import CostParams, owned_cost, rent_quote
from gpuwise.estimate.offers import STALE_MONTHS, Quote
from gpuwise.plan.command import estimate_command
from gpuwise.plan.limits import packs
from gpuwise.plan.results import Candidate, Code, Reason
from gpuwise.workload import Workload
from gpuwise.workload.requirements import Requirements

__all__ = ["completed", "variant_of"]


def variant_of(c: Candidate, workloads: Sequence[Workload]) -> int:
    """The index of the workload variant (task and method) a candidate was planned for (0 when none
    matches)."""
    w = c.est.workload
    return next(
        (
            i
            for i, v in enumerate(workloads)
            if type(v) is type(w) and getattr(v, "method", None) == getattr(w, "method", None)
        ),
        0,
    )


def _flip(ranked: Sequence[tuple[Candidate, Quote | None]]) -> Reason | None:
    """When the best candidate, priced at the dearest of its current offers, costs more than the
    best candidate of another GPU type at its cheapest: the ranking depends on which offer you get."""
    if not ranked:
        return None
    first, q1 = ranked[0]
    if q1 is None or first.cost is None:
        return None
    gpu = first.est.hardware.gpu.id
    other = next((c for c, _ in ranked[1:] if c.est.hardware.gpu.id != gpu), None)
    if other is None or other.cost is None:
        return None
    paid = q1.usd_per_hour / q1.gpus_paid
    if first.cost * q1.high_usd_per_gpu_hour / paid <= other.cost:
        return None
    return Reason.of(
        Code.RANKING_MAY_FLIP,
        first=first.label,
        low=q1.low_usd_per_gpu_hour,
        high=q1.high_usd_per_gpu_hour,
        offers=q1.compared,
        other=other.label,
    )


def _offer_notes(notes: Sequence[str], q: Quote, pricing: str) -> tuple[str, ...]:
    """The estimate's assumptions with the plan's own offer as the cost line (the estimate prices
    on-demand from the whole market) and, across instances, the fabric it pays for."""
    kept = tuple(n for n in notes if not n.startswith("cost: "))
    o = q.offer
    if q.spelling is not None and q.network is not None:
        fabric: tuple[str, ...] = (q.network.text,)
    elif q.gpus_per_node > 1:
        whose = f"each replica's {q.gpus_per_node} GPUs are in" if q.replicas > 1 else f"the {q.gpus_per_node} GPUs are"
        fabric = (f"network: none rented between instances: {whose} one {o.provider} {o.instance}",)
    else:
        fabric = ()
    return (*kept, *fabric, f"cost: {pricing}, {q.describe()}")


def _fleet_of(c: Candidate, req: Requirements) -> dict[str, Any]:
    """The replicas a candidate's offer holds, and whether they share instances (its fleet's price)."""
    return {"replicas": c.replicas, "packed": packs(req)} if c.serving is not None else {}


def _shared(q: Quote | None) -> tuple[Reason, ...]:
    """Replicas packed into shared instances: what losing one instance costs, said beside the plan."""
    if q is None or q.per_instance < 2:
        return ()
    return (Reason.of(Code.PACKED, replicas=q.replicas, instances=q.instances, per_instance=q.per_instance),)


def _shared_servers(c: Candidate, req: Requirements, params: CostParams) -> tuple[Reason, ...]:
    """Owned replicas packed into shared servers (gpuwise.estimate.cost.owned_cost): what losing one
    server costs, said beside the plan as for rented instances."""
    hw = c.est.hardware
    server = params.servers.get(hw.gpu.id)
    if req.pricing != "owned" or c.serving is None or server is None or not packs(req):
        return ()
    per_server = min(c.replicas, server.gpus // hw.count) if hw.count <= server.gpus else 1
    own = owned_cost(hw, params, c.replicas)
    if per_server < 2 or own is None:
        return ()
    return (Reason.of(Code.PACKED_OWNED, replicas=c.replicas, servers=own.server_count, per_server=per_server),)


def completed(
    candidates: Sequence[Candidate],
    workloads: Sequence[Workload],
    req: Requirements,
    params: CostParams,
    options: Sequence[Mapping[str, Any]] = (),
    targets: Mapping[str, Any] | None = None,
) -> tuple[list[Candidate], list[Reason]]:
    """The candidates with their offer, --currency rate and command; and the notes about prices.
    `options[i]`: the options the user gave for `workloads[i]`; `targets`: the serving-target
    options (written into each command)."""
    out: list[Candidate] = []
    for c in candidates:
        q = None if req.pricing == "owned" else rent_quote(c.est.hardware, req.pricing, params, **_fleet_of(c, req))
        i = variant_of(c, workloads)
        opts = options[i] if i < len(options) else {}
        command = estimate_command(c.est.workload, c.est.hardware, opts, targets, workloads[i])
        est = c.est if q is None else replace(c.est, notes=_offer_notes(c.est.notes, q, req.pricing))
        shared = _shared(q) or _shared_servers(c, req, params)
        why = (*c.why, *shared) if not out and c.ok else c.why  # the chosen one's risk
        out.append(replace(c, est=est, offer=q, fx=req.fx, command=command, why=why))
    notes = []
    flip = _flip([(c, c.offer) for c in out if c.ok and c.cost is not None])
    if flip is not None:
        notes.append(flip)
    stale = sorted({c.offer.offer.instance for c in out if c.offer is not None and c.offer.stale})
    if stale:
        notes.append(Reason.of(Code.STALE_PRICES, months=STALE_MONTHS, instances=tuple(stale)))
    return out, notes
