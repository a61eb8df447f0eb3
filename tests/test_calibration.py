"""Measured rates replace the defaults and move the estimate the right way."""

import json
import subprocess
import sys

from gpuwise.bench.calibrate import calibrations
from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate
from gpuwise.store import open_store
from gpuwise.store.results import HostFacts, Measurement
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
H100 = HostFacts("n1", "cpu", 64, "cuda", gpu_model="NVIDIA H100 80GB HBM3", gpu_id="h100-sxm", gpu_count=8)


def _measure(store, bf16, bw, quick=False):
    store.save_run(
        H100,
        [
            Measurement("matmul", "best", bf16, "FLOP/s", {"dtype": "bf16"}),
            Measurement("membw", "copy", bw, "bytes/s", {"bytes": 2**30}),
        ],
        "gpuwise bench",
        quick,
    )


def test_calibration_is_the_median_of_full_runs(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'c.db'}") as s:
        for flops in (6.0e14, 6.5e14, 7.0e14):
            _measure(s, flops, 2.9e12)
        _measure(s, 1.0e12, 1.0e9, quick=True)  # quick runs never calibrate
        cal = calibrations(s.results(include_quick=False))["h100-sxm"]
    assert cal.matmul_flops["bf16"] == 6.5e14 and cal.memory_bandwidth == 2.9e12


def test_slower_measured_matmul_slows_the_training_estimate(tmp_path):
    w = build_workload({"model": "llama-2-7b", "task": "pretrain", "micro_batch": 4, "seq": 2048}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    default = estimate(w, hw, CAT, search_largest=False).training
    with open_store(f"sqlite:///{tmp_path / 'c.db'}") as s:
        _measure(s, 0.5 * 989.4e12, 2.0e12)  # half the peak, below the cited 80 %
        cal = calibrations(s.results())["h100-sxm"]
    slow = estimate(w, hw, CAT, calibration=cal, search_largest=False)
    assert slow.training.step_seconds > default.step_seconds * 1.3
    assert any("measured" in a for a in slow.as_dict()["assumptions"])


def test_faster_measured_bandwidth_speeds_up_decode(tmp_path):
    w = build_workload({"model": "llama-2-7b", "input_tokens": 128, "output_tokens": 128}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    base = estimate(w, hw, CAT, search_largest=False).inference
    with open_store(f"sqlite:///{tmp_path / 'c.db'}") as s:
        _measure(s, 8.0e14, 0.95 * 3.35e12)
        cal = calibrations(s.results())["h100-sxm"]
    fast = estimate(w, hw, CAT, calibration=cal, search_largest=False).inference
    assert fast.decode_seconds_per_token < base.decode_seconds_per_token


def test_cli_estimate_calibrated_from_the_store(tmp_path):
    db = f"sqlite:///{tmp_path / 'c.db'}"
    with open_store(db) as s:
        _measure(s, 0.4 * 989.4e12, 2.0e12)
    args = [
        sys.executable,
        "-m",
        "gpuwise.cli.app",
        "estimate",
        "--model",
        "llama-2-7b",
        "--method",
        "lora",
        "--gpu",
        "h100-sxm",
        "--json",
    ]
    plain = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    cal = json.loads(
        subprocess.run([*args, "--calibrated", "--db", db], capture_output=True, text=True, check=True).stdout
    )
    assert cal["training"]["step_seconds"] > plain["training"]["step_seconds"]


def test_plan_uses_measured_rates(tmp_path):
    from gpuwise.api import make_plan, measured_calibrations

    db = f"sqlite:///{tmp_path / 'c.db'}"
    with open_store(db) as s:
        _measure(s, 0.3 * 989.4e12, 1.0e12)  # a badly underperforming H100 fleet
    work = {"model": "llama-2-7b", "method": "lora", "tokens": "50M"}
    base = make_plan(work, {"gpus": "h100-sxm"})
    slow = make_plan(work, {"gpus": "h100-sxm"}, calibrations=measured_calibrations(db))
    one = [next(c for c in r.candidates if c.est.hardware.count == 1) for r in (base, slow)]
    assert one[1].time > one[0].time * 1.5  # same configuration, slower measured matmul
    measured = [n for n in slow.notes if n.code == "note.measured"]
    assert measured and measured[0].get("gpus") == ("h100-sxm",)
    from gpuwise.i18n import reason_text

    assert "measured rates" in reason_text(measured[0])
