"""Opening a store, migrating it, writing runs and reading results."""

from __future__ import annotations

import datetime as dt
import importlib
import math
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import JSON, BigInteger, Float, Integer, String, Table, create_engine, event, func, insert, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from gpuwise import __version__
from gpuwise.errors import UsageError
from gpuwise.store import migrations
from gpuwise.store.errors import mask_password
from gpuwise.store.results import HostFacts, Measurement
from gpuwise.store.schema import hosts, metadata, results, runs

T = TypeVar("T")

ENV = "GPUWISE_DB"


def default_url() -> str:
    """GPUWISE_DB, else a SQLite file in the user's data directory (XDG)."""
    if os.environ.get(ENV):
        return os.environ[ENV]
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "gpuwise"
    return f"sqlite:///{base / 'gpuwise.db'}"


@dataclass(frozen=True, slots=True)
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
        host_row = {
            "hostname": host.hostname,
            "cpu": host.cpu,
            "cpu_count": host.cpu_count,
            "device": host.device,
            "gpu_model": host.gpu_model,
            "gpu_id": host.gpu_id,
            "gpu_count": host.gpu_count,
            "driver": host.driver,
            "cuda": host.cuda,
            "torch": host.torch,
            "python": host.python,
            "facts": host.as_dict(),
        }
        result_rows = [
            {
                "benchmark": m.benchmark,
                "name": m.name,
                "value": float(m.value),
                "unit": m.unit,
                "params": m.params,
                "samples": list(m.samples),
            }
            for m in measurements
        ]
        check_row(hosts, host_row, "the benchmark host")
        for row in result_rows:
            check_row(results, row, f"measurement {row['benchmark']}/{row['name']}")

        def write(conn: Any) -> int:
            host_id = conn.execute(insert(hosts).values(**host_row)).inserted_primary_key[0]
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
            if result_rows:
                conn.execute(insert(results), [{"run_id": run_id, **row} for row in result_rows])
            return int(run_id)

        return self.transaction(write)

    def transaction(self, fn: Callable[[Any], T]) -> T:
        """Run `fn(connection)` in one transaction. Retried, with a growing randomized pause, while
        another writer holds SQLite's lock, PostgreSQL reports a serialization failure or deadlock,
        or a concurrent writer made the same row first (`fn` runs again and sees it); any other
        database error is a one-line usage error (password masked)."""
        conflicts = 0
        for attempt in range(RETRIES):
            try:
                with self.engine.begin() as conn:
                    return fn(conn)
            except DBAPIError as exc:
                kind = _transient(exc)
                conflicts += kind == "conflict"
                if kind is None or conflicts > MAX_CONFLICT_RETRIES:
                    raise UsageError(
                        mask_password(f"cannot write to the store at {self.url}: {_first_line(exc)}")
                    ) from None
                time.sleep(0.02 * (attempt + 1) * (0.5 + random.random()))  # jitter: writers that clashed retry apart
        raise UsageError(f"the store at {self.url} stayed locked or contended; try again")

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


RETRIES = 50  # linear back-off, about 25 s in all
MAX_CONFLICT_RETRIES = 10  # a unique/foreign-key clash that survives this many re-runs is not a race
_PG_RETRY = {"40001", "40P01"}  # serialization_failure, deadlock_detected


