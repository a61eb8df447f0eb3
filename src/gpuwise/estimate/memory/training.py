"""Training memory: model states, activations and overheads on the most loaded pipeline stage."""

from __future__ import annotations

from dataclasses import replace

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.catalog.schema import Framework
from gpuwise.estimate.memory.activations import training_activations
from gpuwise.estimate.memory.breakdown import MemoryBreakdown, MemoryEstimate, Notes, overheads
from gpuwise.estimate.memory.states import (
    StageParams,
    adapter_states,
    autocast_weight_copies,
    deferred_sync_gradients,
    fp8_weight_cache,
    framework_of,
    full_states,
    kbit_head_copy,
    largest_linear,
    offload,
    optimizer_bytes_per_param,
    pure_16bit_state_scale,
    runs_foreach_adamw,
    shard_job_states,
    sparse_tables,
    stage_params,
    step_in_backward,
    training_element_bytes,
    zero3_unsharded,
    zero_offload_gradients,
)
from gpuwise.estimate.sharding import node_ranks, secondary_weight_bytes, shard_ranks
from gpuwise.workload.build import data_parallel
from gpuwise.workload.specs import DTYPE_BYTES, Hardware, TrainingJob, stage_shortfall


def _zero_groups(job: TrainingJob, hw: Hardware, params: float, dp: int, n: Notes, detail: dict[str, float]) -> float:
    """Names the group ZeRO shards over (a node's ranks under hybrid sharding) and returns the bytes of
    ZeRO++'s secondary 16-bit weight shard (hpZ), 0 without one."""
    if job.parallel.zero:
        replicas = data_parallel(job, hw) * job.parallel.cp // dp
        hybrid = f" inside each node, replicated on {replicas} nodes (hybrid sharding)" if replicas > 1 else ""
        n.add(f"ZeRO stage {job.parallel.zero} over {dp} data-parallel ranks{hybrid}")
    secondary = secondary_weight_bytes(job, hw, params, DTYPE_BYTES["bf16"])
    if secondary:
        detail["zeropp_secondary_weights"] = secondary
        n.add(f"ZeRO++ hpZ: a secondary 16-bit weight shard over the node's {node_ranks(job, hw)} ranks")
    return secondary


def _extra_weights(job: TrainingJob, sp_: StageParams, prof: Framework, n: Notes, detail: dict[str, float]) -> float:
    """Weight copies beside the model states: Transformer Engine's FP8 cache, a momentum encoder."""
    fp8_cache = fp8_weight_cache(job, sp_, prof, n)
    if fp8_cache:
        detail["fp8_weight_cache"] = fp8_cache
    encoder = sp_.total * DTYPE_BYTES[job.weights_dtype] if job.momentum_encoder else 0.0
    if encoder:
        detail["momentum_encoder"] = encoder
        n.add("momentum encoder: a second copy of the weights, never back-propagated (no gradients or states)")
    return fp8_cache + encoder


def foreach_step_temporary(job: TrainingJob, prof: Framework, opt: float, n: Notes) -> float:
    """Bytes PyTorch's foreach AdamW allocates at the step on one GPU: a tensor of every parameter's size in
    the moments' dtype (exp_avg_sq_sqrt), half the two moments `opt` it holds there. None for a fused kernel, a
    step per parameter inside the backward (--optimizer-in-backward) or bitsandbytes' paged optimizer (its own
    in-place kernel)."""
    if opt <= 0 or not runs_foreach_adamw(job, prof):
        return 0.0
    whose = "as given" if job.optimizer_impl else f"{prof.name}'s default"
    n.add(
        f"AdamW step, foreach ({whose}): a tensor of every parameter's size in the moments' dtype while it runs, "
        "every gradient alive and the activations freed: what it holds past them is counted with the overheads; "
        f"--optimizer-impl fused: none [{n.cat.sources['pytorch-adamw-foreach'].title.split(' (')[0]}]"
    )
    return opt / 2


def step_excess(
    job: TrainingJob, prof: Framework, opt: float, freed: float, n: Notes, detail: dict[str, float]
) -> float:
    """What the step's temporary adds to the peak past what the backward held and the step has freed (`freed`: the
    activations, and under ZeRO-3 the gathered layers and unreduced gradient buckets; every gradient shard is
    alive): counted with the overheads, so the states stay what a checkpoint saves and the activations what the
    batch grows."""
    step = foreach_step_temporary(job, prof, opt - detail.get("embedding_optimizer", 0.0), n)
    if step <= freed:
        return 0.0
    detail["optimizer_step_temporary"] = step
    return step - freed


