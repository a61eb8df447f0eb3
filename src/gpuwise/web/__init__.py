"""The web front door: server-rendered pages and a JSON API over the same Python API as the CLI.
Everything (stylesheet, script, charts) is served from the package: the pages work offline."""

from __future__ import annotations

from gpuwise.web.app import create_app

__all__ = ["create_app"]
