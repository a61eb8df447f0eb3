"""gpuwise.struct: `@frozen` / `@mutable` behave as `@dataclass(frozen=True)` / `@dataclass`, only
cheaper to create (equality, hash and repr are shared functions instead of exec'd ones)."""

import dataclasses
import math
import pickle
from dataclasses import dataclass, field

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
        x.a = 2  # type: ignore[misc]
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
