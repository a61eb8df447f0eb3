"""estimate --layout auto: the layout a plan chooses on exactly the GPUs given, timed, and named with
the command that reproduces it; refused beside layout options, for serving and with --calibrated."""

import json
import shlex

import pytest
from typer.testing import CliRunner

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.cli.app import app
from gpuwise.errors import UsageError
from gpuwise.estimate.rates import compute_rates
from gpuwise.plan.layouts import best_layout
from gpuwise.workload import build_hardware, build_workload

from .conftest import run_process

CAT = load_catalog()
RUNNER = CliRunner()
WORK = {"model": "llama-2-13b", "task": "pretrain", "tokens": "100B", "seq": 4096, "global_batch": 512}


def _json(args: list[str]) -> dict:
    result = RUNNER.invoke(app, ["estimate", *args, "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_auto_times_the_layout_the_plan_search_chooses_and_its_command_reproduces_it():
    hw = build_hardware("h100-sxm:64", CAT)
    work = build_workload(WORK, CAT)
    choice = best_layout(work, hw, CAT, compute_rates(hw.gpu, "bf16", CAT), level=0.8)
    est = make_estimate(WORK | {"layout": "auto"}, {"gpu": "h100-sxm:64"})
    assert est.workload.parallel == choice.job.parallel and est.workload.micro_batch == choice.job.micro_batch
    assert est.workload.recompute == choice.job.recompute
    # the default layout (plain data parallelism, ZeRO-0) does not fit 13B on 80 GB; the searched one does
    assert not make_estimate(WORK, {"gpu": "h100-sxm:64"}).memory.fits and est.memory.fits
    note = next(n for n in est.notes if n.startswith("layout: the fastest that fits on 64 x h100-sxm"))
    command = note.split("the same estimate: ", 1)[1]
    again = _json(shlex.split(command)[2:])
    assert again["training"]["step_seconds"] == pytest.approx(est.training.step_seconds, rel=1e-12)
    assert again["memory"]["per_gpu"]["total"] == pytest.approx(est.memory.per_gpu.total, rel=1e-12)
    assert again["reliability"]["expected_seconds"] == pytest.approx(est.reliability.expected_seconds, rel=1e-12)


def test_auto_refuses_layout_options_beside_it_serving_and_calibrated():
    with pytest.raises(UsageError, match=r"drop --tp, --zero \(a flag or a key of the workload file\), or drop"):
        make_estimate(WORK | {"layout": "auto", "tp": 2, "zero": 1}, {"gpu": "h100-sxm:64"})
    with pytest.raises(UsageError, match=r"drop --sequence-parallel"):  # the search sets it with tensor parallelism
        make_estimate(WORK | {"layout": "auto", "sequence_parallel": True}, {"gpu": "h100-sxm:64"})
    with pytest.raises(UsageError, match="only apply to training"):
        make_estimate({"model": "llama-2-13b", "task": "inference", "layout": "auto"}, {"gpu": "h100-sxm:2"})
    proc = run_process("estimate", "--model", "llama-2-13b", "--layout", "sideways", "--gpu", "h100-sxm:8", timeout=60)
    assert proc.returncode == 2 and "one of given, auto" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_process("estimate", "--model", "llama-2-13b", "--layout", "auto", "--gpu", "h100-sxm:8", "--calibrated")
    assert proc.returncode == 2 and "--layout auto with --calibrated" in proc.stderr, proc.stderr


def test_auto_where_nothing_fits_says_so_and_times_the_layout_as_written():
    work = {"model": "llama-3.1-405b", "task": "pretrain", "seq": 131072, "layout": "auto"}
    est = make_estimate(work, {"gpu": "rtx-4090:1"})  # not even with the states and weights offloaded
    assert not est.memory.fits
    assert any(n.startswith("layout: --layout auto found no layout that fits on 1 x rtx-4090") for n in est.notes)


def test_a_default_layout_that_does_not_fit_points_to_auto():
    """13B pretraining under plain data parallelism does not fit on 80 GB: the terminal names
    --layout auto beside the shortfall; a layout auto chose does not repeat it."""
    plain = run_process("estimate", "--model", "llama-2-13b", "--task", "pretrain", "--gpu", "h100-sxm:16")
    assert "does NOT fit" in plain.stdout and "--layout auto times the layout a plan would choose" in plain.stdout
    args = (
        "--model",
        "llama-3.1-405b",
        "--task",
        "pretrain",
        "--seq",
        "131072",
        "--layout",
        "auto",
        "--gpu",
        "rtx-4090:2",
    )
    searched = run_process("estimate", *args)
    assert "does NOT fit" in searched.stdout and "--layout auto times" not in searched.stdout


@pytest.mark.parametrize(
    ("work", "hardware", "flags"),
    [
        (WORK, {"gpu": "h100-sxm:64", "power_cap": 400, "pricing": "spot", "confidence": 0.9}, ()),
        (
            {"model": "qwen3-30b-a3b", "task": "pretrain", "tokens": "10B", "seq": 2048, "global_batch": 16},
            {"gpu": "h100-sxm:8"},
            ("--ep",),
        ),
    ],
    ids=["power-cap-spot-confidence", "mixture-of-experts"],
)
def test_the_searched_layouts_command_carries_the_hardware_and_price_options(work, hardware, flags):
    """What the search was given is in the line that reproduces it: the power cap (the rates), the
    pricing (the cost), the confidence (the memory sizing and the bands); a mixture of experts' --ep."""
    est = make_estimate(work | {"layout": "auto"}, hardware)
    command = next(n for n in est.notes if n.startswith("layout: the fastest")).split("the same estimate: ", 1)[1]
    for flag in flags:
        assert flag in command
    again = _json(shlex.split(command)[2:])
    d = est.as_dict()
    assert again["training"]["step_seconds"] == pytest.approx(d["training"]["step_seconds"], rel=1e-12)
    assert again["cost"]["pricing"] == d["cost"]["pricing"]
    for key in ("usd_per_hour", "total_usd", "expected_total_usd"):
        assert again["cost"][key] == pytest.approx(d["cost"][key], rel=1e-12), key
    assert again["uncertainty"] == d["uncertainty"] and again["hardware"] == d["hardware"]
