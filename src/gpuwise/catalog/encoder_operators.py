"""The operators of an encoder transformer (BERT-style), derived from its architecture, so the
per-operator roofline (estimate/operators.py) and each runtime's fusion and launch rules time it
as they time a described CNN: eager PyTorch launches every kernel below behind a host dispatch; a
compiled engine folds the scale, mask and softmax into the score GEMM (a fused attention kernel:
the score matrix never reaches memory),
the head transpose into the value GEMM, GELU and the residual adds into the GEMM before them.

One sample is one sequence of `seq` tokens. Bytes are at 16 bits (DESCRIBED_ELEMENT_BYTES, as
`gpuwise describe` writes them; the timer rescales for other dtypes). GEMM FLOPs are 2 m k n, the
same count the layer-totals path (estimate/compute.py) uses, so both paths agree on the FLOPs.
"""

from __future__ import annotations

from gpuwise.catalog.arch import DESCRIBED_ELEMENT_BYTES as _E
from gpuwise.catalog.arch import GenericArch, Operator, TransformerArch


def expressible(model: TransformerArch) -> str | None:
    """Why `model` cannot be written operator by operator here (None: it can)."""
    if model.decoder:
        return f"{model.name} is a decoder (its engines are LLM servers)"
    if model.fixed_seq is not None:
        return f"{model.name} embeds patches, not tokens (its patch convolution is not written out here)"
    if model.mla or model.is_moe or model.gated_ffn or model.norm != "layernorm":
        return f"{model.name} is not a BERT-style encoder (layernorm, plain GELU FFN, dense attention)"
    return None


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
        into = self.last_gemm if fused else None
        self.ops.append(Operator(name, cls, 0.0, _E * passes * elements, _E * params, into))


def encoder_operators(model: TransformerArch, seq: int) -> GenericArch:
    """`model` (a BERT-style encoder) as a model described operator by operator, per sequence of
    `seq` tokens: embeddings and their layernorm, each layer's Q/K/V GEMMs, score GEMM, scale,
    mask and softmax, value GEMM, head transpose, output projection, residual add and layernorm,
    FFN up GEMM, GELU, FFN down GEMM, residual add and layernorm; the pooler when it has one."""
    why = expressible(model)
    if why:
        raise ValueError(why)
    t, h, f = float(seq), float(model.hidden), float(model.ffn)
    q, kv, o, heads = float(model.q_dim), float(model.kv_heads * model.head_dim), float(model.o_dim), model.heads
    scores = heads * t * t
    w = _Ops()
    tables = ["word"] + (["position"] if model.learned_positions else []) + (["token_type"] if model.type_vocab else [])
    for name in tables:  # a gather: the rows read and the embeddings written
        w.ops.append(Operator(f"embeddings.{name}.embedding", "embedding", 0.0, _E * 2 * t * h))
    for i in range(1, len(tables)):
        w.pointwise(f"embeddings.{i}.add", "elementwise", t * h, 3, fused=False)
    if model.embedding_norm:
        w.pointwise("embeddings.layer_norm", "normalization", t * h, 2, fused=False, params=2 * h)
    for n in range(model.layers):
        p = f"layer.{n}"
        w.gemm(f"{p}.query", t, h, q, h * q + q)
        w.gemm(f"{p}.key", t, h, kv, h * kv + kv)
        w.gemm(f"{p}.value", t, h, kv, h * kv + kv)
        # Q K^T per head, then probabilities x V; the score matrix's write (by the first GEMM) and
        # read (by the second) are counted in the scale and softmax kernels beside them, so a
        # runtime that fuses those into the attention (TensorRT's fused MHA) never moves the scores
        w.gemm(f"{p}.scores", t, model.head_dim, t * heads, moved=t * (q + kv))
        w.pointwise(f"{p}.scale", "elementwise", scores, 3, fused=True)
        w.pointwise(f"{p}.mask.add", "elementwise", scores, 2, fused=True)
        w.pointwise(f"{p}.softmax", "elementwise", scores, 3, fused=True)
        w.gemm(f"{p}.context", t, t * heads, o / heads, moved=t * kv + t * o)
        w.pointwise(f"{p}.transpose", "data-movement", t * o, 2, fused=True)
        w.gemm(f"{p}.attention_output", t, o, h, o * h + h)
        w.pointwise(f"{p}.attention_output.add", "elementwise", t * h, 3, fused=True)
        w.pointwise(f"{p}.attention_output.layer_norm", "normalization", t * h, 2, fused=False, params=2 * h)
        w.gemm(f"{p}.intermediate", t, h, f, h * f + f)
        w.pointwise(f"{p}.gelu", "elementwise", t * f, 2, fused=True)
        w.gemm(f"{p}.output", t, f, h, f * h + h)
        w.pointwise(f"{p}.output.add", "elementwise", t * h, 3, fused=True)
        w.pointwise(f"{p}.output.layer_norm", "normalization", t * h, 2, fused=False, params=2 * h)
    if model.pooler:  # the first token through a dense layer and tanh
        w.gemm("pooler.dense", 1, h, h, h * h + h)
        w.pointwise("pooler.tanh", "elementwise", h, 2, fused=True)
    if model.classifier_labels:
        w.gemm("classifier", 1, h, model.classifier_labels, (h + 1) * model.classifier_labels)
    ops = tuple(w.ops)
    return GenericArch(
        name=model.name,
        task="encoder",
        params=model.params,
        flops_per_sample=sum(op.flops for op in ops),
        activation_bytes_per_sample=sum(op.act_bytes for op in ops),
        input_shape=(seq,),
        operators=ops,
    )
