"""How the schema reads loose values (flag text, YAML scalars): its bounds and its coercions.

The pydantic models (gpuwise.workload.schema) run these functions as BeforeValidators; the light
validator (gpuwise.workload.fast) runs the same functions, found by name in COERCIONS, so both
read '2T', '120KB', 'p99' or 'a,b' alike. Standard library and gpuwise.units only: a warm start
imports this module without pydantic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuwise.units import parse_bytes, parse_count

# Input bounds: far beyond any real job, small enough that no arithmetic overflows.
MAX_COUNT = 10**15  # tokens or samples in one training run
MAX_BATCH = 1 << 20
MAX_SEQ = 1 << 24
MAX_DEGREE = 1 << 16  # tp, pp, GPUs per node, GPU count
MAX_QPS = 1e7
MAX_MS = 1e9
# Integers up to this convert to float (and back) exactly: the light validator and the rules it
# is built from only treat such numbers as pydantic does.
EXACT_INT = 2**53


def lower(value: Any) -> Any:
    """Choices are matched without case or surrounding blanks ('LoRA ' is lora)."""
    return value.strip().lower() if isinstance(value, str) else value


def upper(value: Any) -> Any:
    """Currency codes are upper case however they are typed."""
    return value.strip().upper() if isinstance(value, str) else value


def names_list(value: Any) -> Any:
    """'a,b' or ['a', 'b'] -> ['a', 'b'] (lower-cased, blanks dropped); anything else for the type check."""
    if isinstance(value, str):
        value = value.split(",")
    if isinstance(value, list | tuple):
        return [str(x).strip().lower() for x in value if str(x).strip()]
    return value


def count(value: Any) -> Any:
    """'2T', '300B', '1.5M' -> a number; numbers pass to the bound checks."""
    return parse_count(value) if isinstance(value, str) else value


def size(value: Any) -> Any:
    """'2GB/s', '120KB', 2e9 -> bytes (per second for bandwidths)."""
    if isinstance(value, str):
        return float(parse_bytes(value.strip().removesuffix("/s").removesuffix("ps")))
    return value


def number(value: Any) -> Any:
    """'$50,000', '2x', '1.5' -> a number (money and factors are typed by people)."""
    if isinstance(value, str):
        text = value.strip().lower().replace(",", "").replace("$", "").removesuffix("usd").removesuffix("x")
        try:
            return float(text.strip())
        except ValueError:
            raise ValueError(f"not a number: {value!r}") from None
    return value


def percentile(value: Any) -> Any:
    """99, 99.0, 'p99', 'P99' -> '99' (a percentile is one of a few names, typed many ways)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value.strip().lower().removeprefix("p").removesuffix(".0")
    return value


# The names the field table records for each coercion (a function not listed here is one the light
# validator does not know: its field is always validated by pydantic).
COERCIONS: dict[str, Callable[[Any], Any]] = {
    "lower": lower,
    "upper": upper,
    "names": names_list,
    "count": count,
    "bytes": size,
    "number": number,
    "percentile": percentile,
}

__all__ = [
    "COERCIONS",
    "EXACT_INT",
    "MAX_BATCH",
    "MAX_COUNT",
    "MAX_DEGREE",
    "MAX_MS",
    "MAX_QPS",
    "MAX_SEQ",
    "count",
    "lower",
    "names_list",
    "number",
    "percentile",
    "size",
    "upper",
]
