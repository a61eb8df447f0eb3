"""Model import from real Hugging Face config.json files (corpus/data/hf_configs)."""

import json
import re

import pytest

from corpus import HF_CONFIGS
from gpuwise.catalog import load_catalog
from gpuwise.catalog.hf_import import arch_from_hf_config, load_hf_config
from gpuwise.errors import ConfigError

from .conftest import hf, run_process

FAMILIES = sorted(p.stem for p in HF_CONFIGS.glob("*.json"))


def test_every_family_has_a_fixture():
    types = {json.loads(p.read_text())["model_type"] for p in HF_CONFIGS.glob("*.json")}
    assert {
        "llama",
        "mistral",
        "mixtral",
        "qwen2",
        "gemma",
        "gemma2",
        "gemma3",
        "phi3",
        "gpt2",
        "gpt_neox",
        "gpt_oss",
        "opt",
        "falcon",
        "bert",
        "roberta",
        "vit",
    } <= types


CATALOGUED = sorted(set(FAMILIES) & {m for m in load_catalog().models})


@pytest.mark.parametrize("name", CATALOGUED)
def test_params_match_the_catalog_published_count(name, catalog):
    """Parameter count from the config equals the published count (the catalog's, with its source)."""
    arch = hf(name)
    pub = catalog.models[name].published_params
    entry = catalog.model(name)
    shape = ("params", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "sliding_window", "experts")
    # the catalog's config subset and the real config.json describe the same architecture
    assert [getattr(arch, k) for k in shape] == [getattr(entry, k) for k in shape]
    # exact counts must match exactly; rounded ones ("13B", "86M") within one unit of their last digit
    digits = len(f"{int(pub)}".rstrip("0"))
    tol = 0 if digits >= 7 else 10 ** (len(f"{int(pub)}") - digits) / pub
    assert arch.params == pytest.approx(pub, rel=tol)


def test_mixtral_active_params():
    # Mistral AI's announcement: 46.7B total, 12.9B active per token
    arch = hf("mixtral-8x7b-v0.1")
    assert arch.experts == 8 and arch.experts_per_token == 2
    assert arch.active_params == pytest.approx(12.9e9, rel=0.01)


def test_gpt_oss_as_openai_publishes_it():
    """gpt-oss (model card, arXiv 2508.10925): 20.9B parameters, 3.6B active (the card counts the unembedding, not
    the embedding table: 201,088 x 2,880 = 579,133,440 of gpuwise's active count), every block routing to 4 of 32
    experts, every other block attending within 128 tokens; the experts' and the attention's biases counted. By
    hand, one expert's gate/up and down with their biases: 2 x 2,880 x 2,880 + 5,760 + 2,880 x 2,880 + 2,880."""
    arch = hf("gpt-oss-20b")
    assert (arch.experts, arch.experts_per_token, arch.sliding_window, arch.sliding_window_layers) == (32, 4, 128, 12)
    assert arch.params == pytest.approx(20.9e9, rel=0.001)
    assert arch.active_params - 201_088 * 2_880 == pytest.approx(3.6e9, rel=0.01)
    without_biases = arch_from_hf_config(
        {**json.loads((HF_CONFIGS / "gpt-oss-20b.json").read_text()), "model_type": "mixtral"}
    )
    expert = 3 * 2_880 * 2_880 + 5_760 + 2_880
    assert arch.params - without_biases.params == 24 * 32 * (expert - 3 * 2_880 * 2_880)
    # the class's default alternation when a config leaves layer_types out, and a malformed list refused
    cfg = json.loads((HF_CONFIGS / "gpt-oss-20b.json").read_text())
    bare = {k: v for k, v in cfg.items() if k != "layer_types"}
    assert arch_from_hf_config(bare).sliding_window_layers == 12
    assert arch_from_hf_config({**bare, "num_hidden_layers": 3}).sliding_window_layers == 2  # blocks 0 and 2
    assert arch_from_hf_config({**cfg, "layer_types": ["full_attention"] * 24}).sliding_window_layers == 0
    with pytest.raises(ConfigError, match="layer_types"):
        arch_from_hf_config({**cfg, "layer_types": ["sliding_attention"] * 3})
    # GptOssConfig's attribute_map: num_experts is num_local_experts (the class default, 128, must not win)
    renamed = {k: v for k, v in cfg.items() if k != "num_local_experts"} | {"num_experts": 32}
    assert arch_from_hf_config(renamed).params == arch.params


