"""Read a local Hugging Face `config.json` into a `TransformerArch` (no download, no transformers).

Each config is read with the defaults of its `model_type`'s configuration class
(gpuwise.catalog.hf_defaults), then each family's quirks (GPT-2's names, Falcon's multi-query,
Gemma 2's alternating sliding window, OPT's learned-position offset, ViT's patches, Qwen3's
query/key norms, ChatGLM's remote-code names, GPTBigCode's multi-query attention) are handled here so that estimators see one shape. What cannot be read
faithfully is refused with the reason, never guessed: an unknown `model_type`, an encoder-decoder
(gpuwise.catalog.encoder_decoder), a config whose count disagrees with the checkpoint beside it
(gpuwise.catalog.checkpoint_index).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuwise.catalog import encoder_decoder
from gpuwise.catalog.arch import TransformerArch
from gpuwise.catalog.checkpoint_index import check_against_checkpoint
from gpuwise.catalog.hf_defaults import ENCODER_DECODER, FFN_FROM_HIDDEN, TEXT_CONFIG, with_class_defaults
from gpuwise.catalog.hf_moe import mla_fields, moe_fields
from gpuwise.errors import ConfigError, shorten
from gpuwise.files import parse_json, read_text

_ALIASES: dict[str, tuple[str, ...]] = {
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "heads": ("num_attention_heads", "n_head", "num_heads"),
    "vocab": ("vocab_size", "padded_vocab_size"),
}
_SUPPORTED = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "deepseek_v2",
    "deepseek_v3",
    "llama4",
    "llama4_text",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "phi3",
    "glm",
    "glm4",
    "glm4_moe",
    "chatglm",
    "gpt2",
    "gpt_bigcode",
    "gpt_neox",
    "gpt_oss",
    "opt",
    "falcon",
    "bert",
    "roberta",
    "vit",
)
_GATED_ACTS = {"silu", "swish", "swiglu", "geglu"}
# OPT reserves two extra learned position rows (OPTLearnedPositionalEmbedding offset).
_OPT_POSITION_OFFSET = 2
# RoBERTa's position ids start after its padding index (1): two rows of the table are never a position.
_ROBERTA_POSITION_OFFSET = 2
# No released model has a dimension, layer count or vocabulary near 2^31; a larger value is a typo
# (or hostile), and bounding it keeps every size the estimators derive a finite float.
MAX_DIMENSION = 2**31 - 1


def load_hf_config(path: str | Path) -> TransformerArch:
    """Read `config.json` (or a folder holding one) into an architecture."""
    p = Path(path)
    try:
        p = p / "config.json" if p.is_dir() else p
    except OSError as exc:  # a name too long for the file system
        raise ConfigError(f"cannot read model config {str(p)[:200]!r}: {exc.strerror or exc}") from None
    cfg = _read_config(p)
    if not isinstance(cfg, dict):
        raise ConfigError(f"{p}: expected a JSON object with the model's configuration")
    arch = arch_from_hf_config(cfg, name=_model_name(cfg, p), where=str(p))
    check_against_checkpoint(arch.checkpoint_params, p.parent, cfg, str(p))
    return arch


def _read_config(p: Path) -> Any:
    """The JSON of a config file, read as untrusted (bounded size and depth, UTF-8, finite numbers)."""
    return parse_json(read_text(p, "model config"), str(p))


def _model_name(cfg: dict[str, Any], path: Path) -> str:
    """The id a config is known by: the last part of `_name_or_path` (a Hub id or a local folder),
    else the file's stem, else (a file called `config.json`) its folder's name; lower-cased."""
    given = cfg.get("_name_or_path")
    if isinstance(given, str):
        parts = [part for part in given.replace("\\", "/").split("/") if part.strip()]
        if parts:
            return parts[-1].strip().lower()
    if path.stem.lower() != "config":
        return path.stem.lower()
    return (path.parent.name or path.resolve().parent.name or path.stem).lower()


def _pick(cfg: dict[str, Any], field: str, where: str) -> int:
    for key in _ALIASES[field]:
        if cfg.get(key) is not None:
            return _positive_int(cfg[key], key, where)
    names = " or ".join(repr(k) for k in _ALIASES[field])
    raise ConfigError(f"{where}: missing field {names} (the model's {field} size)")


def _shown(value: Any) -> str:
    return shorten(repr(value))


def _whole(value: Any, key: str, where: str, low: int) -> int:
    """A whole number from `low` to MAX_DIMENSION (2.0 is read as 2), else a ConfigError naming `key`."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not math.isfinite(value))  # int() would raise
        or not low <= value <= MAX_DIMENSION
        or value != int(value)
    ):
        kind = "a positive integer" if low > 0 else "a whole number, 0 or more,"
        raise ConfigError(f"{where}: field {key!r} must be {kind} at most {MAX_DIMENSION}, got {_shown(value)}")
    return int(value)


