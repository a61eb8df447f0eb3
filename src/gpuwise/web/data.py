"""What the pages and the JSON API both serve: calls into `gpuwise.api`, the result store and the
fleet, and the web's own charts. Imports are lazy so that the app starts fast."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from gpuwise.errors import ConfigError, GpuwiseError, UsageError

PLAN_CACHE_SIZE = 128  # distinct plan requests kept per process; a PlanResult is a few hundred KB


def version() -> str:
    from gpuwise import __version__

    return __version__


def model_ids() -> list[str]:
    from gpuwise.catalog import load_catalog

    return list(load_catalog().models)


def gpu_ids() -> list[str]:
    from gpuwise.catalog import load_catalog

    return list(load_catalog().gpus)


# an uploaded config.json is held in memory; real ones are a few KB (the request body limit is 2 MiB)
MAX_CONFIG_BYTES = 2**20
UPLOAD_WHERE = "the uploaded config.json"
# the name an upload gets when its `_name_or_path` is missing (the importer falls back to the stem)
UPLOAD_FILE = Path("uploaded-config.json")


def catalog_model(name: str) -> Any:
    """A catalog model by id, never a path on the server: anything else is an unknown name with
    "did you mean" (the same message whether or not a file of that name exists)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.loader import arch_of

    return arch_of(load_catalog().model_entry(name))


def uploaded_model(config_json: str) -> Any:
    """A Hugging Face config.json sent by the browser, parsed in memory with the file limits
    (depth, finite numbers) and named from its `_name_or_path` as the catalog importer names it."""
    from gpuwise.catalog.hf_import import _model_name, arch_from_hf_config
    from gpuwise.files import parse_json

    if len(config_json.encode("utf-8", errors="replace")) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{UPLOAD_WHERE} is larger than {MAX_CONFIG_BYTES // 2**20} MiB")
    cfg = parse_json(config_json, UPLOAD_WHERE)
    if not isinstance(cfg, dict):
        raise ConfigError(f"{UPLOAD_WHERE}: expected a JSON object with the model's configuration")
    return arch_from_hf_config(cfg, name=_model_name(cfg, UPLOAD_FILE), where=UPLOAD_WHERE)


class ServerFileRefused(UsageError):
    """A request field that names a file on the server (`prices`): the web server reads none."""


def resolve_models(
    work: dict[str, Any], reqs: dict[str, Any] | None = None, config_json: str = ""
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The workload with its model resolved (an upload wins over the `model` field) and the growth
    model checked as a catalog id: no field of a web request is ever opened as a path."""
    from gpuwise.web.forms import SERVER_FILE_FIELDS

    work, reqs = dict(work), dict(reqs or {})
    named = sorted(k for k in (*work, *reqs) if k in SERVER_FILE_FIELDS)
    if named:
        flag = "--" + named[0].replace("_", "-")
        raise ServerFileRefused(
            f"{flag} names a file; the web server reads none of its own files (use `gpuwise plan {flag}`)"
        )
    if config_json:
        work["model"] = uploaded_model(config_json)
    elif isinstance(work.get("model"), str):
        work["model"] = catalog_model(work["model"])
    if isinstance(reqs.get("growth_model"), str):
        from gpuwise.catalog import load_catalog

        reqs["growth_model"] = load_catalog().model_entry(reqs["growth_model"]).id
    return work, reqs


def upload_text(data: bytes) -> str:
    """The bytes of an uploaded file as text: UTF-8 only, at most MAX_CONFIG_BYTES."""
    from gpuwise.files import decode_text

    return decode_text(data, UPLOAD_WHERE, "upload", MAX_CONFIG_BYTES)


def _plan_key(work: dict[str, Any], reqs: dict[str, Any], config_json: str) -> str:
    """The normalized request: the same plan asked twice (keys in any order) is one key."""
    return json.dumps({"w": work, "r": reqs, "c": config_json}, sort_keys=True, separators=(",", ":"), default=str)


@functools.lru_cache(maxsize=PLAN_CACHE_SIZE)
def _cached_plan(key: str) -> Any:
    """Plans are pure functions of the request and the packaged catalog: identical requests are
    answered from memory (each worker process keeps its own cache)."""
    from gpuwise.api import make_plan

    d = json.loads(key)
    work, reqs = resolve_models(d["w"], d["r"], d["c"])
    return make_plan(work, reqs, confine_files=True)  # a request may not name any file on the server


def run_plan(work: dict[str, Any], reqs: dict[str, Any], config_json: str = "") -> Any:
    """`gpuwise.api.make_plan` over a catalog model or an uploaded config.json, cached by request.
    The result is frozen (gpuwise.plan.results): identical requests share it safely."""
    return _cached_plan(_plan_key(work, reqs, config_json))


def plan_cache_info() -> Any:
    """Hits, misses and size of the plan cache (functools' CacheInfo)."""
    return _cached_plan.cache_info()


def run_estimate(work: dict[str, Any], hardware: dict[str, Any], config_json: str = "") -> Any:
    from gpuwise.api import make_estimate

    work, _ = resolve_models(work, None, config_json)
    return make_estimate(work, hardware, confine_files=True)  # a request may not name any file on the server


def matrix() -> dict[str, Any]:
    """The capability matrix from the result store (bench cells, and the imported measurements
    beside their predictions), or an empty one that says why."""
    try:
        from gpuwise.bench.matrix import imported_rows, matrix_dict
        from gpuwise.bench.matrix import matrix as build
        from gpuwise.catalog import load_catalog
        from gpuwise.store import open_store
        from gpuwise.store.imported import load

        cat = load_catalog()
        with open_store() as s:
            return matrix_dict(build(s.results(), cat), imported_rows(load(s), cat))
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
    from gpuwise.estimate.memory.breakdown import COMPONENTS
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
