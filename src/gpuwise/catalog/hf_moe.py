"""Mixture-of-experts stacks and multi-head latent attention from a Hugging Face config.

Which blocks route to experts, how wide the experts and the always-active shared expert are, and
how wide the dense blocks among them are, as each family's modeling code decides it:

- Qwen2-MoE / Qwen3-MoE: block i routes unless it is in `mlp_only_layers`, and only every
  `decoder_sparse_step`-th block does ((i + 1) % step == 0); Qwen2-MoE adds one shared expert of
  `shared_expert_intermediate_size` behind a sigmoid gate (h -> 1), Qwen3-MoE has none.
- DeepSeek-V2/V3: blocks from `first_k_dense_replace` on route (every `moe_layer_freq`-th), with
  `n_shared_experts` shared experts of the routed width; dense blocks are `intermediate_size` wide.
  GLM-4.5/4.6 (`glm4_moe`) lays its experts out the same way (its class has no `moe_layer_freq`; a
  config that names one is read as DeepSeek's).
- Llama 4: `moe_layers` (default every `interleave_moe_layer_step`-th block) route to one of
  `num_local_experts` plus a shared expert, both `intermediate_size` wide; the others are dense
  MLPs `intermediate_size_mlp` wide.
- Mixtral, OLMoE and other identical-block MoEs: every block routes, no shared expert.

MLA (DeepSeek): `q_lora_rank` (null: queries projected directly), `kv_lora_rank`,
`qk_nope_head_dim`, `qk_rope_head_dim`, `v_head_dim`; `num_nextn_predict_layers` multi-token
prediction modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuwise.errors import ConfigError

# families whose MoE blocks follow DeepSeek's layout (leading dense blocks, shared experts of the routed width)
_DEEPSEEK_LAYOUT = ("deepseek_v2", "deepseek_v3", "glm4_moe")

# (key, smallest allowed) -> the config's whole number, or None where it gives none
Whole = Callable[[str, int], "int | None"]


def _index_list(cfg: dict[str, Any], key: str, layers: int, where: str) -> set[int]:
    value = cfg.get(key) or []
    if not isinstance(value, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < layers for i in value
    ):
        raise ConfigError(f"{where}: field {key!r} must be a list of layer indices from 0 to {layers - 1}")
    return set(value)


def routed_blocks(cfg: dict[str, Any], mt: str, layers: int, whole: Whole, where: str) -> int:
    """How many of the `layers` blocks route to experts (the rest have a dense MLP)."""
    if mt in ("qwen2_moe", "qwen3_moe"):
        dense = _index_list(cfg, "mlp_only_layers", layers, where)
        step = whole("decoder_sparse_step", 1) or 1
        return sum(1 for i in range(layers) if i not in dense and (i + 1) % step == 0)
    if mt in _DEEPSEEK_LAYOUT:
        first = whole("first_k_dense_replace", 0) or 0
        freq = whole("moe_layer_freq", 1) or 1
        return sum(1 for i in range(layers) if i >= first and i % freq == 0)
    if mt == "llama4_text":
        if cfg.get("moe_layers") is not None:
            return len(_index_list(cfg, "moe_layers", layers, where))
        step = whole("interleave_moe_layer_step", 1) or 1
        return len(range(step - 1, layers, step))
    return layers


def shared_expert(cfg: dict[str, Any], mt: str, expert_width: int, whole: Whole) -> tuple[int, bool]:
    """(width of the shared expert, whether a sigmoid gate scales it) in each MoE block."""
    if mt == "qwen2_moe":
        width = whole("shared_expert_intermediate_size", 1) or 0
        return width, width > 0
    if mt in _DEEPSEEK_LAYOUT:
        return (whole("n_shared_experts", 0) or 0) * expert_width, False
    if mt == "llama4_text":
        return expert_width, False  # Llama4TextMoe: a shared expert as wide as each routed one
    return 0, False


def moe_fields(cfg: dict[str, Any], mt: str, layers: int, dense_width: int, whole: Whole, where: str) -> dict[str, Any]:
    """`TransformerArch` fields of a MoE stack (the routed experts' width is `ffn`)."""
    experts = whole("num_local_experts", 1) or whole("num_experts", 1) or whole("n_routed_experts", 1) or 1
    top_k = whole("num_experts_per_tok", 1) or whole("moe_top_k", 1) or (2 if experts > 1 else 1)
    if experts <= 1:
        return {}
    if top_k > experts:
        raise ConfigError(f"{where}: {top_k} experts per token out of {experts}")
    # Qwen-MoE, DeepSeek, OLMoE: `intermediate_size` is a dense block's width, the experts' is this;
    # Llama 4: `intermediate_size` is the experts' and `intermediate_size_mlp` the dense blocks'
    if mt == "llama4_text":
        ffn, dense = dense_width, whole("intermediate_size_mlp", 1) or dense_width
    else:
        ffn, dense = whole("moe_intermediate_size", 1) or dense_width, dense_width
    routed = routed_blocks(cfg, mt, layers, whole, where)
    if routed == 0:
        raise ConfigError(f"{where}: no block routes to its {experts} experts (check the MoE layer settings)")
    shared, gate = shared_expert(cfg, mt, ffn, whole)
    return {
        "experts": experts,
        "experts_per_token": top_k,
        "ffn": ffn,
        "shared_ffn": shared,
        "shared_expert_gate": gate,
        "dense_layers": layers - routed,
        "dense_ffn": dense if routed < layers else 0,
    }


def mla_fields(cfg: dict[str, Any], whole: Whole, where: str) -> dict[str, Any]:
    """Multi-head latent attention and multi-token prediction (DeepSeek-V2/V3); {} without a KV latent."""
    kv_rank = whole("kv_lora_rank", 1)
    if not kv_rank:
        return {}
    out = {
        "q_lora_rank": whole("q_lora_rank", 1) or 0,
        "kv_lora_rank": kv_rank,
        "qk_nope_head_dim": whole("qk_nope_head_dim", 1),
        "qk_rope_head_dim": whole("qk_rope_head_dim", 1),
        "v_head_dim": whole("v_head_dim", 1),
        "mtp_layers": whole("num_nextn_predict_layers", 0) or 0,
    }
    missing = [k for k in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim") if out[k] is None]
    if missing:
        raise ConfigError(f"{where}: multi-head latent attention needs {', '.join(repr(k) for k in missing)}")
    return out


__all__ = ["mla_fields", "moe_fields", "routed_blocks", "shared_expert"]
