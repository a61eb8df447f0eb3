"""Fleet life cycle: an inventory of cards (by UUID), periodic inspections, and retirement rules.

- `scan`: read a host, add new cards to the inventory (update known ones) and inspect each.
- `inspect`: an inspection of every inventoried card the host shows.
- `list_cards`, `retire`: the inventory and the one manual decision.
- `evaluate`: apply the rules of `fleet-rules.yaml` (thresholds with their reasons) to the recorded
  inspections and return (card, verdict watch|retire, reasons). Evaluation never retires a card
  by itself: that stays a person's decision (`retire`).

Cards and inspections live in the store (tables `cards`, `inspections`, migration 2).
"""

from __future__ import annotations

import datetime as dt
import difflib
import itertools
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gpuwise.errors import ConfigError, UsageError
from gpuwise.hw import GpuSnapshot, HostSnapshot, Source
from gpuwise.ops.names import check_hostname, check_version

STATUSES = ("active", "watch", "retired")
DAYS_PER_MONTH = 30  # the "per month" of fleet-rules.yaml rates (watch_per_month, retire_per_month)
Verdict_ = Literal["watch", "retire"]


# ---------------------------------------------------------------------------------------------
# Rules (configuration)
MAX_WINDOW_DAYS = 3650  # ten years: longer than any card's service life
MAX_COUNT = 10**9  # error counts and page limits
MAX_RATE = 1e9  # errors per month


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    reason: str


class AcceptanceRule(_Rule):
    verdict: Verdict_ = "watch"


class MinimumDriverRule(_Rule):
    version: str
    verdict: Verdict_ = "watch"


class MinimumVbiosRule(_Rule):
    versions: dict[str, str] = Field(default_factory=dict)
    verdict: Verdict_ = "watch"


class VbiosConsistencyRule(_Rule):
    verdict: Verdict_ = "watch"


class EccCorrectedGrowthRule(_Rule):
    window_days: float = Field(gt=0, le=MAX_WINDOW_DAYS)
    min_span_days: float = Field(ge=0, le=MAX_WINDOW_DAYS)
    watch_per_month: float = Field(gt=0, le=MAX_RATE)
    retire_per_month: float | None = Field(default=None, gt=0, le=MAX_RATE)


class EccUncorrectedRule(_Rule):
    window_days: float = Field(gt=0, le=MAX_WINDOW_DAYS)
    watch_at: int = Field(ge=1, le=MAX_COUNT)
    retire_at: int | None = Field(default=None, ge=1, le=MAX_COUNT)


class SustainedTemperatureRule(_Rule):
    window_days: float = Field(gt=0, le=MAX_WINDOW_DAYS)
    threshold_celsius: float = Field(ge=-50, le=200)  # beyond any GPU's shutdown temperature
    min_share: float = Field(gt=0, le=1)
    min_inspections: int = Field(ge=1, le=MAX_COUNT)
    verdict: Verdict_ = "watch"


class FlagRule(_Rule):
    verdict: Verdict_


class RetiredPagesRule(_Rule):
    retire_at: int = Field(ge=1, le=MAX_COUNT)
    verdict: Verdict_ = "retire"


class FleetRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    version: int = Field(default=1, ge=1, le=1)
    acceptance: AcceptanceRule | None = None
    minimum_driver: MinimumDriverRule | None = None
    minimum_vbios: MinimumVbiosRule | None = None
    vbios_consistency: VbiosConsistencyRule | None = None
    ecc_corrected_growth: EccCorrectedGrowthRule | None = None
    ecc_uncorrected: EccUncorrectedRule | None = None
    sustained_temperature: SustainedTemperatureRule | None = None
    row_remap_pending: FlagRule | None = None
    row_remap_failure: FlagRule | None = None
    retired_pages: RetiredPagesRule | None = None


def load_rules(path: str | Path | None = None) -> FleetRules:
    """The rules in `path`, or the packaged fleet-rules.yaml (a user's file read within the limits
    of gpuwise.files: size, depth, aliases, UTF-8)."""
    from gpuwise.files import parse_yaml, read_text, require_file
    from gpuwise.ops import data_file

    src = Path(path) if path else data_file("fleet-rules.yaml")
    require_file(src, "fleet rules file")
    doc = parse_yaml(read_text(src, "fleet rules file"), str(src))
    if doc is not None and not isinstance(doc, dict):
        raise ConfigError(f"{src}: expected a mapping of rule names to settings at the top level")
    try:
        return FleetRules.model_validate(doc or {})
    except ValidationError as exc:
        raise ConfigError(f"{src}: {problems_of(exc, 5)}") from None


