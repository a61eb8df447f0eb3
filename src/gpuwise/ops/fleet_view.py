"""The fleet at a glance, per pool and GPU model: acceptance spread, hosts drifting from their
model's baseline, driver and VBIOS versions across hosts, and how far each roll-out has gone.

`fleet_view(store)` gathers it as plain data (what `gpuwise fleet view --json` prints, and what the
web fleet page and the JSON API serve); `render_text` formats it for a terminal.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

from gpuwise.ops.fleet import list_cards
from gpuwise.ops.rollout import DEFAULT_POOL, Rollout, events_of, list_rollouts, summarize
from gpuwise.terminal import shown


def _pools(found: list[Rollout]) -> dict[str, str]:
    """host -> pool, as the newest roll-out plan recorded it (the fleet store itself has no pools)."""
    if not found:
        return {}
    return {h: str(info.get("pool", DEFAULT_POOL)) for h, info in found[-1].plan.get("hosts", {}).items()}


def _latest_per_host(store: Any, hosts: set[str]) -> dict[str, dict[str, float]]:
    """host -> acceptance check -> the value of its newest run that measured it (median of the run)."""
    from gpuwise.store.results import ACCEPT_KEYS

    wanted = {(b, n): keys for b, n, keys in ACCEPT_KEYS}
    runs: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in store.results(include_quick=False):
        keys = wanted.get((r.benchmark, r.name))
        if keys is None or r.hostname not in hosts:
            continue
        check = " ".join(str(x) for x in (r.benchmark, r.name, *(r.params.get(k) for k in keys)) if x is not None)
        runs[(r.hostname, check)][r.run_id].append(r.value)
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (host, check), by_run in runs.items():
        out[host][check] = statistics.median(by_run[max(by_run)])
    return out


def _acceptance(values: dict[str, dict[str, float]], hosts: list[str], tolerance: float) -> tuple[list[Any], list[Any]]:
    """(spread per check, hosts below the model's median by more than `tolerance`)."""
    per_check: dict[str, dict[str, float]] = defaultdict(dict)
    for h in hosts:
        for check, v in values.get(h, {}).items():
            per_check[check][h] = v
    spread, drifting = [], []
    for check, by_host in sorted(per_check.items()):
        vals = sorted(by_host.values())
        median = statistics.median(vals)
        spread.append(
            {
                "check": check,
                "hosts": len(vals),
                "min": vals[0],
                "median": median,
                "max": vals[-1],
                "spread": (vals[-1] - vals[0]) / median if median else None,
            }
        )
        for h, v in sorted(by_host.items()):
            if median and v < median * (1 - tolerance):
                drifting.append({"host": h, "check": check, "value": v, "median": median, "ratio": v / median})
    return spread, drifting


def fleet_view(store: Any, *, tolerance: float = 0.1) -> dict[str, Any]:
    """Per (pool, GPU model): hosts, cards, versions, acceptance spread, drift and where the newest
    roll-out stands on its hosts; then every roll-out's headline."""
    cards = [c for c in list_cards(store) if c.status != "retired" and c.host]
    found = list_rollouts(store)
    statuses = [summarize(r, events_of(store, r.id)) for r in found]  # oldest first
    pools = _pools(found)
    groups: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for c in cards:
        groups[(pools.get(str(c.host), DEFAULT_POOL), c.catalog_id or c.model or "unknown")].append(c)
    values = _latest_per_host(store, {str(c.host) for c in cards})
    newest = statuses[-1] if statuses else None
    states = {h.host: h.state for h in newest.hosts} if newest else {}
    rows = []
    for (pool, model), mine in sorted(groups.items()):
        hosts = sorted({str(c.host) for c in mine})
        spread, drifting = _acceptance(values, hosts, tolerance)
        drivers = Counter(str(c.driver) for c in mine if c.driver)
        rows.append(
            {
                "pool": pool,
                "model": model,
                "hosts": hosts,
                "cards": len(mine),
                "on_watch": sum(c.status == "watch" for c in mine),
                "drivers": {v: len({c.host for c in mine if c.driver == v}) for v in sorted(drivers)},
                "vbios": dict(sorted(Counter(str(c.vbios) for c in mine if c.vbios).items())),
                "acceptance": spread,
                "drifting": drifting,
                "rollout": None
                if newest is None
                else {"id": newest.rollout.id, "states": {h: states[h] for h in hosts if h in states}},
            }
        )
    rollouts = [
        {"id": r.id, "target": f"{r.kind} {r.version}", "headline": st.headline, "counts": st.counts}
        for r, st in zip(found, statuses, strict=True)
    ]
    return {"tolerance": tolerance, "groups": rows, "rollouts": rollouts}


def render_text(view: dict[str, Any]) -> str:
    """The view as lines for a terminal."""
    lines: list[str] = []
    for g in view["groups"]:
        watch = f", {g['on_watch']} on watch" if g["on_watch"] else ""
        lines.append(f"pool {g['pool']} / {g['model']}: {len(g['hosts'])} host(s), {g['cards']} card(s){watch}")
        lines.append("  driver: " + ", ".join(f"{v} on {n} host(s)" for v, n in g["drivers"].items()))
        lines.append("  vbios:  " + ", ".join(f"{v} on {n} card(s)" for v, n in g["vbios"].items()))
        for a in g["acceptance"]:
            spread = "" if a["spread"] is None else f", spread {a['spread']:.0%}"
            lines.append(
                f"  {a['check']}: {a['hosts']} host(s), min {a['min']:.4g}, median {a['median']:.4g}, "
                f"max {a['max']:.4g}{spread}"
            )
        for d in g["drifting"]:
            lines.append(f"  DRIFT {d['host']}: {d['check']} at {d['ratio']:.0%} of the median")
        if not g["acceptance"]:
            lines.append("  no acceptance benchmark stored yet (gpuwise bench all on its hosts)")
        if g["rollout"] and g["rollout"]["states"]:
            states = ", ".join(f"{h} {st}" for h, st in g["rollout"]["states"].items())
            lines.append(f"  roll-out {g['rollout']['id']}: {states}")
    if not view["groups"]:
        lines.append("no card in the fleet store: gpuwise fleet scan on each host")
    lines += [r["headline"] for r in view["rollouts"]]
    return "\n".join(shown(line) for line in lines) + "\n"  # stored names and versions: no escape printed raw


__all__ = ["fleet_view", "render_text"]
