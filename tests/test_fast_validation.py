"""The light validator (gpuwise.workload.fast) against the pydantic models it stands in for.

The property, over every field of every model the CLI and YAML doors validate: when the light
validator accepts an input, the model accepts it and holds the same values (types included); it
never accepts what the model refuses; and `check` gives the model's own error message. The values
are drawn from valid and invalid text, numbers, bools and lists, the schema's examples, choices and
bounds. A second part shows the fast path is taken for the values people type, so the saving is real.
"""

from __future__ import annotations

import collections
import decimal
import enum
import fractions
import math
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from corpus.hostile import HOSTILE_TEXT
from gpuwise.errors import UsageError
from gpuwise.workload import fast, schema, table
from gpuwise.workload.table import MODELS, Rule

MODEL_CLASSES: dict[str, type[BaseModel]] = {name: getattr(schema, cls) for name, cls in MODELS.items()}
PAIRS = [(model, name) for model, cls in MODEL_CLASSES.items() for name in cls.model_fields]
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FIELD_INFO = {f.name: f for f in schema.all_fields()}


def _bound_values(rule: Rule) -> list[Any]:
    """Each bound, a hair and a step either side, as numbers and as text."""
    out: list[Any] = []
    for b in (rule.ge, rule.gt, rule.le, rule.lt):
        if b is None:
            continue
        near = [b, b - 1, b + 1, b * (1 + 1e-12), b * (1 - 1e-12), -b]
        out += near + [int(b) for b in near if math.isfinite(b)]
        out += [str(v) for v in near] + [repr(float(v)) for v in near] + [str(int(b)), f" {int(b)} "]
    return out


def _length_values(rule: Rule) -> list[Any]:
    out: list[Any] = []
    for n in (rule.min_length, rule.max_length, rule.item_max_length):
        if n is not None:
            out += ["a" * n, "a" * (n + 1), "😀" * n, "😀" * (n + 1), ["a"] * n, ["a"] * (n + 1), ",".join("a" * n)]
    return out


def _choice_values(rule: Rule) -> list[Any]:
    choices = sorted(rule.choices or ())
    out: list[Any] = []
    for c in choices:
        out += [c, c.upper(), f" {c} ", c + "x", [c], [c.upper(), f" {c}"], f"{c},{c}", c.encode()]
    if choices:
        out += [",".join(choices), list(choices), tuple(choices), choices * 30, ",".join(choices * 30), set(choices)]
    return out


def _special_values(model: str, name: str) -> list[Any]:
    """The schema's own example, choices, bounds and lengths for one field, and their near misses."""
    rule = table.rules(model).fields[name]
    example = FIELD_INFO[name].example
    out = [example, str(example), None, [example], [str(example)], *_bound_values(rule)]
    return out + _length_values(rule) + _choice_values(rule)


TEXT = st.one_of(
    st.sampled_from(
        [*HOSTILE_TEXT, "\ud800", "a\udcffb", "p99", "P95", "99.0", "2T", "1.5m", "120KB", "2GB/s", "4gbps", "$50,000"]
    ),
    st.sampled_from(["1_000", "+5", "007", "5 ", " 5", "1.0", "1e3", "٣", "0x10", "true", "off", "USD", "usd\n"]),
    st.from_regex(
        r"\s?[+-]?[0-9]{1,20}(\.[0-9]{0,3})?(e[+-]?[0-9]{1,3})?\s?([kKmMbBgGtT]|[kKmMgG]i?B)?(/s)?", fullmatch=True
    ),
    st.text(max_size=12),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=4),
)
LOOSE = st.one_of(TEXT, SCALARS, st.lists(st.one_of(TEXT, SCALARS), max_size=4), st.tuples(TEXT, TEXT))


def _value(model: str, name: str) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(_special_values(model, name)), LOOSE)


def _same(fast_values: fast.Values, ref: BaseModel, model: str) -> None:
    """Equal values, of equal types, under every name; equal dumps and equal sets of given fields."""
    for name in MODEL_CLASSES[model].model_fields:
        mine, theirs = getattr(fast_values, name), getattr(ref, name)
        assert (type(mine), mine) == (type(theirs), theirs), name
        if isinstance(mine, list):
            assert [type(x) for x in mine] == [type(x) for x in theirs], name
    assert fast_values.model_dump() == ref.model_dump()
    assert fast_values.model_dump(exclude_none=True) == ref.model_dump(exclude_none=True)
    assert fast_values.model_fields_set == ref.model_fields_set


def _agree(model: str, opts: dict[str, Any]) -> bool:
    """The property for one input; True when the light validator decided it itself."""
    cls = MODEL_CLASSES[model]
    light = fast.light(table.rules(model), opts)
    try:
        ref = cls.model_validate(dict(opts))
    except ValidationError:
        assert light is None, f"the light validator accepted what {cls.__name__} refuses: {opts!r}"
        with pytest.raises(UsageError) as mine:
            fast.check(model, opts)  # type: ignore[call-overload]
        with pytest.raises(UsageError) as theirs:
            schema.validate(cls, opts)
        assert str(mine.value) == str(theirs.value)
        return False
    if light is not None:
        _same(light, ref, model)
    return light is not None


@pytest.mark.parametrize(("model", "name"), PAIRS)
def test_one_field_agrees_with_the_model(model, name):
    @SETTINGS
    @given(_value(model, name))
    def prop(value: Any) -> None:
        _agree(model, {name: value})

    prop()


