"""Hostile input never crashes or hangs; concurrent writers lose nothing (outside the web server).

The malformed-file corpus is corpus/data/hostile/ (small files) plus big ones generated here by
scripts/fuzz_cli.py's `make_big_files` (100,000-deep JSON, 3,000-deep YAML, files over 4 MiB).
Every door that reads a user file must answer each of them with a GpuwiseError (a one-line
message, exit 2) or a result, never another exception. The concurrency tests run 30 real
`gpuwise fleet scan` processes (10 at a time) against one new store, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import pytest

from corpus import HOSTILE

pytest.importorskip("sqlalchemy", exc_type=ImportError)

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError

from gpuwise.catalog import load_catalog
from gpuwise.catalog.hf_import import load_hf_config
from gpuwise.cli.bench_cmd import _load_results
from gpuwise.cli.bounds import bounded
from gpuwise.cli.output import to_json
from gpuwise.deploy.validate import load_crds
from gpuwise.errors import ConfigError, GpuwiseError, UsageError
from gpuwise.estimate.cost import CostParams, compare
from gpuwise.hw import ReplaySource, read_recording
from gpuwise.ops import fleet
from gpuwise.ops.doctor import run_checks
from gpuwise.planfile import read_plan_file
from gpuwise.store import mask_password, open_store
from gpuwise.store.db import _transient, check_row
from gpuwise.store.schema import cards, inspections
from gpuwise.workload import build_hardware

from .conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
HOSTS = ROOT / "examples" / "hosts"
HEALTHY = HOSTS / "healthy-8x-h100-nvlink.json"
fuzz_cli = load_script("fuzz_cli")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    big = fuzz_cli.make_big_files(tmp_path_factory.mktemp("big"))
    return list(fuzz_cli.hostile_files(big))


def _costs(path: Path) -> CostParams:
    from gpuwise.files import read_yaml

    doc = read_yaml(path)
    return CostParams.from_catalog(load_catalog(), doc.get("costs", doc))


def _crds(path: Path) -> object:
    return load_crds(path if path.is_dir() else path.parent)


DOORS: dict[str, Callable[[Path], object]] = {
    "config.json": load_hf_config,
    "recording": read_recording,
    "fleet rules": fleet.load_rules,
    "acceptance": lambda p: fleet.acceptance_from_file(p)(_card()),
    "bench results": _load_results,
    "plan file": read_plan_file,
    "costs": _costs,
}


def _card() -> fleet.Card:
    import datetime as dt

    now = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    uuid = "GPU-00000000-0000-0000-0000-000000000001"
    return fleet.Card(uuid, None, None, None, None, None, None, None, None, 0, now, now, "active")


@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_door_answers_every_hostile_file_with_a_message_or_a_result(door: str, corpus: list[Path]) -> None:
    for path in corpus:
        try:
            DOORS[door](path)
        except GpuwiseError as exc:
            assert str(exc).strip() and "\n" not in str(exc).strip(), (door, path.name, str(exc))
        # any other exception fails the test, naming the door and the file through pytest's report


def test_crd_folders_that_are_malformed_are_config_errors() -> None:
    for name in ("crds-malformed", "crds-bad-schema"):
        try:
            crds = load_crds(HOSTILE / name)
        except ConfigError as exc:
            assert "CustomResourceDefinition" in str(exc) or "schema" in str(exc)
            continue
        # a schema that loads must then fail validation as a ConfigError, not a jsonschema traceback
        from gpuwise.deploy.common import Manifest
        from gpuwise.deploy.validate import validate

        assert crds
        body = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "x"}}
        job = Manifest(body=body, comments={}, file="x.yaml", why="")
        with pytest.raises(ConfigError, match="not valid"):
            validate([job], HOSTILE / name)


# ----- config.json ------------------------------------------------------------------------------
def test_config_json_nested_100000_deep_is_a_config_error(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text('{"hidden_size": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ConfigError, match="nested more than 64 levels deep"):
        load_hf_config(p)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("config-strings.json", "'hidden_size' must be a positive integer"),
        ("config-nan.json", "NaN is not a number"),
        ("config-infinity.json", "1e400 is not a number"),
        ("config-huge-int.json", "'hidden_size' must be a positive integer at most 2147483647"),
        ("config-dropout-text.json", "'hidden_dropout' must be a rate from 0 to 1"),
        ("config-id2label-number.json", "'id2label' must be an object"),
    ],
)
def test_config_json_wrong_values_name_the_key(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_hf_config(HOSTILE / name)


# ----- recordings -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("replay-numeric-uuid.json", "snapshot.gpus[0].uuid: must be text"),
        ("replay-text-temperature.json", "snapshot.gpus[0].temperature_celsius: must be a finite number"),
        ("replay-bad-time.json", "snapshot.time: must be an ISO 8601 time"),
        ("replay-gpus-object.json", "snapshot.gpus: must be a list"),
        ("replay-bool-index.json", "snapshot.gpus[0].index: must be a number"),
        ("replay-huge-counter.json", "ecc_corrected_aggregate: must be a whole number"),
        ("replay-governor-keys.json", "snapshot.cpu_governors key: must be a small whole number"),
    ],
)
def test_a_wrong_type_in_a_recording_is_an_error_at_load_naming_the_field(name: str, field: str) -> None:
    with pytest.raises(UsageError) as info:
        ReplaySource(HOSTILE / name)
    assert field in str(info.value)


def test_a_recorded_number_over_the_float_range_is_refused_when_read() -> None:
    with pytest.raises(ConfigError, match="1e400 is not a number"):
        read_recording(HOSTILE / "replay-huge-temperature.json")


def test_the_example_hosts_still_load_and_doctor_runs_on_them() -> None:
    for host in sorted(HOSTS.glob("*.json")):
        snap = ReplaySource(host).read()
        assert snap.gpus and all(isinstance(g.uuid, str) for g in snap.gpus)
        assert run_checks(snap).results  # every check ran on a well-typed snapshot


# ----- costs ------------------------------------------------------------------------------------
def test_cost_overrides_must_be_finite_numbers_in_range(catalog: Any) -> None:
    for bad, message in (
        ({"pue": float("nan")}, "pue must be a finite number"),
        ({"pue": [1.2]}, "pue must be a number"),
        ({"pue": True}, "pue must be a number"),
        ({"electricity_usd_per_kwh": "1e400"}, "finite"),
        ({"gpu_utilization": 1.5}, "from 0 to 1"),
        ({"pue": -1}, "from 0 to"),
    ):
        with pytest.raises(UsageError, match=message):
            CostParams.from_catalog(catalog, cast(Any, bad))
    with pytest.raises(UsageError, match="must be a mapping"):
        CostParams.from_catalog(catalog, cast(Any, [1, 2]))
    assert CostParams.from_catalog(catalog, cast(Any, {"pue": "1.5"})).pue == 1.5  # a number written as text is fine


def test_tco_years_and_busy_must_be_finite(catalog: Any) -> None:
    params, hw = CostParams.from_catalog(catalog), build_hardware("h100-sxm:8", catalog)
    for years, busy in ((math.nan, 1.0), (math.inf, 1.0), (101, 1.0), (3, math.inf), (3, math.nan), (3, 0)):
        with pytest.raises(UsageError, match="--years"):
            compare(hw, years, params, busy)
    assert compare(hw, 1, params, 0.5).years == 1  # finite values in range pass


# ----- the CLI's own numbers and its one JSON printer ------------------------------------------
def test_bounded_rejects_nan_and_infinity_and_names_the_flag() -> None:
    assert bounded(3, "--samples", 1, 1000) == 3
    assert bounded(0.0, "--interval", 0, 3600) == 0.0
    for value in (math.nan, math.inf, -math.inf, 3601.0, -0.5):
        with pytest.raises(UsageError, match="--interval must be a number from 0 to 3600"):
            bounded(value, "--interval", 0, 3600)


def test_json_output_refuses_non_finite_numbers_naming_where() -> None:
    assert json.loads(to_json({"a": [1.5, None, "x"]})) == {"a": [1.5, None, "x"]}
    with pytest.raises(RuntimeError, match=r"\$\.a\[1\]"):
        to_json({"a": [1.0, math.inf]})


def _cli(*args: str) -> tuple[int, str, str]:
    code, out, err, hung = fuzz_cli.invoke(list(args), 20)
    assert not hung, args
    return code, out, err


@pytest.mark.parametrize(
    "args",
    [
        ["tco", "--gpu", "h100-sxm:8", "--years", "nan", "--json"],
        ["tco", "--gpu", "h100-sxm:8", "--busy", "inf", "--json"],
        ["tco", "--gpu", "h100-sxm:8", "--costs", str(HOSTILE / "costs-nan.yaml"), "--json"],
        ["tco", "--gpu", "h100-sxm:8", "--costs", str(HOSTILE / "costs-list.yaml"), "--json"],
        ["fleet", "scan", "--replay", str(HEALTHY), "--samples", "1001", "--db", "sqlite:///:memory:"],
        ["fleet", "scan", "--replay", str(HEALTHY), "--interval", "1e308", "--db", "sqlite:///:memory:"],
        ["fleet", "inspect", "--replay", str(HEALTHY), "--interval", "nan", "--db", "sqlite:///:memory:"],
        ["doctor", "--replay", str(HEALTHY), "--interval", "inf"],
        ["exporter", "--once", "--port", "70000", "--replay", str(HEALTHY)],
        ["exporter", "--once", "--replay", str(HOSTILE / "replay-numeric-uuid.json")],
        ["bench", "accept", "--results", str(HOSTILE / "results-good.json"), "--baseline", "db", "--tolerance", "nan"],
        [
            "bench",
            "accept",
            "--results",
            str(HOSTILE / "results-nan.json"),
            "--baseline",
            str(HOSTILE / "results-good.json"),
        ],
        ["deploy", str(ROOT / "examples" / "chat-7b-p99.yaml"), "--dry-run", "--crds", str(HOSTILE / "crds-malformed")],
        ["matrix", "--db", f"sqlite:///{HOSTILE / 'empty.json'}/x.db"],
        ["fleet", "list", "--db", "sqlite:///" + "x" * 300 + "/x.db"],
    ],
)
def test_hostile_flags_and_files_are_usage_errors_in_one_line(args: list[str]) -> None:
    code, out, err = _cli(*args)
    assert code == 2, (code, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not out.strip()


def test_tco_json_is_strict_json() -> None:
    code, out, _ = _cli("tco", "--gpu", "h100-sxm:8", "--years", "3", "--json")
    assert code == 0
    json.loads(out, parse_constant=lambda c: pytest.fail(f"non-finite {c} in tco --json"))


# ----- the store: passwords, values it cannot hold, retries ------------------------------------
def test_passwords_are_masked_in_every_store_message() -> None:
    assert mask_password("postgresql://bob:s3cr@t@db:5432/x") == "postgresql://bob:***@db:5432/x"
    assert mask_password("host=db password=hunter2 user=u") == "host=db password=*** user=u"
    assert mask_password("sqlite:////tmp/a.db") == "sqlite:////tmp/a.db"
    assert mask_password("postgresql://bob@db/x") == "postgresql://bob@db/x"  # no password: unchanged
    code, _, err = _cli("fleet", "list", "--db", "postgresql+nodriver://admin:hunter2@db.example/x")
    assert code == 2 and "hunter2" not in err and "admin:***@" in err


def test_values_a_column_cannot_hold_are_rejected_naming_the_field() -> None:
    check_row(cards, {"uuid": "GPU-1", "gpu_index": 0, "host": "h"}, "GPU 0")  # fits: no error
    for table, values, message in (
        (cards, {"uuid": "GPU-" + "f" * 200}, "cards.uuid is 204 characters long; the store holds at most 96"),
        (cards, {"host": "h\x00"}, "cards.host holds a NUL character"),
        (cards, {"gpu_index": 2**31}, "cards.gpu_index must be a whole number"),
        (inspections, {"temperature_celsius": math.nan}, "inspections.temperature_celsius must be a finite number"),
        (inspections, {"throttle_mask": 2**64}, "inspections.throttle_mask must be a whole number"),
        (inspections, {"snapshot": {"gpu": {"power_watts": math.inf}}}, "inspections.snapshot holds the non-finite"),
    ):
        with pytest.raises(UsageError, match=message):
            check_row(table, values, "GPU 0")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'hardening.db'}"
    return str(request.getfixturevalue("clean_postgres"))


def test_a_scan_with_a_value_the_store_cannot_hold_writes_nothing(store_url: str) -> None:
    with open_store(store_url) as store:
        with pytest.raises(UsageError, match=r"cards\.uuid is 204 characters long"):
            fleet.scan(store, ReplaySource(HOSTILE / "replay-long-uuid.json"))
        with pytest.raises(UsageError, match=r"cards\.host is 300 characters long"):
            fleet.scan(store, ReplaySource(HOSTILE / "replay-long-hostname.json"))
        with pytest.raises(UsageError, match=r"cards\.model holds a NUL character"):
            fleet.scan(store, ReplaySource(HOSTILE / "replay-nul-in-name.json"))
        assert fleet.list_cards(store) == [] and fleet.inspections_of(store) == []


def test_a_rollout_id_no_store_can_hold_names_no_rollout(store_url: str) -> None:
    """`rollout status --rollout 99999999999999999999` was an OverflowError on SQLite and a DataError
    past 2^31 on PostgreSQL (exit 70): an id the column cannot hold is a usage error naming --rollout."""
    from gpuwise.ops import rollout

    with open_store(store_url) as store:
        for rid in (10**20, 2**31, -(2**31) - 1):
            for call, args in (
                (rollout.get_rollout, ()),
                (rollout.rollout_status, ()),
                (rollout.record, ("h", "done", "pass")),
            ):
                with pytest.raises(UsageError, match=f"--rollout {rid}: no roll-out"):
                    call(store, rid, *args)
        with pytest.raises(UsageError, match="no roll-out 2147483647 in the store"):
            rollout.get_rollout(store, 2**31 - 1)
    code, out, err = _cli("rollout", "status", "--rollout", str(10**20), "--db", store_url)
    assert code == 2 and "--rollout" in err and err.count("\n") == 1 and not out, err


def test_the_store_retries_a_conflict_and_gives_up_on_one_that_persists(tmp_path: Path) -> None:
    calls: list[int] = []

    def clash_once(conn: Any) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed: cards.uuid"))
        return "written"

    def always_clash(conn: Any) -> str:
        raise IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed: cards.uuid"))

    def broken(conn: Any) -> str:
        raise OperationalError("SELECT", {}, Exception("disk I/O error"))

    with open_store(f"sqlite:///{tmp_path / 'r.db'}") as store:
        assert store.transaction(clash_once) == "written" and len(calls) == 2
        with pytest.raises(UsageError, match="UNIQUE constraint failed"):
            store.transaction(always_clash)
        with pytest.raises(UsageError, match="disk I/O error"):
            store.transaction(broken)  # not transient: no retry, one line


def test_serialization_failures_and_deadlocks_are_retried() -> None:
    class Orig(Exception):
        def __init__(self, sqlstate: str) -> None:
            super().__init__("could not serialize access")
            self.sqlstate = sqlstate

    assert _transient(OperationalError("UPDATE", {}, Orig("40001"))) == "busy"
    assert _transient(OperationalError("UPDATE", {}, Orig("40P01"))) == "busy"
    assert _transient(OperationalError("UPDATE", {}, Exception("database is locked"))) == "busy"
    assert _transient(IntegrityError("INSERT", {}, Orig("23505"))) == "conflict"
    assert _transient(OperationalError("UPDATE", {}, Orig("53100"))) is None  # disk full: not a race


def test_scan_then_inspect_upserts_on_the_same_cards(store_url: str) -> None:
    with open_store(store_url) as store:
        first = fleet.scan(store, ReplaySource(HEALTHY))
        again = fleet.scan(store, ReplaySource(HEALTHY))
        checked = fleet.inspect(store, ReplaySource(HEALTHY))
        assert len(first.added) == 8 and not first.updated
        assert not again.added and again.updated == first.added
        assert checked.inspected == first.added
        assert len(fleet.list_cards(store)) == 8 and len(fleet.inspections_of(store)) == 24


# ----- 30 concurrent writers --------------------------------------------------------------------
SCANS = 30
AT_ONCE = 10  # 2-core CI: ten processes overlap in each of three waves


def _scan_process(url: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "gpuwise.cli.app", "fleet", "scan", "--replay", str(HEALTHY), "--db", url, "--json"]
    env = {**os.environ, "GPUWISE_DEBUG": ""}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def test_30_concurrent_fleet_scans_all_succeed_and_store_every_inspection(store_url: str) -> None:
    with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
        done = list(pool.map(_scan_process, [store_url] * SCANS))
    failed = [(p.returncode, p.stderr[-500:]) for p in done if p.returncode != 0]
    assert not failed, failed
    reports = [json.loads(p.stdout) for p in done]
    gpus = 8
    assert all(len(r["inspected"]) == gpus for r in reports)
    added = [u for r in reports for u in r["added"]]
    assert len(added) == len(set(added)) == gpus  # each new card added by exactly one scan
    assert sum(len(r["updated"]) for r in reports) == gpus * (SCANS - 1)
    with open_store(store_url) as store, store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(cards)).scalar() == gpus
        assert conn.execute(select(func.count()).select_from(inspections)).scalar() == gpus * SCANS


# ----- a small fuzz run over every command (the full 2,000 run: scripts/fuzz_cli.py) -------------
def test_a_seeded_fuzz_run_over_every_command_finds_no_traceback_hang_or_non_finite_json() -> None:
    tally = fuzz_cli.run(count=80, seed=20261201, db=None, timeout=20, quiet=True, corpus=False)
    assert tally.invocations == 80
    assert (tally.tracebacks, tally.hangs, tally.non_finite_json, tally.bad_exit) == (0, 0, 0, 0), tally.findings
    assert tally.exits[0] > 0 and tally.exits[2] > 0  # it reached both working and refused invocations
