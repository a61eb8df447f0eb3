"""Model architectures as the estimators see them: typed, frozen, parameter-countable.

`TransformerArch` covers decoder LLMs (dense and MoE, MHA/GQA/MQA, multi-head latent attention,
sliding windows), encoders (BERT) and vision transformers; `GenericArch` covers models described
by totals (CNNs, UNets, recommenders with embedding tables).

A mixture-of-experts stack is described by its MoE block (routed experts, an optional always-active
shared expert, the router) and, where some blocks have a dense MLP instead (DeepSeek-V3's first
three, every other block of Llama 4 Maverick), by their count and width. Per-layer figures the
estimators multiply by a layer count (`layer_params`, `mlp_width`) are means over the blocks, so
that totals over the stack are exact; parameter counts are summed block by block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeGuard

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
    # MoE beyond identical routed blocks: an always-active shared expert in every MoE block (its
    # width; Qwen2-MoE also gates it with a sigmoid of h -> 1), and blocks with a dense MLP among them
    shared_ffn: int = 0
    shared_expert_gate: bool = False
    dense_layers: int = 0
    dense_ffn: int = 0
    # multi-head latent attention (DeepSeek-V2/V3): queries through a rank-q_lora_rank latent (0:
    # projected directly), keys and values through a rank-kv_lora_rank latent the KV cache holds with
    # the decoupled rotary key (qk_rope_head_dim); per head qk_nope + qk_rope query/key, v_head values
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    mtp_layers: int = 0  # multi-token prediction modules (DeepSeek-V3: 1): in checkpoints, not `params`
    # the checkpoint's FP8 linears scaled per block of this many rows and columns (its quantization_config's
    # weight_block_size; DeepSeek-V3/R1: 128): block-scaled FP8 GEMM kernels serve them; 0: not block FP8
    fp8_weight_block: int = 0
    causal: bool = True
    dropout: float = 0.0  # hidden/residual dropout in training
    attention_dropout: float = 0.0  # dropout on the attention probabilities
    lm_head: bool = True
    # BERT's masked-LM prediction head before the vocabulary projection (BertLMPredictionHead): a
    # hidden x hidden dense layer with bias, the activation, a LayerNorm, and the decoder's vocab bias
    mlm_transform: bool = False
    pooler: bool = False
    classifier_labels: int = 0
    extra_params: int = 0
    fixed_seq: int | None = None
    # a vision transformer's patch embedding: the elements of one patch (channels x patch x patch),
    # each patch projected to `hidden` by one convolution; 0: the model embeds tokens
    patch_inputs: int = 0
    patch_side: int = 0  # a vision transformer's patch side in pixels (16 for ViT-B/16); 0: unknown

    kind: Literal["transformer"] = field(default="transformer", init=False)

    # ----- derived shapes -------------------------------------------------------------
    @property
    def mla(self) -> bool:
        """Multi-head latent attention: the KV cache holds a latent, not per-head keys and values."""
        return self.kv_lora_rank > 0

    @property
    def qk_head_dim(self) -> int:
        return self.qk_nope_head_dim + self.qk_rope_head_dim if self.mla else self.head_dim

    @property
    def q_dim(self) -> int:
        """Width of the queries (and of each token's scores' dot products): heads x query head."""
        return self.heads * self.qk_head_dim

    @property
    def k_dim(self) -> int:
        """Width of the keys a token contributes (MLA: the per-head keys decompressed from the latent)."""
        return self.heads * self.qk_head_dim if self.mla else self.kv_heads * self.head_dim

    @property
    def v_dim(self) -> int:
        """Width of the values a token contributes (MLA: decompressed per head)."""
        return self.heads * self.v_head_dim if self.mla else self.kv_heads * self.head_dim

    @property
    def o_dim(self) -> int:
        """Width of the attention output (heads x value head), the input of o_proj."""
        return self.heads * (self.v_head_dim if self.mla else self.head_dim)

    @property
    def kv_cache_width(self) -> int:
        """Elements each token stores per layer in the KV cache: keys and values of every key/value
        head, or for MLA the compressed latent plus the shared rotary key (kv_lora_rank + qk_rope)."""
        return self.kv_lora_rank + self.qk_rope_head_dim if self.mla else 2 * self.kv_heads * self.head_dim

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    @property
    def moe_layers(self) -> int:
        """Blocks with routed experts (the others have a dense MLP of width `dense_ffn`)."""
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def decoder(self) -> bool:
        """Generates tokens autoregressively (has a KV cache at inference)."""
        return self.causal and self.lm_head

    def attention_linears(self) -> tuple[Linear, ...]:
        """The attention's weight matrices: q, k, v, o; for MLA the down projections to the latents
        (q_a_proj, kv_a_proj_with_mqa: the KV latent and the rotary key) and the up projections
        from them (q_b_proj, kv_b_proj: per-head nope keys and values), then o_proj."""
        h = self.hidden
        if not self.mla:
            return (
                Linear("q_proj", h, self.q_dim, self.qkv_bias),
                Linear("k_proj", h, self.k_dim, self.qkv_bias),
                Linear("v_proj", h, self.v_dim, self.qkv_bias),
                Linear("o_proj", self.o_dim, h, self.o_bias),
            )
        if self.q_lora_rank:
            q: tuple[Linear, ...] = (
                Linear("q_a_proj", h, self.q_lora_rank, self.qkv_bias),
                Linear("q_b_proj", self.q_lora_rank, self.q_dim),
            )
        else:
            q = (Linear("q_proj", h, self.q_dim),)
        kv_b = self.heads * (self.qk_nope_head_dim + self.v_head_dim)
        return (
            *q,
            Linear("kv_a_proj_with_mqa", h, self.kv_lora_rank + self.qk_rope_head_dim, self.qkv_bias),
            Linear("kv_b_proj", self.kv_lora_rank, kv_b),
            Linear("o_proj", self.o_dim, h, self.o_bias),
        )

    def _mlp(self, f: int, count: int, prefix: str = "") -> tuple[Linear, ...]:
        h, b = self.hidden, self.mlp_bias
        if self.gated_ffn:
            return (
                Linear(f"{prefix}gate_proj", h, f, b, count),
                Linear(f"{prefix}up_proj", h, f, b, count),
                Linear(f"{prefix}down_proj", f, h, b, count),
            )
        return (Linear(f"{prefix}up_proj", h, f, b, count), Linear(f"{prefix}down_proj", f, h, b, count))

    def mlp_linears(self, dense: bool = False) -> tuple[Linear, ...]:
        """The MLP's weight matrices: a MoE block's routed experts (`count` copies), its shared
        expert and router; with `dense` (or in a dense model) a dense block's MLP."""
        if not self.is_moe or dense:
            return self._mlp(self.dense_ffn if self.is_moe else self.ffn, 1)
        shared = self._mlp(self.shared_ffn, 1, "shared_") if self.shared_ffn else ()
        gate = (Linear("shared_expert_gate", self.hidden, 1),) if self.shared_expert_gate else ()
        return self._mlp(self.ffn, self.experts) + shared + (Linear("router", self.hidden, self.experts),) + gate

    def linears(self, dense: bool = False) -> tuple[Linear, ...]:
        """The weight matrices of one block: a MoE block (experts as `count` copies) unless `dense`."""
        return self.attention_linears() + self.mlp_linears(dense)

    def block_kinds(self) -> tuple[tuple[int, bool], ...]:
        """(number of blocks, dense) for each kind of block in the stack."""
        kinds = ((self.moe_layers, False), (self.layers - self.moe_layers, True))
        return tuple(k for k in kinds if k[0])

    @property
    def norm_params(self) -> int:
        return self.hidden * (2 if self.norm == "layernorm" else 1)

    def block_params(self, dense: bool = False) -> int:
        """All parameters of one block: its linears, norms, query/key norms, MLA's latent norms."""
        qk = 2 * self.qk_head_dim if self.qk_norm else 0  # one weight of head_dim for queries, one for keys
        latent = (self.q_lora_rank + self.kv_lora_rank) if self.mla else 0  # q_a_layernorm, kv_a_layernorm
        linears = sum(lin.params for lin in self.linears(dense))
        return linears + self.norms_per_layer * self.norm_params + qk + latent

    @property
    def layer_params(self) -> float:
        """Parameters of a block, the mean over the stack's blocks (exact for a uniform stack)."""
        return sum(n * self.block_params(d) for n, d in self.block_kinds()) / self.layers

    def mlp_width(self, load: float = 1.0) -> float:
        """MLP columns one token passes through in a block, the mean over the stack: the routed
        experts' (x `load`, tokens per expert over an even share) and the shared expert's in a MoE
        block, the dense width in a dense one."""
        routed = self.ffn * self.experts_per_token * load + self.shared_ffn
        total = sum(
            n * (self.dense_ffn if d and self.is_moe else self.ffn if d else routed) for n, d in self.block_kinds()
        )
        return total / self.layers

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
        if self.mlm_transform:
            n += h * h + h + self.norm_params + self.vocab
        if self.pooler:
            n += h * h + h
        if self.classifier_labels:
            n += self.classifier_labels * (h + 1)
        return n

    @property
    def params(self) -> int:
        blocks = sum(n * self.block_params(d) for n, d in self.block_kinds())
        return self.embedding_params + blocks + self.head_params

    @property
    def active_params(self) -> int:
        """Parameters each token passes through (MoE blocks: only `experts_per_token` routed experts)."""
        if not self.is_moe:
            return self.params
        expert_mlp = sum(lin.params for lin in self.mlp_linears() if lin.count == self.experts)
        inactive = expert_mlp * (self.experts - self.experts_per_token) // self.experts
        return self.params - self.moe_layers * inactive

    @property
    def mtp_params(self) -> int:
        """Multi-token prediction modules as DeepSeek-V3's checkpoint stores them (model.layers.61):
        a MoE block, the projection of [norm(h); norm(embedding)] back to h (2h x h), two norms,
        and copies of the embedding, final norm and head. Trained with the model, dropped (or used
        for speculative decoding) when serving: outside `params`."""
        h = self.hidden
        module = self.block_params() + 2 * h * h + 2 * self.norm_params
        copies = 2 * self.vocab * h + self.norm_params
        return self.mtp_layers * (module + copies)

    @property
    def checkpoint_params(self) -> int:
        """What a full checkpoint of the model holds: `params` plus multi-token prediction modules."""
        return self.params + self.mtp_params

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


