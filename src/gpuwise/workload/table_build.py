"""Rules for the light validator, derived from the pydantic models (on a cold cache only).

Each field's annotation and metadata are read back from the model: the kinds, coercions
(BeforeValidators whose function is in loose.COERCIONS), bounds, lengths and patterns the light
validator reproduces. Anything else it does not know (another validator, an alias, a default
factory, a nested Annotated, a model validator or serializer, another model setting) makes the field,
or the whole model, pydantic's alone, so that the fast path never decides what it cannot decide
the way the model does.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

from gpuwise.workload.loose import COERCIONS, EXACT_INT
from gpuwise.workload.table import Rule, Rules

# Model settings the rules reproduce (extra="forbid": unknown keys go to pydantic for its error).
_KNOWN_CONFIG = {"extra", "allow_inf_nan", "str_max_length"}


def _members(annotation: Any) -> tuple[list[Any], bool]:
    """(the members of a union other than None, whether None is one); a non-union is one member."""
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    args = list(typing.get_args(annotation)) if union else [annotation]
    rest = [a for a in args if a is not type(None)]
    return rest, len(rest) != len(args)


def _str_literal(tp: Any) -> frozenset[str] | None:
    if typing.get_origin(tp) is Literal and all(type(c) is str for c in typing.get_args(tp)):
        return frozenset(typing.get_args(tp))
    return None


def _shape(annotation: Any) -> tuple[str, frozenset[str] | None, bool]:
    """(kind, choices, nullable) of an annotation; kind "" for a type the light validator leaves alone."""
    rest, nullable = _members(annotation)
    if len(rest) != 1:
        return "", None, nullable
    tp = rest[0]
    if tp in (str, int, float, bool):
        return tp.__name__, None, nullable
    if (choices := _str_literal(tp)) is not None:
        return "choice", choices, nullable
    if typing.get_origin(tp) is list and len(typing.get_args(tp)) == 1:
        item = typing.get_args(tp)[0]
        if item is str:
            return "list", None, nullable
        if (choices := _str_literal(item)) is not None:
            return "list", choices, nullable
    return "", None, nullable


def _constraints(metadata: list[Any]) -> dict[str, Any] | None:
    """The metadata as Rule arguments; None when any item is one the light validator does not know."""
    import annotated_types as at
    from pydantic import BeforeValidator

    by_id = {id(fn): name for name, fn in COERCIONS.items()}
    out: dict[str, Any] = {}
    bounds = {at.Ge: "ge", at.Gt: "gt", at.Le: "le", at.Lt: "lt", at.MinLen: "min_length", at.MaxLen: "max_length"}
    for m in metadata:
        if isinstance(m, BeforeValidator) and "coerce" not in out and id(m.func) in by_id:
            out["coerce"] = by_id[id(m.func)]
        elif type(m) in bounds:
            key = bounds[type(m)]
            out[key] = getattr(m, key)
        elif type(m).__name__ == "_PydanticGeneralMetadata" and set(vars(m)) == {"pattern"}:
            out["pattern"] = vars(m)["pattern"]
        else:
            return None
    return out


def _bounds_fit(kind: str, c: dict[str, Any]) -> bool:
    """Bounds only on numbers (int bounds on ints, exact floats on floats), lengths only on text and lists."""
    numeric = [c[k] for k in ("ge", "gt", "le", "lt") if k in c]
    if numeric and kind not in ("int", "float"):
        return False
    if kind == "int" and not all(type(b) is int for b in numeric):
        return False
    if kind == "float" and not all(type(b) in (int, float) and abs(b) <= EXACT_INT for b in numeric):
        return False
    lengths = "min_length" in c or "max_length" in c
    return not (lengths and kind not in ("str", "list")) and not ("pattern" in c and kind != "str")


def field_rule(info: Any, str_max_length: int | None) -> Rule:
    """One pydantic FieldInfo as a Rule (kind "" when the light validator must leave it to pydantic)."""
    kind, choices, nullable = _shape(info.annotation)
    c = _constraints(list(info.metadata))
    plain = info.alias is None and info.validation_alias is None and info.default_factory is None and not info.exclude
    default = None if info.is_required() else info.default
    if not kind or c is None or not plain or type(default) not in (type(None), str, int, float, bool):
        return Rule(kind="")
    if not _bounds_fit(kind, c):
        return Rule(kind="")
    if kind == "float":
        c = {k: float(v) if k in ("ge", "gt", "le", "lt") else v for k, v in c.items()}
    if str_max_length is not None and kind == "str":
        c["max_length"] = min(c.get("max_length", str_max_length), str_max_length)
    return Rule(
        kind=kind,
        choices=choices,
        nullable=nullable,
        required=info.is_required(),
        default=default,
        item_max_length=str_max_length if kind == "list" else None,
        **c,
    )


def _plain_model(model: Any) -> bool:
    """No validator, serializer, post-init hook or setting beyond those the rules reproduce."""
    deco = model.__pydantic_decorators__
    hooks = (
        deco.validators,
        deco.field_validators,
        deco.root_validators,
        deco.field_serializers,
        deco.model_serializers,
        deco.model_validators,
        deco.computed_fields,
    )
    config = dict(model.model_config)
    settings_known = set(config) <= _KNOWN_CONFIG and config.get("extra") == "forbid"
    return not any(hooks) and model.__pydantic_post_init__ is None and settings_known


def model_rules(model: Any) -> Rules:
    """A model's rules, its fields in declaration order (the order model_dump gives)."""
    str_max = model.model_config.get("str_max_length")
    return Rules(
        fast=_plain_model(model),
        fields={name: field_rule(info, str_max) for name, info in model.model_fields.items()},
    )


__all__ = ["field_rule", "model_rules"]
