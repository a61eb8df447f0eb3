"""The recommender: search GPU type x count x layout x method, check every requirement, rank by
cost (or time), explain, and check growth."""

from __future__ import annotations

from gpuwise.plan.search import Candidate, PlanResult, Rejection, plan

__all__ = ["Candidate", "PlanResult", "Rejection", "plan"]
