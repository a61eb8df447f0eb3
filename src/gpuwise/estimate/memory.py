"""Per-GPU memory: weights, gradients, optimizer states, activations, KV cache, overheads.

Pure functions over specs. Conventions (bytes per state, overheads) come from the catalog's
`conventions.yaml`, each with its source; every one used is named in `assumptions`.
Formulas: model states after Rajbhandari et al. (ZeRO); activations after Korthikanti et al.
(2022), generalized to GQA, gated FFNs, MoE, FlashAttention and dropout-free training.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import field, fields, replace
from typing import Any

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.catalog.schema import Framework
from gpuwise.errors import UsageError
from gpuwise.estimate.compute import block_linear_params, expert_linear_params, kv_heads_per_gpu
from gpuwise.struct import frozen
from gpuwise.units import KiB, fmt_bytes
from gpuwise.workload.build import data_parallel
from gpuwise.workload.specs import DTYPE_BYTES, Hardware, InferenceJob, TrainingJob, Workload

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


@frozen
class MemoryBreakdown:
    """Bytes on the most loaded GPU, by component; `detail` names the parts of each."""

    weights: float = 0
    gradients: float = 0
    optimizer: float = 0
    activations: float = 0
    kv_cache: float = 0
    overhead: float = 0
    detail: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(getattr(self, c) for c in COMPONENTS)

    def as_dict(self) -> dict[str, int]:
        out = {c: round(getattr(self, c)) for c in COMPONENTS}
        out["total"] = round(self.total)
        return out


@frozen
class MemoryEstimate:
    per_gpu: MemoryBreakdown
    capacity: int
    assumptions: tuple[str, ...]

    @property
    def _resident(self) -> float:
        """The total less what may page out: bitsandbytes' paged optimizer states live in CUDA
        unified memory and move to the host when the device is full, so they never block a fit."""
        paged = self.per_gpu.detail.get("paged_optimizer_states", 0.0)
        return self.per_gpu.total - paged

    @property
    def fits(self) -> bool:
        return self._resident <= self.capacity

    @property
    def headroom(self) -> float:
        return self.capacity - self._resident

    def as_reported(self) -> dict[str, float]:
        """The peak as each tool reports it: torch.cuda.max_memory_allocated (tensors only),
        max_memory_reserved (plus the caching allocator's slack) and device used (nvidia-smi: plus
        the CUDA context and NCCL buffers), so a measured peak is compared with what it measured.
        Paged optimizer states (cudaMallocManaged, outside torch's allocator) count only on the
        device, and only as far as they fit beside the rest."""
        d = self.per_gpu.detail
        outside = d.get("cuda_context", 0.0) + d.get("nccl_buffers", 0.0)
        paged = d.get("paged_optimizer_states", 0.0)
        reserved = self.per_gpu.total - outside - paged
        return {
            "max_allocated": reserved - d.get("allocator_fragmentation", 0.0),
            "max_reserved": reserved,
            "device_used": min(self.per_gpu.total, max(self._resident, self.capacity)),
        }

    def as_dict(self) -> dict[str, object]:
        return {
            "per_gpu": self.per_gpu.as_dict(),
            "detail": {k: round(v) for k, v in self.per_gpu.detail.items()},
            "as_reported": {k: round(v) for k, v in self.as_reported().items()},
            "capacity": self.capacity,
            "fits": self.fits,
            "headroom": round(self.headroom),
        }


class _Notes:
    """Collects assumptions in order, once each."""

    def __init__(self, catalog: Catalog) -> None:
        self.cat = catalog
        self.items: list[str] = []

    def conv(self, key: str) -> float:
        c = self.cat.conventions[key]
        shown = (
            f"{fmt_bytes(c.value)}{c.unit.removeprefix('bytes')}"
            if c.unit.startswith("bytes") and c.value >= KiB
            else f"{c.value:g} {c.unit}"
        )
        note = f"{key} = {shown}: {c.why} [{self.cat.sources[c.source].title}]"
        if note not in self.items:
            self.items.append(note)
        return c.value

    def add(self, text: str) -> None:
        if text not in self.items:
            self.items.append(text)


# ----------------------------------------------------------------------------------------
# parameters per GPU
# ----------------------------------------------------------------------------------------
@frozen
class StageParams:
    """Parameters held by one GPU of a pipeline stage before data-parallel sharding."""

    block_linear: float  # weight matrices inside transformer blocks (quantizable, LoRA targets)
    other: float  # embeddings, norms, biases, heads: kept at 16 bits when the base is quantized
    layers: int

    @property
    def total(self) -> float:
        return self.block_linear + self.other


def stage_params(
    model: TransformerArch | GenericArch,
    tp: int,
    pp: int,
    stage: str,
    gpus: int = 1,
    ep: int = 1,
    etp: int | None = None,
) -> StageParams:
    """Parameters on one GPU of the `first` or `last` pipeline stage (the same when pp == 1).

    Recommenders shard their embedding tables over all `gpus` (table-wise model parallelism, as
    TorchRec and the DLRM reference do) and replicate the dense layers. With expert parallelism
    (`ep`) each rank holds 1/ep of the MoE experts, each split over `etp` ranks (expert-tensor
    parallelism; None: over the tp ranks, Megatron's default).
    """
    if isinstance(model, GenericArch):
        return StageParams(block_linear=0, other=model.dense_params + model.embedding_params / gpus, layers=0)
    n_layers = math.ceil(model.layers / pp)
    linear_w: float = block_linear_params(model)
    layer_rest = model.layer_params - linear_w
    experts_w = expert_linear_params(model)
    # 1/ep of the expert matrices on each rank, each 1/etp of its expert; the rest split over tp
    block = n_layers * ((linear_w - experts_w) / tp + experts_w / (ep * (tp if etp is None else etp)))
    other = n_layers * layer_rest / tp
    first, last = stage in ("first", "only"), stage in ("last", "only")
    if first or pp == 1:
        other += model.embedding_params / tp
    if last or pp == 1:
        other += model.head_params / tp
        if pp > 1 and model.tied_embeddings and model.lm_head:
            other += model.vocab * model.hidden / tp  # the last stage keeps its own copy of the tied head
    return StageParams(block_linear=block, other=other, layers=n_layers)


def lora_params(job: TrainingJob, layers: int, tp: int, head: bool = True) -> float:
    """Adapter parameters r*(d_in + d_out) per targeted matrix (Hu et al. 2021), per GPU; an
    `lm_head` target adds r*(hidden + vocab) on the GPU that holds the head (`head`)."""
    model = job.model
    assert isinstance(model, TransformerArch)
    per_layer = sum(
        lin.count * job.lora_rank * (lin.d_in + lin.d_out) for lin in model.linears() if lin.name in job.lora_targets
    )
    on_head = job.lora_rank * (model.hidden + model.vocab) if head and "lm_head" in job.lora_targets else 0
    return (layers * per_layer + on_head) / tp


def weight_bytes_per_param(dtype: str, conv: Callable[[str], float]) -> float:
    """Stored bytes per block-linear weight of `dtype`, quantization scales included: the one place
    the memory model and the serving timer read them from. `conv` reads a catalog convention (the
    memory model's also records it as an assumption)."""
    if dtype == "nf4":
        bits = conv("nf4_double_quant_bits")
        return conv("nf4_bytes") + bits / 8
    if dtype == "int4":
        group = conv("int4_group_size")
        return DTYPE_BYTES["int4"] + conv("int4_group_scale_bytes") / group
    if dtype == "int8":
        conv("int8_scale_bytes_per_row")  # 4 B per row of thousands of weights: < 0.1 %, not added
    return DTYPE_BYTES[dtype]


def _quantized_linear_bytes(dtype: str, params: float, n: _Notes) -> float:
    """Bytes of quantized block weights including their scales (cited conventions)."""
    return params * weight_bytes_per_param(dtype, n.conv)


def optimizer_bytes_per_param(job: TrainingJob, conv: Callable[[str], float]) -> float:
    """Optimizer state bytes per trainable parameter (cited conventions), for memory and for the
    optimizer step's traffic."""
    opt = job.optimizer
    if opt == "adamw":
        return conv("adam_state_bytes")
    if opt == "adamw-8bit":
        return conv("adam8bit_state_bytes")
    if opt == "sgd":
        return conv("sgd_momentum_bytes")
    # Adafactor: one fp32 per row and per column of each matrix; vectors keep a full second moment.
    model = job.model
    per_value = conv("adafactor_state_bytes")
    if isinstance(model, TransformerArch):
        mats = model.layers * sum(lin.count * (lin.d_in + lin.d_out) for lin in model.linears())
        mats += model.vocab + model.hidden
        vectors = model.params - model.layers * block_linear_params(model)
        vectors -= model.vocab * model.hidden
        return per_value * (mats + max(vectors, 0)) / model.params
    return per_value  # no shapes known: conservatively one value per parameter


def training_element_bytes(job: TrainingJob) -> int:
    """Bytes of an activation, weight or gradient element at the training precision."""
    return int(DTYPE_BYTES["fp32" if job.precision in ("fp32", "tf32") else "bf16"])


def pure_16bit_state_scale(job: TrainingJob) -> float:
    """How pure 16-bit training scales the fp32 optimizer states: torch's AdamW/SGD keep them in the
    parameter dtype (2 of 4 bytes); bitsandbytes' 8-bit states stay 8-bit whatever the parameters."""
    return 1.0 if job.optimizer == "adamw-8bit" else DTYPE_BYTES["bf16"] / DTYPE_BYTES["fp32"]


def framework_of(job: TrainingJob, catalog: Catalog) -> Framework:
    """The job's training stack, or the catalog's default for its task."""
    return catalog.framework(job.framework or catalog.default_framework(job.task))


@frozen
class StateBytes:
    """Bytes per trainable parameter of each model state under a framework's conventions."""

    weight: float  # the parameters as stored (16-bit, or fp32 under AMP)
    gradient: float  # the gradient kept for the optimizer (fp32 when accumulated in fp32)
    main_gradient: float  # an extra fp32 gradient copy the optimizer owns (sharded with it)
    master: float  # fp32 master copy of 16-bit parameters
    optimizer: float  # optimizer states

    @property
    def total(self) -> float:
        return self.weight + self.gradient + self.main_gradient + self.master + self.optimizer


def state_bytes(job: TrainingJob, prof: Framework, conv: Callable[[str], float]) -> StateBytes:
    """Per-parameter model states of full training: Megatron's bf16 row is 2 + 4 + 4 + 8 = 18 B
    (its distributed-optimizer table), AMP with fp32 parameters 4 + 4 + 8 = 16 B (DDP, FSDP; a
    ZeRO-1/2 stage runs DeepSpeed's 16-bit parameters with an fp32 master copy), pure bf16 2 + 2 + 4."""
    opt = optimizer_bytes_per_param(job, conv)
    if job.precision in ("fp32", "tf32"):
        return StateBytes(DTYPE_BYTES["fp32"], prof.gradient_bytes[job.precision], 0.0, 0.0, opt)
    half = DTYPE_BYTES["bf16"]
    if not job.master_weights:  # pure 16-bit: gradients and optimizer states in the parameter dtype
        return StateBytes(half, half, 0.0, 0.0, opt * pure_16bit_state_scale(job))
    grad = prof.gradient_bytes[job.precision]
    if prof.fp32_params and job.parallel.zero in (0, 3):  # ZeRO-1/2 exist only as DeepSpeed stages
        return StateBytes(DTYPE_BYTES["fp32"], grad, 0.0, 0.0, opt)
    main = prof.main_gradient_bytes.get(job.precision, 0.0)
    return StateBytes(half, grad, main, conv("master_weight_bytes"), opt)


# ----------------------------------------------------------------------------------------
# activations
# ----------------------------------------------------------------------------------------
ALL_LINEARS = frozenset(("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"))


def layer_activation_bytes(
    model: TransformerArch,
    seq: int,
    batch: int,
    act_bytes: float,
    tp: int,
    sp: bool,
    attention: str,
    recompute: str,
    n: _Notes,
    saving: frozenset[str] = ALL_LINEARS,
    norm_bytes: float | None = None,
    linear_in_bytes: float | None = None,
    fused_swiglu: bool = False,
    selective_op: bool = False,
    expert_load: float = 1.0,
    softmax_bytes: float | None = None,
) -> float:
    """Bytes saved for backward by one transformer block on one GPU (Korthikanti et al. §4).

    Each tensor is counted once, when some backward needs it. A linear layer keeps its input
    only if its weight gradient is needed (`saving`: every linear in full training; LoRA-targeted
    ones for LoRA; all of them for bitsandbytes 4-bit layers, whose autograd function saves the
    input). Norm inputs are kept at `norm_bytes` (fp32 in eager implementations; 2 B for
    Megatron's fused kernels). Gated MLPs keep gate, act(gate) and up for the product's backward.
    With `norm_bytes=2` this reduces to s*b*h*(34 + 5*a*s/h) for GPT-3 shapes with dropout, eager
    attention and no TP (Korthikanti et al., equation 1). `linear_in_bytes` (1 under Transformer
    Engine FP8) is the size of the inputs linears keep for their weight gradient; a fused SwiGLU
    keeps gate and up only (its backward recomputes act(gate)). `selective_op`: torchtitan's
    op-level selective checkpointing, which keeps the layer input, the outputs of every other matmul
    (q, v, w1, w2 of q, k, v, o, w1, w3, w2), the attention output and its log-sum-exp.
    `softmax_bytes`: the eager softmax output kept for its backward (4 under torch.autocast, which runs
    softmax in fp32; default the activation size).
    """
    s, b, h = seq, batch, model.hidden
    e = act_bytes
    probs = e if softmax_bytes is None else softmax_bytes
    mask_b = n.conv("dropout_mask_bytes") if (model.dropout or model.attention_dropout) else 0.0
    mask = mask_b if model.dropout else 0.0  # the two hidden-dropout masks of a block
    kv_per_gpu = kv_heads_per_gpu(model, tp)
    attn_in = bool(saving & {"q_proj", "k_proj", "v_proj"})
    mlp_in = bool(saving & {"gate_proj", "up_proj"})
    # Replicated across tensor-parallel ranks unless sequence parallelism splits them: norm inputs
    # (always needed by the norm's backward), block inputs of the saving linears, dropout masks.
    if norm_bytes is None:
        norm_bytes = max(e, n.conv("norm_saved_bytes"))
    lin_e = e if linear_in_bytes is None else linear_in_bytes
    replicated = s * b * h * (norm_bytes * model.norms_per_layer + lin_e * (attn_in + mlp_in) + 2 * mask)
    # Split across tensor-parallel ranks by heads / FFN columns: Q, K, V and the attention output
    # (kept by the attention backward), MLP intermediates (kept by the activation's backward), and
    # the input of the down projection when its weight trains.
    q_and_out = 2 * e * s * b * model.q_dim / tp
    if lin_e != e and "o_proj" in saving:  # the FP8 copy of the attention output, for o_proj's gradient
        q_and_out += lin_e * s * b * model.q_dim / tp
    kv = 2 * e * s * b * kv_per_gpu * model.head_dim
    gated = (2 if fused_swiglu else 3) if model.gated_ffn else 1
    mlp_width = (gated * e + lin_e * ("down_proj" in saving)) * s * b * model.ffn / tp
    mlp = mlp_width * model.experts_per_token * expert_load  # MoE: the expert GEMMs' tokens (padded capacity)
    if attention == "eager" and recompute == "none":
        # softmax output; with attention dropout also its mask and the dropped-out probabilities
        scores = (probs + (mask_b + e if model.attention_dropout else 0)) * model.heads / tp * s * s * b
    elif attention == "flash":
        scores = 4 * s * b * model.heads / tp  # FlashAttention keeps one fp32 log-sum-exp per row
    else:
        scores = 0.0  # selective recomputation rebuilds the attention core in backward
    if model.is_moe:
        mlp += 4 * s * b * model.experts  # fp32 router logits
    split = q_and_out + kv + mlp + scores
    full_layer = (replicated / tp if (sp and tp > 1) else replicated) + split
    rows = h / (tp if sp and tp > 1 else 1)
    if recompute == "full":
        return e * s * b * rows  # the checkpointed layer input
    if recompute == "selective" and selective_op:
        experts_f = model.ffn / tp * model.experts_per_token * expert_load
        kept = 2 * rows + 2 * model.q_dim / tp + kv_per_gpu * model.head_dim + experts_f
        return e * s * b * kept + 4 * s * b * model.heads / tp
    return full_layer


def saving_linears(job: TrainingJob, prof: Framework | None = None) -> frozenset[str]:
    """Linear layers whose inputs are kept for backward (see `layer_activation_bytes`): all of them
    in full training and under bitsandbytes' 4-bit layers (MatMul4Bit keeps its input whenever the
    input needs a gradient); LoRA's targets otherwise (torchao's LinearNF4 keeps only the weight)."""
    if job.method == "full":
        return ALL_LINEARS
    if job.method == "qlora" and (prof is None or prof.quantized_linear == "bitsandbytes"):
        return ALL_LINEARS
    return frozenset(job.lora_targets)


def _layer_options(job: TrainingJob, prof: Framework, e: float, n: _Notes) -> dict[str, Any]:
    """What the stack's kernels keep per layer: norm inputs, FP8 linear inputs, fused SwiGLU."""
    fp8_inputs = job.precision == "fp8" and prof.fp8_saves_fp8_inputs
    if fp8_inputs:
        n.add("FP8 (Transformer Engine): linears keep FP8 copies of their inputs; attention and its tensors stay bf16")
    fused_swiglu, norm_bytes = prof.fused_swiglu, max(e, prof.norm_saved_bytes)
    if job.compile and not (fused_swiglu and norm_bytes == e):
        fused_swiglu, norm_bytes = True, e
        n.add(
            "torch.compile: AOTAutograd's min-cut partitioner saves the 16-bit inputs of fused pointwise chains "
            "and recomputes the rest in backward (norms keep their 16-bit input, not an fp32 upcast; SwiGLU keeps "
            "gate and up, not act(gate))"
        )
    if prof.fused_swiglu:
        n.add(f"{prof.name}: fused SwiGLU keeps gate and up only")
    if job.recompute == "selective" and prof.selective_policy == "op":
        n.add(f"{prof.name}: op-level selective checkpointing keeps every other matmul output and the attention output")
    autocast = prof.fp32_params and job.master_weights and job.precision in ("fp16", "bf16")
    if autocast and job.attention == "eager":
        n.add(f"{prof.name} AMP: torch.autocast runs the eager softmax in fp32; its fp32 output is kept for backward")
    return {
        "softmax_bytes": DTYPE_BYTES["fp32"] if autocast else None,
        "norm_bytes": norm_bytes,
        "linear_in_bytes": DTYPE_BYTES["fp8"] if fp8_inputs else None,
        "fused_swiglu": fused_swiglu,
        "selective_op": prof.selective_policy == "op",
        "expert_load": job.expert_load if isinstance(job.model, TransformerArch) and job.model.is_moe else 1.0,
    }


def _activations(
    job: TrainingJob, hw: Hardware, stage: str, prof: Framework, n: _Notes
) -> tuple[float, dict[str, float]]:
    model = job.model
    e = 4 if job.precision in ("fp32", "tf32") or _kbit_upcast(job, n) else 2
    if isinstance(model, GenericArch):
        if model.activation_bytes_per_sample is None:
            n.add(
                f"{model.name}: no activation size per sample is known; activations counted as 0 (measure with gpuwise bench step)"
            )
            return 0.0, {}
        n.add(f"{model.name}: activations = published bytes per sample x micro-batch")
        return model.activation_bytes_per_sample * job.micro_batch * e / 2, {}
    par = job.parallel
    tp, pp = par.tp, par.pp
    sp = par.sequence_parallel and tp > 1
    seq = math.ceil(model.tokens_per_sample(job.seq) / par.cp)
    if par.cp > 1:
        n.add(f"context parallelism: each of {par.cp} ranks keeps the activations of {seq} tokens (ring attention)")
    args = (model, seq, job.micro_batch, e, tp, sp, job.attention)
    saving = saving_linears(job, prof)
    if job.method == "lora":
        n.add("LoRA: frozen linear layers keep no input for backward; targeted ones keep it for their adapter")
    elif job.method == "qlora" and prof.quantized_linear == "bitsandbytes":
        n.add("QLoRA (bitsandbytes): each 4-bit linear layer keeps its input for backward")
    elif job.method == "qlora":
        n.add("QLoRA (torchao NF4): the 4-bit base keeps no input; LoRA-targeted linears keep theirs")
    opts = _layer_options(job, prof, e, n)
    per_layer = layer_activation_bytes(*args, job.recompute, n, saving, **opts)
    stage_layers = math.ceil(model.layers / pp)
    m = job.grad_accumulation(hw.count)
    in_flight = min(pp, m) if stage == "first" else 1
    if pp > 1:
        n.add("pipeline 1F1B schedule: the first stage keeps activations of min(pp, micro-batches) micro-batches")
    kept = stage_layers * in_flight
    if "activations" in job.offload:
        kept = min(kept, 2)
        n.add("activation offloading: saved activations go to CPU memory; two layers' worth (current + prefetch) stay")
    detail: dict[str, float] = {"layer_activations": per_layer * kept}
    if job.recompute == "full":
        # backward recomputes one layer at a time: its full activations exist transiently
        detail["recompute_working_set"] = layer_activation_bytes(*args, "none", n, saving, **opts)
        n.add("full recomputation: checkpoints keep each layer's input; one layer's activations are rebuilt at a time")
    elif job.recompute == "selective":
        n.add("selective recomputation: attention scores recomputed (Korthikanti et al.)")
    if job.attention == "flash" and job.recompute == "none":
        n.add("FlashAttention: no s x s attention matrix is stored")
    held = _bnb_inputs_held(job, prof, seq, e, stage_layers, n)
    if held:
        detail["bnb_inputs_held"] = held
    if model.lm_head and stage in ("last", "only"):
        kind = job.loss or prof.loss_kind
        per_logit = n.conv(f"logits_bytes_{kind}")
        detail["logits_and_loss"] = seq * job.micro_batch * model.vocab / tp * per_logit
        if job.method != "full" and "lm_head" in job.lora_targets:
            # the adapter's B @ (A @ x) is a second vocab-wide 16-bit tensor beside the base logits until
            # the two are summed; its input keeps for the adapter's gradient (h per token)
            detail["lm_head_adapter"] = seq * job.micro_batch * (model.vocab / tp + model.hidden) * e
            n.add("LoRA on the LM head: a second vocab-wide logits tensor (the adapter's output) before the sum")
        which = f"{prof.loss} [{prof.name}]" if kind == prof.loss_kind else f"{kind} (--loss)"
        n.add(f"loss: {which}, {per_logit:g} B per logit at its peak")
    if not (model.dropout or model.attention_dropout):
        n.add(f"{model.name}: no dropout in training (config), so no dropout masks")
    return sum(detail.values()), detail


def _bnb_inputs_held(job: TrainingJob, prof: Framework, seq: int, e: float, layers: int, n: _Notes) -> float:
    """bitsandbytes keeps each 4-bit linear's input as a ctx attribute, which lives as long as the
    graph node, not until that node's backward; a loop that keeps `loss` bound until the next
    micro-batch's loss exists (LitGPT's) so holds the previous micro-batch's inputs of every 4-bit
    linear through the next forward: the block input of q/k/v and of gate/up, the input of o_proj
    and of down_proj, for each layer (a micro-batch of the same length)."""
    model = job.model
    if job.method != "qlora" or prof.quantized_linear != "bitsandbytes" or not prof.loss_held_between_steps:
        return 0.0
    assert isinstance(model, TransformerArch)
    tp = job.parallel.tp
    per_token = 2 * model.hidden + model.q_dim / tp + model.ffn / tp * model.experts_per_token
    n.add(
        f"{prof.name}: the previous micro-batch's `loss` is still bound during the next forward, and "
        "bitsandbytes' MatMul4Bit keeps its inputs on ctx (not save_for_backward): one micro-batch of "
        "4-bit linear inputs per layer stays allocated at the peak"
    )
    return layers * seq * job.micro_batch * e * per_token


def _zero3_gathered(job: TrainingJob, sp_: StageParams, w_bytes: float, n: _Notes) -> float:
    """Unsharded parameters on a ZeRO-3/FSDP rank at the peak: two gathered layers (current +
    prefetch), or, when the LM head is larger than a layer, the head (an FSDP unit of its own,
    gathered for the loss as backward starts) with its unsharded gradient before the reduce-scatter
    when it trains, plus the prefetched last layer. A 4-bit base is gathered in its quantized storage
    (torchao NF4's fsdp_pre_all_gather; bitsandbytes' bnb_4bit_quant_storage), not dequantized."""
    model = job.model
    assert isinstance(model, TransformerArch)
    tp = job.parallel.tp
    linear_w = block_linear_params(model)
    linear_b = weight_bytes_per_param("nf4", n.conv) if job.method == "qlora" else w_bytes
    layer_bytes = (linear_w * linear_b + (model.layer_params - linear_w) * w_bytes) / tp
    head_bytes = model.vocab * model.hidden / tp * w_bytes if model.lm_head and sp_.layers else 0.0
    head = head_bytes * (2 if job.method == "full" else 1) + layer_bytes
    if head > 2 * layer_bytes:
        n.add(
            "ZeRO-3/FSDP: each rank keeps 1/dp of the parameters plus, at the loss, the gathered LM head"
            + (" and its unsharded gradient" if job.method == "full" else "")
            + " and one prefetched layer"
        )
        return head
    n.add("ZeRO-3/FSDP: each rank keeps 1/dp of the parameters plus two gathered layers (current + prefetch)")
    return 2 * layer_bytes


def _pipeline_unsharded(
    job: TrainingJob, sp_: StageParams, w_bytes: float, prof: Framework, n: _Notes
) -> tuple[float, float]:
    """FSDP under pipeline parallelism (torchtitan): a stage is not resharded after forward (one
    all-gather per step, not one per micro-batch) and the schedule defers the reduce-scatter to the
    last micro-batch, so each rank keeps the whole stage's parameters in the compute dtype and,
    in full training, its gradients accumulated unsharded in the reduce dtype."""
    grads = sp_.total * prof.gradient_bytes[job.precision] if job.method == "full" else 0.0
    n.add(
        f"{prof.name} with pipeline stages: FSDP keeps the stage's parameters unsharded between micro-batches "
        "and accumulates its gradients unsharded until the last micro-batch's reduce-scatter"
    )
    return sp_.total * w_bytes, grads


def _step_in_backward(job: TrainingJob, hw: Hardware, sp_: StageParams, n: _Notes) -> float:
    """The one gradient alive at a time when the optimizer steps each parameter as soon as its
    gradient is accumulated (torchtune optimizer_in_bwd; PyTorch's register_post_accumulate_grad_hook
    tutorial): the largest parameter tensor's, the embedding or LM head of a transformer. It needs
    one micro-batch per step: accumulating would need every gradient kept."""
    if job.grad_accumulation(hw.count) > 1:
        raise UsageError(
            "--optimizer-in-backward steps each parameter during backward, so it cannot accumulate "
            "gradients over micro-batches: set --global-batch to micro-batch x data-parallel ranks"
        )
    model = job.model
    grad_bytes = DTYPE_BYTES["fp32" if job.precision in ("fp32", "tf32") or job.master_weights else "bf16"]
    n.add("optimizer step fused into backward: each gradient is applied and freed at once, the largest one at the peak")
    if not isinstance(model, TransformerArch):
        return sp_.total * grad_bytes
    tp = job.parallel.tp
    biggest: float = max(lin.d_in * lin.d_out for lin in model.linears()) / tp
    if model.embedding_params or model.lm_head:
        biggest = max(biggest, model.vocab * model.hidden / tp)
    return min(biggest, sp_.total) * grad_bytes


# ----------------------------------------------------------------------------------------
# training
# ----------------------------------------------------------------------------------------
def shard_model_states(
    weights: float, grads: float, optimizer: float, master: float, dp: int, zero: int
) -> tuple[float, float, float, float]:
    """ZeRO stages (Rajbhandari et al. §5): 1 shards optimizer states and master weights over
    the dp ranks, 2 also gradients, 3 also the 16-bit parameters."""
    if zero >= 1:
        optimizer, master = optimizer / dp, master / dp
    if zero >= 2:
        grads = grads / dp
    if zero >= 3:
        weights = weights / dp
    return weights, grads, optimizer, master


def _shard_states(
    job: TrainingJob, sp_: StageParams, states: tuple[float, float, float, float], dp: int, n: _Notes
) -> tuple[tuple[float, float, float, float], float]:
    """ZeRO-sharded states, and the factor their sharded part grows by because MoE experts shard
    over the expert-data-parallel group only: Megatron's distributed optimizer shards expert
    parameters over world / (pp x ep x etp) ranks, ep x etp / tp times fewer than the dense ones
    (parallel_state's expert grid), so r = (1 - f) + f x ep x etp / tp for an expert share f."""
    zero = job.parallel.zero
    weights, grads, opt, master = shard_model_states(*states, dp, zero)
    model, par = job.model, job.parallel
    if not zero or job.method != "full" or not isinstance(model, TransformerArch) or not model.is_moe:
        return (weights, grads, opt, master), 1.0
    experts_w = expert_linear_params(model)
    share = sp_.layers * experts_w / (par.ep * par.expert_tp) / max(sp_.total, 1)
    r = (1 - share) + share * par.ep * par.expert_tp / par.tp
    if r == 1:
        return (weights, grads, opt, master), 1.0
    n.add(
        f"MoE experts ({share:.0%} of the rank's parameters) shard their states over {par.ep * par.expert_tp / par.tp:g}x fewer ranks (expert data parallelism)"
    )
    grads, weights = (grads * r if zero >= 2 else grads), (weights * r if zero >= 3 else weights)
    return (weights, grads, opt * r, master * r), r


def _overheads(allocated: float, hw: Hardware, comm: bool, n: _Notes) -> dict[str, float]:
    out = {"cuda_context": n.conv("cuda_context_bytes")}
    if comm:
        out["nccl_buffers"] = n.conv("nccl_buffer_bytes_per_channel") * n.conv("nccl_channels")
    out["allocator_fragmentation"] = allocated * n.conv("allocator_fragmentation")
    return out


def _kbit_upcast(job: TrainingJob, n: _Notes) -> bool:
    """PEFT's prepare_model_for_kbit_training casts every weight that is not 4-bit (embeddings, norms,
    LM head) to fp32, and a bitsandbytes Linear4bit returns its input's dtype: the embedding output is
    fp32, so the residual stream, each linear's output and every saved activation stay fp32 (a stack
    that casts the norms and embeddings back to 16 bits, as axolotl does for FlashAttention, runs 16-bit)."""
    if not job.kbit_fp32_upcast:
        return False
    if job.method != "qlora":
        raise UsageError("kbit_fp32_upcast describes a 4-bit (QLoRA) base prepared by PEFT; use it with --method qlora")
    n.add(
        "PEFT prepare_model_for_kbit_training: embeddings, norms and LM head in fp32; bitsandbytes returns its "
        "input's dtype, so the residual stream and the saved activations are fp32"
    )
    return True


def _kbit_head_copy(job: TrainingJob, n: _Notes) -> float:
    """The fp32 LM head under autocast: its 16-bit weight copy is cached in the forward and saved for
    the input gradient (the head adapter's and the blocks' gradients need it)."""
    model = job.model
    if not (job.kbit_fp32_upcast and isinstance(model, TransformerArch) and model.lm_head):
        return 0.0
    n.add("autocast: a 16-bit copy of the fp32 LM head weight, saved for backward")
    return model.vocab * model.hidden / job.parallel.tp * DTYPE_BYTES["bf16"]


def _adapter_states(
    job: TrainingJob, sp_: StageParams, w_bytes: float, opt_bpp: float, n: _Notes, detail: dict[str, float], head: bool
) -> tuple[float, float, float]:
    """LoRA/QLoRA: weights (frozen base + adapters), gradients and optimizer states of the adapters."""
    if job.method == "qlora":
        kept = "fp32" if _kbit_upcast(job, n) else "bf16"
        weights = _quantized_linear_bytes("nf4", sp_.block_linear, n) + sp_.other * DTYPE_BYTES[kept]
        if kept == "bf16":
            n.add("QLoRA: block linears in NF4 with double quantization; embeddings, norms and LM head stay 16-bit")
    else:
        weights = sp_.total * DTYPE_BYTES[job.weights_dtype]
    detail["frozen_base"] = weights
    adapter_b = n.conv("lora_adapter_bytes") if job.master_weights else w_bytes
    trainable = lora_params(job, sp_.layers, job.parallel.tp, head)
    adapter_w = trainable * adapter_b
    detail["lora_adapters"] = adapter_w
    n.add(
        f"LoRA rank {job.lora_rank} on {', '.join(job.lora_targets)}: only adapters have gradients and optimizer states"
    )
    return weights + adapter_w, trainable * adapter_b, trainable * opt_bpp


def _full_states(
    job: TrainingJob, sp_: StageParams, prof: Framework, n: _Notes, detail: dict[str, float]
) -> tuple[float, float, float, float]:
    """Full training: (weights, gradients, optimizer states, master weights + fp32 main gradients)."""
    sb = state_bytes(job, prof, n.conv)
    n_par = sp_.total
    if job.precision not in ("fp32", "tf32"):
        if not job.master_weights:
            n.add("pure 16-bit training: no fp32 master copy; gradients and optimizer states in the parameter dtype")
        elif prof.fp32_params:
            n.add(
                f"{prof.name}: fp32 parameters with 16-bit autocast compute, fp32 gradients (no separate master copy)"
            )
        else:
            n.add(
                f"{prof.name}: 16-bit parameters, {sb.gradient:g} B gradients, fp32 master weights"
                + (f", {sb.main_gradient:g} B fp32 main gradients" if sb.main_gradient else "")
                + f" ({sb.total:g} B/param with {job.optimizer})"
            )
    detail["main_gradients"] = n_par * sb.main_gradient
    return n_par * sb.weight, n_par * sb.gradient, n_par * sb.optimizer, n_par * (sb.master + sb.main_gradient)


def _fp8_weight_cache(job: TrainingJob, sp_: StageParams, prof: Framework, n: _Notes) -> float:
    """Transformer Engine caches an FP8 copy of each linear weight and its transpose across micro-batches."""
    if job.precision != "fp8" or not prof.fp8_saves_fp8_inputs or job.method != "full":
        return 0.0
    n.add("FP8 (Transformer Engine): an FP8 weight and its transpose cached per linear (2 B per linear weight)")
    return 2 * DTYPE_BYTES["fp8"] * sp_.block_linear


def _autocast_weight_copies(job: TrainingJob, sp_: StageParams, prof: Framework, dp: int, n: _Notes) -> float:
    """AMP with unsharded fp32 parameters (ZeRO 0, or ZeRO-3 over one rank; ZeRO-1/2 stages run
    DeepSpeed's 16-bit parameters instead): torch.autocast casts each matmul weight to 16 bits once
    per forward (its weight cache), and autograd saves that copy for the input gradient, so every
    block linear and the LM head have a 16-bit copy alive at the peak (sharded ZeRO-3/FSDP's gathered
    16-bit parameters are these copies; embeddings are looked up, not cast)."""
    model = job.model
    zero = job.parallel.zero
    unsharded = zero == 0 or (zero >= 3 and dp == 1)
    if not (job.method == "full" and prof.fp32_params and unsharded and isinstance(model, TransformerArch)):
        return 0.0
    if job.precision not in ("fp16", "bf16") or not job.master_weights:
        return 0.0
    head = model.vocab * model.hidden / job.parallel.tp if model.lm_head and sp_.layers else 0.0
    n.add(
        f"{prof.name} AMP: a 16-bit autocast copy of every matmul weight, saved for backward, beside the fp32 parameters"
    )
    return (sp_.block_linear + head) * DTYPE_BYTES[job.precision]


def _offload(
    job: TrainingJob, states: tuple[float, float, float, float], n: _Notes, detail: dict[str, float]
) -> tuple[float, float, float, float]:
    """States kept in CPU memory leave the GPU: optimizer (and master) states with ZeRO-Offload,
    also the parameter shards and gradients with ZeRO-Infinity / FSDP cpu_offload."""
    weights, grads, opt, master = states
    if "optimizer" in job.offload or "params" in job.offload:
        detail["offloaded_to_cpu"] = opt + master
        opt = master = 0.0
        n.add(
            "optimizer states (and any fp32 master copy) live in CPU memory (ZeRO-Offload); the update runs on the CPU"
        )
    if "params" in job.offload:
        detail["offloaded_to_cpu"] += weights - detail.get("zero3_gather_buffer", 0.0) + grads
        weights, grads = detail.get("zero3_gather_buffer", 0.0), 0.0
        n.add(
            "parameter shards and gradients live in CPU memory (FSDP cpu_offload / ZeRO-Infinity): the GPU holds gathered layers"
        )
    return weights, grads, opt, master


def _sparse_tables(job: TrainingJob, hw: Hardware, n: _Notes) -> dict[str, float] | None:
    """One GPU's share of a recommender's embedding tables as TorchRec/FBGEMM train them: sharded
    (row-wise for the large tables, table-wise for the rest: an even share per GPU), updated by a
    fused sparse optimizer (row-wise Adagrad: one fp32 accumulator per row) inside the backward, so
    no table gradient is materialized and no master copy kept; ZeRO does not apply to them."""
    model = job.model
    if not isinstance(model, GenericArch) or not model.embedding_tables:
        return None
    gpus = hw.count
    params = model.embedding_params / gpus
    rows = sum(r for r, _ in model.embedding_tables) / gpus
    e = training_element_bytes(job)
    state = rows * n.conv("rowwise_adagrad_state_bytes_per_row")
    n.add(
        f"{model.name}: embedding tables ({model.embedding_params / 1e9:.2f}B parameters) sharded over {gpus} GPU(s), "
        f"trained with fused row-wise Adagrad (one fp32 state per row, no table gradients kept); "
        f"dense layers with {job.optimizer}"
    )
    from gpuwise.estimate.operators import table_placement  # recommenders only: LLMs never load it

    place = table_placement(model, gpus, hw.gpu.capacity_bytes, e, n.cat)
    on_gpu = place.gpu_bytes / (params * e) if params else 1.0
    if place.host_bytes:
        n.add(
            f"{model.name}: {fmt_bytes(place.host_bytes)} of each GPU's table share kept in host memory, "
            f"{fmt_bytes(place.gpu_bytes)} of hot rows cached on the GPU (UVM caching, "
            f"{place.hit_rate:.0%} of lookups served there) [embedding_gpu_table_share, embedding_cache_hit_rate]"
        )
    return {"params": params, "weights": place.gpu_bytes, "optimizer": state * on_gpu}


def _zero3_unsharded(
    job: TrainingJob,
    sp_: StageParams,
    w_bytes: float,
    prof: Framework,
    dp: int,
    shard: float,
    n: _Notes,
    detail: dict[str, float],
) -> tuple[float, float]:
    """What a ZeRO-3/FSDP rank holds unsharded beside its `shard` of the parameters: (parameters,
    gradients), never more parameters than sharding saved."""
    if job.parallel.zero < 3 or dp <= 1 or not isinstance(job.model, TransformerArch):
        return 0.0, 0.0
    grads = 0.0
    if job.parallel.pp > 1 and prof.pipeline_fsdp_unsharded:
        gather, grads = _pipeline_unsharded(job, sp_, w_bytes, prof, n)
        detail["unsharded_gradients"] = grads
    else:
        gather = _zero3_gathered(job, sp_, w_bytes, n)
    detail["zero3_gather_buffer"] = min(gather, shard * dp - shard)
    return detail["zero3_gather_buffer"], grads


def _training_stage(job: TrainingJob, hw: Hardware, stage: str, prof: Framework, n: _Notes) -> MemoryBreakdown:
    """Model states (ZeRO-sharded), activations and overheads on one GPU of a pipeline stage."""
    par = job.parallel
    # context-parallel ranks hold the same parameters: ZeRO/FSDP shard over data x context parallel
    # ranks (Megatron's distributed optimizer and torchtitan's FSDP use that group)
    dp = data_parallel(job, hw) * par.cp
    zero = par.zero
    sp_ = stage_params(job.model, par.tp, par.pp, stage, hw.count, par.ep, par.etp)
    if isinstance(job.model, GenericArch) and job.model.embedding_tables and hw.count > 1:
        n.add(f"embedding tables sharded over {hw.count} GPUs, dense layers replicated")
    tables = _sparse_tables(job, hw, n) if job.method == "full" else None
    if tables is not None:  # the dense layers take the job's optimizer; the tables their own
        sp_ = replace(sp_, other=sp_.other - tables["params"])
    if par.ep > 1:
        n.add(f"expert parallelism: each rank holds 1/{par.ep} of the experts, each split over {par.expert_tp}")
    detail: dict[str, float] = {}
    w_bytes = training_element_bytes(job)
    if job.method == "full":
        weights, grads, opt, master = _full_states(job, sp_, prof, n, detail)
    else:
        opt_bpp = optimizer_bytes_per_param(job, n.conv) * (
            pure_16bit_state_scale(job) if w_bytes < 4 and not job.master_weights else 1
        )
        weights, grads, opt = _adapter_states(job, sp_, w_bytes, opt_bpp, n, detail, stage in ("last", "only"))
        master = 0.0

    # ZeRO sharding over data-parallel ranks (Rajbhandari et al.)
    (weights, grads, opt, master), expert_r = _shard_states(job, sp_, (weights, grads, opt, master), dp, n)
    gathered, unreduced = _zero3_unsharded(job, sp_, w_bytes, prof, dp, weights, n, detail)
    weights, grads = weights + gathered, grads + unreduced
    if zero:
        n.add(f"ZeRO stage {zero} over {dp} data-parallel ranks")
    if job.optimizer_in_backward:
        grads = min(grads, _step_in_backward(job, hw, sp_, n) / (dp if zero >= 2 else 1))
    if "main_gradients" in detail:
        detail["main_gradients"] *= expert_r / dp if zero >= 1 else 1
    detail["master_weights"] = master - detail.get("main_gradients", 0.0)
    if tables is not None:
        detail["embedding_tables"], detail["embedding_optimizer"] = tables["weights"], tables["optimizer"]
        weights, opt = weights + tables["weights"], opt + tables["optimizer"]
    weights, grads, opt, master = _offload(job, (weights, grads, opt, master), n, detail)
    if "offloaded_to_cpu" in detail:
        detail["master_weights"] = detail["main_gradients"] = 0.0
    fp8_cache = _fp8_weight_cache(job, sp_, prof, n)
    if fp8_cache:
        detail["fp8_weight_cache"] = fp8_cache
        weights += fp8_cache
    if zero < 1 and dp > 1:
        n.add(f"plain data parallelism: every one of {dp} ranks holds full model states")
    if job.paged_optimizer:
        detail["paged_optimizer_states"] = opt
        n.add(
            "paged optimizer (bitsandbytes): states in CUDA unified memory (cudaMallocManaged), outside "
            "torch's allocator statistics; they page to host memory when the GPU is full"
        )
    acts, act_detail = _activations(job, hw, stage, prof, n)
    detail.update(act_detail)
    copies = _autocast_weight_copies(job, sp_, prof, dp, n)  # saved for backward: counted with the activations
    if stage in ("last", "only"):
        copies += _kbit_head_copy(job, n)
    if copies:
        detail["autocast_weight_copies"] = copies
        acts += copies
    allocated = weights + grads + opt + master + acts - detail.get("paged_optimizer_states", 0.0)
    over = _overheads(allocated, hw, hw.count > 1, n)
    if job.method == "qlora" and isinstance(job.model, TransformerArch):
        big = max(lin.d_in * lin.d_out for lin in job.model.linears()) / par.tp
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


def training_memory(job: TrainingJob, hw: Hardware, catalog: Catalog) -> MemoryEstimate:
    n = _Notes(catalog)
    prof = framework_of(job, catalog)
    n.add(f"framework: {prof.id} ({prof.name}){'' if job.framework else ', the default for ' + job.task}")
    stages = ("first", "last") if job.parallel.pp > 1 else ("only",)
    breakdowns = [_training_stage(job, hw, s, prof, n) for s in stages]
    worst = max(breakdowns, key=lambda b: b.total)
    return MemoryEstimate(per_gpu=worst, capacity=hw.gpu.capacity_bytes, assumptions=tuple(n.items))


# ----------------------------------------------------------------------------------------
# inference
# ----------------------------------------------------------------------------------------
def kv_cache_bytes(model: TransformerArch, tokens: int, batch: int, kv_bytes: float, tp: int = 1, pp: int = 1) -> float:
    """2 * layers * kv_heads * head_dim * tokens * batch * bytes, on one GPU.

    KV heads split over tensor-parallel ranks (replicated when tp > kv_heads); sliding-window
    layers hold at most `window` tokens.
    """
    if not model.decoder:
        return 0.0
    kv_per_gpu = kv_heads_per_gpu(model, tp)
    layers = math.ceil(model.layers / pp)
    windowed = min(layers, math.ceil(model.sliding_window_layers / pp)) if model.sliding_window else 0
    full_tokens = (layers - windowed) * tokens
    win_tokens = windowed * min(tokens, model.sliding_window or tokens)
    return 2 * kv_per_gpu * model.head_dim * (full_tokens + win_tokens) * batch * kv_bytes


def inference_memory(job: InferenceJob, hw: Hardware, catalog: Catalog) -> MemoryEstimate:
    n = _Notes(catalog)
    model = job.model
    par = job.parallel
    stage = "first" if par.pp > 1 else "only"
    sp_ = stage_params(model, par.tp, par.pp, stage, hw.count)
    wd = job.weights_dtype
    keep16 = "bf16" if wd in ("int8", "int4", "nf4", "fp8") else wd
    weights = _quantized_linear_bytes(wd, sp_.block_linear, n) + sp_.other * DTYPE_BYTES[keep16]
    if keep16 != wd:
        n.add(f"{wd} weights: block linears quantized; embeddings, norms and LM head stay 16-bit")
    detail: dict[str, float] = {}
    kv = 0.0
    if isinstance(model, TransformerArch) and job.lora_adapters:
        detail["lora_adapters"] = lora_adapter_bytes(model, job, DTYPE_BYTES[keep16])
        weights += detail["lora_adapters"]
        n.add(
            f"{job.lora_adapters} LoRA adapter slot(s) at rank {job.lora_adapter_rank} in {keep16} on every linear "
            "of every layer (vLLM preallocates A and B per wrapped layer for --max-loras at --max-lora-rank)"
        )
    if isinstance(model, TransformerArch):
        kv = kv_cache_bytes(model, job.context_tokens, job.concurrency, DTYPE_BYTES[job.kv_dtype], par.tp, par.pp)
        if model.decoder:
            n.add(f"KV cache for {job.concurrency} request(s) x {job.context_tokens} tokens in {job.kv_dtype}")
            if model.sliding_window:
                n.add(
                    f"sliding window of {model.sliding_window} tokens on {model.sliding_window_layers} of {model.layers} layers caps their KV cache"
                )
        acts = inference_workspace(model, job, n)
    else:
        act = model.activation_bytes_per_sample or 0.0
        acts = act * job.concurrency
        n.add(f"{model.name}: forward working set bounded by the training activation size per sample")
    detail["prefill_workspace"] = acts
    allocated = weights + kv + acts
    over = _overheads(allocated, hw, par.model_parallel > 1, n)
    detail.update(over)
    bd = MemoryBreakdown(weights=weights, activations=acts, kv_cache=kv, overhead=sum(over.values()), detail=detail)
    return MemoryEstimate(per_gpu=bd, capacity=hw.gpu.capacity_bytes, assumptions=tuple(n.items))


ROW_PARALLEL = ("o_proj", "down_proj")  # input split over TP ranks; the other linears split their output


def lora_adapter_bytes(model: TransformerArch, job: InferenceJob, dtype_bytes: float) -> float:
    """Bytes of the resident adapters on one GPU: per adapter slot, per linear of a stage's layers,
    A (rank x in) and B (out x rank) at the reserved rank, as vLLM's create_lora_weights allocates
    them (vllm/lora/layers.py): a column-parallel layer's A is whole and its B split over TP, a
    row-parallel layer the other way round; MoE experts each carry their own pair."""
    tp = job.parallel.tp
    per_layer = 0.0
    for lin in model.linears():
        if lin.name == "router":
            continue
        row = lin.name in ROW_PARALLEL
        per_layer += lin.count * (lin.d_in / (tp if row else 1) + lin.d_out / (1 if row else tp))
    layers = math.ceil(model.layers / job.parallel.pp)
    return job.lora_adapters * job.lora_adapter_rank * per_layer * layers * dtype_bytes


def inference_workspace(model: TransformerArch, job: InferenceJob, n: _Notes) -> float:
    """Transient tensors of one layer while prefilling one chunk, plus fp32 logits of the last tokens."""
    tp = job.parallel.tp
    tokens: float = job.concurrency * job.input_tokens
    if model.decoder:  # serving engines prefill in chunks; encoders run the whole batch at once
        tokens = min(tokens, n.conv("prefill_chunk_tokens"))
    e = 2
    per_token = e * (
        2 * model.hidden
        + (model.q_dim + 2 * model.kv_dim) / tp
        + (3 if model.gated_ffn else 2) * model.ffn / tp * model.experts_per_token
    )
    logits = job.concurrency * model.vocab / tp * 4 if model.lm_head else 0.0
    n.add(
        "prefill with FlashAttention/paged attention: one layer's transient tensors for one chunk plus fp32 logits of the last tokens"
    )
    return tokens * per_token + logits


# ----------------------------------------------------------------------------------------
# entry points
# ----------------------------------------------------------------------------------------
def memory(work: Workload, hw: Hardware, catalog: Catalog) -> MemoryEstimate:
    if isinstance(work, TrainingJob):
        return training_memory(work, hw, catalog)
    return inference_memory(work, hw, catalog)


def largest_fitting(work: Workload, hw: Hardware, catalog: Catalog, field_name: str, limit: int = 1 << 24) -> int:
    """Largest value of `field_name` (micro_batch, seq, concurrency, input_tokens) that fits; 0 if none."""

    if field_name not in {f.name for f in fields(work)}:
        raise UsageError(f"{type(work).__name__} has no field {field_name!r} to size")

    def fits(v: int) -> bool:
        changes: dict[str, Any] = {field_name: v}
        return memory(replace(work, **changes), hw, catalog).fits

    if not fits(1):
        return 0
    lo, hi = 1, 2
    while hi <= limit and fits(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, limit + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo
