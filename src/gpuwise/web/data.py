"""What the pages and the JSON API both serve: calls into `gpuwise.api`, the result store and the
fleet, and the web's own charts. Imports are lazy so that the app starts fast."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from gpuwise.errors import ConfigError, GpuwiseError


def version() -> str:
    from gpuwise import __version__

    return __version__


def model_ids() -> list[str]:
    from gpuwise.catalog import load_catalog

    return list(load_catalog().models)


def gpu_ids() -> list[str]:
    from gpuwise.catalog import load_catalog

    return list(load_catalog().gpus)


def run_plan(work: dict[str, Any], reqs: dict[str, Any], config_json: str = "") -> Any:
    """`gpuwise.api.make_plan`; an uploaded Hugging Face config.json replaces the catalog model."""
    from gpuwise.api import make_plan

    if not config_json:
        return make_plan(work, reqs)
    try:
        json.loads(config_json)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"the uploaded config.json is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.json"
        path.write_text(config_json, encoding="utf-8")
        return make_plan({**work, "model": str(path)}, reqs)


def run_estimate(work: dict[str, Any], hardware: dict[str, Any]) -> Any:
    from gpuwise.api import make_estimate

    return make_estimate(work, hardware)


def matrix() -> dict[str, Any]:
    """The capability matrix from the result store, or an empty one that says why."""
    try:
        from gpuwise.bench.matrix import matrix as build
        from gpuwise.bench.matrix import matrix_dict
        from gpuwise.catalog import load_catalog
        from gpuwise.store import open_store

        with open_store() as s:
            return matrix_dict(build(s.results(), load_catalog()))
    except (ImportError, GpuwiseError) as exc:
        return {"scenarios": {}, "rows": {}, "note": f"no store available: {exc}"}


def fleet() -> dict[str, Any]:
    """Inventory, each card's latest inspection, and the watch/retire list from the fleet rules."""
    try:
        from gpuwise.ops.fleet import evaluate, inspections_of, list_cards, load_rules
        from gpuwise.store import open_store

        with open_store() as s:
            cards = list_cards(s)
            latest: dict[str, Any] = {}
            for ins in inspections_of(s):
                latest[ins.card_uuid] = ins.as_dict()
            verdicts = evaluate(s, load_rules())
    except (ImportError, GpuwiseError) as exc:
        return {"cards": [], "inspections": [], "retire": [], "note": f"no fleet data: {exc}"}
    return {
        "cards": [c.as_dict() for c in cards],
        "inspections": [latest[c.uuid] for c in cards if c.uuid in latest],
        "retire": [
            {"uuid": v.card.uuid, "verdict": v.verdict, "reasons": [r.evidence for r in v.reasons]} for v in verdicts
        ],
    }


def memory_chart(d: dict[str, Any]) -> str:
    """The estimate's memory breakdown on the most loaded GPU against its capacity."""
    from gpuwise.estimate.memory import COMPONENTS
    from gpuwise.report.svg import stacked
    from gpuwise.units import GiB, fmt_gib

    per = d["memory"]["per_gpu"]
    return stacked(
        [(d["hardware"]["gpu"], {k: per[k] / GiB for k in COMPONENTS})],
        COMPONENTS,
        "Memory on the most loaded GPU (GiB)",
        lambda v: fmt_gib(v * GiB),
        limit=d["memory"]["capacity"] / GiB,
    )


def matrix_chart(m: dict[str, Any]) -> str | None:
    """Measured / estimated per GPU and scenario; None when nothing has an estimate to compare."""
    from gpuwise.report.svg import hbars

    ratios = [(f"{g} · {k}", c["ratio"]) for g, cells in m["rows"].items() for k, c in cells.items() if c.get("ratio")]
    if not ratios:
        return None
    return hbars(ratios, "Measured / estimated (1.0 = gpuwise's model holds)", lambda v: f"{v:.2f}")
