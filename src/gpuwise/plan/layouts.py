"""The training layout search on one GPU type and count: every layout that makes sense, the fastest
that fits.

At a fixed GPU type and count the price per hour is fixed, so the cheapest layout is the fastest
one: the search maximises samples per second among the layouts that fit in memory. The space is
tensor parallelism inside a node x pipeline parallelism x ZeRO stage 0-3 (across nodes also hybrid
sharding or ZeRO++ where the stack has them) x micro-batch (with the
gradient accumulation that makes the global batch) x recomputation, with sequence parallelism on
whenever tensor parallelism is (it shards activations for the same communication volume).

Pruning is by dominance, never by guess: memory only grows with the micro-batch and only shrinks
with the ZeRO stage and recomputation, and recomputation only adds time, so for each tensor x
pipeline x micro-batch x ZeRO combination only the lightest-in-time recomputation that fits is
timed, and a micro-batch that does not fit even at the most sharded stage with full
recomputation ends the walk over larger ones. tests/test_plan_layouts.py checks the result
against every layout `estimate` accepts at the same GPU type and count.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

from gpuwise.catalog import GPU, Catalog, GenericArch, TransformerArch, embedding_sharded
from gpuwise.catalog.schema import Framework
from gpuwise.estimate import memory
from gpuwise.estimate.bands import band_for, class_key
from gpuwise.estimate.comm import topology
from gpuwise.estimate.memory.states import autocast_fp32_stream, fp8_params, framework_of
from gpuwise.estimate.rates import Rates
from gpuwise.workload import Hardware, Parallelism, TrainingJob
from gpuwise.workload.specs import (
    ZEROPP,
    Recompute,
    Sharding,
    ZeroPP,
    full_recompute_allowed,
    integer_base,
    interleavable,
    interleaved_only,
)

__all__ = [
    "CostBound",
    "LayoutChoice",
    "best_layout",
    "cost_bound",
    "expert_degrees",
    "hardware",
    "micro_batches",
    "shardings",
    "sizing_limit",
    "tp_pp",
    "zero_stages",
]

TP_DEGREES = (1, 2, 4, 8)  # tensor parallelism stays inside a node
EP_DEGREES = (1, 2, 4, 8, 16, 32, 64, 128, 256)  # expert parallelism, where the stack shards MoE experts
PP_DEGREES = (1, 2, 4, 8, 16)
VPP_DEGREES = (2, 4, 8)  # virtual stages per rank of the interleaved schedule, where the stack runs it
MAX_MICRO_OPTIONS = 8  # micro-batches tried per layout: powers of two up to the user's x 2^7
# the branch and bound lets a framework run up to 1/0.9 faster than the catalog's fastest fitted factor,
# so that a stack fitted above it is never pruned wrongly (a margin of the search, not a measurement)
BOUND_RATE_SLACK = 0.9


@dataclass(frozen=True, slots=True)
class LayoutChoice:
    """The fastest layout that fits on one GPU type and count (None: nothing fits), the smallest
    per-GPU memory any layout needed (for the 'does not fit' reason), and the layouts timed."""

    job: TrainingJob | None
    samples_per_second: float
    smallest_need: float
    timed: int


def hardware(gpu: GPU, count: int) -> Hardware:
    """`count` GPUs in nodes of the GPU's usual size (a partial node below that size)."""
    return Hardware(gpu=gpu, count=count, gpus_per_node=min(count, gpu.node_gpus))


def tp_pp(model: TransformerArch | GenericArch, count: int, node_gpus: int) -> list[tuple[int, int]]:
    """Tensor x pipeline degrees that divide the model and the GPU count, least parallel first."""
    if not isinstance(model, TransformerArch):
        return [(1, 1)]
    out: list[tuple[int, int]] = []
    for tp in TP_DEGREES:
        if tp > min(count, node_gpus) or model.heads % tp or model.ffn % tp:
            continue
        if model.kv_heads % tp and tp % model.kv_heads:
            continue
        out += [(tp, pp) for pp in PP_DEGREES if count % (tp * pp) == 0 and pp <= model.layers]
    return out


