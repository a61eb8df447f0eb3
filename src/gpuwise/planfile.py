"""Plan and workload files: the YAML a person writes, split into workload, hardware + requirements
and cost overrides. An edge adapter over gpuwise.files (its own module so that the catalog can read
files without importing the workload schema)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuwise.errors import ConfigError
from gpuwise.files import read_yaml
from gpuwise.workload.schema import names

_SECTIONS = ("name", "description", "requirements", "costs")


def read_plan_file(path: str | Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(workload, hardware + requirements, cost overrides) of a plan/workload YAML file.

    The workload sits under `workload:` (or at the top level); `gpu`, `gpus_per_node`, `network` and
    `power_cap` name hardware for `estimate`; `requirements:` and `costs:` are optional sections.
    """
    doc = {str(k).replace("-", "_"): v for k, v in read_yaml(path).items()}
    hardware = names("hardware")
    section = doc.get("workload", {k: v for k, v in doc.items() if k not in (*_SECTIONS, *hardware)})
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: 'workload' must be a mapping of field names to values")
    work = {str(k).replace("-", "_"): v for k, v in section.items()}
    other: dict[str, Any] = {k: doc[k] for k in hardware if k in doc}
    reqs = doc.get("requirements") or {}
    costs = doc.get("costs") or {}
    if not isinstance(reqs, dict) or not isinstance(costs, dict):
        raise ConfigError(f"{path}: 'requirements' and 'costs' must be mappings")
    other.update({str(k).replace("-", "_"): v for k, v in reqs.items()})
    return work, other, {str(k).replace("-", "_"): v for k, v in costs.items()}
