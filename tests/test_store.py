"""The result store on SQLite and on a real PostgreSQL server (the session's throw-away server from
conftest.py, or GPUWISE_TEST_POSTGRES): round trips, concurrent writers, and the migrations: every
earlier version upgrades with its data, the migrations build exactly the live schema, and a schema
newer than the code is refused."""

import ast
import datetime as dt
import multiprocessing as mp
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Column, MetaData, String, Table, insert, inspect, select, text

from gpuwise.errors import GpuwiseError, UsageError
from gpuwise.store import SchemaTooNewError, migrations, open_store
from gpuwise.store.db import create_store_engine
from gpuwise.store.migrations import HEAD, MIGRATIONS, Migration, add_column, upgrade
from gpuwise.store.results import HostFacts, Measurement
from gpuwise.store.schema import metadata


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("clean_postgres")


HOST = HostFacts(
    "node-1",
    "test cpu",
    2,
    "cuda",
    gpu_model="NVIDIA H100 80GB HBM3",
    gpu_id="h100-sxm",
    gpu_count=8,
    driver="550.54",
    cuda="12.4",
    torch="2.13",
    python="3.11",
)


def _m(value, name="best"):
    return Measurement("matmul", name, value, "FLOP/s", {"dtype": "bf16", "m": 8192}, (value * 0.99, value))


def test_round_trip_and_filters(url):
    with open_store(url) as s:
        _round_trip(s)


def _round_trip(s):
    rid = s.save_run(
        HOST,
        [_m(7.9e14), Measurement("membw", "copy", 3.0e12, "bytes/s", {"bytes": 2**30})],
        "gpuwise bench all",
        quick=False,
    )
    rows = s.results()
    assert {r.benchmark for r in rows} == {"matmul", "membw"} and all(r.run_id == rid for r in rows)
    best = s.results(benchmark="matmul", gpu_id="h100-sxm", name="best")
    assert best[0].value == pytest.approx(7.9e14) and best[0].params["dtype"] == "bf16"
    assert s.results(gpu_id="a10") == []


def test_migrations_are_idempotent(url):
    with open_store(url) as a:
        v = a.version()
    with open_store(url) as b:
        assert b.version() == v == HEAD >= 2


def _writer(url, n, worker):
    with open_store(url) as s:
        host = HostFacts(f"worker-{worker}", "cpu", 2, "cpu")
        for i in range(n):
            s.save_run(host, [_m(1e12 + i), _m(2e12 + i, "shape")], f"bench {worker}.{i}", quick=True)


