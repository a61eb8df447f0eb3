"""Which connections an HTTP server keeps, so that slow or greedy clients cannot starve the others.

One policy for both of gpuwise's servers (the web UI under uvicorn, the Prometheus exporter under
the standard library's threading server), per server process:

- a request head must arrive within `head_timeout_s` of the connection opening (or of the previous
  answer on a kept-alive connection); the server closes a connection that takes longer;
- one client address holds at most `per_client` connections: one more is answered 503 and closed,
  so one address cannot fill the server;
- at most `total` connections are open: one more takes the place of the connection that has waited
  longest for a request head (a slow client, or an idle kept-alive one); only when every open
  connection is being answered is the new one answered 503.

A connection counts as "waiting" from when it opens, or from its last answer, until its next
request head is complete; a request being answered is never closed for another.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

HEAD_TIMEOUT_S = 10.0
PER_CLIENT = 16  # a browser opens 6 connections to a server; a scripted client rarely more than 10
MAX_CONNECTIONS = 256  # per server process, far below the usual 1,024 open files
BACKLOG = 256  # connections the kernel queues before the server accepts them (beyond: SYNs dropped, 1 s retries)
REFUSED_BUSY = "the server is answering as many requests as it takes at once; retry"
REFUSED_CLIENT = "too many connections from your address; close some and retry"

C = TypeVar("C", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits above; tests pass smaller or larger ones."""

    head_timeout_s: float = HEAD_TIMEOUT_S
    per_client: int = PER_CLIENT
    total: int = MAX_CONNECTIONS


@dataclass(frozen=True, slots=True)
class Verdict(Generic[C]):
    """What to do with a new connection: refuse it (the reason, for a 503), or keep it and close
    `evict` (None: close nothing)."""

    refusal: str | None = None
    evict: C | None = None


class Admission(Generic[C]):
    """The open connections of one server, each with its client address and since when it waits
    for a request head (None while its request is being answered). Thread-safe."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._client: dict[C, str] = {}
        self._waiting_since: dict[C, float | None] = {}
        self._per_client: Counter[str] = Counter()

    def admit(self, conn: C, client: str) -> Verdict[C]:
        """Keep `conn` (from address `client`) if the limits allow, naming a connection to close."""
        with self._lock:
            if self._per_client[client] >= self.limits.per_client:
                return Verdict(refusal=REFUSED_CLIENT)
            evict = None
            if len(self._client) >= self.limits.total:
                waiting = [
                    (since, i, c) for i, (c, since) in enumerate(self._waiting_since.items()) if since is not None
                ]
                if not waiting:
                    return Verdict(refusal=REFUSED_BUSY)
                evict = min(waiting)[2]
                self._forget(evict)
            self._client[conn] = client
            self._waiting_since[conn] = self._clock()
            self._per_client[client] += 1
            return Verdict(evict=evict)

    def busy(self, conn: C) -> None:
        """`conn`'s request head is complete: it is answered, never closed for another."""
        with self._lock:
            if conn in self._waiting_since:
                self._waiting_since[conn] = None

    def waiting(self, conn: C) -> None:
        """`conn` has been answered and waits for its next request head."""
        with self._lock:
            if conn in self._waiting_since:
                self._waiting_since[conn] = self._clock()

    def release(self, conn: C) -> None:
        """`conn` is closed (a connection refused or already evicted is ignored)."""
        with self._lock:
            if conn in self._client:
                self._forget(conn)

    def open_count(self) -> int:
        with self._lock:
            return len(self._client)

    def _forget(self, conn: C) -> None:
        client = self._client.pop(conn)
        del self._waiting_since[conn]
        self._per_client[client] -= 1
        if not self._per_client[client]:
            del self._per_client[client]


def refusal_response(reason: str, headers: dict[str, str] | None = None) -> bytes:
    """A complete HTTP/1.1 503 answer, written before any request is read, after which the
    server closes the connection."""
    body = f"503: {reason}\n".encode()
    lines = [
        "HTTP/1.1 503 Service Unavailable",
        "content-type: text/plain; charset=utf-8",
        f"content-length: {len(body)}",
        "connection: close",
        "retry-after: 1",
        *(f"{k}: {v}" for k, v in (headers or {}).items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


__all__ = [
    "BACKLOG",
    "HEAD_TIMEOUT_S",
    "MAX_CONNECTIONS",
    "PER_CLIENT",
    "Admission",
    "Limits",
    "Verdict",
    "refusal_response",
]
