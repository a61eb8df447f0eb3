"""Inference speed and serving capacity.

LLMs: prefill is one forward pass over the prompt (compute-bound), each decode step one pass over
a token per request that reads every weight and the batch's KV cache (bandwidth-bound at small
batch); tensor parallelism adds two all-reduces per layer. Other models: one forward pass per
batch. Replicas for a QPS and latency-percentile target come from a discrete-event simulation of
the server's batching (continuous batching for LLMs, dynamic batching otherwise) under Poisson
arrivals, not from mean throughput alone.
"""

from __future__ import annotations

import functools
import heapq
import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.estimate.comm import Topology, collective
from gpuwise.estimate.compute import Shape, head_ops, layer_ops
from gpuwise.estimate.memory import weight_bytes_per_param
from gpuwise.estimate.rates import Rates
from gpuwise.workload import InferenceJob
from gpuwise.workload.specs import DTYPE_BYTES


def compute_dtype(job: InferenceJob, peaks: dict[str, float]) -> str:
    """fp8/int8 weights run on fp8/int8 tensor cores where they exist; weight-only 4-bit formats
    are dequantized and multiply in 16-bit."""
    wd = job.weights_dtype
    if wd in ("fp8", "int8") and wd in peaks:
        return wd
    if wd == "fp32":
        return "tf32" if "tf32" in peaks else "fp32"
    return "bf16" if "bf16" in peaks else "fp16"


@dataclass(frozen=True)
class InferenceEstimate:
    prefill_seconds: float
    time_to_first_token_seconds: float
    decode_seconds_per_token: float
    latency_seconds: float
    tokens_per_second: float
    samples_per_second: float
    requests_per_second: float
    terms: dict[str, float]
    bottleneck: str
    notes: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "prefill_seconds": self.prefill_seconds,
            "time_to_first_token_seconds": self.time_to_first_token_seconds,
            "decode_seconds_per_token": self.decode_seconds_per_token,
            "latency_seconds": self.latency_seconds,
            "tokens_per_second": self.tokens_per_second,
            "samples_per_second": self.samples_per_second,
            "requests_per_second": self.requests_per_second,
            "decode_terms": self.terms,
        }


class LLMTimer:
    """Forward-pass times of one model replica, cached by shape (the simulator asks often).
    Weights are read at the serving dtype's stored size, scales included (catalog conventions)."""

    def __init__(self, job: InferenceJob, rates: Rates, topo: Topology, catalog: Catalog) -> None:
        assert isinstance(job.model, TransformerArch)
        self.job, self.model, self.rates, self.topo = job, job.model, rates, topo
        self.w_bytes = weight_bytes_per_param(job.weights_dtype, catalog.convention)
        self.kv_bytes = DTYPE_BYTES[job.kv_dtype]

    def _pass(self, tokens: int, seqs: int, context: float, cached: bool, logits: int) -> dict[str, float]:
        m, par = self.model, self.job.parallel
        shape = Shape(
            tokens=tokens,
            seqs=seqs,
            context=context,
            weight_bytes=self.w_bytes,
            kv_bytes=self.kv_bytes,
            kv_cached=cached,
        )
        out: dict[str, float] = {}
        layer = [(op, m.layers) for op in layer_ops(m, shape, par.tp, sp=False)]
        for op, times in layer + [(op, 1) for op in head_ops(m, shape, par.tp, logits, loss=False)]:
            t, side = self.rates.bound(op.flops, op.bytes, op.kind)
            out[side] = out.get(side, 0.0) + times * t
        if par.tp > 1:
            ar = collective("all_reduce", tokens * m.hidden * 2, par.tp, self.topo, spans_nodes=False)
            out["tensor_parallel_comm"] = 2 * m.layers * ar
        return out

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one timer per estimate, bounded cache
    def prefill(self, seqs: int, prompt: int) -> float:
        if not self.model.decoder:
            return sum(self._pass(seqs * prompt, seqs, prompt, False, 0).values())
        return sum(self._pass(seqs * prompt, seqs, (prompt + 1) / 2, False, seqs).values())

    @functools.lru_cache(maxsize=4096)  # noqa: B019
    def decode_terms(self, batch: int, context: int) -> tuple[tuple[str, float], ...]:
        return tuple(self._pass(batch, batch, context, True, batch).items())

    def decode(self, batch: int, context: int) -> float:
        return sum(v for _, v in self.decode_terms(batch, context))


