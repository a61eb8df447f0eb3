"""gpuwise deploy --target skypilot: tasks SkyPilot's own parser reads (sky.Task.from_yaml, run in
SkyPilot's environment, .venv-skypilot, without cloud credentials), with the plan's nodes, GPUs,
cloud, spot pricing and serving replicas."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from gpuwise.catalog import load_catalog
from gpuwise.deploy.common import DeployOptions
from gpuwise.deploy.launch import train_launch
from gpuwise.deploy.pools import plan_from_file
from gpuwise.deploy.skypilot import accelerator, skypilot_files, skypilot_gpus, table

from .conftest import missing, run_process

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ALLOWED = (skypilot_gpus(), "SkyPilot")
# what SkyPilot makes of each task file named on stdin: nodes, accelerators, cloud, region, spot, disk,
# ports, service; one interpreter for the session (importing sky takes seconds)
PARSE = """
import json, sys
import sky
for line in sys.stdin:
    try:
        task = sky.Task.from_yaml(line.strip())
        [r] = list(task.resources)
        svc = task.service
        out = {
            "num_nodes": task.num_nodes, "accelerators": r.accelerators, "cloud": str(r.cloud) if r.cloud else None,
            "region": r.region, "use_spot": r.use_spot, "disk_size": r.disk_size, "ports": r.ports,
            "envs": task.envs, "min_replicas": svc.min_replicas if svc else None,
            "max_replicas": svc.max_replicas if svc else None, "readiness": svc.readiness_path if svc else None,
            "run": task.run,
        }
    except Exception as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(out), flush=True)
