"""Light frozen records for the catalog's shapes, with pydantic only to validate them.

A warm start unpickles the catalog (gpuwise.cache) and never validates it, yet pydantic models
made every command import pydantic.main and build the model classes (about 45 ms of CPU) just to
hold values already checked. A `Record` class is a plain class with `__slots__`, made from its own
string annotations when the class is created (no exec, nothing evaluated); `validate` derives a
pydantic model from the same declarations on first use (a cold start, a user's price file,
tests), so each shape is still written once. `Field(...)` takes pydantic's keyword names, and a
record's cross-field rules live in `check()`, which `validate` runs inside pydantic's validation
(its errors carry the field's location as before).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_kw: Any) -> Callable[[Any], Any]:
        """Runtime no-op: the decorator only tells type checkers about the keyword __init__."""
        return lambda obj: obj


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def fields_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A C-speed function from an instance to the tuple of its `names` fields."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


_R = TypeVar("_R", bound="Record")
_MUTABLE = (list, dict, set)


class FieldInfo:
    """What `Field(...)` declares: a default (or factory) and pydantic's constraints by name."""

    __slots__ = ("constraints", "default", "default_factory", "description")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | None = None,
        constraints: Mapping[str, Any] | None = None,
        description: str | None = None,
    ) -> None:
        if default is not MISSING and default_factory is not None:
            raise TypeError("a field takes a default or a default_factory, not both")
        self.default = default
        self.default_factory = default_factory
        self.constraints = dict(constraints or {})
        self.description = description

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.default_factory is None

    def make_default(self, owner: str, name: str) -> Any:
        """A fresh default value: the factory's result, or a copy of a mutable default, so that no
        two records share one list or dict."""
        if self.default_factory is not None:
            return self.default_factory()
        if self.default is MISSING:
            raise TypeError(f"{owner}: missing required field {name!r}")
        return copy.deepcopy(self.default) if isinstance(self.default, _MUTABLE) else self.default

    def __repr__(self) -> str:
        bits = [] if self.default is MISSING else [f"default={self.default!r}"]
        bits += [f"default_factory={self.default_factory!r}"] if self.default_factory is not None else []
        bits += [f"{k}={v!r}" for k, v in self.constraints.items()]
        return f"Field({', '.join(bits)})"


def Field(  # pydantic's name and keywords, so that declarations read the same
    default: Any = MISSING,
    *,
    default_factory: Callable[[], Any] | None = None,
    gt: float | None = None,
    ge: float | None = None,
    lt: float | None = None,
    le: float | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    description: str | None = None,
    allow_inf_nan: bool | None = None,
) -> Any:
    """A record field's default and constraints, with pydantic's keyword names and meaning; the
    constraints are checked by `validate`, never by the record's own constructor."""
    given = {"gt": gt, "ge": ge, "lt": lt, "le": le, "min_length": min_length, "max_length": max_length}
    given["allow_inf_nan"] = allow_inf_nan
    constraints = {k: v for k, v in given.items() if v is not None}
    return FieldInfo(default, default_factory, constraints, description)


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else str(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(Field, FieldInfo))
class RecordMeta(type):
    """Makes each record class from its own annotations: its new fields become `__slots__`, their
    defaults and `Field` markers move into `__record_fields__` (a slot and a class attribute of
    the same name cannot coexist). Fields of base records come first, as in pydantic."""

    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kw: Any) -> RecordMeta:
        fields: dict[str, FieldInfo] = {}
        for base in reversed(bases):
            fields.update(getattr(base, "__record_fields__", {}))
        if "__annotations__" not in ns and "__annotate__" in ns:  # Python 3.14's lazy annotations
            raise TypeError(f"record class {name}: its module needs `from __future__ import annotations`")
        own: list[str] = []
        for fname, annotation in ns.get("__annotations__", {}).items():
            if _is_classvar(annotation):
                continue
            value = ns.pop(fname, MISSING)
            if fname not in fields:
                own.append(fname)
            fields[fname] = value if isinstance(value, FieldInfo) else FieldInfo(default=value)
        ns["__slots__"] = tuple(own)
        cls = super().__new__(mcs, name, bases, ns, **kw)
        names = tuple(fields)
        cls.__record_fields__ = fields  # type: ignore[attr-defined]
        cls.__record_names__ = names  # type: ignore[attr-defined]
        cls.__record_values__ = staticmethod(fields_getter(names))  # type: ignore[attr-defined]
        cls.__record_setters__ = tuple(getattr(cls, n).__set__ for n in names)  # type: ignore[attr-defined]
        return cls


