"""What a GPU host reports (its name, driver, VBIOS, CUDA) and what the fleet store holds is data,
never an Ansible template. A host that calls itself `{{ lookup('pipe', ...) }}` is refused at
`fleet scan` (nothing stored); a store that holds such a value anyway (written by hand) is refused by
`rollout plan`; and every host or store value in the files the roll-out writes carries `!unsafe`,
so even a plan built around the checks runs no command: `ansible-playbook --syntax-check` and a
check-mode run on this machine whose gate fails after the upgrade (the roll-back reads the previous
driver version) leave no file behind."""

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("sqlalchemy", exc_type=ImportError)

from gpuwise.cli.app import app
from gpuwise.deploy.rollout_playbook import PlaybookSettings, files
from gpuwise.deploy.writer import load_tree, write_texts
from gpuwise.ops import rollout
from gpuwise.ops.rollout import HostPlan, RolloutHost, RolloutPlan, Target

from .conftest import missing

ROOT = Path(__file__).resolve().parent.parent
WORKSTATION = ROOT / "examples" / "hosts" / "workstation-2x-rtx4090-pcie.json"
BIN = Path(sys.executable).parent
T0 = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _jinja(marker: Path) -> str:
    """A template that, rendered by Ansible, creates `marker`."""
    return "{{ lookup('pipe', 'touch " + str(marker) + "') }}"


def _replay(path: Path, field: str, value: str) -> Path:
    doc = json.loads(WORKSTATION.read_text())
    if field == "vbios":
        doc["snapshot"]["gpus"][0]["vbios"] = value
    else:
        doc["snapshot"][field] = value
    path.write_text(json.dumps(doc))
    return path


def _store_cards(db: str, host: str, driver: str) -> None:
    """Cards written to the store directly, past `fleet scan`'s checks (as anyone with write access can)."""
    from gpuwise.store import open_store
    from gpuwise.store.schema import cards

    with open_store(db) as s:
        for index in range(2):
            row = {"uuid": f"GPU-{index}", "host": host, "driver": driver, "vbios": "95.02.3C.40.A3",
                   "catalog_id": "rtx-4090", "gpu_index": index, "status": "active",
                   "first_seen": T0, "last_seen": T0}  # fmt: skip
            s.transaction(lambda conn, row=row: conn.execute(cards.insert().values(**row)))


# ----- on the way in: a scan refuses what is not a host name or a version --------------------------
@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("hostname", "is not an RFC 1123 host name"),
        ("driver_version", "driver version: "),
        ("cuda_driver_version", "CUDA version: "),
        ("vbios", "VBIOS version: "),
    ],
)
def test_scan_refuses_a_host_name_or_version_that_is_not_one_and_stores_nothing(tmp_path, field, message):
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    for value in ("{{ lookup('pipe', 'id') }}", "ws\nrtx", "ws-rtx\x1b[2J"):
        result = run("fleet", "scan", "--replay", _replay(tmp_path / "host.json", field, value), "--db", db)
        assert result.exit_code == 2, result.output
        assert message in result.output and "Traceback" not in result.output and "\x1b" not in result.output
    assert json.loads(run("fleet", "list", "--db", db, "--json").output) == []
    ok = run("fleet", "scan", "--replay", WORKSTATION, "--db", db)  # the host as it is: a name and versions
    assert ok.exit_code == 0, ok.output


# ----- on the way out: the plan refuses what the store should never have held ----------------------
@pytest.mark.parametrize(
    ("host", "driver", "message"),
    [
        ("ws\nrtx", "550.107.02", "is not an RFC 1123 host name"),
        ("{{ lookup('pipe', 'id') }}", "550.107.02", "is not an RFC 1123 host name"),
        ("ws-rtx", "{{ lookup('pipe', 'id') }}", "driver version: "),
    ],
)
def test_plan_refuses_a_stored_host_name_or_version_that_is_not_one(tmp_path, host, driver, message):
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    _store_cards(db, host, driver)
    out = tmp_path / "out"
    result = run("rollout", "plan", "--db", db, "--target", "driver=560.35.03", "-o", out)
    assert result.exit_code == 2, result.output
    assert message in result.output and "fleet retire" in result.output and "Traceback" not in result.output
    assert not out.exists()


# ----- written so that Ansible never templates it ----------------------------------------------------
def _results(path: Path, value: float) -> Path:
    """`gpuwise bench --json` output with one acceptance measurement: matmul best bf16 at `value` FLOP/s."""
    doc = {"host": {"hostname": "h", "gpu_id": None},
           "results": [{"benchmark": "matmul", "name": "best", "value": value, "unit": "FLOP/s",
                        "params": {"dtype": "bf16"}}]}  # fmt: skip
    path.write_text(json.dumps(doc))
    return path


def _hostile_plan(tmp_path: Path, marks: Path, scheduled: bool = True) -> RolloutPlan:
    """One host whose every stored value is a template that would create a file under `marks`
    (`scheduled`: with a Kubernetes and a Slurm node name, whose commands only a check run may meet)."""
    host = _jinja(marks / "host")
    facts = RolloutHost(
        pool=_jinja(marks / "pool"),
        k8s_node=_jinja(marks / "k8s_node") if scheduled else None,
        ansible_host=_jinja(marks / "ansible_host"),
        doctor_replay=str(WORKSTATION),
        bench_results=str(_results(tmp_path / "good.json", 7.9e14)),
        bench_results_after=str(_results(tmp_path / "slow.json", 6.0e14)),  # below the baseline: roll back
    )
    plan = HostPlan(
        host, facts.pool, _jinja(marks / "model"), (0,), _jinja(marks / "previous"), 0, facts,
        scheduler="slurm" if scheduled else "none", node=_jinja(marks / "slurm_node") if scheduled else None,
    )  # fmt: skip
    return RolloutPlan(Target("driver", "560.35.03"), host, (), {host: plan}, 1)


