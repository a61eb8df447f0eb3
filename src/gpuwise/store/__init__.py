"""Results, hosts and runs in SQLite (default) or PostgreSQL (by URL), via SQLAlchemy.

Imported only by the commands that store or read measurements: SQLAlchemy stays off the start-up
path and out of the core. It is the optional `store` extra, so every caller opens the store here
and gets a usage error, not an ImportError, when it is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuwise.errors import UsageError
from gpuwise.store.errors import SchemaTooNewError, mask_password

if TYPE_CHECKING:
    from gpuwise.store.db import Store


def open_store(url: str | None = None) -> Store:
    """The migrated store at `url` (default: GPUWISE_DB, else a SQLite file in the user's data dir)."""
    try:
        from gpuwise.store import db
    except ImportError as exc:
        raise UsageError(f"the result store needs SQLAlchemy: pip install 'gpuwise[store]' ({exc})") from None
    return db.open_store(url)


__all__ = ["SchemaTooNewError", "mask_password", "open_store"]
