"""Read a local Hugging Face `config.json` into a `TransformerArch` (no download, no transformers).

Each family's quirks (GPT-2's names, Falcon's multi-query, Gemma 2's alternating sliding window,
OPT's learned-position offset, ViT's patches) are handled here so that estimators see one shape.
A config with the standard fields but an unknown `model_type` is read as a Llama-like decoder.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from gpuwise.catalog.arch import TransformerArch
from gpuwise.errors import ConfigError

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
    "gemma",
    "gemma2",
    "phi3",
    "gpt2",
    "gpt_neox",
    "opt",
    "falcon",
    "bert",
    "vit",
)
_GATED_ACTS = {"silu", "swish", "swiglu", "geglu"}
# OPT reserves two extra learned position rows (OPTLearnedPositionalEmbedding offset).
_OPT_POSITION_OFFSET = 2


def load_hf_config(path: str | Path) -> TransformerArch:
    """Read `config.json` (or a folder holding one) into an architecture."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read model config {str(p)!r}: {exc.strerror or exc}") from None
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{p}: expected a JSON object with the model's configuration")
    name = cfg.get("_name_or_path") or p.parent.name or p.stem
    return arch_from_hf_config(cfg, name=str(name).split("/")[-1].lower(), where=str(p))


def _pick(cfg: dict[str, Any], field: str, where: str) -> int:
    for key in _ALIASES[field]:
        if cfg.get(key) is not None:
            return _positive_int(cfg[key], key, where)
    names = " or ".join(repr(k) for k in _ALIASES[field])
    raise ConfigError(f"{where}: missing field {names} (the model's {field} size)")


def _positive_int(value: Any, key: str, where: str) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)  # JSON's Infinity/NaN: int() would raise
        or value <= 0
        or value != int(value)
    ):
        raise ConfigError(f"{where}: field {key!r} must be a positive integer, got {value!r}")
    return int(value)


def _opt_int(cfg: dict[str, Any], keys: tuple[str, ...], where: str) -> int | None:
    for key in keys:
        if cfg.get(key) is not None:
            return _positive_int(cfg[key], key, where)
    return None


def _classic(*, bias: bool) -> dict[str, Any]:
    """GPT-2-era blocks: plain GELU MLP, LayerNorm, and one bias switch for every projection."""
    return {"gated_ffn": False, "norm": "layernorm", "qkv_bias": bias, "o_bias": bias, "mlp_bias": bias}


