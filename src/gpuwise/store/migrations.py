"""The ordered migrations of the store, each carrying its own frozen DDL.

A migration defines the tables it creates (or the columns it adds) as they were the day it was
written, in a MetaData of its own, and imports nothing from `schema.py`: editing the live table
definitions there (what the queries use) never changes what an old migration creates, so a
database made by any earlier gpuwise upgrades to the same schema as a new one. Changing the schema
is a new function appended to MIGRATIONS, never an edit of an old one; tests/test_store.py checks
that the migrations, applied in order, build exactly what `schema.metadata` describes.

The version reached is recorded in `schema_version`, one row per migration. A database at a
version above the newest migration here was written by a newer gpuwise: it is refused with
SchemaTooNewError, never opened half-understood.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.schema import CreateColumn

from gpuwise import __version__
from gpuwise.errors import UsageError
from gpuwise.store.errors import SchemaTooNewError

# The version table is the runner's own and never changes; each migration adds one row.
VERSION_TABLE = Table(
    "schema_version",
    MetaData(),
    Column("version", Integer, primary_key=True),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)
PG_LOCK_KEY = 0x67707577  # "gpuw": the advisory lock that serializes migrations on PostgreSQL


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    summary: str
    apply: Callable[[Connection], None]


def add_column(conn: Connection, table: str, column: Column[Any]) -> None:
    """ALTER TABLE ... ADD COLUMN with the column's type compiled for this database; for later
    migrations (a new NOT NULL column needs a server_default so that old rows get a value)."""
    quote = conn.dialect.identifier_preparer.quote
    conn.execute(text(f"ALTER TABLE {quote(table)} ADD COLUMN {CreateColumn(column).compile(dialect=conn.dialect)}"))


# ----- v1: benchmark hosts, runs and results (gpuwise.bench) -----------------------------------
def _v1(conn: Connection) -> None:
    """hosts, runs, results, as first released."""
    m = MetaData()
    Table(
        "hosts",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("hostname", String(255), nullable=False),
        Column("cpu", String(255)),
        Column("cpu_count", Integer),
        Column("device", String(32), nullable=False),
        Column("gpu_model", String(255)),
        Column("gpu_id", String(64), index=True),
        Column("gpu_count", Integer, nullable=False),
        Column("driver", String(64)),
        Column("cuda", String(32)),
        Column("torch", String(64)),
        Column("python", String(32)),
        Column("facts", JSON, nullable=False),
    )
    Table(
        "runs",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("host_id", Integer, ForeignKey("hosts.id"), nullable=False, index=True),
        Column("started_at", DateTime(timezone=True), nullable=False),
        Column("finished_at", DateTime(timezone=True), nullable=False),
        Column("command", Text, nullable=False),
        Column("quick", Integer, nullable=False),
        Column("gpuwise_version", String(32), nullable=False),
    )
    Table(
        "results",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False, index=True),
        Column("benchmark", String(32), nullable=False, index=True),
        Column("name", String(64), nullable=False),
        Column("value", Float, nullable=False),
        Column("unit", String(32), nullable=False),
        Column("params", JSON, nullable=False),
        Column("samples", JSON, nullable=False),
    )
    m.create_all(conn)


# ----- v2: fleet inventory and inspections (gpuwise.ops.fleet) ---------------------------------
def _v2(conn: Connection) -> None:
    """cards, inspections (fleet life cycle), as first released."""
    m = MetaData()
    Table(
        "cards",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("uuid", String(96), nullable=False, unique=True),
        Column("serial", String(64)),
        Column("model", String(255)),
        Column("catalog_id", String(64), index=True),
        Column("vbios", String(64)),
        Column("inforom", String(64)),
        Column("driver", String(64)),
        Column("host", String(255), index=True),
        Column("slot", String(32)),
        Column("gpu_index", Integer),
        Column("first_seen", DateTime(timezone=True), nullable=False),
        Column("last_seen", DateTime(timezone=True), nullable=False),
        Column("status", String(16), nullable=False),
        Column("retired_reason", Text),
        Column("retired_at", DateTime(timezone=True)),
    )
    Table(
        "inspections",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("card_uuid", String(96), ForeignKey("cards.uuid"), nullable=False),
        Column("time", DateTime(timezone=True), nullable=False),
        Column("ecc_corrected_aggregate", BigInteger),
        Column("ecc_uncorrected_aggregate", BigInteger),
        Column("retired_pages", Integer),
        Column("remap_pending", Integer),
        Column("remap_failure", Integer),
        Column("temperature_celsius", Float),
        Column("max_temperature_celsius", Float),
        Column("clock_sm_hz", Float),
        Column("clock_mem_hz", Float),
        Column("throttle_mask", BigInteger),
        Column("snapshot", JSON, nullable=False),
        Index("ix_inspections_card_time", "card_uuid", "time"),
    )
    m.create_all(conn)


# ----- v3: staged roll-outs and their per-host events (gpuwise.ops.rollout) ------------------
def _v3(conn: Connection) -> None:
    """rollouts, rollout_events (driver/firmware/CUDA roll-outs behind a benchmark gate), as first released."""
    m = MetaData()
    Table(
        "rollouts",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("kind", String(16), nullable=False),
        Column("version", String(64), nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
        Column("plan", JSON, nullable=False),
    )
    Table(
        "rollout_events",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("rollout_id", Integer, ForeignKey("rollouts.id"), nullable=False),
        Column("host", String(255), nullable=False),
        Column("step", String(32), nullable=False),
        Column("outcome", String(16), nullable=False),
        Column("checked", Integer, nullable=False),
        Column("time", DateTime(timezone=True), nullable=False),
        Column("detail", Text),
        Index("ix_rollout_events_rollout_host", "rollout_id", "host"),
    )
    m.create_all(conn)


# ----- v4: the scheduler each fleet host serves (roll-outs drain it there) -------------------
def _v4(conn: Connection) -> None:
    """fleet_hosts: per host, the scheduler that places work on it (kubernetes, slurm, none) and its
    node name there, so that a roll-out cordons or drains the host where work would land."""
    m = MetaData()
    Table(
        "fleet_hosts",
        m,
        Column("host", String(255), primary_key=True),
        Column("scheduler", String(16), nullable=False),
        Column("node", String(255)),
        Column("updated_at", DateTime(timezone=True), nullable=False),
    )
    m.create_all(conn)


# ----- v5: the team's own measurements, imported from the files their tools write ------------
def _v5(conn: Connection) -> None:
    """measurements: one row per measurement a file holds (`gpuwise calibrate import`), with the
    file's SHA-256, so that importing the same file again adds nothing."""
    m = MetaData()
    Table(
        "measurements",
        m,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("sha256", String(64), nullable=False, index=True),
        Column("part", Integer, nullable=False),
        Column("format", String(32), nullable=False),
        Column("kind", String(16), nullable=False),
        Column("model", String(128), index=True),
        Column("gpu_id", String(64), nullable=False, index=True),
        Column("gpu_count", Integer, nullable=False),
        Column("source", String(255), nullable=False),
        Column("measured_at", String(32)),
        Column("imported_at", DateTime(timezone=True), nullable=False),
        Column("shape", JSON, nullable=False),
        Column("figures", JSON, nullable=False),
        Column("samples", JSON, nullable=False),
        Column("facts", JSON, nullable=False),
        Column("notes", JSON, nullable=False),
        UniqueConstraint("sha256", "part", name="uq_measurements_sha256_part"),
    )
    m.create_all(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "hosts, runs, results", _v1),
    Migration(2, "cards, inspections", _v2),
    Migration(3, "rollouts, rollout_events", _v3),
    Migration(4, "fleet_hosts", _v4),
    Migration(5, "measurements", _v5),
)
HEAD = len(MIGRATIONS)


