"""The plan sizes the batch per GPU when the user names no batch, within the catalog's largest
converging global batch for the model (the published recipe's); a given micro-batch stays; the
chosen row's command replays."""

import json
import shlex
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from gpuwise.api import make_estimate, make_plan
from gpuwise.catalog import load_catalog
from gpuwise.cli.app import app
from gpuwise.plan.layouts import micro_batches
from gpuwise.report.as_json import plan_json
from gpuwise.workload import build_workload
from gpuwise.workload.specs import BatchBound

from .conftest import VIT_G

CAT = load_catalog()
RESNET = {"model": "resnet-50", "task": "pretrain", "samples": 20_000_000}
REQS = {"deadline": "2h"}
GOYAL = 8192  # Goyal et al. 2017: ResNet-50 ImageNet at minibatch 8k matches the small-batch error
GOYAL_URL = "https://arxiv.org/abs/1706.02677"


def _estimate(command: str) -> dict:
    argv = shlex.split(command)
    assert argv[:2] == ["gpuwise", "estimate"], command
    result = CliRunner().invoke(app, [*argv[1:], "--json"])
    assert result.exit_code in (0, 1), (command, result.output)
    return json.loads(result.stdout)


def test_bound_is_read_from_the_catalog_only_when_no_batch_is_named() -> None:
    sized = build_workload(RESNET, CAT)
    assert sized.batch_bound == BatchBound(GOYAL, GOYAL_URL, 0.03)  # arXiv 1706.02677, Goyal et al. 2017
    assert CAT.sources[CAT.conventions["largest_global_batch.resnet-50"].source].url == GOYAL_URL
    assert build_workload({**RESNET, "micro_batch": 8}, CAT).batch_bound is None
    assert build_workload({**RESNET, "global_batch": 1024}, CAT).batch_bound is None
    llm = build_workload({"model": "llama-3.1-8b", "task": "finetune", "tokens": 1e8}, CAT)
    assert llm.batch_bound is None  # no bound in the catalog: an LLM's batch is the recipe's


def test_micro_batches_are_the_powers_of_two_within_the_bound() -> None:
    work = build_workload(RESNET, CAT)
    assert micro_batches(work, 1) == [2**i for i in range(14)]  # 1 .. 8192
    assert micro_batches(work, 128) == [1, 2, 4, 8, 16, 32, 64]  # 64 x 128 = 8192
    assert micro_batches(work, 3) == [2**i for i in range(12)]  # 2048 x 3 = 6144 <= 8192 < 4096 x 3
    assert micro_batches(work, GOYAL + 1) == []  # one sample per rank already exceeds it
    given = replace(work, batch_bound=None, micro_batch=8)
    assert micro_batches(given, 128) == [8]


def test_resnet_plan_chooses_a_large_batch_on_few_gpus_and_replays() -> None:
    result = plan_json(make_plan(RESNET, REQS))
    chosen = result["candidates"][0]
    w = chosen["workload"]
    assert chosen["gpus_total"] <= 8
    assert w["micro_batch"] >= 256
    assert w["global_batch"] == w["micro_batch"] * w["dp"] * w["grad_accumulation"] <= GOYAL
    assert f"--micro-batch {w['micro_batch']}" in chosen["command"]
    texts = [r["text"] for r in chosen["why"]]
    expect = f"micro-batch {w['micro_batch']} per GPU, global batch {w['global_batch']:,} (at most 8,192 for resnet-50"
    tail = f"{GOYAL_URL}): the smallest within 3% of the fastest batch that fits at the memory band's high end"
    assert any(t.startswith(expect) and t.endswith(tail) for t in texts), texts
    est = _estimate(chosen["command"])
    assert est["workload"]["micro_batch"] == w["micro_batch"]
    assert est["memory"]["per_gpu"]["total"] == pytest.approx(chosen["memory"]["per_gpu"]["total"], rel=0.005)
    assert est["training"]["step_seconds"] == pytest.approx(chosen["training"]["step_seconds"], rel=0.005)
    assert est["training"]["total_seconds"] == pytest.approx(chosen["training"]["total_seconds"], rel=0.005)
    # it fits at the memory band's high end, not only at the estimate
    assert chosen["uncertainty"]["memory.per_gpu.total"]["high"] <= chosen["memory"]["capacity"]


