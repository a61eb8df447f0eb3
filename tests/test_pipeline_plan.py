"""The data pipeline as a design dimension: the e-commerce retrain gets a pipeline upgrade on a few
GPUs, with the GPU-only answer and its cost beside it."""

from pathlib import Path

import pytest

from gpuwise.api import make_plan
from gpuwise.catalog import load_catalog
from gpuwise.estimate.pipeline import pipeline_rate
from gpuwise.i18n import reason_text
from gpuwise.plan.layouts import hardware
from gpuwise.plan.pipeline_search import designs
from gpuwise.planfile import read_plan_file
from gpuwise.workload import build_workload

CAT = load_catalog()
EXAMPLE = Path(__file__).parent.parent / "examples" / "ecommerce-recsys-retrain.yaml"


def _plan():
    work, reqs, costs = read_plan_file(EXAMPLE)
    return make_plan(work, reqs, costs)


def test_designs_hand_computed():
    work, _, _ = read_plan_file(EXAMPLE)
    job = build_workload(work, CAT)
    ds = {(d.cores, d.storage, d.fmt): d for d in designs(job, CAT, nodes=1)}
    hw = hardware(CAT.gpu("h100-sxm"), 2)
    # the user's pipeline: 2 GB/s / 500 B = 4.0M samples/s of reads, 32 cores / 10 us = 3.2M decoded
    assert pipeline_rate(ds[(32, "current", "as-is")].data, hw)[0] == pytest.approx(3.2e6)
    assert ds[(32, "current", "as-is")].usd_per_hour == 0
    # pre-processed shards: a fifth of the decode (pipeline.yaml) -> 16M decoded, reads bind at 4.0M
    assert pipeline_rate(ds[(32, "current", "preprocessed")].data, hw)[0] == pytest.approx(4.0e6)
    # twice the cores: 32 extra physical cores at the catalog's core-hour price
    assert ds[(64, "current", "as-is")].usd_per_hour == pytest.approx(32 * 0.0892)


def test_ecommerce_retrain_chooses_a_pipeline_upgrade_on_at_most_four_gpus():
    result = _plan()
    c = result.chosen
    assert c is not None and c.gpus <= 4, c.label
    assert c.pipeline is not None and (c.pipeline.format != "as-is" or c.pipeline.storage != "current")
    assert c.meets["deadline"].ok
    alt = c.pipeline.gpu_only
    assert alt is not None and alt.gpus > c.gpus and alt.cost > c.cost
    upgrade = next(w for w in c.why if w.code == "pipeline.upgrade")
    assert "GPU-only" in reason_text(upgrade) and upgrade.get("gpu_only_label") == alt.label


def test_the_report_shows_the_gpu_only_alternative_and_its_cost(tmp_path):
    from gpuwise.i18n import fmt_money
    from gpuwise.report import render_markdown

    result = _plan()
    text = render_markdown(result, {})
    alt = result.chosen.pipeline.gpu_only
    assert "GPU-only" in text and fmt_money(alt.cost) in text
    assert alt.label.split()[0] in text
