"""Hostile text a person (or a fuzzer) may type into any option: one list for the fuzz test and
scripts/fuzz_cli.py. Plausible values are drawn by each caller from the schema."""

import math
from typing import Any


def all_finite(doc: Any) -> bool:
    """True when no float anywhere in a decoded JSON document is NaN or infinite."""
    if isinstance(doc, float):
        return math.isfinite(doc)
    if isinstance(doc, dict):
        return all(all_finite(v) for v in doc.values())
    if isinstance(doc, list):
        return all(all_finite(v) for v in doc)
    return True


HOSTILE_TEXT = [
    "",
    " ",
    "0",
    "-0",
    "-1",
    "1e400",
    "-1e400",
    "1e308",
    "nan",
    "inf",
    "-inf",
    "9" * 400,
    "1.5",
    "x" * 5000,
    "../../etc/passwd",
    "/dev/zero",
    "<script>alert(1)</script>",
    "\u00e9\u4e2d",
    "\x00",
    "true",
    "h100-sxm:0",
    "h100-sxm:-3",
    "h100-sxm:1e9",
    "a10:0",
    "a10:99999999999999999999",
]
