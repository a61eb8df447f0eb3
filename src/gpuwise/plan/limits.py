"""Requirement checks and owned pricing shared by the training search (plan.search) and the serving
search (plan.serving_search): kept apart from both so that neither imports the other for them."""

from __future__ import annotations

from typing import Any

from gpuwise.estimate.cost import CostParams, owned_cost
from gpuwise.plan.results import Candidate, Code, Meet, Meets, Reason
from gpuwise.workload import Hardware
from gpuwise.workload.requirements import Requirements

__all__ = ["at_most", "memory_meet", "owned_horizon_usd", "priced", "shared_limits"]


def owned_horizon_usd(hw: Hardware, req: Requirements, params: CostParams) -> float | None:
    """Owned pricing: what buying `hw` costs over the horizon (None for rented pricing or no price)."""
    if req.pricing != "owned":
        return None
    own = owned_cost(hw, params)
    return None if own is None else own.total(req.years or params.depreciation_years)


def priced(hw: Hardware, req: Requirements, params: CostParams) -> dict[str, Any]:
    """What every candidate on `hw` carries about its pricing: the pricing model, and for owned
    pricing the cost over the horizon and the horizon (Candidate's fields of those names)."""
    owned = req.pricing == "owned"
    return {
        "owned_usd": owned_horizon_usd(hw, req, params),
        "pricing": req.pricing,
        "horizon_years": (req.years or params.depreciation_years) if owned else None,
    }


def at_most(value: float | None, limit: float, why: Reason | None = None) -> Meet:
    """A requirement of the form value <= limit: met or not, and by how much."""
    margin = None if value is None else limit - value
    return Meet(value is not None and value <= limit, value, limit, margin, why)


def memory_meet(c: Candidate) -> Meet:
    """The most loaded GPU's memory against its capacity (the margin is the headroom)."""
    mem = c.est.memory
    return Meet(mem.fits, mem.capacity - mem.headroom, mem.capacity, mem.headroom)


def shared_limits(meets: Meets, c: Candidate, req: Requirements, cost: float | None) -> Meets:
    """`meets` with the checks every candidate gets: a price for its node size, the budget and the GPU cap."""
    if c.usd_per_hour is None:  # no offer rents instances of this node size (gpuwise.estimate.offers)
        meets = meets.put("price", Meet(False, why=Reason.of(Code.NO_NODE_OFFER, pricing=req.pricing)))
    if req.budget_usd is not None:
        meets = meets.put("budget", at_most(cost, req.budget_usd))
    if req.max_gpus is not None:
        meets = meets.put("max_gpus", at_most(c.gpus, req.max_gpus))
    return meets