DESCRIBED_ELEMENT_BYTES = (
    2  # operators' bytes are described at 16 bits (package data and `gpuwise describe` trace at bf16)
)


@dataclass(frozen=True, slots=True)
class Operator:
    """One kernel of a forward pass, per sample: the per-operator roofline times each one.

    `act_bytes` is what it reads and writes besides weights (scales with the batch);
    `param_bytes` the weights it reads (once per batch); `fused_into` the index of the
    convolution or GEMM an inference compiler folds it into (None: its own kernel); `plane` the
    height x width of its output where the description gave an image-shaped (N, C, H, W) output,
    0 where it did not (what `at_image_size` rescales)."""

    name: str
    cls: str
    flops: float
    act_bytes: float
    param_bytes: float = 0.0
    fused_into: int | None = None
    plane: int = 0


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
    # runs of identical kernels (a pipeline's UNet call per timestep): (first index, kernels in one run,
    # runs): operators[first : first + kernels x runs] repeat the same kernels, names aside, so a timer
    # may time one run per state it starts in
    repeats: tuple[tuple[int, int, int], ...] = ()
    # bytes of one input element a host copies (None: fp32 pixels, 64-bit ids of a recommender's tables)
    input_element_bytes: float | None = None
    # the most bytes live at once in an inference forward (no autograd graph keeps anything), per sample:
    # one kernel's input and output beside what the code still holds; None: not described kernel by kernel
    forward_peak_bytes_per_sample: float | None = None

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


