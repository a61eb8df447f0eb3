"""Slow clients on loopback, for the tests of the servers' connection limits: connections that send
part of a request head and then nothing, each from a loopback address chosen by the test (Linux
answers the whole of 127.0.0.0/8), and one plain request beside them.

Every wait here is bounded by a generous socket timeout that only guards against a hang; no test
built on these asserts how fast anything happens.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

GUARD_S = 30.0  # the longest any step waits: reached only when something hangs
PARTIAL_HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "  # and never the rest


def loopback_sources(count: int) -> list[str]:
    """`count` distinct loopback addresses besides 127.0.0.1 (skips where only 127.0.0.1 binds)."""
    sources = [f"127.0.{i // 250}.{i % 250 + 2}" for i in range(count)]
    with socket.socket() as s:
        try:
            s.bind((sources[-1], 0))
        except OSError:
            pytest.skip("this system answers only 127.0.0.1 on loopback")
    return sources


@contextlib.contextmanager
def slow_clients(port: int, sources: Sequence[str]) -> Iterator[list[socket.socket]]:
    """One connection from each of `sources` (repeat an address for several), each sending an
    unfinished request head; all closed on exit."""
    with contextlib.ExitStack() as stack:
        socks = []
        for source in sources:
            s = stack.enter_context(socket.socket())
            s.settimeout(GUARD_S)
            s.bind((source, 0))
            s.connect(("127.0.0.1", port))
            with contextlib.suppress(OSError):  # a server that refuses at once may have closed it already
                s.sendall(PARTIAL_HEAD)
            socks.append(s)
        yield socks


def request(
    port: int, path: str, headers: dict[str, str] | None = None, source: str = "127.0.0.1"
) -> tuple[int, bytes]:
    """One GET over a fresh connection from `source`: (status, body)."""
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    with socket.socket() as s:
        s.settimeout(GUARD_S)
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def closed(sock: socket.socket) -> bool:
    """Whether the server has closed this connection, answering it or not (without waiting)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        while sock.recv(65536, socket.MSG_DONTWAIT):
            pass
    except BlockingIOError:
        return False  # it sent something and is still open
    except ConnectionResetError:
        return True
    return True


def wait_closed(socks: Sequence[socket.socket], count: int) -> list[bool]:
    """Which of `socks` the server has closed, once at least `count` of them are (or GUARD_S passes)."""
    deadline = time.monotonic() + GUARD_S
    state = [closed(s) for s in socks]
    while sum(state) < count and time.monotonic() < deadline:
        time.sleep(0.05)
        state = [done or closed(s) for s, done in zip(socks, state, strict=True)]
    return state


@contextlib.contextmanager
def uvicorn_serving(config: Any) -> Iterator[int]:
    """A uvicorn.Server for `config` in a thread, on a loopback socket bound here: its port."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + GUARD_S
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, "the server did not start"
        yield int(sock.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(GUARD_S)
        sock.close()
