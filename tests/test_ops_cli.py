"""`gpuwise doctor|exporter|fleet` through a Typer app built here with ops_cmd.register()."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gpuwise.cli.ops_cmd import register

HOSTS = Path(__file__).resolve().parent.parent / "examples" / "hosts"
HEALTHY = str(HOSTS / "healthy-8x-h100-nvlink.json")
FAULTY = str(HOSTS / "faulty-8x-a100.json")
WORKSTATION = str(HOSTS / "workstation-2x-rtx4090-pcie.json")


@pytest.fixture(scope="module")
def app():
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def main() -> None:
        """gpuwise (test app)"""

    register(app)
    return app


def run(app, *args, code=None):
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    if code is not None:
        assert result.exit_code == code, (result.exit_code, result.output)
    return result


# ----- doctor --------------------------------------------------------------------------------------
def test_doctor_faulty_exits_one_and_names_the_faults(app):
    out = json.loads(run(app, "doctor", "--json", "--replay", FAULTY, code=1).stdout)
    fails = {(r["check"], r["gpu"]) for r in out["results"] if r["status"] == "FAIL"}
    assert ("leaked-memory", 1) in fails and ("pcie-link", 5) in fails and ("nvlink", 3) in fails
    assert out["summary"]["FAIL"] == 6


def test_doctor_healthy_and_workstation_exit_zero(app):
    assert json.loads(run(app, "doctor", "--json", "--replay", HEALTHY, code=0).stdout)["summary"]["FAIL"] == 0
    text = run(app, "doctor", "--replay", WORKSTATION, code=0).stdout
    assert "ECC not supported" in text and "fix:" in text and "0 FAIL" in text


def test_doctor_here_says_plainly_when_there_is_no_nvidia_gpu(app):
    out = json.loads(run(app, "doctor", "--json", "--interval", "0").stdout)
    if out["has_nvidia"]:
        pytest.skip("this machine has an NVIDIA GPU")
    assert "No NVIDIA GPU or driver" in out["headline"] or "nvidia-ml-py is not installed" in out["headline"]
    assert {r["check"] for r in out["results"]} == {"driver", "cpu-governor", "cstates", "nccl"}


def test_doctor_record_writes_a_replayable_file(app, tmp_path):
    rec = tmp_path / "here.json"
    run(app, "doctor", "--json", "--interval", "0", "--record", str(rec))
    again = json.loads(run(app, "doctor", "--json", "--replay", str(rec)).stdout)
    assert again["hostname"]
    rec2 = tmp_path / "copy.json"
    run(app, "doctor", "--replay", FAULTY, "--record", str(rec2), code=1)
    assert json.loads(rec2.read_text())["snapshot"]["hostname"] == "dgx-a100-12"


def test_doctor_errors_are_one_line_and_exit_two(app, tmp_path):
    result = run(app, "doctor", "--replay", str(tmp_path / "none.json"), code=2)
    assert "error: no recording" in result.output
    assert run(app, "doctor", "--interval", "-1", code=2).output.startswith("error:")


# ----- exporter --------------------------------------------------------------------------------------
def test_exporter_prints_rules_and_dashboard(app):
    rules = run(app, "exporter", "--print-rules", code=0).stdout
    assert "groups:" in rules and "GpuLost" in rules
    dash = json.loads(run(app, "exporter", "--print-dashboard", code=0).stdout)
    assert dash["uid"] == "gpuwise-gpu-hosts"


def test_exporter_once_prints_a_scrape(app):
    pytest.importorskip("prometheus_client", exc_type=ImportError)
    text = run(app, "exporter", "--once", "--replay", WORKSTATION, code=0).stdout
    assert 'gpuwise_gpu_up{gpu="1",host="ws-rtx"' in text


def test_exporter_rejects_a_bad_port(app):
    assert "error:" in run(app, "exporter", "--port", "70000", code=2).output


# ----- fleet -------------------------------------------------------------------------------------------
def test_fleet_scan_list_evaluate_retire(app, tmp_path):
    pytest.importorskip("sqlalchemy", exc_type=ImportError)
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    scanned = json.loads(run(app, "fleet", "scan", "--db", db, "--replay", FAULTY, "--json", code=0).stdout)
    assert len(scanned["added"]) == 8
    inspected = run(app, "fleet", "inspect", "--db", db, "--replay", FAULTY, code=0).stdout
    assert "8 inspection(s) stored" in inspected
    cards = json.loads(run(app, "fleet", "list", "--db", db, "--json", code=0).stdout)
    assert len(cards) == 8 and {c["status"] for c in cards} == {"active"}
    verdicts = json.loads(run(app, "fleet", "evaluate", "--db", db, "--json", "--apply", code=0).stdout)
    flagged = {v["card"]["gpu_index"]: v for v in verdicts["verdicts"]}
    assert set(flagged) == {3, 6} and len(verdicts["set_to_watch"]) == 2
    uuid = cards[6]["uuid"]
    text = run(app, "fleet", "retire", uuid, "--reason", "row remap pending twice", "--db", db, code=0).stdout
    assert text.startswith("retired " + uuid)
    retired = json.loads(run(app, "fleet", "list", "--db", db, "--status", "retired", "--json").stdout)
    assert [c["uuid"] for c in retired] == [uuid] and retired[0]["retired_reason"] == "row remap pending twice"
    human = run(app, "fleet", "evaluate", "--db", db, code=0).stdout
    assert "WATCH" in human and "vbios_consistency" in human and "why:" in human
    assert "GPU-" in run(app, "fleet", "list", "--db", db, code=0).stdout


def test_fleet_errors(app, tmp_path):
    pytest.importorskip("sqlalchemy", exc_type=ImportError)
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    assert "say why" in run(app, "fleet", "retire", "GPU-x", "--db", db, code=2).output
    assert "no card" in run(app, "fleet", "retire", "GPU-x", "--reason", "r", "--db", db, code=2).output
    assert "status must be" in run(app, "fleet", "list", "--status", "x", "--db", db, code=2).output
    assert "reads the store" in run(app, "fleet", "list", "--replay", FAULTY, "--db", db, code=2).output


# ----- start-up cost ---------------------------------------------------------------------------------
def test_registering_the_commands_imports_nothing_heavy():
    code = (
        "import sys, typer\n"
        "from gpuwise.cli.ops_cmd import register\n"
        "register(typer.Typer())\n"
        "print(sorted(m for m in ('pynvml', 'prometheus_client', 'sqlalchemy', 'rich', 'torch') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ----- scripts -----------------------------------------------------------------------------------------
ROOT = HOSTS.parent.parent


def test_host_check_script_runs_on_a_recording(tmp_path):
    pytest.importorskip("sqlalchemy", exc_type=ImportError)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gpu_host_check.py"), "--out", str(tmp_path), "--replay", FAULTY],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAIL leaked-memory" in proc.stdout and "8 new" in proc.stdout
    assert (tmp_path / "doctor.json").exists() and (tmp_path / "host.json").exists()


def test_example_hosts_are_what_the_generator_writes(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_example_hosts.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    for made in tmp_path.glob("*.json"):
        assert made.read_text() == (HOSTS / made.name).read_text(), made.name
