"""Opening a store, migrating it, writing runs and reading results."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, event, func, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from gpuwise import __version__
from gpuwise.bench.result import HostFacts, Measurement
from gpuwise.errors import UsageError
from gpuwise.store import migrations
from gpuwise.store.schema import hosts, metadata, results, runs

T = TypeVar("T")

ENV = "GPUWISE_DB"


def default_url() -> str:
    """GPUWISE_DB, else a SQLite file in the user's data directory (XDG)."""
    if os.environ.get(ENV):
        return os.environ[ENV]
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "gpuwise"
    return f"sqlite:///{base / 'gpuwise.db'}"


@dataclass(frozen=True)
class ResultRow:
    run_id: int
    started_at: dt.datetime
    hostname: str
    gpu_id: str | None
    gpu_model: str | None
    device: str
    benchmark: str
    name: str
    value: float
    unit: str
    params: dict[str, Any]


class Store:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    # ----- schema ---------------------------------------------------------------------------
    def version(self) -> int:
        """The schema version recorded in the database (0 when it has none)."""
        with self.engine.connect() as conn:
            return migrations.current_version(conn)

    def migrate(self) -> int:
        """Apply pending migrations (gpuwise.store.migrations); a schema newer than this code raises
        SchemaTooNewError. Safe when several processes open a new database at once: the steps are
        serialized by a lock, and a database busy past the wait is retried."""
        for attempt in range(20):
            try:
                return migrations.upgrade(self.engine)
            except IntegrityError:  # a database without the lock (neither SQLite nor PostgreSQL) raced
                time.sleep(0.05 * (attempt + 1))
            except DBAPIError as exc:  # OperationalError included
                if "locked" not in str(exc) and "already exists" not in str(exc):
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise UsageError(f"could not migrate the store at {self.url}")

    # ----- writing --------------------------------------------------------------------------
    def save_run(
        self,
        host: HostFacts,
        measurements: list[Measurement],
        command: str,
        quick: bool,
        started_at: dt.datetime | None = None,
    ) -> int:
        """One transaction: the host, the run and all its results, so a run is never half written."""
        facts = host.as_dict()

        def write(conn: Any) -> int:
            host_id = conn.execute(
                insert(hosts).values(
                    hostname=host.hostname,
                    cpu=host.cpu,
                    cpu_count=host.cpu_count,
                    device=host.device,
                    gpu_model=host.gpu_model,
                    gpu_id=host.gpu_id,
                    gpu_count=host.gpu_count,
                    driver=host.driver,
                    cuda=host.cuda,
                    torch=host.torch,
                    python=host.python,
                    facts=facts,
                )
            ).inserted_primary_key[0]
            run_id = conn.execute(
                insert(runs).values(
                    host_id=host_id,
                    started_at=started_at or _now(),
                    finished_at=_now(),
                    command=command,
                    quick=int(quick),
                    gpuwise_version=__version__,
                )
            ).inserted_primary_key[0]
            if measurements:
                conn.execute(
                    insert(results),
                    [
                        {
                            "run_id": run_id,
                            "benchmark": m.benchmark,
                            "name": m.name,
                            "value": float(m.value),
                            "unit": m.unit,
                            "params": m.params,
                            "samples": list(m.samples),
                        }
                        for m in measurements
                    ],
                )
            return int(run_id)

        return self.transaction(write)

    def transaction(self, fn: Callable[[Any], T]) -> T:
        """Run `fn(connection)` in one transaction, retried while SQLite reports another writer
        holding the lock; any other database error is a one-line usage error."""
        for attempt in range(50):  # linear back-off, about 25 s in all
            try:
                with self.engine.begin() as conn:
                    return fn(conn)
            except OperationalError as exc:
                if "locked" not in str(exc):  # not "database is locked": retrying will not help
                    raise UsageError(f"cannot write to the store at {self.url}: {getattr(exc, 'orig', exc)}") from None
                time.sleep(0.02 * (attempt + 1))
        raise UsageError(f"the store at {self.url} stayed locked; try again")

    # ----- reading --------------------------------------------------------------------------
    def results(
        self,
        benchmark: str | None = None,
        gpu_id: str | None = None,
        name: str | None = None,
        include_quick: bool = True,
    ) -> list[ResultRow]:
        q = (
            select(
                results.c.run_id,
                runs.c.started_at,
                hosts.c.hostname,
                hosts.c.gpu_id,
                hosts.c.gpu_model,
                hosts.c.device,
                results.c.benchmark,
                results.c.name,
                results.c.value,
                results.c.unit,
                results.c.params,
            )
            .join(runs, runs.c.id == results.c.run_id)
            .join(hosts, hosts.c.id == runs.c.host_id)
            .order_by(runs.c.started_at, results.c.id)
        )
        if benchmark:
            q = q.where(results.c.benchmark == benchmark)
        if gpu_id:
            q = q.where(hosts.c.gpu_id == gpu_id)
        if name:
            q = q.where(results.c.name == name)
        if not include_quick:
            q = q.where(runs.c.quick == 0)
        with self.engine.connect() as conn:
            return [ResultRow(*row) for row in conn.execute(q)]

    def run_count(self) -> int:
        with self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(runs)).scalar() or 0


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def create_store_engine(url: str | None = None) -> Engine:
    """An engine for `url` (GPUWISE_DB or the default file), not yet migrated: PostgreSQL through
    psycopg 3, SQLite in WAL mode waiting for a busy writer instead of failing."""
    url = url or default_url()
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    try:
        engine = create_engine(url, future=True, pool_pre_ping=True)
    except Exception as exc:  # malformed URL or missing driver: a message, not a traceback
        raise UsageError(f"cannot open the store {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout=30000")  # wait for the writer instead of failing
            cur.execute("PRAGMA journal_mode=WAL")  # concurrent readers with one writer
            cur.close()

    return engine


def open_store(url: str | None = None) -> Store:
    """Open (creating and migrating) the store at `url`, GPUWISE_DB or the default file; a store
    written by a newer gpuwise raises SchemaTooNewError."""
    store = Store(create_store_engine(url))
    try:
        store.migrate()
    except (DBAPIError, UsageError) as exc:  # unreachable, refused, no permission: a message
        store.close()
        raise UsageError(f"cannot reach the store {store.url}: {getattr(exc, 'orig', exc)}") from None
    except BaseException:
        store.close()
        raise
    return store


__all__ = ["ResultRow", "Store", "create_store_engine", "default_url", "metadata", "open_store"]