def problems_of(exc: ValidationError, most: int | None = None) -> str:
    """A validation's problems (the first `most`) as `field.path: message`, joined by '; '."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:most])


# ---------------------------------------------------------------------------------------------
# Records
@dataclass(frozen=True, slots=True)
class Card:
    uuid: str
    serial: str | None
    model: str | None
    catalog_id: str | None
    vbios: str | None
    inforom: str | None
    driver: str | None
    host: str | None
    slot: str | None
    gpu_index: int | None
    first_seen: dt.datetime
    last_seen: dt.datetime
    status: str
    retired_reason: str | None = None
    retired_at: dt.datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: (v.isoformat() if isinstance(v, dt.datetime) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True, slots=True)
class Inspection:
    card_uuid: str
    time: dt.datetime
    ecc_corrected_aggregate: int | None
    ecc_uncorrected_aggregate: int | None
    retired_pages: int | None
    remap_pending: bool | None
    remap_failure: bool | None
    temperature_celsius: float | None
    max_temperature_celsius: float | None
    clock_sm_hz: float | None
    clock_mem_hz: float | None
    throttle_mask: int | None
    snapshot: dict[str, Any] = field(default_factory=dict, repr=False)

    def as_dict(self, with_snapshot: bool = False) -> dict[str, Any]:
        d = {k: (v.isoformat() if isinstance(v, dt.datetime) else v) for k, v in asdict(self).items()}
        if not with_snapshot:
            d.pop("snapshot")
        return d


@dataclass(frozen=True, slots=True)
class ScanResult:
    host: str
    time: str
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    inspected: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # 'uuid-or-index: why'

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Reason:
    rule: str
    verdict: str
    evidence: str
    why: str


@dataclass(frozen=True, slots=True)
class CardVerdict:
    card: Card
    verdict: str  # watch | retire
    reasons: tuple[Reason, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"card": self.card.as_dict(), "verdict": self.verdict, "reasons": [asdict(r) for r in self.reasons]}


# ---------------------------------------------------------------------------------------------
def _tables() -> tuple[Any, Any]:
    from gpuwise.store.schema import cards, inspections

    return cards, inspections


def _utc(t: dt.datetime | None) -> dt.datetime | None:
    if t is None:
        return None
    return t.replace(tzinfo=dt.UTC) if t.tzinfo is None else t.astimezone(dt.UTC)


def _card(row: Any) -> Card:
    m = row._mapping
    return Card(
        uuid=m["uuid"],
        serial=m["serial"],
        model=m["model"],
        catalog_id=m["catalog_id"],
        vbios=m["vbios"],
        inforom=m["inforom"],
        driver=m["driver"],
        host=m["host"],
        slot=m["slot"],
        gpu_index=m["gpu_index"],
        first_seen=_utc(m["first_seen"]),  # type: ignore[arg-type]
        last_seen=_utc(m["last_seen"]),  # type: ignore[arg-type]
        status=m["status"],
        retired_reason=m["retired_reason"],
        retired_at=_utc(m["retired_at"]),
    )


def _inspection(row: Any) -> Inspection:
    m = row._mapping
    return Inspection(
        card_uuid=m["card_uuid"],
        time=_utc(m["time"]),  # type: ignore[arg-type]
        ecc_corrected_aggregate=m["ecc_corrected_aggregate"],
        ecc_uncorrected_aggregate=m["ecc_uncorrected_aggregate"],
        retired_pages=m["retired_pages"],
        remap_pending=None if m["remap_pending"] is None else bool(m["remap_pending"]),
        remap_failure=None if m["remap_failure"] is None else bool(m["remap_failure"]),
        temperature_celsius=m["temperature_celsius"],
        max_temperature_celsius=m["max_temperature_celsius"],
        clock_sm_hz=m["clock_sm_hz"],
        clock_mem_hz=m["clock_mem_hz"],
        throttle_mask=m["throttle_mask"],
        snapshot=m["snapshot"] or {},
    )


def _bool(v: bool | None) -> int | None:
    return None if v is None else int(v)


def _card_values(g: GpuSnapshot, snap: HostSnapshot) -> dict[str, Any]:
    return {
        "serial": g.serial,
        "model": g.name,
        "catalog_id": g.catalog_id,
        "vbios": g.vbios,
        "inforom": g.inforom,
        "driver": snap.driver_version,
        "host": snap.hostname,
        "slot": g.pci_bus_id,
        "gpu_index": g.index,
    }


def _inspection_values(g: GpuSnapshot, snap: HostSnapshot, hottest: float | None) -> dict[str, Any]:
    retired = None
    if g.retired_pages_sbe is not None or g.retired_pages_dbe is not None:
        retired = (g.retired_pages_sbe or 0) + (g.retired_pages_dbe or 0)
    return {
        "card_uuid": g.uuid,
        "time": snap.datetime,
        "ecc_corrected_aggregate": g.ecc_corrected_aggregate,
        "ecc_uncorrected_aggregate": g.ecc_uncorrected_aggregate,
        "retired_pages": retired,
        "remap_pending": _bool(g.remap_pending),
        "remap_failure": _bool(g.remap_failure),
        "temperature_celsius": g.temperature_celsius,
        "max_temperature_celsius": hottest,
        "clock_sm_hz": g.clock_sm_hz,
        "clock_mem_hz": g.clock_mem_hz,
        "throttle_mask": g.throttle_reasons,
        "snapshot": {
            "host": {
                "hostname": snap.hostname,
                "time": snap.time,
                "driver_version": snap.driver_version,
                "cuda_driver_version": snap.cuda_driver_version,
            },
            "gpu": asdict(g),
        },
    }


def _read(source: Source, samples: int, interval: float) -> tuple[HostSnapshot, dict[str, float]]:
    """The last of `samples` readings, and the hottest temperature each GPU showed in them."""
    if samples < 1:
        raise UsageError("--samples must be at least 1")
    hottest: dict[str, float] = {}
    snap = None
    for i in range(samples):
        if i and interval > 0:
            time.sleep(interval)
        snap = source.read()
        for g in snap.gpus:
            if g.uuid and g.temperature_celsius is not None:
                hottest[g.uuid] = max(hottest.get(g.uuid, g.temperature_celsius), g.temperature_celsius)
    assert snap is not None
    return snap, hottest


_Row = tuple[GpuSnapshot, dict[str, Any], dict[str, Any]]  # the GPU, its card row, its inspection row


def _checked_rows(snap: HostSnapshot, hottest: dict[str, float]) -> list[_Row]:
    """Card and inspection rows of every readable GPU, each value checked against its column first:
    one the store cannot hold (a NaN reading, a 200-character UUID) is a usage error naming it,
    the same on SQLite and PostgreSQL, and nothing of the scan is written."""
    from gpuwise.store.db import check_row

    cards, inspections = _tables()
    rows = []
    for g in snap.gpus:
        if not g.uuid or g.lost:
            continue
        card = {"uuid": g.uuid, **_card_values(g, snap)}
        ins = _inspection_values(g, snap, hottest.get(g.uuid))
        what = f"GPU {g.index} of {snap.hostname[:60]}"
        check_row(cards, card, what)
        check_row(inspections, ins, what)
        _check_names(snap, g)
        rows.append((g, card, ins))
    return rows


def _check_names(snap: HostSnapshot, g: GpuSnapshot) -> None:
    """The host's name and the versions it reports are names and versions, or the scan stores
    nothing: a roll-out writes them into Ansible files (`gpuwise.ops.names`)."""
    check_hostname(snap.hostname, "the scanned host")
    where = f"GPU {g.index} of {snap.hostname}"
    for value, what in (
        (snap.driver_version, f"{snap.hostname}: driver version"),
        (snap.cuda_driver_version, f"{snap.hostname}: CUDA version"),
        (g.vbios, f"{where}: VBIOS version"),
        (g.inforom, f"{where}: InfoROM version"),
    ):
        if value is not None:
            check_version(value, what)


def scan(store: Any, source: Source, *, samples: int = 1, interval: float = 0.0) -> ScanResult:
    """Inventory upsert (new cards added, known ones updated) and one inspection per card.
    Concurrent scans of the same new cards all succeed: the card is inserted ON CONFLICT DO
    NOTHING, and the scan that finds it there updates it instead."""
    from sqlalchemy import insert, update

    from gpuwise.store.db import insert_new

    cards, inspections = _tables()
    snap, hottest = _read(source, samples, interval)
    if not snap.has_nvidia:
        raise UsageError(f"no NVIDIA GPU to scan on {snap.hostname}: {snap.nvml_error}")
    when = snap.datetime
    rows = _checked_rows(snap, hottest)
    skipped = [
        f"GPU {g.index}: no UUID ({'lost' if g.lost else 'unreadable'})"
        if not g.uuid
        else f"{g.uuid}: GPU {g.index} is lost, not inspected"
        for g in snap.gpus
        if not g.uuid or g.lost
    ]
    added: list[str] = []
    updated: list[str] = []

    def write(conn: Any) -> None:
        added.clear()
        updated.clear()
        for g, card, ins in rows:
            if insert_new(conn, cards, {**card, "first_seen": when, "last_seen": when, "status": "active"}, "uuid"):
                added.append(g.uuid or "")
            else:
                values = {k: v for k, v in card.items() if k != "uuid"}
                conn.execute(update(cards).where(cards.c.uuid == g.uuid).values(last_seen=when, **values))
                updated.append(g.uuid or "")
            conn.execute(insert(inspections).values(**ins))

    store.transaction(write)
    inspected = tuple(g.uuid or "" for g, _, _ in rows)
    return ScanResult(snap.hostname, snap.time, tuple(added), tuple(updated), inspected, tuple(skipped))


def inspect(store: Any, source: Source, *, samples: int = 1, interval: float = 0.0) -> ScanResult:
    """An inspection of every card in the inventory that this host shows; others are reported, not added."""
    from sqlalchemy import insert, select, update

    cards, inspections = _tables()
    snap, hottest = _read(source, samples, interval)
    if not snap.has_nvidia:
        raise UsageError(f"no NVIDIA GPU to inspect on {snap.hostname}: {snap.nvml_error}")
    when = snap.datetime
    rows = _checked_rows(snap, hottest)
    lost = [f"{g.uuid or 'GPU ' + str(g.index)}: lost or unreadable" for g in snap.gpus if not g.uuid or g.lost]
    inspected: list[str] = []
    skipped: list[str] = []

    def write(conn: Any) -> None:
        inspected.clear()
        skipped[:] = lost
        uuids = [g.uuid for g, _, _ in rows]
        known = {r.uuid for r in conn.execute(select(cards.c.uuid).where(cards.c.uuid.in_(uuids)))}
        for g, _, ins in rows:
            if g.uuid not in known:
                skipped.append(f"{g.uuid}: not in the inventory (run `gpuwise fleet scan`)")
                continue
            conn.execute(update(cards).where(cards.c.uuid == g.uuid).values(last_seen=when))
            conn.execute(insert(inspections).values(**ins))
            inspected.append(g.uuid or "")

    store.transaction(write)
    return ScanResult(snap.hostname, snap.time, (), (), tuple(inspected), tuple(skipped))


def _check_value(table: Any, column: str, value: str, what: str) -> None:
    """A text a person typed, checked against the column it is compared with (PostgreSQL refuses
    a NUL character even in a query)."""
    from gpuwise.store.db import check_row

    check_row(table, {column: value}, what)


def list_cards(store: Any, *, status: str | None = None, host: str | None = None) -> list[Card]:
    from sqlalchemy import select

    cards, _ = _tables()
    if status is not None and status not in STATUSES:
        raise UsageError(f"status must be one of {', '.join(STATUSES)}; got {status!r}")
    if host is not None:
        _check_value(cards, "host", host, "--host")
    q = select(cards).order_by(cards.c.host, cards.c.gpu_index, cards.c.uuid)
    if status:
        q = q.where(cards.c.status == status)
    if host:
        q = q.where(cards.c.host == host)
    with store.engine.connect() as conn:
        return [_card(r) for r in conn.execute(q)]


def get_card(store: Any, uuid: str) -> Card:
    """A card by UUID or by a unique prefix of it."""
    from sqlalchemy import select

    cards, _ = _tables()
    _check_value(cards, "uuid", uuid, "the card UUID")
    with store.engine.connect() as conn:
        row = conn.execute(select(cards).where(cards.c.uuid == uuid)).first()
        if row is not None:
            return _card(row)
        every = [r.uuid for r in conn.execute(select(cards.c.uuid))]
    matches = [u for u in every if u.lower().startswith(uuid.lower())]
    if len(matches) == 1:
        return get_card(store, matches[0])
    if len(matches) > 1:
        raise UsageError(f"{uuid!r} matches {len(matches)} cards; give more of the UUID")
    close = difflib.get_close_matches(uuid, every, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise UsageError(f"no card {uuid!r} in the inventory{hint} (`gpuwise fleet list` shows them)")


def inspections_of(store: Any, uuid: str | None = None, since: dt.datetime | None = None) -> list[Inspection]:
    from sqlalchemy import select

    _, inspections = _tables()
    q = select(inspections).order_by(inspections.c.card_uuid, inspections.c.time, inspections.c.id)
    if uuid:
        q = q.where(inspections.c.card_uuid == uuid)
    if since is not None:
        q = q.where(inspections.c.time >= since)
    with store.engine.connect() as conn:
        return [_inspection(r) for r in conn.execute(q)]


def set_status(store: Any, uuid: str, status: str, reason: str | None = None, now: dt.datetime | None = None) -> Card:
    from sqlalchemy import update

    cards, _ = _tables()
    if status not in STATUSES:
        raise UsageError(f"status must be one of {', '.join(STATUSES)}; got {status!r}")
    card = get_card(store, uuid)
    values: dict[str, Any] = {"status": status}
    if status == "retired":
        values.update(retired_reason=reason, retired_at=now or dt.datetime.now(dt.UTC))
    from gpuwise.store.db import check_row

    check_row(cards, values, f"card {card.uuid}")
    store.transaction(lambda conn: conn.execute(update(cards).where(cards.c.uuid == card.uuid).values(**values)))
    return get_card(store, card.uuid)


def retire(store: Any, uuid: str, reason: str, now: dt.datetime | None = None) -> Card:
    """Mark a card retired, with the reason (kept in the inventory; its inspections stay)."""
    if not reason or not reason.strip():
        raise UsageError("say why the card is retired: --reason TEXT")
    return set_status(store, uuid, "retired", reason.strip(), now)


# ---------------------------------------------------------------------------------------------
# Evaluation
AcceptanceHook = Callable[[Card], tuple[bool, str] | None]


def _vtuple(text: str | None, base: int = 10) -> tuple[int, ...] | None:
    if not text:
        return None
    out = []
    for part in text.replace("-", ".").split("."):
        try:
            out.append(int(part, base))
        except ValueError:
            return None
    return tuple(out)


def _positive_growth(values: list[tuple[dt.datetime, int]]) -> int:
    """Sum of increases (a counter that was reset adds only what it grew by afterwards)."""
    return sum(max(0, b[1] - a[1]) for a, b in itertools.pairwise(values))


def _counter_series(
    seen: list[Inspection], now: dt.datetime, window_days: float, attr: str
) -> list[tuple[dt.datetime, int]]:
    """(time, value) of one counter over the inspections in the last `window_days`, unknown values left out."""
    start = now - dt.timedelta(days=window_days)
    return [(i.time, v) for i in seen if i.time >= start and (v := getattr(i, attr)) is not None]


def _has_nvlink(ins: Inspection | None) -> bool:
    if ins is None:
        return False
    links = (ins.snapshot.get("gpu") or {}).get("nvlinks") or []
    return any(link.get("active") for link in links)


def _history(store: Any, rules: FleetRules, now: dt.datetime) -> dict[str, list[Inspection]]:
    """Inspections up to `now` per card, as far back as the longest rule window (one day if none has one)."""
    windows = [
        r.window_days
        for r in (rules.ecc_corrected_growth, rules.ecc_uncorrected, rules.sustained_temperature)
        if r is not None
    ]
    since = now - dt.timedelta(days=max(windows, default=1))
    history: dict[str, list[Inspection]] = defaultdict(list)
    for ins in inspections_of(store, since=since):
        if ins.time <= now:
            history[ins.card_uuid].append(ins)
    return history


def _vbios_peer_reasons(
    rule: VbiosConsistencyRule, cards: list[Card], latest: Mapping[str, Inspection | None]
) -> dict[str, list[Reason]]:
    """VBIOS consistency among NVLink peers: cards of one model on one host, linked by NVLink."""
    groups: dict[tuple[str | None, str | None], list[Card]] = defaultdict(list)
    for c in cards:
        if c.vbios and _has_nvlink(latest.get(c.uuid)):
            groups[(c.host, c.model)].append(c)
    found: dict[str, list[Reason]] = defaultdict(list)
    for (host, model), members in groups.items():
        versions = Counter(c.vbios for c in members)
        if len(versions) < 2:
            continue
        common, n = versions.most_common(1)[0]
        for c in members:
            if c.vbios != common:
                evidence = f"VBIOS {c.vbios}; its {n} NVLink peer(s) on {host} ({model}) run {common}"
                found[c.uuid].append(Reason("vbios_consistency", rule.verdict, evidence, rule.reason))
    return found


def _acceptance_reasons(card: Card, rule: AcceptanceRule | None, hook: AcceptanceHook | None) -> list[Reason]:
    """A failed acceptance benchmark (when both the rule and the results are given)."""
    if rule is None or hook is None:
        return []
    result = hook(card)
    if result is None or result[0]:
        return []
    return [Reason("acceptance", rule.verdict, result[1], rule.reason)]


def _version_reasons(card: Card, rules: FleetRules) -> list[Reason]:
    """A driver or VBIOS older than the minimum the rules name."""
    out: list[Reason] = []
    rule_d = rules.minimum_driver
    if rule_d is not None and card.driver:
        have, need = _vtuple(card.driver), _vtuple(rule_d.version)
        if have and need and have < need:
            evidence = f"driver {card.driver} < {rule_d.version}"
            out.append(Reason("minimum_driver", rule_d.verdict, evidence, rule_d.reason))
    rule_v = rules.minimum_vbios
    if rule_v is not None and card.catalog_id is not None and card.catalog_id in rule_v.versions and card.vbios:
        need_text = rule_v.versions[card.catalog_id]
        have, need = _vtuple(card.vbios, 16), _vtuple(need_text, 16)
        if have and need and have < need:
            evidence = f"VBIOS {card.vbios} < {need_text} for {card.catalog_id}"
            out.append(Reason("minimum_vbios", rule_v.verdict, evidence, rule_v.reason))
    return out


def _ecc_corrected_reasons(
    seen: list[Inspection], now: dt.datetime, rule: EccCorrectedGrowthRule | None
) -> list[Reason]:
    """Corrected ECC errors growing faster per month than the watch or retire rate."""
    if rule is None:
        return []
    values = _counter_series(seen, now, rule.window_days, "ecc_corrected_aggregate")
    if len(values) < 2:
        return []
    span = (values[-1][0] - values[0][0]).total_seconds() / 86400
    if span < max(rule.min_span_days, 1e-9):
        return []
    per_month = _positive_growth(values) / span * DAYS_PER_MONTH
    evidence = f"corrected ECC {values[0][1]} -> {values[-1][1]} over {span:.0f} days = {per_month:.0f}/month"
    if rule.retire_per_month is not None and per_month >= rule.retire_per_month:
        return [
            Reason("ecc_corrected_growth", "retire", evidence + f" (retire at {rule.retire_per_month:g})", rule.reason)
        ]
    if per_month >= rule.watch_per_month:
        return [
            Reason("ecc_corrected_growth", "watch", evidence + f" (watch at {rule.watch_per_month:g})", rule.reason)
        ]
    return []


def _ecc_uncorrected_reasons(seen: list[Inspection], now: dt.datetime, rule: EccUncorrectedRule | None) -> list[Reason]:
    """New uncorrectable ECC errors in the window, at or above the watch or retire count."""
    if rule is None:
        return []
    new = _positive_growth(_counter_series(seen, now, rule.window_days, "ecc_uncorrected_aggregate"))
    if not new:
        return []
    evidence = f"{new} new uncorrectable ECC error(s) in {rule.window_days:g} days"
    if rule.retire_at is not None and new >= rule.retire_at:
        return [Reason("ecc_uncorrected", "retire", evidence, rule.reason)]
    if new >= rule.watch_at:
        return [Reason("ecc_uncorrected", "watch", evidence, rule.reason)]
    return []


def _temperature_reasons(
    seen: list[Inspection], now: dt.datetime, rule: SustainedTemperatureRule | None
) -> list[Reason]:
    """A card hotter than the threshold in too large a share of its recent inspections."""
    if rule is None:
        return []
    start = now - dt.timedelta(days=rule.window_days)
    readings = [
        i.max_temperature_celsius if i.max_temperature_celsius is not None else i.temperature_celsius
        for i in seen
        if i.time >= start
    ]
    temps = [t for t in readings if t is not None]
    hot = [t for t in temps if t > rule.threshold_celsius]
    if len(temps) < rule.min_inspections or len(hot) / len(temps) < rule.min_share:
        return []
    evidence = (
        f"above {rule.threshold_celsius:g} °C in {len(hot)} of {len(temps)} inspections in "
        f"{rule.window_days:g} days (max {max(temps):.0f} °C)"
    )
    return [Reason("sustained_temperature", rule.verdict, evidence, rule.reason)]


def _memory_state_reasons(last: Inspection | None, rules: FleetRules) -> list[Reason]:
    """Row remap failure or pending, and too many retired pages, in the latest inspection."""
    if last is None:
        return []
    out: list[Reason] = []
    if rules.row_remap_failure is not None and last.remap_failure:
        r = rules.row_remap_failure
        out.append(Reason("row_remap_failure", r.verdict, f"row remap failure at {last.time:%Y-%m-%d}", r.reason))
    if rules.row_remap_pending is not None and last.remap_pending:
        r = rules.row_remap_pending
        out.append(Reason("row_remap_pending", r.verdict, f"row remap pending at {last.time:%Y-%m-%d}", r.reason))
    rule_p = rules.retired_pages
    if rule_p is not None and last.retired_pages is not None and last.retired_pages >= rule_p.retire_at:
        evidence = f"{last.retired_pages} retired pages (limit {rule_p.retire_at})"
        out.append(Reason("retired_pages", rule_p.verdict, evidence, rule_p.reason))
    return out


def _card_reasons(
    card: Card,
    rules: FleetRules,
    seen: list[Inspection],
    last: Inspection | None,
    now: dt.datetime,
    acceptance: AcceptanceHook | None,
) -> list[Reason]:
    """Every per-card rule's reasons, in the order the rules file lists them."""
    return [
        *_acceptance_reasons(card, rules.acceptance, acceptance),
        *_version_reasons(card, rules),
        *_ecc_corrected_reasons(seen, now, rules.ecc_corrected_growth),
        *_ecc_uncorrected_reasons(seen, now, rules.ecc_uncorrected),
        *_temperature_reasons(seen, now, rules.sustained_temperature),
        *_memory_state_reasons(last, rules),
    ]


