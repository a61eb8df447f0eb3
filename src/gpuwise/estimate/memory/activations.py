"""Activations saved for backward, per transformer block and per pipeline stage (Korthikanti et
al. 2022, generalized to GQA, gated FFNs, MoE, FlashAttention and dropout-free training)."""

from __future__ import annotations

import math
from typing import Any

from gpuwise.catalog import GenericArch, TransformerArch
from gpuwise.catalog.schema import Framework
from gpuwise.estimate.compute import kv_width_per_gpu
from gpuwise.estimate.memory.breakdown import Notes
from gpuwise.estimate.memory.states import fp32_param_layout, int8_lora_base, kbit_upcast, loss_kind, qlora_base
from gpuwise.workload.specs import DTYPE_BYTES, Hardware, TrainingJob, stage_layers

# BERT's masked-LM transform keeps three hidden-wide tensors a scored position for its backward: the
# dense layer's input, the activation's input and the LayerNorm's input (the decoder's input is the
# head's own, as for a decoder's LM head)
MLM_TRANSFORM_SAVED = 3
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
    n: Notes,
    saving: frozenset[str] = ALL_LINEARS,
    norm_bytes: float | None = None,
    linear_in_bytes: float | None = None,
    fused_swiglu: bool = False,
    selective_op: bool = False,
    expert_load: float = 1.0,
    softmax_bytes: float | None = None,
    norm_weight_bytes: float = 0.0,
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
    softmax in fp32; default the activation size). `norm_weight_bytes`: the normalized tensor an eager
    RMSNorm keeps for its weight's gradient (`weight * x_normed` is a separate multiply), per norm.
    """
    s, b, h = seq, batch, model.hidden
    e = act_bytes
    probs = e if softmax_bytes is None else softmax_bytes
    mask_b = n.conv("dropout_mask_bytes") if (model.dropout or model.attention_dropout) else 0.0
    mask = mask_b if model.dropout else 0.0  # the two hidden-dropout masks of a block
    kv_n = kv_width_per_gpu(model, tp)  # keys and values of the attention's heads on this GPU
    attn_in = bool(saving & {"q_proj", "k_proj", "v_proj"})
    mlp_in = bool(saving & {"gate_proj", "up_proj"})
    # Replicated across tensor-parallel ranks unless sequence parallelism splits them: norm inputs
    # (always needed by the norm's backward), block inputs of the saving linears, dropout masks.
    if norm_bytes is None:
        norm_bytes = max(e, n.conv("norm_saved_bytes"))
    lin_e = e if linear_in_bytes is None else linear_in_bytes
    norms = (norm_bytes + norm_weight_bytes) * model.norms_per_layer
    replicated = s * b * h * (norms + lin_e * (attn_in + mlp_in) + 2 * mask)
    # Split across tensor-parallel ranks by heads / FFN columns: Q, K, V and the attention output
    # (kept by the attention backward), MLP intermediates (kept by the activation's backward), and
    # the input of the down projection when its weight trains.
    q_and_out = e * s * b * (model.q_dim + model.o_dim) / tp
    if lin_e != e and "o_proj" in saving:  # the FP8 copy of the attention output, for o_proj's gradient
        q_and_out += lin_e * s * b * model.o_dim / tp
    kv = e * s * b * kv_n
    gated = (2 if fused_swiglu else 3) if model.gated_ffn else 1
    # MoE: the expert GEMMs' tokens (padded capacity), the shared expert's, dense blocks' (a mean)
    mlp = (gated * e + lin_e * ("down_proj" in saving)) * s * b * model.mlp_width(expert_load) / tp
    if attention == "eager" and recompute == "none":
        # softmax output; with attention dropout also its mask and the dropped-out probabilities
        scores = (probs + (mask_b + e if model.attention_dropout else 0)) * model.heads / tp * s * s * b
    elif attention == "flash":
        scores = 4 * s * b * model.heads / tp  # FlashAttention keeps one fp32 log-sum-exp per row
    else:
        scores = 0.0  # selective recomputation rebuilds the attention core in backward
    if model.is_moe:
        mlp += 4 * s * b * model.experts * model.moe_layers / model.layers  # fp32 router logits
    split = q_and_out + kv + mlp + scores
    full_layer = (replicated / tp if (sp and tp > 1) else replicated) + split
    rows = h / (tp if sp and tp > 1 else 1)
    if recompute == "full":
        return e * s * b * rows  # the checkpointed layer input
    if recompute == "selective" and selective_op:
        kept = 2 * rows + (model.q_dim + model.o_dim) / tp + kv_n / 2 + model.mlp_width(expert_load) / tp
        return e * s * b * kept + 4 * s * b * model.heads / tp
    return full_layer


def quantized_linear(job: TrainingJob, prof: Framework | None) -> str:
    """QLoRA's 4-bit linear layers: the job's --quantized-linear, else the stack's own."""
    return job.quantized_linear or (prof.quantized_linear if prof is not None else "bitsandbytes")


