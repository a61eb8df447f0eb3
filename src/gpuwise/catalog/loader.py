"""Load the YAML catalogs from package data into typed, validated, immutable objects.

Catalogs are values passed into the estimators and the planner (no global state to patch in
tests); `load_catalog()` caches the packaged one because it never changes at run time.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from gpuwise.catalog.arch import GenericArch, ModelArch
from gpuwise.catalog.hf_import import arch_from_hf_config, load_hf_config
from gpuwise.catalog.schema import GPU, Convention, DefaultNetwork, Interconnect, ModelEntry, Source
from gpuwise.errors import ConfigError, UnknownNameError

_FILES = ("gpus.yaml", "interconnects.yaml", "models.yaml", "conventions.yaml", "costs.yaml")


@dataclass(frozen=True)
class Catalog:
    sources: Mapping[str, Source]
    gpus: Mapping[str, GPU]
    interconnects: Mapping[str, Interconnect]
    models: Mapping[str, ModelEntry]
    conventions: Mapping[str, Convention]
    default_networks: tuple[DefaultNetwork, ...] = ()
    costs: Mapping[str, Convention] = field(default_factory=dict)

    # ----- lookups with "did you mean" ---------------------------------------------
    def gpu(self, gpu_id: str) -> GPU:
        key = gpu_id.strip().lower()
        if key not in self.gpus:
            raise UnknownNameError("gpu", gpu_id, self.gpus)
        return self.gpus[key]

    def interconnect(self, link_id: str) -> Interconnect:
        if link_id not in self.interconnects:
            raise UnknownNameError("interconnect", link_id, self.interconnects)
        return self.interconnects[link_id]

    def model_entry(self, model_id: str) -> ModelEntry:
        key = model_id.strip().lower()
        if key not in self.models:
            raise UnknownNameError("model", model_id, self.models)
        return self.models[key]

    def model(self, name_or_path: str) -> ModelArch:
        """A catalog id, or a path to a Hugging Face config.json (or its folder)."""
        p = Path(name_or_path)
        if name_or_path.endswith(".json") or p.is_dir() or p.is_file():
            return load_hf_config(p)
        return arch_of(self.model_entry(name_or_path))

    def default_network(self, gpu: GPU) -> DefaultNetwork:
        """The first matching rule; the file ends with a catch-all."""
        return next(n for n in self.default_networks if n.matches(gpu))

    def convention(self, key: str) -> float:
        return self.conventions[key].value

    def source(self, source_id: str) -> Source:
        return self.sources[source_id]

    def cite(self, source_id: str) -> str:
        """'title (date), url' for assumptions and reports."""
        s = self.sources[source_id]
        bits = [s.title + (f" ({s.date})" if s.date else "")]
        if s.url:
            bits.append(s.url)
        return ", ".join(bits)


def arch_of(entry: ModelEntry) -> ModelArch:
    if entry.kind == "transformer":
        assert entry.hf_config is not None
        return arch_from_hf_config(entry.hf_config, name=entry.id, where=f"catalog model {entry.id}")
    assert entry.published_params is not None
    return GenericArch(
        name=entry.id,
        task=entry.task,
        params=int(entry.published_params),
        flops_per_sample=entry.flops_per_sample,
        activation_bytes_per_sample=entry.activation_bytes_per_sample,
        input_shape=tuple(entry.input_shape or ()),
        embedding_tables=tuple((t.rows, t.dim) for t in entry.embedding_tables),
    )


def _read(name: str, data_dir: Path | None) -> dict[str, Any]:
    if data_dir is not None:
        text = (data_dir / name).read_text(encoding="utf-8")
    else:
        text = resources.files("gpuwise.catalog").joinpath("data", name).read_text(encoding="utf-8")
    try:
        doc = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"catalog file {name} is not valid YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"catalog file {name}: expected a mapping at the top level")
    return doc


def _entries(doc: dict[str, Any], key: str, cls: type[BaseModel], fname: str, keyed: bool = False) -> dict[str, Any]:
    raw = doc.get(key) or ({} if keyed else [])
    items = raw.items() if keyed else ((r.get("id", "?") if isinstance(r, dict) else "?", r) for r in raw)
    out: dict[str, Any] = {}
    for ident, item in items:
        try:
            obj = cls.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"{fname}: entry {ident!r}, field {loc!r}: {first['msg']}") from None
        if ident in out:
            raise ConfigError(f"{fname}: duplicate id {ident!r}")
        out[str(ident)] = obj
    return out


def build_catalog(data_dir: Path | None = None) -> Catalog:
    """Read and cross-check every file; any broken reference is a `ConfigError`."""
    docs = {f: _read(f, data_dir) for f in _FILES}
    sources: dict[str, Source] = {}
    for fname, doc in docs.items():
        for sid, src in _entries(doc, "sources", Source, fname, keyed=True).items():
            if sid in sources and sources[sid] != src:
                raise ConfigError(f"{fname}: source {sid!r} is defined twice with different contents")
            sources[sid] = src
    cat = Catalog(
        sources=sources,
        gpus=_entries(docs["gpus.yaml"], "gpus", GPU, "gpus.yaml"),
        interconnects=_entries(docs["interconnects.yaml"], "interconnects", Interconnect, "interconnects.yaml"),
        models=_entries(docs["models.yaml"], "models", ModelEntry, "models.yaml"),
        conventions=_entries(docs["conventions.yaml"], "conventions", Convention, "conventions.yaml", keyed=True),
        costs=_entries(docs["costs.yaml"], "costs", Convention, "costs.yaml", keyed=True),
    )
    rows = docs["interconnects.yaml"].get("default_networks") or []
    nets = _entries(
        {"n": {str(i): r for i, r in enumerate(rows)}}, "n", DefaultNetwork, "interconnects.yaml", keyed=True
    )
    cat = replace(cat, default_networks=tuple(nets.values()))
    for net in cat.default_networks:
        if net.link not in cat.interconnects or net.source not in sources:
            raise ConfigError(
                f"interconnects.yaml: default network {net.link!r} or its source {net.source!r} is unknown"
            )
    if not any(n.architecture == "*" and n.form_factor == "*" for n in cat.default_networks):
        raise ConfigError("interconnects.yaml: default_networks needs a final catch-all rule ('*', '*')")
    entries: list[Any] = [*cat.gpus.values(), *cat.interconnects.values(), *cat.models.values()]
    for e in entries:
        missing = e.source_ids() - sources.keys()
        if missing:
            raise ConfigError(f"catalog entry {e.id!r} cites unknown source(s) {sorted(missing)}")
    for key, conv in [*cat.conventions.items(), *cat.costs.items()]:
        if conv.source not in sources:
            raise ConfigError(f"convention {key!r} cites unknown source {conv.source!r}")
    return cat


@functools.cache
def load_catalog() -> Catalog:
    """The packaged catalog (read once per process)."""
    return build_catalog()