def evaluate(
    store: Any,
    rules: FleetRules,
    *,
    now: dt.datetime | None = None,
    acceptance: AcceptanceHook | None = None,
) -> list[CardVerdict]:
    """Cards (not retired) that the rules put on watch or propose to retire, with every reason."""
    now = _utc(now) or dt.datetime.now(dt.UTC)
    cards = [c for c in list_cards(store) if c.status != "retired"]
    history = _history(store, rules, now)
    latest = {c.uuid: (history[c.uuid][-1] if history[c.uuid] else _latest(store, c.uuid)) for c in cards}

    found: dict[str, list[Reason]] = defaultdict(list)
    if rules.vbios_consistency is not None:
        found.update(_vbios_peer_reasons(rules.vbios_consistency, cards, latest))
    for c in cards:
        reasons = _card_reasons(c, rules, history.get(c.uuid, []), latest.get(c.uuid), now, acceptance)
        if reasons:
            found[c.uuid].extend(reasons)

    verdicts = []
    by_uuid = {c.uuid: c for c in cards}
    for uuid, reasons in found.items():
        verdict = "retire" if any(r.verdict == "retire" for r in reasons) else "watch"
        verdicts.append(CardVerdict(by_uuid[uuid], verdict, tuple(reasons)))
    verdicts.sort(key=lambda v: (v.verdict != "retire", v.card.host or "", v.card.gpu_index or 0, v.card.uuid))
    return verdicts