def test_the_batch_is_the_smallest_within_the_tolerance_of_the_fastest_that_fits_at_the_band_high_end() -> None:
    """ResNet-50 on one MI300X (192 GiB; the memory band's 80 % high end is 1.7606x the estimate):
    micro-batch 4,096 needs 191.0 GiB, up to 336.3 GiB, past the capacity there; 2,048 needs 96.4 GiB
    (up to 169.7 GiB) and is the fastest that fits there, at 6,165 images/s; 1,024 runs 6,035 (97.9 %
    of it), 512 runs 5,792 (93.9 %, more than the 3 % tolerance slower). The plan takes 1,024, where
    it took 4,096 (6,231 images/s, 1.1 % faster than 2,048, at twice its memory). Rates since the optimizer
    step counts each stack's passes and the casts both ways (2026-12-08). Rates since b5f3c2b
    (tensor-core convolutions at the achievable GEMM rate) and the refit that measured the T4's own GEMM
    rate (the median convolution share for architectures without a case, CDNA3's, 0.609 -> 0.677); memory
    since the stack of a model that is not a language model defaults to PyTorch data parallel (177.7 and
    89.7 GiB under Megatron-LM's conventions, band 1.8818x)."""
    cat = load_catalog()
    assert build_workload(RESNET, cat).batch_bound.tolerance == cat.convention("batch_sizing_tolerance") == 0.03
    gib, rate, need = 2**30, {}, {}
    for micro in (512, 1024, 2048, 4096):
        est = make_estimate({**RESNET, "micro_batch": micro}, {"gpu": "mi300x:1"})
        assert est.training is not None
        rate[micro], need[micro] = est.training.samples_per_second, est.memory.per_gpu.total
    high = est.bands()["memory.per_gpu.total"].high
    assert high == pytest.approx(1.7606, abs=1e-4)
    assert need[4096] * high / gib == pytest.approx(336.3, abs=0.1)  # past the 192 GiB at the high end
    assert need[2048] * high / gib == pytest.approx(169.7, abs=0.1)
    assert rate[1024] / rate[2048] == pytest.approx(0.979, abs=0.001)  # within 3 %
    assert rate[512] / rate[2048] == pytest.approx(0.940, abs=0.001)  # not
    result = plan_json(make_plan(RESNET, {**REQS, "gpus": "mi300x"}))
    chosen = result["candidates"][0]
    assert chosen["workload"]["micro_batch"] == 1024
    assert chosen["training"]["samples_per_second"] == pytest.approx(rate[1024], rel=1e-6)


def test_every_shown_row_replays() -> None:
    result = plan_json(make_plan(RESNET, REQS))
    for cand in result["candidates"][:3]:
        est = _estimate(cand["command"])
        assert est["workload"]["micro_batch"] == cand["workload"]["micro_batch"], cand["command"]
        assert est["training"]["total_seconds"] == pytest.approx(cand["training"]["total_seconds"], rel=0.005)


def test_a_given_micro_batch_stays() -> None:
    result = plan_json(make_plan({**RESNET, "micro_batch": 2}, REQS))
    for cand in result["candidates"][:3]:
        assert cand["workload"]["micro_batch"] == 2
        assert not any(r["code"] == "layout.batch_sized" for r in cand["why"])


# each model's bound as its source publishes it (conventions.yaml `largest_global_batch.<model>`; the
# vision-transformer family's for every ViT)
RECIPES = {
    "resnet-50": (8192, "arxiv.org/abs/1706.02677"),  # Goyal et al. 2017
    "vision-transformer": (4096, "arxiv.org/abs/2010.11929"),  # ViT paper, Table 3: every ViT
    "bert-base-uncased": (8192, "arxiv.org/abs/1907.11692"),  # RoBERTa, 8K sequences
    "bert-large-uncased": (8192, "arxiv.org/abs/1907.11692"),
    "efficientnet-b0": (4096, "DeepLearningExamples/blob/"),  # configs.yml optimizer_batch_size
    "resnext101-32x4d": (1024, "DeepLearningExamples/blob/"),  # configs.yml optimizer_batch_size
    "gpt2": (512, "language_models_are_unsupervised_multitask_learners.pdf"),  # GPT-2 paper, 2.3
    "dlrm-criteo-1tb": (65536, "Recommendation/DLRM/dlrm/scripts/main.py"),  # DeepLearningExamples' default
}


FAMILY_MODEL = {"vision-transformer": "vit-base-patch16-224"}  # a catalog model a family bound applies to


def test_every_bound_is_a_published_recipe_of_a_model_whose_activations_are_known() -> None:
    """A bound lets the plan grow the batch per GPU up to it, so its model's activations must grow with
    the batch: a model whose activation size is unknown (the Stable Diffusion UNet, counted as 0) gets
    no bound and keeps one sample a GPU rather than a batch the memory model cannot check."""
    prefix, tuning = "largest_global_batch.", ".finetune"
    bounds = {
        k[len(prefix) :]: c for k, c in CAT.conventions.items() if k.startswith(prefix) and not k.endswith(tuning)
    }
    tuned = {k[len(prefix) : -len(tuning)] for k in CAT.conventions if k.startswith(prefix) and k.endswith(tuning)}
    assert tuned <= set(bounds), tuned  # a fine-tuning recipe only beside a pretraining one
    assert {m: int(c.value) for m, c in bounds.items()} == {m: v for m, (v, _) in RECIPES.items()}
    for key, (value, where) in RECIPES.items():
        src = CAT.sources[bounds[key].source]
        model = FAMILY_MODEL.get(key, key)
        assert where in (src.url or ""), (key, src.url)
        small = make_estimate({"model": model, "task": "pretrain", "micro_batch": 2}, {"gpu": "a100-80gb-sxm:1"})
        large = make_estimate({"model": model, "task": "pretrain", "micro_batch": 8}, {"gpu": "a100-80gb-sxm:1"})
        assert 0 < small.memory.per_gpu.activations < large.memory.per_gpu.activations, model
        assert build_workload({"model": model, "task": "pretrain"}, CAT).batch_bound.samples == value
    unet = make_estimate({"model": "stable-diffusion-v1-5-unet", "task": "pretrain"}, {"gpu": "a100-80gb-sxm:1"})
    assert unet.memory.per_gpu.activations == 0
    # and `estimate` says memory does not bound its batch, not a "largest that fits" of the search's limit
    assert "micro_batch" not in unet.as_dict()["memory"]["largest_fitting"]
    assert "memory does not limit the micro-batch below 16,777,216" in " ".join(unet.as_dict()["assumptions"])
    assert build_workload({"model": "stable-diffusion-v1-5-unet", "task": "pretrain"}, CAT).batch_bound is None


