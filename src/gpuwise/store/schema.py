"""The tables as the code reads and writes them: the schema at the newest migration.

These definitions are for queries only; databases are built by the migrations in
`gpuwise.store.migrations`, each with its own frozen DDL. A change here needs a new migration
appended there (tests/test_store.py fails until both describe the same schema).
"""

from __future__ import annotations

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
)

from gpuwise.store.migrations import HEAD, MIGRATIONS

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


# ----- fleet inventory and inspections (gpuwise.ops.fleet; migration 2) -----------------------
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
    Column("snapshot", JSON, nullable=False),  # the GPU as read (gpuwise.hw.GpuSnapshot) and host facts
    Index("ix_inspections_card_time", "card_uuid", "time"),
)

# ----- staged roll-outs (gpuwise.ops.rollout; migration 3) -------------------------------------
rollouts = Table(
    "rollouts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),  # driver | firmware | cuda
    Column("version", String(64), nullable=False),  # the target version
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("plan", JSON, nullable=False),  # canary, waves, hosts (pool, model, previous version)
)

rollout_events = Table(
    "rollout_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("rollout_id", Integer, ForeignKey("rollouts.id"), nullable=False),
    Column("host", String(255), nullable=False),
    Column("step", String(32), nullable=False),  # gate-before | upgrade | gate-after | rollback | done
    Column("outcome", String(16), nullable=False),  # pass | fail
    Column("checked", Integer, nullable=False, default=0),  # 1: recorded by an `ansible-playbook --check` run
    Column("time", DateTime(timezone=True), nullable=False),
    Column("detail", Text),
    Index("ix_rollout_events_rollout_host", "rollout_id", "host"),
)

# ----- the scheduler each fleet host serves (gpuwise.ops.fleet; migration 4) -------------------
fleet_hosts = Table(
    "fleet_hosts",
    metadata,
    Column("host", String(255), primary_key=True),
    Column("scheduler", String(16), nullable=False),  # kubernetes | slurm | none
    Column("node", String(255)),  # the host's node name in that scheduler (NULL: the host name)
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

# ----- the team's own measurements (gpuwise calibrate import; migration 5) ----------------------
measurements = Table(
    "measurements",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sha256", String(64), nullable=False, index=True),  # of the file imported
    Column("part", Integer, nullable=False),  # which measurement of that file (0, 1, ...)
    Column("format", String(32), nullable=False),  # vllm-bench | nccl-tests | torchtitan-log | ...
    Column("kind", String(16), nullable=False),  # serving | collective | training | memory
    Column("model", String(128), index=True),  # catalog model id (NULL for a collective)
    Column("gpu_id", String(64), nullable=False, index=True),
    Column("gpu_count", Integer, nullable=False),
    Column("source", String(255), nullable=False),  # the file's name as imported
    Column("measured_at", String(32)),  # as the file says (ISO 8601, no zone when the tool gives none)
    Column("imported_at", DateTime(timezone=True), nullable=False),
    Column("shape", JSON, nullable=False),  # the workload measured, in gpuwise's option names
    Column("figures", JSON, nullable=False),  # name -> SI value
    Column("samples", JSON, nullable=False),  # name -> repeated observations (log lines)
    Column("facts", JSON, nullable=False),  # everything else the file said
    Column("notes", JSON, nullable=False),
    UniqueConstraint("sha256", "part", name="uq_measurements_sha256_part"),
)


__all__ = [
    "HEAD",
    "MIGRATIONS",
    "cards",
    "fleet_hosts",
    "hosts",
    "inspections",
    "measurements",
    "metadata",
    "results",
    "rollout_events",
    "rollouts",
    "runs",
    "schema_version",
]