def _latest(store: Any, uuid: str) -> Inspection | None:
    from sqlalchemy import select

    _, inspections = _tables()
    q = (
        select(inspections)
        .where(inspections.c.card_uuid == uuid)
        .order_by(inspections.c.time.desc(), inspections.c.id.desc())
        .limit(1)
    )
    with store.engine.connect() as conn:
        row = conn.execute(q).first()
    return None if row is None else _inspection(row)


def apply_verdicts(store: Any, verdicts: list[CardVerdict]) -> list[Card]:
    """Put every card with a verdict on `watch` (never retires: that stays a person's decision)."""
    changed = []
    for v in verdicts:
        if v.card.status == "active":
            changed.append(set_status(store, v.card.uuid, "watch"))
    return changed


def _ratio_text(check: Mapping[str, Any]) -> str:
    ratio = check.get("ratio")
    shown = f"{ratio:.0%}" if isinstance(ratio, int | float) and not isinstance(ratio, bool) else "?"
    return f"{str(check.get('check'))[:80]}: {shown} of baseline"


def acceptance_from_file(path: str | Path) -> AcceptanceHook:
    """A hook from a JSON object mapping card UUID -> `gpuwise bench accept --json` output
    (read within the file limits of gpuwise.files; an entry of the wrong shape is ignored)."""
    from gpuwise.files import read_json

    doc = read_json(path, "acceptance results file")
    if not isinstance(doc, Mapping):
        raise UsageError(f"{path}: expected an object mapping card UUID -> `gpuwise bench accept --json` output")

    def hook(card: Card) -> tuple[bool, str] | None:
        result = doc.get(card.uuid)
        if not isinstance(result, Mapping) or not isinstance(result.get("passed"), bool):
            return None
        checks = result.get("checks")
        listed = checks if isinstance(checks, list) else []
        failed = [c for c in listed if isinstance(c, Mapping) and c.get("ok", True) is False]
        detail = "; ".join(_ratio_text(c) for c in failed)
        return result["passed"], detail or "below the fleet baseline"

    return hook


