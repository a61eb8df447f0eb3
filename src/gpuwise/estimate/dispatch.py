"""The host's side of an eager PyTorch training step: every kernel is launched from Python, one after
another, so a step is never shorter than its launches (the GPU waits for the host).

A large model's kernels are long and the host runs ahead of the GPU; a small model's are shorter than
their dispatch, and the step becomes a count of kernels times the host's cost per kernel. The count
follows the block's code: a launch per GEMM, per norm, per elementwise op and per attention kernel, as
the stack runs them (unfused eager ops count each of their kernels, fused ones one), and the backward
launches one kernel per forward kernel and two per trainable GEMM (the data and weight gradients), the
rule the per-operator model (estimate/operators.py) times CNN training by. Not counted: autocast's
weight casts under AMP over fp32 parameters (one per GEMM, forward and backward, where the layout keeps
fp32 parameters unsharded) and its casts of each LayerNorm's fp32 output (whose bytes the step's elementwise
traffic does count: autocast_layernorm_bytes), a MoE router's bookkeeping, the optimizer's few multi-tensor launches. It
follows Llama-style code (q, k, v and gate, up as separate GEMMs): Megatron's fused linear_qkv and fc1
launch a few fewer. torch.compile fuses and launches from generated code; it is not timed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog import Catalog, TransformerArch
from gpuwise.estimate.memory.states import framework_of, lora_target_linears, qlora_base
from gpuwise.estimate.rates import Rates, host_launch, launch_hint
from gpuwise.workload import TrainingJob

# Kernels a fused op launches (one read, one write); rotary: one per tensor, Q and K
_FUSED = {"norm": 1, "rotary": 2, "gated_act": 1}
_SDPA_KERNELS = 1  # FlashAttention / SDPA forward: one kernel (its backward one more, by the rule)
_LAYOUT_COPIES = 1  # the attention output's transpose back to tokens x hidden, made contiguous for o_proj
_RESIDUAL_ADDS = 2
_HIDDEN_DROPOUTS = 2  # after the attention and after the MLP
_TP_COLLECTIVES = 2  # Megatron-style tensor parallelism: one all-reduce (or gather, scatter) per sublayer
_LOSS_KERNELS = 3  # logits upcast to fp32, log-softmax, NLL (torch.nn.functional.cross_entropy; logits_bytes_eager)
# per adapted matrix, PEFT's LoRA Linear.forward (source peft-lora-layer): lora_A and lora_B GEMMs, the scaling,
# the add to the frozen output; backward the adapters' data and weight gradients (2 + 2) and the scaling's
_LORA_FORWARD = 4
_LORA_BACKWARD = 5


@dataclass(frozen=True, slots=True)
class Launches:
    """Kernels one micro-batch launches on one GPU's stage: its forward, backward and recomputation."""

    forward: float
    backward: float
    recompute: float

    @property
    def total(self) -> float:
        return self.forward + self.backward + self.recompute


def _eager_counts(job: TrainingJob, catalog: Catalog) -> dict[str, float]:
    """Kernels of each elementwise op of a block as the stack runs it: unfused eager ops (frameworks.yaml
    `eager_ops`, off under torch.compile) count their kernels (conventions eager_*_kernels; a stack running
    Transformers' decoder code, its own count: eager_*_kernels_transformers), fused ones one."""
    prof = framework_of(job, catalog)
    eager = set(prof.eager_ops) if not job.compile else set()
    suffix = "_transformers" if prof.transformers_attention else ""
    return {op: catalog.convention(f"eager_{op}_kernels{suffix}") if op in eager else n for op, n in _FUSED.items()}


def _transformers_code(job: TrainingJob, catalog: Catalog) -> bool:
    """Whether the block is Transformers' decoder code run eagerly (the stack's own, not fused or compiled)."""
    prof = framework_of(job, catalog)
    return prof.transformers_attention and bool(prof.eager_ops) and not job.compile


def _quantized_launches(job: TrainingJob, catalog: Catalog) -> float:
    """Extra launches of one call of a frozen bitsandbytes NF4 linear (QLoRA: the absmax and the weight
    dequantized before the 16-bit GEMM, forward and again for the input gradient); 0 otherwise."""
    if job.method != "qlora" or qlora_base(job) != "nf4":
        return 0.0
    return catalog.convention("bnb_4bit_dequant_extra_launches_qlora")


