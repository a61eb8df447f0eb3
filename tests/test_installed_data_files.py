"""A normal (non-editable) install ships every data file the package reads.

`pip install .` copies only the files `[tool.setuptools.package-data]` names. The catalog's
per-operator descriptions (catalog/data/operators/*.json) were not named, so an installed gpuwise
estimated resnet-50 without them: 0.085 ms a batch instead of 2.4 ms in a checkout (found by
installing into a throw-away venv, as docs/performance.md "A fast start" describes).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "gpuwise"


def _shipped() -> set[Path]:
    """The files the package-data globs select (setuptools expands them as glob patterns)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["gpuwise"]
    return {p for pattern in patterns for p in PACKAGE.glob(pattern) if p.is_file()}


def _data_files() -> set[Path]:
    """Every file of the package that is not Python code or bytecode."""
    return {
        p
        for p in PACKAGE.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and p.suffix not in (".py", ".pyc")
        and not p.name.startswith(".")
    }


def test_every_data_file_of_the_package_is_installed():
    missing = sorted(str(p.relative_to(PACKAGE)) for p in _data_files() - _shipped())
    assert missing == []


def test_the_operator_descriptions_are_among_them():
    """The case that was missed: the JSON beside the catalog's YAML, one folder down."""
    shipped = {str(p.relative_to(PACKAGE)) for p in _shipped()}
    assert "catalog/data/operators/resnet-50.json" in shipped
    assert "catalog/data/operators/image_decode.yaml" in shipped