def arch_from_hf_config(cfg: dict[str, Any], name: str = "custom", where: str = "config") -> TransformerArch:
    """Map a config dict to a `TransformerArch`; missing or wrong fields raise `ConfigError`."""
    mt = str(cfg.get("model_type", "")).lower()
    h, layers, heads = _pick(cfg, "hidden", where), _pick(cfg, "layers", where), _pick(cfg, "heads", where)
    vocab = 0 if mt == "vit" else _pick(cfg, "vocab", where)
    if h % heads and cfg.get("head_dim") is None:
        raise ConfigError(f"{where}: hidden size {h} is not divisible by {heads} heads and no 'head_dim' is given")
    head_dim = _opt_int(cfg, ("head_dim",), where) or h // heads
    kv = _opt_int(cfg, ("num_key_value_heads", "num_kv_heads", "n_head_kv"), where) or heads
    if cfg.get("multi_query") and not cfg.get("new_decoder_architecture"):
        kv = 1  # Falcon-7B style multi-query attention
    if heads % kv:
        raise ConfigError(f"{where}: {heads} attention heads are not a multiple of {kv} key/value heads")
    ffn = _opt_int(cfg, ("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"), where) or 4 * h
    max_seq = _opt_int(cfg, ("max_position_embeddings", "n_positions", "n_ctx", "seq_length"), where) or 2048
    act = str(cfg.get("hidden_act") or cfg.get("hidden_activation") or cfg.get("activation_function") or "").lower()
    experts = _opt_int(cfg, ("num_local_experts", "num_experts", "n_routed_experts"), where) or 1
    top_k = _opt_int(cfg, ("num_experts_per_tok", "moe_top_k"), where) or (2 if experts > 1 else 1)
    window = _opt_int(cfg, ("sliding_window",), where)
    if cfg.get("use_sliding_window") is False:
        window = None

    def _rate(*keys: str) -> float:
        return max(float(cfg.get(k) or 0.0) for k in keys)

    dropout = _rate("hidden_dropout_prob", "resid_pdrop", "hidden_dropout", "dropout")
    attn_dropout = _rate("attention_probs_dropout_prob", "attn_pdrop", "attention_dropout")
    base: dict[str, Any] = dict(
        name=name,
        family=mt or "decoder",
        hidden=h,
        layers=layers,
        heads=heads,
        kv_heads=kv,
        head_dim=head_dim,
        ffn=ffn,
        vocab=vocab,
        max_seq=max_seq,
        gated_ffn=act in _GATED_ACTS or (act.startswith("gelu_pytorch_tanh") and mt.startswith("gemma")),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", mt in ("gpt2", "opt", "bert", "gemma", "gemma2"))),
        qkv_bias=bool(cfg.get("attention_bias", False)),
        o_bias=bool(cfg.get("attention_bias", False)),
        mlp_bias=bool(cfg.get("mlp_bias", False)),
        sliding_window=window,
        sliding_window_layers=layers if window else 0,
        experts=experts,
        experts_per_token=top_k if experts > 1 else 1,
        dropout=dropout,
        attention_dropout=attn_dropout,
    )
    if mt.startswith("gemma"):
        base["gated_ffn"] = True  # GeGLU
        base["tied_embeddings"] = bool(cfg.get("tie_word_embeddings", True))
    if mt == "gemma2":
        base["norms_per_layer"] = 4  # pre/post attention and pre/post feed-forward norms
        base["sliding_window_layers"] = layers // 2 if window else 0  # every other layer is local
    elif mt in ("qwen2", "qwen2_moe"):
        base["qkv_bias"] = True
    elif mt == "phi3":
        base["gated_ffn"] = True
    elif mt == "gpt2":
        base.update(
            **_classic(bias=True),
            learned_positions=max_seq,
            tied_embeddings=bool(cfg.get("tie_word_embeddings", True)),
        )
    elif mt == "gpt_neox":
        base.update(
            **_classic(bias=True),
            tied_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        )
    elif mt == "opt":
        proj = cfg.get("word_embed_proj_dim") or h
        bias = bool(cfg.get("enable_bias", True))
        base.update(
            **_classic(bias=bias),
            learned_positions=max_seq + _OPT_POSITION_OFFSET,
            tied_embeddings=bool(cfg.get("tie_word_embeddings", True)),
            final_norm=bool(cfg.get("do_layer_norm_before", True)),
            extra_params=0 if proj == h else 2 * proj * h,
        )
        if proj != h:  # embeddings live at the projection width
            base["extra_params"] -= (vocab + max_seq + _OPT_POSITION_OFFSET) * (h - proj)
    elif mt == "falcon":
        bias = bool(cfg.get("bias", False))
        new_arch = bool(cfg.get("new_decoder_architecture"))
        base.update(
            **_classic(bias=bias),
            tied_embeddings=bool(cfg.get("tie_word_embeddings", True)),
            norms_per_layer=2 if new_arch or not cfg.get("parallel_attn", True) else 1,
        )
    elif mt == "bert":
        base.update(
            **_classic(bias=True),
            learned_positions=max_seq,
            type_vocab=int(cfg.get("type_vocab_size", 2)),
            causal=False,
            lm_head=False,
            final_norm=False,
            embedding_norm=True,
            pooler=True,
        )
    elif mt == "vit":
        image = _opt_int(cfg, ("image_size",), where) or 224
        patch = _opt_int(cfg, ("patch_size",), where) or 16
        chans = _opt_int(cfg, ("num_channels",), where) or 3
        tokens = (image // patch) ** 2 + 1  # patches plus the [CLS] token
        labels = len(cfg.get("id2label") or {}) or int(cfg.get("num_labels") or 0)
        bias = bool(cfg.get("qkv_bias", True))
        base.update(_classic(bias=True))
        base.update(
            qkv_bias=bias,
            causal=False,
            lm_head=False,
            classifier_labels=labels,
            fixed_seq=tokens,
            max_seq=tokens,
            extra_params=chans * patch * patch * h + h + h + tokens * h,
        )
    elif mt not in _SUPPORTED and not base["gated_ffn"] and act == "":
        base["gated_ffn"] = True  # unknown family without an activation: assume Llama-like SwiGLU
    try:
        return TransformerArch(**base)
    except (TypeError, ValueError) as exc:  # pragma: no cover - guarded by the checks above
        raise ConfigError(f"{where}: {exc}") from None
