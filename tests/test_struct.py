"""gpuwise.struct: `@frozen` / `@mutable` behave as `@dataclass(frozen=True)` / `@dataclass`, only
cheaper to create (equality, hash and repr are shared functions instead of exec'd ones)."""

import copy
import dataclasses
import functools
import math
import pickle
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwise.struct import frozen, mutable


def _pair(decorator_std, decorator_ours, body):
    """The same class body under the stdlib decorator and under ours."""
    ns_a, ns_b = {"field": field}, {"field": field}
    exec(body, ns_a)
    exec(body, ns_b)
    return decorator_std(ns_a["C"]), decorator_ours(ns_b["C"])


BODY = """
class C:
    a: int
    b: object = "x"
    c: list = field(default_factory=list, compare=False)
    d: float = field(default=0.0, repr=False)
    e: object = field(default=None, hash=False)
"""

values = st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=5), st.none(), st.tuples(st.integers()))


@given(a1=st.integers(), a2=st.integers(), b1=values, b2=values, d1=st.floats(allow_nan=True), e1=values, e2=values)
def test_frozen_compares_hashes_and_prints_as_a_dataclass(a1, a2, b1, b2, d1, e1, e2):
    std, ours = _pair(dataclass(frozen=True), frozen, BODY)
    for s1, s2 in (
        (std(a1, b1, [1], d1, e1), std(a2, b2, [2], d1, e2)),
        (std(a1, b1, [], d1, e1), std(a1, b1, [3], d1, e1)),
    ):
        o1 = ours(*dataclasses.astuple(s1))
        o2 = ours(*dataclasses.astuple(s2))
        assert (o1 == o2) == (s1 == s2)
        assert (o1 == o1) == (s1 == s1)  # a NaN field: the same object is equal, as tuples compare
        assert repr(o1).replace("ours", "") == repr(s1)
        try:
            expected = hash(s1)
        except TypeError:  # an unhashable field value
            with pytest.raises(TypeError):
                hash(o1)
        else:
            assert hash(o1) == expected