def test_gqa_mqa_and_windows():
    assert hf("llama-2-7b").kv_heads == 32
    assert hf("mistral-7b-v0.1").kv_heads == 8 and hf("mistral-7b-v0.1").sliding_window == 4096
    assert hf("falcon-7b").kv_heads == 1  # multi-query
    g2 = hf("gemma-2-9b")
    assert g2.sliding_window == 4096 and g2.sliding_window_layers == g2.layers // 2
    assert hf("qwen2.5-7b").sliding_window is None  # use_sliding_window: false
    assert hf("gemma-7b").head_dim == 256 and hf("gemma-7b").q_dim != hf("gemma-7b").hidden


def test_encoders_have_no_kv_cache_role():
    assert not hf("bert-base-uncased").decoder
    vit = hf("vit-base-patch16-224")
    assert vit.fixed_seq == 197 and not vit.decoder


def test_roberta_is_bert_with_its_position_offset_and_one_token_type():
    """RobertaModel (FacebookAI/roberta-base): embeddings (50,265 words + 514 position rows + 1 token type)
    x 768 + their LayerNorm, 12 BERT layers (4 x 768^2 + 4 x 768 attention, 2 x 768 x 3072 + 3072 + 768 FFN,
    two LayerNorms of 2 x 768), the pooler 768^2 + 768: 124,645,632; a sequence is at most 512 tokens (its
    positions start after the padding index)."""
    h, f = 768, 3072
    layer = 4 * h * h + 4 * h + 2 * h * f + f + h + 2 * 2 * h
    by_hand = (50265 + 514 + 1) * h + 2 * h + 12 * layer + h * h + h
    assert by_hand == 124_645_632
    m = hf("roberta-base")
    assert m.params == by_hand and m.max_seq == 512 and not m.decoder and m.type_vocab == 1


def test_a_sequence_classifier_counts_its_head(tmp_path):
    """RobertaForSequenceClassification with three labels (roberta-large's shape): RobertaModel without its
    pooler, plus the head's dense 1024^2 + 1024 and out_proj 1024 x 3 + 3: the 355,362,819 transformers
    counts; the same config as a masked LM counts no classifier."""
    h, f = 1024, 4096
    layer = 4 * h * h + 4 * h + 2 * h * f + f + h + 2 * 2 * h
    by_hand = (50265 + 514 + 1) * h + 2 * h + 24 * layer + h * h + h + h * 3 + 3
    assert by_hand == 355_362_819
    cfg = json.loads((HF_CONFIGS / "roberta-base.json").read_text())
    cfg |= {"hidden_size": h, "intermediate_size": f, "num_hidden_layers": 24, "num_attention_heads": 16}
    cfg |= {"architectures": ["RobertaForSequenceClassification"], "id2label": {"0": "A", "1": "B", "2": "C"}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert load_hf_config(tmp_path).params == by_hand
    cfg["architectures"] = ["RobertaForMaskedLM"]
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert load_hf_config(tmp_path).params == by_hand - (h * 3 + 3)


def test_an_unknown_family_is_refused_not_read_as_llama():
    """Its class's defaults and block shape are unknown: reading it as Llama would be a guess."""
    cfg = {
        "model_type": "my_new_llm",
        "hidden_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "vocab_size": 1000,
        "intermediate_size": 2816,
    }
    with pytest.raises(ConfigError, match=r"model_type 'my_new_llm' is not one gpuwise reads.*\"llama\""):
        arch_from_hf_config(cfg)
    with pytest.raises(ConfigError, match="model_type None is not one"):
        arch_from_hf_config({k: v for k, v in cfg.items() if k != "model_type"})
    # named as Llama, the same fields read as Llama's class reads them
    arch = arch_from_hf_config({**cfg, "model_type": "llama"})
    assert arch.gated_ffn and arch.kv_heads == 8 and arch.head_dim == 128
    # embeddings + head untied: 2*V*h; per layer 4h^2 + 3hf + 2h; final norm h
    assert arch.params == 2 * 1000 * 1024 + 4 * (4 * 1024**2 + 3 * 1024 * 2816 + 2 * 1024) + 1024


@pytest.mark.parametrize("missing", ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size"])
def test_missing_field_is_named(missing, tmp_path):
    cfg = json.loads((HF_CONFIGS / "llama-2-7b.json").read_text())
    del cfg[missing]
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    with pytest.raises(ConfigError, match=missing):
        load_hf_config(p)


def test_wrong_types_and_malformed_json(tmp_path):
    p = tmp_path / "config.json"
    p.write_text('{"model_type": "llama", "hidden_size": "big"')
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_hf_config(p)
    p.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": -5,
                "num_hidden_layers": 2,
                "num_attention_heads": 1,
                "vocab_size": 10,
            }
        )
    )
    with pytest.raises(ConfigError, match="hidden_size"):
        load_hf_config(p)
    with pytest.raises(ConfigError, match="cannot read"):
        load_hf_config(tmp_path / "nope.json")