def test_concurrent_writers_lose_nothing(url):
    open_store(url).close()  # created once; the writers also race on opening it
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(url, 15, w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with open_store(url) as s:
        assert s.run_count() == 60
        assert len(s.results(benchmark="matmul")) == 120


def _race_to_create(url):
    with open_store(url) as s:
        assert s.version() == HEAD


def test_processes_racing_to_create_a_new_database_all_succeed(url):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_race_to_create, args=(url,)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with open_store(url) as s, s.engine.connect() as conn:  # each migration recorded once
        versions = conn.execute(text("SELECT version FROM schema_version ORDER BY version")).scalars().all()
    assert versions == list(range(1, HEAD + 1))


def test_bad_urls_are_usage_errors(tmp_path):
    with pytest.raises(UsageError):
        open_store("nosuchdb://x")
    with pytest.raises(UsageError):
        open_store("postgresql://nobody@127.0.0.1:1/none")


# ----- migrations: databases made by every earlier version -----------------------------------------
T0 = dt.datetime(2026, 10, 1, 6, 0, tzinfo=dt.UTC)
# Rows as each version's gpuwise wrote them (values for every column that version had).
HOST_ROW = {"hostname": "node-1", "cpu": "test cpu", "cpu_count": 2, "device": "cuda",
            "gpu_model": "NVIDIA H100 80GB HBM3", "gpu_id": "h100-sxm", "gpu_count": 8, "driver": "550.54",
            "cuda": "12.4", "torch": "2.13", "python": "3.11", "facts": {"hostname": "node-1", "cpu_count": 2}}  # fmt: skip
RUN_ROW = {"started_at": T0, "finished_at": T0 + dt.timedelta(minutes=3), "command": "gpuwise bench matmul",
           "quick": 0, "gpuwise_version": "0.1.0"}  # fmt: skip
RESULT_ROW = {"benchmark": "matmul", "name": "best", "value": 7.9e14, "unit": "FLOP/s",
              "params": {"dtype": "bf16", "m": 8192}, "samples": [7.8e14, 7.9e14]}  # fmt: skip
CARD_ROW = {"uuid": "GPU-0000-aaaa", "serial": "1650123456789", "model": "NVIDIA H100 80GB HBM3",
            "catalog_id": "h100-sxm", "vbios": "96.00.89.00.01", "inforom": "G520.0200.00.05", "driver": "550.54",
            "host": "node-1", "slot": "00000000:18:00.0", "gpu_index": 0, "first_seen": T0, "last_seen": T0,
            "status": "watch", "retired_reason": None, "retired_at": None}  # fmt: skip
INSPECTION_ROW = {"card_uuid": "GPU-0000-aaaa", "time": T0, "ecc_corrected_aggregate": 12,
                  "ecc_uncorrected_aggregate": 0, "retired_pages": 1, "remap_pending": 0, "remap_failure": 0,
                  "temperature_celsius": 61.0, "max_temperature_celsius": 67.5, "clock_sm_hz": 1.98e9,
                  "clock_mem_hz": 2.619e9, "throttle_mask": 4, "snapshot": {"index": 0, "name": "H100"}}  # fmt: skip


def _table(conn, name):
    return Table(name, MetaData(), autoload_with=conn)


def _write_v1(conn):
    host_id = conn.execute(insert(_table(conn, "hosts")).values(HOST_ROW)).inserted_primary_key[0]
    run_id = conn.execute(insert(_table(conn, "runs")).values({**RUN_ROW, "host_id": host_id})).inserted_primary_key[0]
    conn.execute(insert(_table(conn, "results")).values({**RESULT_ROW, "run_id": run_id}))


def _write_v2(conn):
    conn.execute(insert(_table(conn, "cards")).values(CARD_ROW))
    conn.execute(insert(_table(conn, "inspections")).values(INSPECTION_ROW))


ROLLOUT_ROW = {"kind": "driver", "version": "550.127.05", "created_at": T0,
               "plan": {"canary": "node-1", "waves": [], "hosts": {"node-1": {"pool": "train"}}}}  # fmt: skip
EVENT_ROW = {"host": "node-1", "step": "gate-before", "outcome": "pass", "checked": 0, "time": T0,
             "detail": "doctor 0 FAIL; accepted"}  # fmt: skip


def _write_v3(conn):
    rollout_id = conn.execute(insert(_table(conn, "rollouts")).values(ROLLOUT_ROW)).inserted_primary_key[0]
    conn.execute(insert(_table(conn, "rollout_events")).values({**EVENT_ROW, "rollout_id": rollout_id}))


FLEET_HOST_ROW = {"host": "node-1", "scheduler": "slurm", "node": "gpu-node-1", "updated_at": T0}


def _write_v4(conn):
    conn.execute(insert(_table(conn, "fleet_hosts")).values(FLEET_HOST_ROW))


MEASUREMENT_ROW = {"sha256": "d01100da78ff" + "0" * 52, "part": 0, "format": "vllm-bench", "kind": "serving",
                   "model": "llama-3.1-8b", "gpu_id": "h100-sxm", "gpu_count": 1, "source": "run.json",
                   "measured_at": "2025-11-04T14:23:11", "imported_at": T0,
                   "shape": {"input_tokens": 1024, "output_tokens": 256, "concurrency": 32},
                   "figures": {"ttft.median": 0.0784, "tpot.median": 0.0129}, "samples": {},
                   "facts": {"requests": 320}, "notes": []}  # fmt: skip


def _write_v5(conn):
    conn.execute(insert(_table(conn, "measurements")).values(MEASUREMENT_ROW))


WRITERS = {1: _write_v1, 2: _write_v2, 3: _write_v3, 4: _write_v4, 5: _write_v5}  # one per migration
EXPECTED = {1: {"hosts": HOST_ROW, "runs": RUN_ROW, "results": RESULT_ROW},
            2: {"cards": CARD_ROW, "inspections": INSPECTION_ROW},
            3: {"rollouts": ROLLOUT_ROW, "rollout_events": EVENT_ROW},
            4: {"fleet_hosts": FLEET_HOST_ROW},
            5: {"measurements": MEASUREMENT_ROW}}  # fmt: skip


def test_every_migration_has_sample_data():
    assert sorted(WRITERS) == sorted(EXPECTED) == [m.version for m in MIGRATIONS]


def _database_at(url, version, extra=()):
    """A database built with migrations 1..version only, holding what each of those versions wrote."""
    engine = create_store_engine(url)
    try:
        for k in range(1, version + 1):
            assert upgrade(engine, k, (*MIGRATIONS, *extra)) == k
            with engine.begin() as conn:
                WRITERS[k](conn)
    finally:
        engine.dispose()


def _same_time(a, b):
    """SQLite keeps no time zone: its datetimes come back naive, in the UTC they were written in."""
    return a == b if a.tzinfo else a == b.astimezone(dt.UTC).replace(tzinfo=None)


def _assert_rows_survived(conn, version):
    for k in range(1, version + 1):
        for table, row in EXPECTED[k].items():
            (got,) = conn.execute(select(_table(conn, table))).mappings().all()
            for column, want in row.items():
                have = got[column]
                assert _same_time(have, want) if isinstance(want, dt.datetime) else have == want, (table, column)


@pytest.mark.parametrize("version", range(1, HEAD + 1))
def test_a_database_from_every_earlier_version_upgrades_with_its_data(url, version):
    _database_at(url, version)
    with open_store(url) as s:
        assert s.version() == HEAD
        with s.engine.connect() as conn:
            _assert_rows_survived(conn, version)
        (old,) = s.results(benchmark="matmul", gpu_id="h100-sxm")  # the public API reads the old rows
        assert old.value == 7.9e14 and old.params == {"dtype": "bf16", "m": 8192} and old.hostname == "node-1"
        s.save_run(HOST, [_m(1e14)], "gpuwise bench matmul --quick", quick=True)  # and writes beside them
        assert s.run_count() == 2


def _shape(engine, schema=None):
    """Everything a migration decides, as the database reports it: columns with types and
    nullability, primary and foreign keys, unique constraints and indexes."""
    insp = inspect(engine)
    out = {}
    for table in sorted(insp.get_table_names(schema=schema)):
        cols = [
            (c["name"], str(c["type"].compile(engine.dialect)), c["nullable"]) for c in insp.get_columns(table, schema)
        ]
        fks = sorted((tuple(f["constrained_columns"]), f["referred_table"], tuple(f["referred_columns"]))
                     for f in insp.get_foreign_keys(table, schema))  # fmt: skip
        indexes = sorted(
            (i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(table, schema)
        )
        uniques = sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(table, schema))
        pk = tuple(insp.get_pk_constraint(table, schema)["constrained_columns"])
        out[table] = {"columns": cols, "pk": pk, "fks": fks, "indexes": indexes, "uniques": uniques}
    return out


def test_the_migrations_build_exactly_the_live_schema(url, tmp_path):
    """schema.py (what the queries use) and the frozen migrations cannot drift apart unnoticed."""
    engine = create_store_engine(url)
    try:
        upgrade(engine)
        migrated = _shape(engine)
        if engine.dialect.name == "postgresql":  # the live tables in a schema of their own, same server
            with engine.begin() as conn:
                conn.exec_driver_sql("CREATE SCHEMA live")
                metadata.create_all(conn.execution_options(schema_translate_map={None: "live"}))
            live = _shape(engine, "live")
        else:
            live_engine = create_store_engine(f"sqlite:///{tmp_path / 'live.db'}")
            metadata.create_all(live_engine)
            live = _shape(live_engine)
            live_engine.dispose()
    finally:
        engine.dispose()
    assert set(migrated) == {t.name for t in metadata.sorted_tables}
    assert migrated == live


def test_migrations_import_nothing_from_the_live_schema():
    """Frozen means frozen: a migration never reads the tables that later code edits."""
    tree = ast.parse(Path(migrations.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    own = {"gpuwise.store.migrations", "gpuwise.store.errors"}  # itself, and the error it raises
    assert not {m for m in imported if m and m.startswith("gpuwise.store.") and m not in own}


# ----- a later version's migration: a new column, and a schema newer than this code --------------
def _v3_columns(conn):
    add_column(conn, "hosts", Column("rack", String(32)))
    add_column(conn, "runs", Column("notes", String(200), nullable=False, server_default="none"))


V3 = Migration(HEAD + 1, "hosts.rack, runs.notes (a future version's)", _v3_columns)


def test_a_new_column_migration_keeps_old_rows(url):
    _database_at(url, HEAD)
    engine = create_store_engine(url)
    try:
        assert upgrade(engine, migrations=(*MIGRATIONS, V3)) == HEAD + 1
        with engine.connect() as conn:
            _assert_rows_survived(conn, HEAD)
            (run,) = conn.execute(select(_table(conn, "runs"))).mappings().all()
            (host,) = conn.execute(select(_table(conn, "hosts"))).mappings().all()
        assert run["notes"] == "none" and host["rack"] is None  # old rows get the default
    finally:
        engine.dispose()


def test_a_schema_newer_than_the_code_is_refused(url):
    _database_at(url, HEAD)
    engine = create_store_engine(url)
    upgrade(engine, migrations=(*MIGRATIONS, V3))
    engine.dispose()
    with pytest.raises(SchemaTooNewError) as err:
        open_store(url)
    message = str(err.value)
    assert f"schema version {HEAD + 1}" in message and f"up to {HEAD}" in message and "Upgrade gpuwise" in message
    assert isinstance(err.value, GpuwiseError) and err.value.exit_code == 2


def test_a_newer_schema_is_exit_code_2_at_the_command_line(tmp_path):
    db = f"sqlite:///{tmp_path / 'newer.db'}"
    _database_at(db, HEAD)
    engine = create_store_engine(db)
    upgrade(engine, migrations=(*MIGRATIONS, V3))
    engine.dispose()
    proc = subprocess.run(
        [sys.executable, "-m", "gpuwise.cli.app", "matrix", "--db", db], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        "Traceback" not in proc.stderr
        and f"schema version {HEAD + 1}" in proc.stderr
        and "Upgrade gpuwise" in proc.stderr
    )


def _v3_fails(conn):
    add_column(conn, "hosts", Column("rack", String(32)))
    raise RuntimeError("a bug in migration 3")


def test_a_failing_migration_leaves_the_step_before(url):
    _database_at(url, HEAD)
    engine = create_store_engine(url)
    try:
        with pytest.raises(RuntimeError, match="migration 3"):
            upgrade(engine, migrations=(*MIGRATIONS, Migration(HEAD + 1, "broken", _v3_fails)))
        with engine.connect() as conn:
            assert migrations.current_version(conn) == HEAD
            assert "rack" not in {c["name"] for c in inspect(conn).get_columns("hosts")}
    finally:
        engine.dispose()


def test_upgrade_rejects_a_target_it_does_not_have(tmp_path):
    engine = create_store_engine(f"sqlite:///{tmp_path / 's.db'}")
    with pytest.raises(UsageError, match="between 0 and"):
        upgrade(engine, HEAD + 1)
    with pytest.raises(UsageError, match="in order"):
        upgrade(engine, migrations=(MIGRATIONS[1],))
    engine.dispose()