@pytest.mark.parametrize("model", list(MODELS))
def test_several_fields_agree_with_the_model(model):
    names = list(MODEL_CLASSES[model].model_fields)

    @st.composite
    def inputs(draw: Any) -> dict[str, Any]:
        keys = draw(st.lists(st.sampled_from([*names, "micro-batch", "nonsense"]), max_size=6, unique=True))
        return {k: draw(_value(model, k) if k in names else LOOSE) for k in keys}

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(inputs())
    def prop(opts: dict[str, Any]) -> None:
        _agree(model, opts)

    prop()


def _typed(name: str) -> list[Any]:
    """The schema's example of a field as each door hands it over: flag text (a bool for a switch),
    and the YAML value."""
    example = FIELD_INFO[name].example
    text = example if isinstance(example, bool) else str(example)
    return [text, example]


@pytest.mark.parametrize(("model", "name"), PAIRS)
def test_the_fast_path_takes_the_values_people_type(model, name):
    """Each field's example, as flag text and as a YAML value, is decided without a model."""
    for value in _typed(name):
        assert _agree(model, {name: value}), (name, value)


def test_a_hand_computed_input():
    v = fast.check(
        "workload",
        {"method": " LoRA", "micro_batch": "4", "tokens": "2T", "lora_targets": "Q_proj, v_proj,", "decode_ms": "1.5"},
    )
    assert isinstance(v, fast.Values)
    assert (v.method, v.micro_batch, v.tokens, v.lora_targets, v.decode_ms) == (
        "lora",
        4,
        2e12,
        ["q_proj", "v_proj"],
        1.5,
    )
    assert v.seq is None and v.model_fields_set == {"method", "micro_batch", "tokens", "lora_targets", "decode_ms"}
    r = fast.check("requirements", {"percentile": "P95", "currency": " cny", "budget": "$50,000", "gpus": "H100-SXM"})
    assert isinstance(r, fast.Values)
    assert (r.percentile, r.currency, r.budget, r.gpus) == ("95", "CNY", 50000.0, ["h100-sxm"])


def test_a_refused_value_gets_the_models_message():
    with pytest.raises(UsageError, match=r"--micro-batch must be at least 1; got '0'"):
        fast.check("workload", {"micro_batch": "0"})
    with pytest.raises(
        UsageError, match=r"--method must be one of full, lora, qlora; got 'lorra' \(did you mean 'lora'\?\)"
    ):
        fast.check("workload", {"method": "lorra"})
    with pytest.raises(UsageError, match=r"unknown workload field\(s\): 'micro_batc' \(did you mean 'micro_batch'\?\)"):
        fast.check("workload", {"micro_batc": 2})


def test_a_value_it_does_not_handle_goes_to_the_model():
    """'2.0' is a whole number to pydantic; the light validator leaves such text to it."""
    v = fast.check("workload", {"micro_batch": "2.0"})
    assert isinstance(v, schema.WorkloadFields) and v.micro_batch == 2


def test_a_model_validator_makes_the_model_decide():
    """A model with a validator the rules do not reproduce is never decided by them."""
    from pydantic import model_validator

    from gpuwise.workload.table_build import model_rules

    class Checked(schema.StrictFields):
        a: int | None = None

        @model_validator(mode="after")
        def _never(self) -> Checked:
            raise ValueError("no")

    rules = model_rules(Checked)
    assert not rules.fast and fast.light(rules, {"a": "1"}) is None
    assert model_rules(schema.WorkloadFields).fast


PROBE = """
import sys
from gpuwise.workload.fast import check
check("workload", {"method": "lora", "micro_batch": "2", "tokens": "2T", "lora_targets": "q_proj,v_proj"})
check("hardware", {"gpu": "a100-80gb-sxm:1", "gpus_per_node": None, "network": None})
check("target", {"qps": "5", "ttft_ms": "800", "percentile": "p95"})
check("requirements", {"deadline": "30d", "budget": "1e6", "objective": "cost", "gpus": "a100-80gb-sxm,h100-sxm"})
print(sorted(m for m in sys.modules if m.startswith(("pydantic", "gpuwise.workload.schema"))))
"""


def test_warm_validation_imports_no_pydantic(tmp_path):
    """The workload side alone: a warm process validates CLI values without importing pydantic."""
    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for _ in range(2):  # the first run fills the cache
        proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


class _Text(str):
    pass


class _Whole(int):
    pass


class _Real(float):
    pass


class _Method(enum.StrEnum):
    lora = "lora"


class _Four(enum.IntEnum):
    four = 4


# What the strategies above never draw: subclasses of the plain types (enums, numpy-like scalars),
# other number types, mappings, byte arrays, and text the coercions or int() read loosely.
UNDRAWN: list[Any] = [
    _Text("lora"),
    _Text("4"),
    _Whole(4),
    _Real(4.0),
    _Method.lora,
    _Four.four,
    decimal.Decimal("4"),
    fractions.Fraction(4),
    {"a": 1},
    bytearray(b"4"),
    collections.UserString("4"),
    "４",  # a full-width digit: float() reads it, pydantic's int parser does not
    "١٢",
    "4\n",
    "\t4",
    "1__0",
    "0b11",
    "0o7",
    "4.",
    ".5",
    "5e-0",
    "INF",
    "-0",
    "+0",
    "00",
    " +4 ",
]


@pytest.mark.parametrize(("model", "name"), PAIRS)
def test_values_the_strategies_do_not_draw_agree_with_the_model(model, name):
    for value in UNDRAWN:
        _agree(model, {name: value})