def embedding_sharded(model: ModelArch) -> bool:
    """Trained as recommenders are (TorchRec's DistributedModelParallel, the DLRM reference): the
    embedding tables sharded over the GPUs (model parallel), the dense part replicated and its
    gradients all-reduced (data parallel, DDP). ZeRO applies to neither."""
    return isinstance(model, GenericArch) and bool(model.embedding_tables)


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
        plane=_plane(row.get("shape")),
    )


def _forward_peak(rows: list[Any], batch: int, where: str) -> float:
    """The most bytes live at once while a described model runs one inference forward, per sample.

    Without autograd nothing is saved for a backward: a kernel's activation input and output are live,
    beside the input of the residual block it runs in (named by the first part of its module path: the
    block's input stays referenced until an add reads it back beside the branch, a read of at least
    twice what the add writes) and the model's input (its caller holds it). A block whose add is a bias
    (reads about what it writes) holds nothing."""
    moved = [
        (
            _number(r, "bytes_read", f"{where}: operators[{i}]")
            - _number(r, "param_bytes", f"{where}: operators[{i}]"),
            _number(r, "bytes_written", f"{where}: operators[{i}]"),
        )
        for i, r in enumerate(rows)
    ]
    blocks = [
        str(r.get("name", "")).split(".")[0] if "." in str(r.get("name", "")) else f"#{i}" for i, r in enumerate(rows)
    ]
    residual = {
        b
        for b, r, (read, written) in zip(blocks, rows, moved, strict=True)
        if r.get("op") == "add" and read >= 2 * written > 0
    }
    model_input = max(moved[0][0], 0.0)
    peak, held, block = 0.0, 0.0, None
    for i, (b, r, (read, written)) in enumerate(zip(blocks, rows, moved, strict=True)):
        if b != block:
            block, held = b, (max(read, 0.0) if b in residual else 0.0)
            live = max(read, 0.0) + written  # the block's first kernel reads what it holds
        elif r.get("op") == "add" and b in residual:
            live, held = max(read, 0.0) + written, 0.0  # the add reads the held input back, then frees it
        else:
            live = max(read, 0.0) + written + held
        peak = max(peak, live + (model_input if i else 0.0))
    return peak / batch


