"""The store's own error and the password mask every message naming a store goes through; no
SQLAlchemy, so that callers catch and mask without the `store` extra."""

from __future__ import annotations

import re

from gpuwise.errors import GpuwiseError


class SchemaTooNewError(GpuwiseError):
    """The database was migrated by a newer gpuwise than this one: refused, never opened silently
    (exit code 2)."""


# scheme://user:PASSWORD@ (greedy to the token's last @: a password may hold an unescaped @)
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s'\"]*:)[^\s'\"]*@")
_KEY_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)[^\s&;'\"]+", re.IGNORECASE)


def mask_password(text: str) -> str:
    """`text` with the password of every store URL (user:PASSWORD@host, password=...) replaced by ***.
    Every message that names a store goes through here, whichever part of it failed."""
    text = _URL_PASSWORD.sub(lambda m: m.group("head") + "***@", text)
    return _KEY_PASSWORD.sub(lambda m: m.group("head") + "***", text)


__all__ = ["SchemaTooNewError", "mask_password"]