def micro_batches(work: TrainingJob, dp: int) -> list[int]:
    """Micro-batches that make the global batch a whole number of steps over `dp` ranks, smallest
    first. Without a global batch the user's micro-batch is the batch per GPU, so it stays; where
    the user named no batch and the catalog bounds the model's global batch (`work.batch_bound`),
    the batch per GPU is every power of two whose global batch over `dp` ranks stays within it
    (none when even one sample per rank exceeds it). A step in backward (--optimizer-in-backward)
    accumulates nothing, so its micro-batch is the rank's whole share of the global batch."""
    gb = work.global_batch
    if gb is None and work.batch_bound is not None:
        largest = work.batch_bound.samples // dp
        return [2**i for i in range(largest.bit_length())]
    if gb is None:
        return [work.micro_batch]
    if gb % dp:
        return []
    per_rank = gb // dp
    if work.optimizer_in_backward:  # a step in backward takes one micro-batch a step: the whole batch of a rank
        return [per_rank]
    options = {m for m in (2**i for i in range(MAX_MICRO_OPTIONS + 4)) if per_rank % m == 0}
    if per_rank % work.micro_batch == 0:
        options.add(work.micro_batch)
    return sorted(options)[: MAX_MICRO_OPTIONS + 1]


def expert_degrees(work: TrainingJob, count: int, tp: int, pp: int, cat: Catalog) -> tuple[int, ...]:
    """Expert-parallel degrees worth timing for a mixture of experts on a stack that shards them
    (frameworks.yaml `expert_parallel`, Megatron Core): each that divides the experts and whose
    ep x etp grid (etp = tp, Megatron's default) divides a pipeline stage's ranks. Each rank then
    holds, reduces and updates 1/ep of the experts for a dispatch and combine all-to-all per layer,
    so neither side dominates: every degree is timed. (1,) for a dense model."""
    model = work.model
    if not isinstance(model, TransformerArch) or not model.is_moe or not framework_of(work, cat).expert_parallel:
        return (1,)
    ranks = count // pp
    return tuple(ep for ep in EP_DEGREES if model.experts % ep == 0 and ranks % (ep * tp) == 0)


def zero_stages(
    dp: int,
    pp: int,
    accumulates: bool,
    pipeline_max_zero: int = 1,
    tables_sharded: bool = False,
    zero_offload: bool = False,
    fp32_stream: bool = False,
) -> tuple[int, ...]:
    """ZeRO stages worth timing. One data-parallel rank: nothing to shard, but where the stack runs
    DeepSpeed's ZeRO-Offload and the optimizer is kept in CPU memory (`zero_offload`), the layout is
    ZeRO-Offload on one GPU (ZeRO-2: 16-bit weights on the GPU, the fp32 master with the optimizer on
    the CPU): DeepSpeed offloads the optimizer under ZeRO stages 1-3 only. In one micro-batch a step,
    ZeRO-1 and -2 move the same bytes as plain data parallelism (reduce-scatter + all-gather =
    all-reduce; Rajbhandari et al., section 7) with a sharded optimizer and less memory, so stage 2
    dominates 0 and 1; with gradient accumulation stage 2 reduce-scatters every micro-batch, so
    stage 1 (reducing once) is timed too, after 2 so that a tie keeps the smaller one. With pipeline
    stages, what the stack combines with them (`pipeline_max_zero`: Megatron's distributed optimizer
    and DeepSpeed, which refuses ZeRO-2/3 with pipelines, shard the optimizer only; torchtitan's FSDP
    goes further). A recommender trains embedding-sharded: its tables are split over the GPUs already
    and its dense part runs under DDP (TorchRec). Where stage 0 runs plain AMP over fp32 parameters
    (`fp32_stream`: an fp32 residual stream), a sharding wrapper's 16-bit parameters (FSDP's mixed
    precision, DeepSpeed's 16-bit engine) step faster even on one rank, so stages 2 and 3 are timed there
    too, within what the stack combines with pipeline stages."""
    if tables_sharded:
        return (0,)
    if dp == 1:
        if zero_offload:
            return (2,)
        return (0, *(z for z in (2, 3) if fp32_stream and (pp == 1 or z <= pipeline_max_zero)))
    if pp > 1:
        return tuple(range(1, max(1, pipeline_max_zero) + 1))
    return (2, 1, 3) if accumulates else (2, 3)


