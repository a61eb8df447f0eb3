"""Model architectures as the estimators see them: typed, frozen, parameter-countable.

`TransformerArch` covers decoder LLMs (dense and MoE, MHA/GQA/MQA, sliding windows), encoders
(BERT) and vision transformers; `GenericArch` covers models described by totals (CNNs, UNets,
recommenders with embedding tables).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# Names of the linear layers of one transformer block, as Hugging Face/PEFT call them; LoRA
# targets refer to these names.
ATTENTION_LINEARS = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP_LINEARS = ("gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
        return sum(lin.params for lin in self.linears()) + self.norms_per_layer * self.norm_params

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


@dataclass(frozen=True)
class GenericArch:
    """A model known by totals: parameters, FLOPs and activation bytes per sample."""

    name: str
    task: str
    params: int
    flops_per_sample: float | None = None
    activation_bytes_per_sample: float | None = None
    input_shape: tuple[int, ...] = ()
    embedding_tables: tuple[tuple[int, int], ...] = ()

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