def test_frozen_keeps_the_frozen_guard_replace_fields_and_pickle():
    _, ours = _pair(dataclass(frozen=True), frozen, BODY)
    globals()["C"] = ours  # pickle finds classes by module and name
    ours.__module__, ours.__qualname__ = __name__, "C"
    x = ours(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 2
    assert dataclasses.replace(x, a=3).a == 3
    assert [f.name for f in dataclasses.fields(x)] == ["a", "b", "c", "d", "e"]
    assert dataclasses.asdict(x) == {"a": 1, "b": "x", "c": [], "d": 0.0, "e": None}
    assert pickle.loads(pickle.dumps(x)) == x
    assert (x == 1) is False and x.__eq__(1) is NotImplemented


def test_other_classes_and_subclasses_are_not_equal():
    _, ours = _pair(dataclass(frozen=True), frozen, BODY)

    @frozen
    class Sub(ours):  # type: ignore[misc, valid-type]
        f: int = 0

    assert ours(1) != Sub(1) and Sub(1, f=2) != Sub(1, f=3) and Sub(1) == Sub(1)
    assert repr(Sub(1)).endswith("Sub(a=1, b='x', c=[], e=None, f=0)")


def test_mutable_is_unhashable_and_assignable_like_a_dataclass():
    std, ours = _pair(dataclass, mutable, BODY)
    assert std.__hash__ is None and ours.__hash__ is None
    x = ours(1)
    x.a = 5
    assert x == ours(5) and repr(x).endswith("C(a=5, b='x', c=[], e=None)")


def test_a_class_keeps_its_own_methods():
    @frozen
    class Own:
        a: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

    assert repr(Own(1)) == "own" and Own(1) == Own(2)
    assert hash(Own(1)) == hash((1,))  # an __eq__ of its own: dataclass still adds the fields' hash


def test_a_recursive_repr_does_not_loop():
    @mutable
    class Node:
        child: object = None

    n = Node()
    n.child = n
    assert repr(n).endswith("Node(child=...)")


def test_nan_fields_compare_as_dataclass_tuples():
    std, ours = _pair(dataclass(frozen=True), frozen, BODY)
    nan = math.nan
    assert (ours(1, nan) == ours(1, nan)) == (std(1, nan) == std(1, nan))  # the same object: equal
    assert (ours(1, float("nan")) == ours(1, float("nan"))) == (std(1, float("nan")) == std(1, float("nan")))


TREE = """
@deco
class Base:
    a: int
    k: ClassVar[int] = 7
    scale: InitVar[int] = 1
    b: int = field(init=False, default=0)

    def __post_init__(self, scale):
        object.__setattr__(self, "b", self.a * scale)

class Plain(Base):  # not decorated: inherits the parent's fields, equality, hash and repr
    extra: int = 5

@deco
class Sub(Base):
    c: str = "z"
"""


def _tree(deco):
    ns = {"field": field, "InitVar": dataclasses.InitVar, "ClassVar": ClassVar, "deco": deco}
    exec(TREE, ns)
    return ns


def _seen(obj):
    """What a caller can observe: repr, equality with a twin and with the parent, hash, fields."""
    twin = type(obj)(2, 3, *(["q"] if type(obj).__name__ == "Sub" else []))
    return (
        repr(obj),
        obj == twin,
        hash(obj) == hash(twin),
        hash(obj),
        [f.name for f in dataclasses.fields(obj)],
        type(obj).__match_args__,
        dataclasses.asdict(obj),
    )


@pytest.mark.parametrize(("name", "args"), [("Base", (2, 3)), ("Plain", (2, 3)), ("Sub", (2, 3, "q"))])
def test_inheritance_initvar_classvar_and_post_init_as_a_dataclass(name, args):
    std, ours = _tree(dataclass(frozen=True)), _tree(frozen)
    s, o = std[name](*args), ours[name](*args)
    assert _seen(o) == _seen(s)
    assert o.b == 6 and o.k == 7 and "scale" not in vars(o)  # __post_init__ ran with the InitVar
    assert (ours["Base"](2, 3) == ours["Plain"](2, 3)) is (std["Base"](2, 3) == std["Plain"](2, 3)) is False


def test_copies_replace_match_and_cache_keys():
    ours = _tree(frozen)
    Sub = ours["Sub"]
    x = Sub(2, 3, "q")
    assert copy.copy(x) == x and copy.deepcopy(x) == x and copy.deepcopy(x) is not x
    y = dataclasses.replace(x, c="r", scale=10)  # an InitVar is passed again; init=False fields are recomputed
    assert (y.a, y.b, y.c) == (2, 20, "r")
    with pytest.raises(ValueError, match="init=False"):
        dataclasses.replace(x, b=1)
    match x:
        case Sub(a, c=c):  # __match_args__ starts with the first init field, as dataclass does
            assert (a, c) == (2, "q")
        case _:
            pytest.fail("the class pattern did not match")
    calls = []

    @functools.lru_cache
    def cached(key):
        calls.append(key)
        return key.a

    assert cached(x) == cached(ours["Sub"](2, 3, "q")) == 2 and len(calls) == 1  # an equal twin hits
    assert {x: 1}[ours["Sub"](2, 3, "q")] == 1


def test_an_explicit_hash_is_kept_as_dataclass_keeps_it():
    decorators: tuple[Any, ...] = (dataclass(frozen=True), frozen)
    for deco in decorators:

        class Own:
            a: int

            def __hash__(self) -> int:
                return 42

        class Never:
            a: int
            __hash__ = None  # type: ignore[assignment]

        own, never = deco(Own), deco(Never)
        assert hash(own(1)) == 42
        with pytest.raises(TypeError):
            hash(never(1))


def test_a_mutable_class_cannot_inherit_from_a_frozen_one():
    @frozen
    class Root:
        a: int

    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):

        @mutable
        class Leaf(Root):  # type: ignore[misc]
            b: int = 0
