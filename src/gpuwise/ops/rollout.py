"""Staged roll-outs of a driver, firmware or CUDA version across the fleet, behind a benchmark gate.

- `plan_rollout`: from the fleet inventory (cards, by host) a canary host and waves of hosts, each
  host with its pool, GPU model, GPU indices and the version it runs now (what a failed gate rolls
  back to). Pure: the cards and host facts come in as arguments.
- `save_rollout`, `record`, `rollout_status`: the plan and what the playbook reports back, host by
  host and step by step, in the store (tables `rollouts`, `rollout_events`, migration 3).

The Ansible files themselves are written by `gpuwise.deploy.rollout_playbook`.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from gpuwise.errors import UsageError
from gpuwise.ops import names
from gpuwise.ops.fleet import Card, HostScheduler, problems_of

KINDS = ("driver", "firmware", "cuda")
STEPS = ("gate-before", "upgrade", "gate-after", "rollback", "done")
OUTCOMES = ("pass", "fail")
DEFAULT_POOL = "default"


# ---------------------------------------------------------------------------------------------
# What is rolled out
@dataclass(frozen=True, slots=True)
class Target:
    kind: str  # driver | firmware | cuda
    version: str

    @property
    def label(self) -> str:
        return f"{self.kind} {self.version}"


def parse_target(text: str) -> Target:
    """`driver=550.127.05`, `firmware=96.00.A5.00.01` or `cuda=12.8` as a Target (UsageError otherwise)."""
    kind, sep, version = (text or "").partition("=")
    kind, version = kind.strip().lower(), version.strip()
    if not sep or kind not in KINDS:
        raise UsageError(f"--target must be KIND=VERSION with KIND one of {', '.join(KINDS)}; got {text!r}")
    if not names.is_version(version):
        raise UsageError(f"--target {kind}=: the version {version!r} must be {names.VERSION_RULE}")
    return Target(kind, version)


# ---------------------------------------------------------------------------------------------
# Per-host facts the fleet store does not hold (pool, Kubernetes node, address, recorded gates)
class RolloutHost(BaseModel):
    """One host's entry in a `--hosts FILE` (YAML: `hosts: {NAME: {...}}`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    pool: str = DEFAULT_POOL
    k8s_node: str | None = None  # the Kubernetes node name: cordoned and drained around the upgrade
    ansible_host: str | None = None  # the address Ansible connects to (default: the host name)
    doctor_replay: str | None = None  # a recorded host for `gpuwise doctor --replay` instead of NVML
    bench_results: str | None = None  # recorded `gpuwise bench --json` output the gates read
    bench_results_after: str | None = None  # ... for the gate after the upgrade (default: bench_results)


def load_rollout_hosts(path: str | Path) -> dict[str, RolloutHost]:
    """The hosts file: relative paths in it are taken from the file's folder."""
    from gpuwise.files import read_yaml

    src = Path(path)
    doc = read_yaml(src)
    hosts = doc.get("hosts") if isinstance(doc, Mapping) else None
    if not isinstance(hosts, Mapping):
        raise UsageError(f"{src}: expected `hosts:` mapping host name -> pool, k8s_node, ansible_host, ...")
    out: dict[str, RolloutHost] = {}
    for name, entry in hosts.items():
        try:
            facts = RolloutHost.model_validate(entry or {})
        except ValidationError as exc:
            raise UsageError(f"{src}: host {name!r}: {problems_of(exc)}") from None
        paths = {
            k: str((src.parent / v).resolve())
            for k in ("doctor_replay", "bench_results", "bench_results_after")
            if (v := getattr(facts, k)) is not None
        }
        out[str(name)] = facts.model_copy(update=paths)
    return out


# ---------------------------------------------------------------------------------------------
# The plan
@dataclass(frozen=True, slots=True)
class HostPlan:
    host: str
    pool: str
    model: str  # catalog id where known, else the NVML name
    gpus: tuple[int, ...]  # GPU indices of the host's cards in service
    previous: str | None  # the version it runs now: what a failed gate rolls back to
    on_watch: int  # cards of the host on `watch`
    facts: RolloutHost = field(default_factory=RolloutHost)
    scheduler: str = "none"  # what places work on it: kubernetes (cordon/drain) | slurm (scontrol drain) | none
    node: str | None = None  # its node name there

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["gpus"] = list(self.gpus)
        d["facts"] = self.facts.model_dump(exclude_none=True)
        return d


