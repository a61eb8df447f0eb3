"""The web forms, derived from the one schema (gpuwise.workload.schema): which inputs each page
shows, and form strings -> the options `gpuwise.api` takes. No field is declared here; only how a
page lays the schema's fields out (which come first, which widget a type gets)."""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from gpuwise.workload.schema import SECTIONS, FieldInfo, HardwareFields, applying, fields, names, validate

PLAN_SECTIONS = ("workload", "target", "plan", "prices")
ESTIMATE_SECTIONS = ("workload", "hardware", "target")
WORKLOAD_FIELDS = names("workload")
HARDWARE_FIELDS = names("hardware")
TARGET_FIELDS = names("target")
REQUIREMENT_FIELDS = names("target", "plan", "prices")
# the latency-target shorthand both pages show: one percentile select and one number of ms
SHORTHAND = ("percentile", "target_ms")
PERCENTILES = ("50", "90", "95", "99")
# fields that do not apply to the other task (a form keeps the values of hidden inputs)
TRAINING_ONLY = applying("training", *SECTIONS)
SERVING_ONLY = (*applying("inference", *SECTIONS), *SHORTHAND)
# shown first; the rest of a section sits under "More options"
PRIMARY = frozenset(
    {
        "model",
        "task",
        "method",
        "tokens",
        "micro_batch",
        "seq",
        "input_tokens",
        "output_tokens",
        "concurrency",
        "gpu",
        "qps",
        "deadline",
        "budget",
        "max_gpus",
        "growth_model",
        "growth_data",
        "growth_users",
        "pricing",
        "objective",
        "methods",
    }
)
# how a field name's words read in a label
WORDS = {
    "gpu": "GPU",
    "gpus": "GPUs",
    "qps": "QPS",
    "tp": "TP",
    "pp": "PP",
    "ms": "(ms)",
    "lora": "LoRA",
    "kv": "KV",
    "p95": "P95",
    "p99": "P99",
    "seq": "sequence",
    "dtype": "dtype",
}
# the schema's help where a page differs from the CLI (a browser never names a server path)
WEB_HELP = {
    "model": "Catalog id (GET /api/models lists them); a model of your own: upload its config.json on the plan page."
}
# what a page shows before anything is submitted
PLAN_DEFAULTS = {"model": "llama-2-7b", "task": "finetune", "method": "qlora", "tokens": "20M", "deadline": "24h"}
ESTIMATE_DEFAULTS = {"model": "llama-2-7b", "task": "finetune", "method": "qlora", "gpu": "a10"}


def _is_list(info: FieldInfo) -> bool:
    """Whether the schema types the field as a list (rendered as checkboxes when it has choices)."""
    annotation = SECTIONS[info.section].model_fields[info.name].annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    inner = args[0]
    while typing.get_origin(inner) is Annotated:
        inner = typing.get_args(inner)[0]
    return typing.get_origin(inner) is list


# fields that name a file to read (the CLI's `FILE` options, e.g. --prices): a web request never
# names a path on the server, so the pages show no input for them and the server refuses them
SERVER_FILE_FIELDS = frozenset(f.name for s in SECTIONS for f in fields(s) if f.metavar == "FILE")
MULTI_FIELDS = frozenset(f.name for s in SECTIONS for f in fields(s) if f.choices and _is_list(f))
INT_FIELDS = frozenset(f.name for s in SECTIONS for f in fields(s) if f.kind is int)


@dataclass(frozen=True, slots=True)
class FormField:
    """One schema field as a form input: the widget its type calls for and the words around it."""

    info: FieldInfo
    widget: str  # models | gpu | select | checkboxes | bool | number | text

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def label(self) -> str:
        words = [WORDS.get(w, w) for w in self.info.name.split("_")]
        return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])

    @property
    def placeholder(self) -> str:
        example = self.info.example
        if isinstance(example, float) and example.is_integer():
            example = int(example)  # 1e6 reads "1000000", not "1000000.0"
        return "" if example is None else f"e.g. {str(example).lower() if isinstance(example, bool) else example}"

    @property
    def hint(self) -> str:
        default = f" Default: {self.info.default_doc}." if self.info.default_doc else ""
        return WEB_HELP.get(self.info.name, self.info.help) + default


def _widget(info: FieldInfo) -> str:
    if info.name in ("model", "growth_model"):
        return "models"
    if info.name == "gpu":
        return "gpu"
    if info.choices:
        return "checkboxes" if info.name in MULTI_FIELDS else "select"
    if info.kind is bool:
        return "bool"
    return "number" if info.kind is int else "text"