def _avg_decode_context(job: InferenceJob) -> int:
    """Mean context of the decode steps: the prompt plus half the generated tokens."""
    return job.input_tokens + max(job.output_tokens, 1) // 2


def inference_time(job: InferenceJob, rates: Rates, topo: Topology, catalog: Catalog) -> InferenceEstimate:
    """One static batch of `concurrency` requests: prefill, decode steps and latency (LLMs), or one
    forward pass (other models, at the catalog's inference traffic factor)."""
    model = job.model
    notes = list(rates.notes) + list(topo.notes)
    b = job.concurrency
    if isinstance(model, TransformerArch):
        timer = LLMTimer(job, rates, topo, catalog)
        prefill = timer.prefill(b, job.input_tokens)
        if not model.decoder:  # encoders: one forward pass is the whole request
            notes.append(f"{model.name} is an encoder: a request is one forward pass over its tokens")
            return InferenceEstimate(
                prefill,
                prefill,
                0.0,
                prefill,
                b * job.input_tokens / prefill,
                b / prefill,
                b / prefill,
                {},
                _bottleneck(timer._pass(b * job.input_tokens, b, job.input_tokens, False, 0)),
                tuple(notes),
            )
        avg_ctx = _avg_decode_context(job)
        terms = dict(timer.decode_terms(b, avg_ctx))
        tpot = sum(terms.values())
        latency = prefill + job.output_tokens * tpot
        notes.append(
            f"static batch of {b}: all prompts prefilled together, then {job.output_tokens} decode steps "
            f"at an average context of {avg_ctx} tokens"
        )
        tokens_out = b * job.output_tokens
        return InferenceEstimate(
            prefill_seconds=prefill,
            time_to_first_token_seconds=prefill + tpot,
            decode_seconds_per_token=tpot,
            latency_seconds=latency,
            tokens_per_second=tokens_out / latency if latency else 0.0,
            samples_per_second=b / latency,
            requests_per_second=b / latency,
            terms=terms,
            bottleneck=_bottleneck(terms),
            notes=tuple(notes),
        )
    t = generic_batch_seconds(model, b, rates, catalog.convention("generic_infer_traffic_factor"))
    notes.append(
        f"{model.name}: one forward pass over a batch of {b}; GPU time only: the serving framework, "
        f"network and feature lookups outside the GPU add latency that is not modelled"
    )
    return InferenceEstimate(t, t, 0.0, t, 0.0, b / t, b / t, {}, "compute", tuple(notes))


def generic_batch_seconds(model: GenericArch, batch: int, rates: Rates, traffic: float) -> float:
    """Forward pass: FLOPs on the matmul roofline against the activation traffic (`traffic` x the
    bytes training would save) and reading the weights (embedding tables: only the rows looked up)."""
    flops = (model.flops_per_sample or 0.0) * batch
    act = (model.activation_bytes_per_sample or 0.0) * batch * traffic
    lookups = batch * sum(dim for _, dim in model.embedding_tables) * 2
    weights = model.dense_params * 2
    return rates.time(flops, act + lookups + weights)


def _bottleneck(terms: dict[str, float]) -> str:
    """The largest of compute, memory-bandwidth and tensor-parallel communication time."""
    if not terms:
        return "compute"
    top = max(terms, key=lambda k: terms[k])
    return "communication" if top == "tensor_parallel_comm" else top


