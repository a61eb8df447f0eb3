"""Requirement checks and owned pricing shared by the training search (plan.search) and the serving
search (plan.serving_search): kept apart from both so that neither imports the other for them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.estimate.cost import CostParams, owned_cost
from gpuwise.plan.messages import check_lang, msg, term
from gpuwise.workload import Hardware
from gpuwise.workload.requirements import Requirements

if TYPE_CHECKING:
    from gpuwise.plan.search import Candidate

__all__ = ["at_most", "owned_horizon_usd", "shared_limits"]


def owned_horizon_usd(hw: Hardware, req: Requirements, params: CostParams) -> float | None:
    """Owned pricing: what buying `hw` costs over the horizon (None for rented pricing or no price)."""
    if req.pricing != "owned":
        return None
    own = owned_cost(hw, params)
    return None if own is None else own.total(req.years or params.depreciation_years)


def at_most(value: float | None, limit: float) -> dict[str, Any]:
    """A requirement of the form value <= limit: met or not, and by how much."""
    return {
        "ok": value is not None and value <= limit,
        "value": value,
        "limit": limit,
        "margin": None if value is None else limit - value,
    }


def shared_limits(c: Candidate, req: Requirements, cost: float | None) -> None:
    """The checks every candidate gets: a price for its node size, the budget and the GPU cap."""
    if c.usd_per_hour is None:  # no offer rents instances of this node size (gpuwise.estimate.offers)
        lg = check_lang(req.lang)
        c.meets["price"] = {"ok": False, "why": msg("why_no_node_offer", lg, pricing=term("pricing", req.pricing, lg))}
    if req.budget_usd is not None:
        c.meets["budget"] = at_most(cost, req.budget_usd)
    if req.max_gpus is not None:
        c.meets["max_gpus"] = at_most(c.gpus, req.max_gpus)
