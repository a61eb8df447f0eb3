"""Staged roll-outs: the plan (canary, waves) from the fleet store, the Ansible files it writes, and
those files run for real: ansible-lint and `ansible-playbook --syntax-check` on the roll-out of the
example fleet (the synthetic hosts of examples/hosts), then `ansible-playbook --check` against a
local inventory, whose gates run `gpuwise doctor --replay` and `gpuwise bench accept` and report
back to the store (`gpuwise rollout status`)."""

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

pytest.importorskip("sqlalchemy", exc_type=ImportError)

from gpuwise.cli.app import app
from gpuwise.deploy.writer import load_tree
from gpuwise.errors import UsageError
from gpuwise.ops import rollout
from gpuwise.ops.fleet import Card
from gpuwise.ops.rollout import Event, Target, host_state, parse_target, plan_rollout

from .conftest import missing

ROOT = Path(__file__).resolve().parent.parent
HOSTS = ROOT / "examples" / "hosts"
BIN = Path(sys.executable).parent
T0 = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def card(host, index, model="h100-sxm", status="active", driver="550.90.07", vbios="96.00.99.00.01"):
    return Card(
        uuid=f"GPU-{host}-{index}", serial=None, model=None, catalog_id=model, vbios=vbios, inforom=None,
        driver=driver, host=host, slot=None, gpu_index=index, first_seen=T0, last_seen=T0, status=status,
    )  # fmt: skip


# ----- the plan (pure) -----------------------------------------------------------------------------
def test_targets():
    assert parse_target("driver=550.127.05") == Target("driver", "550.127.05")
    assert parse_target(" Firmware = 96.00.A5.00.01 ") == Target("firmware", "96.00.A5.00.01")
    for bad in ("driver", "bios=1.0", "cuda=", "driver=550; rm -rf /"):
        with pytest.raises(UsageError, match="--target"):
            parse_target(bad)


def test_canary_then_waves_canary_model_first():
    # four H100 hosts (one of them with a card on watch, one with 4 GPUs) and two A100 hosts
    cards = [card(h, i) for h in ("h1", "h2", "h3") for i in range(8)] + [card("h4", i) for i in range(4)]
    cards[0] = card("h1", 0, status="watch")
    cards += [card(h, i, model="a100-80gb-sxm", driver="535.161.08") for h in ("a1", "a2") for i in range(8)]
    plan = plan_rollout(Target("driver", "570.86.15"), cards, wave_size=2)
    # no card on watch, the model of most hosts (h100: 4 hosts), the fewest GPUs (h4: 4)
    assert plan.canary == "h4"
    # the canary's model first, then the A100s; by name within
    assert plan.waves == (("h1", "h2"), ("h3", "a1"), ("a2",))
    assert plan.hosts["a1"].previous == "535.161.08" and plan.hosts["h4"].gpus == (0, 1, 2, 3)
    assert any("h1: 1 card(s) on watch" in n for n in plan.notes)


def test_retired_cards_are_left_out_and_bad_input_is_a_usage_error():
    cards = [card("h1", 0), card("h1", 1, status="retired"), card("h2", 0, status="retired")]
    plan = plan_rollout(Target("firmware", "96.00.A5.00.01"), cards)
    assert list(plan.hosts) == ["h1"] and plan.hosts["h1"].gpus == (0,) and plan.waves == ()
    with pytest.raises(UsageError, match="did you mean h1"):
        plan_rollout(Target("driver", "1"), cards, canary="h11")
    with pytest.raises(UsageError, match="wave-size"):
        plan_rollout(Target("driver", "1"), cards, wave_size=0)
    with pytest.raises(UsageError, match="fleet scan"):
        plan_rollout(Target("driver", "1"), [])


def _ev(step, outcome):
    return Event("h", step, outcome, False, T0, None)


