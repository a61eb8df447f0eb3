"""What each Hugging Face configuration class assumes for a field its config.json leaves out.

A config.json holds only what differs from its class's defaults (and often not even all of that:
a Qwen2 config without `hidden_act` is still a gated SiLU MLP, because Qwen2Config says "silu").
Reading a config faithfully therefore starts from the class's own defaults, per `model_type`.
The values are those of the configuration classes in huggingface/transformers
(src/transformers/models/<family>/configuration_<family>.py, read at commit 008e57439125 for
llama, mixtral, qwen2, qwen3, qwen3_moe, gemma, gemma2, phi3, llama4; 008f5c8c29be for gemma3 and its
SigLIP vision tower; 001f85b38fb4 for mistral and
deepseek_v3; c7ec229ad64c for glm4_moe; 02b8f42b4240 for gpt_oss; qwen2_moe from Qwen2MoeConfig's documented defaults; GPTBigCodeConfig, GlmConfig and
Glm4Config as transformers documents them; ChatGLMConfig from the remote code THUDM ships beside
ChatGLM2/3 and GLM-4's checkpoints, configuration_chatglm.py). Only the behaviour and shape switches are listed: a config missing a SIZE (hidden,
layers, heads, vocabulary, MLP width) is refused instead, since the class default is the size of
one particular model and taking it would read a truncated file as another model. The one exception
is Gemma 3, whose own published configs leave the vocabulary and (4B) the heads to the class. Its
`layer_types` (the local/global pattern as a list) is the spelling of releases after that commit.
"""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, dict[str, Any]] = {
    "llama": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "attention_bias": False,
        "mlp_bias": False,
        "max_position_embeddings": 2048,
    },
    "mistral": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 8,
        "sliding_window": 4096,
        "max_position_embeddings": 4096 * 32,
    },
    "mixtral": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 8,
        "sliding_window": None,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "max_position_embeddings": 4096 * 32,
    },
    "gpt_oss": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "attention_bias": True,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "sliding_window": 128,
        "num_local_experts": 128,
        "num_experts_per_tok": 4,
        "max_position_embeddings": 131072,
    },
    "qwen2": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 32,
        "use_sliding_window": False,
        "sliding_window": 4096,
        "max_position_embeddings": 32768,
    },
    "qwen3": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 32,
        "head_dim": 128,
        "attention_bias": False,
        "use_sliding_window": False,
        "sliding_window": 4096,
        "max_position_embeddings": 32768,
    },
    "qwen3_moe": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 4,
        "attention_bias": False,
        "use_sliding_window": False,
        "sliding_window": 4096,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "moe_intermediate_size": 768,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "max_position_embeddings": 32768,
    },
    "qwen2_moe": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 16,
        "use_sliding_window": False,
        "sliding_window": 4096,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "max_position_embeddings": 32768,
    },
    "deepseek_v3": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "attention_bias": False,
        "n_shared_experts": 1,
        "n_routed_experts": 256,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "max_position_embeddings": 4096,
    },
    "llama4_text": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "attention_bias": False,
        "num_local_experts": 16,
        "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 1,
        "attention_chunk_size": 8192,
        "no_rope_layer_interval": 4,
        "max_position_embeddings": 4096 * 32,
    },
    "gemma": {
        "hidden_act": "gelu_pytorch_tanh",
        "tie_word_embeddings": True,
        "num_key_value_heads": 16,
        "head_dim": 256,
        "attention_bias": False,
        "max_position_embeddings": 8192,
    },
    "gemma2": {
        "hidden_activation": "gelu_pytorch_tanh",
        "tie_word_embeddings": True,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "attention_bias": False,
        "sliding_window": 4096,
        "max_position_embeddings": 8192,
    },
    # Gemma3TextConfig (transformers 008f5c8c29be): Google's own Gemma 3 4B/12B/27B configs name neither the
    # vocabulary nor (4B) the heads, so the class's sizes are part of how those checkpoints read; local
    # (sliding-window) layers in runs of sliding_window_pattern - 1 before each global one, or as `layer_types`
    "gemma3_text": {
        "hidden_activation": "gelu_pytorch_tanh",
        "tie_word_embeddings": True,
        "vocab_size": 262208,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "attention_bias": False,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
        "max_position_embeddings": 131072,
    },
    # the vision tower Gemma3Config nests (`vision_config`): SiglipVisionConfig's channels (its sizes are one
    # model's, so a tower missing one is refused); SiglipVisionTransformer builds its pooling head unless the
    # config sets vision_use_head false (Gemma 3 does)
    "siglip_vision_model": {"num_channels": 3, "vision_use_head": True},
    "phi3": {"hidden_act": "silu", "tie_word_embeddings": False, "max_position_embeddings": 4096},
    # GlmConfig (GLM-4-9B in transformers, glm-4-9b-chat-hf) and Glm4Config (GLM-4-0414): grouped-query
    # attention with 2 key/value heads of 128, q/k/v bias (o_proj none), a gated SiLU MLP, untied head
    "glm": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 2,
        "head_dim": 128,
        "attention_bias": True,
        "max_position_embeddings": 131072,
    },
    "glm4": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 2,
        "head_dim": 128,
        "attention_bias": True,
        "max_position_embeddings": 32768,
    },
    # Glm4MoeConfig (GLM-4.5, GLM-4.5-Air, GLM-4.6; transformers c7ec229ad64c): DeepSeek-V3's MoE layout
    # (the first `first_k_dense_replace` blocks dense, shared experts of the routed width) under GLM-4's
    # grouped-query attention; the class gives no head width (GLM's configs do: hidden / heads is not whole)
    "glm4_moe": {
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "num_key_value_heads": 8,
        "attention_bias": False,
        "moe_intermediate_size": 1408,
        "num_experts_per_tok": 8,
        "n_shared_experts": 1,
        "n_routed_experts": 128,
        "first_k_dense_replace": 1,
        "use_qk_norm": False,
        "max_position_embeddings": 131072,
    },
    # ChatGLMConfig of the remote code shared by ChatGLM2, ChatGLM3 and GLM-4 (THUDM's configuration_chatglm.py)
    "chatglm": {
        "kv_channels": 128,
        "seq_length": 2048,
        "rmsnorm": True,
        "post_layer_norm": True,
        "add_bias_linear": False,
        "add_qkv_bias": False,
        "multi_query_attention": False,
        "multi_query_group_num": 1,
    },
    # the classic families (GPT2Config, GPTBigCodeConfig, GPTNeoXConfig, OPTConfig, FalconConfig, BertConfig,
    # ViTConfig)
    "gpt2": {"activation_function": "gelu_new", "tie_word_embeddings": True, "n_positions": 1024},
    "gpt_bigcode": {
        "activation_function": "gelu_pytorch_tanh",
        "tie_word_embeddings": True,
        "n_positions": 1024,
        "multi_query": True,
    },
    "gpt_neox": {"hidden_act": "gelu", "tie_word_embeddings": False, "max_position_embeddings": 2048},
    "opt": {"activation_function": "relu", "tie_word_embeddings": True, "max_position_embeddings": 2048},
    "falcon": {"tie_word_embeddings": True, "max_position_embeddings": 2048},
    "bert": {"hidden_act": "gelu", "tie_word_embeddings": True, "max_position_embeddings": 512},
    "vit": {"hidden_act": "gelu"},
}