def test_folder_with_config(tmp_path):
    (tmp_path / "config.json").write_text((HF_CONFIGS / "gpt2.json").read_text())
    assert load_hf_config(tmp_path).params == hf("gpt2").params


def _without_name(fixture: str) -> dict:
    cfg = json.loads((HF_CONFIGS / fixture).read_text())
    cfg.pop("_name_or_path", None)
    return cfg


def test_name_from_name_or_path_last_component(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    p = folder / "config.json"
    cfg = _without_name("llama-2-7b.json")
    for given, expected in [
        ("meta-llama/Llama-2-7b-hf", "llama-2-7b-hf"),
        ("/srv/weights/Llama-2-7B/", "llama-2-7b"),  # a local folder with a trailing slash
        ("Phi-3-mini-4k-instruct", "phi-3-mini-4k-instruct"),
    ]:
        p.write_text(json.dumps({**cfg, "_name_or_path": given}))
        assert load_hf_config(p).name == expected


def test_name_from_file_stem_not_folder(tmp_path):
    folder = tmp_path / "hf"
    folder.mkdir()
    p = folder / "My-Llama.json"
    p.write_text(json.dumps(_without_name("llama-2-7b.json")))
    assert load_hf_config(p).name == "my-llama"
    p.write_text(json.dumps({**_without_name("llama-2-7b.json"), "_name_or_path": ""}))
    assert load_hf_config(p).name == "my-llama"  # an empty _name_or_path counts as absent


def test_generic_config_json_named_after_its_folder(tmp_path):
    folder = tmp_path / "Mistral-7B-v0.1"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_without_name("mistral-7b-v0.1.json")))
    assert load_hf_config(folder / "config.json").name == "mistral-7b-v0.1"
    assert load_hf_config(folder).name == "mistral-7b-v0.1"


QWEN3_30B_A3B = {  # Qwen/Qwen3-30B-A3B config.json: every layer MoE, no shared expert
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "vocab_size": 151936,
    "tie_word_embeddings": False,
    "hidden_act": "silu",
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
}


def test_moe_experts_take_their_own_width():
    """Qwen3-MoE's `intermediate_size` is a dense layer's width; each expert is `moe_intermediate_size`
    wide. The model card: 30.5B parameters, 3.3B activated."""
    a = arch_from_hf_config(QWEN3_30B_A3B, "qwen3-30b-a3b")
    assert (a.ffn, a.experts, a.experts_per_token) == (768, 128, 8)
    assert abs(a.params / 1e9 - 30.5) < 0.1 and abs(a.active_params / 1e9 - 3.3) < 0.1


