"""The `gpuwise estimate ...` line that reproduces one plan candidate, so plan and estimate give one
answer.

The line is derived from the one schema (workload.schema): every workload field takes the value the
candidate resolved (echoed by `describe_workload`), every hardware field the candidate's hardware,
every serving-target field the requirement the user gave. A field added to the schema is carried
without a change here: it is written when the user gave it, when the search set it, or when the
candidate's resolved value differs from the workload the user described.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from typing import Any

from gpuwise.estimate.run import describe_workload
from gpuwise.workload import Hardware, TrainingJob, Workload
from gpuwise.workload.schema import FieldInfo, fields

__all__ = ["estimate_command"]

# What the search sets, written always so that a changed default cannot change the answer.
SEARCHED = {
    "training": ("task", "method", "tp", "pp", "zero", "recompute", "micro_batch", "sequence_parallel"),
    "inference": ("task", "tp", "concurrency"),
}
# Schema fields that the resolved workload echoes under another name and unit: (echo key, factor).
ECHOED_AS = {"decode_ms": ("decode_seconds", 1e3)}


def _value(f: FieldInfo, echo: Mapping[str, Any], options: Mapping[str, Any]) -> Any:
    key, factor = ECHOED_AS.get(f.name, (f.name, 1.0))
    if f.name == "model" and options.get("model") is not None:
        return options["model"]  # the catalog id or config.json path the user gave
    if key in echo and echo[key] is not None:
        v = echo[key]
        return v * factor if factor != 1.0 and isinstance(v, int | float) else v
    return options.get(f.name)


def _text(value: Any) -> str:
    """A value as the option parser reads it: whole floats without '.0', lists comma-joined."""
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 10**18:
        return str(int(value))
    if isinstance(value, float):
        return repr(float(f"{value:.12g}"))  # 0.0020000000000000005 -> 0.002, exact to 12 digits
    return str(value)


def _flag(f: FieldInfo, value: Any) -> list[str]:
    if f.kind is bool:
        if not value:
            return [f"--no-{f.flag[2:]}"] if f.negatable else []
        return [f.flag]
    return [f.flag, _text(value)]


def _workload_flags(work: Workload, hw: Hardware, options: Mapping[str, Any], planned: Workload | None) -> list[str]:
    echo = describe_workload(work, hw)
    before = describe_workload(planned, hw) if planned is not None else {}
    searched = SEARCHED["training" if isinstance(work, TrainingJob) else "inference"]
    out: list[str] = []
    for f in fields("workload"):
        value = _value(f, echo, options)
        if value is None:
            continue
        key = ECHOED_AS.get(f.name, (f.name, 1.0))[0]
        differs = key in echo and echo.get(key) != before.get(key)
        if f.name in searched or options.get(f.name) is not None or differs:
            out += _flag(f, value)
    return out


def _hardware_flags(hw: Hardware) -> list[str]:
    flags = ["--gpu", f"{hw.gpu.id}:{hw.count}", "--gpus-per-node", str(hw.gpus_per_node)]
    flags += ["--network", hw.network] if hw.network else []
    return flags + (["--power-cap", _text(hw.power_cap)] if hw.power_cap else [])  # a plan has none; estimate may


def estimate_command(
    work: Workload,
    hw: Hardware,
    options: Mapping[str, Any],
    targets: Mapping[str, Any] | None = None,
    planned: Workload | None = None,
) -> str:
    """The shell line: `work` and `hw` as the candidate resolved them, `options` the workload options
    the user gave, `targets` the requirement options (the serving-target and price fields are written),
    `planned` the workload the search started from (fields it changed are written); a plan made
    with the team's measurements (`calibrated` in `targets`) is reproduced with --calibrated."""
    argv = ["gpuwise", "estimate", *_workload_flags(work, hw, options, planned), *_hardware_flags(hw)]
    for f in (*fields("target"), *fields("prices")):
        value = (targets or {}).get(f.name)
        if value is not None:
            argv += _flag(f, value)
    if (targets or {}).get("calibrated"):
        argv.append("--calibrated")
    return shlex.join(argv)
