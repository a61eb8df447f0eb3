"""The plan sizes the batch per GPU when the user names no batch, within the catalog's largest
converging global batch for the model; a given micro-batch stays; the chosen row's command replays."""

import json
import shlex
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from gpuwise.api import make_plan
from gpuwise.catalog import load_catalog
from gpuwise.cli.app import app
from gpuwise.plan.layouts import micro_batches
from gpuwise.report.as_json import plan_json
from gpuwise.workload import build_workload
from gpuwise.workload.specs import BatchBound

CAT = load_catalog()
RESNET = {"model": "resnet-50", "task": "pretrain", "samples": 20_000_000}
REQS = {"deadline": "2h"}
GOYAL = 8192  # Goyal et al. 2017: ResNet-50 ImageNet at minibatch 8k matches the small-batch error


def _estimate(command: str) -> dict:
    argv = shlex.split(command)
    assert argv[:2] == ["gpuwise", "estimate"], command
    result = CliRunner().invoke(app, [*argv[1:], "--json"])
    assert result.exit_code in (0, 1), (command, result.output)
    return json.loads(result.stdout)


def test_bound_is_read_from_the_catalog_only_when_no_batch_is_named() -> None:
    sized = build_workload(RESNET, CAT)
    assert sized.batch_bound == BatchBound(GOYAL, "Goyal et al. 2017")
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
    assert any(t.startswith(expect) and t.endswith("Goyal et al. 2017)") for t in texts), texts
    est = _estimate(chosen["command"])
    assert est["workload"]["micro_batch"] == w["micro_batch"]
    assert est["memory"]["per_gpu"]["total"] == pytest.approx(chosen["memory"]["per_gpu"]["total"], rel=0.005)
    assert est["training"]["step_seconds"] == pytest.approx(chosen["training"]["step_seconds"], rel=0.005)
    assert est["training"]["total_seconds"] == pytest.approx(chosen["training"]["total_seconds"], rel=0.005)
    # the largest power of two that fits: twice the batch per GPU runs out of memory (or passes the bound)
    doubled = shlex.split(chosen["command"])
    for flag in ("--micro-batch", "--global-batch"):
        i = doubled.index(flag)
        doubled[i + 1] = str(2 * int(doubled[i + 1]))
    if 2 * w["global_batch"] <= GOYAL:
        assert not _estimate(shlex.join(doubled))["memory"]["fits"]


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