def bnb_keeps_inputs(job: TrainingJob, prof: Framework | None) -> bool:
    """Whether the 4-bit base keeps each linear's input for backward: bitsandbytes up to 0.43.1, whose
    MatMul4Bit.forward stored `ctx.tensors = (A, B)` whenever an input needed a gradient; from 0.43.2
    (2024-07) it stores `(None, B)`: grad_A needs only the weight, and the frozen weight no gradient."""
    return job.method == "qlora" and qlora_base(job) == "nf4" and quantized_linear(job, prof) == "bitsandbytes-legacy"


def saving_linears(job: TrainingJob, prof: Framework | None = None) -> frozenset[str]:
    """Linear layers whose inputs are kept for backward (see `layer_activation_bytes`): all of them
    in full training, under bitsandbytes' 4-bit layers before 0.43.2 (MatMul4Bit kept its input
    whenever the input needed a gradient) and under a GPTQ/AWQ int4 base (AutoAWQ's WQLinearMMFunction
    saves its input with save_for_backward; AutoGPTQ's triton QuantLinearFunction keeps only the
    packed weight: the larger is counted); LoRA's targets otherwise (bitsandbytes from 0.43.2 and
    torchao's LinearNF4 keep only the weight)."""
    if job.method == "full":
        return ALL_LINEARS
    if job.method == "qlora" and qlora_base(job) == "int4":
        return ALL_LINEARS
    if int8_lora_base(job) or bnb_keeps_inputs(job, prof):
        return ALL_LINEARS
    return frozenset(job.lora_targets)


def _layer_options(job: TrainingJob, prof: Framework, e: float, n: Notes) -> dict[str, Any]:
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
    norm_weight = _eager_norm_weight_bytes(job, prof, e, n)
    return {
        "softmax_bytes": _eager_softmax_bytes(job, prof, e, n),
        "norm_bytes": norm_bytes,
        "linear_in_bytes": DTYPE_BYTES["fp8"] if fp8_inputs else None,
        "fused_swiglu": fused_swiglu,
        "selective_op": prof.selective_policy == "op",
        "expert_load": job.expert_load if isinstance(job.model, TransformerArch) and job.model.is_moe else 1.0,
        "norm_weight_bytes": norm_weight,
    }


def _eager_softmax_bytes(job: TrainingJob, prof: Framework, e: float, n: Notes) -> float | None:
    """Bytes per attention score the eager attention keeps for backward (None: the activation size).
    Transformers' decoders write `softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)` (LlamaAttention
    since 2023, `eager_attention_forward` today): softmax keeps its fp32 output for its backward and the
    PV matmul the 16-bit copy, 4 + 2 B below fp32 precision, in the stacks that run Transformers' models
    (`transformers_attention`); encoders (BERT, ViT) softmax in the scores' dtype, fp32 under torch.autocast."""
    if job.attention != "eager":
        return None
    decoder = isinstance(job.model, TransformerArch) and job.model.causal
    if decoder and prof.transformers_attention and e < DTYPE_BYTES["fp32"]:
        n.add(
            "eager attention (Transformers' decoders): the softmax runs in fp32 and keeps its fp32 output, the "
            "PV matmul its 16-bit copy: 4 + 2 B per score"
        )
        return DTYPE_BYTES["fp32"] + e
    if fp32_param_layout(prof, job.parallel.zero) and job.master_weights and job.precision in ("fp16", "bf16"):
        n.add(f"{prof.name} AMP: torch.autocast runs the eager softmax in fp32; its fp32 output is kept for backward")
        return DTYPE_BYTES["fp32"]
    return None