def _training_stage(job: TrainingJob, hw: Hardware, stage: str, prof: Framework, n: Notes) -> MemoryBreakdown:
    """Model states (ZeRO-sharded), activations and overheads on one GPU of a pipeline stage."""
    par = job.parallel
    # context-parallel ranks hold the same parameters: ZeRO/FSDP shard over data x context parallel
    # ranks (Megatron's distributed optimizer and torchtitan's FSDP use that group)
    dp = shard_ranks(job, hw)  # every data x context rank, or a node's under hybrid sharding
    zero = par.zero
    sp_ = stage_params(job.model, par.tp, par.pp, stage, hw.count, par.ep, par.etp, job.tp_embedding)
    if par.tp > 1 and not job.tp_embedding and isinstance(job.model, TransformerArch):
        n.add("--no-tp-embedding: the token embedding, its gradient and optimizer states on every TP rank")
    if isinstance(job.model, GenericArch) and job.model.embedding_tables and hw.count > 1:
        n.add(f"embedding tables sharded over {hw.count} GPUs, dense layers replicated")
    tables = sparse_tables(job, hw, n) if job.method == "full" else None
    if tables is not None:  # the dense layers take the job's optimizer; the tables their own
        sp_ = replace(sp_, other=sp_.other - tables["params"])
    if par.ep > 1:
        n.add(f"expert parallelism: each rank holds 1/{par.ep} of the experts, each split over {par.expert_tp}")
    detail: dict[str, float] = {}
    w_bytes = training_element_bytes(job)
    if job.method == "full":
        weights, grads, opt, master = full_states(job, sp_, prof, n, detail)
    else:
        opt_bpp = optimizer_bytes_per_param(job, n.conv) * (
            pure_16bit_state_scale(job) if w_bytes < 4 and not job.master_weights else 1
        )
        weights, grads, opt = adapter_states(job, sp_, w_bytes, opt_bpp, n, detail, stage in ("last", "only"))
        master = 0.0

    deferred = deferred_sync_gradients(job, hw, grads, prof, n, detail)
    # ZeRO sharding over data-parallel ranks (Rajbhandari et al.)
    (weights, grads, opt, master), expert_r = shard_job_states(job, sp_, (weights, grads, opt, master), dp, n)
    gathered, unreduced = zero3_unsharded(job, sp_, w_bytes, prof, dp, weights, n, detail)
    grads = zero_offload_gradients(job, prof, grads, dp, job.grad_accumulation(hw.count), n, detail)
    weights, grads = weights + gathered, max(grads + unreduced, deferred)
    weights += _zero_groups(job, hw, sp_.total, dp, n, detail)
    if job.optimizer_in_backward:
        grads = min(grads, step_in_backward(job, hw, sp_, n) / (dp if zero >= 2 else 1))
    if "main_gradients" in detail:
        detail["main_gradients"] *= expert_r / dp if zero >= 1 else 1
    detail["master_weights"] = master - detail.get("main_gradients", 0.0)
    if tables is not None:
        detail["embedding_tables"], detail["embedding_optimizer"] = tables["weights"], tables["optimizer"]
        weights, opt = weights + tables["weights"], opt + tables["optimizer"]
    weights, grads, opt, master = offload(job, (weights, grads, opt, master), n, detail)
    if "offloaded_to_cpu" in detail:
        detail["master_weights"] = detail["main_gradients"] = 0.0
    weights += _extra_weights(job, sp_, prof, n, detail)
    if zero < 1 and data_parallel(job, hw) * par.cp > 1:
        n.add(f"plain data parallelism: every one of {dp} ranks holds full model states")
    if job.paged_optimizer:
        detail["paged_optimizer_states"] = opt
        n.add(
            "paged optimizer (bitsandbytes): states in CUDA unified memory (cudaMallocManaged), outside "
            "torch's allocator statistics; they page to host memory when the GPU is full"
        )
    acts, act_detail = training_activations(job, hw, stage, prof, n)
    detail.update(act_detail)
    copies = autocast_weight_copies(job, sp_, prof, dp, n)  # saved for backward: counted with the activations
    if stage in ("last", "only"):
        copies += kbit_head_copy(job, n)
    if copies:
        detail["autocast_weight_copies"] = copies
        acts += copies
    excess = step_excess(job, prof, opt, acts + gathered + unreduced, n, detail)  # what the step outlives
    allocated = weights + grads + opt + master + acts + excess - detail.get("paged_optimizer_states", 0.0)
    over = overheads(allocated, hw, hw.count > 1, n, fitted_slack=not prof.contiguous_buffers)
    over |= {"optimizer_step_beyond_activations": excess} if excess else {}
    if job.method == "qlora" and isinstance(job.model, TransformerArch):
        big = largest_linear(job.model, par.tp)
        over["dequant_buffer"] = big * DTYPE_BYTES["bf16"]
    detail.update(over)
    return MemoryBreakdown(
        weights=weights,
        gradients=grads,
        optimizer=opt + master,
        activations=acts,
        kv_cache=0.0,
        overhead=sum(over.values()),
        detail=detail,
    )


def pipeline_ranks(job: TrainingJob) -> tuple[str, ...]:
    """The pipeline stages whose memory can be the largest: the first (the embedding and the most
    micro-batches in flight) and the last (the output layer and the loss); where the first holds a
    layer fewer (stage_layers), also the second rank, a full stage with one micro-batch (or warm-up
    pair of chunks) fewer in flight, which then holds more activations than the first."""
    pp = job.parallel.pp
    if pp <= 1:
        return ("only",)
    model = job.model
    if pp > 2 and isinstance(model, TransformerArch) and stage_shortfall(model.layers, pp):
        return ("first", "second", "last")
    return ("first", "last")


def training_memory(job: TrainingJob, hw: Hardware, catalog: Catalog) -> MemoryEstimate:
    n = Notes(catalog)
    prof = framework_of(job, catalog)
    ddp = ", run as plain DDP (ZeRO-0), as trainers run a model that is not a language model when no stack is named"
    n.add(
        f"framework: {prof.id} ({prof.name}){'' if job.framework else ', the default for ' + job.task}"
        + (ddp if job.runs_plain_ddp else "")
    )
    stages = pipeline_ranks(job)
    breakdowns = [_training_stage(job, hw, s, prof, n) for s in stages]
    worst = max(breakdowns, key=lambda b: b.total)
    return MemoryEstimate(per_gpu=worst, capacity=hw.gpu.capacity_bytes, assumptions=tuple(n.items))
