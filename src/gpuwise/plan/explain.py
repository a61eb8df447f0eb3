"""Reasons a person can read, as data: why the chosen plan, and for each runner-up the requirement
it misses or the cost term that makes it lose against the chosen plan (gpuwise.i18n words them).

A training run costs price per GPU-hour x GPUs x hours = price per GPU-hour / (rate per GPU), so a
costlier runner-up loses on the GPU-hour price or on the work one GPU does per hour, whichever ratio
is larger; a serving fleet costs price per GPU-hour x GPUs, so it loses on price or on size.
"""

from __future__ import annotations

from gpuwise.catalog import Catalog, GenericArch, embedding_sharded
from gpuwise.estimate.memory.states import autocast_fp32_stream, framework_of
from gpuwise.plan.results import Candidate, Code, Reason
from gpuwise.workload import TrainingJob

__all__ = ["explain", "headline", "layout_reason", "rate_unit"]


def headline(objective: str) -> Reason:
    return Reason.of(Code.CHEAPEST if objective == "cost" else Code.FASTEST)


def rate_unit(kind: str, task: str | None) -> tuple[str, str]:
    """Which training rate a model is measured in, and the unit's name: tokens/s for transformers,
    images/s for vision models, samples/s for the rest (recommenders, tabular)."""
    if kind == "transformer":
        return "tokens_per_second", "tokens"
    return "samples_per_second", "images" if task == "vision" else "samples"


def layout_reason(w: TrainingJob, count: int, gpu: str) -> Reason:
    """The parallel layout in the frameworks' terms: degrees, ZeRO stage, recomputation, batch; a
    recommender's as its stack runs it: tables split over the GPUs, the dense part replicated."""
    par, model = w.parallel, w.model
    if count > 1 and isinstance(model, GenericArch) and embedding_sharded(model):
        return Reason.of(
            Code.TABLES_LAYOUT,
            count=count,
            gpu=gpu,
            table_params=model.embedding_params / count,
            dense_params=model.dense_params,
            micro_batch=w.micro_batch,
            accumulation=w.grad_accumulation(count),
        )
    return Reason.of(
        Code.LAYOUT,
        tp=par.tp,
        sequence_parallel=bool(par.sequence_parallel and par.tp > 1),
        pp=par.pp,
        dp=par.dp(count),
        expert=par.ep,
        zero=par.zero,
        recompute=w.recompute,
        micro_batch=w.micro_batch,
        accumulation=w.grad_accumulation(count),
        count=count,
        gpu=gpu,
    )


def _per_gpu_rate(c: Candidate) -> float | None:
    t = c.est.training
    return None if t is None or not c.gpus else t.samples_per_second / c.gpus


def _overhead(c: Candidate) -> float:
    """Wall time over failure-free training time: start-up, failures, checkpoints, staging."""
    t = c.est.training
    if t is None or not t.total_seconds or c.hours is None:
        return 1.0
    return c.hours * 3600 / t.total_seconds


def _gpu_hour(c: Candidate) -> float | None:
    """What one GPU of the fleet costs an hour (its share of the instances, packed ones shared)."""
    hourly = c.hourly
    return None if hourly is None else hourly / c.gpus


def _loss_term(c: Candidate, chosen: Candidate) -> Reason:
    """The cost term that makes `c` dearer than `chosen`: the GPU-hour price, the work per GPU, or
    (serving) the fleet's size."""
    p, p0 = _gpu_hour(c), _gpu_hour(chosen)
    price_ratio = p / p0 if p and p0 else 1.0
    price = Reason.of(Code.TERM_PRICE, price_usd=p, chosen_usd=p0)
    if c.est.training is not None and chosen.est.training is not None:
        r, r0 = _per_gpu_rate(c), _per_gpu_rate(chosen)
        slow_ratio = r0 / r if r and r0 else 1.0
        lost, lost0 = _overhead(c), _overhead(chosen)
        if lost / lost0 > max(slow_ratio, price_ratio):
            return Reason.of(Code.TERM_OVERHEAD, share=1 - 1 / lost, chosen=1 - 1 / lost0)
        if slow_ratio > price_ratio:
            w = c.est.workload
            key, unit = rate_unit(w.model.kind, getattr(w.model, "task", None))
            tokens = c.est.training.tokens_per_second / c.est.training.samples_per_second
            scale = tokens if key == "tokens_per_second" else 1.0
            return Reason.of(Code.TERM_SPEED, rate=(r or 0) * scale, chosen=(r0 or 0) * scale, unit=unit)
        return price
    if c.gpus / max(chosen.gpus, 1) > price_ratio:
        return Reason.of(Code.TERM_SIZE, gpus=c.gpus, chosen=chosen.gpus)
    return price


def _sharded_for_16bit_parameters(w: TrainingJob, count: int, cat: Catalog) -> bool:
    """ZeRO-2/3 on one data-parallel rank where stage 0 would run plain AMP over fp32 parameters: the
    case layouts.zero_stages times such a layout for (its 16-bit parameters step faster)."""
    one_rank = w.parallel.zero >= 2 and w.parallel.dp(count) == 1 and not w.offload
    return one_rank and autocast_fp32_stream(w, framework_of(w, cat), zero=0)


