"""Model import from real Hugging Face config.json files (corpus/data/hf_configs)."""

import json

import pytest

from corpus import HF_CONFIGS
from gpuwise.catalog import load_catalog
from gpuwise.catalog.hf_import import arch_from_hf_config, load_hf_config
from gpuwise.errors import ConfigError

from .conftest import hf

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
        "phi3",
        "gpt2",
        "gpt_neox",
        "opt",
        "falcon",
        "bert",
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


def test_unknown_family_with_standard_fields_reads_as_llama_like():
    cfg = {
        "model_type": "my_new_llm",
        "hidden_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "vocab_size": 1000,
        "intermediate_size": 2816,
    }
    arch = arch_from_hf_config(cfg)
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


@pytest.mark.parametrize(
    ("extra", "what"),
    [
        ({"n_shared_experts": 1}, "shared experts"),
        ({"shared_expert_intermediate_size": 5632}, "shared experts"),
        ({"first_k_dense_replace": 3}, "dense layers"),
        ({"mlp_only_layers": [0, 1]}, "dense layers"),
        ({"decoder_sparse_step": 2}, "dense layers"),
    ],
)
def test_moe_shapes_gpuwise_cannot_describe_are_refused(extra, what):
    """DeepSeek-style shared experts and dense layers among MoE ones: a clear error, not a wrong size."""
    with pytest.raises(ConfigError, match=what):
        arch_from_hf_config({**QWEN3_30B_A3B, **extra}, "moe")
