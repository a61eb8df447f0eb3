"""The capability matrix: GPU model x scenario, from the team's own measurements, with gpuwise's
spec-based estimate beside each measured cell and the ratio (measured / estimated); and each
measurement the team imported (`gpuwise calibrate import`) beside gpuwise's prediction of its
own workload.

Scenarios: large matmul (the compute a GPU really delivers), memory bandwidth, all-reduce bus
bandwidth, LLM training step (fine-tuning), LLM/model serving latency, data loading, the host's time to
issue a kernel from eager PyTorch. Hosts without
a catalog GPU (CPU runs) appear with their measurements and no estimate.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.catalog.hf_import import arch_from_hf_config
from gpuwise.errors import GpuwiseError
from gpuwise.store.results import LAUNCH_NAMES

SCENARIOS = {
    "matmul": "large matmul, best dtype (FLOP/s)",
    "memory": "memory bandwidth (bytes/s)",
    "allreduce": "all-reduce bus bandwidth (bytes/s)",
    "training": "LLM training step (s)",
    "serving": "serving P99 latency (s)",
    "data": "data loading (samples/s)",
    "launch": "kernel launch from Python (s)",
}


@dataclass(frozen=True, slots=True)
class Cell:
    measured: float
    estimated: float | None
    unit: str
    runs: int
    detail: str

    @property
    def ratio(self) -> float | None:
        return None if not self.estimated else self.measured / self.estimated

    def as_dict(self) -> dict[str, Any]:
        return {
            "measured": self.measured,
            "estimated": self.estimated,
            "ratio": self.ratio,
            "unit": self.unit,
            "runs": self.runs,
            "detail": self.detail,
        }


def _key(r: Any) -> str:
    return r.gpu_id or (f"{r.device}:{r.gpu_model}" if r.gpu_model else f"{r.device}:{r.hostname}")


def matrix(rows: Iterable[Any], catalog: Catalog) -> dict[str, dict[str, Cell]]:
    """{gpu: {scenario: cell}} from stored results (the store's ResultRow objects)."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for r in rows:
        groups[_key(r)].append(r)
    out: dict[str, dict[str, Cell]] = {}
    for gpu_key, rs in sorted(groups.items()):
        gpu = catalog.gpus.get(gpu_key)
        cells: dict[str, Cell] = {}
        best = [r for r in rs if r.benchmark == "matmul" and r.name == "best"]
        if best:
            top = max(best, key=lambda r: r.value)
            dtype = str(top.params.get("dtype", "bf16"))
            same = [r.value for r in best if r.params.get("dtype") == dtype]
            est = None
            if gpu is not None and dtype in gpu.peak_flops:
                from gpuwise.estimate.rates import compute_rates

                est = compute_rates(gpu, dtype, catalog).matmul
            cells["matmul"] = Cell(
                statistics.median(same),
                est,
                "FLOP/s",
                len(same),
                f"{dtype}; estimate = dense peak x cited matmul efficiency",
            )
        copy = [r.value for r in rs if r.benchmark == "membw" and r.name == "copy"]
        if copy:
            est = gpu.memory_bandwidth * catalog.convention("memory_bandwidth_efficiency") if gpu else None
            cells["memory"] = Cell(
                statistics.median(copy),
                est,
                "bytes/s",
                len(copy),
                "device copy; estimate = datasheet x memory_bandwidth_efficiency",
            )
        bus = [r for r in rs if r.benchmark == "allreduce" and r.name == "busbw"]
        if bus:
            largest = max(r.params.get("bytes", 0) for r in bus)
            vals = [r.value for r in bus if r.params.get("bytes", 0) == largest]
            est = None
            if gpu is not None:
                from gpuwise.estimate.comm import topology
                from gpuwise.workload import Hardware

                ranks = int(bus[0].params.get("ranks", 2))
                est = topology(Hardware(gpu, ranks, ranks), catalog).intra.bandwidth
            cells["allreduce"] = Cell(
                statistics.median(vals),
                est,
                "bytes/s",
                len(vals),
                f"{largest:,} B messages; estimate = the link's achieved bandwidth",
            )
        total = [r for r in rs if r.benchmark == "step" and r.name == "total"]
        if total:
            cells["training"] = _step_cell(total, gpu, catalog)
        p99 = [r.value for r in rs if r.benchmark == "latency" and r.name == "p99"]
        if p99:
            cells["serving"] = Cell(statistics.median(p99), None, "seconds", len(p99), "open-loop load")
        data = [r.value for r in rs if r.benchmark == "io"]
        if data:
            cells["data"] = Cell(statistics.median(data), None, "samples/s", len(data), "read + decode")
        if launched := [r.value for r in rs if r.benchmark == "launch" and r.name == LAUNCH_NAMES[0]]:
            cells["launch"] = _launch_cell(launched, catalog if gpu is not None else None)
        out[gpu_key] = cells
    return out


def _launch_cell(values: list[float], catalog: Catalog | None) -> Cell:
    """The hosts' seconds to issue a kernel from a generate loop against the default every eager estimate
    takes; a host without a catalog GPU (operators dispatched on the CPU) has no estimate to compare."""
    return Cell(
        statistics.median(values),
        catalog.convention("decode_host_seconds_eager") if catalog else None,
        "seconds",
        len(values),
        "a kernel issued from eager PyTorch without gradients; estimate = decode_host_seconds_eager (gpt-fast's host)",
    )


def _step_cell(total: list[Any], gpu: Any, catalog: Catalog) -> Cell:
    """A measured training step against gpuwise's estimate of the same shape, when it is known."""
    r = total[-1]
    vals = [x.value for x in total if x.params == r.params]
    p = r.params
    est = None
    detail = f"model {p.get('model', '?')}, batch {p.get('batch', '?')}, seq {p.get('seq', '?')}"
    if gpu is not None and all(k in p for k in ("hidden", "layers", "heads", "ffn", "vocab", "batch", "seq")):
        try:
            from gpuwise.estimate import estimate
            from gpuwise.workload import Hardware, TrainingJob
            from gpuwise.workload.specs import Precision

            arch = arch_from_hf_config(
                {
                    "model_type": "llama",
                    "hidden_size": p["hidden"],
                    "num_hidden_layers": p["layers"],
                    "num_attention_heads": p["heads"],
                    "num_key_value_heads": p.get("kv_heads", p["heads"]),
                    "intermediate_size": p["ffn"],
                    "vocab_size": p["vocab"],
                    "hidden_act": "silu",
                },
                name=str(p.get("model", "stand-in")),
            )
            dtype = str(p.get("dtype", "bf16"))
            precision: Precision = "fp32" if dtype == "fp32" else "fp16" if dtype == "fp16" else "bf16"
            job = TrainingJob(
                model=arch,
                task="pretrain",
                precision=precision,
                micro_batch=int(p["batch"]),
                seq=int(p["seq"]),
                master_weights=False,
            )
            training = estimate(job, Hardware(gpu, 1, 1), catalog, search_largest=False).training
            est = training.step_seconds if training is not None else None
        except (GpuwiseError, KeyError, TypeError, ValueError):
            est = None
    return Cell(statistics.median(vals), est, "seconds", len(vals), detail)


def matrix_dict(m: dict[str, dict[str, Cell]], imported: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """`gpuwise matrix --json`: the bench cells by GPU and scenario, and the imported measurements."""
    rows = {g: {k: c.as_dict() for k, c in cells.items()} for g, cells in m.items()}
    return {"scenarios": SCENARIOS, "rows": rows, "imported": imported or []}


# ----- the team's imported measurements beside gpuwise's prediction ------------------------------
def imported_rows(measurements: Iterable[Any], catalog: Catalog) -> list[dict[str, Any]]:
    """Each imported measurement (the store's ImportedMeasurement) with every figure gpuwise
    predicts for its own workload: measured, predicted, their ratio, and the prediction's
    uncertainty band where the estimate gives one."""
    from gpuwise.calibration.describe import shape_text
    from gpuwise.calibration.parsed import unit_of
    from gpuwise.calibration.predict import PER_GPU, predict

    out = []
    for m in measurements:
        p = predict(m, catalog)
        bands = (p.estimate or {}).get("uncertainty") or {}
        figures = {}
        for name, predicted in p.values.items():
            measured = m.figures[name]
            band = bands.get(p.paths.get(name, ""))
            scale = 1 / m.gpu_count if name in PER_GPU else 1.0
            figures[name] = {
                "measured": measured,
                "predicted": predicted,
                "ratio": measured / predicted if predicted else None,
                "unit": unit_of(name),
                "path": p.paths.get(name) or None,
                "band": None if band is None else {**band, "low": band["low"] * scale, "high": band["high"] * scale},
            }
        out.append(
            {
                "id": m.id,
                "label": m.label,
                "format": m.format,
                "kind": m.kind,
                "model": m.model,
                "gpu": m.gpu_id,
                "count": m.gpu_count,
                "workload": shape_text(m.kind, m.shape),
                "figures": figures,
                "why": p.why,
            }
        )
    return out
