"""Measured rates replace the defaults and move the estimate the right way."""

import json
import subprocess
import sys

import pytest

from gpuwise.bench.calibrate import calibrations
from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate
from gpuwise.estimate.rates import LaunchTimes
from gpuwise.store import open_store
from gpuwise.store.results import LAUNCH_NAMES, HostFacts, Measurement
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


def _launch(store, inference, forward, backward, gpu=H100, busy=0.3):
    store.save_run(
        gpu,
        [
            Measurement("launch", name, value, "seconds", {"kernels_per_pass": 103, "gpu_busy_share": busy})
            for name, value in zip(LAUNCH_NAMES, (inference, forward, backward), strict=True)
        ],
        "gpuwise bench launch",
        False,
    )


def test_a_hosts_launch_times_are_the_median_of_its_runs(tmp_path):
    """gpuwise bench launch's three figures join the GPU model's calibration, each the median of the full
    runs; a run the GPU paced (busy above GPU_BOUND_SHARE) says nothing of the host, and a host measured
    without a GPU (no catalog id) calibrates nothing."""
    cpu_only = HostFacts("laptop", "cpu", 8, "cpu")
    with open_store(f"sqlite:///{tmp_path / 'c.db'}") as s:
        for inference, forward, backward in ((12e-6, 15e-6, 6e-6), (10e-6, 13e-6, 5e-6), (30e-6, 35e-6, 9e-6)):
            _launch(s, inference, forward, backward)
        _launch(s, 90e-6, 90e-6, 90e-6, busy=0.95)
        _launch(s, 90e-6, 90e-6, 90e-6, busy="0.1; rm -rf /")  # a share that is not a number: not used
        _launch(s, -1.0, 0.0, -2.0)  # no positive figure (the store refuses a non-finite one): not used
        _launch(s, 1e-6, 1e-6, 1e-6, gpu=cpu_only)
        cals = calibrations(s.results(include_quick=False))
    assert set(cals) == {"h100-sxm"}
    cal = cals["h100-sxm"]
    assert cal.launch == LaunchTimes(inference=12e-6, forward=15e-6, backward=6e-6)
    assert cal.matmul_flops == {} and cal.memory_bandwidth is None  # the default rates stay


def test_a_measured_host_sets_a_host_bound_step_and_an_eager_decode(tmp_path):
    """GPT-2 at batch 1 under the Trainer on an H100 is host-bound: with the measured launch times the step is
    forward kernels x 40 us + backward kernels x 30 us (estimate/dispatch.py counts them). A Transformers
    generate loop issues every kernel from Python without gradients: its decode step is at least its kernels
    at 35 us, not 23."""
    from gpuwise.estimate.dispatch import training_launches

    with open_store(f"sqlite:///{tmp_path / 'c.db'}") as s:
        _launch(s, 35e-6, 40e-6, 30e-6)
        cal = calibrations(s.results())["h100-sxm"]
    w = build_workload({"model": "gpt2", "task": "pretrain", "framework": "hf-trainer", "micro_batch": 1}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    est = estimate(w, hw, CAT, calibration=cal, search_largest=False)
    n = training_launches(w, 12, CAT)
    assert est.training.bottleneck == "host"
    assert est.training.step_seconds == pytest.approx(n.forward * 40e-6 + n.backward * 30e-6)
    assert any("measured: gpuwise bench launch" in a for a in est.as_dict()["assumptions"])
    gen = {"model": "llama-3.1-8b", "engine": "transformers", "input_tokens": 128, "output_tokens": 128}
    g = build_workload(gen, CAT)
    default = estimate(g, hw, CAT, search_largest=False)
    slow = estimate(g, hw, CAT, calibration=cal, search_largest=False)
    assert slow.inference.decode_seconds_per_token > default.inference.decode_seconds_per_token * 35 / 23 * 0.9
    assert any("35 us [" in a and "measured: gpuwise bench launch" in a for a in slow.as_dict()["assumptions"])
    # at the default the note says how to replace it; measured, it does not
    assert any("23 us; hosts differ" in a and "bench launch`" in a for a in default.as_dict()["assumptions"])
    assert not any("hosts differ" in a for a in slow.as_dict()["assumptions"] + est.as_dict()["assumptions"])
