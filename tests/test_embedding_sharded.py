"""Recommenders train embedding-sharded (TorchRec's DistributedModelParallel, the DLRM reference):
the tables split over the GPUs, the dense part replicated under DDP. The plan searches that layout
and co-designs the data pipeline at every pricing; it never buys GPUs for their hosts' loaders.

The e-commerce DeepFM (catalog models.yaml): tables of 10,000,000 + 5,000 + 50,000 + 8 + 24 rows of
128 and one first-order table of 10,055,032 rows of 1, i.e. 1,280,000,000 + 640,000 + 6,400,000 +
1,024 + 3,072 + 10,055,032 = 1,297,099,128 table parameters; of its 1,297,676,730 parameters
1,297,676,730 - 1,297,099,128 = 577,602 are dense.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpuwise.api import make_plan
from gpuwise.catalog import GenericArch, load_catalog
from gpuwise.estimate import estimate
from gpuwise.estimate.comm import collective, topology
from gpuwise.i18n import reason_text
from gpuwise.plan.results import Code
from gpuwise.plan.search import _rank_key
from gpuwise.planfile import read_plan_file
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()
EXAMPLE = Path(__file__).parent.parent / "examples" / "ecommerce-recsys-retrain.yaml"
TABLE_PARAMS = 1_297_099_128
DENSE_PARAMS = 577_602
PRICINGS = ("owned", "on-demand", "spot")  # no 1-year commitment in the catalog is dated within 12 months


def _job(**opts: object) -> TrainingJob:
    base = {"model": "deepfm-ecommerce", "task": "pretrain", "precision": "bf16", "micro_batch": 8192}
    job = build_workload({**base, **opts}, CAT)
    assert isinstance(job, TrainingJob)
    return job


def _dp_seconds(job: TrainingJob, gpu: str) -> float:
    t = estimate(job, build_hardware(gpu, CAT), CAT).training
    assert t is not None
    return t.terms["data_parallel_comm"]


@pytest.fixture(scope="module")
def plans():
    work, reqs, costs = read_plan_file(EXAMPLE)
    return {p: make_plan(work, {**reqs, "pricing": p}, costs) for p in PRICINGS}


def test_the_catalog_model_has_the_hand_counted_tables():
    model = _job().model
    assert isinstance(model, GenericArch)
    assert model.embedding_params == TABLE_PARAMS
    assert model.dense_params == DENSE_PARAMS


def test_the_dense_gradients_alone_are_all_reduced():
    """DDP over the dense part: 577,602 bf16 gradients = 1,155,204 B, one bucket, all-reduced over the
    2 GPUs of one node after the backward that produced them (the last bucket is exposed)."""
    job = _job(zero=0)
    hw = build_hardware("rtx-3090:2", CAT)
    expected = collective("all_reduce", DENSE_PARAMS * 2, 2, topology(hw, CAT, hw.network), False)
    assert _dp_seconds(job, "rtx-3090:2") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("zero", [0, 2, 3])
def test_the_data_parallel_traffic_does_not_grow_with_the_tables(zero):
    """Four times the rows (the same dimensions, so the same looked-up vectors): the tables are
    sharded and updated in place, so no ZeRO stage gathers or reduces any of them."""
    job = _job(zero=zero)
    model = job.model
    assert isinstance(model, GenericArch)
    bigger = replace(
        model,
        embedding_tables=tuple((rows * 4, dim) for rows, dim in model.embedding_tables),
        params=model.params + 3 * model.embedding_params,
    )
    assert bigger.dense_params == DENSE_PARAMS
    assert _dp_seconds(replace(job, model=bigger), "rtx-3090:2") == _dp_seconds(job, "rtx-3090:2")


@pytest.mark.parametrize("pricing", PRICINGS)
def test_every_pricing_trains_embedding_sharded_with_a_co_designed_pipeline(plans, pricing):
    c = plans[pricing].chosen
    assert c is not None, pricing
    job = c.est.workload
    assert isinstance(job, TrainingJob)
    assert job.parallel.zero == 0 and job.parallel.tp == 1 and job.parallel.pp == 1
    assert "embedding-sharded" in c.label and "zero" not in c.label
    # the pipeline is redesigned and the GPUs, not the loaders, set the pace
    assert c.pipeline is not None and (c.pipeline.storage, c.pipeline.format) != ("current", "as-is")
    assert c.est.bottleneck != "data-pipeline" and not c.hosts_for_data
    alt = c.pipeline.gpu_only
    assert alt is not None and c.cost is not None and alt.cost > c.cost
    layout = next(w for w in c.why if w.code == Code.TABLES_LAYOUT)
    assert layout.get("table_params") == TABLE_PARAMS / c.gpus
    assert layout.get("dense_params") == DENSE_PARAMS
    assert "sharded over the" in reason_text(layout) and "嵌入表" in reason_text(layout, "zh")


@pytest.mark.parametrize("pricing", PRICINGS)
def test_gpus_bought_for_their_hosts_rank_after_every_plan_whose_gpus_do_the_work(plans, pricing):
    ranked = plans[pricing].candidates
    hosts = [i for i, c in enumerate(ranked) if c.hosts_for_data]
    working = [i for i, c in enumerate(ranked) if c.ok and not c.hosts_for_data]
    assert hosts and working, pricing  # the GPU-only answers buy nodes for their loaders
    assert max(working) < min(i for i in hosts if ranked[i].ok)
    for i in hosts:
        c = ranked[i]
        assert c.pipeline is None and c.est.bottleneck == "data-pipeline" and c.est.hardware.nodes > 1
        assert any(w.code == Code.HOSTS_FOR_DATA for w in c.why), c.label


def test_a_cheaper_plan_that_buys_hosts_still_ranks_after_one_whose_gpus_do_the_work(plans):
    """Were the GPU-only answer the cheaper one (a lower price for its instances), its extra nodes
    would still be bought for their loaders: the ranking puts it after the co-designed plan."""
    result = plans["on-demand"]
    chosen = result.chosen
    hosts = next(c for c in result.candidates if c.hosts_for_data and c.ok)
    assert chosen is not None and chosen.cost is not None and hosts.usd_per_hour is not None
    cheap = replace(hosts, usd_per_hour=hosts.usd_per_hour * chosen.cost / (hosts.cost or 1) / 10)
    assert cheap.cost is not None and cheap.cost < chosen.cost
    ranked = sorted([cheap, chosen], key=lambda c: _rank_key(c, result.requirements, 0.01))
    assert ranked[0] is chosen
