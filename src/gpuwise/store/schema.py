"""Tables, and the ordered migrations that create and evolve them.

Migrations are numbered functions applied in order inside one transaction each and recorded in
`schema_version`; a database at version N gets N+1.. on open. New columns or tables are a new
function appended to MIGRATIONS, never an edit of an old one.
"""

from __future__ import annotations

from collections.abc import Callable

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
)
from sqlalchemy.engine import Connection

metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, primary_key=True),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)

hosts = Table(
    "hosts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("hostname", String(255), nullable=False),
    Column("cpu", String(255)),
    Column("cpu_count", Integer),
    Column("device", String(32), nullable=False),
    Column("gpu_model", String(255)),
    Column("gpu_id", String(64), index=True),
    Column("gpu_count", Integer, nullable=False, default=0),
    Column("driver", String(64)),
    Column("cuda", String(32)),
    Column("torch", String(64)),
    Column("python", String(32)),
    Column("facts", JSON, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("host_id", Integer, ForeignKey("hosts.id"), nullable=False, index=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("command", Text, nullable=False),
    Column("quick", Integer, nullable=False, default=0),
    Column("gpuwise_version", String(32), nullable=False),
)

results = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False, index=True),
    Column("benchmark", String(32), nullable=False, index=True),
    Column("name", String(64), nullable=False),
    Column("value", Float, nullable=False),
    Column("unit", String(32), nullable=False),
    Column("params", JSON, nullable=False),
    Column("samples", JSON, nullable=False),
)


def _v1(conn: Connection) -> None:
    """hosts, runs, results."""
    for table in (hosts, runs, results):
        table.create(conn, checkfirst=True)


MIGRATIONS: list[Callable[[Connection], None]] = [_v1]


# ----- v2: fleet inventory and inspections (gpuwise.ops.fleet) ---------------------------------
cards = Table(
    "cards",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("uuid", String(96), nullable=False, unique=True),
    Column("serial", String(64)),
    Column("model", String(255)),  # the NVML name, e.g. 'NVIDIA H100 80GB HBM3'
    Column("catalog_id", String(64), index=True),
    Column("vbios", String(64)),
    Column("inforom", String(64)),
    Column("driver", String(64)),
    Column("host", String(255), index=True),
    Column("slot", String(32)),  # PCI bus id
    Column("gpu_index", Integer),
    Column("first_seen", DateTime(timezone=True), nullable=False),
    Column("last_seen", DateTime(timezone=True), nullable=False),
    Column("status", String(16), nullable=False, default="active"),  # active | watch | retired
    Column("retired_reason", Text),
    Column("retired_at", DateTime(timezone=True)),
)

inspections = Table(
    "inspections",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("card_uuid", String(96), ForeignKey("cards.uuid"), nullable=False),
    Column("time", DateTime(timezone=True), nullable=False),
    Column("ecc_corrected_aggregate", BigInteger),
    Column("ecc_uncorrected_aggregate", BigInteger),
    Column("retired_pages", Integer),
    Column("remap_pending", Integer),  # 0/1, NULL when unknown
    Column("remap_failure", Integer),
    Column("temperature_celsius", Float),
    Column("max_temperature_celsius", Float),  # the hottest reading of the inspection's samples
    Column("clock_sm_hz", Float),
    Column("clock_mem_hz", Float),
    Column("throttle_mask", BigInteger),
    Column("snapshot", JSON, nullable=False),  # the GPU as read (gpuwise.ops.hw.GpuSnapshot) and host facts
    Index("ix_inspections_card_time", "card_uuid", "time"),
)


def _v2(conn: Connection) -> None:
    """cards, inspections (fleet life cycle)."""
    for table in (cards, inspections):
        table.create(conn, checkfirst=True)


MIGRATIONS.append(_v2)
