"""Availability: failures priced into a training run at its scale (Llama 3's interruption rate,
Young/Daly checkpoints), and N+1 serving spread over nodes, down to the deploy manifests."""

import math
from pathlib import Path

import pytest

from gpuwise.api import make_estimate, make_plan
from gpuwise.catalog import load_catalog
from gpuwise.deploy.common import DeployOptions
from gpuwise.deploy.manifests import plan_manifests
from gpuwise.estimate.reliability import (
    _daly_interval,
    at_scale_ceiling,
    interruptions_per_gpu_hour,
    straggler_share,
    training_reliability,
)
from gpuwise.i18n import reason_text
from gpuwise.planfile import read_plan_file
from gpuwise.report.as_json import candidate_json

CAT = load_catalog()
EXAMPLES = Path(__file__).parent.parent / "examples"


def test_the_interruption_rate_is_the_llama3_count_per_gpu_hour():
    # Dubey et al. 2024, Table 5: 419 unexpected interruptions, 54 days, 16,384 GPUs
    assert interruptions_per_gpu_hour(CAT) == pytest.approx(419 / (54 * 24 * 16384), rel=1e-12)


def test_daly_interval_hand_computed():
    # delta = 50 s, M = 10,000 s: sqrt(2 x 50 x 10,000) - 50 = 1,000 - 50 = 950 s
    assert _daly_interval(50.0, 10_000.0) == pytest.approx(950.0)
    assert _daly_interval(6_000.0, 10_000.0) == 10_000.0  # delta past M/2: checkpoint once per MTBF


def test_goodput_at_llama3_scale_matches_the_reported_effective_training_time():
    """16,384 H100 on a 405B model: one interruption about every 3 hours, goodput near the > 90 % Meta
    reports (reliability.yaml: reported_effective_training_time)."""
    est = make_estimate(
        {"model": "llama-3.1-405b", "task": "pretrain", "tokens": "15T", "seq": 8192, "global_batch": 2048}
        | {"tp": 8, "pp": 16, "zero": 1},
        {"gpu": "h100-sxm:16384"},
    )
    r = training_reliability(est, CAT)
    assert r.mtbf_seconds / 3600 == pytest.approx(3.09, abs=0.01)  # "one failure every three hours"
    reported = CAT.reliability["reported_effective_training_time"].value
    assert reported - 0.02 <= r.goodput <= reported + 0.05
    useful = est.training.total_seconds + r.at_scale_seconds + r.straggler_seconds
    assert r.expected_seconds == pytest.approx(r.start_seconds + useful / r.goodput)
    assert r.failure_free_seconds + sum(r.losses.values()) == pytest.approx(r.expected_seconds)


def test_a_deadline_on_thousands_of_gpus_includes_the_failures():
    work = {"model": "llama-2-70b", "task": "pretrain", "tokens": "2T", "global_batch": 1024, "seq": 4096}
    result = make_plan(work, {"deadline": "60d", "gpus": "h100-sxm", "max_gpus": 2048})
    big = [c for c in result.candidates if c.est.hardware.count >= 1024]
    assert big
    for c in big:
        r = c.reliability
        assert r is not None and r.goodput < 1
        assert c.meets["deadline"].value == pytest.approx(r.expected_seconds)
        assert r.expected_seconds > c.est.training.total_seconds
        d = candidate_json(c)
        assert d["reliability"]["goodput"] == pytest.approx(r.goodput)
        assert d["cost"]["expected_total_usd"] > d["cost"]["total_usd"]


def _deploy_options(result) -> DeployOptions:
    """An AMD GPU chosen for a model Triton serves needs a ROCm serving image (there is no stock one)."""
    amd = result.chosen.est.hardware.gpu.vendor == "amd"
    return DeployOptions(engine="triton", image="registry.example/tritonserver-rocm:24.05") if amd else DeployOptions()


def test_redundancy_one_on_the_recommender_service_gives_two_replicas_on_two_nodes():
    work, reqs, costs = read_plan_file(EXAMPLES / "ecommerce-recsys-serving.yaml")
    plain = make_plan(work, reqs, costs).chosen
    result = make_plan(work, {**reqs, "redundancy": 1}, costs)
    c = result.chosen
    assert c.replicas >= 2 and c.serving.nodes >= 2
    assert c.serving.replicas_needed + 1 == c.replicas
    assert c.cost > plain.cost  # the spare replica is paid for
    assert any(w.code == "serving.redundancy" and "N+1" in reason_text(w) for w in c.why)
    assert c.meets["redundancy"].ok and c.meets["redundancy"].why.code == "serving.spares"
    body = plan_manifests(result, _deploy_options(result)).find("Deployment")[0].body
    spec = body["spec"]["template"]["spec"]
    spread = spec["topologySpreadConstraints"][0]
    assert spread["topologyKey"] == "kubernetes.io/hostname" and spread["maxSkew"] == 1
    assert spread["whenUnsatisfiable"] == "DoNotSchedule"
    anti = spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["topologyKey"] == "kubernetes.io/hostname"
    assert body["spec"]["replicas"] == c.replicas


