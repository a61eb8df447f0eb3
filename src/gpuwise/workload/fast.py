"""The light validator: loose values (flag text, YAML scalars) checked with the cached field rules.

The CLI and YAML doors validate a handful of values per command; building the pydantic models to
do it costs more than the command. `check` converts and checks the values the way the models do,
for the inputs whose outcome it can be sure of (text, whole numbers, numbers, bools, lists of text),
and gives the values without building a model. Whenever it meets a value it does not handle, or
one it would reject, it hands the whole input to the model (gpuwise.workload.schema.validate):
errors keep the model's canonical message, and nothing is accepted that the model refuses.
tests/test_fast_validation.py holds the property that keeps the two equal.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from gpuwise.workload.loose import COERCIONS, EXACT_INT
from gpuwise.workload.table import MODELS, Rule, Rules, rules

if TYPE_CHECKING:
    from gpuwise.workload.schema import HardwareFields, RequirementFields, TargetFields, WorkloadFields

_DIGITS = re.compile(r"[0-9]{1,18}")  # whole numbers as text that pydantic reads the same way


class Values:
    """A model's values without the model: its attributes, `model_dump` and `model_fields_set`."""

    __slots__ = ("_given", "_values")

    def __init__(self, values: dict[str, Any], given: frozenset[str]) -> None:
        self._values = values
        self._given = given

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # a slot not yet set (copy, pickle): no lookup through _values
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def model_fields_set(self) -> set[str]:
        return set(self._given)

    def model_dump(self, *, exclude_none: bool = False) -> dict[str, Any]:
        """The values as pydantic's model_dump gives them (lists copied, fields in declaration order)."""
        return {
            k: list(v) if isinstance(v, list) else v
            for k, v in self._values.items()
            if not (exclude_none and v is None)
        }

    def __repr__(self) -> str:
        return f"Values({self.model_dump(exclude_none=True)!r})"


class _Unsure(Exception):
    """The light validator cannot vouch for a value: the model decides."""


def _check_length(v: str | list[Any], rule: Rule) -> None:
    """Characters of a text, items of a list, within the rule's lengths."""
    if (rule.min_length is not None and len(v) < rule.min_length) or (
        rule.max_length is not None and len(v) > rule.max_length
    ):
        raise _Unsure


def _text(v: Any, rule: Rule) -> str:
    if type(v) is not str:
        raise _Unsure
    v.encode()  # text pydantic cannot hold (lone surrogates) raises UnicodeEncodeError: the model's error
    _check_length(v, rule)
    if rule.pattern is not None and (not v.isascii() or "\n" in v or re.search(rule.pattern, v) is None):
        raise _Unsure  # pydantic's Rust regex and Python's agree on one-line ASCII text
    return v


def _number(v: Any, rule: Rule) -> int | float:
    if rule.kind == "int":
        if type(v) is str and _DIGITS.fullmatch(v):
            v = int(v)
        if type(v) is not int:
            raise _Unsure
    else:
        if type(v) is int and abs(v) < EXACT_INT:
            v = float(v)
        if type(v) is not float or not math.isfinite(v):
            raise _Unsure
    if (
        (rule.ge is not None and not v >= rule.ge)
        or (rule.gt is not None and not v > rule.gt)
        or (rule.le is not None and not v <= rule.le)
        or (rule.lt is not None and not v < rule.lt)
    ):
        raise _Unsure
    return v


def _items(v: Any, rule: Rule) -> list[str]:
    if type(v) is not list:
        raise _Unsure
    _check_length(v, rule)
    item = Rule(kind="str", max_length=rule.item_max_length)
    out = [_text(x, item) for x in v]
    if rule.choices is not None and not all(x in rule.choices for x in out):
        raise _Unsure
    return out


def convert(rule: Rule, raw: Any) -> Any:
    """One value as the model would hold it; _Unsure (or any error) when the model must decide."""
    if not rule.kind:
        raise _Unsure
    v = COERCIONS[rule.coerce](raw) if rule.coerce else raw
    if v is None:
        if not rule.nullable:
            raise _Unsure
        return None
    if rule.kind == "str":
        return _text(v, rule)
    if rule.kind == "choice":
        if type(v) is not str or rule.choices is None or v not in rule.choices:
            raise _Unsure
        return v
    if rule.kind in ("int", "float"):
        return _number(v, rule)
    if rule.kind == "bool":
        if type(v) is not bool:
            raise _Unsure
        return v
    return _items(v, rule)


def light(model: Rules, opts: Mapping[str, Any]) -> Values | None:
    """The values of `opts` by `model`'s rules, or None when the pydantic model must decide."""
    if not model.fast:
        return None
    given: dict[str, Any] = {}
    for key, raw in opts.items():
        rule = model.fields.get(key) if type(key) is str else None
        if rule is None:
            return None  # an unknown key: the model's error (extra="forbid")
        try:
            given[key] = convert(rule, raw)
        except Exception:  # _Unsure, or a coercion's ValueError: the model says it its way
            return None
    if any(r.required and name not in given for name, r in model.fields.items()):
        return None
    values = {name: given.get(name, r.default) for name, r in model.fields.items()}
    return Values(values, frozenset(given))


@overload
def check(model: Literal["workload"], opts: Mapping[str, Any]) -> WorkloadFields: ...
@overload
def check(model: Literal["hardware"], opts: Mapping[str, Any]) -> HardwareFields: ...
@overload
def check(model: Literal["target"], opts: Mapping[str, Any]) -> TargetFields: ...
@overload
def check(model: Literal["requirements"], opts: Mapping[str, Any]) -> RequirementFields: ...
def check(model: str, opts: Mapping[str, Any]) -> Any:
    """Typed, bounded values from loose ones, or a UsageError naming the field (schema.validate's).

    Typed as the model it stands for: a Values has the model's attributes and model_dump; the
    model itself comes back when pydantic had to decide."""
    values = light(rules(model), opts)
    if values is not None:
        return values
    from gpuwise.workload import schema

    return schema.validate(getattr(schema, MODELS[model]), opts)


__all__ = ["Values", "check", "convert", "light"]
