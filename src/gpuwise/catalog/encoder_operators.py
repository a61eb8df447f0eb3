"""The operators of an encoder transformer (BERT-style, or a ViT: pre-norm, patches embedded by a
convolution), derived from its architecture, so the
per-operator roofline (estimate/operators.py) and each runtime's fusion and launch rules time it
as they time a described CNN: eager PyTorch launches every kernel below behind a host dispatch; a
compiled engine folds the scale, mask and softmax into the score GEMM (a fused attention kernel:
the score matrix never reaches memory),
the head transpose into the value GEMM, GELU and the residual adds into the GEMM before them.

One sample is one sequence of `seq` tokens (a ViT: one image, its patches and [CLS]). Bytes are at 16 bits (DESCRIBED_ELEMENT_BYTES, as
`gpuwise describe` writes them; the timer rescales for other dtypes). GEMM FLOPs are 2 m k n, the
same count the layer-totals path (estimate/compute.py) uses, so both paths agree on the FLOPs.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.arch import DESCRIBED_ELEMENT_BYTES as _E
from gpuwise.catalog.arch import GenericArch, Operator, TransformerArch


def expressible(model: TransformerArch) -> str | None:
    """Why `model` cannot be written operator by operator here (None: it can)."""
    if model.decoder:
        return f"{model.name} is a decoder (its engines are LLM servers)"
    if model.fixed_seq is not None and not model.patch_inputs:
        return f"{model.name} has a fixed sequence but no patch embedding gpuwise knows the size of"
    if model.mla or model.is_moe or model.gated_ffn or model.norm != "layernorm":
        return f"{model.name} is not a BERT- or ViT-style encoder (layernorm, plain GELU FFN, dense attention)"
    return None


@dataclass(frozen=True, slots=True)
class Fp32Stream:
    """What eager PyTorch moves under torch.autocast over fp32 parameters where a 16-bit model would move
    16-bit tensors (bytes per element; the caller derives them from the catalog conventions
    autocast_fp32_residual_bytes and autocast_layernorm_bytes): the embeddings are fp32 parameters, so the
    residual stream is fp32 and each residual add promotes a 16-bit branch into it; layer_norm and softmax
    are on autocast's fp32 list, so each runs in fp32, and every linear (or matmul) that reads their
    output casts it back to 16 bits in a kernel of its own (autocast caches the casts of weights only)."""

    residual_bytes: float  # a residual add: reads the fp32 stream and the 16-bit branch, writes fp32
    norm_bytes: float  # a LayerNorm's kernel in fp32: reads the fp32 stream, writes fp32
    cast_bytes: float  # one cast of an fp32 activation to 16 bits: reads fp32, writes 16-bit
    fp32_bytes: float  # one fp32 element (the embeddings' tables and sums)


class _Ops:
    """Appends operators and remembers the index of the last GEMM (what an epilogue fuses into)."""

    def __init__(self) -> None:
        self.ops: list[Operator] = []
        self.last_gemm = 0

    def gemm(self, name: str, m: float, k: float, n: float, weights: float = 0.0, moved: float = 0.0) -> None:
        """y[m,n] = x[m,k] @ w[k,n] (+ bias): reads x and writes y (or `moved` elements in all, for
        the batched attention GEMMs); `weights` elements read once per batch."""
        act = _E * (moved or m * k + m * n)
        self.last_gemm = len(self.ops)
        self.ops.append(Operator(name, "gemm", 2.0 * m * k * n, act, _E * weights))

    def pointwise(self, name: str, cls: str, elements: float, passes: float, fused: bool, params: float = 0) -> None:
        """A memory-bound kernel moving `passes` x `elements` 16-bit elements."""
        self.moving(name, cls, elements, _E * passes, fused, _E * params)

    def moving(self, name: str, cls: str, elements: float, per_element: float, fused: bool, params: float = 0) -> None:
        """A memory-bound kernel reading and writing `per_element` bytes for each of `elements`, and `params` bytes."""
        into = self.last_gemm if fused else None
        self.ops.append(Operator(name, cls, 0.0, per_element * elements, params, into))

    def residual_add(self, name: str, elements: float, stream: Fp32Stream | None) -> None:
        """The add of a branch's output to the residual stream, fused into the GEMM before it where a
        runtime fuses epilogues: 16-bit in and out, or a 16-bit branch promoted into an fp32 stream."""
        self.moving(name, "elementwise", elements, stream.residual_bytes if stream else 3 * _E, fused=True)

    def layer_norm(
        self, name: str, elements: float, width: float, stream: Fp32Stream | None, readers: int, read: float
    ) -> None:
        """A LayerNorm over `elements` (its weight and bias `width` each): 16-bit in and out, or under
        autocast over fp32 parameters torch's layer_norm in fp32 and, for each of the `readers` linears
        that read `read` elements of its output, autocast's cast of them to 16 bits."""
        if stream is None:
            self.pointwise(name, "normalization", elements, 2, fused=False, params=2 * width)
            return
        self.moving(name, "normalization", elements, stream.norm_bytes, False, 2 * width * stream.fp32_bytes)
        for i in range(readers):
            self.moving(f"{name}.cast{i}", "data-movement", read, stream.cast_bytes, False)