def test_no_redundancy_no_spread():
    work, reqs, costs = read_plan_file(EXAMPLES / "ecommerce-recsys-serving.yaml")
    result = make_plan(work, reqs, costs)
    spec = plan_manifests(result, _deploy_options(result)).find("Deployment")[0].body["spec"]["template"]["spec"]
    assert "topologySpreadConstraints" not in spec and "affinity" not in spec
    assert not math.isnan(result.chosen.cost)


def test_states_offloaded_to_the_host_are_checkpointed_too():
    """ZeRO-Offload / FSDP cpu_offload keep the optimizer states (and parameters) in host memory;
    a checkpoint still saves them, so the write takes time and the interval is never 0 s (the
    GPU-resident bytes alone were 0, and owned plans printed 'checkpoint every 0 s')."""
    work = {"model": "llama-2-7b", "method": "lora", "tokens": "20M", "offload": ["optimizer", "params"]}
    est = make_estimate(work, {"gpu": "rtx-a4000:1"})
    per = est.memory.per_gpu
    offloaded = per.detail["offloaded_to_cpu"]
    assert offloaded > 0 and per.optimizer == 0
    r = training_reliability(est, CAT)
    # one GPU: nothing sharded, so the checkpoint is the GPU's weights plus what lives on the host
    assert r.checkpoint_bytes == pytest.approx(per.weights + offloaded)
    bandwidth = CAT.pipeline["parallel_fs_client_bytes_per_s"].value
    assert r.write_seconds == pytest.approx(r.checkpoint_bytes / bandwidth)
    assert r.interval_seconds > r.write_seconds > 0
    owned = make_plan(work, {"gpus": "rtx-a4000", "max_gpus": 1, "pricing": "owned"}).chosen
    text = reason_text(next(w for w in owned.why if w.code == "reliability.goodput"))
    assert "checkpoint every 0 s" not in text and "(0 s to write)" not in text


def test_the_straggler_share_is_megascales_loss_times_the_chance_of_a_slow_host():
    # 0.5 % of hosts slow (MegaScale 5.1); 0.7 of 55.2 MFU points lost while one is in the job (6.3)
    assert straggler_share(CAT, 1) == pytest.approx(0.0127 * 0.005)
    assert straggler_share(CAT, 2048) == pytest.approx(0.0127 * (1 - 0.995**2048))  # ~ 0.0127: one is always there
    assert straggler_share(CAT, 32) == pytest.approx(0.0127 * (1 - 0.995**32))  # 15 % of the time on 32 hosts


def test_the_at_scale_ceiling_is_the_best_published_mfu_at_that_count_or_beyond():
    best = at_scale_ceiling(CAT, "ampere", 2048)
    assert (best.id, best.mfu) == ("korthikanti-530b-2240", 0.542)  # 2,240 A100, 54.2 % (abstract)
    assert at_scale_ceiling(CAT, "ampere", 4096).mfu == 0.488  # MegaScale's Megatron-LM, 530B on 4,480
    assert at_scale_ceiling(CAT, "hopper", 16384).mfu == 0.41  # Llama 3 Table 4, row 2
    assert at_scale_ceiling(CAT, "hopper", 32768).mfu == 0.41  # none larger: the largest count published
    assert at_scale_ceiling(CAT, "hopper", 255) is None  # below 256 GPUs the time model stands alone
    assert at_scale_ceiling(CAT, "blackwell", 4096) is None  # no published run at scale on it