def shardings(work: TrainingJob, hw: Hardware, zero: int, cat: Catalog) -> list[tuple[Sharding, tuple[ZeroPP, ...]]]:
    """Full sharding always; across nodes also what the stack offers there: hybrid sharding (shard
    inside a node, replicate across; FSDP, torchtitan) for ZeRO-2/3 and ZeRO++ (DeepSpeed) for ZeRO-3.
    Neither changes the compute, so only their memory and collectives decide."""
    out: list[tuple[Sharding, tuple[ZeroPP, ...]]] = [("full", ())]
    if hw.nodes <= 1:
        return out
    prof = framework_of(work, cat)
    if prof.hybrid_sharding and zero >= 2:
        out.append(("hybrid", ()))
    if prof.zeropp and zero == 3:
        out.append(("full", ZEROPP))
    return out


def _recomputes(work: TrainingJob) -> tuple[Recompute, ...]:
    """Fastest first; models known only by totals have no layers to recompute, and expert-parallel
    overlap no full recomputation (workload.specs.full_recompute_allowed)."""
    if not isinstance(work.model, TransformerArch):
        return ("none",)
    return ("none", "selective", "full") if full_recompute_allowed(work.overlap_ep_comm) else ("none", "selective")


def _fits(job: TrainingJob, hw: Hardware, cat: Catalog, limit: float) -> tuple[bool, float]:
    need = memory(job, hw, cat).per_gpu.total
    return need <= limit, need


def sizing_limit(work: TrainingJob, hw: Hardware, cat: Catalog, level: float | None) -> float | None:
    """Where the plan sizes the batch per GPU (no batch named, a bound in the catalog), the most
    memory a layout may need at the estimate so that it still fits at the high end of the memory
    band at `level`: the capacity over the band's high multiplier. None where the batch is given."""
    if work.batch_bound is None or level is None or cat.uncertainty is None:
        return None
    high = band_for(cat.uncertainty, class_key("memory", work, hw.gpu), level).high
    return hw.gpu.capacity_bytes / max(1.0, high)


def _degrees(work: TrainingJob, hw: Hardware, cat: Catalog) -> list[tuple[int, int]]:
    """Tensor parallelism inside a node; pipeline stages across nodes, with tensor parallelism
    filling each node (Megatron's layout), never more stages than nodes; none for a stack that runs
    data parallelism only, nor for a quantized base: Transformers/PEFT split its layers over GPUs only
    by a device_map inside one process, one GPU busy at a time, which is no pipeline schedule (`estimate`
    takes it as --pp for a run that did it; refuses --tp)."""
    pairs = tp_pp(work.model, hw.count, hw.gpus_per_node)
    if not pairs:
        return []
    if not framework_of(work, cat).model_parallel:  # data parallelism only (llm.c)
        return [(1, 1)] if (1, 1) in pairs else []
    if work.quantized_base:  # a quantized base under Transformers/PEFT: data parallelism (and FSDP/ZeRO) only
        return [(1, 1)]
    widest = max(tp for tp, _ in pairs)
    return [(tp, pp) for tp, pp in pairs if pp == 1 or (tp == widest and pp <= hw.nodes)]


@dataclass(slots=True)
class _Search:
    """One GPU type and count: the timer, the best so far and the counters."""

    work: TrainingJob
    hw: Hardware
    cat: Catalog
    rates: Rates
    recomputes: tuple[Recompute, ...]
    limit: float  # the most memory per GPU a layout may need (the capacity, or less: sizing_limit)
    best: TrainingJob | None = None
    best_rate: float = 0.0
    smallest: float = math.inf
    timed: int = 0

    def fits(self, job: TrainingJob) -> bool:
        ok, need = _fits(job, self.hw, self.cat, self.limit)
        self.smallest = min(self.smallest, need)
        return ok

    def time(self, job: TrainingJob) -> float:
        from gpuwise.estimate.training import training_time  # a serving plan never loads it

        rate = training_time(job, self.hw, self.rates, topology(self.hw, self.cat, self.hw.network), self.cat)
        self.timed += 1
        if rate.samples_per_second > self.best_rate:
            self.best, self.best_rate = job, rate.samples_per_second
        return rate.samples_per_second

    def largest_micro(self, job: TrainingJob, micros: list[int]) -> int | None:
        """The largest micro-batch in `micros` with which `job` fits (memory grows with it)."""
        lo, hi, found = 0, len(micros) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            if self.fits(replace(job, micro_batch=micros[mid])):
                found, lo = micros[mid], mid + 1
            else:
                hi = mid - 1
        return found


