"""The schema's fields as plain data, kept across processes, so that a warm start needs no pydantic.

gpuwise.workload.schema declares every field once, as pydantic models. Building those models costs
more than a whole `gpuwise estimate` does otherwise, and the CLI and YAML doors need only two things
from them: each field as the doors show it (FieldInfo: flag, help, choices, ...) and each field's
rule for reading a loose value (Rule: its kind, coercion, choices, bounds, lengths, default). Both
are derived from the models on a cold cache and kept by gpuwise.cache, keyed by the code of the
workload package, gpuwise.units and pydantic's version file (an edit to any rebuilds them); a warm
start unpickles them. gpuwise.workload.fast checks values with the rules and hands anything it
does not handle to the models, which stay the reference.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from gpuwise import cache
from gpuwise.errors import UsageError, suggest

Applies = Literal["any", "training", "inference"]
# The models the light validator stands in for, by the name its callers use.
MODELS = {
    "workload": "WorkloadFields",
    "hardware": "HardwareFields",
    "target": "TargetFields",
    "requirements": "RequirementFields",
}


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """One field as every door sees it."""

    name: str
    section: str  # workload | hardware | target | plan
    kind: type  # what a flag parses: str, int, float or bool
    help: str
    applies: Applies
    example: Any
    choices: tuple[str, ...] | None
    metavar: str | None
    default_doc: str | None
    layout: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


class Rule(NamedTuple):
    """How the light validator reads one field; `kind` "" means it leaves the field to pydantic."""

    kind: str  # str | int | float | bool | choice | list | ""
    coerce: str | None = None  # a name in gpuwise.workload.loose.COERCIONS, run first
    choices: frozenset[str] | None = None  # a choice's values, or a list's item values
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    min_length: int | None = None  # text: characters; list: items
    max_length: int | None = None
    item_max_length: int | None = None  # a list's text items: characters
    pattern: str | None = None
    nullable: bool = True
    required: bool = False
    default: Any = None


class Rules(NamedTuple):
    """One model's rules; `fast` False when the model has a validator or setting they do not cover."""

    fast: bool
    fields: dict[str, Rule]


class Table(NamedTuple):
    fields: dict[str, tuple[FieldInfo, ...]]  # by section: workload, hardware, target, plan
    rules: dict[str, Rules]  # by model: workload, hardware, target, requirements


def _sources() -> list[tuple[str, Any]]:
    """The files the table is derived from: the schema's package, the units it parses with, and
    pydantic's version file (found without importing pydantic)."""
    import gpuwise.workload

    root = Path(gpuwise.__file__).parent
    return [
        *cache.python_files(Path(gpuwise.workload.__file__).parent, "workload"),
        ("units.py", root / "units.py"),
        *cache.version_file("pydantic"),
    ]


def _build() -> Table:
    from gpuwise.workload import schema
    from gpuwise.workload.table_build import model_rules

    return Table(
        fields={section: schema.fields(section) for section in schema.SECTIONS},
        rules={name: model_rules(getattr(schema, cls)) for name, cls in MODELS.items()},
    )


def _valid(value: Any) -> bool:
    return isinstance(value, Table) and set(value.rules) == set(MODELS)


@functools.cache
def _table() -> Table:
    return cache.cached(cache.cache_file("workload-fields"), lambda: cache.source_key(_sources()), _build, _valid)


def fields(section: str) -> tuple[FieldInfo, ...]:
    """The fields of one section (workload, hardware, target, plan), in declaration order."""
    return _table().fields[section]


def rules(model: str) -> Rules:
    """The rules of one model (workload, hardware, target, requirements)."""
    return _table().rules[model]


def names(*sections: str) -> frozenset[str]:
    return frozenset(f.name for s in sections for f in fields(s))


def layout_names() -> frozenset[str]:
    """The parallel-layout fields a plan chooses itself."""
    return frozenset(f.name for f in fields("workload") if f.layout)


def applying(applies: Applies, *sections: str) -> tuple[str, ...]:
    """Names of the fields that apply only to training (or only to inference)."""
    return tuple(f.name for s in sections for f in fields(s) if f.applies == applies)


def check_unknown(opts: Mapping[str, Any], known: frozenset[str], what: str) -> None:
    """Unknown keys are a usage error with the nearest known names."""
    unknown = sorted(set(opts) - known)
    if unknown:
        hints = []
        for u in unknown:
            near = suggest(u, known)
            hints.append(f"{u!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
        raise UsageError(f"unknown {what} field(s): {', '.join(hints)}")


__all__ = [
    "MODELS",
    "Applies",
    "FieldInfo",
    "Rule",
    "Rules",
    "applying",
    "check_unknown",
    "fields",
    "layout_names",
    "names",
    "rules",
]