def encoder_operators(
    model: TransformerArch, seq: int, fused_attention: bool = False, stream: Fp32Stream | None = None
) -> GenericArch:
    """`model` (a BERT- or ViT-style encoder) as a model described operator by operator, per
    sequence of `seq` tokens (a ViT: its fixed sequence of patches and [CLS]): the embeddings, then
    each layer's Q/K/V GEMMs, score GEMM, scale (a BERT also adds its attention mask), softmax,
    value GEMM, head transpose, output projection, residual add, FFN up GEMM, GELU, FFN down GEMM
    and residual add, with a layernorm after each residual add (BERT, post-norm) or before each
    block and once at the end (ViT, pre-norm); then the pooler and the classifier when it has them.
    `fused_attention`: the module calls PyTorch's scaled_dot_product_attention (timm's ViTs, transformers'
    sdpa attention), one kernel from Q, K, V to the context with no score matrix in memory. `stream`: run
    under torch.autocast over fp32 parameters (an fp32 residual stream, fp32 LayerNorms)."""
    why = expressible(model)
    if why:
        raise ValueError(why)
    vit = bool(model.patch_inputs)
    t, h = float(model.fixed_seq or seq), float(model.hidden)
    w = _Ops()
    qkv = 3  # the separate query, key and value linears _attention writes, each casting its input
    if vit:
        _patch_embeddings(w, model, t, stream)
    else:
        _token_embeddings(w, model, t, stream)
        if model.embedding_norm:
            w.layer_norm("embeddings.layer_norm", t * h, h, stream, qkv, t * h)
    for n in range(model.layers):
        p, last = f"layer.{n}", n == model.layers - 1
        if vit:
            w.layer_norm(f"{p}.layernorm_before", t * h, h, stream, qkv, t * h)
        _attention(w, model, p, t, masked=not vit, fused=fused_attention, stream=stream)
        w.layer_norm(
            f"{p}.attention_output.layer_norm" if not vit else f"{p}.layernorm_after", t * h, h, stream, 1, t * h
        )
        _feed_forward(w, model, p, t, stream)
        if not vit:  # read by the next layer's Q, K and V, or after the last by the pooler's first token
            w.layer_norm(f"{p}.output.layer_norm", t * h, h, stream, 1 if last else qkv, h if last else t * h)
    if vit and model.final_norm:  # read by the head on the [CLS] token
        w.layer_norm("layernorm", t * h, h, stream, 1, h)
    if model.pooler:  # the first token through a dense layer and tanh
        w.gemm("pooler.dense", 1, h, h, h * h + h)
        w.pointwise("pooler.tanh", "elementwise", h, 2, fused=True)
    if model.classifier_labels:  # on the first token ([CLS])
        w.gemm("classifier", 1, h, model.classifier_labels, (h + 1) * model.classifier_labels)
    ops = tuple(w.ops)
    return GenericArch(
        name=model.name,
        task="encoder",
        params=model.params,
        flops_per_sample=sum(op.flops for op in ops),
        activation_bytes_per_sample=sum(op.act_bytes for op in ops),
        # a ViT's fp32 pixels; a BERT's int64 tensors of t: input ids, the attention mask and, with more than one
        # token type, the token type ids (transformers' tokenizer outputs)
        input_shape=(int((t - 1) * model.patch_inputs),) if vit else (_token_tensors(model), int(t)),
        operators=ops,
        input_element_bytes=None if vit else 8,
    )


def _token_tensors(model: TransformerArch) -> int:
    """The int64 tensors a BERT-style encoder takes per sequence: ids and mask, token types where it has several."""
    return 3 if model.type_vocab > 1 else 2


def _token_embeddings(w: _Ops, model: TransformerArch, t: float, stream: Fp32Stream | None) -> None:
    """A BERT's embeddings: a gather per table (the rows read and the embeddings written), the sums
    of the tables (its layernorm follows); in fp32 where the tables are fp32 parameters (`stream`)."""
    h = float(model.hidden)
    e = stream.fp32_bytes if stream else _E
    tables = ["word"] + (["position"] if model.learned_positions else []) + (["token_type"] if model.type_vocab else [])
    for name in tables:
        w.ops.append(Operator(f"embeddings.{name}.embedding", "embedding", 0.0, e * 2 * t * h))
    for i in range(1, len(tables)):
        w.moving(f"embeddings.{i}.add", "elementwise", t * h, 3 * e, fused=False)