def _eager_norm_weight_bytes(job: TrainingJob, prof: Framework, e: float, n: Notes) -> float:
    """Bytes per element an eager RMSNorm keeps for its weight's gradient. Written out in PyTorch ops
    (Transformers' LlamaRMSNorm: `self.weight * hidden_states.to(input_dtype)`; torchtune's and torchtitan's
    RMSNorm: `x_normed * self.scale`), the weight multiply is its own op, and when the weight trains autograd
    keeps its other operand, the normalized tensor in the activation dtype, beside the fp32 input the
    normalization keeps. Frozen norms (LoRA, QLoRA) keep only the weight; fused kernels (Megatron's, Transformer
    Engine's, Unsloth's, torch.compile's) derive the weight gradient from the input they keep."""
    model = job.model
    eager = prof.norm_saved_bytes > 2 and not job.compile  # the stack's norms run as separate eager ops
    if job.method != "full" or not isinstance(model, TransformerArch) or model.norm != "rmsnorm" or not eager:
        return 0.0
    n.add(
        "eager RMSNorm with a trained weight: `weight * x_normed` keeps the normalized tensor for the weight's "
        "gradient beside the fp32 input (Transformers LlamaRMSNorm, torchtune and torchtitan RMSNorm)"
    )
    return e


def _in_flight(pp: int, vpp: int, m: int, n: Notes, rank: int = 0) -> float:
    """Micro-batches of a whole stage whose activations pipeline rank `rank` holds at its peak.
    1F1B: min(pp - rank, m). Interleaved 1F1B with vpp chunks per rank (Megatron's schedule): rank r
    runs 2(pp - r - 1) + (vpp - 1)pp warm-up forward chunks before its first backward, so it holds
    that many + 1 chunks of stage_layers / vpp layers each, at most all m x vpp of them."""
    if pp <= 1:
        return 1.0
    which = "the first stage" if rank == 0 else f"pipeline rank {rank}"
    if vpp <= 1:
        n.add(f"pipeline 1F1B schedule: {which} keeps activations of min(pp - {rank}, micro-batches) micro-batches")
        return float(min(pp - rank, m))
    chunks = min(2 * (pp - rank - 1) + (vpp - 1) * pp + 1, m * vpp)
    n.add(
        f"interleaved 1F1B ({vpp} virtual stages): {which} keeps {chunks} chunks of 1/{vpp} of its "
        f"layers, {chunks / vpp:g} micro-batches' worth [Megatron-LM schedules.py warm-up count]"
    )
    return chunks / vpp


def _note_kept_inputs(job: TrainingJob, prof: Framework, n: Notes) -> None:
    """Say which linear layers keep their inputs for backward under an adapter method (see saving_linears)."""
    if int8_lora_base(job):
        n.add(
            "LoRA on an LLM.int8 base: each int8 linear keeps its input for backward (bitsandbytes' MatMul8bitLt "
            "saves ctx.tensors = (CAt, subA, A) whenever an input needs a gradient; CAt, the input's int8 copy kept "
            "before bitsandbytes 0.45, is not counted)"
        )
    elif job.method == "lora":
        n.add("LoRA: frozen linear layers keep no input for backward; targeted ones keep it for their adapter")
    elif job.method == "qlora" and qlora_base(job) == "int4":
        n.add(
            "GPTQ/AWQ int4 base: each 4-bit linear keeps its input for backward (AutoAWQ's autograd function "
            "saves it; AutoGPTQ's triton kernel would not: the larger is counted)"
        )
    elif bnb_keeps_inputs(job, prof):
        n.add(
            "QLoRA (bitsandbytes before 0.43.2, --quantized-linear bitsandbytes-legacy): each 4-bit linear layer "
            "keeps its input for backward (MatMul4Bit's ctx.tensors = (A, B))"
        )
    elif job.method == "qlora" and quantized_linear(job, prof) == "bitsandbytes":
        n.add(
            "QLoRA (bitsandbytes 0.43.2 on): the 4-bit base keeps no input (MatMul4Bit's ctx.tensors = (None, B), "
            "bitsandbytes commit 9e75374); LoRA-targeted linears keep theirs (--quantized-linear bitsandbytes-legacy: "
            "before)"
        )
    elif job.method == "qlora":
        n.add("QLoRA (torchao NF4): the 4-bit base keeps no input; LoRA-targeted linears keep theirs")


