"""FLOPs and bytes of every operation of a transformer block, timed each on its own roofline.

A step is the sum of named terms (GEMMs, attention, memory-bound elementwise work, the LM head and
loss), so small or thin matrices after tensor parallelism, small batches and bandwidth-bound
decode fall out of the same model as large compute-bound training: efficiency is not one global
constant but what each operation's shape allows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from gpuwise.catalog import GenericArch, TransformerArch
from gpuwise.workload.specs import DTYPE_BYTES

# Quantized checkpoints keep the LM head 16-bit: vLLM's ParallelLMHead takes a quantization method only
# where the checkpoint says its head was quantized (GPTQ's lm_head flag), llm-compressor's FP8 and
# TensorRT Model Optimizer's configs exclude lm_head, and transformers' bitsandbytes loading skips the
# output embedding (get_keys_to_not_convert). Its weights stream at 16 bits (or wider, unquantized).
HEAD_MIN_WEIGHT_BYTES = DTYPE_BYTES["bf16"]


@dataclass(frozen=True, slots=True)
class Op:
    name: str
    flops: float
    bytes: float
    kind: str  # matmul | attention | memory


@dataclass(frozen=True, slots=True)
class Shape:
    """One forward pass on one GPU: `tokens` new tokens in `seqs` sequences, attending to `context`
    keys each (average over the new tokens, causal masking included)."""

    tokens: int
    seqs: int
    context: float
    act_bytes: float = 2  # activation element size
    weight_bytes: float = 2  # stored weight element size (inference: the serving dtype)
    kv_bytes: float = 2
    kv_cached: bool = False  # K/V come from a cache (decode) rather than from this pass
    # bytes per element (16-bit activations, forward) of elementwise ops run as unfused eager
    # kernels: "norm", "rotary", "gated_act"; absent ops are fused (read and write once). Also
    # "residual" (an add on plain AMP's fp32 stream) and "layout_copy" (eager code's copy of the heads'
    # output, per element of o_proj's input; absent: none)
    eager_bytes: tuple[tuple[str, float], ...] = ()
    # eager attention (no FlashAttention): (forward bytes per score element, extra with attention
    # dropout) of the softmax passes over the materialized s x s scores; None: fused attention
    scores: tuple[float, float] | None = None


def kv_heads_per_gpu(model: TransformerArch, tp: int) -> int:
    """KV heads split over tensor-parallel ranks; replicated (one per rank) when tp > kv_heads."""
    return math.ceil(model.kv_heads / tp) if tp <= model.kv_heads else 1


def kv_width_per_gpu(model: TransformerArch, tp: int) -> float:
    """Key plus value elements per token per layer on one GPU as attention reads them: whole
    key/value heads (replicated when tp > kv_heads); MLA's per-head keys and values, split by heads."""
    if model.mla:
        return (model.k_dim + model.v_dim) / tp
    return 2 * kv_heads_per_gpu(model, tp) * model.head_dim


def kv_cache_width_per_gpu(model: TransformerArch, tp: int) -> float:
    """KV-cache elements per token per layer on one GPU: MLA's latent and rotary key are one
    vector all heads share, so every tensor-parallel rank holds it whole (as vLLM's MLA backends do)."""
    return float(model.kv_cache_width) if model.mla else kv_width_per_gpu(model, tp)


def block_linear_params(model: TransformerArch) -> float:
    """Weights of the linear layers of one transformer block (all of them, before tensor
    parallelism), the mean over the stack's blocks (MoE and dense ones)."""
    total = sum(n * sum(lin.count * lin.d_in * lin.d_out for lin in model.linears(d)) for n, d in model.block_kinds())
    return total / model.layers


def replicated_linear_params(model: TransformerArch) -> float:
    """The weights every tensor-parallel rank holds whole: MLA's down projections to its latents."""
    return sum(lin.params for lin in model.attention_linears() if lin.name in REPLICATED_PROJECTIONS)