def _ansible_playbook() -> str:
    path = shutil.which("ansible-playbook", path=str(BIN)) or shutil.which("ansible-playbook")
    if path is None:
        missing("ansible-playbook (pip install ansible-core)")
    return str(path)


def _ansible(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_LOCAL_TEMP": "/tmp/gpuwise-ansible-tmp", "ANSIBLE_HOME": "/tmp/gpuwise-ansible-home"}  # fmt: skip
    return subprocess.run(
        [_ansible_playbook(), "-i", "inventory.yml", "rollout.yml", *args],
        cwd=out, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def test_every_stored_value_is_written_unsafe_and_ansible_renders_none(tmp_path):
    from gpuwise.store import open_store

    marks = tmp_path / "marks"
    marks.mkdir()
    plan = _hostile_plan(tmp_path, marks)
    host = plan.canary
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    with open_store(db) as s:
        rid = rollout.save_rollout(s, plan, now=T0)
    settings = PlaybookSettings(rid, db, str(_results(tmp_path / "baseline.json", 7.9e14)), 0.1,
                                str(BIN / "gpuwise"), str(BIN / "gpuwise"), local=True)  # fmt: skip
    out = tmp_path / "out"
    texts = files(plan, settings)
    write_texts(texts, out)
    # the values are all there, as text: in the inventory (host names, variables) and the playbook (play names)
    inv = load_tree(texts["inventory.yml"])["all"]
    hv = inv["children"]["rollout"]["children"]["canary"]["hosts"][host]
    assert hv["rollout_previous"] == plan.hosts[host].previous and hv["gpu_model"] == plan.hosts[host].model
    assert hv["pool"] == plan.hosts[host].pool and hv["k8s_node"] == plan.hosts[host].facts.k8s_node
    assert hv["slurm_node"] == plan.hosts[host].node
    assert hv["ansible_host"] == plan.hosts[host].facts.ansible_host
    (play,) = load_tree(texts["rollout.yml"])
    assert host in play["name"]
    for name in ("inventory.yml", "rollout.yml"):
        for line in texts[name].splitlines():
            if "lookup(" in line:
                assert "!unsafe" in line, (name, line)

    syntax = _ansible(out, "--syntax-check")
    assert syntax.returncode == 0, syntax.stdout + syntax.stderr
    assert list(marks.iterdir()) == []
    proc = _ansible(out, "--check")
    assert proc.returncode != 0, proc.stdout  # the gate after fails: rolled back, then stopped
    assert list(marks.iterdir()) == [], proc.stdout
    status = json.loads(run("rollout", "status", "--db", db, "--rollout", rid, "--json").output)
    (canary,) = status["hosts"]
    assert canary["state"] == "rolled back"
    assert [e["step"] for e in canary["events"]] == ["gate-before", "upgrade", "gate-after", "rollback"]
    assert f"back to {plan.hosts[host].previous}" in canary["events"][-1]["detail"]  # rendered as text


def test_a_real_run_on_localhost_renders_no_stored_value(tmp_path):
    """Not a rehearsal: the install step runs (`true {{ version }}`, with the target, then with the
    stored previous version on the roll-back), and the host name, pool, model and versions reach
    commands and records as text only."""
    from gpuwise.store import open_store

    marks = tmp_path / "marks"
    marks.mkdir()
    plan = _hostile_plan(tmp_path, marks, scheduled=False)  # no kubectl or scontrol against a real cluster
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    with open_store(db) as s:
        rid = rollout.save_rollout(s, plan, now=T0)
    settings = PlaybookSettings(rid, db, str(_results(tmp_path / "baseline.json", 7.9e14)), 0.1,
                                str(BIN / "gpuwise"), str(BIN / "gpuwise"), local=True,
                                install_command="true {{ version }}")  # fmt: skip
    write_texts(files(plan, settings), tmp_path / "out")
    proc = _ansible(tmp_path / "out")
    assert proc.returncode != 0, proc.stdout  # the gate after fails: rolled back, then stopped
    assert list(marks.iterdir()) == [], proc.stdout
    status = json.loads(run("rollout", "status", "--db", db, "--rollout", rid, "--real", "--json").output)
    (host,) = status["hosts"]
    assert status["checked"] is False and host["state"] == "rolled back"
    steps = [(e["step"], e["outcome"]) for e in host["events"]]
    assert steps == [("gate-before", "pass"), ("upgrade", "pass"), ("gate-after", "fail"), ("rollback", "pass")]
    assert host["events"][1]["detail"] == "installed 560.35.03"
    assert f"back to {plan.hosts[plan.canary].previous}" in host["events"][-1]["detail"]


def test_the_writer_keeps_any_text_on_one_line_and_reads_it_back():
    """A key or an `Unsafe` value holding a line break (a host name the store should not hold) is a
    double-quoted scalar, not an internal error; `!unsafe` round-trips through `load_tree`."""
    from gpuwise.deploy.writer import Unsafe, dump_tree

    tree = {"hosts": {"a\nb": {"v": Unsafe("x\ny {{ z }}"), "w": Unsafe("plain")}}, "ours": "{{ keep }}\nline"}
    text = dump_tree(tree)
    assert load_tree(text) == tree
    assert '!unsafe "x\\ny {{ z }}"' in text and "!unsafe plain" in text
    assert "ours: |-\n  {{ keep }}\n  line" in text  # our own templates stay literal blocks, rendered
