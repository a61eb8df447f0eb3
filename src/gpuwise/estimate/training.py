"""Training time: step = compute on the slowest pipeline stage + exposed communication + bubble +
optimizer update, or the data pipeline when it is slower. Each term is computed by its own named
function and the step is their sum, so a reader sees which one dominates and `bottleneck` says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.catalog.schema import Framework
from gpuwise.estimate.comm import Link, Topology, collective, p2p, pcie_link
from gpuwise.estimate.compute import (
    Op,
    Shape,
    block_linear_params,
    counted_context,
    forward_flops,
    head_ops,
    kv_width_per_gpu,
    layer_ops,
    mean_context,
)
from gpuwise.estimate.dispatch import host_wait
from gpuwise.estimate.memory.states import (
    StageParams,
    autocast_casts_weights,
    autocast_fp32_stream,
    expert_shard_factor,
    fp8_param_bytes,
    fp8_params,
    framework_of,
    grads_reduced_each_micro_batch,
    int8_lora_base,
    lora_params,
    lora_target_linears,
    loss_kind,
    matmul_weight_params,
    optimizer_on_host,
    pipeline_fsdp_held,
    qlora_base,
    reduce_bucket_bytes,
    stage_params,
    state_bytes,
    training_element_bytes,
    weight_bytes_per_param,
)
from gpuwise.estimate.memory.training import training_memory
from gpuwise.estimate.optimizer_step import step_bytes_per_param
from gpuwise.estimate.pipeline import pipeline_rate
from gpuwise.estimate.rates import Rates, compute_rates, cudnn_tf32
from gpuwise.estimate.sharding import (
    Zero3Comm,
    expert_data_parallel,
    node_ranks,
    shard_ranks,
    sharded_optimizer_comm,
    zero3_comm,
)
from gpuwise.units import MiB
from gpuwise.workload import Hardware, TrainingJob, data_parallel
from gpuwise.workload.specs import DTYPE_BYTES, stage_layers


@dataclass(frozen=True, slots=True)
class TrainingEstimate:
    flops_per_step: float
    hardware_flops_per_step: float
    step_seconds: float
    comm_seconds_per_step: float
    tokens_per_second: float
    samples_per_second: float
    mfu: float
    total_seconds: float | None
    gpu_hours: float | None
    terms: dict[str, float]
    bottleneck: str
    notes: tuple[str, ...]
    eval_seconds: float | None = None  # evaluation inside the run (--eval-every), part of total_seconds

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "flops_per_step": self.flops_per_step,
            "hardware_flops_per_step": self.hardware_flops_per_step,
            "step_seconds": self.step_seconds,
            "comm_seconds_per_step": self.comm_seconds_per_step,
            "tokens_per_second": self.tokens_per_second,
            "samples_per_second": self.samples_per_second,
            "mfu": self.mfu,
            "total_seconds": self.total_seconds,
            "gpu_hours": self.gpu_hours,
            "step_terms": self.terms,
        }
        if self.eval_seconds is not None:
            out["eval_seconds"] = self.eval_seconds
        return out


@dataclass(frozen=True, slots=True)
class MicroBatchWork:
    """One micro-batch on the slowest pipeline stage, before the framework factor: what the named
    step terms are computed from (seconds unless named otherwise)."""

    compute: float  # forward + backward (+ recomputation, dequantization)
    forward: float  # the forward pass alone (an evaluation batch)
    layer_backward: float  # backward of one layer (non-transformers: the whole model)
    layers: int  # layers on the stage (1 for non-transformers)
    tensor_parallel: float  # TP all-reduces (recommenders: the embedding all-to-all)
    context_parallel: float  # exposed ring-attention K/V exchange (context parallelism)
    expert_parallel: float  # MoE dispatch and combine all-to-alls (expert parallelism)
    pipeline_p2p: float  # activations forward and gradients back to the neighbouring stage
    kinds: dict[str, float]  # compute time by roofline side, for the bottleneck
    tokens_per_sample: int
    flops_per_step: float  # model FLOPs of a whole step on all GPUs (no recomputation)
    recompute_flops: float  # extra hardware FLOPs of full recomputation


def backward_ratios(catalog: Catalog, trainable: bool) -> dict[str, float]:
    """Backward time relative to forward by op kind (catalog conventions, each with its source)."""
    matmul = "backward_ratio_trainable_matmul" if trainable else "backward_ratio_frozen_matmul"
    return {
        "matmul": catalog.convention(matmul),
        "attention": catalog.convention("backward_ratio_attention"),
        "attention_gemm": catalog.convention("backward_ratio_attention_gemm"),
        "memory": catalog.convention("backward_ratio_elementwise"),
    }


def _fwd_bwd(ops: list[Op], rates: Rates, ratios: dict[str, float]) -> tuple[float, float, dict[str, float]]:
    """Forward and backward seconds of a list of forward ops, with time per roofline side."""
    fwd = bwd = 0.0
    sides = {"compute": 0.0, "memory-bandwidth": 0.0}
    for op in ops:
        t, side = rates.bound(op.flops, op.bytes, op.kind)
        mult = ratios[op.kind]
        fwd += t
        bwd += t * mult
        sides[side] += t * (1 + mult)
    return fwd, bwd, sides


def _global_batch(job: TrainingJob, hw: Hardware) -> int:
    return job.micro_batch * data_parallel(job, hw) * job.grad_accumulation(hw.count)


def _recompute_seconds(job: TrainingJob, layer: list[Op], rates: Rates, layer_forward: float, op_level: bool) -> float:
    """Recomputation per layer: a whole forward (full), the attention core (selective), or under
    op-level selective checkpointing (torchtitan) the elementwise work and every other matmul: k,
    o and w3 of q, k, v, o, w1, w3, w2, as a share of the block's matmul time."""
    if job.recompute == "full":
        return layer_forward
    if job.recompute != "selective":
        return 0.0
    if not op_level or not isinstance(job.model, TransformerArch):  # the attention core (eager: and its scores)
        return sum(rates.time(o.flops, o.bytes, o.kind) for o in layer if o.name.startswith("attention"))
    m = job.model
    share = (m.k_dim + m.o_dim + m.mlp_width()) * m.hidden / max(block_linear_params(m), 1)
    matmul = sum(rates.time(o.flops, o.bytes, o.kind) for o in layer if o.kind == "matmul")
    elementwise = sum(rates.time(o.flops, o.bytes, o.kind) for o in layer if o.kind == "memory")
    return share * matmul + elementwise


def _dequant_seconds(job: TrainingJob, rates: Rates, catalog: Catalog, notes: list[str]) -> float:
    """QLoRA: each 4-bit linear is dequantized before every use (forward, backward, recomputation),
    reading its NF4 bytes and writing 16-bit ones, per layer."""
    model = job.model
    if job.method != "qlora" or not isinstance(model, TransformerArch):
        return 0.0
    linear_w = block_linear_params(model) / job.parallel.tp
    uses = 3 if job.recompute == "full" else 2
    base = qlora_base(job)
    moved = weight_bytes_per_param(base, catalog.convention) + DTYPE_BYTES["bf16"]
    notes.append(f"QLoRA: {base} weights are dequantized to 16-bit before each use (memory-bound)")
    return uses * rates.time(0.0, moved * linear_w, "memory")


# row-parallel projections take their tensor-parallel slice of the input, the rest of the output
_ROW_PARALLEL = ("o_proj", "down_proj")


