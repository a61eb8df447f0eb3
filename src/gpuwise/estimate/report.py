"""Assemble one configuration's estimate into the JSON contract of design.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.catalog import Catalog, TransformerArch
from gpuwise.estimate.memory import MemoryEstimate, largest_fitting, memory
from gpuwise.workload import (
    Hardware,
    InferenceJob,
    TrainingJob,
    Workload,
    check_layout,
    data_parallel,
)


@dataclass(frozen=True)
class Estimate:
    workload: Workload
    hardware: Hardware
    memory: MemoryEstimate
    largest: dict[str, int]
    interconnect: str

    @property
    def bottleneck(self) -> str | None:
        return None if self.memory.fits else "capacity"

    def as_dict(self) -> dict[str, Any]:
        return {
            "workload": describe_workload(self.workload, self.hardware),
            "hardware": {
                "gpu": self.hardware.gpu.id,
                "count": self.hardware.count,
                "nodes": self.hardware.nodes,
                "gpus_per_node": self.hardware.gpus_per_node,
                "interconnect": self.interconnect,
            },
            "memory": {**self.memory.as_dict(), "largest_fitting": self.largest},
            "training": None,
            "inference": None,
            "cost": None,
            "bottleneck": self.bottleneck,
            "assumptions": list(self.memory.assumptions),
        }


def describe_workload(work: Workload, hw: Hardware) -> dict[str, Any]:
    """Every resolved input, echoed so a reader can reproduce the estimate."""
    model = work.model
    par = work.parallel
    out: dict[str, Any] = {
        "model": model.name,
        "params": int(model.params),
        "active_params": int(model.active_params),
        "task": work.task,
        "tp": par.tp,
        "pp": par.pp,
        "dp": data_parallel(work, hw),
    }
    if isinstance(model, TransformerArch):
        out.update(
            layers=model.layers, hidden=model.hidden, heads=model.heads, kv_heads=model.kv_heads, vocab=model.vocab
        )
    if isinstance(work, TrainingJob):
        out.update(
            method=work.method,
            precision=work.precision,
            weights_dtype=work.weights_dtype,
            optimizer=work.optimizer,
            micro_batch=work.micro_batch,
            global_batch=work.global_batch or work.micro_batch * data_parallel(work, hw),
            grad_accumulation=work.grad_accumulation(hw.count),
            seq=work.seq,
            zero=par.zero,
            sequence_parallel=par.sequence_parallel and par.tp > 1,
            recompute=work.recompute,
            attention=work.attention,
            tokens=work.tokens,
            samples=work.samples,
        )
        if work.method != "full":
            out.update(lora_rank=work.lora_rank, lora_targets=list(work.lora_targets))
    else:
        out.update(
            weights_dtype=work.weights_dtype,
            kv_dtype=work.kv_dtype,
            input_tokens=work.input_tokens,
            output_tokens=work.output_tokens,
            concurrency=work.concurrency,
        )
    return out


def _link(hw: Hardware, catalog: Catalog) -> str:
    if hw.count == 1:
        return "none"
    intra = hw.gpu.link_id
    if hw.gpu.interconnect and hw.gpu.interconnect.nvlink and hw.gpus_per_node > 2 and hw.gpu.form_factor == "sxm":
        intra = f"{intra} (nvswitch)"
    return intra if hw.nodes == 1 else f"{intra} + network"


def estimate(work: Workload, hw: Hardware, catalog: Catalog, *, search_largest: bool = True) -> Estimate:
    """Check the layout, estimate memory, and find the largest batch/context that fits."""
    check_layout(work, hw)
    mem = memory(work, hw, catalog)
    largest: dict[str, int] = {}
    if search_largest:
        if isinstance(work, TrainingJob):
            largest["micro_batch"] = largest_fitting(work, hw, catalog, "micro_batch")
            if isinstance(work.model, TransformerArch) and not work.model.fixed_seq:
                largest["seq"] = largest_fitting(work, hw, catalog, "seq")
        elif isinstance(work, InferenceJob):
            largest["concurrency"] = largest_fitting(work, hw, catalog, "concurrency")
            if work.model.decoder:
                largest["input_tokens"] = largest_fitting(work, hw, catalog, "input_tokens")
    return Estimate(workload=work, hardware=hw, memory=mem, largest=largest, interconnect=_link(hw, catalog))
