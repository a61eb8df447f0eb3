"""Requirement checks and owned pricing shared by the training search (plan.search) and the serving
search (plan.serving_search): kept apart from both so that neither imports the other for them."""

from __future__ import annotations

from typing import Any

from gpuwise.estimate.cost import CostParams, owned_cost
from gpuwise.plan.results import Candidate, Code, Meet, Meets, Reason
from gpuwise.workload import Hardware
from gpuwise.workload.requirements import Requirements

__all__ = [
    "at_least",
    "at_most",
    "band_high",
    "memory_meet",
    "owned_horizon_usd",
    "packs",
    "priced",
    "shared_limits",
]


def packs(req: Requirements) -> bool:
    """Whether a serving fleet's replicas share instances: yes, unless --redundancy N asks that
    losing a node lose one replica (plan.availability spreads them one per node)."""
    return not req.redundancy


def owned_horizon_usd(hw: Hardware, req: Requirements, params: CostParams, replicas: int = 1) -> float | None:
    """Owned pricing: each of `replicas` copies of `hw`'s share of what buying them costs over the
    horizon, the copies packed into whole servers as the plan packs them (packs; None for rented
    pricing or no price)."""
    if req.pricing != "owned":
        return None
    own = owned_cost(hw, params, replicas, packs(req))
    return None if own is None else own.total(req.years or params.depreciation_years) / replicas


def priced(hw: Hardware, req: Requirements, params: CostParams, replicas: int = 1) -> dict[str, Any]:
    """What every candidate on `hw` carries about its pricing: the pricing model, and for owned
    pricing each replica's share of the cost over the horizon and the horizon (Candidate's fields
    of those names)."""
    owned = req.pricing == "owned"
    return {
        "owned_usd": owned_horizon_usd(hw, req, params, replicas),
        "pricing": req.pricing,
        "horizon_years": (req.years or params.depreciation_years) if owned else None,
    }


def at_most(
    value: float | None,
    limit: float,
    why: Reason | None = None,
    *,
    factor: float = 1.0,
    level: float | None = None,
) -> Meet:
    """A requirement of the form value <= limit: met or not, and by how much; with a band (`factor`,
    its high end over the value, at `level`), met and measured at the band's high end."""
    if value is None:
        return Meet(False, None, limit, None, why)
    if level is None:
        return Meet(value <= limit, value, limit, limit - value, why)
    high = value * factor
    risk = _missed_at(value, high, limit, level)
    return Meet(high <= limit, value, limit, limit - high, risk or why, high, None, level)


def at_least(value: float, limit: float, factor: float, level: float) -> Meet:
    """A throughput requirement (value >= limit) met at the low end of its band (`factor` <= 1)."""
    low = value * factor
    why = None
    if value >= limit > low:
        why = Reason.of(Code.CAPACITY_AT_CONFIDENCE, value=value, low=low, limit=limit, level=level)
    return Meet(low >= limit, value, limit, low - limit, why, None, low, level)


def _missed_at(value: float, high: float, limit: float, level: float) -> Reason | None:
    """Met at the estimate but not at the band's high end: the risk, named."""
    if not value <= limit < high:
        return None
    return Reason.of(Code.AT_CONFIDENCE, value=value, high=high, limit=limit, level=level)


def band_high(c: Candidate, path: str) -> float:
    """The multiplier from a candidate's figure at `path` to the high end of its band (1 without one)."""
    b = c.est.bands().get(path)
    return 1.0 if b is None else b.high


def memory_meet(c: Candidate) -> Meet:
    """The most loaded GPU's memory against its capacity (the margin is the headroom). A fit is
    judged at the estimate: a layout that runs out of memory fails at its first step and a lighter
    one fixes it, where a missed deadline or latency costs the run; the band's high end is carried,
    and named as an out-of-memory risk for training when it passes the capacity (a serving engine
    sizes its KV cache to the memory left: it runs fewer requests at once, not out of memory)."""
    mem = c.est.memory
    value = mem.capacity - mem.headroom
    high = value * band_high(c, "memory.per_gpu.total")
    level = c.est.confidence
    risk = None
    if c.est.training is not None and mem.fits and high > mem.capacity:
        risk = Reason.of(Code.OOM_RISK, high_bytes=high, capacity_bytes=mem.capacity, level=level)
    return Meet(mem.fits, value, mem.capacity, mem.headroom, risk, high, None, level)


def shared_limits(meets: Meets, c: Candidate, req: Requirements, cost: float | None) -> Meets:
    """`meets` with the checks every candidate gets: a price for its node size, the budget and the GPU cap."""
    if c.usd_per_hour is None:  # no offer rents instances of this node size (gpuwise.estimate.offers)
        meets = meets.put("price", Meet(False, why=Reason.of(Code.NO_NODE_OFFER, pricing=req.pricing)))
    if req.budget_usd is not None:
        meets = meets.put("budget", at_most(cost, req.budget_usd))
    if req.max_gpus is not None:
        meets = meets.put("max_gpus", at_most(c.gpus, req.max_gpus))
    return meets