"""


def _sky_python() -> str:
    """The interpreter with SkyPilot: GPUWISE_SKYPILOT_PYTHON, .venv-skypilot, or this one."""
    for candidate in (os.environ.get("GPUWISE_SKYPILOT_PYTHON"), str(ROOT / ".venv-skypilot" / "bin" / "python")):
        if candidate and Path(candidate).exists():
            return candidate
    if importlib.util.find_spec("sky") is not None:
        return sys.executable
    missing("SkyPilot (bash scripts/setup_dev.sh installs it into .venv-skypilot)")
    raise AssertionError  # unreachable: missing() fails or skips


@pytest.fixture(scope="module")
def sky_parse(tmp_path_factory) -> Iterator[Callable[[Path], dict]]:
    """SkyPilot's reading of a task file: `sky.Task.from_yaml` in SkyPilot's own interpreter, with a
    throw-away HOME (its ~/.sky) and no cloud credentials."""
    home = tmp_path_factory.mktemp("sky-home")
    proc = subprocess.Popen(
        [_sky_python(), "-c", PARSE],
        env={**os.environ, "HOME": str(home)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def parse(path: Path) -> dict:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(f"{path}\n")
        proc.stdin.flush()
        out = json.loads(proc.stdout.readline())
        assert "error" not in out, out["error"]
        return out

    try:
        yield parse
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()


@functools.cache
def _plan(name: str, gpus: tuple[str, ...] | None = None, pricing: str | None = None):
    overrides = {k: v for k, v in (("gpus", list(gpus) if gpus else None), ("pricing", pricing)) if v}
    return plan_from_file(EXAMPLES / name, overrides or None, ALLOWED)[0]


def test_every_name_in_the_table_is_a_catalog_gpu_and_cloud():
    cat = load_catalog()
    assert set(table()["accelerators"]) <= set(cat.gpus)
    providers = {o.provider for o in cat.offers}
    assert set(table()["clouds"]) <= providers
    assert accelerator("h100-sxm", "aws")[0] == "H100" and accelerator("h100-sxm", "runpod")[0] == "H100-SXM"


def test_readme_training_example_parses_with_the_plans_nodes_and_gpus(tmp_path, sky_parse):
    cat = load_catalog()
    c = _plan("train-13b-multi-gpu-plan.yaml", ("h100-sxm",))
    c = c.chosen
    hw = c.est.hardware
    rendered = skypilot_files(c, DeployOptions(), cat)
    path = tmp_path / "train.yaml"
    path.write_text(rendered.files["train.yaml"])
    task = sky_parse(path)
    assert task["num_nodes"] == hw.nodes
    assert task["accelerators"] == {accelerator(hw.gpu.id, None)[0]: hw.gpus_per_node}
    launch = train_launch(c, DeployOptions(), cat)
    assert {k: v for k, v in task["envs"].items() if k.startswith("NCCL_")} == {e.name: e.value for e in launch.nccl}
    assert '--node-rank="${SKYPILOT_NODE_RANK}"' in task["run"] and "SKYPILOT_NODE_IPS" in task["run"]
    assert '--nproc-per-node="${SKYPILOT_NUM_GPUS_PER_NODE}"' in task["run"]
    for arg in launch.stack_args:
        assert f"  {arg.value}\n" in task["run"]
    offer = {} if c.offer is None else c.offer.as_dict()
    cloud = table()["clouds"].get(offer.get("provider"))
    assert (task["cloud"] or "").lower() == (cloud or "")
    assert task["use_spot"] is False and task["disk_size"] >= 256


def test_readme_serving_example_parses_as_a_service(tmp_path, sky_parse):
    cat = load_catalog()
    c = _plan("chat-7b-p99.yaml").chosen
    rendered = skypilot_files(c, DeployOptions(), cat)
    path = tmp_path / "serve.yaml"
    path.write_text(rendered.files["serve.yaml"])
    task = sky_parse(path)
    assert task["num_nodes"] == 1 and task["accelerators"] == {accelerator(c.est.hardware.gpu.id, None)[0]: 1}
    assert task["min_replicas"] == c.replicas and task["max_replicas"] >= 2 * c.replicas
    assert task["readiness"] == "/health" and task["ports"] == ["8000"]
    assert "--max-num-seqs=" in task["run"] and "--tensor-parallel-size=1" in task["run"]


def test_spot_pricing_asks_for_spot(tmp_path, sky_parse):
    """gpuwise prices spot for checkpointed training only; the task then asks SkyPilot for spot."""
    cat = load_catalog()
    c = _plan("train-13b-multi-gpu-plan.yaml", ("h100-sxm",), "spot").chosen
    path = tmp_path / "train.yaml"
    path.write_text(skypilot_files(c, DeployOptions(), cat).files["train.yaml"])
    assert c.pricing == "spot" and yaml.safe_load(path.read_text())["resources"]["use_spot"] is True
    assert sky_parse(path)["use_spot"] is True


def test_plan_values_stay_data_in_the_task(tmp_path):
    cat = load_catalog()
    c = _plan("chat-7b-p99.yaml").chosen
    hostile = "x\nresources: {cloud: evil}\n$(id)"
    text = skypilot_files(c, DeployOptions(model_source=hostile), cat).files["serve.yaml"]
    doc = yaml.safe_load(text)
    assert "evil" not in json.dumps(doc["resources"])
    # the run script quotes it as one argument
    assert "'--model=x\nresources: {cloud: evil}\n$(id)'" in doc["run"]


def test_cli_plans_on_gpus_skypilot_rents(tmp_path):
    proc = run_process(
        "deploy", str(EXAMPLES / "chat-7b-p99.yaml"), "--target", "skypilot", "-o", str(tmp_path), "--json"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["summary"]["gpu"] in skypilot_gpus()
    assert any("SkyPilot can run" in n for n in out["notes"])
    assert (tmp_path / "serve.yaml").exists()


def test_a_plan_that_allows_no_skypilot_gpu_is_a_usage_error(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        (EXAMPLES / "chat-7b-p99.yaml").read_text().replace("requirements:\n", "requirements:\n  gpus: [h20]\n")
    )
    proc = run_process("deploy", str(plan), "--target", "skypilot", "-o", str(tmp_path / "out"))
    assert proc.returncode == 2 and "none of the GPUs it allows (h20)" in proc.stderr


@pytest.mark.parametrize("name", ["H100", "A100-80GB", "L40S"])
def test_table_names_are_skypilot_accelerators(name):
    assert name in {e["name"] for e in table()["accelerators"].values()}
