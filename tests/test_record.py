"""The catalog's light records (gpuwise.catalog.record): values that behave like the frozen pydantic
models they replace, and derived validators that refuse what those models refused."""

from __future__ import annotations

import copy
import math
import pickle
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from gpuwise.catalog import load_catalog
from gpuwise.catalog import schema as s
from gpuwise.catalog.record import Field, Record, RecordMeta, fields_of, model_for, validate

CAT = load_catalog()
CLASSES = sorted(
    (
        v
        for v in vars(s).values()
        if isinstance(v, type) and issubclass(v, Record) and v.__module__ == s.__name__ and v.__name__[0] != "_"
    ),
    key=lambda c: c.__name__,
)


class Pair(Record):
    """A record made here: a required field, a plain default, a mutable default, a factory."""

    name: str
    size: float = Field(default=1.0, gt=0)
    tags: list[str] = []  # noqa: RUF012 - the record copies a mutable default per instance
    extra: dict[str, int] = Field(default_factory=dict)


class Outer(Record):
    pair: Pair
    pairs: list[Pair] = Field(default_factory=list)
    note: str | None = None


# ----- values -----------------------------------------------------------------------------------
def test_construction_defaults_and_factories_are_per_instance():
    a, b = Pair(name="a"), Pair(name="b")
    assert (a.name, a.size, a.tags, a.extra) == ("a", 1.0, [], {})
    assert a.tags is not b.tags and a.extra is not b.extra
    with pytest.raises(TypeError, match="missing required field 'name'"):
        Pair()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"no field\(s\) \['colour'\]"):
        Pair(name="a", colour="red")  # type: ignore[call-arg]


def test_equality_and_hash_by_fields():
    a, b = Pair(name="a", tags=["x"], extra={"k": 1}), Pair(name="a", tags=["x"], extra={"k": 1})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Pair(name="a", tags=["y"])
    assert a != "a" and Outer(pair=a) != a  # another type is never equal
    assert s.Source(title="t") != s.OfferSource(title="t")  # a subclass with the same values neither


class Bag(Record):
    """A set in a field, or deep in a dict (YAML's !!set, a caller's own value)."""

    names: set[int] = Field(default_factory=set)
    doc: dict[str, Any] = Field(default_factory=dict)


def test_equal_records_with_sets_hash_alike():
    """1 and 9 share a slot of a small set: added in the other order they iterate the other way, so
    a hash over the set's iteration order differed for equal records."""
    one_nine, nine_one = set(), set()
    for x in (1, 9):
        one_nine.add(x)
    for x in (9, 1):
        nine_one.add(x)
    assert list(one_nine) != list(nine_one)  # the premise: equal sets, different orders
    a, b = Bag(names=one_nine, doc={"k": [one_nine]}), Bag(names=nine_one, doc={"k": [nine_one]})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


def test_records_are_frozen_and_hold_no_dict():
    a = Pair(name="a")
    with pytest.raises(AttributeError, match="frozen"):
        a.name = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="frozen"):
        del a.name
    assert not hasattr(a, "__dict__")  # __slots__ only
    assert a.name == "a"


def test_repr_and_str_name_the_fields():
    assert repr(Pair(name="a")) == "Pair(name='a', size=1.0, tags=[], extra={})"
    assert str(s.Source(title="t")) == "title='t' url=None date=None accessed=None"  # pydantic's str


