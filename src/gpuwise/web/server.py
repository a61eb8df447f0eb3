"""Running the app with uvicorn for `gpuwise serve`: who may reach it and how long a client may
take. The settings travel to the worker processes through the environment (`app_from_env`).

Limits, per worker process: a request head must arrive within HEAD_TIMEOUT_S of the connection
opening (or of the previous answer on a kept-alive connection), at most 16 KiB of it; an idle
kept-alive connection closes after 5 s; beyond LIMIT_CONCURRENCY open connections a request is
answered 503 at once. The body's own limits (size, pauses) are the app's (`security.Guard`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from gpuwise.errors import UsageError
from gpuwise.web.security import (
    HOSTS_ENV,
    LOOPBACK_HOSTS,
    MIN_TOKEN_CHARS,
    TOKEN_ENV,
    WILDCARD_BINDS,
    WebSettings,
    allowed_hosts_of,
    is_loopback,
)

HEAD_TIMEOUT_S = 10.0
LIMIT_CONCURRENCY = 64
MAX_WORKERS = 64
UVICORN_LIMITS: dict[str, Any] = {
    "timeout_keep_alive": 5,
    "h11_max_incomplete_event_size": 16 * 2**10,  # request line and headers; beyond: 400
    "limit_concurrency": LIMIT_CONCURRENCY,
    "backlog": 256,
    "timeout_graceful_shutdown": 10,
    "server_header": False,
    "proxy_headers": False,  # no proxy is trusted to say who the client is
}
FACTORY = "gpuwise.web.app:app_from_env"


class HeadTimeoutProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request head is not complete in time
    (a client sending one header byte every few seconds would otherwise hold it open for ever)."""

    head_timeout_s = HEAD_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        timer = getattr(self, "_head_timer", None)
        if timer is not None:
            timer.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        """Close unless a new request head (a new cycle) arrives within the timeout."""
        waiting_for = self.cycle
        old = getattr(self, "_head_timer", None)
        if old is not None:
            old.cancel()

        def expire() -> None:
            if self.cycle is waiting_for and not self.transport.is_closing():
                self.transport.close()

        self._head_timer = self.loop.call_later(self.head_timeout_s, expire)


def bind_settings(host: str, token: str | None, allowed: Sequence[str]) -> WebSettings:
    """The guard's settings for a bind address; a bind beyond loopback without a token is refused."""
    if token is not None and len(token.strip()) < MIN_TOKEN_CHARS:
        raise UsageError(
            f"--token must be at least {MIN_TOKEN_CHARS} characters "
            "(e.g. python -c 'import secrets; print(secrets.token_urlsafe())')"
        )
    if not is_loopback(host) and not token:
        raise UsageError(
            f"serving on {host} reaches beyond this machine: give a token (--token or {TOKEN_ENV}); "
            "requests must then carry it"
        )
    names = [*allowed]
    if "*" not in names:
        names += [*LOOPBACK_HOSTS, *([] if host.strip("[]") in WILDCARD_BINDS else [host])]
    return WebSettings(allowed_hosts=allowed_hosts_of(names), token=token.strip() if token else None)


def run(host: str, port: int, workers: int, settings: WebSettings) -> None:
    """uvicorn with the limits above; `workers` processes share the port (CPU-bound plans)."""
    import uvicorn

    if not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be between 1 and {MAX_WORKERS}; got {workers}")
    os.environ[HOSTS_ENV] = ",".join(sorted(settings.allowed_hosts)) or "*"
    if settings.token:
        os.environ[TOKEN_ENV] = settings.token
    else:
        os.environ.pop(TOKEN_ENV, None)
    uvicorn.run(
        FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=HeadTimeoutProtocol,
        log_level="info",
        **UVICORN_LIMITS,
    )
