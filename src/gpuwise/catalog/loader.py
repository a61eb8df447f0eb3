"""Load the YAML catalogs from package data into typed, validated, immutable objects.

Catalogs are values passed into the estimators and the planner (no global state to patch in
tests); `load_catalog()` caches the packaged one because it never changes at run time: once per
process, and across processes through `gpuwise.cache`, because parsing and validating the YAML
costs more than most commands do. Its key hashes every data file, the catalog package's code (the
classes it holds) and the library versions, so an edited file or an upgrade rebuilds it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from gpuwise import cache
from gpuwise.catalog.arch import GenericArch, ModelArch, arch_from_operators, image_input_side
from gpuwise.catalog.hf_import import _read_config, arch_from_hf_config, load_hf_config
from gpuwise.catalog.schema import (
    GPU,
    AtScaleRun,
    BusBandwidth,
    Convention,
    DefaultNetwork,
    EngineProfile,
    FittedEfficiency,
    FittedOverheads,
    Framework,
    FxRate,
    Interconnect,
    LengthDataset,
    ModelEntry,
    NoP2P,
    Offer,
    OfferSource,
    PcieLayout,
    RuntimeProfile,
    ServerPrice,
    Source,
    UncertaintyTable,
    validate,
)
from gpuwise.errors import ConfigError, UnknownNameError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from gpuwise.catalog.diffusion_pipeline import PipelineCall
    from gpuwise.catalog.unet_operators import EagerCode

_FILES = (
    "gpus.yaml",
    "interconnects.yaml",
    "models.yaml",
    "conventions.yaml",
    "costs.yaml",
    "frameworks.yaml",
    "collectives.yaml",
    "engines.yaml",
    "reliability.yaml",
    "pipeline.yaml",
    "datasets.yaml",  # written by scripts/dataset_lengths.py
)
FRAMEWORK_EFFICIENCY_FILE = "framework_efficiency.yaml"  # written by scripts/fit_efficiency.py
UNCERTAINTY_FILE = "uncertainty.yaml"  # written by scripts/fit_bands.py
SERVING_FIT_FILE = "serving_fit.yaml"  # written by scripts/fit_serving.py
OPERATOR_FIT_FILE = "operator_fit.yaml"  # written by scripts/fit_operators.py
ALLOCATOR_FIT_FILE = "allocator_fit.yaml"  # written by scripts/fit_allocator_slack.py
GRAPH_FLOOR_FIT_FILE = "graph_floor_fit.yaml"  # written by scripts/fit_graph_floor.py
# the generated files of fitted conventions, merged into conventions.yaml's (each name in one file)
FITTED_CONVENTION_FILES = (OPERATOR_FIT_FILE, ALLOCATOR_FIT_FILE, GRAPH_FLOOR_FIT_FILE)
OFFERS_FILE = "offers.yaml"  # rental offers; its sources carry a date basis, so they stay apart
# libyaml's parser where PyYAML was built with it (about 10x faster), else the pure-Python one.
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_R = TypeVar("_R")


@dataclass(frozen=True, slots=True)
class Catalog:
    sources: Mapping[str, Source]
    gpus: Mapping[str, GPU]
    interconnects: Mapping[str, Interconnect]
    models: Mapping[str, ModelEntry]
    conventions: Mapping[str, Convention]
    default_networks: tuple[DefaultNetwork, ...] = ()
    costs: Mapping[str, Convention] = field(default_factory=dict)
    frameworks: Mapping[str, Framework] = field(default_factory=dict)
    framework_defaults: Mapping[str, str] = field(default_factory=dict)  # task -> framework id
    busbw: tuple[BusBandwidth, ...] = ()  # measured intra-node all-reduce paths (collectives.yaml)
    no_p2p_gpus: frozenset[str] = frozenset()  # GPUs whose rings go through host memory
    pcie_layout: tuple[PcieLayout, ...] = ()  # PCIe path by GPUs per node (collectives.yaml)
    engines: Mapping[str, EngineProfile] = field(default_factory=dict)  # serving engines (engines.yaml)
    runtimes: Mapping[str, RuntimeProfile] = field(default_factory=dict)  # non-LLM runtimes (engines.yaml)
    offers: tuple[Offer, ...] = ()  # offers.yaml: what providers rent (gpuwise.estimate.offers picks)
    offer_sources: Mapping[str, OfferSource] = field(default_factory=dict)
    fx: Mapping[str, FxRate] = field(default_factory=dict)  # currency -> units per USD, dated
    servers: Mapping[str, ServerPrice] = field(default_factory=dict)  # GPU id -> a server as bought (costs.yaml)
    reliability: Mapping[str, Convention] = field(default_factory=dict)  # reliability.yaml: failure rates
    at_scale: tuple[AtScaleRun, ...] = ()  # reliability.yaml: published MFU of runs at their GPU count
    pipeline: Mapping[str, Convention] = field(default_factory=dict)  # pipeline.yaml: storage, formats, loaders
    uncertainty: UncertaintyTable | None = None  # uncertainty.yaml: the band of each figure's class
    datasets: Mapping[str, LengthDataset] = field(default_factory=dict)  # datasets.yaml: benchmark request lengths

    # ----- lookups with "did you mean" ---------------------------------------------
    def gpu(self, gpu_id: str) -> GPU:
        key = gpu_id.strip().lower()
        if key not in self.gpus:
            raise UnknownNameError("gpu", gpu_id, self.gpus)
        return self.gpus[key]

    def device(self, gpu_id: str) -> tuple[GPU, int]:
        """The entry software schedules on, and how many of it one `gpu_id` is: a multi-die board
        (an MI250X module is two GCDs to ROCm) is planned as its devices, anything else as itself."""
        gpu = self.gpu(gpu_id)
        if gpu.devices is None:
            return gpu, 1
        return self.gpus[gpu.devices.id], gpu.devices.count

    def interconnect(self, link_id: str) -> Interconnect:
        if link_id not in self.interconnects:
            raise UnknownNameError("interconnect", link_id, self.interconnects)
        return self.interconnects[link_id]

    def model_entry(self, model_id: str) -> ModelEntry:
        key = model_id.strip().lower()
        if key not in self.models:
            raise UnknownNameError("model", model_id, self.models)
        return self.models[key]

    def model(
        self,
        name_or_path: str,
        attention: str = "flash",
        fp32_softmax: bool = False,
        code: EagerCode | None = None,
        call: PipelineCall | None = None,
    ) -> ModelArch:
        """A catalog id, or a path to a Hugging Face config.json (or its folder); `attention` eager:
        a model written operator by operator from its config with its score matrices materialized
        (softmaxed in fp32 with `fp32_softmax`: under torch.autocast; a pipeline's working set as
        `code`: what the eager attention's diffusers release and autocast dtype keep and run; `call`: a whole
        diffusion pipeline's steps and guidance scale, None its call defaults)."""
        p = Path(name_or_path)
        try:
            is_path = name_or_path.endswith(".json") or p.is_dir() or p.is_file()
        except (OSError, ValueError):  # a name too long or odd to be a path is a (bad) catalog id
            is_path = False
        if is_path:
            described = _operator_file(p)
            return described if described is not None else load_hf_config(p)
        return arch_of(self.model_entry(name_or_path), attention, fp32_softmax, code, call)

    def image_models(self) -> list[str]:
        """The catalog's models that take an image whose side --image-size can change, by id."""
        return [mid for mid, entry in self.models.items() if image_input_side(arch_of(entry)) is not None]

    def engine(self, engine_id: str) -> EngineProfile:
        if engine_id not in self.engines:
            raise UnknownNameError("engine", engine_id, self.engines)
        return self.engines[engine_id]

    def dataset(self, dataset_id: str) -> LengthDataset:
        if dataset_id not in self.datasets:
            raise UnknownNameError("dataset", dataset_id, self.datasets)
        return self.datasets[dataset_id]

    def runtime(self, runtime_id: str) -> RuntimeProfile:
        if runtime_id not in self.runtimes:
            raise UnknownNameError("runtime", runtime_id, self.runtimes)
        return self.runtimes[runtime_id]

    def runtime_of(self, engine: str) -> RuntimeProfile | None:
        """The runtime that runs `engine`: a runtime named as the engine, or the one an LLM engine is built on (a
        transformers generate loop: PyTorch eager); None for a serving engine with kernels of its own."""
        if engine in self.runtimes:
            return self.runtimes[engine]
        profile = self.engines.get(engine)
        return None if profile is None or profile.runtime is None else self.runtimes[profile.runtime]

    def default_network(self, gpu: GPU) -> DefaultNetwork:
        """The first matching rule; the file ends with a catch-all."""
        return next(n for n in self.default_networks if n.matches(gpu))

    def framework(self, name: str) -> Framework:
        key = name.strip().lower()
        if key not in self.frameworks:
            raise UnknownNameError("framework", name, self.frameworks)
        return self.frameworks[key]

    def default_framework(self, task: str, *, language_model: bool) -> str:
        """The stack assumed when none is named (frameworks.yaml `defaults`): by task for a language model
        (arch.is_language_model); `other` for the rest (CNNs, recommenders, diffusion UNets, vision
        transformers), which the language-model stacks do not train."""
        if not language_model and "other" in self.framework_defaults:
            return self.framework_defaults["other"]
        return self.framework_defaults.get(task, self.framework_defaults.get("finetune", ""))

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


def arch_of(
    entry: ModelEntry,
    attention: str = "flash",
    fp32_softmax: bool = False,
    code: EagerCode | None = None,
    call: PipelineCall | None = None,
) -> ModelArch:
    if entry.kind == "transformer":
        assert entry.hf_config is not None
        return arch_from_hf_config(entry.hf_config, name=entry.id, where=f"catalog model {entry.id}")
    assert entry.published_params is not None
    pipeline = _packaged_pipeline(entry.id, attention, fp32_softmax, code, call)
    described = pipeline or _packaged_operators(entry.id, attention, fp32_softmax, code)
    acts = entry.activation_bytes_per_sample
    if acts is None and pipeline is not None:  # a pipeline's largest working set, from its parts
        acts = pipeline.activation_bytes_per_sample
    return GenericArch(
        operators=described.operators if described is not None else (),
        repeats=described.repeats if described is not None else (),
        name=entry.id,
        task=entry.task,
        params=int(entry.published_params),
        # a pipeline called otherwise than by its defaults: the FLOPs of the call written out
        flops_per_sample=pipeline.flops_per_sample if call is not None and pipeline else entry.flops_per_sample,
        activation_bytes_per_sample=acts,
        forward_peak_bytes_per_sample=described.forward_peak_bytes_per_sample if described is not None else None,
        input_shape=tuple(entry.input_shape or ()),
        embedding_tables=tuple((t.rows, t.dim) for t in entry.embedding_tables),
    )


def _operator_file(p: Path) -> GenericArch | None:
    """A `gpuwise describe --json` document (a JSON object with `operators`), else None."""
    try:
        if not p.is_file() or p.suffix != ".json":
            return None
    except OSError:
        return None
    doc = _read_config(p)
    if isinstance(doc, dict) and "operators" in doc:
        return arch_from_operators(doc, where=str(p))
    return None


@functools.lru_cache(maxsize=64)
def _packaged_operators(
    model_id: str, attention: str = "flash", fp32_softmax: bool = False, code: EagerCode | None = None
) -> GenericArch | None:
    """The per-operator description shipped for a built-in model (data/operators/<id>.json,
    written by scripts/describe_models.py), or written from a diffusers UNet's config
    (data/unet/<id>.json, catalog/unet_operators.py, its attention fused or `eager`), so that estimates need
    no torch."""
    ref = _package_dir().joinpath("data", "operators", f"{model_id}.json")
    if ref.is_file():
        return arch_from_operators(json.loads(ref.read_text(encoding="utf-8")), where=f"operators/{model_id}.json")
    unet = _package_dir().joinpath("data", "unet", f"{model_id}.json")  # a diffusers UNet's config.json
    if unet.is_file():
        from gpuwise.catalog.unet_operators import TODAYS_CODE, unet_config, unet_operators

        doc = json.loads(unet.read_text(encoding="utf-8"))
        cfg = unet_config(doc, where=f"unet/{model_id}.json")
        eager = attention == "eager"
        return unet_operators(
            cfg,
            name=model_id,
            attention="eager" if eager else "flash",
            fp32_softmax=fp32_softmax,
            code=code or TODAYS_CODE,
        )
    return None


@functools.lru_cache(maxsize=8)
def _packaged_pipeline(
    model_id: str,
    attention: str = "flash",
    fp32_softmax: bool = False,
    code: EagerCode | None = None,
    call: PipelineCall | None = None,
) -> GenericArch | None:
    """A whole diffusers pipeline (data/diffusion/<id>.json: its parts' configs and call defaults,
    the UNet's config in data/unet/), written out by catalog/diffusion_pipeline.py, else None."""
    ref = _package_dir().joinpath("data", "diffusion", f"{model_id}.json")
    if not ref.is_file():
        return None
    from gpuwise.catalog.diffusion_pipeline import pipeline_operators
    from gpuwise.catalog.unet_operators import TODAYS_CODE, unet_config

    doc = json.loads(ref.read_text(encoding="utf-8"))
    if "base" in doc:  # a variant: the base pipeline's parts with some replaced (null: not loaded)
        base = _package_dir().joinpath("data", "diffusion", f"{doc['base']}.json")
        doc = {**json.loads(base.read_text(encoding="utf-8")), **doc}
    if call is not None:  # the call's own steps and guidance over the pipeline's defaults
        doc = {**doc, **call.overrides()}
    unet_id = str(doc["unet"])
    unet_doc = json.loads(_package_dir().joinpath("data", "unet", f"{unet_id}.json").read_text(encoding="utf-8"))
    cfg = unet_config(unet_doc, where=f"unet/{unet_id}.json")
    eager = attention == "eager"
    return pipeline_operators(
        doc,
        cfg,
        name=model_id,
        attention="eager" if eager else "flash",
        fp32_softmax=fp32_softmax,
        code=code or TODAYS_CODE,
    )


@functools.lru_cache(maxsize=1)
def image_decode_costs() -> dict[str, tuple[float, str]]:
    """Per-image CPU JPEG decode seconds (data/operators/image_decode.yaml): name -> (value,
    source title), for the data-pipeline model and the plan's pipeline search."""
    ref = _package_dir().joinpath("data", "operators", "image_decode.yaml")
    doc = yaml.load(ref.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    titles = {k: v["title"] for k, v in doc["sources"].items()}
    return {k: (float(v["value"]), titles[v["source"]]) for k, v in doc["decode"].items()}


def _read(name: str, data_dir: Path | None) -> dict[str, Any]:
    if data_dir is not None:
        text = (data_dir / name).read_text(encoding="utf-8")
    else:
        text = _package_dir().joinpath("data", name).read_text(encoding="utf-8")
    try:
        doc = yaml.load(text, Loader=_YAML_LOADER) or {}  # a safe loader, C or Python
    except yaml.YAMLError as exc:
        raise ConfigError(f"catalog file {name} is not valid YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"catalog file {name}: expected a mapping at the top level")
    return doc


def _validated(cls: type[_R], item: Any, where: str, whole: str = "") -> _R:
    """`item` validated as a `cls` shape, or a ConfigError naming `where` and the first bad field
    (`whole` names a rule on the whole item, whose error has no field)."""
    from pydantic import ValidationError  # validation is the cold path: a warm start never gets here

    try:
        return validate(cls, item)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or whole
        raise ConfigError(f"{where}, field {loc!r}: {first['msg']}") from None


def _entries(doc: dict[str, Any], key: str, cls: type[Any], fname: str, keyed: bool = False) -> dict[str, Any]:
    raw = doc.get(key) or ({} if keyed else [])
    items: Iterable[tuple[Any, Any]]
    if keyed and isinstance(raw, dict):
        items = raw.items()
    elif not keyed and isinstance(raw, list):
        items = ((r.get("id", "?") if isinstance(r, dict) else "?", r) for r in raw)
    else:
        raise ConfigError(f"{fname}: {key!r} must be a {'mapping' if keyed else 'list'}")
    out: dict[str, Any] = {}
    for ident, item in items:
        obj = _validated(cls, item, f"{fname}: entry {ident!r}")
        if ident in out:
            raise ConfigError(f"{fname}: duplicate id {ident!r}")
        out[str(ident)] = obj
    return out


def _rows(rows: Any, cls: type[_R], fname: str) -> tuple[_R, ...]:
    """A list of records without ids, in file order; a bad one is named by its index."""
    return tuple(_validated(cls, r, f"{fname}: entry {str(i)!r}") for i, r in enumerate(rows or []))


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
        conventions=_conventions(docs["conventions.yaml"], data_dir),
        costs=_entries(docs["costs.yaml"], "costs", Convention, "costs.yaml", keyed=True),
        servers=_entries(docs["costs.yaml"], "servers", ServerPrice, "costs.yaml", keyed=True),
        engines=_engines(docs["engines.yaml"], data_dir),
        runtimes=_entries(docs["engines.yaml"], "runtimes", RuntimeProfile, "engines.yaml", keyed=True),
        reliability=_entries(docs["reliability.yaml"], "reliability", Convention, "reliability.yaml", keyed=True),
        pipeline=_entries(docs["pipeline.yaml"], "pipeline", Convention, "pipeline.yaml", keyed=True),
        datasets=_entries(docs["datasets.yaml"], "datasets", LengthDataset, "datasets.yaml", keyed=True),
    )
    nets = _rows(docs["interconnects.yaml"].get("default_networks"), DefaultNetwork, "interconnects.yaml")
    at_scale = _rows(docs["reliability.yaml"].get("at_scale_mfu"), AtScaleRun, "reliability.yaml")
    cat = replace(cat, default_networks=nets, at_scale=at_scale, **_frameworks(docs["frameworks.yaml"], data_dir))
    cat = replace(cat, **_collectives(docs["collectives.yaml"], sources))
    cat = replace(cat, **_offers(_read(OFFERS_FILE, data_dir)))
    cat = replace(cat, uncertainty=_uncertainty(data_dir))
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
    for key, eng in [*cat.engines.items(), *cat.runtimes.items()]:
        if eng.source_ids() - sources.keys():
            raise ConfigError(
                f"engines.yaml: engine {key!r} cites unknown source(s) {sorted(eng.source_ids() - sources.keys())}"
            )
    architectures = {g.architecture for g in cat.gpus.values()}
    _check_engines(cat, architectures)
    _check_boards(cat)
    for gid, srv in cat.servers.items():
        if gid not in cat.gpus or srv.source not in sources:
            raise ConfigError(f"costs.yaml: server {gid!r} names an unknown GPU or source {srv.source!r}")
    for run in cat.at_scale:
        if run.source not in sources or run.architecture not in architectures:
            raise ConfigError(f"reliability.yaml: at_scale_mfu {run.id!r} cites an unknown source or architecture")
    for key, ds in cat.datasets.items():
        if {ds.source, ds.sampling_source} - sources.keys():
            raise ConfigError(f"datasets.yaml: dataset {key!r} cites an unknown source")
    for key, conv in [*cat.conventions.items(), *cat.costs.items(), *cat.reliability.items(), *cat.pipeline.items()]:
        if conv.source not in sources:
            raise ConfigError(f"convention {key!r} cites unknown source {conv.source!r}")
    return cat


def _check_engines(cat: Catalog, architectures: set[str]) -> None:
    """engines.yaml fields keyed by GPU or bound to another field: a mistake is a ConfigError, not an engine
    silently run otherwise."""
    for key, eng in cat.engines.items():
        if eng.runtime is not None and eng.runtime not in cat.runtimes:
            raise ConfigError(f"engines.yaml: engine {key!r} names an unknown runtime {eng.runtime!r}")
        if unknown := set(eng.fused_moe_call_seconds) - architectures - {"default"}:
            raise ConfigError(
                f"engines.yaml: engine {key!r} fused_moe_call_seconds names unknown architecture(s) {sorted(unknown)}"
            )
        if eng.eager_collectives_per_layer + eng.eager_gqa_copies_per_layer > eng.eager_kernels_per_layer:
            raise ConfigError(
                f"engines.yaml: engine {key!r} eager_collectives_per_layer and eager_gqa_copies_per_layer are part of "
                "eager_kernels_per_layer and cannot exceed it"
            )
        if [b for b, _ in eng.token_budget_tiers] != sorted({b for b, _ in eng.token_budget_tiers}):
            raise ConfigError(f"engines.yaml: engine {key!r} token_budget_tiers must rise by memory, each bound once")
        if eng.prefill_first and eng.chunked_prefill:
            raise ConfigError(
                f"engines.yaml: engine {key!r} prefills first, so it cannot chunk prompts into decode steps"
            )
        if unknown := set(eng.fp8_gemm_time_share) - architectures - set(cat.gpus):
            raise ConfigError(
                f"engines.yaml: engine {key!r} fp8_gemm_time_share names unknown GPU(s) {sorted(unknown)}"
            )


def _uncertainty(data_dir: Path | None) -> UncertaintyTable | None:
    """The bands scripts/fit_bands.py wrote; None before it has run (every estimate then says that
    it has no band), so the script can build the catalog it fits them on."""
    where = data_dir / UNCERTAINTY_FILE if data_dir is not None else _package_dir().joinpath("data", UNCERTAINTY_FILE)
    if not where.is_file():
        return None
    return _validated(UncertaintyTable, _read(UNCERTAINTY_FILE, data_dir), UNCERTAINTY_FILE)


def _check_boards(cat: Catalog) -> None:
    """A multi-die board names a device entry that is not itself a board, of its vendor, whose
    memory times the count is the board's: one number per fact, the two entries agreeing."""
    for gpu in cat.gpus.values():
        if gpu.devices is None:
            continue
        dev = cat.gpus.get(gpu.devices.id)
        if dev is None or dev.devices is not None or dev.vendor != gpu.vendor:
            raise ConfigError(
                f"gpus.yaml: {gpu.id!r} is a board of {gpu.devices.id!r}, which must be a single-device entry "
                "of the same vendor"
            )
        if dev.memory_bytes * gpu.devices.count != gpu.memory_bytes:
            raise ConfigError(
                f"gpus.yaml: {gpu.id!r} holds {gpu.devices.count} x {dev.id!r}, but its memory is not "
                f"{gpu.devices.count} x {dev.memory_bytes} bytes"
            )


def _frameworks(doc: dict[str, Any], data_dir: Path | None) -> dict[str, Any]:
    """Framework profiles with the efficiency scripts/fit_efficiency.py derived for each."""
    profiles = _entries(doc, "frameworks", Framework, "frameworks.yaml")
    defaults = {str(k): str(v) for k, v in (doc.get("defaults") or {}).items()}
    bad = sorted(v for v in defaults.values() if v not in profiles)
    if bad:
        raise ConfigError(f"frameworks.yaml: default framework(s) {bad} are not profiles")
    fitted = _entries(
        _read(FRAMEWORK_EFFICIENCY_FILE, data_dir),
        "efficiency",
        FittedEfficiency,
        FRAMEWORK_EFFICIENCY_FILE,
        keyed=True,
    )
    missing = sorted(set(profiles) - set(fitted))
    if missing:
        raise ConfigError(f"{FRAMEWORK_EFFICIENCY_FILE} has no efficiency for {missing}: run scripts/fit_efficiency.py")
    out = {}
    for fid, prof in profiles.items():
        fit = fitted[fid]
        how = "pooled fit over every stack's published runs" if fit.pooled else f"fit over {fit.cases} published runs"
        out[fid] = replace(prof, efficiency=fit.value, efficiency_note=how)
    return {"frameworks": out, "framework_defaults": defaults}


def parse_offers(doc: Mapping[str, Any], fname: str, sources: Iterable[str] | None = None) -> tuple[Offer, ...]:
    """The `offers` list of a document, each validated; with `sources`, every offer must cite one of
    them (the packaged file). A team's own file (`--prices`) cites free text instead."""
    raw = doc.get("offers")
    if not isinstance(raw, list):
        raise ConfigError(f"{fname}: 'offers' must be a list of offers")
    known = None if sources is None else set(sources)
    out: list[Offer] = []
    for i, item in enumerate(raw):
        where = f"{fname}: offer {i + 1}" + (
            f" ({item.get('gpu')}, {item.get('provider')})" if isinstance(item, dict) else ""
        )
        offer = _validated(Offer, item, where, whole="offer")
        cited = [offer.source, *(f.source for f in (offer.fabric, offer.cluster) if f is not None and f.source)]
        if known is not None and not known.issuperset(cited):
            raise ConfigError(f"{where}: source {sorted(set(cited) - known)} is not in the file's 'sources'")
        out.append(offer)
    return tuple(out)


SERVER_QUOTE_KEYS = ("usd", "gpus", "platform", "source", "power_watts", "date", "why")


def parse_server_quotes(raw: Any, fname: str, catalog: Catalog) -> dict[str, ServerPrice]:
    """A team's server quotes (`servers:` of a `tco --costs` file), by GPU id: each a whole server's
    price with the GPUs in it, what it is, where the quote came from and, optionally, its maximum
    power draw and date. Checked as the catalog's own `servers` are: a bad one is a clear error."""
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{fname}: 'servers' must map GPU ids to quotes, e.g. h100-sxm: {{usd: 310000, gpus: 8, ...}}"
        )
    out: dict[str, ServerPrice] = {}
    for gid, item in raw.items():
        gpu = catalog.gpu(str(gid))  # an unknown id: "did you mean"
        where = f"{fname}: server quote {gpu.id!r}"
        if not isinstance(item, dict):
            raise ConfigError(f"{where} must be a mapping with {', '.join(SERVER_QUOTE_KEYS[:4])}")
        quote = _validated(ServerPrice, {"why": "the team's quote", **item}, where)
        if quote.power_watts is not None and quote.power_watts < quote.gpus * gpu.tdp_watts:
            raise ConfigError(
                f"{where}: power_watts {quote.power_watts:g} is below its {quote.gpus} GPUs' TDP "
                f"({quote.gpus * gpu.tdp_watts:g} W): give the whole server's maximum draw"
            )
        out[gpu.id] = quote
    return out


def parse_fx(doc: Mapping[str, Any], fname: str, sources: Iterable[str]) -> dict[str, FxRate]:
    """Exchange rates by currency, each citing a known source; a currency listed twice is an error."""
    known = set(sources)
    out: dict[str, FxRate] = {}
    for i, item in enumerate(doc.get("fx") or []):
        rate = _validated(FxRate, item, f"{fname}: fx[{i}]")
        if rate.source not in known or rate.currency in out:
            raise ConfigError(f"{fname}: fx[{i}] ({rate.currency}): unknown source or currency listed twice")
        out[rate.currency] = rate
    return out


def _offers(doc: dict[str, Any]) -> dict[str, Any]:
    """offers.yaml: its sources, exchange rates and offers, every currency with a rate."""
    sources = _entries(doc, "sources", OfferSource, OFFERS_FILE, keyed=True)
    fx = parse_fx(doc, OFFERS_FILE, sources)
    offers = parse_offers(doc, OFFERS_FILE, sources)
    missing = sorted({o.currency for o in offers} - {"USD", *fx})
    if missing:
        raise ConfigError(f"{OFFERS_FILE}: no exchange rate for {missing}: add it under 'fx'")
    return {"offers": offers, "offer_sources": sources, "fx": fx}


def _collectives(doc: dict[str, Any], sources: Mapping[str, Source]) -> dict[str, Any]:
    """Measured all-reduce bus bandwidths per intra-node path, and the GPUs without peer-to-peer."""
    measured = _rows(doc.get("allreduce_busbw"), BusBandwidth, "collectives.yaml")
    raw_no_p2p = doc.get("no_p2p_gpus")
    no_p2p = _validated(NoP2P, raw_no_p2p, "collectives.yaml: no_p2p_gpus") if raw_no_p2p else None
    layout = _rows(doc.get("pcie_layout"), PcieLayout, "collectives.yaml")
    cited = [m.source for m in measured] + [r.source for r in layout] + ([no_p2p.source] if no_p2p else [])
    missing = sorted(set(cited) - set(sources))
    if missing:
        raise ConfigError(f"collectives.yaml cites unknown source(s) {missing}")
    return {
        "busbw": measured,
        "no_p2p_gpus": frozenset(no_p2p.gpus if no_p2p else ()),
        "pcie_layout": tuple(sorted(layout, key=lambda r: r.max_gpus)),
    }


def _conventions(doc: dict[str, Any], data_dir: Path | None) -> dict[str, Convention]:
    """conventions.yaml's conventions and those the fitting scripts wrote (each defined in one file)."""
    out = _entries(doc, "conventions", Convention, "conventions.yaml", keyed=True)
    owner = dict.fromkeys(out, "conventions.yaml")
    for fname in FITTED_CONVENTION_FILES:
        fitted = _entries(_read(fname, data_dir), "conventions", Convention, fname, keyed=True)
        if both := sorted(out.keys() & fitted.keys()):
            raise ConfigError(f"{owner[both[0]]} and {fname} both define {both}: the fit's file owns them")
        out.update(fitted)
        owner.update(dict.fromkeys(fitted, fname))
    return out


def _engines(doc: dict[str, Any], data_dir: Path | None) -> dict[str, EngineProfile]:
    """Engine profiles with the overheads scripts/fit_serving.py fitted to the published cases of the
    engine each one's `overheads_from` names, and a note saying whether they were fitted to it."""
    profiles = _entries(doc, "engines", EngineProfile, "engines.yaml", keyed=True)
    fits = _entries(_read(SERVING_FIT_FILE, data_dir), "fits", FittedOverheads, SERVING_FIT_FILE, keyed=True)
    out = {}
    for eid, prof in profiles.items():
        origin = prof.overheads_from or eid
        fit = fits.get(origin)
        if fit is None or origin not in profiles:
            raise ConfigError(f"{SERVING_FIT_FILE} has no overheads fitted for {origin!r}: run scripts/fit_serving.py")
        donor = profiles[origin].name
        note = f"fitted to {fit.cases} published {donor} cases at load (scripts/fit_serving.py)"
        if origin != eid:
            note = f"borrowed from the fit to {fit.cases} published {donor} cases at load, not fitted to {prof.name}"
        out[eid] = replace(
            prof,
            overheads_from=origin,
            overheads_note=note,
            matmul_efficiency=fit.matmul_efficiency,
            layer_overhead_seconds=fit.layer_overhead_seconds,
            request_overhead_seconds=fit.request_overhead_seconds,
        )
    return out


def _package_dir() -> Traversable:
    """The catalog package's folder: its path on disk in a normal install (importing
    importlib.resources and zipfile cost every command about 2 ms), else importlib.resources
    (a package inside a zip archive)."""
    here = Path(__file__).parent
    if (here / "data").is_dir():
        return here
    from importlib import resources

    return resources.files("gpuwise.catalog")


def _sources(data_dir: Path | None) -> list[tuple[str, Traversable]]:
    """Every data file and every module of the catalog package (the classes the cache holds)."""
    data: Traversable = data_dir if data_dir is not None else _package_dir().joinpath("data")
    data_files = sorted(
        (p for p in data.iterdir() if p.name.endswith((".yaml", ".yml", ".json"))), key=lambda p: p.name
    )
    return [*((f"data/{p.name}", p) for p in data_files), *cache.python_files(_package_dir(), "code")]


def cache_key(data_dir: Path | None = None) -> str:
    """Hex digest that changes whenever anything the cached catalog was built from changes (the
    pydantic release that validated it too, read from its version file: no import on a warm start)."""
    return cache.source_key([*_sources(data_dir), *cache.version_file("pydantic")])


def default_cache_file() -> Path:
    """$XDG_CACHE_HOME/gpuwise/catalog.pickle (~/.cache/gpuwise when XDG_CACHE_HOME is unset)."""
    return cache.cache_file("catalog")


def cached_catalog(data_dir: Path | None = None, cache_file: Path | None = None) -> Catalog:
    """`build_catalog(data_dir)`, from the cache file when it matches (see gpuwise.cache)."""
    return cache.cached(
        cache_file if cache_file is not None else default_cache_file(),
        lambda: cache_key(data_dir),
        lambda: build_catalog(data_dir),
        lambda value: isinstance(value, Catalog),
    )


@functools.cache
def load_catalog() -> Catalog:
    """The packaged catalog (read once per process, validated once per change of its files)."""
    return cached_catalog()
