"""Dataclasses that cost less to create: `@frozen` is `@dataclass(frozen=True)`, `@mutable` is
`@dataclass`, with the same fields, `__init__`, `replace()`, `fields()`, `asdict()`, equality, hash
and repr.

Why: CPython 3.11 writes six small functions for each frozen dataclass and compiles each with
`exec` (`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`): about 0.4 ms
a class, and one `gpuwise plan` imports some sixty of them (docs/performance.md, "A fast start").
Comparison, hash and repr are the same code for every class once the field names are known, so
here they are three shared functions reading a per-class tuple of names; `dataclass` still writes
`__init__` and the frozen guards. What they do is dataclass's own:
- `==` compares the fields with `compare=True` as a tuple, for instances of the same class only
  (`NotImplemented` otherwise, so `a == b` falls back to identity);
- the hash (frozen classes) is the hash of the fields with `hash=True`, or with `compare=True`
  where `hash` is not set; mutable classes are unhashable, as a dataclass with `eq=True` is;
- the repr is `QualName(a=1, b='x')` over the fields with `repr=True`, `...` for a recursive one.
A class that writes its own `__eq__`, `__hash__` or `__repr__` keeps it.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")
_CMP = "__struct_compare__"
_HASH = "__struct_hash__"
_REPR = "__struct_repr__"


def fields_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A C-speed function from an instance to the tuple of its `names` fields."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        get = getattr(self.__class__, _CMP)
        return get(self) == get(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(getattr(self.__class__, _HASH)(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    cls = self.__class__
    body = ", ".join(f"{name}={getattr(self, name)!r}" for name in getattr(cls, _REPR))
    return f"{cls.__qualname__}({body})"


def _share(cls: type[_T], own: set[str], hashable: bool) -> type[_T]:
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    setattr(cls, _CMP, fields_getter(tuple(f.name for f in fields if f.compare)))
    setattr(cls, _REPR, tuple(f.name for f in fields if f.repr))
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    setattr(cls, _HASH, fields_getter(hashed))
    for name, fn in (("__eq__", _eq), ("__repr__", _repr)):
        if name not in own:
            setattr(cls, name, fn)
    if "__hash__" not in own:
        cls.__hash__ = _hash if hashable else None  # type: ignore[assignment]
    return cls


def _own(cls: type) -> set[str]:
    """The special methods the class body itself defines (a class keeps its own). A body that
    defines `__eq__` gets `__hash__ = None` from Python implicitly: that one is not its own (as
    dataclass decides: such a frozen class still gets the fields' hash)."""
    own = {n for n in ("__eq__", "__repr__") if n in cls.__dict__}
    if "__hash__" in cls.__dict__ and not (cls.__dict__["__hash__"] is None and "__eq__" in own):
        own.add("__hash__")
    return own


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type[_T]) -> type[_T]:
    """`@dataclass(frozen=True)`, cheaper to create (see the module's docstring)."""
    own = _own(cls)
    return _share(dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls), own, hashable=True)


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def mutable(cls: type[_T]) -> type[_T]:
    """`@dataclass`, cheaper to create: equality and repr shared, unhashable as a dataclass is."""
    own = _own(cls)
    return _share(dataclasses.dataclass(eq=False, repr=False)(cls), own, hashable=False)