def test_dense_blocks_among_the_moe_ones_are_read():
    """Qwen3-MoE's `mlp_only_layers` and `decoder_sparse_step` make some blocks dense MLPs of
    `intermediate_size` (they were refused before shared experts and dense blocks were modelled)."""
    uniform = arch_from_hf_config(QWEN3_30B_A3B, "moe")
    for extra, dense in (({"mlp_only_layers": [0, 1]}, 2), ({"decoder_sparse_step": 2}, 24)):
        a = arch_from_hf_config({**QWEN3_30B_A3B, **extra}, "moe")
        assert (a.dense_layers, a.dense_ffn, a.moe_layers) == (dense, 6144, 48 - dense)
        moe_block, dense_block = uniform.block_params(), a.block_params(dense=True)
        assert dense_block == uniform.block_params() - 128 * 3 * 2048 * 768 - 128 * 2048 + 3 * 2048 * 6144
        assert a.params == uniform.params - dense * (moe_block - dense_block)
    with pytest.raises(ConfigError, match="mlp_only_layers"):
        arch_from_hf_config({**QWEN3_30B_A3B, "mlp_only_layers": [48]}, "moe")


# ----- each model_type read with its Hugging Face class's defaults ---------------------------------------
def test_a_qwen2_config_without_hidden_act_keeps_its_gated_silu_mlp():
    """Qwen2Config's hidden_act defaults to "silu": without the key Qwen2.5-7B is still 7.62B (the gated
    MLP), not 5.71B. 7,615,616,512 = the checkpoint index's 15,231,233,024 bytes of bfloat16 / 2
    (https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/raw/main/model.safetensors.index.json)."""
    cfg = json.loads((HF_CONFIGS / "qwen2.5-7b.json").read_text())
    assert cfg.pop("hidden_act") == "silu"
    arch = arch_from_hf_config(cfg, "qwen2.5-7b")
    assert arch.gated_ffn and arch.params == 7_615_616_512 == hf("qwen2.5-7b").params
    # Qwen2Config's other defaults: untied, no sliding window unless use_sliding_window, 32 key/value heads
    bare = {k: cfg[k] for k in ("model_type", "hidden_size", "num_hidden_layers", "vocab_size", "intermediate_size")}
    plain = arch_from_hf_config({**bare, "num_attention_heads": 32}, "q")
    assert (plain.tied_embeddings, plain.sliding_window, plain.kv_heads, plain.qkv_bias) == (False, None, 32, True)


