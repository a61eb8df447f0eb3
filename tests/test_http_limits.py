"""The connection policy both servers share (gpuwise.http_limits), by hand: per-client caps, the
longest-waiting connection giving way past the total, requests being answered never closed."""

from __future__ import annotations

from gpuwise.http_limits import REFUSED_BUSY, REFUSED_CLIENT, Admission, Limits, refusal_response


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_one_address_gets_its_share_and_a_closed_connection_frees_a_place():
    a: Admission[str] = Admission(Limits(per_client=2, total=10), Clock())
    assert a.admit("c1", "10.0.0.1").refusal is None
    assert a.admit("c2", "10.0.0.1").refusal is None
    assert a.admit("c3", "10.0.0.1").refusal == REFUSED_CLIENT
    assert a.admit("d1", "10.0.0.2").refusal is None  # another address is not affected
    a.release("c1")
    assert a.admit("c4", "10.0.0.1").refusal is None
    assert a.open_count() == 3


def test_past_the_total_the_longest_waiting_connection_gives_way():
    a: Admission[str] = Admission(Limits(per_client=5, total=3), Clock())
    for c in ("a", "b", "c"):
        assert a.admit(c, c).evict is None
    a.busy("a")  # a's request is being answered: never closed for another
    assert a.admit("d", "d").evict == "b"  # b has waited longest (since t=2)
    a.waiting("a")  # a answered at t=5: now the most recent to wait
    assert a.admit("e", "e").evict == "c"
    assert a.admit("f", "f").evict == "d"
    assert a.open_count() == 3
    a.release("b")  # an evicted connection's own close changes nothing
    assert a.open_count() == 3


def test_when_every_connection_is_answering_a_new_one_is_refused():
    a: Admission[str] = Admission(Limits(per_client=5, total=2), Clock())
    for c in ("a", "b"):
        a.admit(c, c)
        a.busy(c)
    verdict = a.admit("c", "c")
    assert verdict.refusal == REFUSED_BUSY and verdict.evict is None
    a.release("a")
    assert a.admit("c", "c").refusal is None


def test_an_evicted_address_gets_its_place_back():
    a: Admission[str] = Admission(Limits(per_client=1, total=1), Clock())
    a.admit("a1", "10.0.0.1")
    assert a.admit("b1", "10.0.0.2").evict == "a1"
    a.busy("b1")
    assert a.admit("a2", "10.0.0.1").refusal == REFUSED_BUSY  # refused for the total, not its share


def test_the_refusal_is_a_complete_http_answer():
    raw = refusal_response(REFUSED_CLIENT, {"x-content-type-options": "nosniff"})
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 503 Service Unavailable"
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert int(headers["content-length"]) == len(body) and headers["connection"] == "close"
    assert headers["x-content-type-options"] == "nosniff" and body.decode() == f"503: {REFUSED_CLIENT}\n"