def _plane(shape: Any) -> int:
    """Height x width of a described output shaped [[N, C, H, W]] (`gpuwise describe`), else 0."""
    first = shape[0] if isinstance(shape, list) and shape else None
    if not isinstance(first, list) or len(first) != 4:
        return 0
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in first):
        return 0
    return int(first[2] * first[3])


def image_side(model: GenericArch) -> int | None:
    """The square image side a CNN's operators were described at (input [C, H, W] with H = W and
    image-shaped outputs), else None: `at_image_size` applies only to such a model."""
    shape = model.input_shape
    if model.task != "vision" or len(shape) != 3 or shape[1] != shape[2]:
        return None
    return shape[1] if any(op.plane > 1 for op in model.operators) else None


def at_image_size(model: GenericArch, side: int) -> GenericArch:
    """The CNN `model` fed `side` x `side` images instead of the size it was described at.

    A convolutional network's work is per output pixel: every operator with an image-shaped
    output (convolutions, normalizations, activations, pooling that keeps a plane) does
    (side / described side)^2 times its FLOPs and moves that many times its activation bytes,
    its weights unchanged; a global pooling (a plane in, one value per channel out) reads the
    plane, so its bytes scale too; the classifier after it and the squeeze-and-excitation
    layers on pooled vectors do not change. The activation memory per sample scales with the
    pixels. Operators are timed per kernel, so what a smaller image saves is less than its
    pixel ratio where kernels are too small to fill the GPU."""
    described = image_side(model)
    if described is None:
        raise ConfigError(f"{model.name} is not an image model described operator by operator")
    ratio = (side / described) ** 2

    def scaled(op: Operator) -> Operator:
        if op.plane > 1:
            return Operator(
                op.name,
                op.cls,
                op.flops * ratio,
                op.act_bytes * ratio,
                op.param_bytes,
                op.fused_into,
                max(1, round(op.plane * ratio)),
            )
        if op.cls == "pooling":  # a global pooling reads the whole plane
            return Operator(op.name, op.cls, op.flops * ratio, op.act_bytes * ratio, op.param_bytes, op.fused_into, 0)
        return op

    ops = tuple(scaled(op) for op in model.operators)
    act, flops, peak = model.activation_bytes_per_sample, model.flops_per_sample, model.forward_peak_bytes_per_sample
    if flops is not None:  # the published count, by the share of the described FLOPs that scaled
        flops *= sum(op.flops for op in ops) / max(sum(op.flops for op in model.operators), 1.0)
    return GenericArch(
        name=model.name,
        task=model.task,
        params=model.params,
        flops_per_sample=flops,
        activation_bytes_per_sample=act * ratio if act is not None else None,
        forward_peak_bytes_per_sample=peak * ratio if peak is not None else None,
        input_shape=(model.input_shape[0], side, side),
        embedding_tables=model.embedding_tables,
        operators=ops,
        lookups_per_table=model.lookups_per_table,
        repeats=model.repeats,  # each operator scaled alike: the runs stay identical
    )


