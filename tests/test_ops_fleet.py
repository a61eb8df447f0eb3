"""Fleet life cycle on the store: inventory, inspections, retirement, and the rules judged on a
month of daily inspections (SQLite, and PostgreSQL: the test server from conftest.py)."""

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy", exc_type=ImportError)

from gpuwise.errors import ConfigError, UsageError
from gpuwise.hw import ReplaySource
from gpuwise.ops import fleet
from gpuwise.store import open_store
from gpuwise.store.schema import MIGRATIONS

HOSTS = Path(__file__).resolve().parent.parent / "examples" / "hosts"
DAY0 = dt.datetime(2026, 10, 1, 6, 0, tzinfo=dt.UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'fleet.db'}"
    else:
        url = request.getfixturevalue("clean_postgres")
    with open_store(url) as s:
        yield s


class Steps:
    def __init__(self, *snaps):
        self.snaps, self.n = list(snaps), 0

    def read(self):
        snap = self.snaps[min(self.n, len(self.snaps) - 1)]
        self.n += 1
        return snap


def healthy():
    return ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json").read()


def day(snap, d, **per_gpu):
    """The host on day d; per_gpu maps 'g<index>' to a function (gpu, d) -> changes."""
    gpus = []
    for g in snap.gpus:
        change = per_gpu.get(f"g{g.index}")
        gpus.append(replace(g, **change(g, d)) if change else g)
    return replace(snap, time=(DAY0 + dt.timedelta(days=d)).isoformat(), gpus=tuple(gpus))


def month(store, **per_gpu):
    base = healthy()
    fleet.scan(store, Steps(day(base, 0, **per_gpu)))
    for d in range(1, 30):
        fleet.inspect(store, Steps(day(base, d, **per_gpu)))
    return base


# ----- the month -----------------------------------------------------------------------------------
def rising_ecc(per_day):
    return lambda g, d: {"ecc_corrected_aggregate": per_day * d}


def hot(g, d):
    return {"temperature_celsius": 88.0 if d % 3 else 80.0}


def test_a_month_of_inspections_rising_ecc_and_sustained_heat(store):
    base = month(store, g2=rising_ecc(10), g5=hot)
    assert len(fleet.inspections_of(store)) == 30 * 8
    verdicts = fleet.evaluate(store, fleet.load_rules(), now=DAY0 + dt.timedelta(days=29, hours=1))
    by_gpu = {v.card.gpu_index: v for v in verdicts}
    assert set(by_gpu) == {2, 5}

    ecc = by_gpu[2]
    assert ecc.verdict == "watch" and ecc.card.uuid == base.gpu(2).uuid
    (reason,) = ecc.reasons
    assert reason.rule == "ecc_corrected_growth" and "0 -> 290 over 29 days = 300/month" in reason.evidence
    assert "rising count" in reason.why  # the configured reason travels with the verdict

    heat = by_gpu[5]
    assert heat.verdict == "watch"
    (reason,) = heat.reasons
    assert reason.rule == "sustained_temperature" and "above 85 °C in 10 of 14 inspections" in reason.evidence


def test_fast_ecc_growth_proposes_retirement(store):
    month(store, g7=rising_ecc(50))
    (v,) = fleet.evaluate(store, fleet.load_rules(), now=DAY0 + dt.timedelta(days=29, hours=1))
    assert v.card.gpu_index == 7 and v.verdict == "retire" and "1500/month" in v.reasons[0].evidence


def test_thresholds_come_from_the_rules_file(store, tmp_path):
    month(store, g2=rising_ecc(10))
    strict = tmp_path / "rules.yaml"
    text = _packaged_rules()
    strict.write_text(text.replace("retire_per_month: 1000", "retire_per_month: 200"))
    (v,) = fleet.evaluate(store, fleet.load_rules(strict), now=DAY0 + dt.timedelta(days=29, hours=1))
    assert v.verdict == "retire"
    off = tmp_path / "off.yaml"
    off.write_text("version: 1\nsustained_temperature: null\n")
    assert fleet.evaluate(store, fleet.load_rules(off), now=DAY0 + dt.timedelta(days=29, hours=1)) == []


def _packaged_rules():
    from gpuwise.ops import data_file

    return data_file("fleet-rules.yaml").read_text(encoding="utf-8")


def test_remaps_pages_driver_vbios_and_uncorrectable(store, tmp_path):
    faulty = ReplaySource(HOSTS / "faulty-8x-a100.json").read()
    snap = replace(
        faulty,
        driver_version="525.60.13",
        gpus=tuple(
            replace(g, remap_failure=True) if g.index == 0 else replace(g, retired_pages_dbe=61) if g.index == 4 else g
            for g in faulty.gpus
        ),
    )
    fleet.scan(store, Steps(snap))
    later = replace(
        snap,
        time="2026-11-03T10:02:41+00:00",
        gpus=tuple(replace(g, ecc_uncorrected_aggregate=4) if g.index == 7 else g for g in snap.gpus),
    )
    fleet.inspect(store, Steps(later))
    verdicts = {
        v.card.gpu_index: v
        for v in fleet.evaluate(store, fleet.load_rules(), now=dt.datetime(2026, 11, 4, tzinfo=dt.UTC))
    }
    rules = {i: {r.rule for r in v.reasons} for i, v in verdicts.items()}
    assert all("minimum_driver" in r for r in rules.values()) and len(verdicts) == 8  # 525 < 535.104.05 on every card
    assert "row_remap_failure" in rules[0] and verdicts[0].verdict == "retire"
    assert "retired_pages" in rules[4] and verdicts[4].verdict == "retire"
    assert "row_remap_pending" in rules[6]
    assert "vbios_consistency" in rules[3] and verdicts[3].verdict == "watch"
    assert "ecc_uncorrected" in rules[7] and verdicts[7].verdict == "retire"  # 4 new >= retire_at 3
    assert verdicts[1].verdict == "watch"
    assert [v.verdict for v in fleet.evaluate(store, fleet.load_rules(), now=dt.datetime(2026, 11, 4, tzinfo=dt.UTC))][
        :3
    ] == ["retire"] * 3