@dataclass(frozen=True, slots=True)
class RolloutPlan:
    target: Target
    canary: str
    waves: tuple[tuple[str, ...], ...]
    hosts: dict[str, HostPlan]
    wave_size: int
    notes: tuple[str, ...] = ()

    @property
    def order(self) -> list[str]:
        """Every host in roll-out order: the canary, then wave by wave."""
        return [self.canary, *(h for w in self.waves for h in w)]

    def stage_of(self, host: str) -> str:
        if host == self.canary:
            return "canary"
        return next(f"wave {i}" for i, w in enumerate(self.waves, 1) if host in w)

    def as_dict(self) -> dict[str, Any]:
        return {
            "target": asdict(self.target),
            "canary": self.canary,
            "waves": [list(w) for w in self.waves],
            "wave_size": self.wave_size,
            "hosts": {h: p.as_dict() for h, p in self.hosts.items()},
            "notes": list(self.notes),
        }


def _most_common(values: Iterable[str | None]) -> str | None:
    counted = Counter(v for v in values if v)
    return counted.most_common(1)[0][0] if counted else None


def _check_stored(cards: list[Card], kind: str, cuda: Mapping[str, str]) -> None:
    """The host names and versions the plan writes into Ansible files are names and versions: a
    store written past `fleet scan`'s checks is refused here, not turned into a playbook."""
    fix = "; the fleet store should not hold it: retire the card (`gpuwise fleet retire UUID`) and scan again"
    try:
        for c in cards:
            names.check_hostname(c.host or "", f"card {c.uuid}")
            version, what = (c.driver, "driver") if kind == "driver" else (c.vbios, "VBIOS")
            if version is not None and kind != "cuda":
                names.check_version(version, f"card {c.uuid} on {c.host}: {what} version")
        for host, version in cuda.items():
            names.check_version(version, f"{host}: CUDA version")
    except UsageError as exc:
        raise UsageError(f"{exc}{fix}") from None


def _previous(kind: str, cards: list[Card], cuda: str | None) -> str | None:
    """The version a host runs now: its cards' driver or VBIOS (the most common), or its CUDA."""
    if kind == "driver":
        return _most_common(c.driver for c in cards)
    if kind == "firmware":
        return _most_common(c.vbios for c in cards)
    return cuda


def _scheduler(host: str, facts: RolloutHost, stored: HostScheduler | None) -> tuple[str, str | None]:
    """(scheduler, node) of a host: the hosts file's k8s_node, else what `fleet scheduler` stored."""
    if facts.k8s_node:
        return "kubernetes", facts.k8s_node
    if stored is None or stored.scheduler == "none":
        return "none", None
    names.check_hostname(stored.node_name, f"{host}: the stored {stored.scheduler} node name")
    return stored.scheduler, stored.node_name


def _host_plans(
    target: Target,
    cards: list[Card],
    facts: Mapping[str, RolloutHost],
    cuda: Mapping[str, str],
    schedulers: Mapping[str, HostScheduler],
) -> dict[str, HostPlan]:
    by_host: dict[str, list[Card]] = defaultdict(list)
    for c in cards:
        if c.status != "retired" and c.host:
            by_host[c.host].append(c)
    _check_stored(
        [c for mine in by_host.values() for c in mine], target.kind, {h: cuda[h] for h in by_host if h in cuda}
    )
    unknown = sorted(set(facts) - set(by_host))
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(by_host), n=2)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise UsageError(f"the hosts file names {', '.join(unknown)}, not in the fleet store{hint}")
    plans = {}
    for host, mine in sorted(by_host.items()):
        plans[host] = HostPlan(
            host=host,
            pool=facts.get(host, RolloutHost()).pool,
            model=_most_common(c.catalog_id or c.model for c in mine) or "unknown",
            gpus=tuple(sorted(c.gpu_index for c in mine if c.gpu_index is not None)),
            previous=_previous(target.kind, mine, cuda.get(host)),
            on_watch=sum(c.status == "watch" for c in mine),
            facts=facts.get(host, RolloutHost()),
        )
        scheduler, node = _scheduler(host, plans[host].facts, schedulers.get(host))
        plans[host] = replace(plans[host], scheduler=scheduler, node=node)
    return plans


