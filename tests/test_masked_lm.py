"""An encoder pre-trained on the masked-LM objective carries BERT's prediction head: the transform
(hidden x hidden dense with bias, activation, LayerNorm), the vocabulary projection tied to the token
embedding, and its output bias. transformers' BertForMaskedLM scores every position; NVIDIA's and
Google's BERT only the masked ones (max_predictions_per_seq), which --mlm-positions states."""

from __future__ import annotations

import pytest

from gpuwise.catalog import TransformerArch, load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate import memory
from gpuwise.estimate.compute import forward_flops
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()
HW = build_hardware("a100-80gb-sxm:1", CAT)
H, VOCAB = 768, 30522  # BERT-base
BERT_MODEL = 109_482_240  # BertModel: embeddings, 12 layers, pooler (models.yaml)
MLM_HEAD = H * H + H + 2 * H + VOCAB  # transform dense + bias, LayerNorm, decoder bias (decoder tied)


def _job(**opts: object) -> TrainingJob:
    base = {"model": "bert-base-uncased", "task": "pretrain", "micro_batch": 32, "seq": 128, "precision": "fp16"}
    job = build_workload({**base, **opts}, CAT)
    assert isinstance(job, TrainingJob)
    return job


def test_pretraining_an_encoder_adds_the_masked_lm_head_by_hand():
    """BertForPreTraining without its 2-way NSP classifier (the pooler kept): 109,482,240 + 622,650 parameters."""
    pre, fine = _job(), _job(task="finetune")
    assert isinstance(pre.model, TransformerArch) and pre.model.mlm_transform and pre.model.lm_head
    assert pre.model.params == BERT_MODEL + MLM_HEAD == 110_104_890
    assert fine.model.params == BERT_MODEL and not fine.model.lm_head
    assert pre.head_positions == 128 and _job(mlm_positions=20).head_positions == 20
    # a fine-tune that keeps the head names it; 0 leaves it off when pre-training
    assert _job(task="finetune", mlm_positions=128).model.params == BERT_MODEL + MLM_HEAD
    assert _job(mlm_positions=0).model.params == BERT_MODEL


def test_the_head_multiplies_on_the_scored_positions_only():
    """Forward FLOPs: 2 per parameter a token, the tied projection and the transform (2 (vocab h + h h))
    on each scored position instead of on each token."""
    model = _job().model
    assert isinstance(model, TransformerArch)
    tokens, context = 32 * 128, 128.0
    every = forward_flops(model, tokens, context)
    masked = forward_flops(model, tokens, context, head_tokens=32 * 20)
    assert every - masked == pytest.approx(2 * (VOCAB * H + H * H) * 32 * (128 - 20))
    plain = forward_flops(_job(task="finetune").model, tokens, context)
    # the head's new parameters (biases, LayerNorm) as any parameter, the matmuls per position
    assert every - plain == pytest.approx(2 * (3 * H + VOCAB) * tokens + 2 * (VOCAB * H + H * H) * tokens)


@pytest.mark.parametrize("name", ["llama-2-7b", "gpt2"])
def test_a_decoders_head_multiplies_on_every_token_tied_or_not(name: str):
    """2 per non-embedding parameter a token (an untied head among them), the tied head's 2 vocab h on
    top, attention 2 context (q_dim + o_dim) a layer: the formula before the masked-LM head, by hand."""
    m = CAT.model(name)
    assert isinstance(m, TransformerArch) and m.lm_head and not m.mlm_transform
    tokens, context = 4096, 2048.5
    tied = 2 * m.vocab * m.hidden * tokens if m.tied_embeddings else 0
    attention = 2 * tokens * context * (m.q_dim + m.o_dim) * m.layers
    by_hand = 2 * (m.active_params - m.embedding_params) * tokens + tied + attention
    assert forward_flops(m, tokens, context) == pytest.approx(by_hand, rel=1e-12)
    assert CAT.model("gpt2").tied_embeddings and not CAT.model("llama-2-7b").tied_embeddings


def test_logits_and_the_transforms_inputs_scale_with_the_positions():
    """fp16 logits, the loss's copies, and 3 hidden-wide tensors of the transform a scored position."""
    every, masked = (memory(_job(mlm_positions=n), HW, CAT).per_gpu.detail for n in (None, 20))
    assert every["logits_and_loss"] / masked["logits_and_loss"] == pytest.approx(128 / 20)
    assert every["mlm_transform"] == 32 * 128 * H * 3 * 2
    assert "mlm_transform" not in memory(_job(task="finetune"), HW, CAT).per_gpu.detail


@pytest.mark.parametrize(
    ("opts", "says"),
    [
        ({"model": "llama-2-7b", "mlm_positions": 20}, "not an encoder"),
        ({"model": "vit-base-patch16-224", "seq": None, "mlm_positions": 20}, "not an encoder"),
        ({"mlm_positions": 129}, "more than the 128 positions"),
    ],
)
def test_positions_a_model_or_sequence_cannot_have_are_refused(opts: dict[str, object], says: str):
    with pytest.raises(UsageError, match=says):
        _job(**opts)


def test_a_config_without_tie_word_embeddings_ties_the_head_as_transformers_does():
    """RoBERTa-base's config.json does not name tie_word_embeddings (PretrainedConfig's default: True): the
    head adds its transform, LayerNorm and 50,265-wide bias, not a second 50,265 x 768 matrix."""
    path = "corpus/data/hf_configs/roberta-base.json"
    plain = _job(model=path, task="finetune").model.params
    assert _job(model=path).model.params - plain == H * H + H + 2 * H + 50265


def test_a_context_parallel_rank_holds_its_share_of_the_scored_positions():
    hw = build_hardware("a100-80gb-sxm:2", CAT)
    one, two = (memory(_job(mlm_positions=20, cp=cp), hw, CAT).per_gpu.detail["logits_and_loss"] for cp in (1, 2))
    assert one == 2 * two


def test_growth_keeps_the_objective_on_a_grown_encoder_and_drops_it_on_a_decoder():
    """--growth-model: BERT-base -> BERT-large keeps the masked-LM head; a decoder scores every position."""
    from gpuwise.plan.search import _growth_workload
    from gpuwise.workload.requirements import build_requirements

    today = _job(mlm_positions=20)
    large = _growth_workload(today, build_requirements({"growth_model": "bert-large-uncased"}, CAT))
    assert isinstance(large, TrainingJob) and large.model.params == CAT.model("bert-large-uncased").params + (
        1024 * 1024 + 1024 + 2 * 1024 + VOCAB
    )
    assert large.head_positions == 20
    gpt2 = _growth_workload(today, build_requirements({"growth_model": "gpt2"}, CAT))
    assert isinstance(gpt2, TrainingJob) and gpt2.head_positions == 128