def _flat(s: _Search, par: Parallelism, micros: list[int]) -> None:
    """No pipeline: the step only gets faster with a larger micro-batch at the same recomputation
    (fewer, larger passes; the same bytes communicated), so each recomputation level is timed at
    the largest micro-batch it allows, and only when that is larger than a lighter level's."""
    previous = 0
    for rc in s.recomputes:
        job = replace(s.work, parallel=par, recompute=rc)
        micro = s.largest_micro(job, micros)
        if micro is not None and micro > previous:
            s.time(replace(job, micro_batch=micro))
            previous = micro


def virtual_stages(work: TrainingJob, hw: Hardware, par: Parallelism, micro: int, cat: Catalog) -> tuple[int, ...]:
    """Virtual stages per rank worth timing: 1 (1F1B), and where the stack runs the interleaved
    schedule each of VPP_DEGREES that divides the stage's layers, when the micro-batches are a
    multiple of the pipeline size (Megatron's schedule requires it); with expert-parallel overlap only
    the interleaved ones. Interleaving divides the bubble by vpp for vpp times the point-to-point
    sends and more activations held."""
    model = work.model
    if par.pp <= 1:
        return (1,)
    plain = () if interleaved_only(work.overlap_ep_comm, par.pp) else (1,)  # 1F1B, where the stack allows it
    if not isinstance(model, TransformerArch) or not framework_of(work, cat).interleaved_pipeline:
        return plain
    m = replace(work, parallel=par, micro_batch=micro).grad_accumulation(hw.count)
    if m % par.pp:
        return plain
    layers = math.ceil(model.layers / par.pp)
    return (*plain, *(v for v in VPP_DEGREES if layers % v == 0 and interleavable(model.layers, par.pp, v)))


def _piped(s: _Search, par: Parallelism, micros: list[int]) -> None:
    """Pipeline stages: a larger micro-batch also lengthens the bubble, so micro-batches are
    walked upwards, each with the least recomputation that fits and every number of virtual stages
    (more of them hold more activations, so none fits where 1F1B does not), until the rate stops
    rising."""
    last = 0.0
    for micro in micros:
        rate = 0.0
        stages = virtual_stages(s.work, s.hw, par, micro, s.cat)
        if not stages:  # none at this micro-batch (the interleaved schedule's count): try the next
            continue
        for vpp in stages:
            p = replace(par, vpp=vpp)
            job = next(
                (j for rc in s.recomputes if s.fits(j := replace(s.work, parallel=p, recompute=rc, micro_batch=micro))),
                None,
            )
            if job is None:
                break
            rate = max(rate, s.time(job))
        if rate <= last:
            return
        last = rate


# CPU offload (ZeRO-Offload, then ZeRO-Infinity / FSDP cpu_offload) trades PCIe time for memory:
# tried, lightest first, only on a count where no layout fits without it.
OFFLOADS: tuple[tuple[str, ...], ...] = (("optimizer",), ("optimizer", "params"))