def _block(job: TrainingJob, catalog: Catalog, counts: dict[str, float]) -> tuple[float, float, float]:
    """(forward, backward, attention forward) kernels of one block, the mean over the stack's kinds, its
    elementwise ops counted as `counts` (_eager_counts) says."""
    model = job.model
    assert isinstance(model, TransformerArch)
    trainable = job.method == "full"
    dequant = _quantized_launches(job, catalog)
    fwd = bwd = 0.0
    for n, dense in model.block_kinds():
        share = n / model.layers
        for lin in model.linears(dense):  # a MoE block's experts as one grouped GEMM (Megatron Core, torchtitan)
            fwd += share * (1 + dequant)
            bwd += share * ((2 if trainable else 1) + (lin.bias and trainable) + dequant)
    norm = counts["norm"] if model.norm == "rmsnorm" else 1  # torch's layer_norm is one kernel
    attention = catalog.convention("eager_attention_kernels") if job.attention == "eager" else _SDPA_KERNELS
    attention += bool(model.attention_dropout) and job.attention == "eager"
    if _transformers_code(job, catalog) and model.kv_heads < model.heads:
        attention += catalog.engine("transformers").eager_gqa_copies_per_layer  # repeat_kv before attention
    elementwise = (model.norms_per_layer + 2 * model.qk_norm) * norm + _LAYOUT_COPIES + _RESIDUAL_ADDS
    elementwise += 0 if model.learned_positions else counts["rotary"]
    elementwise += counts["gated_act"] if model.gated_ffn else 1
    elementwise += _HIDDEN_DROPOUTS if model.dropout else 0
    if job.parallel.tp > 1:
        elementwise += _TP_COLLECTIVES  # forward, as many backward
    adapters = 0.0
    if not trainable and framework_of(job, catalog).peft_lora:  # one launch set per adapted matrix, as its GEMM
        adapters = sum(share for share, _ in lora_target_linears(job))
    fwd += attention + elementwise + _LORA_FORWARD * adapters
    bwd += attention + elementwise + _LORA_BACKWARD * adapters
    return fwd, bwd, attention


def _head(job: TrainingJob, catalog: Catalog, counts: dict[str, float]) -> tuple[float, float]:
    """(forward, backward) kernels outside the blocks: embeddings, final norm, LM head and loss, and the rotary
    tables Transformers' code computes once a forward."""
    model = job.model
    assert isinstance(model, TransformerArch)
    norm = counts["norm"] if model.norm == "rmsnorm" else 1
    embeddings = 1 + bool(model.learned_positions) + bool(model.type_vocab)
    gemm = 1.0 if model.lm_head else 0.0
    fwd = float(2 * embeddings - 1)  # each lookup, and the adds of the position and type embeddings
    fwd += norm * (model.final_norm + model.embedding_norm) + bool(model.dropout) + gemm * (1 + _LOSS_KERNELS)
    bwd = fwd + (gemm if job.method == "full" else 0.0)  # a trainable head's weight gradient
    if _transformers_code(job, catalog) and not model.learned_positions:  # cos/sin once a forward, no gradient
        fwd += catalog.convention("eager_rotary_tables_kernels_transformers")
    return fwd, bwd


def training_launches(job: TrainingJob, layers: int, catalog: Catalog) -> Launches:
    """Kernels one micro-batch launches on a stage of `layers` blocks (the head counted whole)."""
    counts = _eager_counts(job, catalog)
    block_f, block_b, attention = _block(job, catalog, counts)
    head_f, head_b = _head(job, catalog, counts)
    redo = block_f if job.recompute == "full" else (attention if job.recompute == "selective" else 0.0)
    return Launches(layers * block_f + head_f, layers * block_b + head_b, layers * redo)


def host_wait(
    job: TrainingJob,
    layers: int,
    micro_batches: int,
    gpu_seconds: float,
    rates: Rates,
    catalog: Catalog,
    notes: list[str],
) -> float:
    """Seconds a step's GPU waits for the host beyond `gpu_seconds` of its own work: the micro-batches'
    launches at the host's time per kernel (where the GPU model's hosts were measured, `rates.launch`:
    forward and recomputed kernels at a training forward's figure, backward ones at the autograd engine's;
    else `decode_host_seconds_eager`, a kernel issued from Python), less the GPU's time; 0 under
    torch.compile or when the GPU is the slower. The host runs ahead while long kernels run (CUDA queues
    the launches), so only the step's totals are compared."""
    if job.compile or not isinstance(job.model, TransformerArch) or not framework_of(job, catalog).python_launches:
        return 0.0
    launches = training_launches(job, layers, catalog)
    (forward, basis), (backward, _) = host_launch(rates, catalog, "forward"), host_launch(rates, catalog, "backward")
    kernels = launches.total * micro_batches
    # the backward's difference added to every kernel at the forward's figure: with one figure for both
    # (the default) exactly kernels x figure
    host = kernels * forward + launches.backward * micro_batches * (backward - forward)
    wait = max(0.0, host - gpu_seconds)
    if wait > 0:
        each = (
            f"{forward * 1e6:.0f} us each"
            if forward == backward
            else (f"{forward * 1e6:.1f} us a forward kernel and {backward * 1e6:.1f} us a backward one")
        )
        notes.append(
            f"eager PyTorch: {kernels:,.0f} kernels per step launched from the host at {each} "
            f"({host * 1e3:.3g} ms) against {gpu_seconds * 1e3:.3g} ms of GPU work: the GPU waits "
            f"{wait * 1e3:.3g} ms a step{launch_hint(basis)} [{basis}; eager_*_kernels]"
        )
    return wait
