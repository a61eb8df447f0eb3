"""Accuracy of the time model against published runs (corpus/data/published_perf.yaml).

docs/accuracy-time.md shows every case with its real error; these tests keep the calibration
honest, the coverage complete (every profile with runs), and the document current.
"""

import statistics
from pathlib import Path

import pytest

from corpus.perf_accuracy import BOUND, GOAL, TIME_MISSES, calibration_ratio, evaluate_all
from gpuwise.catalog import load_catalog

RESULTS = evaluate_all(load_catalog())
ROOT = Path(__file__).resolve().parent.parent
CHECKED = [r for r in RESULTS if r.checked]
ERR = {r.id: r.error or 0.0 for r in CHECKED}  # a checked case always has an error


def test_enough_checked_cases_on_enough_gpus():
    training = [r for r in CHECKED if r.kind == "training"]
    inference = [r for r in CHECKED if r.kind == "inference"]
    assert len(training) >= 12 and len(inference) >= 8
    assert len({r.gpu for r in CHECKED}) >= 4


def test_the_fitted_efficiencies_are_calibrated_pooled_over_stacks():
    """framework_efficiency.yaml is fit_efficiency.py's output (tests/test_fits.py runs it with --check
    under the holdout guard); pooled over stacks, each fitted to its own median, ours/published is ~1."""
    assert 0.9 <= calibration_ratio(RESULTS) <= 1.1  # pooled over stacks, each fitted to its own median


def test_llm_training_is_mostly_within_the_goal():
    llm = [r for r in CHECKED if r.kind == "training" and "resnet" not in r.id and "bert" not in r.id]
    within = [r for r in llm if abs(ERR[r.id]) <= GOAL]
    assert len(within) >= 0.6 * len(llm)
    assert statistics.median(abs(ERR[r.id]) for r in llm) <= GOAL


def test_llm_serving_on_efficient_engines_is_within_the_goal():
    trt = [
        r
        for r in CHECKED
        if r.kind == "inference"
        and r.id.startswith("trtllm")
        and "-tp" not in r.id
        and r.metric == "output_tokens_per_second"
    ]
    assert len(trt) >= 5
    assert all(abs(ERR[r.id]) <= 0.3 for r in trt), [(r.id, round(ERR[r.id], 2)) for r in trt]


def test_every_case_evaluates_or_says_why_not():
    for r in RESULTS:
        assert r.ours is not None or r.note, r.id


LLM_TRAINING = [r for r in CHECKED if r.kind == "training" and "resnet" not in r.id and "bert" not in r.id]


@pytest.mark.parametrize("r", LLM_TRAINING, ids=lambda r: r.id)
def test_each_checked_training_run_within_its_regression_bound(r):
    bound, why = TIME_MISSES.get(r.id, (BOUND, ""))
    assert abs(ERR[r.id]) <= bound, f"{r.id}: {ERR[r.id]:+.1%} vs bound {bound:.0%} ({r.source}, {r.where}) {why}"


@pytest.mark.parametrize("case_id", sorted(TIME_MISSES))
def test_known_training_misses_are_still_misses(case_id):
    r = next(r for r in LLM_TRAINING if r.id == case_id)
    assert abs(ERR[r.id]) > BOUND, f"{case_id} is now within ±{BOUND:.0%}: drop it from TIME_MISSES"


def test_enough_new_training_runs_of_the_framework_profiles():
    """Coverage: at least 60 training runs from the profiles' own published tables,
    LoRA and QLoRA throughput among them, every profile with runs fitted out of sample."""
    import yaml

    from corpus.perf_accuracy import RUNS, load

    new = yaml.safe_load(RUNS.read_text(encoding="utf-8"))["cases"]
    assert len(new) >= 60
    methods = {c["inputs"].get("method") for c in new}
    assert {"lora", "qlora"} <= methods
    assert len(load()["cases"]) == len({c["id"] for c in load()["cases"]}), "case ids must be unique"


@pytest.mark.parametrize(
    ("text", "network"),
    [
        ("8x 200 Gbps HDR InfiniBand per node (Selene)", "8xib-hdr"),  # Selene: eight HDR HCAs a DGX A100
        ("eight 200G NICs per 8-GPU server, multi-rail", "8xib-hdr"),
        ("8x ConnectX-7 IB NDR 400Gb/s per node", "8xib-ndr"),
        ("8xHDR 200 Gb/s per node", "8xib-hdr"),  # the count written against the fabric
        ("eighteen HDR ports", "ib-hdr"),  # a word that only begins like a count is not one
        ("8x RoCE NICs per node; ASSUMED 400 Gb/s each", "8xroce-400g"),
        ("InfiniBand HDR 200 Gb/s", "ib-hdr"),  # a port named without a count: one a node
        ("RoCE, 400 Gbps per GPU", None),  # one NIC a GPU: the reference node
    ],
)
def test_a_source_s_nic_count_per_node_reaches_the_estimate(text, network):
    """The harness passes the NICs a node has, as the source counts them, not one port per node."""
    from corpus.perf_accuracy import _network

    assert _network(text) == network