def test_class_defaults_differ_by_family():
    base = {"hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "vocab_size": 1000}
    mistral = arch_from_hf_config({**base, "model_type": "mistral", "intermediate_size": 14336})
    assert (mistral.kv_heads, mistral.sliding_window, mistral.gated_ffn) == (8, 4096, True)
    # an explicit null keeps the class's own rule: no key/value heads given = one per head
    assert (
        arch_from_hf_config(
            {**base, "model_type": "mistral", "intermediate_size": 1, "num_key_value_heads": None}
        ).kv_heads
        == 32
    )
    gemma = arch_from_hf_config({**base, "model_type": "gemma", "intermediate_size": 24576, "num_attention_heads": 16})
    assert (gemma.head_dim, gemma.kv_heads, gemma.tied_embeddings, gemma.gated_ffn) == (256, 16, True, True)
    gpt2 = arch_from_hf_config({"model_type": "gpt2", "n_embd": 768, "n_layer": 1, "n_head": 12, "vocab_size": 9})
    assert gpt2.ffn == 4 * 768 and not gpt2.gated_ffn and gpt2.tied_embeddings  # n_inner=None: 4 x hidden


def test_a_missing_mlp_width_is_refused_where_the_class_default_is_one_models():
    cfg = json.loads((HF_CONFIGS / "llama-2-7b.json").read_text())
    del cfg["intermediate_size"]
    with pytest.raises(ConfigError, match="intermediate_size"):
        arch_from_hf_config(cfg)


def test_qwen3_has_query_key_norms_and_its_published_size():
    """Qwen3-8B: 8,190,735,360 parameters (checkpoint index, 16,381,470,720 bytes of bfloat16; the
    model card says 8.2B): q_norm and k_norm (head_dim each) in every layer, no qkv bias."""
    arch = hf("qwen3-8b")
    assert arch.qk_norm and not arch.qkv_bias and arch.head_dim == 128
    assert arch.params == 8_190_735_360


# Gemma 3 270M as google/gemma-3-270m's config.json gives it (transformers 4.56 spelling: layer_types)
GEMMA3_270M = {
    "architectures": ["Gemma3ForCausalLM"],
    "model_type": "gemma3_text",
    "vocab_size": 262144,
    "hidden_size": 640,
    "intermediate_size": 2048,
    "num_hidden_layers": 18,
    "num_attention_heads": 4,
    "num_key_value_heads": 1,
    "head_dim": 256,
    "max_position_embeddings": 32768,
    "sliding_window": 512,
    "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 3,
    "torch_dtype": "bfloat16",
}


def test_gemma3_multimodal_reads_its_language_model_and_counts_its_vision_tower():
    """google/gemma-3-4b-it's config.json names few sizes: Gemma3TextConfig gives the vocabulary (262,208),
    8 heads, 4 KV heads of 256; five of each six blocks are local (34 blocks: 29 local over a 1,024-token
    window). By hand: embedding 262,208 x 2,560 = 671,252,480; a block 15,728,640 (q 2,560x2,048, k and v
    2,560x1,024, o) + 512 (q/k norms) + 78,643,200 (gated MLP, 3 x 2,560 x 10,240) + 10,240 (four norms) =
    94,382,592, x 34 = 3,209,008,128; final norm 2,560: 3,880,263,168. The SigLIP tower: patch convolution
    3x14x14x1,152 + 1,152, 4,096 positions x 1,152, 27 blocks of 15,239,504 (q, k, v, out with biases;
    fc1 and fc2 with biases; two LayerNorms), post-LayerNorm 2,304: 416,866,032; the projector 1,152 x 2,560
    + 1,152 = 2,950,272. In all 4,300,079,472 (the model card: 4.3B)."""
    arch = hf("gemma-3-4b-it")
    assert (arch.vocab, arch.heads, arch.kv_heads, arch.head_dim) == (262_208, 8, 4, 256)
    assert arch.qk_norm and arch.norms_per_layer == 4 and arch.gated_ffn and arch.tied_embeddings
    assert (arch.sliding_window, arch.sliding_window_layers) == (1024, 29)
    assert arch.extra_params == 416_866_032 + 2_950_272
    assert arch.params == 4_300_079_472


def test_gemma3_text_reads_layer_types_and_its_published_size():
    """Gemma 3 270M: 167,772,160 embedding + 18 blocks of 5,573,632 (attention 1,638,400, q/k norms 512,
    gated MLP 3,932,160, four norms 2,560) + 640 = 268,098,176 (the card: 268M); 15 of 18 blocks local."""
    arch = arch_from_hf_config(GEMMA3_270M)
    assert arch.params == 268_098_176
    assert (arch.sliding_window, arch.sliding_window_layers) == (512, 15)
    older = {k: v for k, v in GEMMA3_270M.items() if k != "layer_types"}  # sliding_window_pattern 6, the class's
    assert arch_from_hf_config(older).sliding_window_layers == 15
    assert arch_from_hf_config({**older, "sliding_window_pattern": 3}).sliding_window_layers == 12
    # layer_types decides where it is given, whatever the pattern says
    halves = ["sliding_attention", "full_attention"] * 9
    assert arch_from_hf_config({**GEMMA3_270M, "layer_types": halves}).sliding_window_layers == 9
    # the wrapper's type is read as transformers reads it, whatever its case: the tower is counted
    cfg = json.loads((HF_CONFIGS / "gemma-3-4b-it.json").read_text())
    assert arch_from_hf_config({**cfg, "model_type": "Gemma3"}).params == 4_300_079_472


def test_gemma3_read_as_gemma2_is_refused_by_its_checkpoint(tmp_path):
    """The 4B checkpoint holds 8,600,158,944 bytes of bfloat16 (the hand count above, x 2); its language
    model written as a gemma2 config (no vision tower, no q/k norms) reads 3.88B and is refused."""
    cfg = json.loads((HF_CONFIGS / "gemma-3-4b-it.json").read_text())
    index = {"metadata": {"total_size": 8_600_158_944}, "weight_map": {}}
    assert load_hf_config(_checkpoint(tmp_path, cfg, index)).params == 4_300_079_472
    text = {**cfg["text_config"], "model_type": "gemma2", "vocab_size": 262208, "num_attention_heads": 8}
    text["torch_dtype"] = "bfloat16"
    with pytest.raises(ConfigError, match=r"reads as 3\.8\d\dB parameters, but the checkpoint beside it holds 4\.300B"):
        load_hf_config(_checkpoint(tmp_path, text, index))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"layer_types": ["sliding_attention"] * 17}, "layer_types must name each of the 18 layers"),
        ({"layer_types": ["local"] * 18}, "layer_types must name each of the 18 layers"),
        ({"layer_types": None, "sliding_window_pattern": 0}, "sliding_window_pattern"),
        ({"layer_types": []}, "layer_types must name each of the 18 layers"),
        ({"layer_types": "sliding_attention"}, "layer_types must name each of the 18 layers"),
    ],
)
def test_gemma3_unreadable_layer_kinds_are_refused(change, message):
    with pytest.raises(ConfigError, match=message):
        arch_from_hf_config({**GEMMA3_270M, **change})


