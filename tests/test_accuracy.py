"""Accuracy against published figures (tests/data/published_memory.yaml, each with its source).

docs/accuracy.md shows every case with its real error; these tests hold the checked ones to
the tolerance and keep the document current.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog

from .accuracy import KNOWN_MISSES, evaluate_all

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
    assert r.checked and abs(r.error) > r.tolerance, f"{case_id} is now within tolerance: drop it from KNOWN_MISSES"


def test_enough_measured_finetune_cases_for_each_method():
    good = [
        r for r in CHECKED if r.kind == "finetune_peak" and r.id not in KNOWN_MISSES and abs(r.error) <= r.tolerance
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
