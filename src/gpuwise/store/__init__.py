"""Results, hosts and runs in SQLite (default) or PostgreSQL (by URL), via SQLAlchemy.

Imported only by the commands that store or read measurements: SQLAlchemy stays off the start-up
path and out of the core.
"""

from __future__ import annotations

from gpuwise.store.db import Store, default_url, open_store

__all__ = ["Store", "default_url", "open_store"]