__all__ = [
    "STATUSES",
    "AcceptanceHook",
    "Card",
    "CardVerdict",
    "FleetRules",
    "Inspection",
    "Reason",
    "ScanResult",
    "acceptance_from_file",
    "apply_verdicts",
    "evaluate",
    "get_card",
    "inspect",
    "inspections_of",
    "list_cards",
    "load_rules",
    "problems_of",
    "retire",
    "scan",
    "set_status",
]


# ---------------------------------------------------------------------------------------------
# The scheduler each host serves: a roll-out takes the host out of it first (cordon/drain on
# Kubernetes, `scontrol update state=drain` on Slurm) and puts it back after the gate.
SCHEDULERS = ("kubernetes", "slurm", "none")


@dataclass(frozen=True, slots=True)
class HostScheduler:
    host: str
    scheduler: str  # kubernetes | slurm | none
    node: str | None  # the host's node name there (None: the host name)
    updated_at: dt.datetime

    @property
    def node_name(self) -> str:
        return self.node or self.host

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "updated_at": self.updated_at.isoformat(), "node_name": self.node_name}


def set_scheduler(
    store: Any, host: str, scheduler: str, node: str | None = None, now: dt.datetime | None = None
) -> HostScheduler:
    """Record which scheduler places work on `host` (and its node name there); replaces the last record."""
    from sqlalchemy import delete, insert

    from gpuwise.store.schema import fleet_hosts

    if scheduler not in SCHEDULERS:
        hint = difflib.get_close_matches(scheduler, SCHEDULERS, n=1)
        raise UsageError(
            f"scheduler must be one of {', '.join(SCHEDULERS)}; got {scheduler!r}"
            + (f" (did you mean {hint[0]}?)" if hint else "")
        )
    check_hostname(host, "the host")
    if node is not None:
        check_hostname(node, "--node")
    when = now or dt.datetime.now(dt.UTC)
    row = {"host": host, "scheduler": scheduler, "node": node, "updated_at": when}

    def write(conn: Any) -> None:
        conn.execute(delete(fleet_hosts).where(fleet_hosts.c.host == host))
        conn.execute(insert(fleet_hosts).values(**row))

    store.transaction(write)
    return HostScheduler(host, scheduler, node, when)


def host_schedulers(store: Any) -> dict[str, HostScheduler]:
    """Every host's recorded scheduler (hosts never recorded are absent: they serve none)."""
    from sqlalchemy import select

    from gpuwise.store.schema import fleet_hosts

    with store.engine.connect() as conn:
        rows = conn.execute(select(fleet_hosts).order_by(fleet_hosts.c.host)).mappings().all()
    return {
        r["host"]: HostScheduler(r["host"], r["scheduler"], r["node"], _utc(r["updated_at"]) or r["updated_at"])
        for r in rows
    }
