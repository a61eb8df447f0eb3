"""Model architectures as the estimators see them: typed, frozen, parameter-countable.

`TransformerArch` covers decoder LLMs (dense and MoE, MHA/GQA/MQA, sliding windows), encoders
(BERT) and vision transformers; `GenericArch` covers models described by totals (CNNs, UNets,
recommenders with embedding tables).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from gpuwise.errors import ConfigError

# Names of the linear layers of one transformer block, as Hugging Face/PEFT call them; LoRA
# targets refer to these names.
ATTENTION_LINEARS = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP_LINEARS = ("gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True, slots=True)
class Linear:
    """One weight matrix of a block: y = x W, W is d_in x d_out; `count` copies (MoE experts)."""

    name: str
    d_in: int
    d_out: int
    bias: bool = False
    count: int = 1

    @property
    def params(self) -> int:
        return self.count * (self.d_in * self.d_out + (self.d_out if self.bias else 0))


@dataclass(frozen=True, slots=True)
class TransformerArch:
    """Shape of a transformer. Symbols follow Korthikanti et al.: h hidden, a heads, L layers."""

    name: str
    family: str
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    max_seq: int
    gated_ffn: bool = True
    tied_embeddings: bool = False
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    norm: Literal["rmsnorm", "layernorm"] = "rmsnorm"
    norms_per_layer: int = 2
    qk_norm: bool = False  # an RMSNorm over each head's queries and keys (Qwen3: q_norm, k_norm)
    final_norm: bool = True
    embedding_norm: bool = False
    learned_positions: int = 0
    type_vocab: int = 0
    sliding_window: int | None = None
    sliding_window_layers: int = 0
    experts: int = 1
    experts_per_token: int = 1
    causal: bool = True
    dropout: float = 0.0  # hidden/residual dropout in training
    attention_dropout: float = 0.0  # dropout on the attention probabilities
    lm_head: bool = True
    pooler: bool = False
    classifier_labels: int = 0
    extra_params: int = 0
    fixed_seq: int | None = None

    kind: Literal["transformer"] = field(default="transformer", init=False)

    # ----- derived shapes -------------------------------------------------------------
    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    @property
    def decoder(self) -> bool:
        """Generates tokens autoregressively (has a KV cache at inference)."""
        return self.causal and self.lm_head

    def linears(self) -> tuple[Linear, ...]:
        """The weight matrices of one block (MoE experts as `count` copies)."""
        h, f, e = self.hidden, self.ffn, self.experts
        attn = (
            Linear("q_proj", h, self.q_dim, self.qkv_bias),
            Linear("k_proj", h, self.kv_dim, self.qkv_bias),
            Linear("v_proj", h, self.kv_dim, self.qkv_bias),
            Linear("o_proj", self.q_dim, h, self.o_bias),
        )
        mlp: tuple[Linear, ...]
        if self.gated_ffn:
            mlp = (
                Linear("gate_proj", h, f, self.mlp_bias, e),
                Linear("up_proj", h, f, self.mlp_bias, e),
                Linear("down_proj", f, h, self.mlp_bias, e),
            )
        else:
            mlp = (Linear("up_proj", h, f, self.mlp_bias, e), Linear("down_proj", f, h, self.mlp_bias, e))
        router = (Linear("router", h, e),) if self.is_moe else ()
        return attn + mlp + router

    @property
    def norm_params(self) -> int:
        return self.hidden * (2 if self.norm == "layernorm" else 1)

    @property
    def layer_params(self) -> int:
        qk = 2 * self.head_dim if self.qk_norm else 0  # one weight of head_dim for queries, one for keys
        return sum(lin.params for lin in self.linears()) + self.norms_per_layer * self.norm_params + qk

    @property
    def embedding_params(self) -> int:
        """Token (+ position, + token-type) embeddings, the embedding norm and extras (patch embed)."""
        h = self.hidden
        emb = (self.vocab + self.learned_positions + self.type_vocab) * h
        return emb + (self.norm_params if self.embedding_norm else 0) + self.extra_params

    @property
    def head_params(self) -> int:
        """Output side: final norm, untied LM head, pooler, classifier."""
        h = self.hidden
        n = self.norm_params if self.final_norm else 0
        if self.lm_head and not self.tied_embeddings:
            n += self.vocab * h
        if self.pooler:
            n += h * h + h
        if self.classifier_labels:
            n += self.classifier_labels * (h + 1)
        return n

    @property
    def params(self) -> int:
        return self.embedding_params + self.layers * self.layer_params + self.head_params

    @property
    def active_params(self) -> int:
        """Parameters each token passes through (MoE: only `experts_per_token` experts)."""
        if not self.is_moe:
            return self.params
        expert_mlp = sum(lin.params for lin in self.linears() if lin.count == self.experts)
        inactive = expert_mlp * (self.experts - self.experts_per_token) // self.experts
        return self.params - self.layers * inactive

    def tokens_per_sample(self, seq: int) -> int:
        return self.fixed_seq or seq


OPERATOR_CLASSES = (
    "gemm",
    "convolution",
    "normalization",
    "elementwise",
    "pooling",
    "embedding",
    "attention",
    "data-movement",
)

# A sanity bound on a described model: the packaged descriptions hold 27 (DeepFM) to 242
# (EfficientNet-B0) operators (data/operators/); a million rows is a malformed or hostile file.
MAX_OPERATORS = 1_000_000


@dataclass(frozen=True, slots=True)
class Operator:
    """One kernel of a forward pass, per sample: the per-operator roofline times each one.

    `act_bytes` is what it reads and writes besides weights (scales with the batch);
    `param_bytes` the weights it reads (once per batch); `fused_into` the index of the
    convolution or GEMM an inference compiler folds it into (None: its own kernel)."""

    name: str
    cls: str
    flops: float
    act_bytes: float
    param_bytes: float = 0.0
    fused_into: int | None = None


@dataclass(frozen=True, slots=True)
class GenericArch:
    """A model known by totals (parameters, FLOPs and activation bytes per sample) and, where it
    was described (`gpuwise describe`, package data), by its operators."""

    name: str
    task: str
    params: int
    flops_per_sample: float | None = None
    activation_bytes_per_sample: float | None = None
    input_shape: tuple[int, ...] = ()
    embedding_tables: tuple[tuple[int, int], ...] = ()
    operators: tuple[Operator, ...] = ()
    lookups_per_table: float = 1.0  # ids looked up per table per sample (multi-hot features)

    kind: Literal["generic"] = field(default="generic", init=False)

    @property
    def active_params(self) -> int:
        return self.params

    @property
    def embedding_params(self) -> int:
        return sum(rows * dim for rows, dim in self.embedding_tables)

    @property
    def dense_params(self) -> int:
        return self.params - self.embedding_params

    @property
    def decoder(self) -> bool:
        return False


ModelArch = TransformerArch | GenericArch


def _number(doc: dict[str, Any], key: str, where: str) -> float:
    value = doc.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ConfigError(f"{where}: {key!r} must be a finite number >= 0; got {str(value)[:40]!r}")
    return float(value)


def _operator(row: Any, i: int, batch: int, where: str) -> Operator:
    """One row of a `gpuwise describe` document, per sample."""
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: operators[{i}] must be an object")
    cls = row.get("class")
    if cls not in OPERATOR_CLASSES:
        raise ConfigError(f"{where}: operators[{i}].class must be one of {', '.join(OPERATOR_CLASSES)}; got {cls!r}")
    at = f"{where}: operators[{i}]"
    params = _number(row, "param_bytes", at)
    moved = _number(row, "bytes_read", at) + _number(row, "bytes_written", at) - params
    fused = row.get("fused_into")
    if fused is not None and (isinstance(fused, bool) or not isinstance(fused, int) or not 0 <= fused < i):
        raise ConfigError(f"{at}.fused_into must be the index of an earlier operator or null; got {fused!r}")
    return Operator(
        name=str(row.get("name", f"op{i}"))[:200],
        cls=cls,
        flops=_number(row, "flops", at) / batch,
        act_bytes=max(moved, 0.0) / batch,
        param_bytes=params,
        fused_into=fused,
    )


def arch_from_operators(doc: dict[str, Any], where: str, name: str | None = None) -> GenericArch:
    """The model a `gpuwise describe --json` document describes (values at its `batch`)."""
    rows = doc.get("operators")
    if not isinstance(rows, list) or not rows:
        raise ConfigError(f"{where}: 'operators' must be a non-empty list (the output of gpuwise describe --json)")
    if len(rows) > MAX_OPERATORS:
        raise ConfigError(f"{where}: more than {MAX_OPERATORS:,} operators; not a model description")
    batch = doc.get("batch", 1)
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ConfigError(f"{where}: 'batch' must be a whole number >= 1; got {batch!r}")
    ops = tuple(_operator(r, i, batch, where) for i, r in enumerate(rows))
    shape = doc.get("input_shape") or []
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
        raise ConfigError(f"{where}: 'input_shape' must be a list of positive whole numbers")
    tables = doc.get("embedding_tables") or []
    if not isinstance(tables, list) or not all(
        isinstance(t, list) and len(t) == 2 and all(isinstance(v, int) and v > 0 for v in t) for t in tables
    ):
        raise ConfigError(f"{where}: 'embedding_tables' must be a list of [rows, dim] pairs")
    params = doc.get("params")
    if isinstance(params, bool) or not isinstance(params, int) or params < 0:
        raise ConfigError(f"{where}: 'params' must be a whole number >= 0; got {str(params)[:40]!r}")
    flops = sum(op.flops for op in ops)
    act = doc.get("activation_bytes_per_sample")
    return GenericArch(
        name=name or str(doc.get("name") or "custom")[:100],
        task=str(doc.get("task") or "vision")[:40],
        params=params,
        flops_per_sample=flops,
        activation_bytes_per_sample=_number(doc, "activation_bytes_per_sample", where) if act is not None else None,
        input_shape=tuple(shape),
        embedding_tables=tuple((int(r), int(d)) for r, d in tables),
        operators=ops,
    )