def test_host_state_is_what_the_last_step_says():
    assert host_state([]) == "pending"
    assert host_state([_ev("gate-before", "fail")]) == "blocked"
    assert host_state([_ev("gate-before", "pass")]) == "in progress"
    assert host_state([_ev("gate-before", "pass"), _ev("upgrade", "pass")]) == "upgraded"
    ok = [_ev("gate-before", "pass"), _ev("upgrade", "pass"), _ev("gate-after", "pass"), _ev("done", "pass")]
    assert host_state(ok) == "done"
    assert host_state([*ok[:3], _ev("gate-after", "fail"), _ev("rollback", "pass")]) == "rolled back"
    assert host_state([_ev("upgrade", "fail"), _ev("rollback", "fail")]) == "failed"


# ----- the example fleet in a store ------------------------------------------------------------------
def _results(path, value):
    """`gpuwise bench --json` output with one acceptance measurement: matmul best bf16 at `value` FLOP/s."""
    doc = {"host": {"hostname": "h", "gpu_id": None},
           "results": [{"benchmark": "matmul", "name": "best", "value": value, "unit": "FLOP/s",
                        "params": {"dtype": "bf16"}}]}  # fmt: skip
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory):
    """A store holding the three synthetic hosts, recorded gate results, and a hosts file."""
    d = tmp_path_factory.mktemp("fleet")
    db = f"sqlite:///{d / 'fleet.db'}"
    for f in sorted(HOSTS.glob("*.json")):
        assert run("fleet", "scan", "--replay", f, "--db", db).exit_code == 0
    _results(d / "baseline.json", 7.9e14)
    _results(d / "good.json", 7.9e14)  # 100 % of the baseline
    _results(d / "slow.json", 6.0e14)  # 6.0/7.9 = 76 %: below the 10 % tolerance
    return d, db


def _hosts_file(d, name, after=None):
    replay = {"hgx-h100-07": "healthy-8x-h100-nvlink", "dgx-a100-12": "faulty-8x-a100",
              "ws-rtx": "workstation-2x-rtx4090-pcie"}  # fmt: skip
    hosts = {h: {"pool": "dev" if h == "ws-rtx" else "train", "doctor_replay": str(HOSTS / f"{r}.json"),
                 "bench_results": "good.json"} for h, r in replay.items()}  # fmt: skip
    for h, results in (after or {}).items():
        hosts[h]["bench_results_after"] = results
    (d / name).write_text(yaml.safe_dump({"hosts": hosts}))
    return d / name


