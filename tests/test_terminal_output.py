"""Stored text (host names, models, versions, reasons, roll-out details) reaches a terminal as text:
escape sequences and other control characters are printed escaped (`\\x1b`), never raw, in
`fleet list`, `fleet view`, `rollout status` and the other fleet and roll-out views."""

from __future__ import annotations

import datetime as dt

import pytest
from typer.testing import CliRunner

pytest.importorskip("sqlalchemy", exc_type=ImportError)

from gpuwise.cli.app import app
from gpuwise.ops import rollout
from gpuwise.ops.rollout import HostPlan, RolloutPlan, Target
from gpuwise.terminal import shown

T0 = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)
CLEAR = "\x1b[2J"  # clears the screen
TITLE = "\x1b]0;pwned\x07"  # sets the window title
CSI = "\x9b31m"  # the one-byte C1 form of ESC [
FLIP = "\u202e"  # right-to-left override: the text after it prints backwards


def test_shown_escapes_what_a_terminal_acts_on_and_nothing_else():
    assert shown("gpu-01 héllo 中文 [bold]") == "gpu-01 héllo 中文 [bold]"
    assert shown(f"a{CLEAR}b") == "a\\x1b[2Jb"
    assert shown(TITLE) == "\\x1b]0;pwned\\x07"
    assert shown(CSI) == "\\x9b31m" and shown(FLIP + "gpj.exe") == "\\u202egpj.exe"
    assert shown("two\nlines\r\t") == "two\\nlines\\r\\t" and shown("\x7f\x00") == "\\x7f\\x00"


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def hostile_store(tmp_path):
    """A store written past the scan's checks: cards and a roll-out whose texts hold escapes."""
    from gpuwise.store import open_store
    from gpuwise.store.schema import cards

    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    host = f"h{CLEAR}"
    with open_store(db) as s:
        for i, status in enumerate(("active", "retired")):
            row = {"uuid": f"GPU-{i}{TITLE}", "host": host, "model": f"[bold]H100{CSI}", "catalog_id": "h100-sxm",
                   "vbios": f"96.00{FLIP}", "driver": f"550{CLEAR}", "gpu_index": i, "status": status,
                   "retired_reason": f"bad{TITLE}" if status == "retired" else None,
                   "first_seen": T0, "last_seen": T0}  # fmt: skip
            s.transaction(lambda conn, row=row: conn.execute(cards.insert().values(**row)))
        plan = RolloutPlan(
            Target("driver", "560.35.03"), host, (), {host: HostPlan(host, f"p{CSI}", f"m{FLIP}", (0,), "550", 0)}, 1
        )
        rid = rollout.save_rollout(s, plan, now=T0)
        rollout.record(s, rid, host, "gate-before", "fail", detail=f"doctor exit 1 {CLEAR}{TITLE}", now=T0)
    return db, rid


@pytest.mark.parametrize(
    "command",
    [["fleet", "list"], ["fleet", "list", "--status", "retired"], ["fleet", "view"], ["rollout", "status"]],
)
def test_stored_escapes_print_escaped(hostile_store, command):
    db, _ = hostile_store
    out = _invoke(*command, "--db", db)
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out and FLIP not in out, repr(out)
    assert "h\\x1b[2J" in out, out  # the host, shown as text


def test_a_rollout_detail_and_the_markup_in_a_name_are_text(hostile_store):
    db, _ = hostile_store
    assert "doctor exit 1 \\x1b[2J\\x1b]0;pwned\\x07" in _invoke("rollout", "status", "--db", db)
    listed = _invoke("fleet", "list", "--db", db)
    assert "[bold]H100\\x9b31m" in listed and "96.00\\u202e" in listed  # rich markup printed, not applied