def _pick_canary(plans: Mapping[str, HostPlan]) -> str:
    """The host the fleet can best spare that still speaks for most of it: no card on watch, of the
    GPU model most hosts (then most GPUs) have, with the fewest GPUs of its model; ties by name."""
    hosts_per_model = Counter(p.model for p in plans.values())
    gpus_per_model = Counter({m: sum(len(p.gpus) for p in plans.values() if p.model == m) for m in hosts_per_model})

    def key(p: HostPlan) -> tuple[bool, int, int, int, str]:
        return (p.on_watch > 0, -hosts_per_model[p.model], -gpus_per_model[p.model], len(p.gpus), p.host)

    return min(plans.values(), key=key).host


def plan_rollout(
    target: Target,
    cards: list[Card],
    *,
    wave_size: int = 1,
    canary: str | None = None,
    facts: Mapping[str, RolloutHost] | None = None,
    cuda: Mapping[str, str] | None = None,
    schedulers: Mapping[str, HostScheduler] | None = None,
) -> RolloutPlan:
    """Canary first, then waves of `wave_size` hosts: the canary's GPU model first (its gate has
    spoken for it), then by model, pool and name. `cuda` maps host -> CUDA version it runs."""
    if not 1 <= wave_size <= 1000:
        raise UsageError(f"--wave-size must be 1 to 1000 hosts; got {wave_size}")
    plans = _host_plans(target, cards, facts or {}, cuda or {}, schedulers or {})
    if not plans:
        raise UsageError("the fleet store has no card in service: run `gpuwise fleet scan` on each host first")
    if canary is not None and canary not in plans:
        close = difflib.get_close_matches(canary, list(plans), n=2)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise UsageError(f"--canary {canary!r} is not a host of the fleet store{hint}")
    first = canary or _pick_canary(plans)
    model = plans[first].model
    rest = sorted(
        (p for p in plans.values() if p.host != first), key=lambda p: (p.model != model, p.model, p.pool, p.host)
    )
    waves = tuple(tuple(p.host for p in rest[i : i + wave_size]) for i in range(0, len(rest), wave_size))
    notes = [f"{p.host}: {p.on_watch} card(s) on watch; upgraded with the others" for p in plans.values() if p.on_watch]
    notes += [
        f"{p.host}: its current {target.kind} is unknown; a failed gate cannot roll it back"
        for p in plans.values()
        if not p.previous
    ]
    if target.kind == "firmware":
        notes.append("firmware: one host at a time and one GPU at a time on each host (serial: 1, throttle: 1)")
    return RolloutPlan(target, first, waves, plans, wave_size, tuple(notes))


# ---------------------------------------------------------------------------------------------
# The store: the plan and what happened
@dataclass(frozen=True, slots=True)
class Event:
    host: str
    step: str
    outcome: str
    checked: bool
    time: dt.datetime
    detail: str | None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "time": self.time.isoformat()}


@dataclass(frozen=True, slots=True)
class Rollout:
    id: int
    kind: str
    version: str
    created_at: dt.datetime
    plan: dict[str, Any]


def _tables() -> tuple[Any, Any]:
    from gpuwise.store.schema import rollout_events, rollouts

    return rollouts, rollout_events


def _utc(t: dt.datetime) -> dt.datetime:
    return t.replace(tzinfo=dt.UTC) if t.tzinfo is None else t.astimezone(dt.UTC)


def save_rollout(store: Any, plan: RolloutPlan, now: dt.datetime | None = None) -> int:
    """Store the plan; returns the roll-out id the playbook reports under."""
    from sqlalchemy import insert

    rollouts, _ = _tables()
    values = {
        "kind": plan.target.kind,
        "version": plan.target.version,
        "created_at": now or dt.datetime.now(dt.UTC),
        "plan": plan.as_dict(),
    }
    return int(store.transaction(lambda conn: conn.execute(insert(rollouts).values(**values)).inserted_primary_key[0]))


