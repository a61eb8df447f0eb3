"""Accuracy against published figures (corpus/data/published_memory.yaml, each with its source).

docs/accuracy.md shows every case with its real error; these tests hold the checked ones to
the tolerance and keep the document current.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from corpus.memory_accuracy import KNOWN_MISSES, MISS_BOUNDS, evaluate_all
from gpuwise.catalog import load_catalog

from .conftest import load_script

RESULTS = evaluate_all(load_catalog())
CHECKED = [r for r in RESULTS if r.checked]
ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("r", [r for r in CHECKED if r.id not in KNOWN_MISSES], ids=lambda r: r.id)
def test_checked_case_within_tolerance(r):
    assert abs(r.error) <= r.tolerance, (
        f"{r.id}: ours {r.ours:.4g} B vs published {r.published:.4g} B ({r.source}, {r.where})"
    )


@pytest.mark.parametrize("case_id", sorted(KNOWN_MISSES))
def test_known_misses_are_still_misses(case_id):
    r = next(r for r in RESULTS if r.id == case_id)
    assert r.checked and r.error is not None
    assert abs(r.error) > r.tolerance, f"{case_id} is now within tolerance: drop it from KNOWN_MISSES"


@pytest.mark.parametrize("case_id", sorted(MISS_BOUNDS))
def test_known_misses_stay_within_their_regression_bound(case_id):
    r = next(r for r in RESULTS if r.id == case_id)
    assert r.error is not None and abs(r.error) <= MISS_BOUNDS[case_id], f"{case_id}: {r.error:+.1%}"


def test_measured_training_peaks_name_what_they_measured():
    """Every published training peak says which tool's peak it is (as_reported key), and the
    18 torchtitan peaks are there."""
    import yaml

    from corpus.memory_accuracy import RUNS, measured_as

    cases = yaml.safe_load(RUNS.read_text(encoding="utf-8"))["cases"]
    assert sum(c["kind"] == "training_peak" for c in cases) >= 18
    assert len(cases) >= 30  # the framework profiles' 30 measured peaks
    assert {measured_as(c) for c in cases} <= {"max_allocated", "max_reserved", "device_used"}
    assert all(c.get("measured_as") for c in cases if c["source"] != "torchtune-lora-tutorial")


def test_enough_measured_finetune_cases_for_each_method():
    good = [
        r
        for r in CHECKED
        if r.kind == "finetune_peak"
        and r.id not in KNOWN_MISSES
        and r.error is not None
        and abs(r.error) <= r.tolerance
    ]
    assert len(good) >= 6
    assert {r.method for r in good} == {"full", "lora", "qlora"}


def test_every_kind_is_covered():
    kinds = {r.kind for r in CHECKED}
    assert kinds >= {"finetune_peak", "inference_peak", "zero_model_states", "activations", "kv_cache", "weights"}


def test_accuracy_document_is_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "accuracy.py"), "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr


def _readme_block(text: str, begin: str, end: str) -> str:
    assert text.count(begin) == 1 and text.count(end) == 1, "README needs one accuracy block"
    return text[text.index(begin) : text.index(end) + len(end)]


def test_readme_accuracy_block_is_the_generated_one():
    from corpus.perf_accuracy import evaluate_all as evaluate_perf

    script = load_script("accuracy")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = _readme_block(readme, script.README_BEGIN, script.README_END)
    perf = evaluate_perf(load_catalog())
    assert block == script.render_readme(RESULTS, perf), "README accuracy block is stale: run scripts/accuracy.py"
    flat = " ".join(block.split())  # the block is wrapped; counts computed here, not by the script
    assert f"{len(RESULTS)} published figures, {len(CHECKED)} checked" in flat
    assert f"{len(perf)} published runs, {sum(r.checked for r in perf)} checked" in flat


def test_readme_summary_helpers_by_hand():
    script = load_script("accuracy")
    assert script._median_abs([0.1, -0.3, 0.2]) == pytest.approx(0.2)
    assert script._median_abs([0.1, -0.4]) == pytest.approx(0.25)  # even count: mean of the middle two
    assert script._median_abs([]) == 0.0
    text = f"intro\n{script.README_BEGIN}\nold\n{script.README_END}\nrest\n"
    new = f"{script.README_BEGIN}\nnew\n{script.README_END}"
    assert script._with_readme_block(text, new) == f"intro\n{new}\nrest\n"
    with pytest.raises(SystemExit, match="accuracy:begin"):
        script._with_readme_block("no markers", new)
