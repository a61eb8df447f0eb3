"""Sourced data: GPUs, interconnects, models, conventions; and Hugging Face config import.

Data live in YAML package files (`data/`); every value resolves to a source with a date.
"""

from __future__ import annotations

from gpuwise.catalog.arch import GenericArch, ModelArch, Operator, TransformerArch, embedding_sharded
from gpuwise.catalog.identity import identify
from gpuwise.catalog.loader import Catalog, load_catalog
from gpuwise.catalog.schema import GPU, Convention, GpuIdentity, Interconnect, ModelEntry, Source

__all__ = [
    "GPU",
    "Catalog",
    "Convention",
    "GenericArch",
    "GpuIdentity",
    "Interconnect",
    "ModelArch",
    "ModelEntry",
    "Operator",
    "Source",
    "TransformerArch",
    "embedding_sharded",
    "identify",
    "load_catalog",
]