def _patch_embeddings(w: _Ops, model: TransformerArch, t: float, stream: Fp32Stream | None) -> None:
    """A ViT's embeddings: one convolution (kernel and stride the patch) projecting each of the t - 1
    patches' `patch_inputs` elements to `hidden`, its bias added by a kernel of its own in eager
    PyTorch (cuDNN's convolution, then the bias add), the [CLS] token concatenated in front and the
    learned positions added; under autocast over fp32 parameters (`stream`) the fp32 [CLS] token
    promotes the concatenation to fp32, and the positions are added in fp32."""
    h, k, patches = float(model.hidden), float(model.patch_inputs), t - 1
    conv = len(w.ops)
    act = _E * (patches * k + patches * h)  # reads the image, writes one vector per patch
    w.ops.append(
        Operator("embeddings.patch_embeddings.projection", "convolution", 2 * patches * k * h, act, _E * k * h)
    )
    w.ops.append(
        Operator("embeddings.patch_embeddings.bias.add", "elementwise", 0.0, _E * 2 * patches * h, _E * h, conv)
    )
    e = stream.fp32_bytes if stream else _E
    w.moving("embeddings.cls_token.cat", "data-movement", t * h, _E + e, fused=False)
    w.moving("embeddings.position_embeddings.add", "elementwise", t * h, 3 * e, fused=False, params=e * t * h)


def _attention(
    w: _Ops, model: TransformerArch, p: str, t: float, masked: bool, fused: bool, stream: Fp32Stream | None
) -> None:
    """Self-attention over t tokens and the residual add after its output projection. Q K^T per
    head, then probabilities x V; the score matrix's write (by the first GEMM) and read (by the
    second) are counted in the scale and softmax kernels beside them, so a runtime that fuses those
    into the attention (TensorRT's fused MHA) never moves the scores. A BERT adds its attention
    mask to the scores; a ViT has none. `fused`: scaled_dot_product_attention's one kernel, the
    same FLOPs, reading Q, K and V and writing the context."""
    h = float(model.hidden)
    q, kv, o, heads = float(model.q_dim), float(model.kv_heads * model.head_dim), float(model.o_dim), model.heads
    scores = heads * t * t
    w.gemm(f"{p}.query", t, h, q, h * q + q)
    w.gemm(f"{p}.key", t, h, kv, h * kv + kv)
    w.gemm(f"{p}.value", t, h, kv, h * kv + kv)
    if fused:
        w.last_gemm = len(w.ops)  # the head transpose after it fuses into it where a runtime fuses epilogues
        w.ops.append(Operator(f"{p}.attention", "attention", 2.0 * t * t * (q + o), _E * t * (q + 2 * kv + o)))
    else:
        w.gemm(f"{p}.scores", t, model.head_dim, t * heads, moved=t * (q + kv))
        w.pointwise(f"{p}.scale", "elementwise", scores, 3, fused=True)
        _softmax(w, p, scores, masked, stream)
        w.gemm(f"{p}.context", t, t * heads, o / heads, moved=t * kv + t * o)
    w.pointwise(f"{p}.transpose", "data-movement", t * o, 2, fused=True)
    w.gemm(f"{p}.attention_output", t, o, h, o * h + h)
    w.residual_add(f"{p}.attention_output.add", t * h, stream)


def _feed_forward(w: _Ops, model: TransformerArch, p: str, t: float, stream: Fp32Stream | None) -> None:
    """The FFN: up GEMM, GELU, down GEMM and the residual add after it."""
    h, f = float(model.hidden), float(model.ffn)
    w.gemm(f"{p}.intermediate", t, h, f, h * f + f)
    w.pointwise(f"{p}.gelu", "elementwise", t * f, 2, fused=True)
    w.gemm(f"{p}.output", t, f, h, f * h + h)
    w.residual_add(f"{p}.output.add", t * h, stream)


def _softmax(w: _Ops, p: str, scores: float, masked: bool, stream: Fp32Stream | None) -> None:
    """The attention mask's add (a BERT) and the softmax over the 16-bit scores, the value GEMM's read of
    the probabilities counted with it. Under autocast over fp32 parameters the mask is an fp32 tensor
    (transformers builds it at the model's dtype), so its add writes fp32 scores; softmax runs in fp32
    (autocast's fp32 list: from 16-bit scores straight into fp32, PyTorch's half_to_float softmax) and the
    value GEMM's autocast casts the probabilities back to 16 bits in a kernel of its own."""
    if stream is None:
        if masked:
            w.pointwise(f"{p}.mask.add", "elementwise", scores, 2, fused=True)
        w.pointwise(f"{p}.softmax", "elementwise", scores, 3, fused=True)
        return
    f32 = stream.fp32_bytes
    if masked:
        w.moving(f"{p}.mask.add", "elementwise", scores, _E + f32, fused=False)
    w.moving(f"{p}.softmax", "elementwise", scores, (f32 if masked else _E) + f32 + _E, fused=False)
    w.moving(f"{p}.softmax.cast", "data-movement", scores, stream.cast_bytes, fused=False)