def training_activations(
    job: TrainingJob, hw: Hardware, stage: str, prof: Framework, n: Notes
) -> tuple[float, dict[str, float]]:
    model = job.model
    e = 4 if job.precision in ("fp32", "tf32") or kbit_upcast(job, n) else 2
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
    _note_kept_inputs(job, prof, n)
    opts = _layer_options(job, prof, e, n)
    per_layer = layer_activation_bytes(*args, job.recompute, n, saving, **opts)
    held = stage_layers(model.layers, pp, stage)
    if held < stage_layers(model.layers, pp, "middle") and stage == "first":
        n.add(
            f"{model.layers} layers on {pp} pipeline stages: the first holds {held} beside the embedding, the last "
            f"{stage_layers(model.layers, pp, 'last')} beside the output layer (the embedding and the loss take a "
            "layer's place: Megatron Core --account-for-embedding/loss-in-pipeline-split; Llama 3 section 3.3.2)"
        )
    m = job.grad_accumulation(hw.count)
    rank = {"first": 0, "second": 1}.get(stage)
    kept = held * _in_flight(pp, par.vpp, m, n, rank) if rank is not None else held
    if "activations" in job.offload:
        kept = min(kept, 2)
        n.add("activation offloading: saved activations go to CPU memory; two layers' worth (current + prefetch) stay")
    detail: dict[str, float] = {"layer_activations": per_layer * kept}
    if job.recompute == "full":
        # backward recomputes one layer at a time: its full activations exist transiently
        detail["recompute_working_set"] = layer_activation_bytes(*args, "none", n, saving, **opts)
        impl = checkpoint_impl(job, prof)
        cite = n.cat.sources[prof.source_of("checkpoint_impl")].title.split(",")[0]
        whose = "as given" if job.checkpoint_impl else f"{prof.name}'s default [{cite}]"
        n.add(
            "full recomputation: checkpoints keep each layer's input; one layer's activations are rebuilt at a "
            f"time; checkpointing {impl} ({whose}; --checkpoint-impl reentrant|non-reentrant)"
        )
    elif job.recompute == "selective":
        n.add("selective recomputation: attention scores recomputed (Korthikanti et al.)")
    if job.attention == "flash" and job.recompute == "none":
        n.add("FlashAttention: no s x s attention matrix is stored")
    bnb_held = _bnb_inputs_held(job, prof, seq, e, held, n)
    if bnb_held:
        detail["bnb_inputs_held"] = bnb_held
    if model.lm_head and stage in ("last", "only"):
        detail.update(_logits_and_loss(job, prof, seq, e, n))
    if not (model.dropout or model.attention_dropout):
        n.add(f"{model.name}: no dropout in training (config), so no dropout masks")
    return sum(detail.values()), detail


def _logits_and_loss(job: TrainingJob, prof: Framework, seq: int, e: float, n: Notes) -> dict[str, float]:
    """The logits and the loss's tensors at its peak on the last stage: vocabulary-sharded under tensor
    parallelism unless the LM head's output is gathered (--no-loss-parallel)."""
    model, tp = job.model, job.parallel.tp
    assert isinstance(model, TransformerArch)
    kind = loss_kind(job, prof)
    per_logit = n.conv(f"logits_bytes_{kind}")
    if kind == "compiled":  # the logits and their gradient in the logits' own width: 2 + 2 at 16 bits, 4 + 4 at 32
        per_logit *= e / 2
    vocab = model.vocab / tp if job.loss_parallel else model.vocab
    # a masked-LM head may score only the masked positions; a context-parallel rank its share of them
    positions = math.ceil(job.head_positions / job.parallel.cp)
    out = {"logits_and_loss": positions * job.micro_batch * vocab * per_logit}
    if model.mlm_transform:
        out["mlm_transform"] = positions * job.micro_batch * model.hidden * MLM_TRANSFORM_SAVED * e
        n.add(_mlm_note(job))
    if tp > 1 and not job.loss_parallel:
        n.add("--no-loss-parallel: the LM head's output is all-gathered, every rank takes the loss on full logits")
    if job.method != "full" and "lm_head" in job.lora_targets:
        # the adapter's B @ (A @ x) is a second vocab-wide 16-bit tensor beside the base logits until
        # the two are summed; its input keeps for the adapter's gradient (h per token)
        out["lm_head_adapter"] = positions * job.micro_batch * (model.vocab / tp + model.hidden) * e
        n.add("LoRA on the LM head: a second vocab-wide logits tensor (the adapter's output) before the sum")
    if kind == prof.loss_kind:
        which = f"{prof.loss} [{prof.name}]"
    elif job.loss is None:  # the stack's eager loss inside its compiled region
        which = f"{kind}: {prof.name}'s {prof.loss} under torch.compile (--loss eager: not compiled)"
    else:
        which = f"{kind} (--loss)" + (
            " without --compile: taken as given" if kind == "compiled" and not job.compile else ""
        )
    n.add(f"loss: {which}, {per_logit:g} B per logit at its peak")
    return out