def expert_linear_params(model: TransformerArch) -> float:
    """The routed experts' share of `block_linear_params` (the linears a block holds more than one of)."""
    per_moe = sum(lin.count * lin.d_in * lin.d_out for lin in model.linears() if lin.count > 1)
    return per_moe * model.moe_layers / model.layers


def gemm(name: str, m: float, k: float, n: float, s: Shape, copies: float = 1) -> Op:
    """y[m,n] = x[m,k] @ w[k,n]: 2mkn FLOPs; reads x and w once, writes y."""
    flops = 2 * m * k * n * copies
    moved = s.act_bytes * (m * k + m * n) * copies + s.weight_bytes * k * n * copies
    return Op(name, flops, moved, "matmul")


def layer_ops(
    model: TransformerArch, s: Shape, tp: int, sp: bool, ep: int = 1, etp: int | None = None, load: float = 1.0
) -> list[Op]:
    """Forward operations of one block on one GPU; with expert parallelism (`ep`) the GPU runs its
    1/ep of the experts on the tokens routed to them from the ep ranks (as many as it sends). Each
    expert's matrices are split over `etp` ranks (None: tp), which gather the tokens of their
    group: etp/tp of the replica's routed tokens, ffn/etp wide, the same FLOPs per GPU at any etp.
    `load`: tokens per expert over an even share (a padded capacity factor; 1: dropless)."""
    m, h, e = s.tokens, model.hidden, s.act_bytes
    q_n, kv_n = model.q_dim / tp, kv_width_per_gpu(model, tp) / 2
    ops = _projection_ops(model, s, tp)
    ops += _mlp_ops(model, s, tp, ep, etp, load)
    ops += _attention_ops(model, s, q_n, kv_n)
    # memory-bound elementwise work per token: norms (read+write), two residual adds (2 reads,
    # 1 write; on plain AMP's fp32 stream more), rotary on Q and K, the MLP activation (gated: read
    # 2f, write f) once per routed expert, dropout, the attention output's layout copy where eager
    # model code makes one; MoE also copies each token to its k experts and back (permute, unpermute:
    # a read and a write of h each way per routed copy)
    rows = h / tp if (sp and tp > 1) else h
    k = model.experts_per_token * load * model.moe_layers / model.layers if model.is_moe else 0.0
    eager = dict(s.eager_bytes)  # in 16-bit bytes; elem counts element passes of `e` bytes
    norm = eager.get("norm", 4) / 2
    rotary = eager["rotary"] / 2 if "rotary" in eager and not model.learned_positions else 2
    residual = eager.get("residual", 6) / 2
    act = eager["gated_act"] / 2 if "gated_act" in eager and model.gated_ffn else (3 if model.gated_ffn else 2)
    elem = model.norms_per_layer * norm * rows + 2 * residual * rows + rotary * (q_n + kv_n)
    elem += act * model.mlp_width(load) / tp + eager.get("layout_copy", 0) / 2 * model.o_dim / tp
    elem += 2 * 2 * h * k
    if model.dropout:
        elem += 2 * 2 * rows
    ops.append(Op("elementwise", 0.0, e * m * elem, "memory"))
    return ops


# the routed experts' GEMMs: under attention data parallelism they run on the tokens every rank sends
EXPERT_OPS = ("experts_up", "experts_down")

# MLA's down projections (to the query and KV latents) are replicated on every tensor-parallel rank;
# the up projections split by heads, o_proj by its input (Megatron, vLLM).
REPLICATED_PROJECTIONS = ("q_a_proj", "kv_a_proj_with_mqa")


def _projection_ops(model: TransformerArch, s: Shape, tp: int) -> list[Op]:
    """The attention's projection GEMMs on one GPU: one fused q/k/v GEMM and the output projection;
    MLA's latent down and up projections each its own GEMM."""
    m, h = s.tokens, model.hidden
    if not model.mla:
        kv_n = kv_width_per_gpu(model, tp)
        return [gemm("qkv", m, h, model.q_dim / tp + kv_n, s), gemm("attn_out", m, model.o_dim / tp, h, s)]
    ops = []
    for lin in model.attention_linears():
        share = 1 if lin.name in REPLICATED_PROJECTIONS else tp
        d_in, d_out = (lin.d_in / tp, lin.d_out) if lin.name == "o_proj" else (lin.d_in, lin.d_out / share)
        ops.append(gemm("attn_out" if lin.name == "o_proj" else lin.name, m, d_in, d_out, s))
    return ops


