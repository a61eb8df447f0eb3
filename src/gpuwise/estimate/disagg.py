"""Disaggregated serving: prompts prefilled on one pool of replicas, tokens decoded on another,
the prompt's KV cache sent between them over the network.

Each pool is simulated on its own with the same engine model and simulator as colocated serving:
the prefill pool runs prompts only (a request leaves with its first token), the decode pool runs
decode steps only (no prompt chunk ever shares its steps, so TPOT carries no prefill
interference). A request's TTFT is its prefill pool TTFT plus the KV transfer; its end-to-end
latency adds the decode pool's time after the first token. Each pool gets the fewest replicas
whose own target holds (prefill: TTFT after the transfer; decode: TPOT, and end to end after that
prefill pool), found as the colocated replica search finds its count: a simulated verdict is not
monotone in the replica count, so every count is tried in turn (gpuwise.estimate.serving's
`fewest_replicas`) except the prefill counts the first-token floor rules out
(gpuwise.estimate.ttft_floor), never by bisection.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from gpuwise.catalog import Catalog, TransformerArch
from gpuwise.estimate.comm import Topology, p2p, topology
from gpuwise.estimate.engine import EngineSetup, StepModel, engine_setup, step_model
from gpuwise.estimate.lengths import varied_shapes
from gpuwise.estimate.memory.inference import kv_cache_bytes
from gpuwise.estimate.rates import Rates, host_launch
from gpuwise.estimate.serving import PERCENTILES, fewest_replicas, meets_goals, simulated_requests, steady_state
from gpuwise.estimate.simulate import SimResult, Targets, poisson_arrivals, simulate
from gpuwise.estimate.ttft_floor import floor_misses, prefill_works
from gpuwise.stats import percentile, tolerated
from gpuwise.workload import Hardware, InferenceJob
from gpuwise.workload.requirements import LatencyGoals
from gpuwise.workload.specs import DTYPE_BYTES

MAX_POOL = 4096  # search bound on replicas per pool


@dataclass(frozen=True, slots=True)
class DisaggPlan:
    prefill_replicas: int
    decode_replicas: int
    gpus: int
    kv_transfer_seconds: float
    percentiles: dict[str, dict[str, float]]
    meets: bool
    notes: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "prefill_replicas": self.prefill_replicas,
            "decode_replicas": self.decode_replicas,
            "gpus": self.gpus,
            "kv_transfer_seconds": self.kv_transfer_seconds,
            "percentiles": self.percentiles,
            "meets": self.meets,
        }


def kv_transfer_seconds(job: InferenceJob, hw: Hardware, catalog: Catalog) -> float:
    """A prompt's KV cache from a prefill replica to a decode replica: each of the tp GPUs sends
    its shard over the network between nodes (pools on separate nodes)."""
    model = job.model
    assert isinstance(model, TransformerArch)
    shard = kv_cache_bytes(model, job.input_tokens, 1, DTYPE_BYTES[job.kv_dtype], job.parallel.tp)
    two_nodes = Hardware(gpu=hw.gpu, count=2 * hw.gpu.node_gpus, gpus_per_node=hw.gpu.node_gpus, network=hw.network)
    link = topology(two_nodes, catalog, hw.network).inter
    assert link is not None  # two nodes always have a network between them
    return p2p(shard, link)


def _pcts(values: list[float]) -> dict[str, float]:
    return {f"p{p:g}": percentile(values, p) for p in PERCENTILES}


def _most(limit: float, transfer: float) -> float:
    """The largest TTFT whose sum with `transfer` is at most `limit`, as floats add: a sum never
    falls as a term grows, so a TTFT exceeds it exactly when TTFT + transfer exceeds the limit."""

    def within(x: float) -> bool:
        return x + transfer <= limit

    step = math.ulp(max(abs(limit), abs(transfer)))
    low = limit - transfer
    while not within(low):
        low, step = low - step, step * 2
    high = low + step
    while within(high):
        high, step = high + step, step * 2
    while low < (mid := low + (high - low) / 2) < high:  # within(low), not within(high)
        low, high = (mid, high) if within(mid) else (low, mid)
    while (up := math.nextafter(low, math.inf)) < high and within(up):
        low = up
    return low


def plan_disaggregated(
    job: InferenceJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog, *, qps: float, goals: LatencyGoals
) -> DisaggPlan:
    """Fewest prefill and decode replicas (each `hw`) that meet `goals` at `qps` (Poisson)."""
    setup = engine_setup(job, hw, catalog, launch=host_launch(rates, catalog))
    step = step_model(job, rates, topo, catalog)
    n = simulated_requests(job)
    warm = n // 10
    unit = poisson_arrivals(1.0, n, 0)
    transfer = kv_transfer_seconds(job, hw, catalog)
    prefill_setup = replace(setup, decode_steps=0)  # a request leaves the pool with its first token
    # its KV arrives over the network: no forward pass of its own, whatever the engine's prefill rule
    decode_setup = replace(setup, prefill_tokens=1, request_overhead=0.0, chunked_prefill=True, prefill_first=False)
    key = f"p{goals.percentile:g}"
    runs: dict[tuple[str, int], SimResult] = {}
    shapes = varied_shapes(job, setup, n, 0)  # each pool sees the same requests: prompts, then decodes
    pool_shapes = {
        "prefill": None if shapes is None else replace(shapes, steps=(0,) * n),
        "decode": None if shapes is None else replace(shapes, prefill=(1,) * n),
    }

    def run(pool: str, r: int, judge: Targets | None = None) -> SimResult:
        """The pool's run at `r` replicas; with `judge`, it may stop once a target is missed (a
        verdict without figures: a stopped run is made again in full if its figures are asked for)."""
        made = runs.get((pool, r))
        if made is None or (made.missed and judge is None):
            s = prefill_setup if pool == "prefill" else decode_setup
            arrivals = [t * r / qps for t in unit]
            made = runs[pool, r] = simulate(
                step, s, arrivals, job.input_tokens, targets=judge, shapes=pool_shapes[pool]
            ).warm(warm)
        return made

    prefill_cap, decode_cap = _capacity(step, prefill_setup, job), _capacity(step, decode_setup, job)
    limit = goals.ttft_seconds
    # a prefill run's TTFT plus the transfer exceeds the limit exactly when the TTFT exceeds `most`
    most = None if limit is None else _most(limit, transfer)
    judge = None if most is None else Targets(warm, tolerated(n - warm, goals.percentile), ttft=most)
    works = prefill_works(step, prefill_setup, pool_shapes["prefill"], n)

    def prefill_ok(r: int) -> bool:
        if qps / (r * prefill_cap) >= 1:
            return False
        if limit is None:
            return True
        pre = run("prefill", r, judge if r < MAX_POOL else None)  # MAX_POOL may be the answer: in full
        return not pre.missed and percentile(pre.ttft, goals.percentile) + transfer <= limit

    def surely_misses(r: int) -> bool:  # monotone in r; implies not prefill_ok(r) (ttft_floor)
        assert judge is not None
        arrivals = [t * r / qps for t in unit]
        return floor_misses(arrivals, works, prefill_setup.request_overhead, judge.ttft, judge.skip, judge.allowed)

    p = _fewest(prefill_ok, math.floor(qps / prefill_cap) + 1, None if judge is None else surely_misses)
    e2e_limit = goals.e2e_seconds

    def decode_ok(r: int) -> bool:
        if qps / (r * decode_cap) >= 1:
            return False
        dec = run("decode", r)
        if goals.tpot_seconds is not None and percentile(dec.tpot, goals.percentile) > goals.tpot_seconds:
            return False
        return e2e_limit is None or _pcts(_e2e(run("prefill", p), dec, transfer))[key] <= e2e_limit

    d = _fewest(decode_ok, math.floor(qps / decode_cap) + 1)
    pre, dec = run("prefill", p), run("decode", d)
    e2e = _e2e(pre, dec, transfer)
    pcts = {"ttft": _pcts([t + transfer for t in pre.ttft]), "tpot": _pcts(dec.tpot), "e2e": _pcts(e2e)}
    meets = p < MAX_POOL and d < MAX_POOL and meets_goals(pcts, goals)
    notes = (
        f"disaggregated: {p} prefill + {d} decode replica(s) of {hw.count}x {hw.gpu.id}; each prompt's KV cache "
        f"({transfer * 1e3:.1f} ms over the network) goes from its prefill replica to a decode replica",
    )
    return DisaggPlan(p, d, (p + d) * hw.count, transfer, pcts, meets, notes)


def _fewest(ok: Callable[[int], bool], lo: int, surely_misses: Callable[[int], bool] | None = None) -> int:
    """The fewest pool size from `lo` with ok, every count tried (MAX_POOL when none meets)."""
    found = fewest_replicas(ok, lo, MAX_POOL, None, surely_misses)
    return MAX_POOL if found is None else found  # None only with a bound below MAX_POOL, not given here


def _capacity(step: StepModel, setup: EngineSetup, job: InferenceJob) -> float:
    """Requests/s of one pool replica at its full batch (the analytic floor)."""
    return steady_state(step, setup, max(1, setup.max_batch), job.input_tokens).requests_per_second


def _e2e(pre: SimResult, dec: SimResult, transfer: float) -> list[float]:
    """Each request's end-to-end latency: prefill pool TTFT, the KV transfer, then the decode
    pool's time after its first token."""
    return [a + transfer + (b - c) for a, b, c in zip(pre.ttft, dec.e2e, dec.ttft, strict=True)]


__all__ = ["DisaggPlan", "kv_transfer_seconds", "plan_disaggregated"]
