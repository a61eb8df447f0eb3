"""The API pages (/docs: Swagger UI, /redoc: ReDoc) from local files, so that they work offline.

The JavaScript and CSS come from the `fastapi-offline` package (in the `web` extra), which ships
swagger-ui-dist and ReDoc's standalone bundle; they are served under /static/docs/.
"""

from __future__ import annotations

from importlib import resources
from importlib.util import find_spec

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/static/docs"
MISSING = (
    "<!doctype html><title>gpuwise API</title><p>The API pages need the files of the "
    "<code>fastapi-offline</code> package: <code>pip install 'gpuwise[web]'</code>. "
    'The schema itself is at <a href="/openapi.json">/openapi.json</a>.</p>'
)


def add_docs(app: FastAPI) -> None:
    """Mount the assets and add /docs and /redoc (create the app with docs_url=redoc_url=None).
    Call before mounting /static, which would otherwise answer for /static/docs/ first."""
    openapi_url = app.openapi_url or "/openapi.json"
    redirect_url = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"
    available = find_spec("fastapi_offline") is not None
    if available:
        directory = str(resources.files("fastapi_offline").joinpath("static"))
        app.mount(ASSETS, StaticFiles(directory=directory), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        if not available:
            return HTMLResponse(MISSING, status_code=503)
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} · API",
            oauth2_redirect_url=redirect_url,
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
        )

    @app.get(redirect_url, include_in_schema=False)
    def swagger_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        if not available:
            return HTMLResponse(MISSING, status_code=503)
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} · API",
            redoc_js_url=f"{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