def _llm_int8_seconds(job: TrainingJob, tokens: int, rates: Rates, catalog: Catalog, notes: list[str]) -> float:
    """LoRA on an LLM.int8 base, per layer, beyond the 16-bit GEMMs the layer is timed with: bitsandbytes'
    MatMul8bitLt (0.45 on, a frozen weight's fast path) casts each input to fp16 where the stream is not
    fp16, quantizes it to int8 (CA), and dequantizes the int32 output to fp16 and then to the stream's dtype,
    in every forward; each backward dequantizes the weight into the stream's dtype (a copy, then the scale in
    place) and multiplies the input gradient in that dtype: fp32 on CUDA cores under PEFT's k-bit preparation.
    Row-parallel projections take their slice of the input, the rest of the output. Dense models only."""
    model = job.model
    if not int8_lora_base(job) or not isinstance(model, TransformerArch):
        return 0.0
    if model.is_moe:
        notes.append("LLM.int8 base: its quantization passes are not timed for a mixture-of-experts model")
        return 0.0
    tp = job.parallel.tp
    lins = model.linears(dense=True)
    ins = sum(lin.count * lin.d_in / (tp if lin.name in _ROW_PARALLEL else 1) for lin in lins)
    outs = sum(lin.count * lin.d_out / (1 if lin.name in _ROW_PARALLEL else tp) for lin in lins)
    weights = block_linear_params(model) / tp
    fp16, fp32 = DTYPE_BYTES["fp16"], DTYPE_BYTES["fp32"]
    int32 = fp32  # the int8 GEMM's accumulator output, 4 B an element
    e = fp32 if job.kbit_fp32_upcast else training_element_bytes(job)
    cast = e + fp16 if (job.kbit_fp32_upcast or job.precision != "fp16") else 0.0  # .to(float16) and back
    forward = tokens * (ins * (cast + fp16 + DTYPE_BYTES["int8"]) + outs * (int32 + fp16 + cast))
    uses = 2 if job.recompute == "full" else 1
    dequant = weights * (DTYPE_BYTES["int8"] + 3 * e)  # CB.to(dtype) writes e; .mul_(scale) reads and writes it
    seconds = uses * rates.time(0.0, forward, "memory") + rates.time(0.0, dequant, "memory")
    said = "bitsandbytes LLM.int8 base: each int8 linear quantizes its input and dequantizes its output (memory-bound)"
    if e == fp32 and rates.dtype != "fp32" and "fp32" in rates.gpu.peak_flops:
        flops, moved = 2 * tokens * weights, tokens * (ins + outs) + weights  # a GEMM's multiply-adds; elements
        wide, narrow = compute_rates(rates.gpu, "fp32", catalog), compute_rates(rates.gpu, rates.dtype, catalog)
        seconds += max(0.0, wide.time(flops, fp32 * moved) - narrow.time(flops, fp16 * moved))
        said += "; the backward dequantizes each weight to fp32 and computes the input gradient in fp32 (CUDA cores)"
    notes.append(said)
    return seconds


def _tensor_parallel_comm(
    job: TrainingJob, model: TransformerArch, tokens: int, topo: Topology, layers: int, gemms: float, catalog: Catalog
) -> float:
    """Two all-reduces forward and two backward per block (AG+RS with SP: the same volume), two more
    with full recomputation; on the critical path, unless the stack pipelines them with the block's
    GEMMs (`gemms`: their forward and backward seconds; Transformer Engine's userbuffers
    --tp-comm-overlap), which leaves only what the GEMMs cannot cover."""
    tp = job.parallel.tp
    if tp <= 1:
        return 0.0
    e = training_element_bytes(job)
    ar = collective("all_reduce", tokens * model.hidden * e, tp, topo, spans_nodes=False)
    per_layer = (4 + (2 if job.recompute == "full" else 0)) * ar
    if model.is_moe and job.parallel.ep > 1:  # the expert layer moves its tokens itself (_expert_parallel_comm)
        per_layer /= 2
    if framework_of(job, catalog).tp_comm_overlap:
        per_layer = max(0.0, per_layer - gemms)
    return layers * per_layer


def _context_parallel_comm(
    job: TrainingJob,
    hw: Hardware,
    model: TransformerArch,
    tokens: int,
    topo: Topology,
    attention: float,
    notes: list[str],
) -> float:
    """Ring attention (context parallelism), per layer: cp-1 exchanges of a K/V shard forward and
    of K/V and their gradients backward, overlapped with the attention compute; the rest is exposed."""
    cp = job.parallel.cp
    if cp <= 1:
        return 0.0
    kv_shard = tokens * kv_width_per_gpu(model, job.parallel.tp) * training_element_bytes(job)
    link = _link_between(hw, topo, job.parallel.tp * cp)
    moved = (cp - 1) * (p2p(kv_shard, link) + 2 * p2p(kv_shard, link))
    notes.append(f"context parallelism {cp}: ring attention passes K/V shards, overlapped with attention compute")
    return max(0.0, moved - attention)


def _expert_parallel_comm(
    job: TrainingJob,
    hw: Hardware,
    model: TransformerArch,
    tokens: int,
    topo: Topology,
    catalog: Catalog,
    notes: list[str],
) -> float:
    """MoE expert parallelism, per layer, on the critical path (Megatron's all-to-all dispatcher):
    dispatch and combine all-to-alls of this rank's routed token copies (its sequence-parallel
    shard: tokens/tp), forward and backward; with expert-tensor parallelism the etp ranks of an
    expert also all-gather its tokens before the expert GEMMs and reduce-scatter after. Dropless
    routing sends each token's top-k copies; a padded capacity factor sends the capacity. HybridEP
    (`moe_dispatcher`) sends a token once per node across nodes (_hybridep_seconds); with
    `overlap_ep_comm` a measured share of it runs under the adjacent micro-batch's compute."""
    par = job.parallel
    ep, etp = par.ep, par.expert_tp
    if job.capacity_factor is not None:
        notes.append(
            f"capacity factor {job.capacity_factor:g}: each expert takes {job.expert_load:g} x its even share "
            + ("(padded to capacity)" if job.pad_to_capacity else "(tokens over capacity dropped)")
            if model.is_moe
            else f"--capacity-factor has no effect: {model.name} has no experts"
        )
    if ep <= 1 or not model.is_moe:
        if job.moe_dispatcher != "alltoall" or job.overlap_ep_comm:
            why = f"{model.name} has no experts" if not model.is_moe else "no expert parallelism (--ep 1)"
            notes.append(f"--moe-dispatcher and --overlap-ep-comm have no effect: {why}")
        return 0.0
    own = tokens / par.tp if (par.sequence_parallel and par.tp > 1) else tokens
    routed = own * model.experts_per_token * job.expert_load * model.hidden * training_element_bytes(job)
    # Megatron Core lays expert ranks out etp first: an expert-parallel group spans etp x ep consecutive ranks
    spans = hw.nodes > 1 and etp * ep > hw.gpus_per_node
    # dispatch and combine, forward and backward; full recomputation runs the forward pair again
    passes = 4 + (2 if job.recompute == "full" else 0)
    hybrid = _hybridep_seconds(job, hw, model, own, topo, catalog) if job.moe_dispatcher == "hybridep" else None
    if hybrid is not None:
        a2a = passes / 2 * hybrid
        notes.append(
            f"expert parallelism {ep}: HybridEP dispatch and combine across nodes, one copy a token per node it "
            f"reaches, at HybridEP's measured H100 rate [hybridep_*_bandwidth]: {a2a * 1e3:.3g} ms a layer"
        )
    else:
        if job.moe_dispatcher == "hybridep":
            notes.append("HybridEP inside one node: timed as the NVLink all-to-all (its table measures nodes)")
        notes.append(f"expert parallelism {ep}: token dispatch and combine all-to-alls forward and backward")
        a2a = passes * collective("all_to_all", routed, ep, topo, spans)
    if job.overlap_ep_comm:
        # the forward of one micro-batch runs beside the backward of the one before: the first forward and the
        # last backward have no partner, so of m micro-batches m - 1 hide the measured share
        m = job.grad_accumulation(hw.count)
        share = catalog.convention("ep_overlap_hidden_share") * (m - 1) / m
        notes.append(
            f"expert-parallel overlap (--overlap-moe-expert-parallel-comm): {share:.0%} of the dispatch and combine "
            f"time runs under the adjacent micro-batch's compute ({m - 1} of {m} micro-batches have one) "
            "[ep_overlap_hidden_share]"
        )
        a2a *= 1 - share
    if etp <= 1 or hybrid is not None:  # HybridEP dispatches over the tensor- and expert-parallel ranks at once
        return a2a
    notes.append(f"expert-tensor parallelism {etp}: expert tokens all-gathered and reduce-scattered over {etp} ranks")
    return a2a + 2 * collective("all_reduce", routed * etp, etp, topo, spans_nodes=etp > hw.gpus_per_node)


