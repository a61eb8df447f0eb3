import pytest

from gpuwise.units import GiB, fmt_bytes, fmt_rate, fmt_seconds, fmt_usd, parse_bytes, parse_count, parse_duration


@pytest.mark.parametrize(
    ("text", "expected"),
    [("24GiB", 24 * 2**30), ("80GB", 80 * 10**9), ("512MiB", 512 * 2**20), (1024, 1024), ("1.5 GiB", 1.5 * GiB)],
)
def test_parse_bytes(text, expected):
    assert parse_bytes(text) == int(expected)


@pytest.mark.parametrize(("text", "expected"), [("2T", 2e12), ("300B", 3e11), ("1.5M", 1.5e6), ("1e9", 1e9), (7, 7)])
def test_parse_count(text, expected):
    assert parse_count(text) == expected


@pytest.mark.parametrize(("text", "expected"), [("2h", 7200), ("3d", 259200), ("90m", 5400), ("1h30m", 5400)])
def test_parse_duration(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize("bad", ["", "2 parsecs", "h2", "-1h"])
def test_parse_duration_rejects(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_format():
    assert fmt_bytes(80 * GiB) == "80.0 GiB"
    assert fmt_seconds(0.0123) == "12.3 ms"
    assert fmt_seconds(0.0001) == "0.1 ms" and fmt_seconds(23e-6) == "23.0 µs" and fmt_seconds(0) == "0.0 ms"
    assert fmt_seconds(3 * 3600) == "3.0 h"
    assert fmt_usd(2.274) == "$2.27" and fmt_usd(12_345.6) == "$12,346" and fmt_usd(None) == "—"
    assert fmt_rate(3.35e12) == "3.35 TB/s" and fmt_rate(864e9) == "864 GB/s" and fmt_rate(1.24e9) == "1.2 GB/s"
    assert fmt_rate(4.6e8) == "460.0 MB/s"  # CPU collectives on small messages are not "0 GB/s"
