from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from gpuwise.catalog import Catalog, load_catalog
from gpuwise.catalog.hf_import import load_hf_config

DATA = Path(__file__).parent / "data"
HF_CONFIGS = DATA / "hf_configs"


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


def hf(name: str):
    """A real Hugging Face config.json from tests/data/hf_configs."""
    return load_hf_config(HF_CONFIGS / f"{name}.json")


# CI explores the same examples every run (no flaky property tests); locally hypothesis varies them.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