def _mlm_note(job: TrainingJob) -> str:
    """What the masked-LM head scores, and how to say the other convention."""
    seq = job.seq
    if job.mlm_positions is None or job.mlm_positions >= seq:
        return (
            f"masked-LM head over every one of the {seq} positions (transformers' BertForMaskedLM); NVIDIA's and "
            "Google's BERT score only the masked ones: --mlm-positions N (max_predictions_per_seq)"
        )
    return f"masked-LM head over {job.mlm_positions} of {seq} positions (the masked ones, --mlm-positions)"


def checkpoint_impl(job: TrainingJob, prof: Framework) -> str:
    """How --recompute full runs: the job's --checkpoint-impl, else the stack's own."""
    return job.checkpoint_impl or prof.checkpoint_impl


def _bnb_micro_batches_held(job: TrainingJob, prof: Framework, n: Notes) -> int:
    """Micro-batches whose 4-bit linear inputs stay allocated at the peak beyond what the layer
    activations count, derived from what each autograd path keeps alive.

    bitsandbytes' MatMul4Bit.forward up to 0.43.1 stored its input as `ctx.tensors = (A, B)` whenever
    an input needed a gradient: a plain attribute of the autograd node, not `ctx.save_for_backward`.
    Such an attribute lives as long as the node lives, and the backward does not free it (only saved
    tensors are released after use). From 0.43.2 it stores `(None, B)`: nothing is held.

    - No recomputation: the layer activations already count the current micro-batch's inputs (the
      linears keep them); a loop that keeps `loss` bound until the next forward's loss exists keeps
      the previous micro-batch's graph, with its nodes and their ctx inputs: one more micro-batch.
    - Full recomputation, non-reentrant (torch.utils.checkpoint use_reentrant=False, checkpoint_wrapper):
      the checkpointed forward runs with grad enabled under saved-tensor hooks that drop what
      `save_for_backward` keeps (and rebuild it in backward), but the graph and its nodes are built, so
      every 4-bit linear's ctx input of every layer stays until that layer's backward: one micro-batch,
      plus the previous one where the loop keeps `loss` bound (its nodes outlive their backward).
    - Full recomputation, reentrant (use_reentrant=True, Megatron's and DeepSpeed's CheckpointFunction,
      Unsloth's offloaded checkpointer): the checkpointed forward runs under torch.no_grad(), so
      `ctx.needs_input_grad` is all False, MatMul4Bit keeps `(None, None)` and no node outlives the
      call; the outer graph holds one checkpoint node per layer, whose layer input is a saved tensor
      (freed by its backward). The backward recomputes one layer with grad enabled and frees that local
      graph on return. No micro-batch of 4-bit inputs is held: only the layer inputs (counted already).
    """
    if not bnb_keeps_inputs(job, prof):
        return 0
    held = 1 if prof.loss_held_between_steps else 0
    if job.recompute != "full":
        return held
    if checkpoint_impl(job, prof) == "reentrant":
        n.add(
            "reentrant checkpointing: the checkpointed forward runs without a graph, so bitsandbytes' 4-bit "
            "linears keep no input (their ctx holds (None, None)); only each layer's input is kept"
        )
        return 0
    n.add(
        "non-reentrant checkpointing: the checkpointed forward builds the graph, and bitsandbytes' MatMul4Bit "
        "keeps its input on ctx (not save_for_backward, which the checkpoint drops): every 4-bit linear's input "
        "stays until its layer's backward"
    )
    return 1 + held


def _bnb_inputs_held(job: TrainingJob, prof: Framework, seq: int, e: float, layers: int, n: Notes) -> float:
    """4-bit linear inputs held on autograd ctx beyond the layer activations (see
    `_bnb_micro_batches_held` for which micro-batches): per layer the block input of q/k/v and of
    gate/up (each one tensor shared by its linears), the input of o_proj and of down_proj."""
    model = job.model
    micro_batches = _bnb_micro_batches_held(job, prof, n)
    if not micro_batches:
        return 0.0
    assert isinstance(model, TransformerArch)
    tp = job.parallel.tp
    per_token = 2 * model.hidden + model.q_dim / tp + model.ffn / tp * model.experts_per_token
    if prof.loss_held_between_steps:
        n.add(
            f"{prof.name}: the previous micro-batch's `loss` is still bound during the next forward, and "
            "bitsandbytes' MatMul4Bit keeps its inputs on ctx (not save_for_backward): one micro-batch of "
            "4-bit linear inputs per layer stays allocated at the peak"
        )
    return micro_batches * layers * seq * job.micro_batch * e * per_token