def _scaled(ops: list[Op], share: float) -> list[Op]:
    """Ops of one kind of block, weighted by its share of the stack's blocks."""
    return [Op(o.name, o.flops * share, o.bytes * share, o.kind) for o in ops] if share != 1 else ops


def _mlp_ops(model: TransformerArch, s: Shape, tp: int, ep: int, etp: int | None, load: float) -> list[Op]:
    """The MLP GEMMs of a block on one GPU, the mean over the stack: a MoE block's routed experts
    (with expert parallelism `ep`, each expert split over `etp` ranks), shared expert and router; a
    dense block's MLP."""
    m, h = s.tokens, model.hidden
    up = 2 if model.gated_ffn else 1

    def dense(width: int, name: str = "mlp") -> list[Op]:
        f = width / tp
        return [gemm(f"{name}_up", m, h, up * f, s), gemm(f"{name}_down", m, f, h, s)]

    if not model.is_moe:
        return dense(model.ffn)
    etp_ = tp if etp is None else etp
    routed = m * model.experts_per_token * load * etp_ / tp  # token-expert pairs on this GPU
    active = min(model.experts / ep, routed)  # experts that receive tokens read their weights
    per, f_e = routed / active, model.ffn / etp_
    moe = [
        gemm(EXPERT_OPS[0], per, h, up * f_e, s, active),
        gemm(EXPERT_OPS[1], per, f_e, h, s, active),
        gemm("router", m, h, model.experts, s),
    ]
    if model.shared_ffn:
        moe += dense(model.shared_ffn, "shared_mlp")
    share = model.moe_layers / model.layers
    return _scaled(moe, share) + (_scaled(dense(model.dense_ffn), 1 - share) if share < 1 else [])


def _attention_ops(model: TransformerArch, s: Shape, q_n: float, kv_n: float) -> list[Op]:
    """Fused attention: QK^T and PV over `context` keys per new token in one kernel. Eager
    attention (Megatron before FlashAttention) runs them as two batched GEMMs over every key of
    the sequence, masked ones included, with the scores written, softmaxed (and dropped out) and
    read back in between."""
    m, e = s.tokens, s.act_bytes
    if s.scores is None or s.kv_cached:
        tp = model.q_dim / q_n
        if model.mla and s.kv_cached:
            # absorbed MLA (decode): every head scores against the latent and rotary key
            # (kv_lora_rank + qk_rope) and sums the latent (kv_lora_rank): one cached vector per key
            heads = model.heads / tp
            att_flops = 2 * m * s.context * heads * (2 * model.kv_lora_rank + model.qk_rope_head_dim)
            kv_read = s.seqs * s.context * model.kv_cache_width * s.kv_bytes
            return [Op("attention", att_flops, e * 2 * m * q_n + kv_read, "attention")]
        o_n = model.o_dim / tp  # scores over the query width, values over the output width
        att_flops = 2 * m * s.context * (q_n + o_n)
        kv_read = s.seqs * s.context * 2 * kv_n * s.kv_bytes if s.kv_cached else 2 * m * kv_n * e
        return [Op("attention", att_flops, e * (m * q_n + m * o_n) + kv_read, "attention")]
    keys = m / s.seqs  # the whole sequence, causal mask applied after the GEMM
    heads = q_n / model.head_dim
    per_score = s.scores[0] + (s.scores[1] if model.attention_dropout else 0.0)
    return [
        Op("attention_gemms", 4 * m * keys * q_n, e * 2 * m * (q_n + kv_n), "attention_gemm"),
        Op("attention_scores", 0.0, per_score * m * keys * heads, "memory"),
    ]