def _plan(d, db, out, hosts, *extra):
    result = run(
        "rollout", "plan", "--db", db, "--target", "driver=550.127.05", "-o", out, "--hosts", hosts,
        "--baseline", d / "baseline.json", "--local", "--gpuwise-bin", BIN / "gpuwise",
        "--record-bin", BIN / "gpuwise", "--json", *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_plan_writes_inventory_grouped_by_stage_model_and_pool(fleet_dir, tmp_path):
    d, db = fleet_dir
    plan = _plan(d, db, tmp_path / "out", _hosts_file(d, "h.yaml"), "--wave-size", "2", "--canary", "hgx-h100-07")
    assert plan["canary"] == "hgx-h100-07" and plan["waves"] == [["dgx-a100-12", "ws-rtx"]]
    inv = load_tree((tmp_path / "out" / "inventory.yml").read_text())["all"]
    groups = inv["children"]
    assert list(groups["rollout"]["children"]) == ["canary", "wave_1"]
    assert set(groups["pool_train"]["hosts"]) == {"hgx-h100-07", "dgx-a100-12"}
    assert set(groups["gpu_rtx_4090"]["hosts"]) == {"ws-rtx"}
    canary = groups["rollout"]["children"]["canary"]["hosts"]["hgx-h100-07"]
    assert canary["rollout_previous"] == "550.90.07" and canary["gpu_indices"] == list(range(8))
    assert inv["vars"]["rollout_version"] == "550.127.05" and inv["vars"]["rollout_reboot"] is False
    plays = load_tree((tmp_path / "out" / "rollout.yml").read_text())
    assert [p["hosts"] for p in plays] == ["canary", "wave_1"]
    assert [p["serial"] for p in plays] == [1, 2] and all(p["any_errors_fatal"] for p in plays)


def test_firmware_is_flashed_one_gpu_at_a_time(fleet_dir, tmp_path):
    _, db = fleet_dir
    result = run(
        "rollout", "plan", "--db", db, "--target", "firmware=96.00.A5.00.01", "-o", tmp_path, "--wave-size", "3"
    )
    assert result.exit_code == 0, result.output
    plays = load_tree((tmp_path / "rollout.yml").read_text())
    assert all(p["serial"] == 1 for p in plays)
    (upgrade,) = [t for t in yaml.safe_load((tmp_path / "tasks" / "host.yml").read_text()) if "block" in t]
    flash = [t for t in upgrade["block"] if t["name"].startswith("Install")]
    assert flash[0]["throttle"] == 1 and flash[0]["loop"] == "{{ gpu_indices }}"
    assert flash[0]["loop_control"]["loop_var"] == "gpu"
    assert any(t.get("loop") == "{{ gpu_indices }}" for t in upgrade["rescue"])  # rolled back GPU by GPU too


def test_record_and_status_reject_bad_input_without_a_traceback(fleet_dir, tmp_path):
    d, db = fleet_dir
    out = _plan(d, db, tmp_path / "o", _hosts_file(d, "h2.yaml"))
    rid = str(out["id"])
    for args, message in (
        (["--host", "nosuch", "--step", "done", "--outcome", "pass"], "not in roll-out"),
        (["--host", "ws-rtx", "--step", "reboot", "--outcome", "pass"], "--step must be"),
        (["--host", "ws-rtx", "--step", "done", "--outcome", "ok"], "--outcome must be"),
    ):
        result = run("rollout", "record", "--db", db, "--rollout", rid, *args)
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
    assert run("rollout", "status", "--db", db, "--rollout", "999").exit_code == 2
    ok = run("rollout", "record", "--db", db, "--rollout", rid, "--host", "ws-rtx", "--step", "gate-before",
             "--outcome", "fail", "--detail", "doctor exit 1")  # fmt: skip
    assert ok.exit_code == 0, ok.output
    status = json.loads(run("rollout", "status", "--db", db, "--rollout", rid, "--json").output)
    states = {h["host"]: h["state"] for h in status["hosts"]}
    assert states["ws-rtx"] == "blocked" and status["checked"] is False
    assert set(states.values()) == {"blocked", "pending"}


# ----- Ansible: lint, syntax-check, and check mode against a local inventory --------------------
def _ansible(tool):
    path = shutil.which(tool, path=str(BIN)) or shutil.which(tool)
    if path is None:
        missing(f"{tool} (pip install ansible-core ansible-lint)")
    return path


def _env():
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_LOCAL_TEMP": "/tmp/gpuwise-ansible-tmp", "ANSIBLE_HOME": "/tmp/gpuwise-ansible-home"}  # fmt: skip


@pytest.fixture(scope="module")
def example_rollout(fleet_dir, tmp_path_factory):
    """The example fleet's driver roll-out: canary hgx-h100-07, then a wave of the other two."""
    d, db = fleet_dir
    out = tmp_path_factory.mktemp("rollout")
    plan = _plan(d, db, out, _hosts_file(d, "example.yaml"), "--wave-size", "2", "--canary", "hgx-h100-07")
    return out, db, plan["id"]


def test_the_example_rollout_passes_ansible_lint_and_syntax_check(example_rollout):
    out, _, _ = example_rollout
    lint = subprocess.run(
        [_ansible("ansible-lint"), "--profile", "production", "--offline", "rollout.yml", "tasks"],
        cwd=out, capture_output=True, text=True, timeout=300, env=_env(),
    )  # fmt: skip
    assert lint.returncode == 0, lint.stdout + lint.stderr
    syntax = subprocess.run(
        [_ansible("ansible-playbook"), "-i", "inventory.yml", "rollout.yml", "--syntax-check"],
        cwd=out, capture_output=True, text=True, timeout=120, env=_env(),
    )  # fmt: skip
    assert syntax.returncode == 0, syntax.stdout + syntax.stderr


def _check_run(out):
    return subprocess.run(
        [_ansible("ansible-playbook"), "-i", "inventory.yml", "rollout.yml", "--check"],
        cwd=out, capture_output=True, text=True, timeout=300, env=_env(),
    )  # fmt: skip


def test_check_mode_runs_the_gates_and_stops_at_the_faulty_host(example_rollout):
    out, db, rid = example_rollout
    proc = _check_run(out)
    assert proc.returncode != 0, proc.stdout  # the faulty A100 fails its doctor gate: the run stops
    status = json.loads(run("rollout", "status", "--db", db, "--rollout", str(rid), "--json").output)
    assert status["checked"] is True and "rehearsal" in status["headline"]
    states = {h["host"]: h["state"] for h in status["hosts"]}
    # the canary passed both gates; the faulty host was blocked before anything changed; its wave
    # partner passed its first gate and went no further
    assert states == {"hgx-h100-07": "done", "dgx-a100-12": "blocked", "ws-rtx": "in progress"}
    canary = status["hosts"][0]
    assert [e["step"] for e in canary["events"]] == ["gate-before", "upgrade", "gate-after", "done"]
    assert all(e["checked"] for e in canary["events"])
    blocked = status["hosts"][1]["events"][-1]["detail"]
    assert "doctor exit 1" in blocked and "ecc" in blocked and "acceptance exit 0" in blocked
    assert "stopped at wave 1, dgx-a100-12 blocked" in status["headline"]
    real = json.loads(run("rollout", "status", "--db", db, "--rollout", str(rid), "--real", "--json").output)
    assert {h["state"] for h in real["hosts"]} == {"pending"}  # nothing really happened


def test_a_gate_failed_after_the_upgrade_rolls_the_host_back(fleet_dir, tmp_path):
    d, db = fleet_dir
    hosts = _hosts_file(d, "slow-after.yaml", after={"hgx-h100-07": "slow.json"})
    plan = _plan(d, db, tmp_path, hosts, "--canary", "hgx-h100-07")
    proc = _check_run(tmp_path)
    assert proc.returncode != 0, proc.stdout
    status = json.loads(run("rollout", "status", "--db", db, "--rollout", str(plan["id"]), "--json").output)
    canary, *rest = status["hosts"]
    assert canary["state"] == "rolled back"
    steps = [(e["step"], e["outcome"]) for e in canary["events"]]
    assert steps == [("gate-before", "pass"), ("upgrade", "pass"), ("gate-after", "fail"), ("rollback", "pass")]
    assert "back to 550.90.07" in canary["events"][-1]["detail"]
    assert "acceptance exit 1" in canary["events"][2]["detail"]
    assert {h["state"] for h in rest} == {"pending"}  # the waves never started


def test_fleet_view_groups_by_pool_and_model(example_rollout):
    _, db, _ = example_rollout
    from gpuwise.ops.fleet_view import fleet_view
    from gpuwise.store import open_store

    with open_store(db) as s:
        view = fleet_view(s)
    groups = {(g["pool"], g["model"]): g for g in view["groups"]}
    assert set(groups) >= {("train", "h100-sxm"), ("train", "a100-80gb-sxm"), ("dev", "rtx-4090")}
    a100 = groups[("train", "a100-80gb-sxm")]
    assert a100["drivers"] == {"535.161.08": 1} and a100["cards"] == 8
    assert sum(a100["vbios"].values()) == 8 and len(a100["vbios"]) == 2  # one card runs another VBIOS
    text = run("fleet", "view", "--db", db)
    assert text.exit_code == 0 and "pool train / h100-sxm" in text.output


def test_rollout_module_store_functions_round_trip(tmp_path):
    from gpuwise.store import open_store

    cards = [card("h1", 0), card("h2", 0)]
    plan = plan_rollout(Target("cuda", "12.8"), cards, cuda={"h1": "12.4"})
    assert plan.hosts["h1"].previous == "12.4" and plan.hosts["h2"].previous is None
    with open_store(f"sqlite:///{tmp_path / 's.db'}") as s:
        rid = rollout.save_rollout(s, plan, now=T0)
        rollout.record(s, rid, plan.canary, "gate-before", "pass", now=T0)
        rollout.record(s, rid, plan.canary, "upgrade", "pass", now=T0 + dt.timedelta(minutes=1))
        st = rollout.rollout_status(s)
    assert st.rollout.id == rid and st.hosts[0].state == "upgraded" and st.counts == {"pending": 1, "upgraded": 1}
    assert st.headline == f"roll-out {rid}: cuda 12.8: 0 of 2 hosts done"


def test_cuda_by_host_takes_the_newest_inspection_of_any_card(tmp_path):
    """Inspections come card by card: a card last inspected before the host's upgrade (GPU-h1-1,
    since pulled) must not name the CUDA version the host ran then (it did, sorting after GPU-h1-0)."""
    from gpuwise.store import open_store
    from gpuwise.store.schema import cards as cards_table
    from gpuwise.store.schema import inspections

    with open_store(f"sqlite:///{tmp_path / 's.db'}") as s:
        for index, when, cuda in ((0, T0 + dt.timedelta(days=1), "12.8"), (1, T0, "12.4")):
            row = {k: v for k, v in card("h1", index).as_dict().items() if k not in ("first_seen", "last_seen")}
            ins = {"card_uuid": row["uuid"], "time": when, "snapshot": {"host": {"cuda_driver_version": cuda}}}

            def write(conn, row=row, ins=ins):
                conn.execute(cards_table.insert().values(**row, first_seen=T0, last_seen=T0))
                conn.execute(inspections.insert().values(**ins))

            s.transaction(write)
        assert rollout.cuda_by_host(s) == {"h1": "12.8"}


def test_fleet_view_acceptance_spread_and_drift(tmp_path):
    """Three H100 hosts measured at 7.9, 7.8 and 6.0e14 FLOP/s (matmul best bf16): median 7.8e14,
    spread (7.9 - 6.0) / 7.8 = 24.4 %, and the third at 6.0 / 7.8 = 76.9 % drifts (tolerance 10 %)."""
    from gpuwise.ops.fleet_view import fleet_view, render_text
    from gpuwise.store import open_store
    from gpuwise.store.results import HostFacts, Measurement
    from gpuwise.store.schema import cards as cards_table

    with open_store(f"sqlite:///{tmp_path / 's.db'}") as s:
        for host, value in (("h1", 7.9e14), ("h2", 7.8e14), ("h3", 6.0e14)):
            row = {k: v for k, v in card(host, 0).as_dict().items() if k not in ("first_seen", "last_seen")}
            s.transaction(
                lambda conn, row=row: conn.execute(cards_table.insert().values(**row, first_seen=T0, last_seen=T0))
            )
            facts = HostFacts(host, "cpu", 2, "cuda", gpu_id="h100-sxm", gpu_count=1)
            s.save_run(
                facts, [Measurement("matmul", "best", value, "FLOP/s", {"dtype": "bf16"})], "gpuwise bench", False
            )
        s.save_run(HostFacts("h3", "cpu", 2, "cuda"), [Measurement("matmul", "best", 1.0, "FLOP/s", {"dtype": "bf16"})],
                   "gpuwise bench --quick", True)  # fmt: skip  # a quick run is no acceptance measurement
        view = fleet_view(s)
    (group,) = view["groups"]
    assert group["pool"] == "default" and group["model"] == "h100-sxm" and group["hosts"] == ["h1", "h2", "h3"]
    (spread,) = group["acceptance"]
    assert spread["check"] == "matmul best bf16" and spread["median"] == 7.8e14
    assert spread["spread"] == pytest.approx((7.9 - 6.0) / 7.8)
    (drift,) = group["drifting"]
    assert drift["host"] == "h3" and drift["ratio"] == pytest.approx(6.0 / 7.8)
    assert "DRIFT h3: matmul best bf16 at 77% of the median" in render_text(view)


def test_a_relative_sqlite_store_is_written_absolute_and_a_bad_out_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (
        run(
            "fleet", "scan", "--replay", HOSTS / "workstation-2x-rtx4090-pcie.json", "--db", "sqlite:///rel.db"
        ).exit_code
        == 0
    )
    (tmp_path / "a-file").write_text("")
    bad = run("rollout", "plan", "--db", "sqlite:///rel.db", "--target", "cuda=12.8", "-o", "a-file")
    assert bad.exit_code == 2 and "not a directory" in bad.output
    ok = run("rollout", "plan", "--db", "sqlite:///rel.db", "--target", "cuda=12.8", "-o", "out", "--json")
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["id"] == 1  # the refused plan stored nothing
    inv = load_tree((tmp_path / "out" / "inventory.yml").read_text())["all"]
    assert inv["vars"]["gpuwise_db"] == f"sqlite:///{tmp_path / 'rel.db'}"
    (host,) = inv["children"]["rollout"]["children"]["canary"]["hosts"].values()
    assert host["rollout_previous"] == "12.4"  # the CUDA version ws-rtx's inspection recorded


def test_a_host_without_recorded_results_runs_the_suite_and_the_controller_accepts(fleet_dir, tmp_path):
    """No `bench_results` for the canary: the gate runs the suite on the host (here the inventory's
    `gpuwise_bench_args` set to a quick CPU matmul), keeps its JSON beside the playbook, and the
    acceptance on the controller compares it with a baseline of 7.9e14 FLOP/s, which no CPU
    reaches: the canary is blocked, whatever this machine's speed."""
    d, db = fleet_dir
    hosts = yaml.safe_load(_hosts_file(d, "fresh.yaml").read_text())
    del hosts["hosts"]["ws-rtx"]["bench_results"]
    (d / "fresh.yaml").write_text(yaml.safe_dump(hosts))
    plan = _plan(d, db, tmp_path, d / "fresh.yaml", "--canary", "ws-rtx")
    inventory = tmp_path / "inventory.yml"
    doc = load_tree(inventory.read_text())
    assert doc["all"]["vars"]["gpuwise_bench_args"] == ["all"]
    doc["all"]["vars"]["gpuwise_bench_args"] = ["matmul", "--quick", "--device", "cpu"]
    inventory.write_text(yaml.safe_dump(doc))
    proc = _check_run(tmp_path)
    assert proc.returncode != 0, proc.stdout
    fresh = json.loads((tmp_path / "bench-ws-rtx-before.json").read_text())
    assert {r["benchmark"] for r in fresh["results"]} == {"matmul"}
    status = json.loads(run("rollout", "status", "--db", db, "--rollout", str(plan["id"]), "--json").output)
    canary = status["hosts"][0]
    assert canary["host"] == "ws-rtx" and canary["state"] == "blocked"
    assert "doctor exit 0, acceptance exit 1" in canary["events"][-1]["detail"]


def test_a_hosts_file_with_mistakes_is_refused_clearly(tmp_path):
    bad_key = tmp_path / "k.yaml"
    bad_key.write_text("hosts:\n  h1: {pool: train, k8s-node: h1}\n")
    with pytest.raises(UsageError, match=r"host 'h1': k8s-node: Extra inputs"):
        rollout.load_rollout_hosts(bad_key)
    no_hosts = tmp_path / "n.yaml"
    no_hosts.write_text("h1: {pool: train}\n")
    with pytest.raises(UsageError, match="expected `hosts:`"):
        rollout.load_rollout_hosts(no_hosts)
    typo = tmp_path / "t.yaml"
    typo.write_text("hosts:\n  h11: {pool: train, doctor_replay: rec.json}\n")
    facts = rollout.load_rollout_hosts(typo)
    assert facts["h11"].doctor_replay == str(tmp_path / "rec.json")  # relative to the file
    with pytest.raises(UsageError, match="h11, not in the fleet store; did you mean h1"):
        plan_rollout(Target("driver", "1"), [card("h1", 0)], facts=facts)


def test_a_store_password_never_lands_in_the_inventory():
    from gpuwise.deploy.common import Why
    from gpuwise.deploy.rollout_playbook import _store_var

    hidden = _store_var("postgresql+psycopg://gpuwise:s3cret@db.internal:5432/gpuwise")
    assert isinstance(hidden, Why) and "s3cret" not in hidden.value and "GPUWISE_DB" in hidden.value
    assert (
        _store_var("postgresql+psycopg://postgres@127.0.0.1:5432/x") == "postgresql+psycopg://postgres@127.0.0.1:5432/x"
    )
    for secret in ("pa/ss", "p@ss"):  # SQLAlchemy reads both as the password; 'pa/ss' was written out
        assert isinstance(_store_var(f"postgresql://gpuwise:{secret}@db.internal/gpuwise"), Why), secret


def test_plan_takes_no_tolerance_its_gates_would_refuse(fleet_dir, tmp_path):
    """The gates run `bench accept --tolerance T` with the plan's T: a T that accept refuses (above
    0.99) is refused by the plan, before any file is written, not at the canary's first gate."""
    d, db = fleet_dir
    out = tmp_path / "o"
    result = run("rollout", "plan", "--db", db, "--target", "driver=550.127.05", "-o", out, "--tolerance", "0.995")
    assert result.exit_code == 2 and "--tolerance" in result.output and "Traceback" not in result.output
    assert not out.exists()
    accept = run("bench", "accept", "--results", d / "good.json", "--baseline", d / "baseline.json",
                 "--tolerance", "0.995")  # fmt: skip
    assert isinstance(accept.exception, UsageError) and "--tolerance" in str(accept.exception)  # exit 2 in main


# ----- the scheduler each host serves: cordon on Kubernetes, drain on Slurm ------------------------
def test_the_stored_scheduler_picks_cordon_or_drain(tmp_path):
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    for host, scheduler, node in (("a", "slurm", "gpu-a"), ("b", "kubernetes", None), ("c", "none", None)):
        cmd = ["fleet", "scheduler", host, scheduler, "--db", db, *(["--node", node] if node else [])]
        assert run(*cmd).exit_code == 0
    assert run("fleet", "scheduler", "d", "slrum", "--db", db).exit_code == 2
    from gpuwise.ops.fleet import host_schedulers
    from gpuwise.store import open_store

    with open_store(db) as store:
        stored = host_schedulers(store)
    facts = {"c": rollout.RolloutHost(k8s_node="kube-c")}  # a hosts file's k8s_node stands
    plan = plan_rollout(Target("driver", "555.42.06"), [card(h, 0) for h in "abcd"], facts=facts, schedulers=stored)
    got = {h: (p.scheduler, p.node) for h, p in plan.hosts.items()}
    assert got == {
        "a": ("slurm", "gpu-a"),
        "b": ("kubernetes", "b"),
        "c": ("kubernetes", "kube-c"),
        "d": ("none", None),
    }


def test_a_slurm_node_name_is_written_as_data_and_drained_around_the_upgrade(fleet_dir, tmp_path):
    d, db = fleet_dir
    assert run("fleet", "scheduler", "hgx-h100-07", "slurm", "--node", "gpu-07", "--db", db).exit_code == 0
    try:
        _plan(d, db, tmp_path, _hosts_file(d, "s.yaml"), "--canary", "hgx-h100-07")
    finally:
        assert run("fleet", "scheduler", "hgx-h100-07", "none", "--db", db).exit_code == 0
    assert "slurm_node: !unsafe gpu-07\n" in (tmp_path / "inventory.yml").read_text()  # data, never a template
    tasks = load_tree((tmp_path / "tasks" / "host.yml").read_text())
    block = next(t for t in tasks if "block" in t)["block"]
    names = [t["name"] for t in block]
    drain, resume = names.index("Drain the Slurm node"), names.index("Resume the Slurm node")
    assert drain < names.index("Wait for the Slurm node's running jobs to end") < names.index("Install the driver")
    assert names.index("Gate after the upgrade") < resume
    assert block[drain]["ansible.builtin.command"]["argv"][:4] == [
        "scontrol",
        "update",
        "nodename={{ slurm_node }}",
        "state=drain",
    ]
    assert block[resume]["when"] == "slurm_node is defined"


def test_a_stored_node_name_that_is_no_host_name_is_refused(tmp_path):
    """A store written past `fleet scheduler`'s check is refused by the plan, not turned into a playbook."""
    from sqlalchemy import insert

    from gpuwise.ops.fleet import host_schedulers
    from gpuwise.store import open_store
    from gpuwise.store.schema import fleet_hosts

    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    with open_store(db) as store:
        store.transaction(lambda conn: conn.execute(insert(fleet_hosts).values(
            host="a", scheduler="slurm", node="x{{ lookup('pipe', 'id') }}", updated_at=T0)))  # fmt: skip
        stored = host_schedulers(store)
    with pytest.raises(UsageError, match="stored slurm node name"):
        plan_rollout(Target("driver", "555.42.06"), [card("a", 0)], schedulers=stored)


def test_a_real_roll_out_drains_and_resumes_the_slurm_node(slurm_cluster, tmp_path):
    """Not a rehearsal: the playbook drains the host's node in a real Slurm (tests/slurm_cluster.py),
    waits for its jobs, installs (`true`), passes both gates, and resumes the node."""
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    assert run("fleet", "scan", "--replay", HOSTS / "healthy-8x-h100-nvlink.json", "--db", db).exit_code == 0
    _results(tmp_path / "baseline.json", 7.9e14)
    _results(tmp_path / "good.json", 7.9e14)
    node = slurm_cluster.nodes[0]
    assert run("fleet", "scheduler", "hgx-h100-07", "slurm", "--node", node, "--db", db).exit_code == 0
    hosts = tmp_path / "hosts.yaml"
    replay = str(HOSTS / "healthy-8x-h100-nvlink.json")
    hosts.write_text(
        yaml.safe_dump({"hosts": {"hgx-h100-07": {"doctor_replay": replay, "bench_results": "good.json"}}})
    )
    plan = _plan(tmp_path, db, tmp_path / "out", hosts, "--install-command", "true")
    try:
        proc = subprocess.run(
            [_ansible("ansible-playbook"), "-i", "inventory.yml", "rollout.yml"],
            cwd=tmp_path / "out", capture_output=True, text=True, timeout=300,
            env={**_env(), "SLURM_CONF": str(slurm_cluster.conf)},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
        state = slurm_cluster.scontrol("show", "node", node).stdout
        # resumed and not drained; the test cluster's slurmd may be flagged +NOT_RESPONDING for a ping
        # missed while the machine is busy, a health flag of the daemons, not of the roll-out
        assert re.search(r"State=IDLE[ +]", state) and "DRAIN" not in state, state
        log = slurm_cluster.log("slurmctld")
        assert f"reason set to: gpuwise roll-out {plan['id']}: driver 550.127.05" in log
    finally:
        slurm_cluster.scontrol("update", f"nodename={node}", "state=resume", check=False)
    status = json.loads(run("rollout", "status", "--db", db, "--rollout", str(plan["id"]), "--json").output)
    assert status["checked"] is False and [h["state"] for h in status["hosts"]] == ["done"]
