"""The API pages (/docs: Swagger UI, /redoc: ReDoc) from local files, so that they work offline.

The JavaScript and CSS come from the `fastapi-offline` package (in the `web` extra), which ships
swagger-ui-dist and ReDoc's standalone bundle; they are served under /static/docs/. The pages are
written here rather than by FastAPI's helpers because those start Swagger UI with an inline script,
which the Content-Security-Policy ('self' only) forbids: /static/swagger-init.js starts it instead.
"""

from __future__ import annotations

from html import escape
from importlib import resources
from importlib.util import find_spec

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/static/docs"
MISSING = (
    "<!doctype html><title>gpuwise API</title><p>The API pages need the files of the "
    "<code>fastapi-offline</code> package: <code>pip install 'gpuwise[web]'</code>. "
    'The schema itself is at <a href="/openapi.json">/openapi.json</a>.</p>'
)
SWAGGER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="{assets}/swagger-ui.css"><link rel="icon" href="{assets}/favicon.png">
</head><body>
<div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="/static/swagger-init.js"></script>
</body></html>
"""
REDOC = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="/static/redoc.css"><link rel="icon" href="{assets}/favicon.png">
</head><body>
<noscript>ReDoc needs JavaScript; the schema itself is at <a href="{openapi}">{openapi}</a>.</noscript>
<redoc spec-url="{openapi}"></redoc>
<script src="{assets}/redoc.standalone.js"></script>
</body></html>
"""


def add_docs(app: FastAPI) -> None:
    """Mount the assets and add /docs and /redoc (create the app with docs_url=redoc_url=None).
    Call before mounting /static, which would otherwise answer for /static/docs/ first."""
    values = {"title": escape(f"{app.title} · API"), "assets": ASSETS, "openapi": escape(app.openapi_url or "")}
    available = find_spec("fastapi_offline") is not None
    if available:
        directory = str(resources.files("fastapi_offline").joinpath("static"))
        app.mount(ASSETS, StaticFiles(directory=directory), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        if not available:
            return HTMLResponse(MISSING, status_code=503)
        return HTMLResponse(SWAGGER.format(**values))

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        if not available:
            return HTMLResponse(MISSING, status_code=503)
        return HTMLResponse(REDOC.format(**values))
