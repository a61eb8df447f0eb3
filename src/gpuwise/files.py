"""Reading user files (workload/requirement YAML). An edge adapter: the core never reads files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpuwise.errors import ConfigError


def read_yaml(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark else ""
        raise ConfigError(f"{p}: not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{p}: expected a mapping of field names to values at the top level")
    return doc


def read_workload_file(path: str | Path) -> dict[str, Any]:
    """The workload fields of a YAML file: a top-level `workload:` section or the file itself.

    Hardware (`gpu`, `gpus_per_node`) may sit beside the workload fields.
    """
    doc = read_yaml(path)
    section = doc.get("workload", doc)
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: 'workload' must be a mapping of field names to values")
    out = {k: v for k, v in section.items() if k not in ("requirements", "name", "description")}
    for key in ("gpu", "gpus_per_node", "gpus-per-node", "network"):
        if key in doc and key not in out:
            out[key.replace("-", "_")] = doc[key]
    reqs = doc.get("requirements") or {}
    if not isinstance(reqs, dict):
        raise ConfigError(f"{path}: 'requirements' must be a mapping (qps, p95_ms, deadline, ...)")
    for key in ("qps", "p95_ms", "p99_ms"):
        for spelled in (key, key.replace("_", "-")):
            if spelled in reqs:
                out[key] = reqs[spelled]
    return out
