"""Model states per GPU: parameters by pipeline stage, bytes per weight, gradient and optimizer
state under a framework's conventions, ZeRO/FSDP sharding (Rajbhandari et al.), adapters,
offloading and recommenders' embedding tables."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.catalog.arch import Linear, is_language_model
from gpuwise.catalog.schema import Framework
from gpuwise.errors import UsageError
from gpuwise.estimate.compute import block_linear_params, expert_linear_params, replicated_linear_params
from gpuwise.estimate.memory.breakdown import Notes
from gpuwise.units import fmt_bytes
from gpuwise.workload.specs import DTYPE_BYTES, Hardware, TrainingJob, quantized_base, stage_layers


@dataclass(frozen=True, slots=True)
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
    tp_embedding: bool = True,
    layers: int | None = None,
) -> StageParams:
    """Parameters on one GPU of the `first` or `last` pipeline stage (the same when pp == 1); the token
    embedding split over tp unless `tp_embedding` is off (replicated on every TP rank).

    Recommenders shard their embedding tables over all `gpus` (table-wise model parallelism, as
    TorchRec and the DLRM reference do) and replicate the dense layers. With expert parallelism
    (`ep`) each rank holds 1/ep of the MoE experts, each split over `etp` ranks (expert-tensor
    parallelism; None: over the tp ranks, Megatron's default).
    """
    if isinstance(model, GenericArch):
        return StageParams(block_linear=0, other=model.dense_params + model.embedding_params / gpus, layers=0)
    n_layers = stage_layers(model.layers, pp, stage) if layers is None else layers
    linear_w: float = block_linear_params(model)
    layer_rest = model.layer_params - linear_w
    experts_w = expert_linear_params(model)
    # 1/ep of the expert matrices on each rank, each 1/etp of its expert; the rest split over tp
    whole = replicated_linear_params(model)  # MLA's latent down projections: on every rank
    split = linear_w - experts_w - whole
    block = n_layers * (split / tp + whole + experts_w / (ep * (tp if etp is None else etp)))
    other = n_layers * layer_rest / tp
    first, last = stage in ("first", "only"), stage in ("last", "only")
    if first or pp == 1:
        other += model.embedding_params / (tp if tp_embedding else 1)
    if last or pp == 1:
        other += model.head_params / tp
        if pp > 1 and model.tied_embeddings and model.lm_head:
            other += model.vocab * model.hidden / tp  # the last stage keeps its own copy of the tied head
    return StageParams(block_linear=block, other=other, layers=n_layers)


def lora_target_linears(job: TrainingJob) -> Iterator[tuple[float, Linear]]:
    """Each matrix of a block that carries an adapter, with its share of the layers (a mean over the
    stack's kinds of block, MoE and dense)."""
    model = job.model
    assert isinstance(model, TransformerArch)
    for n, dense in model.block_kinds():
        for lin in model.linears(dense):
            if lin.name in job.lora_targets:
                yield n / model.layers, lin


def lora_params(job: TrainingJob, layers: int, tp: int, head: bool = True) -> float:
    """Adapter parameters r*(d_in + d_out) per targeted matrix (Hu et al. 2021), per GPU; an
    `lm_head` target adds r*(hidden + vocab) on the GPU that holds the head (`head`)."""
    model = job.model
    assert isinstance(model, TransformerArch)
    per_layer = sum(
        share * lin.count * job.lora_rank * (lin.d_in + lin.d_out) for share, lin in lora_target_linears(job)
    )
    on_head = job.lora_rank * (model.hidden + model.vocab) if head and "lm_head" in job.lora_targets else 0
    return (layers * per_layer + on_head) / tp


def weight_bytes_per_param(dtype: str, conv: Callable[[str], float], double_quant: bool = True) -> float:
    """Stored bytes per block-linear weight of `dtype`, quantization scales included: the one place
    the memory model and the serving timer read them from. `conv` reads a catalog convention (the
    memory model's also records it as an assumption). bitsandbytes 4-bit without double quantization
    (`double_quant` False: load_in_4bit as transformers leaves it) keeps one fp32 absmax per 64 weights."""
    if dtype == "nf4":
        bits = conv("nf4_double_quant_bits" if double_quant else "nf4_single_quant_bits")
        return conv("nf4_bytes") + bits / 8
    if dtype == "int4":
        group = conv("int4_group_size")
        return DTYPE_BYTES["int4"] + conv("int4_group_scale_bytes") / group
    if dtype == "nvfp4":
        return DTYPE_BYTES["nvfp4"] + conv("nvfp4_block_scale_bytes") / conv("nvfp4_block_size")
    if dtype == "int8":
        conv("int8_scale_bytes_per_row")  # 4 B per row of thousands of weights: < 0.1 %, not added
    return DTYPE_BYTES[dtype]


def qlora_base(job: TrainingJob) -> str:
    """The frozen base's storage under --method qlora: a GPTQ/AWQ int4 checkpoint when named, else
    bitsandbytes NF4 (the QLoRA paper's, and the default)."""
    return quantized_base("qlora", job.weights_dtype) or "nf4"


def int8_lora_base(job: TrainingJob) -> bool:
    """LoRA on an 8-bit base: bitsandbytes LLM.int8 (load_in_8bit), the one way the training stacks
    load an int8 base for adapters. Only the block linears are int8 (transformers' bitsandbytes
    integration keeps the embeddings, norms and LM head in 16 bits)."""
    return job.quantized_base == "int8"


def quantized_linear_bytes(dtype: str, params: float, n: Notes, double_quant: bool = True) -> float:
    """Bytes of quantized block weights including their scales (cited conventions)."""
    return params * weight_bytes_per_param(dtype, n.conv, double_quant)


def optimizer_bytes_per_param(job: TrainingJob, conv: Callable[[str], float]) -> float:
    """Optimizer state bytes per trainable parameter (cited conventions), for memory and for the
    optimizer step's traffic."""
    opt = job.optimizer
    if opt == "none":  # no optimizer: no states
        return 0.0
    if opt == "adamw":
        return conv("adam_state_bytes")
    if opt == "adamw-8bit":
        return conv("adam8bit_state_bytes")
    if opt == "sgd":
        return conv("sgd_momentum_bytes")
    if opt in ("lamb", "lion"):
        return conv(f"{opt}_state_bytes")
    # Adafactor: one fp32 per row and per column of each matrix; vectors keep a full second moment.
    model = job.model
    per_value = conv("adafactor_state_bytes")
    if isinstance(model, TransformerArch):
        mats = sum(
            n * sum(lin.count * (lin.d_in + lin.d_out) for lin in model.linears(d)) for n, d in model.block_kinds()
        )
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


def runs_foreach_adamw(job: TrainingJob, prof: Framework) -> bool:
    """The step is torch.optim.AdamW's foreach implementation (--optimizer-impl, else the stack's default):
    not a fused kernel, a step per parameter inside the backward (--optimizer-in-backward) or bitsandbytes'
    paged optimizer (its own in-place kernel)."""
    impl = job.optimizer_impl or prof.optimizer_impl
    return job.optimizer == "adamw" and impl == "foreach" and not job.optimizer_in_backward and not job.paged_optimizer


def framework_of(job: TrainingJob, catalog: Catalog) -> Framework:
    """The job's training stack, or the catalog's default for its task and model."""
    return catalog.framework(
        job.framework or catalog.default_framework(job.task, language_model=is_language_model(job.model))
    )


def loss_kind(job: TrainingJob, prof: Framework) -> str:
    """The loss implementation the job runs: its --loss, else its stack's (the memory and the time model alike);
    a stack that compiles its eager loss (`compiled_loss`) runs it compiled under --compile."""
    if job.loss:
        return job.loss
    if job.compile and prof.loss_kind == "eager" and prof.compiled_loss:
        return "compiled"
    return prof.loss_kind


@dataclass(frozen=True, slots=True)
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


def fp32_param_layout(prof: Framework, zero: int) -> bool:
    """Whether the stack's parameters stay fp32 under autocast at ZeRO stage `zero`: plain DDP, and
    ZeRO-3 where it is FSDP's. A stack that runs its ZeRO stages through DeepSpeed's engine (the HF
    Trainer and Axolotl with a DeepSpeed config: `zero_offload`) keeps 16-bit parameters and an fp32
    master copy at every stage, ZeRO-3 included (DeepSpeed's ZeRO-3 partitions its 16-bit parameters
    and the optimizer's fp32 copy: https://deepspeed.readthedocs.io/en/latest/zero3.html)."""
    return prof.fp32_params and (zero == 0 or (zero == 3 and not prof.zero_offload))


def state_bytes(job: TrainingJob, prof: Framework, conv: Callable[[str], float]) -> StateBytes:
    """Per-parameter model states of full training: Megatron's bf16 row is 2 + 4 + 4 + 8 = 18 B
    (its distributed-optimizer table), AMP with fp32 parameters 4 + 4 + 8 = 16 B (DDP, FSDP; a
    DeepSpeed stage runs its 16-bit parameters with an fp32 master copy), pure bf16 2 + 2 + 4."""
    opt = optimizer_bytes_per_param(job, conv)
    if job.precision in ("fp32", "tf32"):
        return StateBytes(DTYPE_BYTES["fp32"], prof.gradient_bytes[job.precision], 0.0, 0.0, opt)
    half = DTYPE_BYTES["bf16"]
    if not job.master_weights:  # pure 16-bit: gradients and optimizer states in the parameter dtype
        return StateBytes(half, half, 0.0, 0.0, opt * pure_16bit_state_scale(job))
    # a bf16 reduce keeps Megatron's gradient buffer in bf16; FSDP and DDP reduce in bf16 and keep the
    # reduced gradient in the fp32 parameter's dtype (FSDP casts the reduced shard back, DDP's bucket is fp32)
    bf16_kept = job.grad_reduce_dtype == "bf16" and not prof.fp32_params
    grad = DTYPE_BYTES["bf16"] if bf16_kept else prof.gradient_bytes[job.precision]
    if fp32_param_layout(prof, job.parallel.zero):
        return StateBytes(DTYPE_BYTES["fp32"], grad, 0.0, 0.0, opt)
    if not job.updates:  # no fp32 master copy and no main gradients the optimizer owns
        return StateBytes(half, grad, 0.0, 0.0, opt)
    main = prof.main_gradient_bytes.get(job.precision, 0.0)
    return StateBytes(half, grad, main, conv("master_weight_bytes"), opt)


def _zero3_gathered(job: TrainingJob, sp_: StageParams, w_bytes: float, n: Notes) -> float:
    """Unsharded parameters on a ZeRO-3/FSDP rank at the peak: two gathered layers (current +
    prefetch), or, when the LM head is larger than a layer, the head (an FSDP unit of its own,
    gathered for the loss as backward starts) with its unsharded gradient before the reduce-scatter
    when it trains, plus the prefetched last layer. A 4-bit base is gathered in its quantized storage
    (torchao NF4's fsdp_pre_all_gather; bitsandbytes' bnb_4bit_quant_storage), not dequantized."""
    model = job.model
    assert isinstance(model, TransformerArch)
    tp = job.parallel.tp
    linear_w = block_linear_params(model)
    linear_b = weight_bytes_per_param(qlora_base(job), n.conv) if job.method == "qlora" else w_bytes
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
    job: TrainingJob, sp_: StageParams, w_bytes: float, prof: Framework, n: Notes
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


def deferred_sync_gradients(
    job: TrainingJob, hw: Hardware, grads: float, prof: Framework, n: Notes, detail: dict[str, float]
) -> float:
    """The unsharded gradients a rank accumulates when FSDP skips the reduce-scatter on all but the
    last micro-batch (FSDP1 `no_sync()`, whose docs warn it accumulates unsharded gradients; FSDP2
    `set_requires_gradient_sync(False)`, whose `FSDPParam.to_accumulated_grad_if_needed` keeps each
    parameter's unsharded gradient upcast to the reduce dtype): every trainable parameter of the rank
    (`grads`: its unsharded gradients in the training dtype) in the reduce dtype, from the first
    micro-batch's backward to the last one's reduce-scatter. The sharded gradients are created only
    as each layer's accumulated gradient is reduce-scattered and freed, so the two do not add."""
    if not job.defer_grad_sync or job.grad_accumulation(hw.count) <= 1:
        return 0.0
    reduce_bytes = prof.gradient_bytes[job.precision]
    kept = DTYPE_BYTES["bf16"] if job.precision not in ("fp32", "tf32") and not job.master_weights else reduce_bytes
    held, dtype = (reduce_bytes, "the reduce dtype") if prof.deferred_grads_upcast else (kept, "the compute dtype")
    n.add(
        f"gradient accumulation without synchronisation (--defer-grad-sync): every rank keeps its unsharded "
        f"gradients in {dtype} ({held:g} B) until the last micro-batch's reduce-scatter"
    )
    detail["unsharded_gradients"] = grads * held / kept
    return detail["unsharded_gradients"]


def frozen_unit_gradients(job: TrainingJob, sp_: StageParams, head: bool, n: Notes) -> float:
    """Gradients of the frozen weights that share an FSDP unit with an adapter (--mixed-frozen-units):
    under use_orig_params=True a unit's flat parameter requires a gradient when any of its parameters
    does, so autograd computes one over all of them, in the flat parameter's dtype (PyTorch's
    _validate_frozen_params: the unit's total numel instead of its trainable numel). With each
    transformer block a unit, every block holding an adapter carries its frozen weights' gradients;
    the embedding and head unit does only when the head has an adapter."""
    if not job.mixed_frozen_units:
        return 0.0
    model = job.model
    # --method lora is refused at build (workload.build); the layout is known only here
    if job.parallel.zero < 3 or not isinstance(model, TransformerArch):
        raise UsageError(
            "--mixed-frozen-units describes a LoRA transformer under FSDP: use it with --method lora --zero 3"
        )
    frozen = sp_.block_linear + sp_.layers * (model.layer_params - block_linear_params(model)) / job.parallel.tp
    if head and "lm_head" in job.lora_targets:
        frozen = sp_.total
    n.add(
        "FSDP units mixing frozen and trainable weights (--mixed-frozen-units, use_orig_params=True): each block "
        "holding an adapter keeps a gradient of all its weights, frozen ones included"
    )
    return frozen * DTYPE_BYTES[job.weights_dtype]


def step_in_backward(job: TrainingJob, hw: Hardware, sp_: StageParams, n: Notes) -> float:
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
    return min(largest_tensor(model, job.parallel.tp), sp_.total) * grad_bytes


def largest_linear(model: TransformerArch, tp: int) -> float:
    """Elements of a block's largest weight matrix on one tensor-parallel rank."""
    return max(lin.d_in * lin.d_out for _, d in model.block_kinds() for lin in model.linears(d)) / tp


def largest_tensor(model: TransformerArch, tp: int) -> float:
    """Elements of the largest parameter tensor on one tensor-parallel rank: a block's largest
    weight matrix, or the token embedding / LM head."""
    biggest = largest_linear(model, tp)
    if model.embedding_params or model.lm_head:
        biggest = max(biggest, model.vocab * model.hidden / tp)
    return biggest


def zero_offload_gradients(
    job: TrainingJob, prof: Framework, grads: float, dp: int, micro_batches: int, n: Notes, detail: dict[str, float]
) -> float:
    """The gradient bytes left on the GPU under DeepSpeed's ZeRO-Offload (optimizer offloaded, ZeRO
    1-3): each gradient goes from the reduce bucket to its fp32 partition in CPU memory as backward
    produces it (stage_1_and_2 copy_grads_in_partition under cpu_offload, no GPU partition buffer), so
    the GPU keeps the bucket(s), reduce_bucket_size elements each (a second under overlap_comm), and the
    staging buffer of the largest parameter (two under ZeRO-3, of its partition). ZeRO-1 reduces only at
    the accumulation boundary, so with gradient accumulation every gradient waits on the GPU until then.
    Other stacks' CPU offload moves gradients with the parameters (offload()). The gradients in CPU
    memory are kept apart from `offloaded_to_cpu`: a checkpoint does not save them."""
    model = job.model
    zero = job.parallel.zero
    if not (prof.zero_offload and zero >= 1 and "optimizer" in job.offload and "params" not in job.offload):
        return grads
    if zero == 1 and micro_batches > 1:
        return grads
    if not isinstance(model, TransformerArch):
        return grads
    e = training_element_bytes(job)
    auto = prof.zero_bucket_auto
    bucket = deepspeed_bucket_elements(job, prof, n.conv)
    overlap = prof.overlap_grad_reduce if job.overlap_grad_reduce is None else job.overlap_grad_reduce
    buffers = 2 if overlap else 1
    staging = (2 if zero == 3 else 1) * largest_tensor(model, job.parallel.tp) / (dp if zero == 3 else 1)
    kept = (buffers * bucket + staging) * e
    if kept >= grads:
        return grads
    detail["gradients_in_cpu_memory"] = grads
    detail["zero_offload_gradient_buffers"] = kept
    size = "hidden_size² ('auto' in the Transformers DeepSpeed integration)" if auto else "DeepSpeed's default"
    n.add(
        f"ZeRO-Offload: gradients go to their fp32 partitions in CPU memory as backward makes them; the GPU keeps "
        f"{buffers} reduce bucket(s) of {bucket:,.0f} elements ({size}) and the largest parameter's staging "
        f"buffer: {fmt_bytes(kept)} [DeepSpeed stage_1_and_2.py copy_grads_in_partition, cpu_offload]"
    )
    return kept


def deepspeed_bucket_elements(job: TrainingJob, prof: Framework, conv: Callable[[str], float]) -> float:
    """DeepSpeed's gradient bucket, in elements as its config counts it (reduce_bucket_size, and the
    engine's own all-reduce without ZeRO): its default 5e8, or hidden_size² where the Transformers
    integration fills an 'auto' config (frameworks.yaml zero_bucket_auto)."""
    model = job.model
    if prof.zero_bucket_auto and isinstance(model, TransformerArch):
        return float(model.hidden * model.hidden)
    return conv("deepspeed_reduce_bucket_elements")


def reduce_bucket_bytes(
    job: TrainingJob, prof: Framework, conv: Callable[[str], float], element: float, grad_element: float
) -> float:
    """The data-parallel gradient bucket in bytes: the stack's bucket_bytes (PyTorch DDP's 25 MiB), its
    bucket_elements at `grad_element`, the width its gradient buffer reduces in (Megatron's 40M: fp32
    under bf16 unless --grad-reduce-in-bf16), or, where DeepSpeed's engine reduces (the deepspeed stack,
    or a DeepSpeed ZeRO stage under the Trainer or axolotl), its bucket of elements at `element` bytes,
    the 16-bit width of its buffer (stage_1_and_2's ipg_buffer is allocated in the model dtype, and the
    reduce runs in it by default), as the ZeRO-Offload memory model counts it."""
    if not (prof.zero_offload and job.parallel.zero >= 1):
        if prof.bucket_bytes is not None:
            return prof.bucket_bytes
        if prof.bucket_elements is not None:
            return prof.bucket_elements * grad_element
    return deepspeed_bucket_elements(job, prof, conv) * element


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


def expert_shard_factor(job: TrainingJob, sp_: StageParams) -> tuple[float, float]:
    """The experts' share f of a rank's parameters and the factor r = (1 - f) + f x ep x etp / tp by
    which its ZeRO-sharded states (and their optimizer update) exceed an even 1/dp share: the experts
    shard over the expert-data-parallel group only (Megatron's expert grid). (0, 1) for a dense model
    or a method that trains adapters only."""
    model, par = job.model, job.parallel
    if job.method != "full" or not isinstance(model, TransformerArch) or not model.is_moe:
        return 0.0, 1.0
    share = sp_.layers * expert_linear_params(model) / (par.ep * par.expert_tp) / max(sp_.total, 1)
    return share, (1 - share) + share * par.ep * par.expert_tp / par.tp


def shard_job_states(
    job: TrainingJob, sp_: StageParams, states: tuple[float, float, float, float], dp: int, n: Notes
) -> tuple[tuple[float, float, float, float], float]:
    """ZeRO-sharded states, and the factor their sharded part grows by because MoE experts shard
    over the expert-data-parallel group only: Megatron's distributed optimizer shards expert
    parameters over world / (pp x ep x etp) ranks, ep x etp / tp times fewer than the dense ones
    (parallel_state's expert grid), so r = (1 - f) + f x ep x etp / tp for an expert share f."""
    zero = job.parallel.zero
    weights, grads, opt, master = shard_model_states(*states, dp, zero)
    par = job.parallel
    share, r = expert_shard_factor(job, sp_)
    if not zero or r == 1:
        return (weights, grads, opt, master), 1.0
    n.add(
        f"MoE experts ({share:.0%} of the rank's parameters) shard their states over {par.ep * par.expert_tp / par.tp:g}x fewer ranks (expert data parallelism)"
    )
    grads, weights = (grads * r if zero >= 2 else grads), (weights * r if zero >= 3 else weights)
    return (weights, grads, opt * r, master * r), r


def kbit_upcast(job: TrainingJob, n: Notes) -> bool:
    """PEFT's prepare_model_for_kbit_training casts every weight that is not 4-bit (embeddings, norms,
    LM head) to fp32, and a bitsandbytes Linear4bit returns its input's dtype: the embedding output is
    fp32, so the residual stream, each linear's output and every saved activation stay fp32 (a stack
    that casts the norms and embeddings back to 16 bits, as axolotl does for FlashAttention, runs 16-bit)."""
    if not job.kbit_fp32_upcast:
        return False
    if job.quantized_base is None:
        raise UsageError(
            "kbit_fp32_upcast describes a k-bit base prepared by PEFT: use it with --method qlora, or with "
            "--method lora --weights-dtype int8 (an LLM.int8 base)"
        )
    n.add(
        "PEFT prepare_model_for_kbit_training: embeddings, norms and LM head in fp32; bitsandbytes returns its "
        "input's dtype, so the residual stream and the saved activations are fp32"
    )
    return True


def kbit_head_copy(job: TrainingJob, n: Notes) -> float:
    """The fp32 LM head under autocast: its 16-bit weight copy is cached in the forward and saved for
    the input gradient (the head adapter's and the blocks' gradients need it)."""
    model = job.model
    if not (job.kbit_fp32_upcast and isinstance(model, TransformerArch) and model.lm_head):
        return 0.0
    n.add("autocast: a 16-bit copy of the fp32 LM head weight, saved for backward")
    return model.vocab * model.hidden / job.parallel.tp * DTYPE_BYTES["bf16"]


# what a 16-bit-kept k-bit base holds, by base (the int4 base says its own, scales and zeros)
_KBIT_BASE_NOTES = {
    "nf4": "QLoRA: block linears in NF4 with double quantization; embeddings, norms and LM head stay 16-bit",
    "int8": "LLM.int8 base (load_in_8bit): block linears in int8; embeddings, norms and LM head stay 16-bit",
}


def adapter_states(
    job: TrainingJob, sp_: StageParams, w_bytes: float, opt_bpp: float, n: Notes, detail: dict[str, float], head: bool
) -> tuple[float, float, float]:
    """LoRA/QLoRA: weights (frozen base + adapters), gradients and optimizer states of the adapters."""
    base = job.quantized_base
    if base is not None:
        kept = "fp32" if kbit_upcast(job, n) else "bf16"
        weights = quantized_linear_bytes(base, sp_.block_linear, n) + sp_.other * DTYPE_BYTES[kept]
        if base == "int4":
            n.add(
                "QLoRA-style adapters on a GPTQ/AWQ int4 base: packed 4-bit weights plus one fp16 scale and one "
                "packed 4-bit zero per group (GPTQ's act-order index, 4 B per input row, is under 0.3 % and not added)"
            )
        elif kept == "bf16":
            n.add(_KBIT_BASE_NOTES[base])
    else:
        weights = sp_.total * DTYPE_BYTES[job.weights_dtype]
    detail["frozen_base"] = weights
    adapter_b = n.conv("lora_adapter_bytes") if job.master_weights else w_bytes
    trainable = lora_params(job, sp_.layers, job.parallel.tp, head)
    adapter_w = trainable * adapter_b
    detail["lora_adapters"] = adapter_w
    frozen_grads = frozen_unit_gradients(job, sp_, head, n)
    if frozen_grads:
        detail["frozen_weight_gradients"] = frozen_grads
    n.add(
        f"LoRA rank {job.lora_rank} on {', '.join(job.lora_targets)}: only adapters have "
        + ("optimizer states" if frozen_grads else "gradients and optimizer states")
    )
    return weights + adapter_w, trainable * adapter_b + frozen_grads, trainable * opt_bpp


def fp8_params(job: TrainingJob) -> bool:
    """Full training with Transformer Engine FP8 parameters (--weights-dtype fp8, Megatron Core's
    --fp8-param-gather): the block linears' weights are stored in FP8, the rest in 16 bits."""
    return job.method == "full" and job.weights_dtype == "fp8"


def autocast_fp32_stream(job: TrainingJob, prof: Framework, zero: int | None = None) -> bool:
    """Whether a 16-bit step runs torch.autocast over fp32 parameters that no sharding layout casts
    (plain AMP: single-GPU or DDP, not FSDP's or DeepSpeed's 16-bit copies, nor a model cast to 16 bits
    whole, `--no-master-weights`), uncompiled; at ZeRO stage `zero` (None: the job's)."""
    return (
        prof.fp32_params
        and job.master_weights
        and (job.parallel.zero if zero is None else zero) == 0
        and job.method == "full"
        and job.precision in ("fp16", "bf16")
        and not job.compile
    )


def fp8_param_bytes(sp_: StageParams) -> float:
    """Bytes of a stage's weights as FP8 parameters store (and a sharded optimizer all-gathers) them: one
    byte for each block linear's weight, the embedding, norms and head in bf16."""
    return sp_.block_linear * DTYPE_BYTES["fp8"] + sp_.other * DTYPE_BYTES["bf16"]


def optimizer_on_host(job: TrainingJob) -> bool:
    """The optimizer states live, and the step runs, in CPU memory (ZeRO-Offload, or with the parameters
    under ZeRO-Infinity / FSDP cpu_offload)."""
    return "optimizer" in job.offload or "params" in job.offload


def full_states(
    job: TrainingJob, sp_: StageParams, prof: Framework, n: Notes, detail: dict[str, float]
) -> tuple[float, float, float, float]:
    """Full training: (weights, gradients, optimizer states, master weights + fp32 main gradients)."""
    sb = state_bytes(job, prof, n.conv)
    n_par = sp_.total
    if job.grad_reduce_dtype == "bf16" and prof.fp32_params:
        n.add(f"gradients reduced in bf16 (reduce_dtype bf16), kept in the fp32 parameters' dtype: {sb.gradient:g} B")
    elif job.grad_reduce_dtype == "bf16":
        n.add(f"gradients accumulated and reduced in bf16 (--grad-reduce-in-bf16): {sb.gradient:g} B per parameter")
    if fp8_params(job):
        n.add(
            "FP8 parameters (Transformer Engine, --fp8-param-gather): block linear weights stored in FP8, updated "
            "through the optimizer's fp32 main copy"
        )
    if not job.updates:
        n.add(
            f"--optimizer none: forward and backward only: {sb.weight:g} B parameters and {sb.gradient:g} B gradients "
            "(no optimizer states, master copy or update)"
        )
    elif job.precision not in ("fp32", "tf32"):
        if not job.master_weights:
            n.add("pure 16-bit training: no fp32 master copy; gradients and optimizer states in the parameter dtype")
        elif fp32_param_layout(prof, job.parallel.zero):
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
    weights = fp8_param_bytes(sp_) if fp8_params(job) else n_par * sb.weight
    return weights, n_par * sb.gradient, n_par * sb.optimizer, n_par * (sb.master + sb.main_gradient)


def fp8_weight_cache(job: TrainingJob, sp_: StageParams, prof: Framework, n: Notes) -> float:
    """Transformer Engine caches an FP8 copy of each linear weight and its transpose across micro-batches
    (Megatron Core passes is_first_microbatch); FP8 parameters are the copy, so only the transpose is
    cached, and with the cache off (disable_parameter_transpose_cache, modelled with FP8 parameters
    only) backward makes it again each time and keeps none."""
    if job.precision != "fp8" or not prof.fp8_saves_fp8_inputs or job.method != "full":
        return 0.0
    if fp8_params(job) and not job.param_transpose_cache:
        n.add("FP8 parameters without the parameter transpose cache: each backward transposes the FP8 weight again")
        return 0.0
    if fp8_params(job):
        n.add("FP8 parameters: each linear's FP8 transpose cached across micro-batches (1 B per linear weight)")
        return DTYPE_BYTES["fp8"] * sp_.block_linear
    n.add("FP8 (Transformer Engine): an FP8 weight and its transpose cached per linear (2 B per linear weight)")
    return 2 * DTYPE_BYTES["fp8"] * sp_.block_linear


def matmul_weight_params(model: TransformerArch, sp_: StageParams, tp: int) -> float:
    """The weights of a stage that torch.autocast casts to 16 bits: every block linear and, on a stage with
    layers, the LM head (embeddings are looked up, not cast)."""
    return sp_.block_linear + (model.vocab * model.hidden / tp if model.lm_head and sp_.layers else 0.0)


def autocast_casts_weights(job: TrainingJob, prof: Framework, dp: int) -> bool:
    """AMP with unsharded fp32 parameters (ZeRO 0, or FSDP's ZeRO-3 over one rank; DeepSpeed's stages run its
    16-bit parameters instead, and sharded FSDP gathers 16-bit copies): torch.autocast casts each matmul weight
    (a transformer's linears, a CNN's convolutions and GEMMs) to 16 bits on every forward (its weight cache
    lasts one autocast region)."""
    zero = job.parallel.zero
    unsharded = zero == 0 or (zero >= 3 and dp == 1)
    return (
        job.method == "full"
        and fp32_param_layout(prof, zero)
        and unsharded
        and job.precision in ("fp16", "bf16")
        and job.master_weights
    )


def autocast_weight_copies(job: TrainingJob, sp_: StageParams, prof: Framework, dp: int, n: Notes) -> float:
    """Under autocast_casts_weights, autograd saves each weight's 16-bit copy for the input gradient, so every
    block linear and the LM head have a 16-bit copy alive at the peak (sharded ZeRO-3/FSDP's gathered 16-bit
    parameters are these copies; embeddings are looked up, not cast)."""
    model = job.model
    if not isinstance(model, TransformerArch) or not autocast_casts_weights(job, prof, dp):
        return 0.0
    n.add(
        f"{prof.name} AMP: a 16-bit autocast copy of every matmul weight, saved for backward, beside the fp32 parameters"
    )
    return matmul_weight_params(model, sp_, job.parallel.tp) * DTYPE_BYTES[job.precision]


def offload(
    job: TrainingJob, states: tuple[float, float, float, float], n: Notes, detail: dict[str, float]
) -> tuple[float, float, float, float]:
    """States kept in CPU memory leave the GPU: optimizer (and master) states with ZeRO-Offload,
    also the parameter shards and gradients with ZeRO-Infinity / FSDP cpu_offload."""
    weights, grads, opt, master = states
    if optimizer_on_host(job):
        detail["offloaded_to_cpu"] = detail.get("offloaded_to_cpu", 0.0) + opt + master
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


def sparse_tables(job: TrainingJob, hw: Hardware, n: Notes) -> dict[str, float] | None:
    """The most loaded GPU's share of a recommender's embedding tables as TorchRec/FBGEMM train them:
    sharded (split by rows for the tables too large for one GPU, whole tables for the rest, as
    gpuwise.estimate.embedding_exchange lays them out and operators.table_placement holds them), updated
    by a fused sparse optimizer (row-wise Adagrad: one fp32 accumulator per row) inside the backward, so
    no table gradient is materialized and no master copy kept; ZeRO does not apply to them. `params` is
    the even share (what the dense layers' count leaves out), `weights` and `optimizer` the bytes there."""
    model = job.model
    if not isinstance(model, GenericArch) or not model.embedding_tables:
        return None
    gpus = hw.count
    params = model.embedding_params / gpus
    e = training_element_bytes(job)
    n.add(
        f"{model.name}: embedding tables ({model.embedding_params / 1e9:.2f}B parameters) sharded over {gpus} GPU(s), "
        f"trained with fused row-wise Adagrad (one fp32 state per row, no table gradients kept); "
        f"dense layers with {job.optimizer}"
    )
    from gpuwise.estimate.operators import table_placement  # recommenders only: LLMs never load it

    place = table_placement(model, gpus, hw.nodes, hw.gpu.capacity_bytes, e, n.cat)
    state = place.gpu_rows * n.conv("rowwise_adagrad_state_bytes_per_row")  # one state a row held there
    if place.host_bytes:
        n.add(
            f"{model.name}: {fmt_bytes(place.host_bytes)} of each GPU's table share kept in host memory, "
            f"{fmt_bytes(place.gpu_bytes)} of hot rows cached on the GPU (UVM caching, "
            f"{place.hit_rate:.0%} of lookups served there) [embedding_gpu_table_share, embedding_cache_hit_rate]"
        )
    return {"params": params, "weights": place.gpu_bytes, "optimizer": state}


def pipeline_fsdp_held(job: TrainingJob, prof: Framework) -> bool:
    """FSDP under pipeline stages in a stack whose schedule keeps a stage unsharded between
    micro-batches and defers its reduce-scatter to the last one (torchtitan on PyTorch's pipelining
    stage): at ZeRO-2 as at ZeRO-3 the rank holds its stage's parameters and gradients whole, its
    parameters gathered once a step and its gradients reduced once."""
    return job.parallel.zero >= 2 and job.parallel.pp > 1 and prof.pipeline_fsdp_unsharded


def grads_reduced_each_micro_batch(job: TrainingJob, prof: Framework, micro_batches: int) -> bool:
    """A rank that keeps only its shard of the gradients (ZeRO-2/3) reduce-scatters each micro-batch's
    under its backward: DeepSpeed's stage 1/2 optimizer reduces on every micro-step when it partitions
    gradients and only at the accumulation boundary otherwise (stage_1_and_2.py,
    reduce_ready_partitions_and_remove_grads), FSDP in every backward outside no_sync. Deferred
    synchronisation and a pipeline stage held unsharded reduce once, after the last micro-batch."""
    return (
        job.parallel.zero >= 2 and micro_batches > 1 and not job.defer_grad_sync and not pipeline_fsdp_held(job, prof)
    )


def zero3_unsharded(
    job: TrainingJob,
    sp_: StageParams,
    w_bytes: float,
    prof: Framework,
    dp: int,
    shard: float,
    n: Notes,
    detail: dict[str, float],
) -> tuple[float, float]:
    """What a ZeRO-2/3 (FSDP) rank holds unsharded beside its `shard` of the parameters: (parameters,
    gradients), never more parameters than sharding saved (none at ZeRO-2, which keeps them whole). With the
    parameters in CPU memory (ZeRO-Infinity, FSDP cpu_offload) the layers are gathered from the host even on
    one rank, and never more than the whole stage."""
    offloaded = job.parallel.zero >= 3 and "params" in job.offload
    if job.parallel.zero < 2 or (dp <= 1 and not offloaded) or not isinstance(job.model, TransformerArch):
        return 0.0, 0.0
    grads = 0.0
    if pipeline_fsdp_held(job, prof):
        gather, grads = _pipeline_unsharded(job, sp_, w_bytes, prof, n)
        detail["unsharded_gradients"] = grads
    elif job.parallel.zero >= 3:
        gather = _zero3_gathered(job, sp_, w_bytes, n)
    else:
        return 0.0, 0.0
    if job.parallel.zero < 3:
        return 0.0, grads
    detail["zero3_gather_buffer"] = min(gather, shard * dp if offloaded else shard * dp - shard)
    return detail["zero3_gather_buffer"], grads
