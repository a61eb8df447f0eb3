"""The exporter's HTTP server: the standard library's threaded WSGI server (as prometheus_client's
own `start_http_server`), under the connection policy of `gpuwise.http_limits`.

prometheus_client's server waits for a request head with no time limit, a thread per connection,
so slow clients pile up threads for ever. Here a request head must arrive within the limit (each
read of the socket is allowed only the time left), a response must be taken within the same time,
one client address holds at most its share of connections, and past the total a new connection
takes the place of the one that has waited longest for its head.
"""

from __future__ import annotations

import contextlib
import io
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from gpuwise.http_limits import BACKLOG, Admission, Limits, refusal_response

log = logging.getLogger(__name__)


class _DeadlineReader(io.RawIOBase):
    """A socket's reads, each allowed only the time left before `deadline` (time.monotonic): a
    client sending one byte at a time cannot stretch a request head past it."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock, self._deadline = sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request head took too long")
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)


class _Handler(WSGIRequestHandler):
    """One request per connection (as wsgiref's), its head read against the deadline; no log
    line per request (as prometheus_client's)."""

    server: BoundedWSGIServer

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the plain reader: replaced by one that keeps the deadline
        limits = self.server.admission.limits
        self.rfile = io.BufferedReader(_DeadlineReader(self.connection, time.monotonic() + limits.head_timeout_s))

    def parse_request(self) -> bool:
        ok = super().parse_request()
        if ok:  # the head is complete: answered, never closed for another; writes get the same time
            self.server.admission.busy(self.connection)
            self.connection.settimeout(self.server.admission.limits.head_timeout_s)
        return ok

    def log_message(self, format: str, *args: Any) -> None:
        pass


class BoundedWSGIServer(ThreadingMixIn, WSGIServer):
    """A thread per admitted connection (daemon threads: nothing waits for them at exit)."""

    daemon_threads = True
    request_queue_size = BACKLOG  # the standard library's 5 drops connections under a burst

    def __init__(self, address: tuple[str, int], family: socket.AddressFamily, limits: Limits) -> None:
        self.address_family = family  # read when the base class makes the socket
        self.admission: Admission[socket.socket] = Admission(limits)
        super().__init__(address, _Handler)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        verdict = self.admission.admit(request, str(client_address[0]))
        if verdict.refusal is not None:
            with contextlib.suppress(OSError):  # a fresh socket's empty buffer takes the few bytes at once
                request.send(refusal_response(verdict.refusal))
            return False
        if verdict.evict is not None:
            with contextlib.suppress(OSError):  # its thread's read returns and the thread ends
                verdict.evict.shutdown(socket.SHUT_RDWR)
        return True

    def shutdown_request(self, request: Any) -> None:
        self.admission.release(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client too slow, cut off or gone is no error of the exporter's: a debug line only."""
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            log.debug("connection from %s ended: %s", client_address, exc)
            return
        super().handle_error(request, client_address)


def serve_in_thread(
    host: str, port: int, app: Callable[..., Any], limits: Limits
) -> tuple[BoundedWSGIServer, threading.Thread]:
    """`app` served on host:port (port 0: a free one) in a daemon thread; OSError if it cannot listen."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, sockaddr = infos[0]
    server = BoundedWSGIServer((str(sockaddr[0]), port), family, limits)
    server.set_app(app)
    thread = threading.Thread(target=server.serve_forever, name="gpuwise-exporter", daemon=True)
    thread.start()
    return server, thread


__all__ = ["BoundedWSGIServer", "serve_in_thread"]