def test_a_vit_plan_sizes_its_batch_from_the_vit_recipe_and_replays() -> None:
    """ViT-B/16 at one sample a GPU is bound by what every step costs whatever its batch: the host's kernel launches
    and the foreach AdamW update of 86M fp32 parameters (about 82 images/s on an RTX 4090, the update 8.6 ms);
    sized within the ViT paper's 4,096 the chosen row is bound by the GPU, not the host (plain AMP under DDP,
    as timm trains it: the fp32 residual stream makes it memory-bound), and its command replays it."""
    work = {"model": "vit-base-patch16-224", "task": "pretrain", "samples": 100_000_000}
    result = plan_json(make_plan(work, {"max_gpus": 1, "gpus": "rtx-4090"}))
    chosen = result["candidates"][0]
    w = chosen["workload"]
    assert 32 <= w["micro_batch"] <= 4096
    assert chosen["bottleneck"] in ("compute", "memory-bandwidth")
    assert w["zero"] == 0
    texts = [r["text"] for r in chosen["why"]]
    assert any("(at most 4,096 for vit-base-patch16-224: https://arxiv.org/abs/2010.11929)" in t for t in texts), texts
    one = make_estimate({**work, "micro_batch": 1}, {"gpu": "rtx-4090:1"})
    assert one.training is not None
    assert one.bottleneck in ("host", "memory-bandwidth") and one.training.samples_per_second < 100
    assert one.training.terms["optimizer_step"] > one.training.terms["compute"]
    assert chosen["training"]["samples_per_second"] > 5 * one.training.samples_per_second
    est = _estimate(chosen["command"])
    assert est["workload"]["micro_batch"] == w["micro_batch"]
    assert est["training"]["total_seconds"] == pytest.approx(chosen["training"]["total_seconds"], rel=0.005)


def test_a_fine_tune_is_bounded_by_the_fine_tuning_recipe_not_the_pretraining_one() -> None:
    """RoBERTa's 8K sequences and the ViT paper's 4,096 are pretraining batches; BERT fine-tunes at 16 or
    32 (its paper, appendix A.3) and ViT at 512 (Table 4), so a fine-tune is sized within those; a model
    with no fine-tuning recipe in the catalog (ResNet-50) is not sized at all."""
    expect = {"bert-base-uncased": (32, "1810.04805"), "bert-large-uncased": (32, "1810.04805")}
    expect["vit-base-patch16-224"] = (512, "2010.11929")
    for model, (value, paper) in expect.items():
        bound = build_workload({"model": model, "task": "finetune"}, CAT).batch_bound
        assert bound is not None and bound.samples == value and paper in bound.source, model
        assert build_workload({"model": model, "task": "pretrain"}, CAT).batch_bound.samples > value, model
    lora = build_workload({"model": "bert-base-uncased", "task": "finetune", "method": "lora"}, CAT)
    assert lora.batch_bound is not None and lora.batch_bound.samples == 32
    assert build_workload({"model": "resnet-50", "task": "finetune"}, CAT).batch_bound is None
    plan = plan_json(make_plan({"model": "bert-base-uncased", "task": "finetune", "samples": 1_000_000}, {}))
    w = plan["candidates"][0]["workload"]
    assert 1 < w["global_batch"] <= 32 and w["micro_batch"] > 1


def test_a_vit_config_takes_the_vit_recipes_bound(tmp_path) -> None:
    """A vision transformer read from its config.json has no catalog entry of its own: it takes the ViT
    paper's batches (every ViT pre-trained at 4,096 and fine-tuned at 512), so its plan is not sized at
    one sample a GPU. ViT-g/14's shapes (Zhai et al. 2022: width 1,664, depth 48, MLP 8,192)."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(VIT_G))
    pre = build_workload({"model": str(path), "task": "pretrain"}, CAT).batch_bound
    assert pre is not None and pre.samples == 4096 and "2010.11929" in pre.source
    tune = build_workload({"model": str(path), "task": "finetune"}, CAT).batch_bound
    assert tune is not None and tune.samples == 512
    llm = build_workload({"model": "llama-2-7b", "task": "pretrain"}, CAT)
    assert llm.batch_bound is None  # a language model is no vision transformer