def test_pickle_and_copy_round_trip():
    o = Outer(pair=Pair(name="a", tags=["x"]), pairs=[Pair(name="b")], note="n")
    again = pickle.loads(pickle.dumps(o, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == o and type(again.pair) is Pair
    deep = copy.deepcopy(o)
    assert deep == o and deep.pair.tags is not o.pair.tags
    assert pickle.loads(pickle.dumps(CAT)) == CAT  # the whole catalog, as the cache stores it


def test_model_copy_replaces_fields_without_touching_the_original():
    a = Pair(name="a", tags=["x"])
    b = a.model_copy(update={"size": 2.0})
    assert (b.name, b.size, b.tags) == ("a", 2.0, ["x"]) and a.size == 1.0
    assert b.tags is a.tags  # shallow, as pydantic's
    assert a.model_copy(deep=True).tags is not a.tags
    with pytest.raises(TypeError, match="colour"):
        a.model_copy(update={"colour": "red"})


def test_model_dump_is_recursive_with_pydantic_meaning():
    o = Outer(pair=Pair(name="a", tags=["x"]), pairs=[Pair(name="b"), Pair(name="c")])
    assert o.model_dump() == {
        "pair": {"name": "a", "size": 1.0, "tags": ["x"], "extra": {}},
        "pairs": [
            {"name": "b", "size": 1.0, "tags": [], "extra": {}},
            {"name": "c", "size": 1.0, "tags": [], "extra": {}},
        ],
        "note": None,
    }
    assert o.model_dump(exclude={"pairs"}, exclude_none=True) == {
        "pair": {"name": "a", "size": 1.0, "tags": ["x"], "extra": {}}
    }
    nested = o.model_dump(exclude={"pair": {"tags", "extra"}, "pairs": {"__all__": {"size"}, 1: True}})
    assert nested == {
        "pair": {"name": "a", "size": 1.0},
        "pairs": [{"name": "b", "tags": [], "extra": {}}],
        "note": None,
    }
    dumped = o.model_dump()
    dumped["pair"]["tags"].append("y")
    assert o.pair.tags == ["x"]  # the dump holds copies of the containers


EXCLUDES: list[Any] = [
    {"pairs": {"__all__": {"size"}, 0: {"tags"}}},  # merged: pairs[0] loses size and tags
    {"pairs": {"__all__": {"size"}, 0: True}},  # the item's True wins
    {"pairs": {"__all__": True, 1: {"extra"}}},  # an item's own exclude beats __all__'s True
    {"pairs": {"__all__": {"extra": True}, 0: {"extra": True, "name": True}}},
    {"pairs": {"__all__": ..., 0: {"name"}}},  # ... means True, as in pydantic
    {"pair": ..., "pairs": {1: ...}},
    {"__all__": {"name"}},  # for every field: a nested exclude on a record and a list alike
]


@pytest.mark.parametrize("exclude", EXCLUDES)
def test_model_dump_merges_all_as_pydantic_does(exclude):
    """pydantic merges a key's own nested exclude with `__all__`'s; the records used only the key's."""
    o = Outer(pair=Pair(name="a", tags=["x"]), pairs=[Pair(name="b", tags=["y"]), Pair(name="c", extra={"k": 1})])
    pyd = model_for(Outer).model_validate(o.model_dump())
    assert o.model_dump(exclude=exclude) == pyd.model_dump(exclude=exclude)


def test_dumps_equal_pydantics_own_for_every_catalog_entry():
    """Every catalog record dumps as the derived pydantic model dumps the same data, with and without
    exclude_none, so callers of model_dump see what they saw before."""
    for rec in _records(CAT):
        model = model_for(type(rec)).model_validate(rec.model_dump())
        assert rec.model_dump() == model.model_dump(), type(rec).__name__
        assert rec.model_dump(exclude_none=True) == model.model_dump(exclude_none=True), type(rec).__name__
    gpu = CAT.gpu("h100-sxm")
    pyd = model_for(s.GPU).model_validate(gpu.model_dump())
    exclude: Any = {"price": {"list_usd"}, "identity": True}
    assert gpu.model_dump(exclude=exclude) == pyd.model_dump(exclude=exclude)


def test_methods_and_properties_work_as_written():
    gpu = s.GPU(
        id="x",
        name="X",
        vendor="v",
        architecture="a",
        memory_bytes=80,
        memory_type="hbm3",
        memory_bandwidth=1.0,
        peak_flops={"bf16": 1.0},
        tdp_watts=700,
        form_factor="sxm",
        interconnect=s.GpuLink(nvlink=4, bandwidth=9e11),
        mig_max_instances=7,
        node_gpus=8,
        source="ds",
        field_sources={"price": "list", "price.list_usd": "quote"},
        identity=s.GpuIdentity(nvml=["X"], sources=["ids"]),
    )
    assert gpu.link_id == "nvlink4" and gpu.capacity_bytes == 80
    assert gpu.source_of("price.list_usd") == "quote" and gpu.source_of("price.cloud_usd_per_gpu_hour") == "list"
    assert gpu.source_of("memory_bytes") == "ds"
    assert gpu.source_ids() == {"ds", "list", "quote", "ids"}  # super().source_ids() plus the identity's
    assert gpu.price == s.Price()  # the default factory
    engine = s.EngineProfile(
        name="e",
        source="doc",
        memory_basis="total",
        kv_block_tokens=16,
        token_budget=8192,
        max_seqs=256,
        small_gpu_bytes=32,
        small_gpu_token_budget=2048,
        small_gpu_max_seqs=None,
    )
    assert engine.budget(16) == (2048, None) and engine.budget(80) == (8192, 256)
    assert engine.matmul_efficiency == 1.0 and engine.step_overhead_seconds == 0.0  # plain defaults


def test_class_variables_are_not_fields_and_lazy_annotations_are_refused():
    class WithClassVar(Record):
        kinds: typing.ClassVar[tuple[str, ...]] = ("a", "b")
        kind: str = "a"

    assert list(fields_of(WithClassVar)) == ["kind"] and WithClassVar.kinds == ("a", "b")
    with pytest.raises(TypeError, match="from __future__ import annotations"):
        RecordMeta("Lazy", (Record,), {"__annotate__": lambda _format: {"x": int}})


def test_fields_follow_the_base_classes_first():
    assert list(fields_of(s.OfferSource)) == ["title", "url", "date", "accessed", "date_basis"]
    assert list(fields_of(s.GPU))[:2] == ["source", "field_sources"]
    assert s.OfferSource.__slots__ == ("date_basis",)  # each class holds only its own slots


# ----- validation: what the pydantic models refused, the derived ones refuse --------------------
def _records(value: Any) -> Iterator[Record]:
    """Every record inside a catalog value (recursively)."""
    if isinstance(value, Record):
        yield value
        for v in value._values():
            yield from _records(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _records(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _records(v)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield from _records(getattr(value, name))


# classes the catalog reads but does not keep (collectives.yaml's no_p2p_gpus is read raw; the
# fitted efficiencies are folded into each Framework): values as in their files
HAND_MADE: dict[type[Record], dict[str, Any]] = {
    s.NoP2P: {"gpus": ["rtx-4090"], "source": "x"},
    s.FittedEfficiency: {"value": 0.79, "cases": 17, "sources": ["x"], "pooled": False},
}


def _example(cls: type[Record]) -> dict[str, Any]:
    """A valid input for `cls`: a packaged entry of that class, dumped, or a hand-made one."""
    if cls in HAND_MADE:
        return HAND_MADE[cls]
    found = next((r for r in _records(CAT) if type(r) is cls), None)
    if found is None:
        pytest.fail(f"no packaged {cls.__name__} in the catalog: add one to HAND_MADE")
    return found.model_dump()


def test_every_catalog_class_appears_in_the_table():
    assert len(CLASSES) >= 20
    for cls in CLASSES:
        assert validate(cls, _example(cls)) is not None


def test_a_packaged_entry_round_trips_through_validate():
    for cls in CLASSES:
        data = _example(cls)
        rec = validate(cls, data)
        assert type(rec) is cls and rec.model_dump() == {**rec.model_dump(), **data}  # hand-made ones omit defaults
        assert validate(cls, rec.model_dump()) == rec
        assert all(type(r).__module__ == s.__name__ for r in _records(rec))  # nested models became records


def _bad_values(cls: type[Record]) -> Iterator[tuple[str, Any]]:
    """(field, a value the declaration refuses): below gt/ge, above lt/le, empty under min_length,
    a word outside a Literal, NaN and infinity for a number."""
    hints = typing.get_type_hints(cls)
    for name, info in fields_of(cls).items():
        c = info.constraints
        if "gt" in c:
            yield name, c["gt"]
        if "ge" in c:
            yield name, c["ge"] - 1
        if "le" in c:
            yield name, c["le"] + 1
        if c.get("min_length") == 1:
            yield name, [] if "list" in str(hints[name]) else ""
        text = str(hints[name])
        if "Literal" in text:
            yield name, "no-such-choice"
        if "float" in text:
            yield name, math.nan
            yield name, math.inf


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_the_derived_validator_refuses_bad_values(cls):
    base = _example(cls)
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        validate(cls, {**base, "no_such_key": 1})
    cases = list(_bad_values(cls))
    for name, bad in cases:
        with pytest.raises(ValidationError) as err:
            validate(cls, {**base, name: bad})
        assert err.value.errors()[0]["loc"][:1] == (name,), (cls.__name__, name, bad)
    required = [n for n, f in fields_of(cls).items() if f.required]
    for name in required:
        with pytest.raises(ValidationError, match="Field required"):
            validate(cls, {k: v for k, v in base.items() if k != name})


def test_the_bad_value_table_is_not_empty_where_constraints_exist():
    assert ("memory_bandwidth", 0) in list(_bad_values(s.GPU))
    assert ("kind", "no-such-choice") in list(_bad_values(s.Interconnect))
    assert ("price_per_hour", math.inf) in list(_bad_values(s.Offer))


def test_cross_field_checks_run_inside_validation_with_their_messages():
    gpu = _example(s.GPU)
    with pytest.raises(ValidationError, match=r"unknown dtype\(s\) in peak_flops: \['fp3'\]"):
        validate(s.GPU, {**gpu, "peak_flops": {"fp3": 1.0}})
    with pytest.raises(ValidationError) as err:  # a nested record's check keeps its location
        validate(s.GPU, {**gpu, "identity": {"pci": ["0x2330"], "sources": ["x"]}})
    assert err.value.errors()[0]["loc"] == ("identity",)
    assert "lower-case hex" in err.value.errors()[0]["msg"]
    offer = _example(s.Offer)
    with pytest.raises(ValidationError, match="YYYY-MM"):
        validate(s.Offer, {**offer, "date": "last week"})


def test_lax_coercion_as_pydantic_does():
    rec = validate(s.Pcie, {"generation": "5", "lanes": 16.0})
    assert (rec.generation, rec.lanes) == (5, 16) and type(rec.lanes) is int
    assert type(validate(s.GpuLink, {"bandwidth": 900}).bandwidth) is float


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_positive_field_accepts_exactly_finite_positive_numbers(x):
    ok = math.isfinite(x) and x > 0
    try:
        rec = validate(s.GpuLink, {"bandwidth": x})
    except ValidationError:
        assert not ok
    else:
        assert ok and rec.bandwidth == x
