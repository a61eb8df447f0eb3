"""Running the app with uvicorn for `gpuwise serve`: who may reach it and how long a client may
take. The settings travel to the worker processes through the environment (`app_from_env`).

Connections, per worker process, follow `gpuwise.http_limits`: a request head must arrive within
10 s of the connection opening (or of the previous answer on a kept-alive connection), at most
16 KiB of it; one client address holds at most 16 connections; at most 256 are open, a new one
taking the place of the one that has waited longest for its request head. A connection waiting
for its head is not yet a request, so slow clients never turn an authorised request away; an idle
kept-alive connection closes after 5 s. The body's own limits (size, pauses) are the app's
(`security.Guard`), applied after the Host and token checks.
"""

from __future__ import annotations

import asyncio
import copy
import os
import socket
import weakref
from collections.abc import Sequence
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from gpuwise.errors import UsageError
from gpuwise.http_limits import BACKLOG, Admission, Limits, refusal_response
from gpuwise.web.security import (
    HEADERS,
    HOSTS_ENV,
    LOOPBACK_HOSTS,
    MIN_TOKEN_CHARS,
    TOKEN_ENV,
    WILDCARD_BINDS,
    RedactTokens,
    WebSettings,
    allowed_hosts_of,
    is_loopback_address,
)

MAX_WORKERS = 64
UVICORN_LIMITS: dict[str, Any] = {
    "timeout_keep_alive": 5,
    "h11_max_incomplete_event_size": 16 * 2**10,  # request line and headers; beyond: 400
    # uvicorn's own limit counts every open connection, slow ones too: past it even an authorised
    # request is a 503. BoundedProtocol caps connections instead (per client, and in all).
    "limit_concurrency": None,
    "backlog": BACKLOG,
    "timeout_graceful_shutdown": 10,
    "server_header": False,
    "proxy_headers": False,  # no proxy is trusted to say who the client is
}
FACTORY = "gpuwise.web.app:app_from_env"
_ADMISSIONS: weakref.WeakKeyDictionary[ServerState, Admission[H11Protocol]] = weakref.WeakKeyDictionary()


class BoundedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol under `gpuwise.http_limits`: a connection whose request head is
    not complete in time is closed (a client sending one header byte every few seconds would
    otherwise hold it for ever), and connections are admitted per client address and in all."""

    limits: ClassVar[Limits] = Limits()
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        admission = _ADMISSIONS.setdefault(self.server_state, Admission(self.limits))
        verdict = admission.admit(self, self.client[0] if self.client else "")
        if verdict.refusal is not None:
            transport.write(refusal_response(verdict.refusal, HEADERS))
            transport.close()
            return
        if verdict.evict is not None:
            verdict.evict.transport.close()
        self._arm()

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and not self.cycle.response_complete:  # a request head is complete
            self._disarm()
            self._admission().busy(self)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._admission().waiting(self)
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._admission().release(self)
        super().connection_lost(exc)

    def _admission(self) -> Admission[H11Protocol]:
        return _ADMISSIONS.setdefault(self.server_state, Admission(self.limits))

    def _arm(self) -> None:
        """Close unless a request head arrives within the timeout."""
        self._disarm()
        self._head_timer = self.loop.call_later(self.limits.head_timeout_s, self.transport.close)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None


def log_config() -> dict[str, Any]:
    """uvicorn's logging, every handler filtered by `RedactTokens`: no token in any log line."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"redact_tokens": {"()": RedactTokens}}
    for handler in config["handlers"].values():
        handler["filters"] = ["redact_tokens"]
    return config


def uvicorn_options(protocol: type[H11Protocol] = BoundedProtocol) -> dict[str, Any]:
    """What `gpuwise serve` gives uvicorn besides the app, the address and the workers."""
    return {**UVICORN_LIMITS, "http": protocol, "log_config": log_config(), "log_level": "info"}


def is_loopback(host: str) -> bool:
    """Whether binding `host` reaches only this machine: every address it resolves to is loopback
    (a wildcard bind is not). A name that does not resolve is a usage error."""
    bare = host.strip().strip("[]")
    if bare in WILDCARD_BINDS:
        return False
    try:
        found = {info[4][0] for info in socket.getaddrinfo(bare, None, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError) as exc:
        raise UsageError(
            f"--host {host} does not resolve to an address ({getattr(exc, 'strerror', None) or exc}): "
            "give an IP address or a name this machine resolves (127.0.0.1 or localhost for this machine only)"
        ) from None
    return bool(found) and all(is_loopback_address(str(a)) for a in found)


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
        **uvicorn_options(),
    )