def head_ops(
    model: TransformerArch, s: Shape, tp: int, logits_tokens: int, loss_bytes: float | None = None
) -> list[Op]:
    """Embedding lookup, final norm, LM head GEMM on `logits_tokens` positions, and in training the loss,
    moving `loss_bytes` a logit in its forward (None: no loss, as in serving)."""
    h, e = model.hidden, s.act_bytes
    ops = [Op("embedding", 0.0, e * s.tokens * h, "memory")]
    if model.lm_head and logits_tokens:
        head = replace(s, weight_bytes=max(s.weight_bytes, HEAD_MIN_WEIGHT_BYTES))  # never quantized
        if model.mlm_transform:  # BERT's dense layer before the projection, replicated over tp like the pooler
            ops.append(gemm("mlm_transform", logits_tokens, h, h, head))
        ops.append(gemm("lm_head", logits_tokens, h, model.vocab / tp, head))
        if loss_bytes is not None:
            ops.append(Op("loss", 0.0, loss_bytes * logits_tokens * model.vocab / tp, "memory"))
    return ops


def mean_context(model: TransformerArch, tokens: int, doc_tokens: int | None = None) -> float:
    """Keys each new token attends to on average in training over `tokens`: (t+1)/2 under a causal
    mask, at most the window on sliding-window layers (averaged over the layers). Packed from
    documents of `doc_tokens` with attention kept inside each, a query sees its own document only."""
    return _per_token(tokens, doc_tokens, lambda n: _keys_per_query(model, n))


def counted_context(tokens: int, doc_tokens: int | None = None) -> float:
    """The keys per query the MFU convention counts (Narayanan et al., PaLM): every key of the query's
    attention span, the causal half included: the whole sequence, or under packing with attention kept
    inside each document the whole document."""
    return _per_token(tokens, doc_tokens, float)


def _per_token(tokens: int, doc_tokens: int | None, keys: Callable[[int], float]) -> float:
    """The mean over a sequence's tokens of `keys(span)`, each token's attention span its document's
    length: tokens // doc_tokens whole documents and the remainder as one more (one document when
    unpacked, or when a document is as long as the sequence)."""
    if doc_tokens is None or doc_tokens >= tokens:
        return keys(tokens)
    whole, rest = divmod(tokens, doc_tokens)
    return (whole * doc_tokens * keys(doc_tokens) + (rest * keys(rest) if rest else 0.0)) / tokens


def _keys_per_query(model: TransformerArch, tokens: int) -> float:
    """Mean keys a query attends to within one attention span of `tokens`."""
    if not model.causal:
        return float(tokens)
    full = (tokens + 1) / 2
    w = model.sliding_window
    if not w or w >= tokens:
        return full
    windowed = (w * (w + 1) / 2 + (tokens - w) * w) / tokens
    share = min(model.sliding_window_layers, model.layers) / model.layers
    return share * windowed + (1 - share) * full


def forward_flops(
    model: TransformerArch | GenericArch, tokens: int, context: float, head_tokens: float | None = None
) -> float:
    """Model FLOPs of one forward pass (no recomputation): 2 per active parameter per token plus
    attention (2 * context * (q_dim + o_dim) per token per layer: scores and the weighted values;
    4 * context * q_dim for standard heads), excluding the embedding lookup. The output head multiplies
    on `head_tokens` of them (default all: a masked-LM head may score only the masked positions)."""
    if isinstance(model, GenericArch):
        return (model.flops_per_sample or 0.0) * tokens
    h = model.hidden
    head = (model.vocab * h if model.lm_head else 0) + (h * h if model.mlm_transform else 0)
    in_params = head - (model.vocab * h if model.lm_head and model.tied_embeddings else 0)  # tied: not counted twice
    scored = tokens if head_tokens is None else head_tokens
    dense = 2 * (model.active_params - model.embedding_params - in_params) * tokens + 2 * head * scored
    return dense + 2 * tokens * context * (model.q_dim + model.o_dim) * model.layers