# ------------------------------------------------------------------------------------------
# serving capacity
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ServingPlan:
    qps: float
    percentile: float
    target_seconds: float
    replicas: int
    gpus: int
    max_batch: int
    utilization: float
    p50: float
    p95: float
    p99: float
    meets: bool
    notes: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "qps": self.qps,
            "percentile": self.percentile,
            "target_seconds": self.target_seconds,
            "replicas": self.replicas,
            "gpus": self.gpus,
            "max_batch": self.max_batch,
            "utilization": self.utilization,
            "p50_seconds": self.p50,
            "p95_seconds": self.p95,
            "p99_seconds": self.p99,
            "meets": self.meets,
        }


def _poisson_arrivals(rate: float, n: int, seed: int) -> list[float]:
    """Arrival times of `n` requests at `rate` per second (exponential gaps), reproducible by seed."""
    rng = random.Random(seed)
    arrivals = []
    t = 0.0
    for _ in range(n):
        t += rng.expovariate(rate)
        arrivals.append(t)
    return arrivals


def simulate_llm(timer: LLMTimer, rate: float, max_batch: int, n: int, seed: int = 0) -> tuple[list[float], float]:
    """Continuous batching on one replica: each iteration prefills the newly admitted prompts and
    advances every running request by one token. Returns latencies and the busy fraction."""
    job = timer.job
    arrivals = _poisson_arrivals(rate, n, seed)
    waiting: deque[int] = deque()
    running: dict[int, int] = {}  # request -> tokens still to generate
    done: list[float] = []
    now, i, busy = 0.0, 0, 0.0
    ctx = _avg_decode_context(job)
    while len(done) < n:
        while i < n and arrivals[i] <= now:
            waiting.append(i)
            i += 1
        if not running and not waiting:
            now = arrivals[i]
            continue
        admitted: list[int] = []
        while waiting and len(running) + len(admitted) < max_batch:
            admitted.append(waiting.popleft())
        step = 0.0
        if admitted:
            step += timer.prefill(len(admitted), job.input_tokens)
        if running:
            step += timer.decode(len(running), ctx)
        now += step
        busy += step
        for r in list(running):
            running[r] -= 1
            if running[r] <= 0:
                del running[r]
                done.append(now - arrivals[r])
        for r in admitted:  # the prefill produced the first token
            if job.output_tokens <= 1:
                done.append(now - arrivals[r])
            else:
                running[r] = job.output_tokens - 1
    return done, busy / now if now else 0.0


def simulate_batches(
    service: Callable[[int], float], rate: float, max_batch: int, n: int, seed: int = 0
) -> tuple[list[float], float]:
    """Dynamic batching (Triton-style) on one replica: when idle, take up to `max_batch` waiting
    requests and serve them together in `service(batch)` seconds."""
    arrivals = _poisson_arrivals(rate, n, seed)
    now, i, busy = 0.0, 0, 0.0
    latencies: list[float] = []
    queue: list[float] = []
    while len(latencies) < n:
        while i < n and arrivals[i] <= now:
            heapq.heappush(queue, arrivals[i])
            i += 1
        if not queue:
            now = arrivals[i]
            continue
        batch = [heapq.heappop(queue) for _ in range(min(max_batch, len(queue)))]
        s = service(len(batch))
        now += s
        busy += s
        latencies += [now - a for a in batch]
    return latencies, busy / now if now else 0.0


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank `p`-th percentile (no interpolation: a latency some request really had)."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))
    return ordered[k]


def batch_seconds_fn(job: InferenceJob, rates: Rates, topo: Topology, catalog: Catalog) -> Callable[[int], float]:
    """Seconds one static batch of b requests takes: prompt prefill plus the decode steps at the
    average context (decoders), one forward pass otherwise (encoders, non-LLM models)."""
    model = job.model
    if isinstance(model, TransformerArch) and model.decoder:
        timer = LLMTimer(job, rates, topo, catalog)
        ctx = _avg_decode_context(job)
        steps = max(job.output_tokens - 1, 0)
        return lambda b: timer.prefill(b, job.input_tokens) + steps * timer.decode(b, ctx)
    if isinstance(model, TransformerArch):
        encoder = LLMTimer(job, rates, topo, catalog)
        return lambda b: encoder.prefill(b, job.input_tokens)
    traffic = catalog.convention("generic_infer_traffic_factor")

    @functools.lru_cache(maxsize=1024)
    def service(batch: int) -> float:
        return generic_batch_seconds(model, batch, rates, traffic)

    return service


