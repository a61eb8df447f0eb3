"""Results, hosts and runs in SQLite (default) or PostgreSQL (by URL), via SQLAlchemy.

Imported only by the commands that store or read measurements: SQLAlchemy stays off the start-up
path and out of the core. It is the optional `store` extra, so every caller opens the store here
and gets a usage error, not an ImportError, when it is missing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpuwise.errors import GpuwiseError, UsageError

if TYPE_CHECKING:
    from gpuwise.store.db import Store


class SchemaTooNewError(GpuwiseError):
    """The database was migrated by a newer gpuwise than this one: refused, never opened silently
    (exit code 2). Defined here so that callers can catch it without importing SQLAlchemy."""


# scheme://user:PASSWORD@ (greedy to the token's last @: a password may hold an unescaped @)
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s'\"]*:)[^\s'\"]*@")
_KEY_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)[^\s&;'\"]+", re.IGNORECASE)


def mask_password(text: str) -> str:
    """`text` with the password of every store URL (user:PASSWORD@host, password=...) replaced by ***.
    Every message that names a store goes through here, whichever part of it failed."""
    text = _URL_PASSWORD.sub(lambda m: m.group("head") + "***@", text)
    return _KEY_PASSWORD.sub(lambda m: m.group("head") + "***", text)


def open_store(url: str | None = None) -> Store:
    """The migrated store at `url` (default: GPUWISE_DB, else a SQLite file in the user's data dir)."""
    try:
        from gpuwise.store import db
    except ImportError as exc:
        raise UsageError(f"the result store needs SQLAlchemy: pip install 'gpuwise[store]' ({exc})") from None
    return db.open_store(url)


__all__ = ["SchemaTooNewError", "mask_password", "open_store"]