_HYBRIDEP_RANKS = (16, 32, 64)  # the rank counts of HybridEP's measured H100 table (conventions hybridep_*)
_HYBRIDEP_RANKS_PER_NODE = 8  # that table's H100 nodes: 16 ranks on 2 (conventions hybridep_dispatch_bandwidth_16)


def _hybridep_seconds(
    job: TrainingJob, hw: Hardware, model: TransformerArch, own: float, topo: Topology, catalog: Catalog
) -> float | None:
    """One dispatch plus one combine of a rank's tokens by HybridEP when the expert-parallel group spans
    nodes (None inside one node). HybridEP sends each token once to every node holding one of its experts
    and forwards it over NVLink there; its benchmark counts those copies, the token's own node included,
    and reports them per second (hybridep_*_bandwidth, H100, 16 to 64 ranks; between the measured counts
    the rate is interpolated in log2 of the ranks, beyond them held). At uniform routing a node holding
    experts/nodes of the experts is reached with probability 1 - C(E - E/n, k) / C(E, k). Networks other
    than the measured one's scale the rates by their per-GPU rate (an assumption)."""
    par = job.parallel
    per_node = max(1, hw.gpus_per_node // max(1, par.expert_tp))  # Megatron strides expert ranks by etp
    nodes = par.ep // per_node if per_node < par.ep else 1
    if not (hw.nodes > 1 and nodes > 1 and topo.inter is not None):
        return None
    # the rates are read at the run's count of nodes, as the table measured them
    ranks = nodes * _HYBRIDEP_RANKS_PER_NODE
    scale = topo.inter.bandwidth / catalog.convention("hybridep_reference_network_bandwidth")
    e, k = model.experts, model.experts_per_token
    local = e // nodes
    reached = nodes * (1 - math.comb(e - local, k) / math.comb(e, k)) if local < e else 1.0
    moved = own * job.expert_load * model.hidden * training_element_bytes(job) * reached
    first, last = math.log2(_HYBRIDEP_RANKS[0]), math.log2(_HYBRIDEP_RANKS[-1])
    x = min(max(math.log2(ranks), first), last)  # held at the measured ends
    lo = _HYBRIDEP_RANKS[min(len(_HYBRIDEP_RANKS) - 2, int(x - first))]
    hi = lo * 2
    t = x - math.log2(lo)

    def rate(kind: str) -> float:
        a = catalog.convention(f"hybridep_{kind}_bandwidth_{lo}")
        b = catalog.convention(f"hybridep_{kind}_bandwidth_{hi}")
        return (a + (b - a) * t) * scale

    return moved / rate("dispatch") + moved / rate("combine")


def _link_between(hw: Hardware, topo: Topology, span: int) -> Link:
    """The link a group of `span` consecutive ranks communicates over."""
    return topo.inter if (hw.nodes > 1 and span > hw.gpus_per_node and topo.inter) else topo.intra


def _pipeline_p2p(job: TrainingJob, hw: Hardware, model: TransformerArch, tokens: int, topo: Topology) -> float:
    """Activations to the next stage and gradients back, per micro-batch, over the link between stages.

    Each tensor-parallel rank sends 1/tp of the stage boundary's activations, with sequence parallelism
    or without: Megatron's scatter/gather optimization splits the replicated tensor over the tp ranks
    before the send and all-gathers it over NVLink after (Narayanan et al. 2021, section 4.1), and
    DeepSpeed's pipeline engine (GPT-NeoX, Megatron-DeepSpeed) partitions activations and gradients over
    the model-parallel ranks the same way (PipelineEngine is_pipe_partitioned / is_grad_partitioned)."""
    par = job.parallel
    if par.pp <= 1:
        return 0.0
    link = _link_between(hw, topo, par.tp * par.cp * par.pp)
    return 2 * p2p(tokens * model.hidden * training_element_bytes(job) / par.tp, link)


def _model_flops(
    job: TrainingJob, hw: Hardware, tokens_per_sample: int, ratios: dict[str, float], notes: list[str]
) -> tuple[float, float]:
    """Model FLOPs of a step and the extra hardware FLOPs of full recomputation. Attention counts
    over the full sequence (Narayanan et al., PaLM's MFU) even though causal kernels skip half of
    it: published TFLOP/s and MFU use this convention; packed documents (with attention kept inside
    each) count over the whole document, the useful work whichever kernel runs it."""
    model = job.model
    assert isinstance(model, TransformerArch)
    global_batch = _global_batch(job, hw)
    context = counted_context(tokens_per_sample, job.packed_doc_tokens)  # the work, whatever the kernel computes
    flops_fwd = forward_flops(model, global_batch * tokens_per_sample, context, global_batch * job.head_positions)
    adapters = lora_params(job, model.layers, 1) if job.method != "full" else 0.0
    flops = (1 + ratios["matmul"]) * flops_fwd + 6 * adapters * global_batch * tokens_per_sample
    if job.method != "full":
        notes.append("LoRA/QLoRA: frozen layers compute input gradients only (backward 1x forward, not 2x)")
    return flops, (flops_fwd if job.recompute == "full" else 0.0)


def _adapter_seconds(
    job: TrainingJob, tokens: int, rates: Rates, catalog: Catalog, notes: list[str]
) -> tuple[float, float]:
    """Forward and backward seconds, for one layer, of PEFT's LoRA modules' passes over the
    activations: lora_A reads each targeted layer's input again, lora_B writes a full-width output,
    which is scaled and added to the frozen layer's; the backward mirrors them. The adapters' own
    FLOPs (rank r) are negligible beside the layer's; their bytes per element are conventions. Stacks
    with their own adapters (frameworks.yaml `peft_lora`) are timed without them."""
    model = job.model
    assert isinstance(model, TransformerArch)
    if job.method == "full" or not job.lora_targets or not framework_of(job, catalog).peft_lora:
        return 0.0, 0.0
    tp, width_in, width_out = job.parallel.tp, 0.0, 0.0
    for share, lin in lora_target_linears(job):
        routed = share * (min(lin.count, model.experts_per_token) if lin.count > 1 else 1)  # a token's experts
        row = lin.name in _ROW_PARALLEL
        width_in += routed * lin.d_in / (tp if row else 1)
        width_out += routed * lin.d_out / (1 if row else tp)
    per_elem = training_element_bytes(job) / 2  # the conventions count 16-bit elements

    def passes(direction: str) -> float:
        b_in = catalog.convention(f"lora_adapter_{direction}_in_bytes")
        b_out = catalog.convention(f"lora_adapter_{direction}_out_bytes")
        return rates.time(0.0, tokens * per_elem * (b_in * width_in + b_out * width_out), "memory")

    notes.append("LoRA through PEFT's eager modules: each adapter's output written, scaled and added (timed)")
    return passes("forward"), passes("backward")


def _eager_bytes(job: TrainingJob, catalog: Catalog, notes: list[str]) -> tuple[tuple[str, float], ...]:
    """Bytes per element of the elementwise ops a PyTorch-native stack runs as separate eager
    kernels (fp32 upcasts and intermediates), unless torch.compile fuses them into one read and
    one write; hand-fused stacks (Megatron, NeMo, Unsloth) list none. Eager model code copies the heads'
    output back to tokens x hidden; a LayerNorm is torch's one layer_norm kernel whatever the stack's
    RMSNorm code; plain AMP (autocast_fp32_stream) adds an fp32 residual stream and runs that LayerNorm in
    fp32 with a cast."""
    prof = framework_of(job, catalog)
    model = job.model
    assert isinstance(model, TransformerArch)
    if job.compile:
        return ()
    # torch's layer_norm is one kernel (estimate/dispatch.py counts it so): the stack's RMSNorm code is not a LayerNorm's
    ops = [op for op in prof.eager_ops if not (op == "norm" and model.norm == "layernorm")]
    out: dict[str, float] = {op: catalog.convention(f"eager_{op}_bytes") for op in ops}
    if ops:
        notes.append(
            f"eager PyTorch without torch.compile: {', '.join(ops)} run as unfused kernels with fp32 upcasts "
            "[eager_*_bytes: torchtitan/torchtune model code]"
        )
    if prof.eager_ops or prof.fp32_params:  # PyTorch model code (Transformers, timm, the stack's own) run eagerly
        out["layout_copy"] = catalog.convention("eager_attention_layout_copy_bytes")
    if autocast_fp32_stream(job, prof):
        out["residual"] = catalog.convention("autocast_fp32_residual_bytes")
        if model.norm == "layernorm":
            out["norm"] = catalog.convention("autocast_layernorm_bytes")
        notes.append(
            "autocast over fp32 parameters: the residual stream stays fp32 (the embeddings add fp32 parameters, "
            "and a 16-bit branch added to it promotes), layer_norm autocasts to fp32 and each linear casts its "
            "input back [autocast_fp32_residual_bytes, autocast_layernorm_bytes: PyTorch autocast op reference]"
        )
    return tuple(out.items())


def _loss_bytes(job: TrainingJob, catalog: Catalog, notes: list[str]) -> float:
    """Bytes a logit the loss's forward moves: a fused kernel (`--loss fused`: llm.c's fused classifier,
    Unsloth's and Liger's) reads the 16-bit logits once and, in its backward share, once more while it
    writes their gradient in place; the eager loss under torch.compile (`compiled`) makes the same
    passes (inductor's fused reductions and one pointwise gradient kernel); any other loss as an
    unfused one, which upcasts, writes and re-reads them (loss_bytes_per_logit_unfused)."""
    kind = loss_kind(job, framework_of(job, catalog))
    if kind not in ("fused", "compiled"):
        return catalog.convention("loss_bytes_per_logit_unfused")
    fused = catalog.convention("loss_bytes_per_logit_fused")
    notes.append(
        f"{kind} cross-entropy: {fused:g} B a logit forward, {fused * (1 + catalog.convention('backward_ratio_elementwise')):g} "
        "with its backward, against an unfused loss's upcast copies [loss_bytes_per_logit_fused]"
    )
    return fused


def _attention_context(job: TrainingJob, model: TransformerArch, tokens: int, notes: list[str]) -> float:
    """Keys per query of the job's attention: the whole sequence (causal: half of it), a sliding window,
    or under packing with attention kept inside each document the document's own, which
    FlashAttention's variable-length kernels skip to; eager attention computes the masked scores of
    the whole sequence all the same."""
    docs = job.packed_doc_tokens if job.packed_doc_tokens and job.packed_doc_tokens < tokens else None
    if docs is not None and job.attention == "eager":
        notes.append(
            f"packed documents of {docs:,} tokens (--packed-doc-tokens): eager attention masks the other "
            f"documents' keys but computes the scores of all {tokens:,}"
        )
        docs = None
    ctx = mean_context(model, tokens, docs)
    if docs is not None:
        notes.append(
            f"packed documents of {docs:,} tokens (--packed-doc-tokens): attention inside each document, "
            f"{ctx:,.0f} keys per query on average against {mean_context(model, tokens):,.0f} over the whole "
            f"{tokens:,}-token sequence (MFU counts attention over each whole document)"
        )
    if model.sliding_window and model.sliding_window < (docs or tokens):
        notes.append(
            f"sliding window of {model.sliding_window} tokens on {model.sliding_window_layers} of {model.layers} "
            f"layers: {ctx:,.0f} keys per query on average"
        )
    return ctx


def _weight_cast_seconds(job: TrainingJob, hw: Hardware, rates: Rates, catalog: Catalog, notes: list[str]) -> float:
    """AMP over unsharded fp32 parameters (autocast_casts_weights): each micro-batch's forward casts every matmul
    weight to 16 bits (an fp32 read and a 16-bit write; autocast's cache lasts one forward, so a full
    recomputation casts them again) and the backward casts each weight's 16-bit gradient back to fp32 (autograd's
    backward of the cast) before it accumulates: memory-bound passes, counted as the operator model counts a
    convolution's or GEMM's (operators._walk)."""
    model = job.model
    if not isinstance(model, TransformerArch) or not autocast_casts_weights(
        job, framework_of(job, catalog), shard_ranks(job, hw)
    ):
        return 0.0
    weights = matmul_weight_params(model, _first_stage(job, hw), job.parallel.tp)
    casts = 2 if job.recompute == "full" else 1
    per_weight = (casts + 1) * (DTYPE_BYTES["fp32"] + DTYPE_BYTES[job.precision])
    again = " and again in the recomputation" if casts == 2 else ""
    notes.append(
        f"autocast's weight casts: {weights / 1e9:.3g}B fp32 matmul weights cast to {job.precision} in every "
        f"forward{again}, their gradients back to fp32 in the backward: {per_weight:g} B a weight a micro-batch "
        "[pytorch-amp-autocast-ops]"
    )
    return rates.time(0.0, per_weight * weights, "memory")


def _transformer_work(
    job: TrainingJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog, notes: list[str]
) -> MicroBatchWork:
    """Per-operation roofline times of one micro-batch through the stage's layers and the head."""
    model = job.model
    assert isinstance(model, TransformerArch)
    tp = job.parallel.tp
    e = training_element_bytes(job)
    tokens_per_sample = model.tokens_per_sample(job.seq)
    cp = job.parallel.cp
    mtok = math.ceil(job.micro_batch * tokens_per_sample / cp)  # a context-parallel rank's share
    ctx = _attention_context(job, model, tokens_per_sample, notes)  # a CP rank's queries attend over all of it
    eager = _eager_bytes(job, catalog, notes)
    scores = None
    if job.attention == "eager":
        scores = (
            catalog.convention("eager_attention_score_bytes"),
            catalog.convention("eager_attention_dropout_bytes"),
        )
        notes.append(
            "eager attention: QK^T and PV as batched GEMMs over the whole sequence, scores softmaxed in memory"
        )
    shape = Shape(
        tokens=mtok, seqs=job.micro_batch, context=ctx, act_bytes=e, weight_bytes=e, eager_bytes=eager, scores=scores
    )
    sp = job.parallel.sequence_parallel and tp > 1
    ratios = backward_ratios(catalog, job.method == "full")
    par = job.parallel
    layer = layer_ops(model, shape, tp, sp, par.ep, par.etp, job.expert_load if model.is_moe else 1.0)
    l_f, l_b, l_kinds = _fwd_bwd(layer, rates, ratios)
    # the head's positions: all the rank's tokens, or a masked-LM head's masked ones
    logits = math.ceil(job.micro_batch * job.head_positions / cp)
    head = head_ops(model, shape, tp, logits, loss_bytes=_loss_bytes(job, catalog, notes))
    h_f, h_b, h_kinds = _fwd_bwd(head, rates, ratios)
    layers = math.ceil(model.layers / job.parallel.pp)
    op_level = framework_of(job, catalog).selective_policy == "op"
    recompute = _recompute_seconds(job, layer, rates, l_f, op_level)
    dequant = _dequant_seconds(job, rates, catalog, notes) + _llm_int8_seconds(job, mtok, rates, catalog, notes)
    a_f, a_b = _adapter_seconds(job, mtok, rates, catalog, notes)
    adapters = a_f * (2 if job.recompute == "full" else 1) + a_b  # a full recomputation runs them again
    casts = _weight_cast_seconds(job, hw, rates, catalog, notes)
    compute = layers * (l_f + l_b + recompute + dequant + adapters) + h_f + h_b + casts
    gemms = sum(rates.time(o.flops, o.bytes, o.kind) * (1 + ratios[o.kind]) for o in layer if o.kind == "matmul")
    tensor_parallel = _tensor_parallel_comm(job, model, mtok, topo, layers, gemms, catalog)
    attention = sum(rates.time(o.flops, o.bytes, o.kind) for o in layer if o.kind == "attention")
    attention *= 1 + ratios["attention"]  # forward and backward attention hide the ring exchange
    context_parallel = layers * _context_parallel_comm(job, hw, model, mtok, topo, attention, notes)
    expert_parallel = layers * _expert_parallel_comm(job, hw, model, mtok, topo, catalog, notes)
    pipeline = _pipeline_p2p(job, hw, model, mtok, topo)
    flops, recompute_flops = _model_flops(job, hw, tokens_per_sample, ratios, notes)
    return MicroBatchWork(
        compute=compute,
        forward=layers * l_f + h_f,
        layer_backward=l_b,
        layers=layers,
        tensor_parallel=tensor_parallel,
        context_parallel=context_parallel,
        expert_parallel=expert_parallel,
        pipeline_p2p=pipeline,
        kinds={k: layers * l_kinds[k] + h_kinds[k] for k in l_kinds},
        tokens_per_sample=tokens_per_sample,
        flops_per_step=flops,
        recompute_flops=recompute_flops,
    )


def _generic_work(
    job: TrainingJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog, notes: list[str]
) -> MicroBatchWork:
    """Models known by totals: forward FLOPs per sample against the activation traffic, a third of
    it forward and two thirds backward, as the FLOPs (conv-BN-ReLU count)."""
    from gpuwise.estimate.operators import host_lookup_seconds, operator_step, table_placement  # LLMs never load it

    model = job.model
    assert isinstance(model, GenericArch)
    mb = job.micro_batch
    dp = data_parallel(job, hw)
    flops = (model.flops_per_sample or 0.0) * mb
    ratio = backward_ratios(catalog, trainable=True)["matmul"]
    if model.operators:  # described operator by operator: the per-operator roofline
        prof = framework_of(job, catalog)
        # fp32 parameters cast to 16 bits each micro-batch, by autocast or by FSDP's gather, whatever the layout
        casts = prof.fp32_params and job.master_weights and job.precision in ("fp16", "bf16")
        f_t, b_t = operator_step(model, mb, rates, catalog, prof.efficiency, notes, autocast=casts)
        from gpuwise.catalog.unet_operators import attention_note

        if said := attention_note(model):
            notes.append(said)
    else:
        traffic = catalog.convention("generic_train_traffic_factor")
        act = (model.activation_bytes_per_sample or 0.0) * mb * training_element_bytes(job) / 2 * traffic
        f_t = rates.time(flops, act / 3)
        b_t = rates.time(ratio * flops, 2 * act / 3)
        notes.append(
            f"{model.name}: memory traffic = {traffic:g} x activation bytes per step "
            f"[generic_train_traffic_factor: conv-BN-ReLU derivation]"
        )
    if flops == 0:
        notes.append(f"{model.name}: no FLOPs per sample known; compute time counted as 0")
    if model.embedding_tables:  # rows a host-memory table's GPU cache misses: over PCIe, there and back
        e = training_element_bytes(job)
        place = table_placement(model, hw.count, hw.nodes, hw.gpu.capacity_bytes, e, catalog)
        miss = host_lookup_seconds(model, mb, place, hw.gpu, e, catalog)
        if miss:
            f_t, b_t = f_t + miss, b_t + miss
            notes.append(f"{model.name}: cache misses of host-memory tables: {miss * 1e3:.2f} ms over PCIe each way")
    all_to_all = 0.0
    if model.embedding_tables and dp > 1:
        all_to_all = _embedding_exchange(job, hw, topo, catalog, notes)
    return MicroBatchWork(
        compute=f_t + b_t,
        forward=f_t,
        layer_backward=b_t,
        layers=1,
        tensor_parallel=all_to_all,
        context_parallel=0.0,
        expert_parallel=0.0,
        pipeline_p2p=0.0,
        kinds={"compute": f_t + b_t, "memory-bandwidth": 0.0},
        tokens_per_sample=1,
        flops_per_step=(1 + ratio) * flops * dp * job.grad_accumulation(hw.count),
        recompute_flops=0.0,
    )


def _embedding_exchange(job: TrainingJob, hw: Hardware, topo: Topology, catalog: Catalog, notes: list[str]) -> float:
    """Model-parallel embedding tables: the pooled vectors' exchange of one micro-batch, forward and
    backward, by how the sharding planner lays each table out (gpuwise.estimate.embedding_exchange)."""
    from gpuwise.estimate.embedding_exchange import exchange_seconds, shard_tables  # recommenders only

    model = job.model
    assert isinstance(model, GenericArch)
    e = training_element_bytes(job)
    sharding = shard_tables(model, hw.count, hw.nodes, hw.gpu.capacity_bytes, e, catalog)
    seconds, terms = exchange_seconds(sharding, job.micro_batch, e, hw.count, topo)
    notes.append(
        "embedding tables sharded across GPUs as TorchRec's planner lays them out, each micro-batch: "
        + "; ".join(terms)
        + " [torchrec-sharding]"
    )
    return seconds


def _framework_efficiency(prof: Framework, notes: list[str]) -> float:
    notes.append(
        f"{prof.name} runs at {prof.efficiency:.0%} of the per-operation roofline "
        f"[framework_efficiency.yaml: {prof.efficiency_note}, scripts/fit_efficiency.py]"
    )
    return prof.efficiency


def _pipeline_bubble(pp: int, m: int, vpp: int, micro_batch_seconds: float, notes: list[str]) -> float:
    """1F1B: pp-1 micro-batch times of fill and drain; the interleaved schedule with vpp virtual
    stages per GPU divides it by vpp (Narayanan et al. 2021, section 2.2.2)."""
    if vpp > 1:
        notes.append(f"interleaved 1F1B pipeline: bubble = (pp-1)/(m x vpp) = {pp - 1}/({m} x {vpp}) of the step")
    else:
        notes.append(f"1F1B pipeline: bubble = (pp-1)/m = {pp - 1}/{m} of the micro-batch time")
    return (pp - 1) * micro_batch_seconds / vpp


def _first_stage(job: TrainingJob, hw: Hardware) -> StageParams:
    """The parameters one GPU of the first pipeline stage holds, as the memory model counts them
    (1/ep of the experts under expert parallelism, the embedding as --tp-embedding says)."""
    par = job.parallel
    stage = "first" if par.pp > 1 else "only"
    model = job.model
    # a whole stage's layers with the embedding, as the time model paces the pipeline (a full stage)
    whole = stage_layers(model.layers, par.pp, "middle") if isinstance(model, TransformerArch) else None
    return stage_params(model, par.tp, par.pp, stage, hw.count, par.ep, par.etp, job.tp_embedding, layers=whole)


def _trainable_params(job: TrainingJob, hw: Hardware) -> tuple[float, float]:
    """Trainable parameters on one GPU of the first stage, and all its parameters."""
    model, par = job.model, job.parallel
    stage = _first_stage(job, hw)
    if isinstance(model, GenericArch):  # sharded tables are updated in place, never gathered or reduced
        return (model.dense_params, model.dense_params) if model.embedding_tables else (model.params, stage.total)
    if job.method == "full":
        return stage.total, stage.total
    return lora_params(job, stage.layers, par.tp), stage.total


def _data_parallel_comm(
    job: TrainingJob,
    hw: Hardware,
    topo: Topology,
    catalog: Catalog,
    work: MicroBatchWork,
    seconds: tuple[float, float],
    notes: list[str],
) -> float | None:
    """Exposed gradient synchronisation (None without data parallelism). DDP: the all-reduce runs
    in buckets under the backward, the last bucket is exposed; ZeRO-3/FSDP: parameters gathered
    forward and backward, gradients reduce-scattered, overlapped with each micro-batch's compute.
    `seconds`: one micro-batch's compute and one layer's backward, after the framework factor."""
    per_mb, layer_backward = seconds
    dp = data_parallel(job, hw)
    n_train, stage_total = _trainable_params(job, hw)
    e = training_element_bytes(job)
    full = job.method == "full" and isinstance(job.model, TransformerArch)
    prof = framework_of(job, catalog)
    # gradients are reduced in the dtype the stack keeps them in (fp32 under Megatron's bf16), or in bf16
    # where the run asks for it (--grad-reduce-dtype: FSDP's reduce_dtype, Megatron's --grad-reduce-in-bf16)
    kept = state_bytes(job, prof, catalog.convention).gradient
    reduced = DTYPE_BYTES["bf16"] if job.grad_reduce_dtype == "bf16" else kept
    grad_bytes = n_train * (reduced if full else e)
    # the updated parameters are all-gathered as stored (FP8 parameters: one byte a linear weight)
    param_bytes = fp8_param_bytes(_first_stage(job, hw)) if fp8_params(job) else n_train * e
    if dp <= 1 or grad_bytes <= 0:
        return None
    spans = hw.nodes > 1
    m = job.grad_accumulation(hw.count)
    overlap = prof.overlap_grad_reduce if job.overlap_grad_reduce is None else job.overlap_grad_reduce
    backward = work.layers * layer_backward
    if job.parallel.zero >= 3 and not pipeline_fsdp_held(job, prof):
        w_elem = e if job.method == "full" else 2
        g_elem = grad_bytes / n_train
        z3 = zero3_comm(
            job,
            hw,
            topo,
            (stage_total * w_elem, w_elem),
            (grad_bytes, g_elem),
            work.layers,
            _expert_split(job, hw, notes),
        )
        notes.extend(z3.notes)
        if not overlap:
            return _zero3_unoverlapped(z3, m, per_mb, notes)
        if m > 1 and job.defer_grad_sync:
            return _zero3_reduced_once(z3, m, (per_mb, backward), notes)
        return m * max(0.0, z3.total - per_mb) + z3.first_layer
    if not overlap:
        # the optimizer updates, and the all-gather returns, the trainable parameters only (not a LoRA base)
        return _reduction_after_backward(job, hw, topo, (grad_bytes, param_bytes), notes)
    bucket_bytes = reduce_bucket_bytes(job, prof, catalog.convention, e, grad_bytes / n_train)
    g = node_ranks(job, hw)  # the data-parallel group's ranks in one node: their NICs carry its traffic
    last = collective("all_reduce", min(grad_bytes, bucket_bytes), dp, topo, spans, g)
    if job.parallel.zero >= 1:
        # distributed optimizer: gradients reduce-scattered under the last backward, updated 16-bit
        # parameters all-gathered under the next step's first forward (Megatron --overlap-param-gather)
        scatter, gather = _grouped_sync(job, hw, topo, (grad_bytes, param_bytes), notes)
        exposed_gather = max(0.0, gather - (per_mb - backward))
        if grads_reduced_each_micro_batch(job, prof, m):
            notes.append(
                f"ZeRO-2: the rank keeps only its shard of the gradients, so each of the {m} micro-batches "
                f"reduce-scatters its own in {bucket_bytes / MiB:g} MiB buckets under its backward, the last "
                "bucket of each exposed; parameter all-gather under the first forward"
            )
            return m * (max(0.0, scatter - backward) + last) + exposed_gather
        held = " (the pipeline stage held unsharded, reduced once)" if pipeline_fsdp_held(job, prof) else ""
        notes.append(
            f"sharded optimizer{held}: gradient reduce-scatter in {bucket_bytes / MiB:g} MiB buckets under the last "
            "backward, parameter all-gather under the first forward; the last bucket is exposed"
        )
        return max(0.0, scatter - backward) + exposed_gather + last
    total, _ = _grouped_sync(job, hw, topo, (grad_bytes, param_bytes), notes)
    notes.append(
        f"data parallel: gradient all-reduce in {bucket_bytes / MiB:g} MiB buckets overlapped with the last backward; the last bucket is exposed"
    )
    return max(0.0, total - backward) + last


def _expert_split(job: TrainingJob, hw: Hardware, notes: list[str]) -> tuple[float, tuple[int, int]] | None:
    """Under expert parallelism (ep x etp other than tp): the MoE experts' share of the rank's trainable
    parameters and the expert-data-parallel group that gathers and reduces them (sharding.expert_data_parallel);
    None where the experts share the data-parallel group."""
    par = job.parallel
    share = 0.0 if par.ep * par.expert_tp == par.tp else expert_shard_factor(job, _first_stage(job, hw))[0]
    if not share:
        return None
    group = expert_data_parallel(job, hw)
    notes.append(
        f"MoE experts ({share:.0%} of the rank's parameters) gathered and reduced over their expert-data-parallel "
        f"group: {group[0]} ranks, {group[1]} in a node"
    )
    return share, group


def _grouped_sync(
    job: TrainingJob, hw: Hardware, topo: Topology, sizes: tuple[float, float], notes: list[str]
) -> tuple[float, float]:
    """(gradient reduction, updated-parameter all-gather) seconds: all-reduce without ZeRO, reduce-
    scatter and all-gather with a sharded optimizer. Under expert parallelism (ep x etp other than tp)
    the experts' part of `sizes` (gradient bytes, 16-bit parameter bytes of the rank) is reduced over
    its own expert-data-parallel group, strided across the nodes (sharding.expert_data_parallel), the
    rest over the data-parallel ranks."""
    grad_bytes, param_bytes = sizes
    par = job.parallel
    split = _expert_split(job, hw, notes)
    parts: list[tuple[float, tuple[int, int] | None]] = [(1.0, None)]
    if split is not None:
        parts = [(1 - split[0], None), split]
    reduce = gather = 0.0
    for f, group in parts:
        if par.zero >= 1:
            r, a = sharded_optimizer_comm(job, hw, topo, grad_bytes * f, param_bytes * f, group)
        else:
            ranks, per_node = group or (data_parallel(job, hw), node_ranks(job, hw))
            spans = hw.nodes > 1 if group is None else ranks > per_node
            r, a = collective("all_reduce", grad_bytes * f, ranks, topo, spans, per_node), 0.0
        reduce, gather = reduce + r, gather + a
    return reduce, gather


def _zero3_unoverlapped(z3: Zero3Comm, m: int, per_mb: float, notes: list[str]) -> float:
    """ZeRO-3/FSDP with the gradient reduction not overlapped (--no-overlap-grad-reduce): the parameter
    gathers still prefetch under compute, each micro-batch's gradient collectives wait after it."""
    gathers = sum(v for k, v in z3.terms.items() if not k.startswith("grad_"))
    reduces = z3.total - gathers
    notes.append(
        "gradient reduction not overlapped (--no-overlap-grad-reduce): each micro-batch's reduce-scatter is exposed"
    )
    return m * (max(0.0, gathers - per_mb) + reduces) + z3.first_layer


def _zero3_reduced_once(z3: Zero3Comm, m: int, seconds: tuple[float, float], notes: list[str]) -> float:
    """ZeRO-3/FSDP accumulating unsharded gradients (--defer-grad-sync, FSDP no_sync): the parameter
    gathers run every micro-batch under its compute, the gradient collectives once, under the last
    backward. `seconds`: one micro-batch's compute and its backward."""
    per_mb, backward = seconds
    gathers = sum(v for k, v in z3.terms.items() if not k.startswith("grad_"))
    notes.append(f"gradients reduced once after {m} micro-batches (deferred synchronisation)")
    return m * max(0.0, gathers - per_mb) + max(0.0, z3.total - gathers - backward) + z3.first_layer


def _reduction_after_backward(
    job: TrainingJob, hw: Hardware, topo: Topology, sizes: tuple[float, float], notes: list[str]
) -> float:
    """Gradient synchronisation that waits for the step's last backward (Megatron Core without
    --overlap-grad-reduce: finalize_model_grads reduces the whole gradient buffer; with the distributed
    optimizer the updated parameters are all-gathered after the step, without --overlap-param-gather).
    `sizes`: (gradient bytes as reduced, trainable 16-bit parameter bytes as gathered)."""
    notes.append(
        "gradient reduction not overlapped (--no-overlap-grad-reduce; Megatron Core's default): it runs after the "
        "last backward" + (", and the updated parameters' all-gather after the step" if job.parallel.zero >= 1 else "")
    )
    reduce, gather = _grouped_sync(job, hw, topo, sizes, notes)
    return reduce + gather


def _optimizer_step(job: TrainingJob, hw: Hardware, rates: Rates, catalog: Catalog, notes: list[str]) -> float:
    """The update reads and writes the trainable parameters' states (memory-bound, optimizer_step.py);
    ZeRO-1+ shards it over the data-parallel ranks. An optimizer offloaded to the CPU updates there (its
    PCIe traffic is the offload term)."""
    if optimizer_on_host(job) or not job.updates:
        return 0.0
    n_train, _ = _trainable_params(job, hw)
    state = step_bytes_per_param(job, framework_of(job, catalog), catalog, notes) * n_train
    if job.parallel.zero >= 1:
        # over the data x context parallel ranks, or under hybrid sharding a node's (each node updates its copy);
        # MoE experts over the expert-data-parallel ranks only, ep x etp / tp times fewer
        state /= shard_ranks(job, hw)
        state *= expert_shard_factor(job, _first_stage(job, hw))[1]
    return rates.time(0.0, state, "memory")


def _offload_seconds(job: TrainingJob, hw: Hardware, catalog: Catalog, per_mb: float, notes: list[str]) -> float:
    """PCIe time of what lives in CPU memory, per step, at the host-device copy rate of the GPU's
    PCIe link: gradients down and updated 16-bit parameters up (optimizer offload), parameter
    shards up for forward and backward and gradients down each micro-batch (parameter offload),
    saved activations down and back each micro-batch, overlapped with its compute (activations)."""
    if not job.offload:
        return 0.0
    gpu = hw.gpu
    link = pcie_link(gpu, catalog)
    rate = link.achieved_bandwidth
    n_train, stage_total = _trainable_params(job, hw)
    dp, m = data_parallel(job, hw), job.grad_accumulation(hw.count)
    shard = 1 / dp if job.parallel.zero >= 2 else 1.0
    e = training_element_bytes(job)
    seconds = 0.0
    if optimizer_on_host(job):
        seconds += n_train * shard * (DTYPE_BYTES["fp32"] + e) / rate
    if "params" in job.offload:
        seconds += m * (2 * stage_total / dp * e + n_train / dp * DTYPE_BYTES["fp32"]) / rate
    if "activations" in job.offload:
        acts = training_memory(replace(job, offload=()), hw, catalog).per_gpu.detail.get("layer_activations", 0.0)
        seconds += m * max(0.0, 2 * acts / rate - per_mb)
    notes.append(
        f"CPU offload ({', '.join(job.offload)}): transfers at {rate / 1e9:.0f} GB/s host-device copy [{link.name}]"
    )
    return seconds


def _cpu_optimizer_step(job: TrainingJob, hw: Hardware, catalog: Catalog, notes: list[str]) -> float:
    """The optimizer step on the host under ZeRO-Offload: DeepSpeed's CPU-Adam updates each rank's
    partition after the backward (no delayed update), every rank of a host at once on its shared
    cores and memory, at the measured rate of CPU-Adam (conventions cpu_adam_params_per_second).
    Other stacks' CPU optimizers (torch's, under FSDP cpu_offload) have no sourced rate: not timed."""
    if not optimizer_on_host(job):
        return 0.0
    prof = framework_of(job, catalog)
    if not prof.zero_offload or job.optimizer != "adamw":
        notes.append(f"the CPU optimizer step ({prof.name}, {job.optimizer}) is not timed: no published rate")
        return 0.0
    n_train, _ = _trainable_params(job, hw)
    shard = n_train / shard_ranks(job, hw) if job.parallel.zero >= 1 else n_train
    host = min(hw.count, hw.gpus_per_node)
    rate = catalog.convention("cpu_adam_params_per_second")
    notes.append(
        f"CPU-Adam (DeepSpeed) updates {host} x {shard / 1e9:.3g}B parameters on each host after the backward, "
        f"at {rate / 1e9:.3g}B parameters/s a host [conventions cpu_adam_params_per_second]"
    )
    return shard * host / rate


def _bottleneck(work: MicroBatchWork, terms: dict[str, float], exposed_comm: float, catalog: Catalog) -> str:
    """The roofline side that bounds compute, or communication when its exposed part exceeds the
    catalog's share of the compute."""
    if exposed_comm > max(terms["compute"] * catalog.convention("communication_bottleneck_share"), 0):
        return "communication"
    return max(work.kinds, key=lambda k: work.kinds[k])


def _attention_rate(job: TrainingJob, rates: Rates, catalog: Catalog, notes: list[str]) -> Rates:
    """Attention runs in bf16 under FP8 training (Transformer Engine and torchao cast only the
    linears), and at the efficiency of the stack's kernel: FlashAttention-2 reaches a lower share
    of Hopper's peak than fused cuDNN/FlashAttention-3 kernels (FlashAttention-3 paper)."""
    peak = rates.gpu.peak_flops.get("bf16", rates.peak) if job.precision == "fp8" else rates.peak
    if job.precision == "fp8":
        notes.append("FP8 training: linear layers at the FP8 rate, attention at the bf16 rate")
    kernel = framework_of(job, catalog).attention_kernel
    arch, gpu = rates.gpu.architecture, rates.gpu.id
    # measured for that kernel on the GPU model or its architecture (B200's FlashAttention-2 runs Ampere-style
    # instructions that consumer Blackwell cards run at their full rate), else for the GPU's or the
    # architecture's kernels, else the default
    keys = (
        f"attention_efficiency_{kernel}_{gpu}",
        f"attention_efficiency_{kernel}_{arch}",
        f"attention_efficiency_{gpu}",
        f"attention_efficiency_{arch}",
    )
    eff_key = next((k for k in keys if k in catalog.conventions), "attention_efficiency")
    if eff_key in keys[:2]:
        name = "FlashAttention-2" if kernel == "fa2" else "fused cuDNN"
        on = gpu if eff_key == keys[0] else arch
        notes.append(f"{name} attention at {catalog.convention(eff_key):.0%} of peak on {on} [{eff_key}]")
    elif eff_key in keys:
        notes.append(f"attention at {catalog.convention(eff_key):.0%} of peak on {gpu} [{eff_key}]")
    return replace(rates, attention=min(rates.matmul, peak * rates.clock * catalog.convention(eff_key)))


def _mfu_peak(job: TrainingJob, rates: Rates, catalog: Catalog) -> float:
    """The peak an MFU is taken against: the compute dtype's, or TF32's for an fp32 step of a model described by
    operators whose convolutions cuDNN may run on TF32 (rates.cudnn_tf32), as the run's hardware offers it."""
    model = job.model
    tf32 = cudnn_tf32(rates, catalog) if isinstance(model, GenericArch) and model.operators else None
    return rates.peak if tf32 is None else tf32.peak


def training_time(job: TrainingJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog) -> TrainingEstimate:
    """Step seconds as the sum of named terms (compute, tensor-parallel and data-parallel
    communication, pipeline bubble and p2p, optimizer step), or the data pipeline's pace."""
    notes: list[str] = list(rates.notes) + list(topo.notes)
    rates = _attention_rate(job, rates, catalog, notes)
    describe = _transformer_work if isinstance(job.model, TransformerArch) else _generic_work
    work = describe(job, hw, rates, topo, catalog, notes)
    framework = _framework_efficiency(framework_of(job, catalog), notes)
    per_mb = work.compute / framework
    m, pp = job.grad_accumulation(hw.count), job.parallel.pp
    terms: dict[str, float] = {"compute": m * per_mb}
    if job.momentum_encoder:  # the moving-average copy encodes each micro-batch: a forward, no backward
        terms["momentum_encoder_forward"] = m * work.forward / framework
    if work.tensor_parallel:
        terms["tensor_parallel_comm"] = m * work.tensor_parallel
    if work.context_parallel:
        terms["context_parallel_comm"] = m * work.context_parallel
    if work.expert_parallel:
        terms["expert_parallel_comm"] = m * work.expert_parallel
    if pp > 1:
        vpp = job.parallel.vpp
        terms["pipeline_bubble"] = _pipeline_bubble(pp, m, vpp, per_mb + work.tensor_parallel, notes)
        terms["pipeline_p2p"] = (m * vpp + pp - 1) * work.pipeline_p2p  # vpp sends per micro-batch
    dp_exposed = _data_parallel_comm(job, hw, topo, catalog, work, (per_mb, work.layer_backward / framework), notes)
    if dp_exposed is not None:
        terms["data_parallel_comm"] = dp_exposed
    terms["optimizer_step"] = _optimizer_step(job, hw, rates, catalog, notes)
    if job.offload:
        terms["cpu_offload_transfers"] = _offload_seconds(job, hw, catalog, per_mb, notes)
        cpu_step = _cpu_optimizer_step(job, hw, catalog, notes)
        if cpu_step:
            terms["cpu_optimizer_step"] = cpu_step
    comm_terms = ("tensor_parallel_comm", "context_parallel_comm", "expert_parallel_comm", "pipeline_p2p")
    exposed_comm = sum(terms.get(k, 0.0) for k in comm_terms) + (dp_exposed or 0.0)
    bottleneck = _bottleneck(work, terms, exposed_comm, catalog)
    gpu_seconds = sum(v for k, v in terms.items() if k != "cpu_optimizer_step")  # the CPU's Adam hides no launch
    if waited := host_wait(job, work.layers, m, gpu_seconds, rates, catalog, notes):
        terms["host_dispatch_wait"], bottleneck = waited, "host"
    step = sum(terms.values())
    global_batch = _global_batch(job, hw)
    if job.data is not None:
        rate, why = pipeline_rate(job.data, hw)
        notes.append(why)
        if global_batch / rate > step:  # the GPUs wait for data
            terms["data_wait"] = global_batch / rate - step
            step, bottleneck = global_batch / rate, "data-pipeline"
    samples_per_s = global_batch / step
    tokens_per_s = samples_per_s * work.tokens_per_sample
    total = job.tokens / tokens_per_s if job.tokens else (job.samples / samples_per_s if job.samples else None)
    evaluating = None if total is None else _eval_seconds(job, total / step, work.forward / framework, notes)
    total = total if evaluating is None or total is None else total + evaluating
    return TrainingEstimate(
        flops_per_step=work.flops_per_step,
        hardware_flops_per_step=work.flops_per_step + work.recompute_flops,
        step_seconds=step,
        comm_seconds_per_step=exposed_comm,
        tokens_per_second=tokens_per_s,
        samples_per_second=samples_per_s,
        mfu=work.flops_per_step / step / (hw.count * _mfu_peak(job, rates, catalog)),
        total_seconds=total,
        gpu_hours=None if total is None else total * hw.count / 3600,
        terms=terms,
        bottleneck=bottleneck,
        notes=tuple(notes),
        eval_seconds=evaluating,
    )


def _eval_seconds(job: TrainingJob, steps: float, forward: float, notes: list[str]) -> float | None:
    """Evaluation inside the run (--eval-every N --eval-batches M): after every N of the run's steps
    each rank runs M forward passes of a micro-batch, timed as the training forward (the same
    kernels without the backward); None without an evaluation."""
    if job.evaluation is None:
        return None
    every, batches = job.evaluation
    count = math.floor(steps / every)
    notes.append(
        f"evaluation: {count:,} x {batches:,} forward micro-batches ({forward * 1e3:.3g} ms each) "
        f"beside {steps:,.0f} steps"
    )
    return count * batches * forward