def test_a_gemma3_vision_tower_with_a_pooling_head_is_refused():
    cfg = json.loads((HF_CONFIGS / "gemma-3-4b-it.json").read_text())
    cfg["vision_config"] = {**cfg["vision_config"], "vision_use_head": True}
    with pytest.raises(ConfigError, match="vision_use_head"):
        arch_from_hf_config(cfg)


@pytest.mark.parametrize("vision", [None, {"vision_use_head": False}, "siglip"])
def test_a_gemma3_vision_tower_without_its_sizes_is_refused(vision):
    """SiglipVisionConfig's sizes are one model's: a tower that does not state its own is refused, not
    counted at another model's size."""
    cfg = {**json.loads((HF_CONFIGS / "gemma-3-4b-it.json").read_text()), "vision_config": vision}
    with pytest.raises(ConfigError, match=r"vision_config|vision tower"):
        arch_from_hf_config(cfg)


# ----- encoder-decoders: counted as what they are, refused with the reason --------------------------------
@pytest.mark.parametrize(
    ("fixture", "published", "tol", "layers"),
    [
        # T5 v1.1 large: 0.78B (Google's T5 v1.1 release lists ~800M for "large")
        ("t5-v1_1-large", 0.78e9, 0.01, "24 encoder + 24 decoder"),
        ("t5-base", 220e6, 0.02, "12 encoder + 12 decoder"),  # T5 paper (Raffel et al. 2020): 220 million
        ("bart-large", 406e6, 0.005, "12 encoder + 12 decoder"),  # facebook/bart-large model page: 406M
        ("whisper-large-v3", 1550e6, 0.01, "32 encoder + 32 decoder"),  # OpenAI's model card: 1550 M
    ],
)
def test_encoder_decoders_are_counted_and_refused(fixture, published, tol, layers):
    from gpuwise.catalog import encoder_decoder

    cfg = json.loads((HF_CONFIGS / f"{fixture}.json").read_text())
    counted = encoder_decoder.count(cfg, cfg["model_type"], lambda key: int(cfg[key]))
    assert counted is not None and counted.params == pytest.approx(published, rel=tol)
    with pytest.raises(ConfigError, match=f"is an encoder-decoder .*{re.escape(layers)} layers.*not estimated"):
        hf(fixture)