def _transient(exc: DBAPIError) -> str | None:
    """'busy' (lock held, serialization failure, deadlock), 'conflict' (a concurrent writer made
    the row first), or None when running `fn` again cannot help."""
    orig = getattr(exc, "orig", None)
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if state in _PG_RETRY:
        return "busy"
    if isinstance(exc, IntegrityError):
        return "conflict"
    if isinstance(exc, OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
        return "busy"
    return None


def _first_line(exc: DBAPIError) -> str:
    """The driver's own message, first line only (SQLAlchemy appends the statement and its values)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


# ----- values a database cannot hold, rejected before writing ---------------------------------
_INT_LIMIT = {BigInteger: 2**63, Integer: 2**31}  # signed BIGINT / INTEGER (PostgreSQL; SQLite holds both)


def _json_problem(value: Any) -> str | None:
    """Why `value` cannot be stored as JSON on every backend: NaN/infinity, NUL characters."""
    if isinstance(value, float):
        return None if math.isfinite(value) else f"holds the non-finite number {value}"
    if isinstance(value, str):
        return "holds a NUL character" if "\x00" in value else None
    if isinstance(value, Mapping):
        return next((p for k, v in value.items() if (p := _json_problem(str(k)) or _json_problem(v))), None)
    if isinstance(value, list | tuple):
        return next((p for v in value if (p := _json_problem(v))), None)
    return None


def _value_problem(column: Any, value: Any) -> str | None:
    """Why `value` does not fit `column` (its type's range or length), or None."""
    kind = column.type
    if isinstance(kind, Float):
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return f"must be a finite number, got {str(value)[:40]}"
    elif isinstance(kind, Integer):
        limit = next(v for t, v in _INT_LIMIT.items() if isinstance(kind, t))
        if isinstance(value, bool) or not isinstance(value, int) or not -limit <= value < limit:
            return f"must be a whole number below {limit:.3g} in size, got {str(value)[:40]}"
    elif isinstance(kind, String):
        if not isinstance(value, str):
            return f"must be text, got {type(value).__name__}"
        if kind.length is not None and len(value) > kind.length:
            return f"is {len(value)} characters long; the store holds at most {kind.length}"
        if "\x00" in value:
            return "holds a NUL character"
    elif isinstance(kind, JSON):
        return _json_problem(value)
    return None


def check_row(table: Table, values: Mapping[str, Any], what: str) -> None:
    """A usage error naming the field when a value is one `table` cannot hold (a non-finite
    reading, an over-long id, an integer out of range): checked here, the same on SQLite and
    PostgreSQL, instead of a driver's traceback (or SQLite silently storing it)."""
    for name, value in values.items():
        if value is None:
            continue
        problem = _value_problem(table.c[name], value)
        if problem:
            raise UsageError(f"{what}: {table.name}.{name} {problem}")


def insert_new(conn: Connection, table: Table, values: Mapping[str, Any], key: str) -> bool:
    """INSERT ... ON CONFLICT (key) DO NOTHING; True when the row was new. Concurrent writers of
    the same row never fail: the one that loses finds it there (and may update it)."""
    if conn.dialect.name in ("postgresql", "sqlite"):  # both dialects' insert() has ON CONFLICT and RETURNING
        dialect = importlib.import_module(f"sqlalchemy.dialects.{conn.dialect.name}")
        stmt = (
            dialect.insert(table).values(**values).on_conflict_do_nothing(index_elements=[key]).returning(table.c[key])
        )
        return conn.execute(stmt).first() is not None  # RETURNING: rowcount is -1 under psycopg
    # another backend: look first (a race surfaces as IntegrityError, which transaction() retries)
    if conn.execute(select(table.c[key]).where(table.c[key] == values[key])).first() is not None:
        return False
    conn.execute(insert(table).values(**values))
    return True


def create_store_engine(url: str | None = None) -> Engine:
    """An engine for `url` (GPUWISE_DB or the default file), not yet migrated: PostgreSQL through
    psycopg 3, SQLite in WAL mode waiting for a busy writer instead of failing."""
    url = url or default_url()
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        folder = Path(url.removeprefix("sqlite:///")).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file in the way, no permission, a name too long
            raise UsageError(f"cannot make the store's folder {str(folder)[:200]!r}: {exc.strerror or exc}") from None
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    try:
        engine = create_engine(url, future=True, pool_pre_ping=True)
    except Exception as exc:  # malformed URL or missing driver: a message, not a traceback
        raise UsageError(mask_password(f"cannot open the store {url!r}: {exc}")) from None
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
        reason = _first_line(exc) if isinstance(exc, DBAPIError) else str(exc)
        raise UsageError(mask_password(f"cannot reach the store {store.url}: {reason}")) from None
    except BaseException:
        store.close()
        raise
    return store


__all__ = [
    "ResultRow",
    "Store",
    "check_row",
    "create_store_engine",
    "default_url",
    "insert_new",
    "metadata",
    "open_store",
]
