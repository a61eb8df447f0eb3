"""Compare the per-operator time model with published ResNet-50 speeds
(corpus/data/operators_accuracy.yaml). Used by test_operators_accuracy.py and scripts/fit_operators.py.

Training cases run through the whole training estimator (`estimate`); inference cases through
`operator_seconds` (eager PyTorch or a compiled engine) and, under Triton, `request_terms`.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpuwise.catalog import Catalog, GenericArch
from gpuwise.estimate import estimate
from gpuwise.estimate.operators import Runtime, operator_seconds, request_terms
from gpuwise.estimate.rates import compute_rates
from gpuwise.workload import build_hardware, build_workload

DATA = Path(__file__).parent / "data" / "operators_accuracy.yaml"
HELD_OUT = Path(__file__).parent / "data" / "operators_held_out.yaml"  # written by scripts/fit_operators.py
GOAL = 0.20  # the median |error| target
# the runtime a case names -> how its kernels run (triton: TensorRT under Triton; triton-graph: TorchScript)
RUNTIMES: dict[str, Runtime] = {"eager": "eager", "compiled": "compiled", "triton": "compiled", "triton-graph": "graph"}


@dataclass(frozen=True)
class Result:
    id: str
    group: str
    gpu: str
    metric: str
    published: float
    ours: float

    @property
    def error(self) -> float:
        return self.ours / self.published - 1


def cases() -> list[dict[str, Any]]:
    return list(yaml.safe_load(DATA.read_text(encoding="utf-8"))["cases"])


def with_values(catalog: Catalog, values: Mapping[str, float]) -> Catalog:
    """The catalog with some conventions' values replaced (what the fit tries)."""
    conv = dict(catalog.conventions)
    for key, v in values.items():
        conv[key] = dataclasses.replace(conv[key], value=v)
    return dataclasses.replace(catalog, conventions=conv)


def ours(case: dict[str, Any], catalog: Catalog) -> float:
    """gpuwise's value for one case, in the case's metric."""
    gpu, batch, dtype = case["gpu"], int(case["batch"]), case["dtype"]
    model = catalog.model(case["model"])
    assert isinstance(model, GenericArch)
    if case["mode"] == "training":
        # DeepLearningExamples' DLRM trains on one 32 GB V100 with its frequency-limited Criteo
        # tables; the catalog's MLPerf-sized tables (96 GB) would not fit: they stay on the GPU here
        if case.get("tables_on_gpu"):
            catalog = with_values(catalog, {"embedding_gpu_table_share": 1e3})
        opts = {
            "model": case["model"],
            "task": "pretrain",
            "precision": dtype,
            "optimizer": "sgd",
            "micro_batch": batch,
            "global_batch": batch * case["gpus"],
            "samples": "1M",
        }
        est = estimate(build_workload(opts, catalog), build_hardware(f"{gpu}:{case['gpus']}", catalog), catalog)
        assert est.training is not None
        return est.training.samples_per_second
    rates = compute_rates(catalog.gpu(gpu), dtype, catalog)
    runtime: Runtime = RUNTIMES[case["runtime"]]
    t = operator_seconds(model, batch, rates, catalog, training=False, runtime=runtime, autocast=case["autocast"])
    seconds = t.total
    if case["runtime"].startswith("triton"):  # the ResNet-50 deployment batches dynamically; DLRM's runs do not
        batching = case["runtime"] == "triton"
        terms = request_terms(model, batch, catalog.gpu(gpu), catalog, dynamic_batching=batching)
        terms.pop("feature_fetch", None)  # perf_client sends the features; no feature store in the loop
        seconds += sum(terms.values())
    return batch / seconds if case["metric"] == "samples_per_second" else seconds * 1e3


def evaluate(catalog: Catalog, only: list[dict[str, Any]] | None = None) -> list[Result]:
    return [
        Result(c["id"], c["group"], c["gpu"], c["metric"], float(c["published"]), ours(c, catalog))
        for c in (cases() if only is None else only)
    ]


def median_abs_error(results: list[Result]) -> float:
    return statistics.median(abs(r.error) for r in results)


def held_out_errors() -> dict[str, float]:
    """Every case's error (ours / published - 1) when predicted by the values fitted without its table
    family, as scripts/fit_operators.py wrote it (the test suite runs its `--check`)."""
    doc = yaml.safe_load(HELD_OUT.read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in doc["held_out"].items()}