@dataclass(frozen=True)
class _Replica:
    """One replica as the replica search sees it: a request served alone, the capacity at the full
    batch, and the simulator of its batching under Poisson arrivals at a rate."""

    alone: float  # seconds
    peak: float  # requests/s at max_batch
    simulate: Callable[[float], tuple[list[float], float]]
    batching: str


def _replica(job: InferenceJob, rates: Rates, topo: Topology, catalog: Catalog, max_batch: int, n: int) -> _Replica:
    """Continuous batching for decoders, dynamic batching for one-pass models."""
    model = job.model
    batch_seconds = batch_seconds_fn(job, rates, topo, catalog)
    peak = max_batch / batch_seconds(max_batch)
    if isinstance(model, TransformerArch) and model.decoder:
        timer = LLMTimer(job, rates, topo, catalog)
        alone = timer.prefill(1, job.input_tokens) + (job.output_tokens - 1) * timer.decode(1, job.input_tokens)
        return _Replica(alone, peak, lambda rate: simulate_llm(timer, rate, max_batch, n), "continuous")
    return _Replica(batch_seconds(1), peak, lambda rate: simulate_batches(batch_seconds, rate, max_batch, n), "dynamic")


def _fewest(ok: Callable[[int], bool], lo: int, most: int) -> int:
    """Smallest r >= lo with ok(r), by doubling then bisection (ok is monotone in r); `most` when
    no count up to it is ok."""
    hi = lo
    while not ok(hi):
        if hi >= most:
            break
        lo, hi = hi + 1, min(most, hi * 2)
    if ok(hi):
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
    return hi


def plan_replicas(
    job: InferenceJob,
    rates: Rates,
    topo: Topology,
    catalog: Catalog,
    *,
    qps: float,
    pct: float,
    target: float,
    max_batch: int,
    gpus_per_replica: int,
    n: int = 3000,
    max_replicas: int = 4096,
) -> ServingPlan:
    """Fewest replicas whose simulated latency percentile meets `target` at `qps` (Poisson)."""
    rep = _replica(job, rates, topo, catalog, max_batch, n)
    notes = [
        f"{rep.batching} batching up to {max_batch} per replica, Poisson arrivals, {n} simulated requests per candidate"
    ]
    if rep.alone > target:
        notes.append(
            f"one request alone takes {rep.alone * 1e3:.0f} ms: no replica count meets "
            f"a {target * 1e3:.0f} ms P{pct:g} target"
        )
        a = rep.alone
        return ServingPlan(qps, pct, target, 0, 0, max_batch, 0.0, a, a, a, False, tuple(notes))
    warm = n // 10
    cache: dict[int, tuple[bool, list[float]]] = {}

    def ok(r: int) -> bool:
        """Stable (offered load below capacity) and the simulated percentile within target."""
        if r not in cache:
            lat = rep.simulate(qps / r)[0][warm:] if qps / (r * rep.peak) < 1 else []
            cache[r] = (bool(lat) and percentile(lat, pct) <= target, lat)
        return cache[r][0]

    r = _fewest(ok, max(1, math.ceil(qps / rep.peak)), max_replicas)  # fewer cannot carry the load
    lat = cache[r][1] or [float("inf")]
    util = qps / (r * rep.peak)
    notes.append(f"utilization = offered load / replica capacity ({rep.peak:.2f} requests/s at batch {max_batch})")
    p50, p95, p99 = (percentile(lat, q) for q in (50, 95, 99))
    return ServingPlan(
        qps, pct, target, r, r * gpus_per_replica, max_batch, util, p50, p95, p99, cache[r][0], tuple(notes)
    )