def _check_id(rollouts: Any, rollout_id: int) -> None:
    """An id the id column cannot hold names no roll-out (SQLite overflowed, PostgreSQL refused it)."""
    from gpuwise.store.db import check_row

    try:
        check_row(rollouts, {"id": rollout_id}, "--rollout")
    except UsageError as exc:
        raise UsageError(f"--rollout {str(rollout_id)[:40]}: no roll-out has that id ({exc})") from None


def get_rollout(store: Any, rollout_id: int | None = None) -> Rollout:
    """A roll-out by id, or the newest one."""
    from sqlalchemy import select

    rollouts, _ = _tables()
    if rollout_id is not None:
        _check_id(rollouts, rollout_id)
    q = select(rollouts)
    q = q.where(rollouts.c.id == rollout_id) if rollout_id is not None else q.order_by(rollouts.c.id.desc()).limit(1)
    with store.engine.connect() as conn:
        row = conn.execute(q).first()
    if row is None:
        what = f"no roll-out {rollout_id}" if rollout_id is not None else "no roll-out yet"
        raise UsageError(f"{what} in the store at {store.url} (`gpuwise rollout plan` makes one)")
    m = row._mapping
    return Rollout(int(m["id"]), m["kind"], m["version"], _utc(m["created_at"]), dict(m["plan"]))


def list_rollouts(store: Any) -> list[Rollout]:
    from sqlalchemy import select

    rollouts, _ = _tables()
    with store.engine.connect() as conn:
        rows = conn.execute(select(rollouts).order_by(rollouts.c.id)).all()
    return [Rollout(int(r.id), r.kind, r.version, _utc(r.created_at), dict(r.plan)) for r in rows]


def record(
    store: Any,
    rollout_id: int,
    host: str,
    step: str,
    outcome: str,
    *,
    detail: str | None = None,
    checked: bool = False,
    now: dt.datetime | None = None,
) -> Event:
    """One step's outcome on one host, as the playbook reports it."""
    from sqlalchemy import insert

    if step not in STEPS:
        raise UsageError(f"--step must be one of {', '.join(STEPS)}; got {step!r}")
    if outcome not in OUTCOMES:
        raise UsageError(f"--outcome must be one of {', '.join(OUTCOMES)}; got {outcome!r}")
    rollout = get_rollout(store, rollout_id)
    if host not in rollout.plan.get("hosts", {}):
        raise UsageError(f"host {host!r} is not in roll-out {rollout_id} ({', '.join(rollout.plan.get('hosts', {}))})")
    event = Event(host, step, outcome, checked, now or dt.datetime.now(dt.UTC), (detail or "").strip()[:2000] or None)
    _, events = _tables()
    values = {**asdict(event), "checked": int(checked), "rollout_id": rollout_id}
    store.transaction(lambda conn: conn.execute(insert(events).values(**values)))
    return event


def events_of(store: Any, rollout_id: int) -> list[Event]:
    from sqlalchemy import select

    _, events = _tables()
    q = select(events).where(events.c.rollout_id == rollout_id).order_by(events.c.time, events.c.id)
    with store.engine.connect() as conn:
        return [
            Event(r.host, r.step, r.outcome, bool(r.checked), _utc(r.time), r.detail) for r in conn.execute(q).all()
        ]


# ---------------------------------------------------------------------------------------------
# Status: how far a roll-out has gone
HOST_STATES = ("pending", "in progress", "upgraded", "done", "blocked", "rolled back", "failed")


def host_state(events: list[Event]) -> str:
    """What one host's events (oldest first) say: the last one decides.

    pending (nothing yet), in progress (gate before passed), upgraded (waiting for the gate after),
    done, blocked (failed the gate before: never touched), rolled back, failed (neither)."""
    if not events:
        return "pending"
    last = events[-1]
    if last.step == "done" and last.outcome == "pass":
        return "done"
    if last.step == "rollback":
        return "rolled back" if last.outcome == "pass" else "failed"
    if last.step == "gate-before":
        return "in progress" if last.outcome == "pass" else "blocked"
    if last.step == "upgrade" and last.outcome == "pass":
        return "upgraded"
    return "failed"


@dataclass(frozen=True, slots=True)
class HostStatus:
    host: str
    stage: str  # canary | wave N
    pool: str
    model: str
    state: str
    events: tuple[Event, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "stage": self.stage,
            "pool": self.pool,
            "model": self.model,
            "state": self.state,
            "events": [e.as_dict() for e in self.events],
        }


