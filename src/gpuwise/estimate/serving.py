"""Inference speed and serving capacity.

LLMs: prefill is one forward pass over the prompt (compute-bound), each decode step one pass over
a token per request that reads every weight and the batch's KV cache (bandwidth-bound at small
batch); tensor parallelism adds two all-reduces per layer. Other models: one forward pass per
batch. Replicas for a QPS and latency-percentile target come from a discrete-event simulation of
the server's batching (continuous batching for LLMs, dynamic batching otherwise) under Poisson
arrivals, not from mean throughput alone.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import operator
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gpuwise.catalog import Catalog, GenericArch, ModelArch, TransformerArch
from gpuwise.catalog.encoder_operators import Fp32Stream, encoder_operators
from gpuwise.errors import RequirementNotMet, UsageError
from gpuwise.estimate.bands import Margins
from gpuwise.estimate.comm import Topology
from gpuwise.estimate.compute import Shape, head_ops, layer_ops
from gpuwise.estimate.engine import EngineSetup, StepModel, engine_setup, step_model, tp_all_reduces
from gpuwise.estimate.lengths import RequestShapes, drawn_lengths, varied_shapes
from gpuwise.estimate.memory.states import weight_bytes_per_param
from gpuwise.estimate.rates import Rates, host_launch, pytorch_sdpa_rates, without_fused_attention
from gpuwise.estimate.simulate import SimResult, Targets, poisson_arrivals, simulate, simulate_once
from gpuwise.estimate.ttft_floor import floor_misses, prefill_works
from gpuwise.stats import percentile, rank, tolerated
from gpuwise.workload import Hardware, InferenceJob
from gpuwise.workload.requirements import LatencyGoals
from gpuwise.workload.specs import DEFAULT_RUNTIME, DTYPE_BYTES, PYTORCH_RUNTIMES, RUNTIMES

if TYPE_CHECKING:  # the operator model is imported where a model needs it (LLM serving never does)
    from gpuwise.estimate.operators import ServedBatch


def compute_dtype(job: InferenceJob, peaks: dict[str, float], catalog: Catalog) -> str:
    """fp8/int8 weights run on fp8/int8 tensor cores where they exist, NVFP4 weights on FP4 tensor cores
    (Blackwell: W4A4, the activations quantized to NVFP4 on the fly); weight-only 4-bit formats (and
    NVFP4 on a GPU without FP4 tensor cores) are dequantized and multiply in 16-bit; fp32 weights on
    TF32 tensor cores unless the engine's runtime leaves TF32 off for matmuls (a transformers generate
    loop: PyTorch eager, unless --tf32-matmul), or at 16 bits where torch.autocast casts them (`autocast_dtype`)."""
    wd = job.weights_dtype
    if job.autocast_dtype is not None:  # set over fp32 weights only
        return job.autocast_dtype  # bf16 where the GPU has none: refused (workload.precision)
    if wd in ("fp8", "int8") and wd in peaks:
        return wd
    if wd == "nvfp4" and "fp4" in peaks:
        return "fp4"
    if wd == "fp32":
        return "tf32" if "tf32" in peaks and _tf32_gemm(job, catalog) else "fp32"
    return "bf16" if "bf16" in peaks else "fp16"


def _tf32_gemm(job: InferenceJob, catalog: Catalog) -> bool:
    """Whether an LLM engine's fp32 GEMMs run on TF32 tensor cores: its runtime's (RuntimeProfile.tf32: the run's
    --[no-]tf32-matmul, else the runtime's `tf32_gemm`). Models described operator by operator apply their runtime's
    own (gpuwise.estimate.operators.served_batch)."""
    if not (isinstance(job.model, TransformerArch) and job.model.decoder):
        return True
    runtime = catalog.runtime_of(job.engine)
    return True if runtime is None else runtime.tf32(job.tf32_matmul)


@dataclass(frozen=True, slots=True)
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
    # a finite run (--requests): metric (ttft, tpot, e2e) -> "p50".. "p99" -> seconds over its requests
    run_percentiles: dict[str, dict[str, float]] | None = None
    # a paced finite run (--request-rate): its figures (JSON path -> value) with every time of it multiplied by
    # the argument, the arrivals unchanged (its queue grows or drains with the engine's speed); None otherwise
    rerun: Callable[[float], dict[str, float]] | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict[str, object]:
        extra = {} if self.run_percentiles is None else {"run_percentiles": self.run_percentiles}
        return extra | {
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
        self.w_bytes = weight_bytes_per_param(job.weights_dtype, catalog.convention, job.bnb_4bit == "qlora")
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
        windowed = min(m.layers, m.sliding_window_layers) if (m.sliding_window and cached) else 0
        layer = [(op, m.layers - windowed) for op in layer_ops(m, shape, par.tp, sp=False)]
        if windowed:  # sliding-window layers read at most the window of cached keys
            capped = replace(shape, context=min(context, float(m.sliding_window or context)))
            layer += [(op, windowed) for op in layer_ops(m, capped, par.tp, sp=False)]
        for op, times in layer + [(op, 1) for op in head_ops(m, shape, par.tp, logits)]:
            t, side = self.rates.bound(op.flops, op.bytes, op.kind)
            out[side] = out.get(side, 0.0) + times * t
        if par.tp > 1:
            out["tensor_parallel_comm"] = tp_all_reduces(m, tokens, par.tp, self.topo)
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


@dataclass(frozen=True, slots=True)
class SteadyState:
    """A replica running `batch` requests at once (continuous batching, chunked prefill): what one
    step takes, and what a request sees. The analytic bracket the simulation then confirms."""

    batch: int
    step_seconds: float
    ttft_seconds: float  # a new request's prompt chunked in beside batch-1 decodes
    tpot_seconds: float
    latency_seconds: float
    requests_per_second: float  # capacity at this batch


def steady_state(model: StepModel, setup: EngineSetup, batch: int, prompt: int) -> SteadyState:
    """`batch` slots in rotation: each request spends c steps with its prompt chunks in the step
    (beside the other slots' decodes), then its decode steps. Per step the engine carries, on
    average, batch x prompt / (c + s) prompt tokens and batch x s / (c + s) decodes; capacity is
    batch requests per (c + s) such steps."""
    b = max(1, min(batch, setup.max_batch) if setup.max_batch else batch)
    if setup.static_batching:
        return static_batch_state(model, setup, b, prompt, setup.all_logits)
    if not setup.chunked_prefill and model.lanes == 1:
        return router_steady_state(model, setup, b, prompt)
    s, todo, v = setup.decode_steps, setup.prefill_tokens, model.verify
    c = math.ceil(todo / max(1, setup.token_budget - (b - 1) * v))
    ctx = prompt + (s * setup.tokens_per_step) / 2
    pairs_per_token = model.prefill_pairs(0, todo) / todo

    def mixed(prefill: float, decodes: float) -> float:
        return model.step(round(prefill), round(decodes), model.keys(ctx) * decodes, pairs_per_token * prefill)

    if model.lanes > 1:
        return _lockstep_state(model, setup, b, c, ctx)
    # a step's prompt chunks are those of the slots prefilling in it, each slot independently in c of
    # its c + s steps: the mean over that count, not the step at the mean count (a step's time is not
    # linear in its tokens: the experts a step reads, the roofline's bend)
    chunk, p = todo / c, c / (c + s)
    every, others = prefilling_slots(b, p), prefilling_slots(b - 1, p)
    t = sum(w * mixed(k * chunk, b - k) for k, w in every)
    tpot = sum(w * mixed(k * chunk, b - k) for k, w in others) / setup.tokens_per_step if s else 0.0
    ttft = c * sum(w * mixed((k + 1) * chunk, b - 1 - k) for k, w in others) + setup.request_overhead
    return SteadyState(b, t, ttft, tpot, ttft + s * tpot * setup.tokens_per_step, b / ((c + s) * t))


# a setting of the sum, not a fact: `prefilling_slots` drops counts less likely than this share of the likeliest
SLOTS_TAIL = 1e-9
# a setting of the sum, not a fact: the counts left are merged into at most this many points (each at their mean)
SLOTS_POINTS = 16


def binomial_log_pmf(n: int, p: float, k: int) -> float:
    """log P(K = k) for K ~ Binomial(n, p), 0 < p < 1: in log space, because (1 - p) ** n underflows to
    0 for a large batch, which would read as every slot prefilling at once."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p) + (n - k) * math.log1p(-p)


def prefilling_slots(n: int, p: float) -> list[tuple[float, float]]:
    """(count, probability) points of a Binomial(`n`, `p`) count: how many of n slots prefill in one
    step. Exact where few counts matter; a wide distribution is merged into SLOTS_POINTS points that
    keep its mean (each point at the mean count of the counts it merges)."""
    if n <= 0 or p <= 0.0:
        return [(0.0, 1.0)]
    if p >= 1.0:
        return [(float(n), 1.0)]
    mode = min(n, math.floor((n + 1) * p))

    def log_pmf(k: int) -> float:
        return binomial_log_pmf(n, p, k)

    top, floor = log_pmf(mode), math.log(SLOTS_TAIL)
    lo = hi = mode
    while lo > 0 and log_pmf(lo - 1) - top > floor:
        lo -= 1
    while hi < n and log_pmf(hi + 1) - top > floor:
        hi += 1
    counts = [(k, math.exp(log_pmf(k) - top)) for k in range(lo, hi + 1)]
    total = sum(w for _, w in counts)
    width = math.ceil(len(counts) / SLOTS_POINTS)
    points = []
    for i in range(0, len(counts), width):
        group = counts[i : i + width]
        mass = sum(w for _, w in group)
        points.append((sum(k * w for k, w in group) / mass, mass / total))
    return points


def _lockstep_state(model: StepModel, setup: EngineSetup, b: int, c: int, ctx: float) -> SteadyState:
    """`steady_state` of attention ranks that step together (attention data parallelism), each with
    `b` slots of its own: a step lasts as long as its busiest rank's attention and dense layers,
    whose prompt chunks are those of the most of the ranks' slots that are prefilling at once
    (each slot prefills c of its c + s steps), while every rank's experts take the mean load."""
    s, todo, v = setup.decode_steps, setup.prefill_tokens, model.verify
    chunk = todo / c
    busiest = expected_busiest(b, c / (c + s), model.lanes)  # prompt chunks on the busiest rank
    mean = b * todo / (c + s)  # prompt tokens per rank and step, on average
    pairs_per_token = model.prefill_pairs(0, todo) / todo
    dec = b * s / (c + s)

    def step(prefill: float) -> float:
        routed = round(mean + dec * v)
        return model.step(round(prefill), round(dec), model.keys(ctx) * dec, pairs_per_token * prefill, routed)

    t = step(busiest * chunk)
    ttft = c * step(max(busiest * chunk, chunk + (b - 1) * todo / (c + s))) + setup.request_overhead
    tpot = t / setup.tokens_per_step if s else 0.0
    return SteadyState(b, t, ttft, tpot, ttft + s * t, b / ((c + s) * t))


# a setting of the sum, not a fact: `expected_busiest` stops once a term adds less than this many chunks
BUSIEST_TAIL = 1e-12


def expected_busiest(slots: int, p: float, ranks: int) -> float:
    """Expected largest count over `ranks` independent Binomial(`slots`, `p`) counts: the prompt
    chunks on the busiest of the ranks in one step, E[max] = sum over j >= 1 of 1 - F(j - 1)^ranks."""
    if p >= 1.0:
        return float(slots)
    if p <= 0.0 or slots <= 0:
        return 0.0
    cdf, total = 0.0, 0.0
    for k in range(slots):
        cdf += math.exp(binomial_log_pmf(slots, p, k))
        tail = 1.0 - min(1.0, cdf) ** ranks
        if tail < BUSIEST_TAIL:
            break
        total += tail
    return total


# the share of the step under way a prompt arriving at a uniformly random moment waits for, on average
STEP_UNDER_WAY = 1 / 2


def router_steady_state(model: StepModel, setup: EngineSetup, b: int, prompt: int) -> SteadyState:
    """`b` requests in rotation on an engine that prefills apart (Text Generation Inference before
    3.0): new prompts wait until the router onboards them, every P decode steps, P the sooner of
    `max_waiting_steps` and the steps after which the waiting requests reach `waiting_served_ratio`
    x those still running (v1.0.3 router: a new batch needs that many queued unless it waited
    max_waiting_tokens steps); with requests finishing evenly over s decode steps, P r/s waiting
    against r - P r/s running: P = ratio / (1 + ratio) x s, never beyond s. A request waits P/2 decode steps
    on average, then its prefill step (beside the k prompts onboarded with it, in steps of at most
    the prefill token budget), then s decode steps among r running requests, interrupted by s/P
    other prefills. Per request P/2 + s decode steps: r = b s / (s + P/2), k = b P / (s + P/2).
    An engine that prefills first (SGLang) runs a prompt as soon as it waits: with b requests in
    rotation one arrives every s/b decode steps, so P = s/b (at least 1), a new prompt waits for the
    step under way only (half a decode step on average: r = b s / (s + 1/2), k = b P / (s + 1/2)), and
    the other b - 1 clients' prompts interrupt a request's decodes."""
    s, todo = setup.decode_steps, setup.prefill_tokens
    ctx = prompt + (s * setup.tokens_per_step) / 2
    wait = 0.0
    if b == 1:  # nobody else waits: the prompt runs at once
        period, running, onboard = 0.0, 1.0, 1.0
    elif s == 0:  # no decodes to wait for: every prompt in rotation is prefilled together
        period, running, onboard = 0.0, float(b), float(b)
    else:
        if setup.prefill_first:  # a prompt as each request ends, waiting only for the step under way
            period, wait = max(1.0, s / b), STEP_UNDER_WAY
        else:
            ratio = setup.waiting_served_ratio
            by_ratio = math.ceil(ratio / (1 + ratio) * s) if ratio else s
            period = float(max(1, min(setup.max_waiting_steps or by_ratio, by_ratio, s)))
            wait = period / 2  # decode steps a new prompt waits for, on average
        running, onboard = b * s / (s + wait), b * period / (s + wait)
    decode = model.step(0, max(1, round(running)), model.keys(ctx) * max(1, round(running)), 0.0) if s else 0.0
    prefill = _prefill_apart(model, round(onboard * todo), todo, setup.token_budget)
    interrupts = s / period if period else 0.0  # other prompts' prefills during one request's decodes
    if setup.prefill_first:
        interrupts *= (b - 1) / b  # its own prompt ran before them
    ttft = wait * decode + prefill + setup.request_overhead
    tpot = (s * decode + interrupts * prefill) / s / setup.tokens_per_step if s else 0.0
    latency = ttft + s * tpot * setup.tokens_per_step
    cycle = period * decode + prefill if period else prefill + s * decode  # onboard requests per cycle
    mean_step = cycle / (period + 1) if period else cycle / (s + 1)
    return SteadyState(b, mean_step, ttft, tpot, latency, onboard / cycle if cycle else 0.0)


def static_batch_state(model: StepModel, setup: EngineSetup, b: int, prompt: int, all_logits: bool) -> SteadyState:
    """A static batch of `b` requests: one prefill over every prompt (a generate loop's single pass,
    with logits for every position when `all_logits`, else the last; a server's steps of at most its
    token budget), then the decode steps of the whole batch until the last request ends; the next
    batch starts after it."""
    s = setup.decode_steps
    tokens = b * prompt
    if tokens <= setup.token_budget:
        prefill = model.fixed(tokens, tokens if all_logits else b)
        prefill += model.prefill_per_pair * b * model.prefill_pairs(0, prompt) * model.layers
    else:
        prefill = _prefill_apart(model, tokens, prompt, setup.token_budget)
    ctx = prompt + (s * setup.tokens_per_step) / 2
    decode = model.step(0, b, model.keys(ctx) * b, 0.0) if s else 0.0
    ttft = prefill + setup.request_overhead
    latency = ttft + s * decode
    return SteadyState(b, (prefill + s * decode) / (s + 1), ttft, decode / setup.tokens_per_step, latency, b / latency)


def _prefill_apart(model: StepModel, tokens: int, prompt: int, budget: int) -> float:
    """Seconds of prefill steps over `tokens` prompt tokens (whole prompts of `prompt` tokens, each
    attending to itself), at most `budget` tokens a step, with no decodes beside them."""
    pairs_per_token = model.prefill_pairs(0, prompt) / prompt if prompt else 0.0
    t, left = 0.0, max(tokens, 1)
    while left > 0:
        take = min(budget, left)
        t += model.step(take, 0, 0.0, pairs_per_token * take)
        left -= take
    return t


def alone_metrics(model: StepModel, setup: EngineSetup, prompt: int) -> dict[str, float]:
    """`alone` as the replica search reads it: metric (ttft, tpot, e2e) -> seconds on an idle replica."""
    ttft, tpot = alone(model, setup, prompt)
    return {"ttft": ttft, "tpot": tpot, "e2e": ttft + setup.decode_steps * tpot * setup.tokens_per_step}


def alone(model: StepModel, setup: EngineSetup, prompt: int) -> tuple[float, float]:
    """(TTFT, TPOT) of one request on an idle replica: its prompt in budget-sized chunks, then
    single-request decode steps. No queueing can make a request faster than this."""
    todo, ttft, done = setup.prefill_tokens, 0.0, 0
    spread = model.lanes > 1  # one rank's request: every rank's experts take 1/lanes of its tokens
    while done < todo:
        take = min(setup.token_budget, todo - done)
        routed = math.ceil(take / model.lanes) if spread else None
        ttft += model.step(take, 0, 0.0, model.prefill_pairs(done, take), routed)
        done += take
    ctx = prompt + setup.decode_steps * setup.tokens_per_step / 2
    return ttft + setup.request_overhead, model.step(0, 1, model.keys(ctx), 0.0) / setup.tokens_per_step


def _written_out(job: InferenceJob) -> bool:
    """An encoder under a runtime other than the default: timed operator by operator (timed_model)."""
    model = job.model
    return isinstance(model, TransformerArch) and not model.decoder and job.engine != DEFAULT_RUNTIME


def timed_model(job: InferenceJob, catalog: Catalog) -> ModelArch:
    """The model as the timing sees it: an encoder under a runtime other than the default, written
    operator by operator from its architecture (catalog/encoder_operators.py) so the runtime's
    kernels and fusion apply (--attention flash: PyTorch's fused scaled_dot_product_attention; eager
    autocast over fp32 parameters: its fp32 residual stream and LayerNorms); under the default, its
    layer totals (what the corpus checks)."""
    model = job.model
    if isinstance(model, TransformerArch) and _written_out(job):
        return _encoder_operators(model, job.input_tokens, job.attention == "flash", fp32_stream(job, catalog))
    return model


@functools.lru_cache(maxsize=64)
def _encoder_operators(model: TransformerArch, seq: int, fused: bool, stream: Fp32Stream | None) -> GenericArch:
    """encoder_operators, written once per encoder and shape: the timing, the load simulation and the batch
    timer each ask for the same model."""
    return encoder_operators(model, seq, fused_attention=fused, stream=stream)


def fp32_stream(job: InferenceJob, catalog: Catalog) -> Fp32Stream | None:
    """What eager PyTorch moves in fp32 when torch.autocast runs at 16 bits over a model whose parameters are
    fp32: wherever its weights are cast on every call (the same rule as the operator model's weight casts,
    gpuwise.estimate.operators.served_batch: --autocast, or the eager runtime's default, at a 16-bit
    precision), so the embeddings are fp32 too. None: no autocast, or a runtime whose kernels are not eager
    PyTorch's. The conventions a training step under plain AMP counts (estimate/training.py)."""
    if job.engine not in RUNTIMES:  # an LLM engine: no operators of its own here
        return None
    runtime = catalog.runtime(job.engine)
    amp = runtime.autocasts(job.autocast)
    half = job.autocast_dtype or (job.weights_dtype if job.weights_dtype in ("fp16", "bf16") else None)
    if not amp or half is None or runtime.kernels != "eager":
        return None
    cast = DTYPE_BYTES["fp32"] + DTYPE_BYTES[half]  # read the fp32 activation, write its 16-bit copy
    return Fp32Stream(
        residual_bytes=catalog.convention("autocast_fp32_residual_bytes"),
        norm_bytes=catalog.convention("autocast_layernorm_bytes") - cast,  # the convention counts one cast
        cast_bytes=cast,
        fp32_bytes=DTYPE_BYTES["fp32"],
    )


def fp32_stream_note(job: InferenceJob, catalog: Catalog) -> tuple[str, ...]:
    """The assumption an encoder timed with its fp32 stream carries (none otherwise)."""
    if not _written_out(job) or fp32_stream(job, catalog) is None:
        return ()
    return (
        f"{job.model.name} under autocast over fp32 parameters: the residual stream stays fp32 (the embeddings are "
        "fp32 parameters; a 16-bit branch added to it promotes), LayerNorm and softmax run in fp32 and each linear "
        "or matmul reading their output casts it back to 16 bits in a kernel of its own [autocast_fp32_residual_bytes, "
        "autocast_layernorm_bytes: PyTorch autocast op reference]",
    )


def _batching_note(setup: EngineSetup, b: int) -> str:
    """How the engine batches `b` requests, said once beside its figures."""
    if setup.static_batching:
        return (
            f"a static batch of {b} request(s): prefilled together, then decoded together until the last "
            "ends; TTFT is the batch's prefill, throughput the batch over its whole run"
        )
    if setup.chunked_prefill:
        return (
            f"continuous batching at {b} running request(s): each step carries their decodes and "
            f"{setup.token_budget} tokens of prompt chunks at most; TTFT is a new prompt's chunks "
            f"beside the running decodes"
        )
    if setup.prefill_first:
        return (
            f"continuous batching at {b} running request(s): a new prompt runs in a prefill step of its own "
            f"({setup.token_budget} tokens at most) before the next decode step, while the running requests wait"
        )
    return (
        f"batching at {b} request(s) in rotation: new prompts wait for the router, then are "
        f"prefilled in steps of their own ({setup.token_budget} tokens at most) while the running "
        f"requests wait"
    )


STEADY_AT_MEAN = "the steady state is at the mean lengths; they vary in a simulated run (--requests, or a plan's load)"


def engine_copies(job: InferenceJob, hw: Hardware) -> int:
    """Serving engines the hardware holds side by side: its data-parallel replicas of tp x pp GPUs, each
    serving its share of the requests (vLLM's --data-parallel-size, or a server a replica behind a load
    balancer); a serving replica keeps its experts inside its tp ranks (workload.build refuses --ep above). A
    recommender is one model over all the GPUs (its embedding tables sharded over them, memory.states), no copies."""
    if isinstance(job.model, GenericArch) and job.model.embedding_params:
        return 1
    return max(1, hw.count // job.parallel.model_parallel)


def inference_time(
    job: InferenceJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog
) -> InferenceEstimate:
    """The hardware's engine copies side by side (engine_copies): one copy's latencies, their throughput
    together; a finite run (--requests) splits its requests over them itself."""
    copies = engine_copies(job, hw)
    est = _engine_time(job, hw, rates, topo, catalog, copies)
    if copies == 1 or est.run_percentiles is not None:
        return est
    note = (
        f"{hw.count} GPUs hold {copies} engine copies side by side (data parallel, {hw.count // copies} GPU(s) "
        f"each): each runs --concurrency {job.concurrency} ({copies * job.concurrency} in flight in all); throughput "
        "is theirs together, latencies and the largest concurrency that fits one copy's"
    )
    return replace(
        est,
        tokens_per_second=est.tokens_per_second * copies,
        samples_per_second=est.samples_per_second * copies,
        requests_per_second=est.requests_per_second * copies,
        notes=(*est.notes, note),
    )


def _engine_time(
    job: InferenceJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog, copies: int
) -> InferenceEstimate:
    """Decoders: a replica of the serving engine running `concurrency` requests at once (continuous
    batching with chunked prefill); encoders and other models: one forward pass over the batch."""
    model = timed_model(job, catalog)
    notes = list(rates.notes) + list(topo.notes) + list(fp32_stream_note(job, catalog))
    b = job.concurrency
    if isinstance(model, TransformerArch) and model.decoder:
        setup = engine_setup(job, hw, catalog, launch=host_launch(rates, catalog))
        step = step_model(job, rates, topo, catalog)
        b = job.attention_rank().concurrency  # attention data parallelism: one rank's share, its lanes alike
        ttft1, _ = alone(step, setup, job.input_tokens)
        st = steady_state(step, replace(setup, max_batch=max(setup.max_batch, 1)), b, job.input_tokens)
        terms = step.decode_terms(b, _avg_decode_context(job))
        notes += setup.notes
        notes.append(_batching_note(setup, b))
        if b > setup.max_batch:
            notes.append(
                f"the engine runs {setup.max_batch} such requests at once, not {b}: the least of what its KV cache "
                "holds and its running-request cap"
            )
        if job.requests:
            return _finite_run(job, step, setup, ttft1, terms, notes, copies)
        notes += [f"{job.lengths_flag}: {STEADY_AT_MEAN}"] if job.lengths_vary else []
        return InferenceEstimate(
            prefill_seconds=ttft1,
            time_to_first_token_seconds=st.ttft_seconds,
            decode_seconds_per_token=st.tpot_seconds,
            latency_seconds=st.latency_seconds,
            tokens_per_second=setup.pipelines * st.requests_per_second * job.output_tokens,
            samples_per_second=setup.pipelines * st.requests_per_second,
            requests_per_second=setup.pipelines * st.requests_per_second,
            terms=terms,
            bottleneck=_bottleneck(terms),
            notes=tuple(notes),
        )
    if isinstance(model, TransformerArch):  # encoders: one forward pass is the whole request
        timer = LLMTimer(job, rates, topo, catalog)
        prefill = timer.prefill(b, job.input_tokens)
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
    if model.operators:  # described operator by operator: kernels, copy and the request's stages
        from gpuwise.catalog.diffusion_pipeline import coverage_note
        from gpuwise.catalog.unet_operators import attention_note

        served = _served(model, b, job, rates, catalog)
        notes = (notes if served.fused_attention else without_fused_attention(notes)) + list(served.notes)
        covers = coverage_note(model)
        if covers:
            notes.append(covers)
        if model is job.model and isinstance(model, GenericArch) and (said := attention_note(model)):
            notes.append(said)
        t, lat = served.gpu_seconds, served.gpu_seconds + served.outside_seconds
        n = b * job.items_per_request
        tokens = 0.0
        if model is not job.model:  # an encoder written out operator by operator
            notes.append(f"{model.name}: its operators written from its architecture at {job.input_tokens} tokens")
            tokens = n * job.input_tokens / t
        return InferenceEstimate(
            lat, lat, 0.0, lat, tokens, n / t, b / t, served.terms, served.bottleneck, tuple(notes)
        )
    t = generic_batch_seconds(model, b, rates, catalog.convention("generic_infer_traffic_factor"))
    notes.append(
        f"{model.name}: one forward pass over a batch of {b}; GPU time only: the serving framework, "
        f"network and feature lookups outside the GPU add latency that is not modelled"
    )
    return InferenceEstimate(t, t, 0.0, t, 0.0, b / t, b / t, {}, "compute", tuple(notes))


def _finite_run(
    job: InferenceJob,
    step: StepModel,
    setup: EngineSetup,
    prefill: float,
    terms: dict[str, float],
    notes: list[str],
    copies: int = 1,
) -> InferenceEstimate:
    """--requests N: the benchmark run itself, through the load simulation (gpuwise.estimate.simulate): N
    requests sent at the start, admitted as the batch cap and KV cache allow (no preemption), or by
    `clients` closed-loop clients; figures are the run's means and its output tokens over its whole span
    (the start-up prefills, the synchronized waves of equal requests and the drain of the last ones included).
    With `copies` engines side by side, the run is dealt over them (_split_run)."""
    if setup.pipelines > 1:
        raise UsageError(
            "--requests: a finite run on pipeline-parallel or attention-data-parallel replicas is not modelled"
        )
    n = job.requests
    if setup.max_batch < 1:
        raise RequirementNotMet(
            f"--requests: one request of {job.longest_context:,} tokens"
            + (f" (the longest {job.lengths_flag} draws)" if job.lengths_vary else "")
            + " needs more KV cache than the replica has left after its weights: the run cannot be served"
        )
    clients = job.senders
    closed, busy = clients < n, run_copies(job, copies)
    run = _split_run(job, step, setup, copies)
    times = (run.ttft, run.tpot, run.e2e, run.end)
    if not all(math.isfinite(x) for x in times):  # pragma: no cover - the cap is checked above
        raise RequirementNotMet("--requests: some requests of the run could not be served")
    each = " on each copy" if busy > 1 else ""
    if job.request_rate:
        how = f" at {job.request_rate:g} a second (Poisson, the mean of {PACED_SEEDS} draws)"
    elif closed:
        how = f" sent at the start by {clients} closed-loop clients" + (
            f", {setup.max_batch} running at most{each}" if _share(clients, 0, busy) > setup.max_batch else ""
        )
    else:
        how = f" sent at the start, admitted {min(_share(n, 0, busy), setup.max_batch)} at most at once{each}"
    if copies > 1:
        how += (
            f", dealt in arrival order over {busy} of the {copies} engine copies side by side (data parallel: request i "
            f"to copy i mod {busy}, the clients shared out as evenly as whole clients allow; the run ends with the "
            "slowest copy)"
        )
    notes.append(
        f"a finite run of {n} requests{how}: it ends after {run.end:.1f} s; TTFT and TPOT are the run's means, "
        "throughput its output tokens over its span"
    )
    if job.lengths_vary:
        notes.append(_spread_note(job, n))
    pcts = {metric: _run_percentiles(values) for metric, values in run.each.items()}
    notes.append(_percentiles_note(pcts))
    if setup.router_waits:
        notes.append(
            f"the finite run's simulation prefills prompts in steps of their own as soon as one waits; {setup.name}'s "
            "router also holds them back by its waiting rule: the run's TTFT and TPOT are optimistic"
        )
    figures = run_figures(run, n)
    return InferenceEstimate(
        prefill_seconds=prefill,
        time_to_first_token_seconds=figures["inference.time_to_first_token_seconds"],
        decode_seconds_per_token=figures["inference.decode_seconds_per_token"],
        latency_seconds=figures["inference.latency_seconds"],
        tokens_per_second=figures["inference.tokens_per_second"],
        samples_per_second=figures["inference.samples_per_second"],
        requests_per_second=figures["inference.requests_per_second"],
        terms=terms,
        bottleneck=_bottleneck(terms),
        notes=tuple(notes),
        run_percentiles=pcts,
        rerun=PacedRerun(functools.partial(_paced_at, job, step, setup, copies)) if job.request_rate else None,
    )


@dataclass(frozen=True, slots=True)
class PacedRerun:
    """A paced run's figures at a scale of its times (_paced_at), each scale simulated once: an estimate's
    bands are asked for once a figure (the report, the terminal's ranges). A plain object, so an estimate
    still pickles and copies."""

    at: Callable[[float], dict[str, float]]
    seen: dict[float, dict[str, float]] = field(default_factory=dict)

    def __call__(self, scale: float) -> dict[str, float]:
        if scale not in self.seen:
            self.seen[scale] = self.at(scale)
        return self.seen[scale]


def run_figures(run: _RunTimes, requests: int, scale: float = 1.0) -> dict[str, float]:
    """A finite run's figures by JSON path, every time `scale` times as long (1: as simulated)."""
    span = scale * run.end
    return {
        "inference.time_to_first_token_seconds": scale * run.ttft,
        "inference.decode_seconds_per_token": scale * run.tpot,
        "inference.latency_seconds": scale * run.e2e,
        "inference.tokens_per_second": run.outputs / span,
        "inference.samples_per_second": requests / span,
        "inference.requests_per_second": requests / span,
    }


def _paced_at(job: InferenceJob, step: StepModel, setup: EngineSetup, copies: int, scale: float) -> dict[str, float]:
    """A paced run's figures with every time of it `scale` times as long (its steps, and the front end's
    per-request overhead with them), its arrivals unchanged: the same run at `scale` times the rate in the
    engine's own time (the same Poisson draws, scaled to each rate, PACED_SEEDS of them as the figures'),
    every time then multiplied by `scale`. Why: near its capacity a run's TTFT is its queue, which a
    speed error grows or drains far more than in proportion (the band's ends, bands.queued_bands)."""
    run = _split_run(replace(job, request_rate=job.request_rate * scale), step, setup, copies)
    return run_figures(run, job.requests, scale)


def run_copies(job: InferenceJob, copies: int) -> int:
    """The engine copies a finite run keeps busy: all of them, or as many as it has closed-loop clients
    (or requests) when fewer (a copy no client sends to serves nothing)."""
    return max(1, min(copies, job.senders))


def busiest_senders(job: InferenceJob, copies: int) -> int:
    """The clients (or burst requests) of the busiest copy of a finite run: what its memory holds at once."""
    return _share(job.senders, 0, run_copies(job, copies))


def _split_run(job: InferenceJob, step: StepModel, setup: EngineSetup, copies: int) -> _RunTimes:
    """The run as `vllm bench serve` sends it, dealt over the busy copies (run_copies) in arrival order, as
    a server's data-parallel dispatch or a round-robin balancer does: the n arrivals (all at once, or one
    Poisson draw at the run's rate) and lengths are drawn once for the whole run, request i going to copy
    i mod k, the closed-loop clients split as evenly as whole clients allow. Means over all requests (of
    each draw, then over PACED_SEEDS draws when paced), the span the slowest copy's, output tokens all of
    theirs; one copy is the engine's own run."""
    n, clients = job.requests, job.senders
    k, closed = run_copies(job, copies), clients < n
    out = []
    each: dict[str, list[float]] = {"ttft": [], "tpot": [], "e2e": []}
    for seed in range(PACED_SEEDS) if job.request_rate else (0,):
        times = [0.0] * n
        if job.request_rate:
            drawn = poisson_arrivals(job.request_rate, n, seed)
            times = [a - drawn[0] for a in drawn]
        shapes = varied_shapes(job, setup, n, seed)
        runs = [
            _copy_run(
                step, setup, times[c::k], job.input_tokens, _dealt(shapes, c, k), _share(clients, c, k) if closed else 0
            )
            for c in range(k)
        ]
        lengths = shapes.outputs if shapes is not None else (job.output_tokens,) * n
        pooled = {m: [v for figures, _ in runs for v in figures[m]] for m in each}
        # the benchmarks' TPOT is over requests of two output tokens or more (vllm bench serve's and SGLang's
        # calculate_metrics): a one-token request has no time per output token, and its zero would pull the mean down
        dealt = [o for c in range(k) for o in lengths[c::k]]
        pooled["tpot"] = [t for t, o in zip(pooled["tpot"], dealt, strict=True) if o > 1]
        means = (statistics.fmean(pooled[m]) if pooled[m] else 0.0 for m in each)
        out.append((*means, max(end for _, end in runs), _output_tokens(job, shapes, n)))
        for m in each:
            each[m] += pooled[m]
    ttft, tpot, e2e, end, outputs = (statistics.fmean(col) for col in zip(*out, strict=True))
    return _RunTimes(ttft, tpot, e2e, end, outputs, each)


def _percentiles_note(pcts: dict[str, dict[str, float]]) -> str:
    return "the run's percentiles over its requests (nearest rank; inference.run_percentiles): " + "; ".join(
        f"{name} p50 {pcts[metric]['p50'] * 1e3:,.1f} ms, p99 {pcts[metric]['p99'] * 1e3:,.1f} ms"
        for metric, name in (("ttft", "TTFT"), ("tpot", "TPOT"), ("e2e", "latency"))
    )


def _run_percentiles(values: list[float]) -> dict[str, float]:
    """A run's percentiles of one figure (0 where no request has it: TPOT of one-token requests only)."""
    return {f"p{p:g}": percentile(values, p) if values else 0.0 for p in PERCENTILES}


def _share(total: int, c: int, k: int) -> int:
    """Copy c's share of `total` dealt over k copies (the first total mod k get one more)."""
    return total // k + (c < total % k)


def _dealt(shapes: RequestShapes | None, c: int, k: int) -> RequestShapes | None:
    """The sizes of the requests dealt to copy c of k (every k-th from the c-th)."""
    if shapes is None:
        return None
    return RequestShapes(
        shapes.prefill[c::k], shapes.context[c::k], shapes.steps[c::k], shapes.kv[c::k], shapes.outputs[c::k]
    )


def _copy_run(
    step: StepModel, setup: EngineSetup, times: list[float], prompt: int, shapes: RequestShapes | None, clients: int
) -> tuple[dict[str, list[float]], float]:
    """One engine copy's requests arriving at `times`, or sent by `clients` closed-loop clients (0: none):
    each request's TTFT, TPOT and latency, and the copy's end. The engine admits in the order requests
    reach it, as many as its cap and KV cache allow."""
    n = len(times)
    res = simulate(step, replace(setup, max_batch=min(clients or n, setup.max_batch)), times, prompt, shapes=shapes)
    figures = {"ttft": list(res.ttft), "tpot": list(res.tpot), "e2e": list(res.e2e)}
    if clients:
        # each client sends its next request when one of its own ends: request j (j >= clients) leaves its
        # client at the (j - clients)-th completion and is timed from there (a wait in the server's queue,
        # where there are more clients than the engine runs at once, counts in its TTFT)
        sent = [0.0] * clients + sorted(res.e2e)[: n - clients]
        for m in ("ttft", "e2e"):
            figures[m] = [t - s for t, s in zip(figures[m], sent, strict=True)]
    return figures, res.end


@dataclass(frozen=True, slots=True)
class _RunTimes:
    """A finite run's means (as the benchmark reports them), span and output tokens, and each request's
    figures (`each`: metric -> seconds, pooled over the draws of a paced run) for its percentiles."""

    ttft: float
    tpot: float
    e2e: float
    end: float
    outputs: float
    each: dict[str, list[float]]


PACED_SEEDS = 5  # draws of a paced run's Poisson arrivals averaged (one draw of 50 requests is noisy)


def _output_tokens(job: InferenceJob, shapes: RequestShapes | None, n: int) -> int:
    """The output tokens of a run's `n` requests: the drawn ones, or n x the job's."""
    return n * job.output_tokens if shapes is None else shapes.output_tokens


def _mean(lengths: list[int]) -> str:
    """A mean length in words: whole tokens from a hundred up, three figures below (a mean of 1.4 is not 1)."""
    m = statistics.fmean(lengths)
    return f"{m:,.0f}" if m >= 100 else f"{m:.3g}"


def _spread_note(job: InferenceJob, n: int) -> str:
    """What a run whose lengths vary drew, in words."""
    inputs, outputs = (sorted(x) for x in drawn_lengths(job, n, 0))
    how = (
        "drawn from the dataset's as its benchmark samples them (catalog datasets.yaml), scaled to the run's means"
        if job.lengths is not None
        else "drawn uniformly about the means (vLLM's --random-range-ratio)"
    )
    return (
        f"{job.lengths_flag}: each request's lengths {how}: prompts {inputs[0]:,}-{inputs[-1]:,} tokens, outputs "
        f"{outputs[0]:,}-{outputs[-1]:,} (means {_mean(inputs)} and {_mean(outputs)}, "
        f"medians {statistics.median(inputs):,.0f} and {statistics.median(outputs):,.0f})"
    )


def _served(model: GenericArch, requests: int, job: InferenceJob, rates: Rates, catalog: Catalog) -> ServedBatch:
    """gpuwise.estimate.operators.served_batch for the job's requests: its runtime, input copy, autocast and
    weights dtype (imported here: LLM serving never needs it)."""
    from gpuwise.estimate.operators import served_batch

    if job.engine in PYTORCH_RUNTIMES:
        rates = pytorch_sdpa_rates(rates, catalog)
    return served_batch(
        model,
        requests,
        job.items_per_request,
        rates,
        catalog,
        job.engine,
        job.input_from_host,
        job.autocast,
        fp16=job.weights_dtype == "fp16",
        cuda_graphs=job.cuda_graphs,
        tf32_matmul=job.tf32_matmul,
    )


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
    return "communication" if top in ("tensor_parallel_comm", "expert_parallel_comm") else top


# ------------------------------------------------------------------------------------------
# serving capacity
# ------------------------------------------------------------------------------------------
PERCENTILES = (50, 90, 95, 99)  # reported for every metric
METRICS = ("ttft", "tpot", "e2e")


@dataclass(frozen=True, slots=True)
class ServingPlan:
    qps: float
    percentile: float
    goals: LatencyGoals
    replicas: int
    gpus: int
    max_batch: int
    utilization: float
    percentiles: dict[str, dict[str, float]]  # metric (ttft, tpot, e2e) -> "p50".. "p99" -> seconds
    meets: bool
    notes: tuple[str, ...]
    concurrency: float = 0.0  # requests in flight per replica (Little's law: rate x mean latency)
    capacity_rps: float = 0.0  # one replica's requests/s at max_batch (analytic)
    margins: Margins | None = None  # the bands' pessimistic ends the targets are met at (None: at the estimate)

    @property
    def target_seconds(self) -> float:
        g = self.goals
        return next(v for v in (g.e2e_seconds, g.ttft_seconds, g.tpot_seconds, math.inf) if v is not None)

    @property
    def p50(self) -> float:
        return self.percentiles["e2e"]["p50"]

    @property
    def p95(self) -> float:
        return self.percentiles["e2e"]["p95"]

    @property
    def p99(self) -> float:
        return self.percentiles["e2e"]["p99"]

    def value(self, metric: str) -> float:
        """The simulated `metric` at the target's percentile."""
        return self.percentiles[metric][f"p{self.percentile:g}"]

    def high(self, metric: str) -> float:
        """`value(metric)` at the pessimistic end of its band (the figure a target is held to)."""
        return self.value(metric) * (1.0 if self.margins is None else self.margins.of(metric))

    @property
    def capacity_low(self) -> float:
        """The fleet's requests/s at the pessimistic end of its throughput band."""
        return self.replicas * self.capacity_rps * (1.0 if self.margins is None else self.margins.rate)

    def as_dict(self) -> dict[str, object]:
        g = self.goals
        return {
            "qps": self.qps,
            "percentile": self.percentile,
            "target_seconds": self.target_seconds,
            "targets": {"e2e_seconds": g.e2e_seconds, "ttft_seconds": g.ttft_seconds, "tpot_seconds": g.tpot_seconds},
            "replicas": self.replicas,
            "gpus": self.gpus,
            "max_batch": self.max_batch,
            "concurrency_per_replica": self.concurrency,
            "capacity_rps_per_replica": self.capacity_rps,
            "utilization": self.utilization,
            "p50_seconds": self.p50,
            "p95_seconds": self.p95,
            "p99_seconds": self.p99,
            "percentiles": self.percentiles,
            "meets": self.meets,
            "confidence": None if self.margins is None else self._at_confidence(),
        }

    def _at_confidence(self) -> dict[str, object]:
        """What the targets were held to: each metric's percentile at its band's high end, the
        fleet's capacity at the throughput band's low end, and the multipliers."""
        m = self.margins
        assert m is not None
        key = f"p{self.percentile:g}"
        return {
            "level": m.level,
            "multipliers": m.as_dict(),
            "high_seconds": {metric: self.percentiles[metric][key] * m.of(metric) for metric in METRICS},
            "capacity_rps_low": self.capacity_low,
        }


def simulate_batches(
    service: Callable[[int], float],
    rate: float,
    max_batch: int,
    n: int,
    seed: int = 0,
    *,
    outside: float = 0.0,
    targets: Targets | None = None,
) -> tuple[list[float], float, bool]:
    """Dynamic batching (Triton-style) on one replica: when idle, take up to `max_batch` waiting
    requests and serve them together in `service(batch)` seconds; each request's latency adds
    `outside` (stages around the GPU). Returns the latencies in arrival order, the busy fraction and
    whether the run stopped early: with `targets`, once more than `allowed` of the requests after the
    first `skip` take longer than the tighter of its TTFT and end-to-end limits (a request's first
    and last outputs come together here), that percentile is missed whatever the rest do, and the
    latencies are incomplete. The waiting requests are the arrivals from the oldest one unserved to
    the last one arrived (arrival order is service order)."""
    arrivals = poisson_arrivals(rate, n, seed)
    limit = math.inf if targets is None else min(targets.ttft, targets.e2e)
    skip, allowed = (0, n) if targets is None else (targets.skip, targets.allowed)
    now, busy, served, arrived, over = 0.0, 0.0, 0, 0, 0
    latencies: list[float] = []
    while served < n:
        if arrivals[served] > now:  # idle until the next arrival
            now = arrivals[served]
        arrived = bisect.bisect_right(arrivals, now, arrived)
        batch = min(max_batch, arrived - served)
        s = service(batch)
        now += s
        busy += s
        for k in range(served, served + batch):
            t = now - arrivals[k] + outside
            latencies.append(t)
            if t > limit and k >= skip:
                over += 1
        served += batch
        if over > allowed:
            return latencies, busy / now, True
    return latencies, busy / now if now else 0.0, False


def _percentiles(result: SimResult) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for metric, values in (("ttft", result.ttft), ("tpot", result.tpot), ("e2e", result.e2e)):
        seen = [v for v in values if v == v]  # NaN: never served (cannot happen once stable)
        seen.sort()
        # gpuwise.stats.percentile of each, sorted once
        out[metric] = {f"p{p:g}": seen[rank(len(seen), p)] if seen else math.inf for p in PERCENTILES}
    return out


def meets_goals(pcts: dict[str, dict[str, float]], goals: LatencyGoals) -> bool:
    """Every target given holds at its percentile."""
    key = f"p{goals.percentile:g}"
    limits = (("e2e", goals.e2e_seconds), ("ttft", goals.ttft_seconds), ("tpot", goals.tpot_seconds))
    return all(pcts[m][key] <= v for m, v in limits if v is not None)


# Simulation sizes, settings of the search (not facts about hardware): SIM_REQUESTS puts the nearest-rank
# P99 on 18 requests after the 10 % warm-up and keeps one simulated configuration under 50 ms; long outputs
# simulate fewer, within SIM_TOKEN_BUDGET output tokens (so that one web request cannot hold the server
# for seconds), and never below SIM_MIN_REQUESTS (P99 then rests on 4 requests).
SIM_REQUESTS = 2000
SIM_MIN_REQUESTS = 400
SIM_TOKEN_BUDGET = 2_000_000
# counts the replica search tries between two powers of two above 2 x GRID_SHARE (every count below)
GRID_SHARE = 128
MAX_REPLICAS = 4096  # the most replicas the search tries (the answer when none meets)


@functools.lru_cache(maxsize=4)
def _unit_arrivals(n: int) -> tuple[float, ...]:
    """The replica search's arrival pattern at one request a second (seed 0), drawn once."""
    return tuple(poisson_arrivals(1.0, n, 0))


def simulated_requests(job: InferenceJob) -> int:
    """Requests simulated per configuration: SIM_REQUESTS, fewer for long outputs so that output
    tokens x requests stays within SIM_TOKEN_BUDGET (the per-request cost cap), never below
    SIM_MIN_REQUESTS."""
    return max(SIM_MIN_REQUESTS, min(SIM_REQUESTS, SIM_TOKEN_BUDGET // max(1, job.output_tokens)))


@dataclass(frozen=True, slots=True)
class Replica:
    """One replica as the replica search sees it: what a request takes alone (a floor no replica
    count can beat), the capacity at the full batch, and the simulation at a request rate."""

    alone: dict[str, float]  # metric -> seconds on an idle replica
    peak: float  # requests/s at max_batch
    simulate: Callable[[float, Targets | None], SimResult]  # at a request rate; may stop once a target is missed
    batching: str
    max_batch: int
    caveat: str = ""  # what the simulation leaves out of this replica's engine, in words
    # (rate, TTFT limit, requests skipped, requests allowed over it) -> whether the simulation at that rate
    # surely misses the limit, from gpuwise.estimate.ttft_floor (None: no floor for this batching)
    surely_misses: Callable[[float, float, int, int], bool] | None = None


def replica(
    job: InferenceJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog, max_batch: int, n: int
) -> Replica:
    """Continuous batching with chunked prefill for decoders, dynamic batching for one-pass models."""
    model = job.model
    if isinstance(model, TransformerArch) and model.decoder:
        setup = replace(engine_setup(job, hw, catalog, launch=host_launch(rates, catalog)), max_batch=max_batch)
        step = step_model(job, rates, topo, catalog)
        pipes = setup.pipelines  # pp batches in flight: each sees its share of the requests
        peak = pipes * steady_state(step, setup, max_batch, job.input_tokens).requests_per_second

        unit = [t * pipes for t in _unit_arrivals(n)]  # one arrival pattern, scaled to each rate (t * pipes / rate)
        # what the step model is built from (a batch cap apart), the arrival pattern and the lengths drawn (the
        # job's): runs of the same replica at the same rate are made once within a plan's search (simulate_once)
        same = (replace(job, concurrency=1), repr(rates), topo, n, pipes)
        shapes = varied_shapes(job, setup, n, 0)

        def run(rate: float, targets: Targets | None = None) -> SimResult:
            arrivals = list(map(operator.truediv, unit, itertools.repeat(rate, len(unit))))
            return simulate_once((same, rate), step, setup, arrivals, job.input_tokens, targets, shapes)

        works = prefill_works(step, setup, shapes, n)

        def surely(rate: float, limit: float, skip: int, allowed: int) -> bool:
            arrivals = list(map(operator.truediv, unit, itertools.repeat(rate, len(unit))))
            return floor_misses(arrivals, works, setup.request_overhead, limit, skip, allowed)

        caveat = (
            ""
            if not setup.router_waits
            else f"the load simulation prefills prompts in steps of their own as soon as one waits; {setup.name}'s "
            "router also holds them back by its waiting rule: the simulated TTFT and TPOT percentiles are optimistic "
            "(the estimate's steady state models the router)"
        )
        lone = _alone_floor(step, setup, shapes, job.input_tokens)
        return Replica(lone, peak, run, "continuous", max_batch, caveat, surely)
    service = batch_seconds_fn(job, rates, topo, catalog)
    # stages around the GPU (framework, RPC, queue delay, feature fetch) add latency, not GPU time
    outside = 0.0
    model = timed_model(job, catalog)
    if isinstance(model, GenericArch) and model.operators:
        outside = _served(model, 1, job, rates, catalog).outside_seconds

    def dynamic(rate: float, targets: Targets | None = None) -> SimResult:  # may stop once a target is missed
        lat, busy, missed = simulate_batches(service, rate, max_batch, n, outside=outside, targets=targets)
        return SimResult(lat, [0.0] * len(lat), lat, busy, missed=missed)

    one = service(1) + outside
    return Replica(
        {"ttft": one, "tpot": 0.0, "e2e": one}, max_batch / service(max_batch), dynamic, "dynamic", max_batch
    )


def _alone_floor(step: StepModel, setup: EngineSetup, shapes: RequestShapes | None, prompt: int) -> dict[str, float]:
    """alone_metrics for a replica's floor: of the request itself, or when lengths vary of the shortest prompt
    and output drawn (no percentile of the run's requests can beat what the shortest takes alone)."""
    if shapes is None:
        return alone_metrics(step, setup, prompt)
    least = shapes.prefill.index(min(shapes.prefill))
    shortest = replace(setup, prefill_tokens=shapes.prefill[least], decode_steps=min(shapes.steps))
    return alone_metrics(step, shortest, shapes.context[least] - 1)


def capacities(
    job: InferenceJob,
    hw: Hardware,
    rates: Rates,
    topo: Topology,
    catalog: Catalog,
    batches: list[int],
    setup: EngineSetup | None = None,
) -> tuple[dict[str, float], list[float]]:
    """What one request takes on an idle replica, and the replica's capacity (requests/s) at each
    batch cap: the numbers `replica` gives, computed once per layout for the serving search
    (`setup`: the job's `engine_setup`, when the caller has it already)."""
    model = job.model
    if isinstance(model, TransformerArch) and model.decoder:
        setup = setup or engine_setup(job, hw, catalog, launch=host_launch(rates, catalog))
        step = step_model(job, rates, topo, catalog)
        shapes = varied_shapes(job, setup, simulated_requests(job), 0)
        lone = _alone_floor(step, setup, shapes, job.input_tokens)
        peaks = [
            setup.pipelines * steady_state(step, replace(setup, max_batch=b), b, job.input_tokens).requests_per_second
            for b in batches
        ]
        return lone, peaks
    reps = [replica(job, hw, rates, topo, catalog, b, 1) for b in batches]
    return (reps[0].alone if reps else {}), [r.peak for r in reps]


def batch_seconds_fn(job: InferenceJob, rates: Rates, topo: Topology, catalog: Catalog) -> Callable[[int], float]:
    """Seconds one batch of b requests takes in a one-pass model (encoders, non-LLM models)."""
    model = timed_model(job, catalog)
    if isinstance(model, TransformerArch):
        encoder = LLMTimer(job, rates, topo, catalog)
        return lambda b: encoder.prefill(b, job.input_tokens)
    traffic = catalog.convention("generic_infer_traffic_factor")

    @functools.lru_cache(maxsize=1024)
    def service(batch: int) -> float:
        if model.operators:
            return _served(model, batch, job, rates, catalog).gpu_seconds
        return generic_batch_seconds(model, batch, rates, traffic)

    return service


def serving_batch(job: InferenceJob, hw: Hardware, catalog: Catalog, memory_cap: int) -> int:
    """The batch a replica runs at most: the user's concurrency if given, else all the engine can
    hold (its cap on running requests and the KV blocks in its memory share; one-pass models: what
    fits in memory)."""
    model = job.model
    if isinstance(model, TransformerArch) and model.decoder:
        engine = engine_setup(replace(job, concurrency=1), hw, catalog).max_batch  # 0: no request fits
        return min(engine, job.concurrency) if job.concurrency > 1 else engine
    return min(memory_cap, job.concurrency) if job.concurrency > 1 else memory_cap


def replica_counts(lo: int, hi: int) -> Iterator[int]:
    """The replica counts the search tries from `lo` to `hi`, in order: every count below 2 x
    GRID_SHARE, and above it every multiple of 1/GRID_SHARE of the power of two at or below the count
    (GRID_SHARE counts between two powers of two: a fleet that large is judged in steps of under 1 %)."""
    r = max(1, lo)
    while r <= hi:
        step = _grid_step(r)
        if r % step == 0:
            yield r
            r += step
        else:
            r += step - r % step


def _grid_step(r: int) -> int:
    """1 below 2 x GRID_SHARE; else the power of two that is 1/GRID_SHARE of r's own power of two."""
    return 1 << max(0, r.bit_length() - GRID_SHARE.bit_length())


def fewest_replicas(
    ok: Callable[[int], bool],
    lo: int,
    most: int,
    beyond: int | None = None,
    surely_misses: Callable[[int], bool] | None = None,
) -> int | None:
    """The fewest count from `lo` to `most` (replica_counts) with ok(r), `most` when none is; with
    `beyond` (the caller has no use for a count above it), None when none up to it is. ok need not
    be monotone in r: every count is tried in turn, except those `surely_misses` rules out, a
    predicate that is monotone (it holds for every count below one it holds for) and implies that
    ok does not hold. The answer with `beyond` is the answer without it whenever that is at most
    `beyond`."""
    far = most if beyond is None else min(most, beyond)
    if surely_misses is not None:
        lo = _first_possible(surely_misses, lo, far)
    for r in replica_counts(lo, far):
        if ok(r):
            return r
    return most if far >= most else None


def _first_possible(surely_misses: Callable[[int], bool], lo: int, hi: int) -> int:
    """The fewest count from `lo` on that `surely_misses` does not rule out (hi + 1 when it rules
    out every count up to `hi`): galloping up, then bisecting (it is monotone)."""
    if lo > hi or not surely_misses(lo):
        return lo
    bad, step = lo, 1  # surely_misses(bad)
    while True:
        nxt = min(hi, bad + step)
        if surely_misses(nxt):
            if nxt >= hi:
                return hi + 1
            bad, step = nxt, step * 2
            continue
        good = nxt
        break
    while good - bad > 1:
        mid = (good + bad) // 2
        bad, good = (mid, good) if surely_misses(mid) else (bad, mid)
    return good


def _surely(rep: Replica, qps: float, held: LatencyGoals, targets: Targets) -> Callable[[int], bool] | None:
    """Whether `r` replicas surely miss the time to first token (or end to end, which is never
    shorter) that the simulation is held to, by the replica's first-token floor alone; None when
    there is no floor or no such target."""
    limit = min(v for v in (held.ttft_seconds, held.e2e_seconds, math.inf) if v is not None)
    floor = rep.surely_misses
    if floor is None or limit == math.inf:
        return None
    return lambda r: floor(qps / r, limit, targets.skip, targets.allowed)


def _searched(
    ok: Callable[[int], bool],
    floor: int,
    most: int,
    useful: int | None,
    surely_misses: Callable[[int], bool] | None,
    notes: list[str],
) -> int | None:
    """`fewest_replicas` from the capacity's `floor` to `most` (`most` when none meets: then simulated,
    for its figures); None when no count up to `useful` meets, which `notes` then says. The caller
    keeps `floor` at or below `most`."""
    found = fewest_replicas(ok, floor, most, useful, surely_misses)
    if found == most:  # none meets: `most` is reported, simulated in full even where the floor ruled it out
        ok(most)
    if found is None:  # the answer is above `useful`: not searched further
        notes.append(
            f"no count up to {useful} replicas meets the targets; more were not searched (a cheaper plan is known)"
        )
    return found


def _unreachable(rep: Replica, goals: LatencyGoals, m: Margins) -> str | None:
    """The target an idle replica already misses (no replica count helps), said for a person; with
    margins below certainty, at its band's high end."""
    for metric, limit in (("ttft", goals.ttft_seconds), ("tpot", goals.tpot_seconds), ("e2e", goals.e2e_seconds)):
        high = rep.alone[metric] * m.of(metric)
        if limit is not None and high > limit:
            name = {"ttft": "its first token", "tpot": "each output token", "e2e": "one request alone"}[metric]
            band = f" (up to {high * 1e3:.0f} ms at {m.level:.0%})" if m.of(metric) != 1.0 else ""
            return (
                f"{name} takes {rep.alone[metric] * 1e3:.0f} ms{band} on an idle replica: no replica count meets "
                f"a {limit * 1e3:.0f} ms P{goals.percentile:g} {metric.upper()} target (one request alone takes "
                f"{rep.alone['e2e'] * 1e3:.0f} ms end to end)"
            )
    return None


def plan_replicas(
    job: InferenceJob,
    hw: Hardware,
    rates: Rates,
    topo: Topology,
    catalog: Catalog,
    *,
    qps: float,
    goals: LatencyGoals,
    max_batch: int,
    n: int | None = None,
    max_replicas: int = MAX_REPLICAS,
    margins: Margins | None = None,
    useful: int | None = None,
) -> ServingPlan:
    """Fewest replicas whose simulated TTFT, TPOT and end-to-end percentiles meet `goals` at `qps`
    (Poisson): the analytic capacity gives the floor, the simulation decides. With `margins`, each
    percentile times its band's high end must meet its target and the capacity at the throughput
    band's low end must carry the load (the targets at a confidence).

    The answer is the fewest count that meets (`replica_counts`: every count below 2 x GRID_SHARE):
    the simulated verdict is not monotone in the count, so each is simulated in turn from the first
    that neither the capacity nor the first-token floor (gpuwise.estimate.ttft_floor) rules out.

    `useful`: a caller that has a cheaper plan needs no count above it: the search stops there and
    the plan then says it does not meet, with no figures; an answer at or below `useful` is the one
    the search without it finds."""
    n = n or simulated_requests(job)
    rep = replica(job, hw, rates, topo, catalog, max_batch, n)
    notes = [
        f"{rep.batching} batching up to {max_batch} per replica, Poisson arrivals, {n} simulated requests per candidate"
    ] + ([rep.caveat] if rep.caveat else [])
    m = margins or Margins(1.0)
    held = goals.tightened(m.ttft, m.tpot, m.e2e)  # what the simulated figures themselves must meet
    peak = rep.peak * m.rate  # a replica's capacity at the pessimistic end
    blocked = _unreachable(rep, goals, m)
    if blocked:
        return _unsized(rep, qps, goals, max_batch, margins, [*notes, blocked])
    warm = n // 10
    cache: dict[int, tuple[bool, SimResult | None]] = {}
    limits = (held.ttft_seconds, held.tpot_seconds, held.e2e_seconds)
    targets = Targets(warm, tolerated(n - warm, held.percentile), *(math.inf if v is None else v for v in limits))

    def ok(r: int) -> bool:
        """Stable (offered load below capacity) and every simulated percentile within its target. A
        count that misses may stop its simulation early: only the answer's figures are reported, and
        the answer either meets or is `max_replicas`, which always runs in full. A run judged against
        `targets` to its end says itself whether they hold (SimResult.met): no percentile to read."""
        if r not in cache:
            res = None
            if qps / (r * peak) < 1:
                res = rep.simulate(qps / r, targets if r < max_replicas else None).warm(warm)
            if res is None or res.missed:
                met = False
            else:
                met = res.met if res.met is not None else meets_goals(_percentiles(res), held)
            cache[r] = (met, None if res is None or res.missed else res)
        return cache[r][0]

    floor = math.floor(qps / peak) + 1  # fewer cannot carry the load at the capacity band's low end
    if floor > max_replicas:  # no count searched carries it: nothing to simulate, and no infinite figure
        carry = f"carrying {qps:g} requests/s takes at least {floor} replicas at the capacity band's low end"
        return _unsized(rep, qps, goals, max_batch, margins, [*notes, f"{carry}, above the {max_replicas} searched"])
    found = _searched(ok, floor, max_replicas, useful, _surely(rep, qps, held, targets), notes)
    if found is None:  # none up to `useful` meets: no count is sized, and no figure simulated
        return _unsized(rep, qps, goals, max_batch, margins, notes)
    r = found
    met, res = cache[r]
    assert res is not None  # `r` meets, or is `max_replicas`, simulated in full at a load it carries
    pcts = _percentiles(res)
    util = qps / (r * rep.peak)
    in_flight = qps / r * (sum(res.e2e) / len(res.e2e))
    notes.append(
        f"utilization = offered load / replica capacity ({rep.peak:.2f} requests/s at batch {max_batch}); "
        f"{in_flight:.1f} requests in flight per replica (Little's law: {qps / r:.2f}/s x mean latency)"
    )
    fields = (r, r * hw.count, max_batch, util, pcts, met, tuple(notes), in_flight, rep.peak, margins)
    return ServingPlan(qps, goals.percentile, goals, *fields)


def _unsized(
    rep: Replica, qps: float, goals: LatencyGoals, max_batch: int, margins: Margins | None, notes: list[str]
) -> ServingPlan:
    """No replica count sized (an idle replica already misses a target, the load needs more replicas
    than are searched, or no count up to what a cheaper plan costs meets): zero replicas, not
    meeting, with an idle replica's figures."""
    pcts = {k: {f"p{p:g}": rep.alone[k] for p in PERCENTILES} for k in METRICS}
    return ServingPlan(
        qps, goals.percentile, goals, 0, 0, max_batch, 0.0, pcts, False, tuple(notes), 0.0, rep.peak, margins
    )