# ----- running them ---------------------------------------------------------------------------
def current_version(conn: Connection) -> int:
    """The highest migration recorded; 0 for a database that has none (new or empty)."""
    if not inspect(conn).has_table(VERSION_TABLE.name):
        return 0
    return int(conn.execute(select(func.max(VERSION_TABLE.c.version))).scalar() or 0)


def check_not_newer(found: int, head: int, url: str) -> None:
    """A schema newer than this code is refused: its tables may hold what this version cannot read."""
    if found > head:
        raise SchemaTooNewError(
            f"the store at {url} has schema version {found}, but this gpuwise ({__version__}) knows schema "
            f"versions up to {head}: a newer gpuwise wrote it. Upgrade gpuwise (pip install -U gpuwise) to open it."
        )


def _lock(conn: Connection) -> None:
    """Serialize migrating processes: the first takes the lock, the others wait and then find the
    step done. SQLite: the write lock at BEGIN (waits up to busy_timeout); PostgreSQL: an advisory
    lock held until the transaction ends."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_LOCK_KEY})


def upgrade(engine: Engine, target: int | None = None, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Apply `migrations` in order up to version `target` (default: all), one transaction each,
    so that a failing step leaves the database at the step before; returns the version reached."""
    head = len(migrations)
    target = head if target is None else target
    if not 0 <= target <= head:
        raise UsageError(f"schema version must be between 0 and {head}; got {target}")
    url = engine.url.render_as_string(hide_password=True)
    with engine.connect() as conn:  # the usual case, nothing pending: read only, no lock taken
        current = current_version(conn)
    check_not_newer(current, head, url)
    if current >= target:
        return current
    while True:
        with engine.begin() as conn:
            _lock(conn)
            VERSION_TABLE.create(conn, checkfirst=True)
            current = current_version(conn)
            check_not_newer(current, head, url)
            if current >= target:
                return current
            step = migrations[current]
            if step.version != current + 1:
                raise UsageError(f"migration {current + 1} is numbered {step.version}: migrations must be in order")
            step.apply(conn)
            conn.execute(insert(VERSION_TABLE).values(version=step.version, applied_at=dt.datetime.now(dt.UTC)))


__all__ = ["HEAD", "MIGRATIONS", "Migration", "add_column", "check_not_newer", "current_version", "upgrade"]
