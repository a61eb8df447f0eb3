"""Slow clients never starve `gpuwise serve`: 80 connections that send part of a request head and
then nothing, from many loopback addresses or from one, while an authorised request is answered.
The real uvicorn server with the settings `gpuwise serve` gives it, in a thread on loopback; every
wait is bounded and nothing is asserted about how fast."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("uvicorn")

from gpuwise.http_limits import Limits
from gpuwise.web import create_app
from gpuwise.web.security import WebSettings
from gpuwise.web.server import BoundedProtocol, uvicorn_options

from .slow_clients import GUARD_S, closed, loopback_sources, request, slow_clients, uvicorn_serving, wait_closed

TOKEN = "s3cret-token-of-24-chars"
BEARER = {"authorization": f"Bearer {TOKEN}"}
SLOW = 80


def _config(**limits: int):
    """`gpuwise serve`'s uvicorn settings, but slow clients stay until the test closes them."""
    import uvicorn

    patient = Limits(head_timeout_s=3600.0, **limits)

    class Patient(BoundedProtocol):
        limits = patient

    app = create_app(WebSettings(token=TOKEN))
    return uvicorn.Config(app, **{**uvicorn_options(Patient), "log_level": "warning"})


def test_an_authorised_request_is_answered_while_80_slow_clients_hold_connections():
    sources = loopback_sources(SLOW)
    with uvicorn_serving(_config()) as port, slow_clients(port, sources) as slow:
        status, body = request(port, "/api/models", BEARER)
        assert status == 200 and b"llama-2-7b" in body
        assert not any(closed(s) for s in slow)  # all 80 still held open meanwhile


def test_one_address_holds_at_most_its_share_and_others_are_still_answered():
    """80 slow connections from one address: the first 16 are kept, the rest refused at once; a
    request from another address is answered (and a 17th from the first one is told why not)."""
    (source,) = loopback_sources(1)
    with uvicorn_serving(_config(per_client=16)) as port, slow_clients(port, [source] * SLOW) as slow:
        state = wait_closed(slow, SLOW - 16)
        assert state == [False] * 16 + [True] * (SLOW - 16)
        status, _ = request(port, "/api/models", BEARER)
        assert status == 200
        with socket.create_connection(("127.0.0.1", port), timeout=GUARD_S, source_address=(source, 0)) as extra:
            refused = extra.recv(4096)
        assert refused.startswith(b"HTTP/1.1 503") and b"too many connections from your address" in refused


def test_past_the_total_a_new_connection_replaces_the_longest_waiting_one():
    """With room for 32 connections, 80 slow clients from 80 addresses: each new one closes the
    oldest waiting one, so the last 32 stay; an authorised request then takes the place of the
    oldest of those and is answered."""
    sources = loopback_sources(SLOW)
    with uvicorn_serving(_config(total=32)) as port, slow_clients(port, sources) as slow:
        status, _ = request(port, "/api/models", BEARER)
        assert status == 200
        state = wait_closed(slow, SLOW - 31)
        assert state == [True] * (SLOW - 31) + [False] * 31


def test_a_slow_request_head_is_cut_off():
    """Connections that never finish their request head are closed by the server (slowloris);
    the wait is generous and nothing is asserted about how fast."""
    import uvicorn

    class Quick(BoundedProtocol):
        limits = Limits(head_timeout_s=2.0)  # a plain request sends its whole head at once

    config = uvicorn.Config(create_app(), **{**uvicorn_options(Quick), "log_level": "warning"})
    with uvicorn_serving(config) as port, slow_clients(port, ["127.0.0.1"] * 16) as slow:
        assert all(wait_closed(slow, len(slow)))  # closed by the server, within the guard's 30 s
        status, _ = request(port, "/static/style.css")
        assert status == 200


def test_load_300_slow_clients_and_authorised_requests_all_answered():
    """The load test, with `gpuwise serve`'s own limits: 300 slow clients from 300 loopback
    addresses, more than the 256 connections a worker keeps, then 20 authorised requests one
    after another: every one is answered 200 (whatever the slow clients' fate meanwhile)."""
    import uvicorn

    sources = loopback_sources(300)
    app = create_app(WebSettings(token=TOKEN))
    config = uvicorn.Config(app, **{**uvicorn_options(), "log_level": "warning"})
    with uvicorn_serving(config) as port, slow_clients(port, sources):
        statuses = [request(port, "/api/models", BEARER)[0] for _ in range(20)]
    assert statuses == [200] * 20
