"""Availability from the first question, for a service: the spare replicas it keeps to meet its
target after losing N of them (what a training run loses at its scale is the estimate's:
gpuwise.estimate.reliability).

--redundancy N adds N replicas to those the target needs and spreads them one per node, so that
losing N replicas or nodes still leaves enough (N+1 sizing).
"""

from __future__ import annotations

from dataclasses import replace

from gpuwise.plan.results import Candidate, Code, Meet, Reason

__all__ = ["add_redundancy"]


def add_redundancy(c: Candidate, n: int) -> Candidate:
    """N+1 sizing of a serving candidate: N spare replicas beyond those the target needs, one
    replica per node, so that losing N replicas or nodes leaves the target met."""
    if n <= 0 or c.serving is None:
        return c
    needed = c.replicas
    replicas = needed + n
    nodes = replicas * c.est.hardware.nodes
    serving = replace(c.serving, redundancy=n, replicas_needed=needed, replicas=replicas, nodes=nodes)
    why = Reason.of(Code.SPARES, needed=needed, n=n, nodes=nodes)
    meets = c.meets.put("redundancy", Meet(True, value=n, limit=n, margin=0, why=why))
    # one per node: no replica shares an instance, so the fleet is each replica's price (none packed)
    return replace(c, replicas=replicas, serving=serving, meets=meets, fleet_usd_per_hour=None)