def test_encoder_decoder_counts_by_hand():
    """T5 v1.1 large, module by module: per encoder block 4 x 1024 x 1024 attention + 3 x 1024 x 2816
    gated MLP + 2 norms; per decoder block a second (cross) attention and a third norm; one
    relative-position table (32 buckets x 16 heads) and a final norm per stack; untied head."""
    from gpuwise.catalog import encoder_decoder

    cfg = json.loads((HF_CONFIGS / "t5-v1_1-large.json").read_text())
    c = encoder_decoder.count(cfg, "t5", lambda key: int(cfg[key]))
    assert c is not None
    enc_block = 4 * 1024 * 1024 + 3 * 1024 * 2816 + 2 * 1024
    dec_block = 8 * 1024 * 1024 + 3 * 1024 * 2816 + 3 * 1024
    assert c.encoder == 24 * enc_block + 32 * 16 + 1024 and c.decoder == 24 * dec_block + 32 * 16 + 1024
    assert c.embeddings == 2 * 32128 * 1024 and c.params == 783_150_080


def test_any_encoder_decoder_flag_is_refused():
    cfg = {**json.loads((HF_CONFIGS / "llama-2-7b.json").read_text()), "is_encoder_decoder": True}
    with pytest.raises(ConfigError, match="encoder-decoder"):
        arch_from_hf_config(cfg)


# ----- the count checked against the checkpoint beside the config ----------------------------------------
QWEN25_7B_INDEX = {"metadata": {"total_size": 15231233024}, "weight_map": {}}  # the published metadata


