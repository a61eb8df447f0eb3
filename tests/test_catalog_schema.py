"""The catalog's shapes (gpuwise.catalog.schema): what validating a file refuses, the cross-field
rules and their messages, and the methods the estimators call."""

from __future__ import annotations

import dataclasses
import math
import pickle
import typing
from collections.abc import Iterator
from typing import Any

import annotated_types as at
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from gpuwise.catalog import load_catalog
from gpuwise.catalog import schema as s
from gpuwise.catalog.schema import validate

CAT = load_catalog()
CLASSES = sorted(
    (
        v
        for v in vars(s).values()
        if dataclasses.is_dataclass(v) and isinstance(v, type) and v.__module__ == s.__name__ and v.__name__[0] != "_"
    ),
    key=lambda c: c.__name__,
)
# classes the catalog reads but does not keep (collectives.yaml's no_p2p_gpus is read raw; the
# fitted efficiencies are folded into each Framework): values as in their files
HAND_MADE: dict[type, dict[str, Any]] = {
    s.NoP2P: {"gpus": ["rtx-4090"], "source": "x"},
    s.FittedEfficiency: {"value": 0.79, "cases": 17, "sources": ["x"], "pooled": False},
    s.FittedOverheads: {
        "matmul_efficiency": 0.69,
        "layer_overhead_seconds": 7.8e-05,
        "request_overhead_seconds": 0.0056,
        "cases": 208,
        "groups": 13,
        "held_out": {"mean_ttft_seconds": {"cases": 48, "median_abs_error": 0.11, "bias": 0.009}},
    },
}


def _shapes(value: Any) -> Iterator[Any]:
    """Every catalog shape inside a catalog value (recursively)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if type(value).__module__ == s.__name__:
            yield value
        for f in dataclasses.fields(value):
            yield from _shapes(getattr(value, f.name))
    elif isinstance(value, dict):
        for v in value.values():
            yield from _shapes(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _shapes(v)


def _example(cls: type) -> dict[str, Any]:
    """A valid input for `cls`: a packaged entry of that class as plain data, or a hand-made one."""
    if cls in HAND_MADE:
        return HAND_MADE[cls]
    found = next((r for r in _shapes(CAT) if type(r) is cls), None)
    if found is None:
        pytest.fail(f"no packaged {cls.__name__} in the catalog: add one to HAND_MADE")
    return dataclasses.asdict(found)


def test_every_catalog_class_round_trips_through_validate():
    assert len(CLASSES) >= 20
    for cls in CLASSES:
        data = _example(cls)
        rec = validate(cls, data)
        assert type(rec) is cls and dataclasses.asdict(rec) == {**dataclasses.asdict(rec), **data}
        assert validate(cls, dataclasses.asdict(rec)) == rec
        assert all(type(r).__module__ == s.__name__ for r in _shapes(rec))  # nested shapes too


def _bad_values(cls: type) -> Iterator[tuple[str, Any]]:
    """(field, a value the declaration refuses): below Gt/Ge, above Le, empty under MinLen(1), a
    word outside a Literal, NaN and infinity for a number."""
    hints = typing.get_type_hints(cls, include_extras=True)
    for f in dataclasses.fields(cls):
        text = str(hints[f.name])
        hint = hints[f.name]
        members = (hint,) if hasattr(hint, "__metadata__") else typing.get_args(hint)  # X or X | None
        for member in members:
            for m in getattr(member, "__metadata__", ()):
                if isinstance(m, at.Gt):
                    yield f.name, m.gt
                if isinstance(m, at.Ge):
                    yield f.name, m.ge - 1  # type: ignore[operator]
                if isinstance(m, at.Le):
                    yield f.name, m.le + 1  # type: ignore[operator]
                if isinstance(m, at.MinLen) and m.min_length == 1:
                    yield f.name, [] if "list" in text else ""
        if "Literal" in text:
            yield f.name, "no-such-choice"
        if "float" in text:
            yield f.name, math.nan
            yield f.name, math.inf


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_validation_refuses_bad_values_naming_the_field(cls):
    base = _example(cls)
    with pytest.raises(ValidationError) as err:
        validate(cls, {**base, "no_such_key": 1})
    assert err.value.errors()[0]["loc"] == ("no_such_key",)
    for name, bad in _bad_values(cls):
        with pytest.raises(ValidationError) as err:
            validate(cls, {**base, name: bad})
        assert err.value.errors()[0]["loc"][:1] == (name,), (cls.__name__, name, bad)
    required = [f.name for f in dataclasses.fields(cls) if f.default is f.default_factory is dataclasses.MISSING]
    for name in required:
        with pytest.raises(ValidationError, match="required"):
            validate(cls, {k: v for k, v in base.items() if k != name})


def test_the_bad_value_table_is_not_empty_where_constraints_exist():
    assert ("memory_bandwidth", 0) in list(_bad_values(s.GPU))
    assert ("memory_usable_bytes", 0) in list(_bad_values(s.GPU))  # a bound on an optional field
    assert ("kind", "no-such-choice") in list(_bad_values(s.Interconnect))
    assert ("price_per_hour", math.inf) in list(_bad_values(s.Offer))
    assert ("sources", []) in list(_bad_values(s.GpuIdentity))


def test_cross_field_rules_run_inside_validation_with_their_messages():
    gpu = _example(s.GPU)
    with pytest.raises(ValidationError, match=r"unknown dtype\(s\) in peak_flops: \['fp3'\]"):
        validate(s.GPU, {**gpu, "peak_flops": {"fp3": 1.0}})
    with pytest.raises(ValidationError) as err:  # a nested shape's rule keeps its location
        validate(s.GPU, {**gpu, "identity": {"pci": ["0x2330"], "sources": ["x"]}})
    assert err.value.errors()[0]["loc"] == ("identity",)
    assert "lower-case hex" in err.value.errors()[0]["msg"]
    offer = _example(s.Offer)
    with pytest.raises(ValidationError, match="YYYY-MM"):
        validate(s.Offer, {**offer, "date": "last week"})
    framework = _example(s.Framework)
    with pytest.raises(ValidationError, match=r"gradient_bytes needs every training precision; missing \['fp8'\]"):
        validate(s.Framework, {**framework, "gradient_bytes": {k: 2 for k in ("fp32", "tf32", "fp16", "bf16")}})


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
    assert gpu.source_ids() == {"ds", "list", "quote", "ids"}  # the base's sources plus the identity's
    assert gpu.price == s.Price()  # the default factory
    with pytest.raises(dataclasses.FrozenInstanceError):
        gpu.id = "y"  # type: ignore[misc]
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
    assert engine.matmul_efficiency == 1.0 and engine.layer_overhead_seconds == 0.0  # plain defaults


def test_fields_follow_the_base_classes_first():
    """The JSON views (`gpuwise prices --json`) list a shape's fields in this order."""
    assert [f.name for f in dataclasses.fields(s.OfferSource)] == ["title", "url", "date", "accessed", "date_basis"]
    assert [f.name for f in dataclasses.fields(s.GPU)][:2] == ["source", "field_sources"]


def test_the_whole_catalog_pickles_as_the_cache_stores_it():
    again = pickle.loads(pickle.dumps(CAT, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == CAT and type(again.gpus["a10"]) is s.GPU