@dataclass(frozen=True, slots=True)
class RolloutStatus:
    rollout: Rollout
    checked: bool  # True: the states are those of the last `--check` rehearsal, not a real run
    hosts: tuple[HostStatus, ...]

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(h.state for h in self.hosts)
        return {s: c[s] for s in HOST_STATES if c[s]}

    @property
    def headline(self) -> str:
        done = sum(h.state == "done" for h in self.hosts)
        n = len(self.hosts)
        what = f"roll-out {self.rollout.id}: {self.rollout.kind} {self.rollout.version}"
        mode = " (check-mode rehearsal: nothing was changed)" if self.checked else ""
        stopped = [h for h in self.hosts if h.state in ("blocked", "rolled back", "failed")]
        if stopped:
            h = stopped[0]
            where = "the canary" if h.stage == "canary" else h.stage
            return f"{what}: stopped at {where}, {h.host} {h.state}; {done} of {n} hosts done{mode}"
        if done == n:
            return f"{what}: complete, {n} of {n} hosts done{mode}"
        return f"{what}: {done} of {n} hosts done{mode}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.rollout.id,
            "kind": self.rollout.kind,
            "version": self.rollout.version,
            "created_at": self.rollout.created_at.isoformat(),
            "checked": self.checked,
            "headline": self.headline,
            "counts": self.counts,
            "canary": self.rollout.plan.get("canary"),
            "waves": self.rollout.plan.get("waves", []),
            "hosts": [h.as_dict() for h in self.hosts],
        }


def summarize(rollout: Rollout, events: list[Event], checked: bool | None = None) -> RolloutStatus:
    """Host by host in roll-out order. Real events count; a roll-out with none yet shows its last
    check-mode rehearsal (marked as such). `checked` forces one or the other."""
    if checked is None:
        checked = bool(events) and all(e.checked for e in events)
    mine = [e for e in events if e.checked == checked]
    per_host: dict[str, list[Event]] = defaultdict(list)
    for e in mine:
        per_host[e.host].append(e)
    plan = rollout.plan
    order = [plan["canary"], *(h for w in plan.get("waves", []) for h in w)]
    stages = {plan["canary"]: "canary"} | {h: f"wave {i}" for i, w in enumerate(plan.get("waves", []), 1) for h in w}
    hosts = []
    for h in order:
        info = plan["hosts"].get(h, {})
        evs = per_host.get(h, [])
        hosts.append(
            HostStatus(
                h, stages[h], info.get("pool", DEFAULT_POOL), info.get("model", "?"), host_state(evs), tuple(evs)
            )
        )
    return RolloutStatus(rollout, checked, tuple(hosts))


def rollout_status(store: Any, rollout_id: int | None = None, checked: bool | None = None) -> RolloutStatus:
    rollout = get_rollout(store, rollout_id)
    return summarize(rollout, events_of(store, rollout.id), checked)


__all__ = [
    "HOST_STATES",
    "KINDS",
    "OUTCOMES",
    "STEPS",
    "Event",
    "HostPlan",
    "HostStatus",
    "Rollout",
    "RolloutHost",
    "RolloutPlan",
    "RolloutStatus",
    "Target",
    "cuda_by_host",
    "events_of",
    "get_rollout",
    "host_state",
    "list_rollouts",
    "load_rollout_hosts",
    "parse_target",
    "plan_rollout",
    "record",
    "rollout_status",
    "save_rollout",
    "summarize",
]


def cuda_by_host(store: Any) -> dict[str, str]:
    """host -> the CUDA version its newest inspection recorded (what a CUDA roll-out replaces)."""
    from gpuwise.ops.fleet import inspections_of, list_cards

    host_of = {c.uuid: c.host for c in list_cards(store) if c.host}
    newest: dict[str, tuple[dt.datetime, str]] = {}
    for ins in inspections_of(store):  # card by card: the newest of any card of the host wins
        version = (ins.snapshot.get("host") or {}).get("cuda_driver_version")
        host = str(host_of.get(ins.card_uuid) or "")
        if version and host and (host not in newest or ins.time >= newest[host][0]):
            newest[host] = (ins.time, str(version))
    return {host: version for host, (_, version) in newest.items()}
