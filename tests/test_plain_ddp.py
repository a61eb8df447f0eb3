"""A model that is not a language model, with no stack named, trains as its trainers run it: plain DDP
(ZeRO-0). The plan's search keeps that layout wherever it fits, names it, and shards (FSDP) only where
DDP fits in no layout on the count, saying why; naming a stack searches every stage it runs."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpuwise.api import make_plan
from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate import memory
from gpuwise.estimate.rates import compute_rates
from gpuwise.i18n import reason_text
from gpuwise.plan.layouts import best_layout
from gpuwise.workload import build_hardware, build_workload

from .conftest import VIT_G

CAT = load_catalog()
RESNET = {"model": "resnet-50", "task": "pretrain", "samples": 1_280_000_000}


def test_a_resnet_on_eight_gpus_is_searched_as_ddp_and_a_named_stack_searches_its_stages() -> None:
    hw = build_hardware("h100-sxm:8", CAT)
    rates = compute_rates(hw.gpu, "bf16", CAT)
    work = build_workload(RESNET, CAT)
    assert work.plain_ddp and work.parallel.zero == 0
    ddp = best_layout(work, hw, CAT, rates)
    assert ddp.job is not None and ddp.job.parallel.zero == 0 and ddp.job.parallel.dp(8) == 8
    named = build_workload({**RESNET, "framework": "fsdp"}, CAT)
    assert not named.plain_ddp
    searched = best_layout(named, hw, CAT, rates)
    assert searched.job is not None and searched.timed > ddp.timed  # ZeRO-2 and -3 timed beside 0
    assert searched.samples_per_second >= ddp.samples_per_second
    # an explicit stage, or an option that needs sharding, is not the DDP default
    assert not build_workload({**RESNET, "zero": 3}, CAT).plain_ddp
    assert not build_workload({**RESNET, "offload": ["optimizer"]}, CAT).plain_ddp
    # a language model with no stack named takes its stack's sharding as before
    assert not build_workload({"model": "llama-2-7b", "task": "pretrain"}, CAT).plain_ddp


def test_every_multi_gpu_row_of_a_resnet_plan_is_ddp_and_the_chosen_says_so() -> None:
    result = make_plan(RESNET, {"deadline": "12h"})
    chosen = result.chosen
    assert chosen is not None and chosen.gpus > 1
    for c in result.candidates:
        assert c.est.workload.parallel.zero == 0, c.label
    said = [r for r in chosen.why if r.code == "layout.plain_ddp"]
    assert len(said) == 1 and said[0].params["count"] == chosen.gpus
    assert "plain DistributedDataParallel over" in reason_text(said[0], "en")
    assert "普通 DistributedDataParallel" in reason_text(said[0], "zh")


def test_where_ddp_fits_nowhere_the_plan_shards_and_says_why(tmp_path) -> None:
    """ViT-g/14 under plain AMP keeps fp32 weights, gradients and AdamW's two moments, 16 bytes a parameter
    (29 GB): no DDP layout fits a 24 GB RTX 4090, and DDP replicates the whole model (no tensor parallelism);
    sharded, it fits, and the plan says why it shards."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(VIT_G))
    work = {"model": str(path), "task": "pretrain", "samples": 10_000_000}
    hw = build_hardware("rtx-4090:4", CAT)
    job = build_workload(work, CAT)
    assert job.plain_ddp and job.model.params * 16 > hw.gpu.capacity_bytes
    assert memory(replace(job, micro_batch=1), hw, CAT).per_gpu.total > hw.gpu.capacity_bytes
    choice = best_layout(job, hw, CAT, compute_rates(hw.gpu, "bf16", CAT))
    assert choice.job is not None and choice.job.parallel.zero >= 2
    result = make_plan(work, {"gpus": "rtx-4090", "pricing": "owned", "deadline": "5d"})
    chosen = result.chosen
    assert chosen is not None and chosen.gpus > 1 and chosen.est.workload.parallel.zero >= 2
    said = [r for r in chosen.why if r.code == "layout.ddp_does_not_fit"]
    assert len(said) == 1 and said[0].params["zero"] == chosen.est.workload.parallel.zero
    assert "fits in no layout on" in reason_text(said[0], "en")
    assert "放不下" in reason_text(said[0], "zh")
    assert not any(r.code == "layout.plain_ddp" for r in chosen.why)


def test_a_diffusion_pipeline_is_served_not_trained() -> None:
    """A whole Stable Diffusion pipeline is sampling (text encoder, 51 UNet calls, VAE decoder): training
    it would time the backward of every denoising step. Refused with the model that trains, the UNet."""
    for model in ("stable-diffusion-v1-5", "stable-diffusion-v1-5-no-safety-checker"):
        for task in ("pretrain", "finetune"):
            with pytest.raises(UsageError, match="--model stable-diffusion-v1-5-unet"):
                build_workload({"model": model, "task": task}, CAT)
    assert build_workload({"model": "stable-diffusion-v1-5-unet", "task": "pretrain"}, CAT).plain_ddp


def test_the_estimate_and_the_launch_say_plain_ddp(tmp_path) -> None:
    """The stack's JSON id stays the profile's (fsdp: "PyTorch FSDP / DDP with AMP"); the assumptions and
    a Slurm launch say it runs as plain DDP, and a named stack is not relabelled."""
    from typer.testing import CliRunner

    from gpuwise.api import make_estimate
    from gpuwise.cli.app import app

    est = make_estimate({**RESNET, "micro_batch": 256}, {"gpu": "a100-80gb-sxm:8"})
    assert any("run as plain DDP (ZeRO-0)" in a for a in est.as_dict()["assumptions"])
    named = make_estimate({**RESNET, "micro_batch": 256, "framework": "fsdp"}, {"gpu": "a100-80gb-sxm:8"})
    assert not any("plain DDP" in a for a in named.as_dict()["assumptions"])
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "workload:\n  model: resnet-50\n  task: pretrain\n  samples: 1.28e9\nrequirements:\n  deadline: 12h\n"
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["deploy", str(plan), "--target", "slurm", "-o", str(out)])
    assert result.exit_code == 0, result.output
    head = " ".join(line.lstrip("# ") for line in (out / "train.sbatch").read_text().splitlines()[:5])
    assert "plain DDP (torchrun, DistributedDataParallel, ZeRO-0)" in head
