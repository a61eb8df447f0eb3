"""gpuwise.clock: the day offers are aged against, pinned by GPUWISE_TODAY."""

from datetime import date

import pytest

from gpuwise import clock
from gpuwise.errors import UsageError


def test_unset_is_the_system_date(monkeypatch):
    monkeypatch.delenv(clock.TODAY_ENV, raising=False)
    assert clock.today() == date.today()


def test_a_pinned_day_is_read_as_an_iso_date(monkeypatch):
    monkeypatch.setenv(clock.TODAY_ENV, " 2030-01-01 ")
    assert clock.today() == date(2030, 1, 1)


@pytest.mark.parametrize("text", ["2026-13-01", "yesterday", "2026/12/01"])
def test_a_bad_day_is_a_usage_error(monkeypatch, text):
    monkeypatch.setenv(clock.TODAY_ENV, text)
    with pytest.raises(UsageError, match="YYYY-MM-DD"):
        clock.today()


def test_the_cli_reads_it(monkeypatch, capsys):
    """A pinned day in the future makes every catalog offer stale in `gpuwise prices`."""
    import json

    from .conftest import run_main

    monkeypatch.setenv(clock.TODAY_ENV, "2040-01-01")
    code, out, _ = run_main(capsys, "prices", "--gpu", "h100-sxm", "--json")
    assert code == 0
    rows = json.loads(out)["offers"]
    assert rows and all(r["stale"] for r in rows)
    monkeypatch.setenv(clock.TODAY_ENV, "2026-12-01")
    code, out, _ = run_main(capsys, "prices", "--gpu", "h100-sxm", "--json")
    assert code == 0 and not all(r["stale"] for r in json.loads(out)["offers"])