@dataclass(frozen=True, slots=True)
class Section:
    """A section of the schema as a page lays it out."""

    name: str
    primary: tuple[FormField, ...]
    more: tuple[FormField, ...]

    @property
    def applies(self) -> str:
        """The task all of the section's fields apply to ("any" when they differ): a page hides a
        section that has nothing for the chosen task."""
        return _common(self.primary + self.more)

    @property
    def more_applies(self) -> str:
        return _common(self.more)


def _common(group: tuple[FormField, ...]) -> str:
    kinds = {f.info.applies for f in group}
    return kinds.pop() if len(kinds) == 1 else "any"


def form_sections(sections: Iterable[str]) -> list[Section]:
    """Every field of the sections, in schema order, split into shown-first and "more"."""
    out = []
    for s in sections:
        # the shorthand shows its own inputs; a file on the server is never a web input
        all_ = [FormField(f, _widget(f)) for f in fields(s) if f.name not in (*SHORTHAND, *SERVER_FILE_FIELDS)]
        out.append(
            Section(s, tuple(f for f in all_ if f.name in PRIMARY), tuple(f for f in all_ if f.name not in PRIMARY))
        )
    return out


def read_form(items: Iterable[tuple[str, Any]]) -> dict[str, str]:
    """Submitted (name, value) pairs -> stripped text; blanks dropped, repeated checkboxes joined."""
    out: dict[str, str] = {}
    for key, value in items:
        if not isinstance(value, str) or not value.strip():
            continue
        text = value.strip()
        out[key] = f"{out[key]},{text}" if key in MULTI_FIELDS and key in out else text
    return out


def applicable(form: Mapping[str, str]) -> dict[str, str]:
    """The fields that apply to the chosen task (a form still holds the other task's values)."""
    task = form.get("task")
    drop = TRAINING_ONLY if task == "inference" else SERVING_ONLY if task else ()
    return {k: v for k, v in form.items() if k not in drop}


def typed(form: Mapping[str, str]) -> dict[str, Any]:
    """Form strings -> the API's types (counts like 20M stay strings for the schema's parsers)."""
    out: dict[str, Any] = {}
    for k, v in form.items():
        out[k] = v
        if k in INT_FIELDS:
            try:
                number = float(v)  # '1e3' is 1000
            except ValueError:  # 'abc': the schema's validation names the field
                continue
            if number.is_integer():  # not '1.5' (it was cut to 1) nor 'inf': the schema refuses those
                out[k] = int(number)
    return out


def _target(form: Mapping[str, str]) -> dict[str, Any]:
    """The serving target: the schema's fields, and the shorthand (P95/P99 select + ms) over them."""
    out = typed({k: v for k, v in form.items() if k in TARGET_FIELDS})
    if form.get("target_ms") and form.get("percentile") in PERCENTILES:
        out["e2e_ms"] = form["target_ms"]
    elif "p95_ms" in out or "p99_ms" in out:
        out.pop("percentile", None)  # the aliases carry their own percentile
    return out


def plan_inputs(form: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload, requirements) for `gpuwise.api.make_plan` from a submitted plan form."""
    form = applicable(form)
    work = typed({k: v for k, v in form.items() if k in WORKLOAD_FIELDS})
    reqs = typed({k: v for k, v in form.items() if k in REQUIREMENT_FIELDS - TARGET_FIELDS})
    return work, {**reqs, **_target(form)}


def estimate_inputs(form: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload, hardware and target) for `gpuwise.api.make_estimate` from the estimate form;
    the hardware is validated here, so a bad value is a message naming the field."""
    form = applicable(form)
    work = typed({k: v for k, v in form.items() if k in WORKLOAD_FIELDS})
    hardware = typed({k: v for k, v in form.items() if k in HARDWARE_FIELDS})
    hardware = validate(HardwareFields, hardware).model_dump(exclude_none=True)
    return work, {**hardware, **_target(form)}


__all__ = [
    "ESTIMATE_DEFAULTS",
    "ESTIMATE_SECTIONS",
    "PLAN_DEFAULTS",
    "PLAN_SECTIONS",
    "SERVER_FILE_FIELDS",
    "FormField",
    "Section",
    "applicable",
    "estimate_inputs",
    "form_sections",
    "plan_inputs",
    "read_form",
    "typed",
]