def test_a_layout_above_the_published_ceiling_is_stretched_to_it():
    """Llama 2 7B on 2,048 A100 plans at about 59 % MFU; no run on 2,048+ A100s published more than
    54.2 %: the expected time is the failure-free time x (modelled MFU / 54.2 %) before stragglers
    and failures, and the plan says so."""
    work = {"model": "llama-2-7b", "task": "pretrain", "tokens": "2T", "seq": 4096, "global_batch": 1024}
    est = make_estimate(work | {"tp": 2, "zero": 3}, {"gpu": "a100-80gb-sxm:2048"})
    t = est.training
    mfu = t.flops_per_step / t.step_seconds / (2048 * est.hardware.gpu.peak_flops["bf16"])
    assert mfu > 0.542 + 0.03  # above the published ceiling, so the stretch applies
    r = training_reliability(est, CAT)
    assert r.at_scale_mfu == 0.542 and r.at_scale_run == "korthikanti-530b-2240"
    assert r.at_scale_seconds == pytest.approx(t.total_seconds * (mfu / 0.542 - 1))
    share = straggler_share(CAT, est.hardware.nodes)
    assert r.straggler_seconds == pytest.approx((t.total_seconds + r.at_scale_seconds) * share)
    small = training_reliability(make_estimate(work | {"zero": 3}, {"gpu": "a100-80gb-sxm:128"}), CAT)
    assert small.at_scale_seconds == 0 and small.at_scale_mfu is None  # 128 GPUs: below the range


def test_estimate_says_the_expected_run_a_plan_ranks_by():
    """`estimate` carries the run's losses at its scale, so a plan row's command reproduces the
    expected time and cost the plan ranks it by (the failure-free figures stay beside them)."""
    from typer.testing import CliRunner

    from gpuwise.cli.app import app

    work = {"model": "llama-2-7b", "task": "pretrain", "tokens": "2T", "seq": 4096, "global_batch": 1024}
    est = make_estimate(work | {"tp": 2, "zero": 3}, {"gpu": "a100-80gb-sxm:2048"})
    r = est.reliability
    assert r == training_reliability(est, CAT)  # the same losses, computed once inside the estimate
    d = est.as_dict()
    assert d["reliability"]["expected_seconds"] == pytest.approx(r.expected_seconds)
    assert d["reliability"]["expected_gpu_hours"] == pytest.approx(r.expected_seconds * 2048 / 3600)
    # the training time's band, as the plan's deadline takes it: the same multipliers on the expected run
    total, band = d["training"]["total_seconds"], d["uncertainty"]["training.total_seconds"]
    for key in ("expected_seconds", "expected_gpu_hours"):
        expected, b = d["reliability"][key], d["uncertainty"][f"reliability.{key}"]
        assert b["low"] < expected < b["high"] and b["basis"] == band["basis"]
        assert b["high"] / expected == pytest.approx(band["high"] / total)
    hourly = d["cost"]["usd_per_hour"]
    assert d["cost"]["expected_total_usd"] == pytest.approx(hourly * r.expected_seconds / 3600)
    assert (
        d["cost"]["expected_total_usd"]
        > d["cost"]["total_usd"]
        == pytest.approx(hourly * est.training.total_seconds / 3600)
    )
    args = ["estimate", "--model", "llama-2-7b", "--task", "pretrain", "--tokens", "2T", "--seq", "4096"]
    args += ["--global-batch", "1024", "--tp", "2", "--zero", "3", "--gpu", "a100-80gb-sxm:2048"]
    out = CliRunner().invoke(app, args).output
    line = out.split("Expected with what the run loses", 1)[1].split("\nCost (", 1)[0].replace("\n", "")  # wrapped
    assert "at most 54% MFU as published at this scale" in line and "slow hosts" in line and "goodput" in line
    # no total (no --tokens or --samples), or serving: nothing to expect
    assert make_estimate({"model": "llama-2-7b", "method": "lora"}, {"gpu": "a100-80gb-sxm:1"}).reliability is None
    assert make_estimate({"model": "llama-2-7b"}, {"gpu": "a100-80gb-sxm:1"}).as_dict()["reliability"] is None


def test_a_recommenders_checkpoint_holds_every_table_once():
    """DLRM's tables are sharded over the 8 GPUs: the checkpoint saves all of them (24.03B parameters at 2 bytes)
    and one fp32 row-wise Adagrad state for each of their 187,767,399 rows, not the most loaded GPU's tables;
    the dense part (replicated, DDP) once, its optimizer states once."""
    est = make_estimate(
        {"model": "dlrm-criteo-1tb", "task": "pretrain", "optimizer": "sgd", "micro_batch": 4096, "samples": "1B"},
        {"gpu": "a100-80gb-sxm:8"},
    )
    per = est.memory.per_gpu
    tables, states = per.detail["embedding_tables"], per.detail["embedding_optimizer"]
    dense = per.weights - tables + per.optimizer - states
    r = training_reliability(est, CAT)
    assert r.checkpoint_bytes == pytest.approx(24_034_227_072 * 2 + 187_767_399 * 4 + dense)
    assert tables == 39_979_771 * 128 * 2  # the busiest GPU's: its largest table, 10.2 of the 48.1 GB