def _rebuild(cls: type[_R], values: tuple[Any, ...]) -> _R:
    """A record of `cls` holding `values` (in field order), unchecked: unpickling and copies."""
    obj = object.__new__(cls)
    for set_slot, value in zip(cls.__record_setters__, values, strict=True):
        set_slot(obj, value)
    return obj


def _hashable(value: Any) -> Any:
    """A hashable stand-in that is equal wherever `value` is: a set becomes a frozenset, not a
    tuple (two equal sets may iterate in different orders, and equal records must hash alike)."""
    if isinstance(value, dict):
        return frozenset((k, _hashable(v)) for k, v in value.items())
    if isinstance(value, set):
        return frozenset(_hashable(v) for v in value)
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    return value


class Record(metaclass=RecordMeta):
    """A frozen value with keyword construction, equality, hashing and pickling by its fields, and
    pydantic's `model_copy` / `model_dump`, because the catalog's callers use them."""

    __slots__ = ()
    __record_fields__: ClassVar[dict[str, FieldInfo]]
    __record_names__: ClassVar[tuple[str, ...]]
    __record_values__: ClassVar[Callable[[Any], tuple[Any, ...]]]
    __record_setters__: ClassVar[tuple[Callable[[Any, Any], None], ...]]

    def __init__(self, **values: Any) -> None:
        cls = type(self)
        fields = cls.__record_fields__
        unknown = values.keys() - fields.keys()
        if unknown:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        for set_slot, (name, info) in zip(cls.__record_setters__, fields.items(), strict=True):
            set_slot(self, values[name] if name in values else info.make_default(cls.__name__, name))

    def check(self) -> None:
        """Cross-field rules (`validate` runs them); raise ValueError with what is wrong. None here."""

    def _values(self) -> tuple[Any, ...]:
        """The field values in declaration order."""
        return type(self).__record_values__(self)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r} (use model_copy(update=...))")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self._values() == other._values())

    def __hash__(self) -> int:
        return hash((type(self), _hashable(self._values())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._fields_text(', ')})"

    def __str__(self) -> str:  # pydantic's form: the fields only
        return self._fields_text(" ")

    def _fields_text(self, sep: str) -> str:
        return sep.join(f"{n}={v!r}" for n, v in zip(self.__record_names__, self._values(), strict=True))

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self), self._values())

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with `update`'s fields replaced, unchecked (pydantic's meaning); `deep` copies
        the other values too. An unknown field name is a TypeError."""
        values = dict(zip(self.__record_names__, self._values(), strict=True))
        if deep:
            values = copy.deepcopy(values)
        if update:
            unknown = update.keys() - values.keys()
            if unknown:
                raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
            values.update(update)
        return _rebuild(type(self), tuple(values.values()))

    def model_dump(self, *, exclude: Any = None, exclude_none: bool = False) -> dict[str, Any]:
        """The fields as plain dicts and lists, nested records too (pydantic's meaning): `exclude`
        is a set of names or a {name: True | nested exclude} mapping; `exclude_none` drops fields
        that are None, in nested records as well."""
        out: dict[str, Any] = {}
        for name, value in zip(self.__record_names__, self._values(), strict=True):
            sub = _sub_exclude(exclude, name)
            if sub is True or (exclude_none and value is None):
                continue
            out[name] = _dump(value, sub, exclude_none)
        return out


def _sub_exclude(exclude: Any, key: Any) -> Any:
    """What `exclude` says about `key`: True (drop it), a nested exclude, or None. As pydantic: a
    key's own nested exclude and `__all__`'s are merged; True or `...` on the key's own wins."""
    if exclude is None:
        return None
    if not isinstance(exclude, Mapping):
        return True if key in exclude else None
    own, every = exclude.get(key), exclude.get("__all__")
    if own is None or every is None:
        sub = every if own is None else own
        return True if _drops(sub) else sub
    if _drops(own) or _drops(every):
        return True if _drops(own) else own
    return _merge(_as_dict(own), every)


def _drops(sub: Any) -> bool:
    return sub is True or sub is Ellipsis


def _as_dict(sub: Any) -> dict[Any, Any]:
    return dict(sub) if isinstance(sub, Mapping) else dict.fromkeys(sub, True)


def _merge(own: dict[Any, Any], every: Any) -> dict[Any, Any]:
    """`every` (a set or a nested mapping) added to `own`, nested mappings merged (pydantic-core's rule)."""
    out = dict(own)
    if not isinstance(every, Mapping):
        for k in every:
            out.setdefault(k, True)
        return out
    for k, sub in every.items():
        if k not in out:
            out[k] = sub
        elif not _drops(out[k]):
            out[k] = _merge(_as_dict(out[k]), sub)
    return out


def _dump(value: Any, exclude: Any, exclude_none: bool) -> Any:
    if isinstance(value, Record):
        return value.model_dump(exclude=exclude, exclude_none=exclude_none)
    if isinstance(value, dict):
        subs = {k: _sub_exclude(exclude, k) for k in value}
        return {k: _dump(v, subs[k], exclude_none) for k, v in value.items() if subs[k] is not True}
    if isinstance(value, list | tuple):
        subs_i = [_sub_exclude(exclude, i) for i in range(len(value))]
        return type(value)(_dump(v, s, exclude_none) for v, s in zip(value, subs_i, strict=True) if s is not True)
    return value


def fields_of(cls: type[Record]) -> dict[str, FieldInfo]:
    """A record class's fields by name, in declaration order (base classes' first)."""
    return dict(cls.__record_fields__)


# ----- validation: pydantic, on the cold path only --------------------------------------------------
# derived pydantic model -> (its record class, per field: whether its type holds a record to convert)
_RECORD_OF: dict[type, tuple[type[Record], tuple[bool, ...]]] = {}


def validate(cls: type[_R], data: Any) -> _R:
    """`data` (a mapping from YAML or JSON) checked against `cls`'s declarations and made a record:
    types coerced as pydantic does, unknown keys refused, numbers finite, `Field` constraints and
    `check()` applied. A bad value raises pydantic.ValidationError (its errors name the field)."""
    return _to_record(model_for(cls).model_validate(data))


@functools.cache
def model_for(cls: type[Record]) -> type[BaseModel]:
    """The pydantic model derived from a record class (built once, on first validation)."""
    import typing

    import pydantic

    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for name, info in cls.__record_fields__.items():
        kwargs: dict[str, Any] = dict(info.constraints)
        if info.default is not MISSING:
            kwargs["default"] = info.default
        if info.default_factory is not None:
            kwargs["default_factory"] = info.default_factory
        if info.description is not None:
            kwargs["description"] = info.description
        fields[name] = (_swap(hints[name]), pydantic.Field(**kwargs))
    nested = tuple(fields[name][0] is not hints[name] for name in cls.__record_names__)
    validators: dict[str, Any] = {}
    if cls.check is not Record.check:
        validators["check"] = pydantic.model_validator(mode="after")(_run_check)
    config = pydantic.ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, from_attributes=True)
    model: type[BaseModel] = pydantic.create_model(
        cls.__name__, __config__=config, __doc__=cls.__doc__, __validators__=validators, **fields
    )
    _RECORD_OF[model] = (cls, nested)
    return model