def vit_image_side(model: TransformerArch) -> int | None:
    """The square image side a vision transformer's fixed sequence covers (its patches without
    [CLS], each `patch_side` pixels square), else None."""
    if not model.patch_inputs or not model.patch_side or not model.fixed_seq:
        return None
    per_side = math.isqrt(model.fixed_seq - 1)
    return per_side * model.patch_side if per_side * per_side == model.fixed_seq - 1 else None


def is_token_encoder(model: ModelArch) -> TypeGuard[TransformerArch]:
    """A bidirectional transformer over tokens (BERT, RoBERTa): the models a masked-LM head is trained on."""
    return isinstance(model, TransformerArch) and not model.causal and model.vocab > 0


def with_masked_lm_head(model: TransformerArch) -> TransformerArch:
    """The encoder as masked-LM training runs it: BERT's prediction head (transform and the projection tied
    to the token embedding, as transformers ties it) in place of a classifier."""
    return replace(model, lm_head=True, mlm_transform=True, classifier_labels=0)


def is_language_model(model: ModelArch) -> bool:
    """A transformer over tokens (decoder or encoder), the models the language-model training stacks
    (Megatron-LM, the HF Trainer) are for; not a vision transformer or a model described operator by operator."""
    return isinstance(model, TransformerArch) and image_input_side(model) is None


def image_input_side(model: ModelArch) -> int | None:
    """The square image side a model takes, where --image-size can change it: a CNN described
    operator by operator (`image_side`) or a vision transformer (`vit_image_side`); None when the
    model has no image input to resize."""
    if isinstance(model, TransformerArch):
        return vit_image_side(model)
    return image_side(model) if isinstance(model, GenericArch) else None


def vit_at_image_size(model: TransformerArch, side: int) -> TransformerArch:
    """The vision transformer `model` fed `side` x `side` images: the patch size stays, so the
    sequence becomes (side / patch)^2 patches plus [CLS], and the learned position embeddings are
    interpolated to that many positions (Dosovitskiy et al. 2021, section 3.2, fine-tuning at a
    higher resolution: 384 px gives ViT-B/16 577 tokens, not 197). Every per-token cost, and the
    attention's per-token-pair cost, follows from the longer sequence."""
    described = vit_image_side(model)
    if described is None or model.fixed_seq is None:
        raise ConfigError(f"{model.name} is not a vision transformer with a known patch size")
    if side % model.patch_side:
        raise ConfigError(
            f"{model.name} cuts images into {model.patch_side}-pixel patches: an image side of {side} is not a "
            f"multiple of {model.patch_side} (e.g. {max(1, side // model.patch_side) * model.patch_side})"
        )
    tokens = (side // model.patch_side) ** 2 + 1
    extra = model.extra_params + (tokens - model.fixed_seq) * model.hidden
    return replace(model, fixed_seq=tokens, max_seq=tokens, extra_params=extra)


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
        forward_peak_bytes_per_sample=_forward_peak(rows, batch, where),
        input_shape=tuple(shape),
        embedding_tables=tuple((int(r), int(d)) for r, d in tables),
        operators=ops,
    )
