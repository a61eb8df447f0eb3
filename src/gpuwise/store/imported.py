"""The team's imported measurements in the store: written one file at a time in one transaction
(a file is stored whole or not at all), read back as ImportedMeasurement records."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from gpuwise.store.db import Store, check_row
from gpuwise.store.results import ImportedMeasurement
from gpuwise.store.schema import measurements

MAX_SOURCE = 255  # characters of the file name kept (the column's length)


@dataclass(frozen=True, slots=True)
class Saved:
    """What an import did: the ids of the file's measurements, and whether they are new (False:
    the same file, by SHA-256, was imported before, and nothing was added)."""

    ids: tuple[int, ...]
    new: bool


def save_file(store: Store, sha256: str, source: str, rows: Sequence[Mapping[str, Any]]) -> Saved:
    """Store the measurements of one file (`rows`: the measurements table's columns, without id,
    sha256, part, source and imported_at) in one transaction; a file already imported adds
    nothing and returns the ids it has."""
    now = dt.datetime.now(dt.UTC)
    full = [
        {**row, "sha256": sha256, "part": part, "source": source[-MAX_SOURCE:], "imported_at": now}
        for part, row in enumerate(rows)
    ]
    for row in full:
        check_row(measurements, row, f"measurement {row['part'] + 1} of {source[-80:]}")

    def write(conn: Connection) -> Saved:
        have = _ids(conn, sha256)
        if have:
            return Saved(have, new=False)
        for row in full:
            conn.execute(insert(measurements).values(**row))
        return Saved(_ids(conn, sha256), new=True)

    return store.transaction(write)


def _ids(conn: Connection, sha256: str) -> tuple[int, ...]:
    q = select(measurements.c.id).where(measurements.c.sha256 == sha256).order_by(measurements.c.part)
    return tuple(int(i) for i in conn.execute(q).scalars())


def load(store: Store, model: str | None = None, gpu_id: str | None = None) -> list[ImportedMeasurement]:
    """Imported measurements, oldest first; only those of `model` and/or `gpu_id` when given."""
    q = select(measurements).order_by(measurements.c.id)
    if model is not None:
        q = q.where(measurements.c.model == model)
    if gpu_id is not None:
        q = q.where(measurements.c.gpu_id == gpu_id)
    with store.engine.connect() as conn:
        return [_record(row) for row in conn.execute(q).mappings()]


def _record(row: Any) -> ImportedMeasurement:
    imported = row["imported_at"]
    if imported.tzinfo is None:  # SQLite keeps no zone: it was written in UTC
        imported = imported.replace(tzinfo=dt.UTC)
    return ImportedMeasurement(
        id=int(row["id"]),
        sha256=row["sha256"],
        part=int(row["part"]),
        format=row["format"],
        kind=row["kind"],
        model=row["model"],
        gpu_id=row["gpu_id"],
        gpu_count=int(row["gpu_count"]),
        source=row["source"],
        measured_at=row["measured_at"],
        imported_at=imported,
        shape=dict(row["shape"] or {}),
        figures={k: float(v) for k, v in (row["figures"] or {}).items()},
        samples={k: [float(x) for x in v] for k, v in (row["samples"] or {}).items()},
        facts=dict(row["facts"] or {}),
        notes=tuple(row["notes"] or ()),
    )


__all__ = ["Saved", "load", "save_file"]
