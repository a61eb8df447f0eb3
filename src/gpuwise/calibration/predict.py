"""What gpuwise predicts for a measurement's own workload: the same model, GPU, count and shape,
run through the estimators, each measured figure beside its predicted one (and the JSON path it
has in `gpuwise estimate --json`, where its uncertainty band is keyed).

Pure: the estimators and the catalog, no store. A measurement whose workload gpuwise cannot
estimate gets the reason instead of numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from gpuwise.catalog import Catalog
from gpuwise.errors import GpuwiseError
from gpuwise.estimate.rates import Calibration
from gpuwise.workload import build_hardware, build_workload

# measured figure -> the JSON path of the predicted figure it is compared with
SERVING_PATHS = {
    "ttft.median": "inference.time_to_first_token_seconds",
    "tpot.median": "inference.decode_seconds_per_token",
    "e2e.median": "inference.latency_seconds",
    "output_tokens_per_second": "inference.tokens_per_second",
    "requests_per_second": "inference.requests_per_second",
}
TRAINING_PATHS = {
    "tokens_per_second_per_gpu": "training.tokens_per_second",  # per GPU here, all GPUs there
    "step_seconds": "training.step_seconds",
    "mfu": "training.mfu",
    "peak_reserved_bytes": "memory.as_reported.max_reserved",
    "peak_allocated_bytes": "memory.as_reported.max_allocated",
}
MEMORY_PATHS = {k: v for k, v in TRAINING_PATHS.items() if k.startswith("peak_")}
PATHS = {"serving": SERVING_PATHS, "training": TRAINING_PATHS, "memory": MEMORY_PATHS}
PER_GPU = ("tokens_per_second_per_gpu",)  # measured per GPU, predicted for all of them
# nccl-tests' busbw = algbw x this factor (its *GetBw functions); gpuwise models these collectives
BUSBW_FACTOR = {"all_reduce": 2.0, "all_gather": 1.0, "reduce_scatter": 1.0, "all_to_all": 1.0}


class Measured(Protocol):
    """What prediction needs of a stored measurement (the store's ImportedMeasurement)."""

    @property
    def kind(self) -> str: ...
    @property
    def model(self) -> str | None: ...
    @property
    def gpu_id(self) -> str: ...
    @property
    def gpu_count(self) -> int: ...
    @property
    def shape(self) -> dict[str, Any]: ...
    @property
    def figures(self) -> dict[str, float]: ...
    @property
    def facts(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Prediction:
    """Measured figure -> predicted value (same unit), with the JSON path of each; `estimate` is
    the whole `gpuwise estimate --json` of the measured workload; `why` says why there is none."""

    values: Mapping[str, float] = field(default_factory=dict)
    paths: Mapping[str, str] = field(default_factory=dict)
    estimate: Mapping[str, Any] | None = None
    why: str | None = None


def workload_options(m: Measured) -> dict[str, Any]:
    """The measurement's workload in gpuwise's option names. A vLLM server on N GPUs runs them as
    one tensor-parallel replica (the benchmark's result does not record the layout)."""
    if m.kind == "serving":
        opts = {"task": "inference", "engine": "vllm", **m.shape, "model": m.model}
        opts.setdefault("tp", m.gpu_count)
        return opts
    return {**m.shape, "model": m.model}


def hardware_spec(m: Measured) -> tuple[str, int | None]:
    """('h100-sxm:8', GPUs per node): a collective run on several hosts spreads its ranks evenly."""
    hosts = m.facts.get("hosts")
    per_node = m.gpu_count // len(hosts) if isinstance(hosts, list) and len(hosts) > 1 else None
    return f"{m.gpu_id}:{m.gpu_count}", per_node


def predict(m: Measured, catalog: Catalog, calibration: Calibration | None = None) -> Prediction:
    """gpuwise's figures for the measured workload (with `calibration`'s rates where given)."""
    try:
        if m.kind == "collective":
            return _collective(m, catalog, calibration)
        if m.model is None or m.kind not in PATHS:
            return Prediction(why="no model: nothing to estimate")
        return _estimated(m, catalog, calibration)
    except GpuwiseError as exc:
        return Prediction(why=f"gpuwise cannot estimate this workload: {exc}")


def _estimated(m: Measured, catalog: Catalog, calibration: Calibration | None) -> Prediction:
    from gpuwise.estimate import estimate

    work = build_workload(workload_options(m), catalog)
    spec, per_node = hardware_spec(m)
    hw = build_hardware(spec, catalog, per_node, default_count=work.parallel.model_parallel)
    d = estimate(work, hw, catalog, search_largest=False, calibration=calibration).as_dict()
    values: dict[str, float] = {}
    paths: dict[str, str] = {}
    for figure, path in PATHS[m.kind].items():
        if figure not in m.figures:
            continue
        value = json_path(d, path)
        if value is None:
            continue
        values[figure] = value / m.gpu_count if figure in PER_GPU else value
        paths[figure] = path
    return Prediction(values, paths, d, None if values else "the estimate has none of the measured figures")


def json_path(d: Mapping[str, Any], path: str) -> float | None:
    """The number at 'a.b.c' in a JSON dict, or None."""
    node: Any = d
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return float(node) if isinstance(node, int | float) and not isinstance(node, bool) else None


def _collective(m: Measured, catalog: Catalog, calibration: Calibration | None) -> Prediction:
    """nccl-tests' busbw at the measured size, from gpuwise's collective model over the topology."""
    from gpuwise.estimate.comm import collective, topology

    op = str(m.shape.get("collective"))
    ranks, size = int(m.shape.get("ranks") or m.gpu_count), float(m.shape.get("bytes") or 0)
    if op not in BUSBW_FACTOR or ranks < 2 or size <= 0:
        return Prediction(why=f"gpuwise models all-reduce, all-gather, reduce-scatter and all-to-all, not {op}")
    spec, per_node = hardware_spec(m)
    hw = build_hardware(spec, catalog, per_node)
    topo = topology(hw, catalog, hw.network, calibration)
    seconds = collective(op, size, ranks, topo, spans_nodes=hw.nodes > 1)
    busbw = BUSBW_FACTOR[op] * (ranks - 1) / ranks * size / seconds
    return Prediction({"busbw": busbw, "collective_seconds": seconds}, {"busbw": "", "collective_seconds": ""})


__all__ = ["PATHS", "Measured", "Prediction", "json_path", "predict", "workload_options"]
