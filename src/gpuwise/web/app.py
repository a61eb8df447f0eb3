"""FastAPI application: pages for people, a JSON API for machines, both over `gpuwise.api`.

This module only assembles: the routes live in `api_routes` and `pages`, the forms in `forms`,
the API pages (served from local files) in `docs`, the Host/token/body/header guard in `security`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from gpuwise.errors import GpuwiseError, UnknownNameError
from gpuwise.web import api_routes, data, pages
from gpuwise.web.docs import add_docs
from gpuwise.web.models import constrain
from gpuwise.web.security import Guard, WebSettings
from gpuwise.web.templating import package_dir, templates

__all__ = ["app", "app_from_env", "create_app"]

ECHO_CHARS = 200  # of an input echoed back in a validation error: enough to recognize it, not a pasted file


def _status(exc: GpuwiseError, api: bool) -> int:
    """422 when the input is valid but unmet; else, on a page, 400. The API answers 400 only for
    what its schema refuses and gpuwise checks itself (an id the catalog lacks, a field naming a
    file): a request the schema allows but gpuwise refuses (values that break a rule together, an
    uploaded config that is not one) is 422, as FastAPI answers a body that fails validation."""
    if exc.exit_code == 1 or (api and not isinstance(exc, UnknownNameError | data.ServerFileRefused)):
        return 422
    return 400


async def _domain_error(request: Request, exc: Exception) -> Response:
    """A GpuwiseError is the user's to fix (see `_status`): JSON for the API, a page for people."""
    assert isinstance(exc, GpuwiseError)
    api = request.url.path.startswith("/api/")
    status = _status(exc, api)
    if api:
        return JSONResponse({"detail": str(exc)}, status_code=status)
    return templates.TemplateResponse(request, "error.html", {"message": str(exc)}, status_code=status)


def _plain(value: Any) -> Any:
    """A value as JSON can hold it: an input echoed in an error may be NaN, 1e400 or an object."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return str(value)[:ECHO_CHARS]
    return value if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "..."


async def _validation_error(request: Request, exc: Exception) -> Response:
    """FastAPI's 422 list of problems, but always valid JSON (its own answer is a 500 when the
    body held NaN or Infinity, which it then cannot write back)."""
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"type": e.get("type"), "loc": list(e.get("loc", ())), "msg": e.get("msg"), "input": _plain(e.get("input"))}
        for e in exc.errors()
    ]
    return JSONResponse({"detail": errors}, status_code=422)


def create_app(settings: WebSettings | None = None) -> FastAPI:
    """The app behind `settings` (by default: answers to loopback names only, no token)."""
    app = FastAPI(
        title="gpuwise",
        version=data.version(),
        description="Which GPUs, how many, how connected, and "
        "what they cost, for a workload. The same API as the `gpuwise` command line; SI units.",
        docs_url=None,
        redoc_url=None,
    )
    add_docs(app)  # before /static: it mounts /static/docs
    app.mount("/static", StaticFiles(directory=package_dir("static")), name="static")
    app.add_exception_handler(GpuwiseError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.include_router(api_routes.router)
    app.include_router(pages.router)
    app.add_middleware(Guard, settings=settings or WebSettings())
    _constrained_schema(app)
    return app


def _constrained_schema(app: FastAPI) -> None:
    """FastAPI's OpenAPI schema, built on first use, with the catalog's constraints (`constrain`)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = constrain(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def app_from_env() -> FastAPI:
    """The factory `gpuwise serve` gives uvicorn: each worker process builds its app from the
    settings the command put in the environment."""
    return create_app(WebSettings.from_env())


app = create_app()
