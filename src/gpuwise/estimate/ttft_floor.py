"""A floor under the simulated time to first token that needs no simulation.

The replica search wants the fewest replicas whose simulation meets the targets. The simulated
verdict is not monotone in the replica count (each count scales the same arrivals to its own rate,
and where a step boundary falls moves the tail), so a count that misses says nothing about its
neighbours, and only a bound that holds for every run can rule counts out unsimulated. This is one.

The simulator (gpuwise.estimate.simulate) prefills prompts first come, first served, in steps that
start no earlier than the arrival of the requests they serve, one after another. A step carrying
`c` prompt tokens (at most the token budget B) takes at least `fixed(c, 1)` (its linear work; more
tokens and logits never take less) plus the attention of its chunks: so at least `c` x fixed(B, 1)/B
(a step's linear time per token never rises with its tokens: every term is a roofline of affine
costs with nonnegative intercepts) plus that attention. The chunks of one prompt attend
P(P+1)/2 (query, key) pairs per layer however the prompt is cut (windowed layers: at least none), so
each request's prefill costs at least w = P x fixed(B, 1)/B + its pairs' time (each its own P when
lengths vary). Requests k..i all
arrive at or after a_k and are all prefilled by the end of request i's last chunk, so request i's
first token comes at least max over k <= i of (i - k + 1) w - (a_i - a_k) after it arrives: the
Lindley recursion of a first-come-first-served queue with service times w (plus the request's
front-end overhead). The floor falls as the arrivals spread out, so "the floor misses the target"
is monotone in the replica count, and every count it rules out misses in simulation too
(tests/test_replica_search.py checks the floor against the simulation request by request).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gpuwise.estimate.engine import EngineSetup, StepModel
from gpuwise.estimate.lengths import RequestShapes

__all__ = ["floor_misses", "prefill_work", "prefill_works"]

# the floor is compared with a simulated figure made of other float operations: kept this much below
# its exact value so that no rounding can put it above a simulated TTFT it equals
ROUNDING = 1e-9


def prefill_work(step: StepModel, setup: EngineSetup) -> float:
    """Seconds of engine steps one request's prompt takes at the least (see the module docstring)."""
    budget = max(1, setup.token_budget)
    prompt = setup.prefill_tokens
    pairs = prompt * (prompt + 1) / 2
    if step.window is not None:
        pairs *= 1 - step.win_layers / step.layers  # windowed layers' pairs: at least none
    linear = prompt * step.fixed(budget, 1) / budget
    return (linear + step.prefill_per_pair * pairs * step.layers) * (1 - ROUNDING)


def prefill_works(step: StepModel, setup: EngineSetup, shapes: RequestShapes | None, n: int) -> list[float]:
    """`prefill_work` of each of `n` requests: the setup's, or each its own prompt's when lengths vary."""
    if shapes is None:
        return [prefill_work(step, setup)] * n
    works = {p: prefill_work(step, replace(setup, prefill_tokens=p)) for p in set(shapes.prefill)}
    return [works[p] for p in shapes.prefill]


def floor_misses(
    arrivals: Sequence[float], works: Sequence[float], extra: float, limit: float, skip: int, allowed: int
) -> bool:
    """Whether more than `allowed` requests from the `skip`-th on take longer than `limit` to their
    first token by the floor alone (a first-come-first-served queue of `works` seconds each request,
    plus `extra` outside the engine): then the simulation misses that limit too."""
    if limit == float("inf"):
        return False
    backlog, last, over = 0.0, 0.0, 0
    least = limit - extra  # a request's backlog above this takes longer than the limit
    for i, (a, work) in enumerate(zip(arrivals, works, strict=True)):
        backlog -= a - last
        backlog = (backlog if backlog > 0.0 else 0.0) + work
        last = a
        if backlog > least and i >= skip:
            over += 1
            if over > allowed:
                return True
    return False