def best_layout(
    work: TrainingJob,
    hw: Hardware,
    cat: Catalog,
    rates: Rates,
    degrees: tuple[int, int, int] | None = None,
    level: float | None = None,
) -> LayoutChoice:
    """The layout with the most samples per second that fits on `hw` (see the module docstring);
    where none fits and the job names no offload itself, the same search with CPU offload.
    `degrees` (tensor, pipeline, context) fixes those three, as a published run states them; the
    search then chooses the rest (ZeRO stage, micro-batch, recomputation, virtual stages).

    Where the plan sizes the batch per GPU (`work.batch_bound`) at a confidence `level`, a layout
    must fit at the memory band's high end (`sizing_limit`; at the estimate where none does), and
    the batch is the smallest whose rate is within its tolerance (catalog conventions
    `batch_sizing_tolerance`) of the fastest: a larger one buys a few percent nearer running out of memory."""
    capacity, limit = hw.gpu.capacity_bytes, sizing_limit(work, hw, cat, level)
    if limit is None:
        choice = _search(work, hw, cat, rates, degrees, capacity)
    elif (choice := _sized(work, hw, cat, rates, degrees, limit)).job is None:
        choice = _sized(work, hw, cat, rates, degrees, capacity)  # none fits at the high end: at the estimate
    # an optimizer kept in CPU memory needs an optimizer: --optimizer none has none to move
    retries = OFFLOADS if work.updates else ()
    for offload in retries if choice.job is None and not work.offload else ():
        tried = _search(replace(work, offload=offload), hw, cat, rates, degrees, capacity)  # type: ignore[arg-type]
        if tried.job is not None:
            return tried
    return choice


def _sized(
    work: TrainingJob, hw: Hardware, cat: Catalog, rates: Rates, degrees: tuple[int, int, int] | None, limit: float
) -> LayoutChoice:
    """The fastest layout that fits within `limit`, at the smallest batch per GPU whose rate is
    within the tolerance of its own (smaller batches of the same layout, walked down while they are)."""
    choice = _search(work, hw, cat, rates, degrees, limit)
    best, bound = choice.job, work.batch_bound
    if best is None or bound is None or best.parallel.vpp > 1:  # interleaving ties micro-batches to stages
        return choice
    floor = choice.samples_per_second * (1 - bound.tolerance)
    s = _Search(work, hw, cat, rates, _recomputes(work), limit, timed=choice.timed)
    job, rate = best, choice.samples_per_second
    for micro in reversed([m for m in micro_batches(work, best.parallel.dp(hw.count)) if m < best.micro_batch]):
        smaller = replace(best, micro_batch=micro)
        r = s.time(smaller)
        if r < floor:
            break
        job, rate = smaller, r
    return LayoutChoice(job, rate, choice.smallest_need, s.timed)


def _search(
    work: TrainingJob,
    hw: Hardware,
    cat: Catalog,
    rates: Rates,
    degrees: tuple[int, int, int] | None,
    limit: float,
) -> LayoutChoice:
    """The fastest layout that fits. A model that is not a language model, on the default stack with
    nothing that needs sharding (`TrainingJob.plain_ddp`), trains as its trainers run it: plain DDP, ZeRO-0; the
    sharded stages are searched only where no ZeRO-0 layout fits on this count (as an engineer turns
    to FSDP when DDP runs out of memory), never for a few percent that the model gives FSDP's 16-bit
    parameters over autocast's weight casts."""

    def stages(ddp_only: bool) -> _Search:
        s = _Search(work, hw, cat, rates, _recomputes(work), limit)
        _search_stages(s, degrees, ddp_only=ddp_only)
        return s

    s = stages(ddp_only=True) if work.plain_ddp and not work.offload else None
    if s is None or s.best is None:
        s = stages(ddp_only=False)
    return LayoutChoice(s.best, s.best_rate, s.smallest, s.timed)


def _search_stages(s: _Search, degrees: tuple[int, int, int] | None, *, ddp_only: bool) -> None:
    """Time, into `s`, every tensor x pipeline x ZeRO x sharding layout the stack runs (`ddp_only`: plain
    data parallelism alone, the whole model on every GPU at ZeRO-0)."""
    work, hw, cat = s.work, s.hw, s.cat
    cp = degrees[2] if degrees else 1
    prof = framework_of(work, cat)
    offloads = prof.zero_offload and "optimizer" in work.offload  # ZeRO-Offload: one GPU may shard too
    amp = autocast_fp32_stream(work, prof, zero=0)  # plain AMP at stage 0: its fp32 stream (zero_stages)
    for tp, pp in [degrees[:2]] if degrees else _degrees(work, hw, cat):
        if ddp_only and tp * pp * cp > 1:  # DDP replicates the whole model on every GPU
            continue
        dp = hw.count // (tp * pp * cp)
        micros = micro_batches(work, dp)
        if not micros:
            continue
        accumulates = work.global_batch is not None and work.global_batch // dp > micros[0]
        stages = zero_stages(
            dp * cp, pp, accumulates, prof.pipeline_max_zero, embedding_sharded(work.model), offloads, amp
        )
        if ddp_only:
            stages = (0,)
        if fp8_params(work):  # Megatron Core's FP8 parameters run with its distributed optimizer only
            stages = (1,)
        if not work.updates:  # ZeRO-1/2 partition an optimizer's states and step: there is none
            stages = tuple(z for z in stages if z not in (1, 2)) or (0,)
        stages = _offloadable(work, prof, pp, stages)
        for ep, zero in itertools.product(
            expert_degrees(work, hw.count, tp, pp, cat), [z for z in stages if z in prof.zero_stages]
        ):
            for sharding, zeropp in shardings(work, hw, zero, cat):
                par = Parallelism(
                    tp=tp, pp=pp, cp=cp, ep=ep, zero=zero, sequence_parallel=tp > 1, sharding=sharding, zeropp=zeropp
                )
                (_piped if pp > 1 else _flat)(s, par, micros)