def _training_reasons(c: Candidate, w: TrainingJob, cat: Catalog) -> list[Reason]:
    """Method and memory, layout, rate and bottleneck, failures at this scale."""
    est, out = c.est, []
    t = est.training
    if w.method != "full":
        need, cap = est.memory.per_gpu.total, est.memory.capacity
        out.append(Reason.of(Code.ADAPTER, method=w.method, dtype=w.weights_dtype, need_bytes=need, capacity_bytes=cap))
    out.append(layout_reason(w, est.hardware.count, est.hardware.gpu.id))
    if _sharded_for_16bit_parameters(w, est.hardware.count, cat):
        out.append(
            Reason.of(Code.SHARDED_ONE_RANK, zero=w.parallel.zero, count=est.hardware.count, gpu=est.hardware.gpu.id)
        )
    if w.plain_ddp:  # no stack named for a model trained under DDP: say so, or why it is sharded after all
        count, gpu = est.hardware.count, est.hardware.gpu.id
        if w.runs_plain_ddp and count > 1 and not (isinstance(w.model, GenericArch) and embedding_sharded(w.model)):
            out.append(Reason.of(Code.PLAIN_DDP, model=w.model.name, count=count))
        elif w.parallel.zero > 0:
            out.append(Reason.of(Code.DDP_DOES_NOT_FIT, zero=w.parallel.zero, count=count, gpu=gpu))
    if w.batch_bound is not None:  # the plan chose the batch per GPU: say which, and the bound it kept to
        count = est.hardware.count
        out.append(
            Reason.of(
                Code.BATCH_SIZED,
                micro_batch=w.micro_batch,
                global_batch=w.micro_batch * w.parallel.dp(count) * w.grad_accumulation(count),
                bound=w.batch_bound.samples,
                model=w.model.name,
                source=w.batch_bound.source,
                tolerance=w.batch_bound.tolerance,
            )
        )
    if t:
        key, unit = rate_unit(w.model.kind, getattr(w.model, "task", None))
        rate, band = getattr(t, key), est.bands().get(f"training.{key}")
        low, high = (None, None) if band is None else (rate * band.low, rate * band.high)
        level = None if band is None else band.level
        out.append(
            Reason.of(
                Code.SPEED, rate=rate, low=low, high=high, level=level, unit=unit, mfu=t.mfu, bottleneck=est.bottleneck
            )
        )
        if est.bottleneck == "data-pipeline" and c.pipeline is None:
            out.append(Reason.of(Code.DATA_WAIT))
        if c.hosts_for_data:
            out.append(Reason.of(Code.HOSTS_FOR_DATA, nodes=est.hardware.nodes))
    r = c.reliability
    if r is not None:
        out.append(
            Reason.of(
                Code.GOODPUT,
                mtbf_seconds=r.mtbf_seconds,
                interval_seconds=r.interval_seconds,
                write_seconds=r.write_seconds,
                goodput=r.goodput,
            )
        )
        if r.at_scale_seconds > 0 and r.at_scale_mfu is not None:
            hw = est.hardware
            out.append(
                Reason.of(
                    Code.AT_SCALE,
                    gpus=hw.count,
                    architecture=hw.gpu.architecture,
                    ceiling=r.at_scale_mfu,
                    run=r.at_scale_run,
                    added=r.at_scale_seconds / r.failure_free_seconds,
                )
            )
    return out


def _what_it_is(c: Candidate, cat: Catalog) -> list[Reason]:
    """Method and memory, rate and bottleneck (training), replicas and capacity (serving)."""
    w = c.est.workload
    if isinstance(w, TrainingJob):
        return _training_reasons(c, w, cat)
    out = []
    s = c.serving
    if s is not None:
        capacity = s.capacity_rps_per_replica * c.replicas
        out.append(Reason.of(Code.REPLICAS, replicas=c.replicas, batch=s.max_batch, capacity=capacity))
        if s.redundancy:
            out.append(Reason.of(Code.REDUNDANCY, n=s.redundancy, replicas=c.replicas, nodes=s.nodes))
    return out


def explain(c: Candidate, chosen: Candidate | None, tie: float, cat: Catalog) -> tuple[Reason, ...]:
    """What `c` is, what it misses, growth, and last why it loses to `chosen` (a cost ratio within
    `tie` of 1 is a tie, lost on size): the reasons after those it already has."""
    why = [*c.why, *_what_it_is(c, cat)]
    for key, m in c.meets.items():
        if key not in ("memory", "growth") and not m.ok:
            why.append(Reason.of(Code.MISSES_ONE, requirement=key, why=m.why))
    if c.growth is not None:
        why.append(c.growth.summary)
    if chosen is not None and c is not chosen and c.ok and c.cost is not None and chosen.cost:
        if c.cost > chosen.cost * (1 + tie):
            why.append(Reason.of(Code.COSTLIER, ratio=c.cost / chosen.cost, term=_loss_term(c, chosen)))
        elif c.gpus > chosen.gpus:
            why.append(Reason.of(Code.MORE_GPUS, gpus=c.gpus, chosen=chosen.gpus))
    return tuple(why)