def _run_check(model: Any) -> Any:
    _to_record(model).check()
    return model


def _swap(tp: Any) -> Any:
    """`tp` with every record class replaced by its derived model (inside X | None, list, dict)."""
    import types
    import typing

    if isinstance(tp, RecordMeta):
        return model_for(tp)
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if not args or origin is typing.Literal:
        return tp
    new = tuple(_swap(a) for a in args)
    if new == args:
        return tp
    if origin is types.UnionType or origin is typing.Union:
        return typing.Union[new]  # noqa: UP007 - built from a tuple
    return origin[new]


def _to_record(model: Any) -> Any:
    """The record a validated pydantic model stands for, nested models converted too (only the
    fields whose type holds a record are walked: a model's config dict is taken as it is)."""
    cls, nested = _RECORD_OF[type(model)]
    values = (getattr(model, n) for n in cls.__record_names__)
    return _rebuild(cls, tuple(_convert(v) if deep else v for v, deep in zip(values, nested, strict=True)))


def _convert(value: Any) -> Any:
    if type(value) in _RECORD_OF:
        return _to_record(value)
    if isinstance(value, list):
        return [_convert(v) for v in value]
    if isinstance(value, dict):
        return {k: _convert(v) for k, v in value.items()}
    return value


__all__ = ["MISSING", "Field", "FieldInfo", "Record", "RecordMeta", "fields_of", "model_for", "validate"]