def _positive_int(value: Any, key: str, where: str) -> int:
    return _whole(value, key, where, 1)


_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def _flag(cfg: dict[str, Any], key: str, default: bool, where: str) -> bool:
    """A config switch: JSON true/false, 1/0, or a string such as "yes", "no", "false" (remote-code
    configs write them so); absent or null is the class default; anything else a ConfigError naming `key`."""
    value = cfg.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    word = value.strip().lower() if isinstance(value, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise ConfigError(f"{where}: field {key!r} must be true or false, got {_shown(value)}")


def _count(cfg: dict[str, Any], key: str, default: int, where: str) -> int:
    """An optional count that may be 0 (token types, labels)."""
    value = cfg.get(key)
    return default if value is None else _whole(value, key, where, 0)


def _rate(cfg: dict[str, Any], keys: tuple[str, ...], where: str) -> float:
    """The largest of the dropout rates a config names (0 when none): each a number from 0 to 1."""
    rates = [0.0]
    for key in keys:
        value = cfg.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ConfigError(f"{where}: field {key!r} must be a rate from 0 to 1, got {_shown(value)}")
        rates.append(float(value))
    return max(rates)


def _opt_int(cfg: dict[str, Any], keys: tuple[str, ...], where: str) -> int | None:
    for key in keys:
        if cfg.get(key) is not None:
            return _positive_int(cfg[key], key, where)
    return None


def _classic(*, bias: bool) -> dict[str, Any]:
    """GPT-2-era blocks: plain GELU MLP, LayerNorm, and one bias switch for every projection."""
    return {"gated_ffn": False, "norm": "layernorm", "qkv_bias": bias, "o_bias": bias, "mlp_bias": bias}


def _attention_shape(cfg: dict[str, Any], mt: str, where: str) -> dict[str, int]:
    """Hidden size, layers, heads, vocabulary, key/value heads and head width, checked against each other."""
    h, layers, heads = _pick(cfg, "hidden", where), _pick(cfg, "layers", where), _pick(cfg, "heads", where)
    vocab = 0 if mt == "vit" else _pick(cfg, "vocab", where)
    if h % heads and cfg.get("head_dim") is None:
        raise ConfigError(f"{where}: hidden size {h} is not divisible by {heads} heads and no 'head_dim' is given")
    head_dim = _opt_int(cfg, ("head_dim",), where) or h // heads
    kv = _opt_int(cfg, ("num_key_value_heads", "num_kv_heads", "n_head_kv"), where) or heads
    if _flag(cfg, "multi_query", False, where) and not _flag(cfg, "new_decoder_architecture", False, where):
        kv = 1  # Falcon-7B style multi-query attention
    if heads % kv:
        raise ConfigError(f"{where}: {heads} attention heads are not a multiple of {kv} key/value heads")
    return {"hidden": h, "layers": layers, "heads": heads, "vocab": vocab, "kv_heads": kv, "head_dim": head_dim}


def _activation(cfg: dict[str, Any]) -> str:
    """The MLP activation under any of its names, lower-cased; '' when the config names none."""
    return str(cfg.get("hidden_act") or cfg.get("hidden_activation") or cfg.get("activation_function") or "").lower()


def _wholes(cfg: dict[str, Any], where: str) -> Callable[[str, int], int | None]:
    """A reader of optional whole numbers of `cfg`: (key, smallest allowed) -> value or None."""
    return lambda key, low: None if cfg.get(key) is None else _whole(cfg[key], key, where, low)


def _mlp_width(cfg: dict[str, Any], mt: str, hidden: int, where: str) -> int:
    """The MLP width; only GPT-2 and Falcon derive it (4 x hidden) when the config gives none."""
    width = _opt_int(cfg, ("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"), where)
    if width is not None:
        return width
    if mt in FFN_FROM_HIDDEN:
        return FFN_FROM_HIDDEN[mt] * hidden
    raise ConfigError(
        f"{where}: missing field 'intermediate_size' (the MLP width); its {mt} class would take the width of one "
        "particular model, so give it explicitly"
    )


def _common_fields(cfg: dict[str, Any], mt: str, name: str, where: str) -> dict[str, Any]:
    """`TransformerArch` fields read the same way for every family (`cfg` holds its class defaults)."""
    shape = _attention_shape(cfg, mt, where)
    h, layers = shape["hidden"], shape["layers"]
    ffn = _mlp_width(cfg, mt, h, where)
    max_seq = _opt_int(cfg, ("max_position_embeddings", "n_positions", "n_ctx", "seq_length"), where) or 2048
    act = _activation(cfg)
    moe = moe_fields(cfg, mt, layers, ffn, _wholes(cfg, where), where)
    window = _opt_int(cfg, ("sliding_window",), where)
    if not _flag(cfg, "use_sliding_window", True, where):
        window = None
    return dict(
        name=name,
        family=mt or "decoder",
        **shape,
        max_seq=max_seq,
        gated_ffn=act in _GATED_ACTS or (act.startswith("gelu_pytorch_tanh") and mt.startswith("gemma")),
        tied_embeddings=_flag(cfg, "tie_word_embeddings", False, where),
        qkv_bias=_flag(cfg, "attention_bias", False, where),
        o_bias=_flag(cfg, "attention_bias", False, where),
        mlp_bias=_flag(cfg, "mlp_bias", False, where),
        sliding_window=window,
        sliding_window_layers=layers if window else 0,
        **{"ffn": ffn, **moe},
        dropout=_rate(cfg, ("hidden_dropout_prob", "resid_pdrop", "hidden_dropout", "dropout"), where),
        attention_dropout=_rate(cfg, ("attention_probs_dropout_prob", "attn_pdrop", "attention_dropout"), where),
        fp8_weight_block=_fp8_weight_block(cfg, where),
    )


def _fp8_weight_block(cfg: dict[str, Any], where: str) -> int:
    """The block size (rows) of a block-scaled FP8 checkpoint (`quantization_config` with `quant_method` fp8
    and a `weight_block_size`, DeepSeek-V3's [128, 128]), 0 for any other checkpoint."""
    quant = cfg.get("quantization_config")
    if not isinstance(quant, dict) or str(quant.get("quant_method", "")).lower() != "fp8":
        return 0
    block = quant.get("weight_block_size")
    if block is None:
        return 0  # per-tensor or per-channel FP8
    ok = isinstance(block, list) and len(block) == 2 and all(type(b) is int and b > 0 for b in block)
    if not ok:
        raise ConfigError(f"{where}: quantization_config.weight_block_size must be two positive whole numbers")
    return int(block[0])


def _gemma(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """Every Gemma: GeGLU MLP, embeddings tied unless the config says otherwise."""
    base["gated_ffn"] = True
    base["tied_embeddings"] = _flag(cfg, "tie_word_embeddings", True, where)


def _gemma2(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    base["norms_per_layer"] = 4  # pre/post attention and pre/post feed-forward norms
    base["sliding_window_layers"] = base["layers"] // 2 if base["sliding_window"] else 0  # every other layer is local


def _local_layers(cfg: dict[str, Any], layers: int, where: str) -> int | None:
    """How many blocks `layer_types` names sliding_attention (None: the config has no list); transformers
    refuses a malformed one, and so does gpuwise."""
    kinds = cfg.get("layer_types")
    if kinds is None:
        return None
    if (
        not isinstance(kinds, list)
        or len(kinds) != layers
        or not all(k in ("sliding_attention", "full_attention") for k in kinds)
    ):
        raise ConfigError(
            f"{where}: layer_types must name each of the {layers} layers sliding_attention or full_attention"
        )
    return sum(1 for k in kinds if k == "sliding_attention")


def _gemma3(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """Gemma 3: Gemma 2's four norms a block plus an RMSNorm over each head's queries and keys; the
    local (sliding-window) blocks are those `layer_types` names (the later releases' spelling, the 270M's
    config), else all but every `sliding_window_pattern`-th (five local to one global at the class's 6)."""
    base["norms_per_layer"] = 4
    base["qk_norm"] = True
    layers = base["layers"]
    local = _local_layers(cfg, layers, where)
    if local is None:
        pattern = _whole(cfg.get("sliding_window_pattern"), "sliding_window_pattern", where, 1)
        local = layers - layers // pattern
    base["sliding_window_layers"] = local if base["sliding_window"] else 0


def _gpt_oss(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """gpt-oss (GptOssConfig): every block routes (no shared expert); each expert's gate/up and down projections
    carry biases (gate_up_proj_bias, down_proj_bias), as do q, k, v and o; the sliding-window blocks are those
    `layer_types` names, else every other one from the first (the class's default alternation). Its attention
    sinks (one logit a head) and the router's bias, under 200 parameters a block (2,304 in the 20b, 6,912 in the
    120b), are not counted."""
    base["mlp_bias"] = True
    layers = base["layers"]
    local = _local_layers(cfg, layers, where)
    if local is None:
        local = (layers + 1) // 2  # GptOssConfig: sliding_attention where (i + 1) is odd
    base["sliding_window_layers"] = local if base["sliding_window"] else 0


def _siglip_tower(vision: Any, text_hidden: int, where: str) -> int:
    """Parameters of a Gemma 3 checkpoint's SigLIP vision tower and its projector (Gemma3MultiModalProjector:
    an RMSNorm over the tower's width, then a bias-free projection to the text width): the weights sit on
    the GPU beside the language model even when no image is served."""
    if not isinstance(vision, dict):
        raise ConfigError(f"{where}: a gemma3 config holds its vision tower under 'vision_config' (an object)")
    v, at = with_class_defaults(vision, "siglip_vision_model"), f"{where} vision_config"
    if _flag(v, "vision_use_head", True, at):
        raise ConfigError(f"{at}: a SigLIP tower with its pooling head (vision_use_head) is not Gemma 3's; not read")
    h, ffn, layers, side, patch, chans = (
        _size(v, k, at)
        for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "image_size", "patch_size", "num_channels")
    )
    embed = chans * patch * patch * h + h + (side // patch) ** 2 * h  # patch convolution with bias, positions
    block = 4 * (h * h + h) + (h * ffn + ffn) + (ffn * h + h) + 2 * 2 * h  # q, k, v, out; fc1, fc2; two LayerNorms
    return embed + layers * block + 2 * h + (h * text_hidden + h)  # post-LayerNorm; the projector


def _qwen2(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    base["qkv_bias"] = True  # Qwen2Attention builds q, k and v with a bias whatever the config says


def _qwen3(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    base["qk_norm"] = True  # q_norm and k_norm: an RMSNorm over each head's queries and keys


def _deepseek(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """Multi-head latent attention and multi-token prediction modules (DeepSeek-V2/V3)."""
    base.update(mla_fields(cfg, _wholes(cfg, where), where))


def _llama4(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """Llama 4: the RoPE blocks attend within chunks of `attention_chunk_size` tokens (their KV cache
    is capped like a sliding window's); every `no_rope_layer_interval`-th block (NoPE) attends to
    the whole context. Its query/key norm is an L2 norm without weights."""
    chunk = _opt_int(cfg, ("attention_chunk_size",), where)
    layers = base["layers"]
    flags = cfg.get("no_rope_layers")
    if isinstance(flags, list) and flags:
        chunked = sum(1 for f in flags[:layers] if f)
    else:
        interval = _opt_int(cfg, ("no_rope_layer_interval",), where) or 4
        chunked = sum(1 for i in range(layers) if (i + 1) % interval)
    base.update(sliding_window=chunk, sliding_window_layers=chunked if chunk else 0)


def _phi3(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    base["gated_ffn"] = True


def _gpt2(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    base.update(
        **_classic(bias=True),
        learned_positions=base["max_seq"],
        tied_embeddings=_flag(cfg, "tie_word_embeddings", True, where),
    )


def _glm(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """GLM-4 in transformers (GlmAttention): q, k and v carry the bias `attention_bias` sets, o_proj none;
    the MLP is one fused gate-up projection (gated SiLU). Glm4 (GLM-4-0414) adds a norm after attention
    and one after the MLP."""
    base["o_bias"] = False
    base["gated_ffn"] = True


def _glm4(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    _glm(cfg, base, where)
    base["norms_per_layer"] = 4  # input, post-attention, post-self-attention and post-MLP norms


def _glm4_moe(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """GLM-4.5/4.6 in transformers (Glm4MoeAttention is GLM-4's: q, k and v biased by `attention_bias`,
    o_proj never), two norms a block, an RMSNorm over each head's queries and keys when `use_qk_norm`;
    the checkpoint's `num_nextn_predict_layers` multi-token prediction block (a MoE block with DeepSeek-V3's
    projection and norms) sits outside the model transformers loads. `checkpoint_params` counts it with
    DeepSeek's own copies of the embedding and head, which GLM-4.6's checkpoint does not store (0.4 % more)."""
    base["o_bias"] = False
    base["qk_norm"] = _flag(cfg, "use_qk_norm", False, where)
    base["mtp_layers"] = _wholes(cfg, where)("num_nextn_predict_layers", 0) or 0


def _chatglm_keys(cfg: dict[str, Any], where: str) -> dict[str, Any]:
    """ChatGLM's remote-code names read as the common ones: `kv_channels` is the head width,
    `multi_query_group_num` the key/value heads when `multi_query_attention` is on (every head its
    own otherwise), `ffn_hidden_size` the width of each half of the SwiGLU, `num_layers` the layers,
    `padded_vocab_size` the vocabulary, `seq_length` the context. A missing or wrong one is named as
    the config spells it."""
    out = {**cfg, "hidden_act": "swiglu", "head_dim": _size(cfg, "kv_channels", where)}
    for common, own in (("num_hidden_layers", "num_layers"), ("vocab_size", "padded_vocab_size")):
        if cfg.get(common) is None:
            out[common] = _size(cfg, own, where)
    if cfg.get("intermediate_size") is None:
        out["intermediate_size"] = _size(cfg, "ffn_hidden_size", where)
    if _flag(cfg, "multi_query_attention", False, where):
        out["num_key_value_heads"] = _size(cfg, "multi_query_group_num", where)
    if cfg.get("seq_length") is not None:
        out.setdefault("max_position_embeddings", cfg["seq_length"])
    return out


def _chatglm(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """ChatGLM2/3 and GLM-4 (remote code): q, k and v biased by `add_qkv_bias`, the other linears by
    `add_bias_linear`; RMSNorm unless `rmsnorm` is off; the final norm when `post_layer_norm`; the
    output layer its own nn.Linear (the model never ties it, whatever `tie_word_embeddings` says)."""
    bias = _flag(cfg, "add_bias_linear", False, where)
    base.update(
        qkv_bias=_flag(cfg, "add_qkv_bias", False, where),
        o_bias=bias,
        mlp_bias=bias,
        norm="rmsnorm" if _flag(cfg, "rmsnorm", True, where) else "layernorm",
        final_norm=_flag(cfg, "post_layer_norm", True, where),
        tied_embeddings=False,
    )


def _gpt_bigcode(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """GPTBigCode (StarCoder, octocoder): GPT-2's block with multi-query attention (one key/value head
    when `multi_query`, the class default), every linear biased, learned positions, the head tied."""
    _gpt2(cfg, base, where)


def _gpt_neox(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    base.update(**_classic(bias=True), tied_embeddings=_flag(cfg, "tie_word_embeddings", False, where))


def _opt(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """OPT: learned positions with an offset; embeddings may live at a narrower projection width."""
    h, vocab, max_seq = base["hidden"], base["vocab"], base["max_seq"]
    proj = _opt_int(cfg, ("word_embed_proj_dim",), where) or h
    base.update(
        **_classic(bias=_flag(cfg, "enable_bias", True, where)),
        learned_positions=max_seq + _OPT_POSITION_OFFSET,
        tied_embeddings=_flag(cfg, "tie_word_embeddings", True, where),
        final_norm=_flag(cfg, "do_layer_norm_before", True, where),
        extra_params=0 if proj == h else 2 * proj * h,
    )
    if proj != h:  # embeddings live at the projection width
        base["extra_params"] -= (vocab + max_seq + _OPT_POSITION_OFFSET) * (h - proj)


def _falcon(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """Falcon: one norm per block with parallel attention, two in the new decoder architecture."""
    new_arch = _flag(cfg, "new_decoder_architecture", False, where)
    base.update(
        **_classic(bias=_flag(cfg, "bias", False, where)),
        tied_embeddings=_flag(cfg, "tie_word_embeddings", True, where),
        norms_per_layer=2 if new_arch or not cfg.get("parallel_attn", True) else 1,
    )


def _labels(cfg: dict[str, Any], where: str) -> int:
    """The classifier's labels: id2label's entries, else num_labels, else none."""
    id2label = cfg.get("id2label") or {}
    if not isinstance(id2label, dict):
        raise ConfigError(f"{where}: field 'id2label' must be an object (label id -> name), got {_shown(id2label)}")
    return len(id2label) or _count(cfg, "num_labels", 0, where)


def _bert(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """BERT: post-norm layers with biases, learned positions and token types, the pooler; a sequence
    classifier (architectures *ForSequenceClassification) adds its hidden x labels head."""
    archs = cfg.get("architectures") or []
    classifies = isinstance(archs, list) and any(str(a).endswith("ForSequenceClassification") for a in archs)
    base.update(
        **_classic(bias=True),
        learned_positions=base["max_seq"],
        type_vocab=_count(cfg, "type_vocab_size", 2, where),
        causal=False,
        lm_head=False,
        # a masked-LM head's projection is the word embedding unless the config unties it (PretrainedConfig's default)
        tied_embeddings=_flag(cfg, "tie_word_embeddings", True, where),
        final_norm=False,
        embedding_norm=True,
        pooler=True,
        classifier_labels=_labels(cfg, where) if classifies else 0,
    )


def _roberta(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """RoBERTa (transformers' RobertaModel): BERT's layers and embeddings, its position table two rows
    longer than the longest sequence (padding_idx + 1 offsets the positions: 514 rows for 512 tokens)
    and one token type; a sequence classifier's dense + tanh + out_proj head holds what BERT's pooler and
    classifier do (hidden x hidden, hidden x labels)."""
    _bert(cfg, base, where)
    rows = base["max_seq"]
    base.update(
        learned_positions=rows,
        max_seq=max(rows - _ROBERTA_POSITION_OFFSET, 1),
        type_vocab=_count(cfg, "type_vocab_size", 1, where),
    )


def _vit(cfg: dict[str, Any], base: dict[str, Any], where: str) -> None:
    """ViT: a fixed sequence of patches plus [CLS]; patch embedding, [CLS] and positions as extras."""
    h = base["hidden"]
    image = _opt_int(cfg, ("image_size",), where) or 224
    patch = _opt_int(cfg, ("patch_size",), where) or 16
    chans = _opt_int(cfg, ("num_channels",), where) or 3
    tokens = (image // patch) ** 2 + 1  # patches plus the [CLS] token
    labels = _labels(cfg, where)
    base.update(_classic(bias=True))
    base.update(
        qkv_bias=_flag(cfg, "qkv_bias", True, where),
        causal=False,
        lm_head=False,
        classifier_labels=labels,
        fixed_seq=tokens,
        max_seq=tokens,
        patch_inputs=chans * patch * patch,
        patch_side=patch,
        extra_params=chans * patch * patch * h + h + h + tokens * h,
    )


def _gemma3_tower(outer: dict[str, Any], text_hidden: int, where: str) -> int:
    return _siglip_tower(outer.get("vision_config"), text_hidden, where)


# multimodal wrappers (TEXT_CONFIG) whose other towers' weights count: (wrapper config, text width, where) -> params
_WRAPPER_PARAMS: dict[str, Callable[[dict[str, Any], int, str], int]] = {"gemma3": _gemma3_tower}

_Family = Callable[[dict[str, Any], dict[str, Any], str], None]
_FAMILIES: dict[str, _Family] = {
    "gemma2": _gemma2,
    "gemma3_text": _gemma3,
    "qwen2": _qwen2,
    "qwen2_moe": _qwen2,
    "qwen3": _qwen3,
    "qwen3_moe": _qwen3,
    "deepseek_v2": _deepseek,
    "deepseek_v3": _deepseek,
    "llama4_text": _llama4,
    "phi3": _phi3,
    "glm": _glm,
    "glm4": _glm4,
    "glm4_moe": _glm4_moe,
    "chatglm": _chatglm,
    "gpt2": _gpt2,
    "gpt_bigcode": _gpt_bigcode,
    "gpt_neox": _gpt_neox,
    "gpt_oss": _gpt_oss,
    "opt": _opt,
    "falcon": _falcon,
    "bert": _bert,
    "roberta": _roberta,
    "vit": _vit,
}


def _size(cfg: dict[str, Any], key: str, where: str) -> int:
    if cfg.get(key) is None:
        raise ConfigError(f"{where}: missing field {key!r}")
    return _positive_int(cfg[key], key, where)


def _refuse_unreadable(cfg: dict[str, Any], mt: str, name: str, where: str) -> None:
    """An encoder-decoder (counted, then refused) or a family whose defaults gpuwise does not know."""
    if mt in ENCODER_DECODER or _flag(cfg, "is_encoder_decoder", False, where):
        raise encoder_decoder.refuse(cfg, mt, name, where, lambda key: _size(cfg, key, where))
    if mt not in _SUPPORTED:
        raise ConfigError(
            f"{where}: model_type {shorten(repr(mt or None))} is not one gpuwise reads ({', '.join(_SUPPORTED)}): "
            "its class's defaults and block shape are unknown here, and reading it as another family would be a "
            'guess. If the model is built exactly like Llama, set "model_type": "llama"'
        )


def arch_from_hf_config(cfg: dict[str, Any], name: str = "custom", where: str = "config") -> TransformerArch:
    """Map a config dict to a `TransformerArch`; missing or wrong fields raise `ConfigError`, and so
    does a config that cannot be read faithfully (an unknown family, an encoder-decoder)."""
    mt = str(cfg.get("model_type", "")).lower()
    _refuse_unreadable(cfg, mt, name, where)
    outer, wrapper = cfg, mt
    if mt in TEXT_CONFIG:  # a multimodal wrapper: the language model's config is nested
        text = cfg.get("text_config")
        if not isinstance(text, dict):
            raise ConfigError(f"{where}: a {mt} config holds its language model under 'text_config' (an object)")
        mt, cfg = TEXT_CONFIG[mt], {**text, "model_type": TEXT_CONFIG[mt]}
    cfg = with_class_defaults(cfg, mt)
    if mt == "chatglm":
        cfg = _chatglm_keys(cfg, where)
    base = _common_fields(cfg, mt, name, where)
    if mt.startswith("gemma"):
        _gemma(cfg, base, where)
    family = _FAMILIES.get(mt)
    if family is not None:
        family(cfg, base, where)
    if wrapper in _WRAPPER_PARAMS:
        base["extra_params"] = base.get("extra_params", 0) + _WRAPPER_PARAMS[wrapper](outer, base["hidden"], where)
    try:
        return TransformerArch(**base)
    except (TypeError, ValueError) as exc:  # pragma: no cover - guarded by the checks above
        raise ConfigError(f"{where}: {exc}") from None