def _checkpoint(tmp_path, cfg: dict, index: dict | None) -> "object":
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    if index is not None:
        (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    return tmp_path / "config.json"


def test_a_config_that_agrees_with_its_checkpoint_loads(tmp_path):
    cfg = json.loads((HF_CONFIGS / "qwen2.5-7b.json").read_text())
    assert load_hf_config(_checkpoint(tmp_path, cfg, QWEN25_7B_INDEX)).params == 7_615_616_512


def test_a_config_that_disagrees_with_its_checkpoint_is_refused(tmp_path):
    """What gpuwise read before Qwen2's defaults: the MLP without its gate (5.71B). The checkpoint's
    7.62B shows the misread instead of estimating the wrong model."""
    cfg = {**json.loads((HF_CONFIGS / "qwen2.5-7b.json").read_text()), "hidden_act": "gelu"}
    with pytest.raises(ConfigError, match=r"reads as 5\.7\d\dB parameters, but the checkpoint beside it holds 7\.616B"):
        load_hf_config(_checkpoint(tmp_path, cfg, QWEN25_7B_INDEX))


def test_the_checkpoint_check_skips_what_bytes_cannot_count(tmp_path):
    cfg = {**json.loads((HF_CONFIGS / "qwen2.5-7b.json").read_text()), "hidden_act": "gelu"}
    half = {"metadata": {"total_size": 4_000_000_000}, "weight_map": {}}
    quantized = {**cfg, "quantization_config": {"quant_method": "gptq", "bits": 4}}
    assert load_hf_config(_checkpoint(tmp_path, quantized, half)).params < 6e9  # packed 4-bit: no count
    (tmp_path / "model.safetensors.index.json").unlink()
    assert load_hf_config(_checkpoint(tmp_path, cfg, None)).params < 6e9  # no index: nothing to check
    with pytest.raises(ConfigError, match="total_size"):
        load_hf_config(_checkpoint(tmp_path, cfg, {"metadata": {"total_size": "many"}}))


def test_chatglm_remote_code_config_reads_glm4_faithfully():
    """GLM-4-9B-Chat's config.json (model_type chatglm): 2 key/value groups of kv_channels 128, q/k/v
    bias only, SwiGLU of ffn_hidden_size 13696 per half, an untied output layer; 9.4B published.
    By hand: embedding and output layer 2 x 151552 x 4096, per layer q/k/v 4096 x 4608 (+ 4608 bias),
    dense 4096 x 4096, MLP 4096 x 27392 + 13696 x 4096, two RMSNorms; a final RMSNorm."""
    arch = hf("glm-4-9b-chat")
    assert (arch.kv_heads, arch.head_dim, arch.ffn, arch.max_seq) == (2, 128, 13696, 131072)
    assert arch.qkv_bias and not arch.o_bias and not arch.mlp_bias and arch.gated_ffn
    assert not arch.tied_embeddings and arch.norm == "rmsnorm"
    layer = 4096 * 4608 + 4608 + 4096 * 4096 + 4096 * 27392 + 13696 * 4096 + 2 * 4096
    assert arch.params == 2 * 151552 * 4096 + 40 * layer + 4096 == 9_399_951_360
    assert arch.params == pytest.approx(9.4e9, rel=0.01)
    # the same weights under transformers' own GlmConfig read the same
    assert hf("glm-4-9b-chat-hf").params == arch.params


def test_chatglm_without_multi_query_gives_every_head_its_keys():
    cfg = json.loads((HF_CONFIGS / "glm-4-9b-chat.json").read_text())
    arch = arch_from_hf_config({**cfg, "multi_query_attention": False})
    assert arch.kv_heads == 32


def test_gpt_bigcode_reads_octocoder_as_multi_query_gpt2():
    """octocoder (GPTBigCode): one key/value head, every linear biased, learned positions, the head
    tied; StarCoder's 15.5B."""
    arch = hf("octocoder")
    assert (arch.kv_heads, arch.ffn, arch.learned_positions) == (1, 24576, 8192)
    assert arch.qkv_bias and arch.o_bias and arch.mlp_bias and arch.tied_embeddings and not arch.gated_ffn
    assert arch.params == pytest.approx(15.5e9, rel=0.01)


GLM4 = json.loads((HF_CONFIGS / "glm-4-9b-chat.json").read_text())


OFF = [(v, "layernorm") for v in (False, "no", "false", "0", 0, "Off")]
ON = [(v, "rmsnorm") for v in (True, "yes", " True ", "1", 1, None)]


@pytest.mark.parametrize(("value", "norm"), [*OFF, *ON])
def test_chatglm_switches_read_as_written(value, norm):
    """`rmsnorm` off, however a remote-code config spells it, is ChatGLM's LayerNorm; null keeps the
    class default (on). A LayerNorm carries a bias beside its weight: 2 x 4096 more per norm, two
    norms per layer over 40 layers and the final one."""
    arch = arch_from_hf_config({**GLM4, "rmsnorm": value})
    assert arch.norm == norm
    extra = (2 * 40 + 1) * 4096 if norm == "layernorm" else 0
    assert arch.params == 9_399_951_360 + extra


@pytest.mark.parametrize("value", ["maybe", 2, 0.5, [], "nope"])
def test_an_unreadable_switch_is_refused_by_name(value):
    with pytest.raises(ConfigError, match=r"field 'rmsnorm' must be true or false"):
        arch_from_hf_config({**GLM4, "rmsnorm": value})
    with pytest.raises(ConfigError, match=r"field 'add_qkv_bias' must be true or false"):
        arch_from_hf_config({**GLM4, "add_qkv_bias": value})


@pytest.mark.parametrize(
    "key", ["num_layers", "padded_vocab_size", "ffn_hidden_size", "kv_channels", "multi_query_group_num"]
)
def test_a_missing_chatglm_size_is_named_as_the_config_spells_it(key):
    cfg = {k: v for k, v in GLM4.items() if k != key} | {key: None}  # null: the class default does not fill it
    with pytest.raises(ConfigError) as err:
        arch_from_hf_config(cfg)
    assert str(err.value) == f"config: missing field {key!r}"


def test_a_wrong_chatglm_size_is_named_as_the_config_spells_it():
    with pytest.raises(ConfigError, match=r"field 'kv_channels' must be a positive integer"):
        arch_from_hf_config({**GLM4, "kv_channels": -1})
    with pytest.raises(ConfigError, match=r"field 'multi_query_group_num' must be a positive integer"):
        arch_from_hf_config({**GLM4, "multi_query_group_num": "two"})


def test_an_unreadable_switch_exits_2_naming_it(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({**GLM4, "rmsnorm": "sometimes"}))
    proc = run_process("estimate", "--model", str(tmp_path / "config.json"), "--gpu", "a100-80gb-sxm")
    assert proc.returncode == 2
    assert "'rmsnorm' must be true or false, got 'sometimes'" in proc.stderr