def _offloadable(work: TrainingJob, prof: Framework, pp: int, stages: tuple[int, ...]) -> tuple[int, ...]:
    """The stages that run the job's offload and base, as `estimate` accepts them: DeepSpeed offloads
    parameters under ZeRO-3 only (its offload_param), which it does not combine with pipeline stages;
    only an NF4 base shards or offloads under ZeRO-3 or FSDP (workload.build._check_kbit_layout)."""
    integer = integer_base(work.quantized_base)
    if integer and "params" in work.offload:
        return ()
    if prof.zero_offload and "params" in work.offload:
        stages = (3,) if pp == 1 or prof.pipeline_max_zero >= 3 else ()
    if integer:
        stages = tuple(z for z in stages if z != 3)
    return stages


@dataclass(slots=True)
class CostBound:
    """Branch and bound over GPU types and counts. A run needs its model FLOPs whatever the layout,
    and no GPU computes them faster than its large-matmul rate x the framework factor, so
    `flops / rate` bounds the time from below on any count and `price x flops / rate` the cost on
    any count of that type. A type whose bound exceeds the cheapest plan found that meets every
    requirement cannot win; a count whose time bound exceeds the deadline cannot meet it."""

    prune_cost: bool  # renting, ranked by cost: cost follows time
    framework: float  # the framework factor the bound assumes (at most 1)
    flops: dict[int, float] = field(default_factory=dict)  # workload variant -> model FLOPs of the run
    best: dict[int, float] = field(default_factory=dict)  # variant -> cheapest cost meeting everything

    def ideal_seconds(self, variant: int, rates: Rates, count: int) -> float | None:
        total = self.flops.get(variant)
        return None if total is None else total / (count * rates.matmul * self.framework)

    def ideal_cost(self, variant: int, rates: Rates, usd_per_gpu_hour: float | None) -> float | None:
        one = self.ideal_seconds(variant, rates, 1)
        return None if one is None or usd_per_gpu_hour is None else usd_per_gpu_hour * one / 3600

    def beaten(self, variant: int, rates: Rates, usd_per_gpu_hour: float | None) -> tuple[float, float] | None:
        """(bound, best) when this GPU type cannot beat the best plan so far, else None."""
        ideal = self.ideal_cost(variant, rates, usd_per_gpu_hour)
        best = self.best.get(variant)
        if not self.prune_cost or ideal is None or best is None or ideal < best:
            return None
        return ideal, best

    def record(self, variant: int, flops: float | None, cost: float | None, ok: bool) -> None:
        if flops:
            self.flops.setdefault(variant, flops)
        if ok and cost is not None:
            self.best[variant] = min(cost, self.best.get(variant, math.inf))


def cost_bound(cat: Catalog, prune_cost: bool) -> CostBound:
    """The bound with the catalog's framework factor (1.0 where the catalog names none)."""
    # the fastest framework profile (scripts/fit_efficiency.py fits one efficiency per stack)
    framework = max((p.efficiency for p in cat.frameworks.values()), default=1.0)
    # frameworks are fitted per stack: the bound allows one faster than the catalog's median factor
    return CostBound(prune_cost, min(1.0, framework / BOUND_RATE_SLACK))