# Families whose class derives the MLP width from the hidden size when the config gives none
# (GPT2Config n_inner=None and FalconConfig ffn_hidden_size=None mean 4 x hidden).
FFN_FROM_HIDDEN = {"gpt2": 4, "gpt_bigcode": 4, "falcon": 4}

# Families whose config nests the language model under `text_config` (multimodal wrappers).
TEXT_CONFIG = {"llama4": "llama4_text", "gemma3": "gemma3_text"}

# Encoder-decoder families (a source and a target stack joined by cross-attention).
ENCODER_DECODER = frozenset(
    {
        "t5",
        "mt5",
        "umt5",
        "longt5",
        "switch_transformers",
        "bart",
        "mbart",
        "marian",
        "pegasus",
        "blenderbot",
        "blenderbot-small",
        "m2m_100",
        "nllb-moe",
        "led",
        "fsmt",
        "prophetnet",
        "whisper",
        "speecht5",
        "seamless_m4t",
        "encoder-decoder",
    }
)


# a class's other names for a key (its `attribute_map`): a config that spells the key so sets the key itself
ATTRIBUTE_MAP: dict[str, dict[str, str]] = {"gpt_oss": {"num_experts": "num_local_experts"}}


def with_class_defaults(cfg: dict[str, Any], model_type: str) -> dict[str, Any]:
    """`cfg` with its class's defaults under the keys it leaves out (a key it sets to null keeps
    null: the class then applies its own rule, e.g. no key/value heads given = one per head); a key
    written under the class's other name for it (GptOssConfig's num_experts) counts as given."""
    named = {key: cfg[alias] for alias, key in ATTRIBUTE_MAP.get(model_type, {}).items() if alias in cfg}
    return {**DEFAULTS.get(model_type, {}), **named, **cfg}


__all__ = ["ATTRIBUTE_MAP", "DEFAULTS", "ENCODER_DECODER", "FFN_FROM_HIDDEN", "TEXT_CONFIG", "with_class_defaults"]