def test_acceptance_hook(store, tmp_path):
    snap = healthy()
    fleet.scan(store, Steps(snap))
    uuid = snap.gpu(1).uuid
    import json

    results = tmp_path / "accept.json"
    results.write_text(
        json.dumps({uuid: {"passed": False, "checks": [{"check": "matmul best bf16", "ok": False, "ratio": 0.81}]}})
    )
    (v,) = fleet.evaluate(store, fleet.load_rules(), now=DAY0, acceptance=fleet.acceptance_from_file(results))
    assert v.card.uuid == uuid and v.reasons[0].rule == "acceptance" and "81% of baseline" in v.reasons[0].evidence


# ----- inventory -----------------------------------------------------------------------------------------
def test_scan_adds_then_updates_and_inspect_skips_unknown_cards(store):
    snap = healthy()
    first = fleet.scan(store, Steps(snap))
    assert len(first.added) == 8 and len(first.inspected) == 8
    moved = replace(snap, time="2026-11-03T09:14:05+00:00", driver_version="560.35.03")
    second = fleet.scan(store, Steps(moved))
    assert second.added == () and len(second.updated) == 8
    card = fleet.get_card(store, snap.gpu(0).uuid)
    assert card.driver == "560.35.03" and card.first_seen < card.last_seen and card.status == "active"
    stranger = replace(snap, gpus=(replace(snap.gpu(0), uuid="GPU-new"),))
    result = fleet.inspect(store, Steps(stranger))
    assert result.inspected == () and "not in the inventory" in result.skipped[0]


def test_inspection_keeps_the_hottest_sample_and_the_raw_snapshot(store):
    snap = healthy()
    hotter = replace(snap, gpus=tuple(replace(g, temperature_celsius=79.0) if g.index == 0 else g for g in snap.gpus))
    fleet.scan(store, Steps(snap, hotter, snap), samples=3, interval=0)
    (ins,) = fleet.inspections_of(store, snap.gpu(0).uuid)
    assert ins.max_temperature_celsius == 79.0 and ins.temperature_celsius == snap.gpu(0).temperature_celsius
    assert ins.snapshot["gpu"]["uuid"] == snap.gpu(0).uuid and ins.snapshot["host"]["hostname"] == "hgx-h100-07"
    assert ins.remap_pending is False and ins.retired_pages is None and ins.clock_sm_hz == 1.98e9


def test_retire_list_and_status(store):
    snap = healthy()
    fleet.scan(store, Steps(snap))
    uuid = snap.gpu(3).uuid
    card = fleet.retire(store, uuid[:28], "XID 79 twice in a week")
    assert card.uuid == uuid and card.status == "retired" and card.retired_reason == "XID 79 twice in a week"
    assert [c.uuid for c in fleet.list_cards(store, status="retired")] == [uuid]
    assert len(fleet.list_cards(store, status="active")) == 7
    with pytest.raises(UsageError, match="say why"):
        fleet.retire(store, uuid, "  ")
    with pytest.raises(UsageError, match="no card"):
        fleet.retire(store, "GPU-nope", "x")
    with pytest.raises(UsageError, match="matches 8 cards"):
        fleet.get_card(store, "GPU-")
    with pytest.raises(UsageError, match="status must be"):
        fleet.list_cards(store, status="broken")


def test_evaluate_skips_retired_cards_and_apply_sets_watch(store):
    month(store, g2=rising_ecc(10), g5=hot)
    now = DAY0 + dt.timedelta(days=29, hours=1)
    verdicts = fleet.evaluate(store, fleet.load_rules(), now=now)
    changed = fleet.apply_verdicts(store, verdicts)
    assert sorted(c.gpu_index for c in changed if c.gpu_index is not None) == [2, 5] and len(changed) == 2
    assert {c.status for c in changed} == {"watch"}
    fleet.retire(store, changed[0].uuid, "replaced")
    assert len(fleet.evaluate(store, fleet.load_rules(), now=now)) == 1


def test_scan_without_nvidia_is_a_usage_error(store):
    snap = replace(healthy(), nvml_error="the NVML library (libnvidia-ml.so) was not found", gpus=())
    with pytest.raises(UsageError, match="no NVIDIA GPU"):
        fleet.scan(store, Steps(snap))


def test_lost_gpus_are_skipped(store):
    snap = healthy()
    lost = replace(snap, gpus=tuple(replace(g, lost=True) if g.index == 1 else g for g in snap.gpus))
    result = fleet.scan(store, Steps(lost))
    assert len(result.inspected) == 7 and "lost" in result.skipped[0]


def test_store_migrates_to_version_two(store):
    assert store.version() == len(MIGRATIONS) >= 2


def test_rules_file_is_validated(tmp_path):
    rules = fleet.load_rules()
    assert rules.sustained_temperature is not None and rules.ecc_corrected_growth is not None
    assert rules.sustained_temperature.threshold_celsius == 85 and rules.ecc_corrected_growth.watch_per_month == 100
    for section in rules.model_dump().values():
        if isinstance(section, dict):
            assert section["reason"].strip()  # every rule says why
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nsustained_temprature: {}\n")
    with pytest.raises(ConfigError, match="sustained_temprature"):
        fleet.load_rules(bad)
    with pytest.raises(UsageError, match="no fleet rules"):
        fleet.load_rules(tmp_path / "missing.yaml")
