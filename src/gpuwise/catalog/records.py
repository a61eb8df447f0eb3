"""Plain-dict views of catalog entries: the JSON contract of `gpuwise gpus` and `models`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from gpuwise.catalog.arch import TransformerArch
from gpuwise.catalog.loader import Catalog, arch_of
from gpuwise.catalog.schema import GPU, ModelEntry


def _sources(entry: GPU | ModelEntry, catalog: Catalog) -> dict[str, Any]:
    out = {"default": {"id": entry.source, **asdict(catalog.sources[entry.source])}}
    for fld, sid in entry.field_sources.items():
        out[fld] = {"id": sid, **asdict(catalog.sources[sid])}
    return out


def gpu_record(gpu: GPU, catalog: Catalog, cloud: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The `gpus --json` entry; `cloud` is the offer behind its rental price (gpuwise.api.gpu_records
    passes the cheapest usable on-demand offer, as `prices` and `plan` pick it; None: no offer)."""
    link = gpu.interconnect
    return {
        "id": gpu.id,
        "name": gpu.name,
        "vendor": gpu.vendor,
        "architecture": gpu.architecture,
        "memory_bytes": gpu.memory_bytes,
        "memory_usable_bytes": gpu.memory_usable_bytes,
        "memory_type": gpu.memory_type,
        "memory_bandwidth": gpu.memory_bandwidth,
        "peak_flops": dict(gpu.peak_flops),
        "tdp_watts": gpu.tdp_watts,
        "form_factor": gpu.form_factor,
        "interconnect": None
        if link is None
        else {
            "nvlink": link.nvlink,
            "fabric": link.fabric,
            "bandwidth": link.bandwidth,
            "id": gpu.link_id,
        },
        "pcie": asdict(gpu.pcie) if gpu.pcie else None,
        "mig_max_instances": gpu.mig_max_instances,
        "node_gpus": gpu.node_gpus,
        # a multi-die board: the entry of each device software sees, and how many (mi250x: 2 x mi250x-gcd)
        "devices": None if gpu.devices is None else {"id": gpu.devices.id, "count": gpu.devices.count},
        "release": gpu.release,
        "price": {
            **asdict(gpu.price),
            "list_source": asdict(catalog.sources[gpu.source_of("price.list_usd")]),
            "cloud_usd_per_gpu_hour": None if cloud is None else cloud["usd_per_gpu_hour"],
            "cloud": None if cloud is None else dict(cloud),  # the offer: provider, instance, date, source
        },
        "notes": gpu.notes,
        "sources": _sources(gpu, catalog),
    }


def model_record(entry: ModelEntry, catalog: Catalog) -> dict[str, Any]:
    arch = arch_of(entry)
    rec: dict[str, Any] = {
        "id": entry.id,
        "name": entry.name,
        "kind": entry.kind,
        "task": entry.task,
        "params": int(arch.params),
        "active_params": int(arch.active_params),
        "published_params": entry.published_params,
        "published_active_params": entry.published_active_params,
    }
    if isinstance(arch, TransformerArch):
        rec["architecture"] = {
            "family": arch.family,
            "layers": arch.layers,
            "hidden": arch.hidden,
            "heads": arch.heads,
            "kv_heads": arch.kv_heads,
            "head_dim": arch.head_dim,
            "ffn": arch.ffn,
            "vocab": arch.vocab,
            "max_seq": arch.max_seq,
            "gated_ffn": arch.gated_ffn,
            "tied_embeddings": arch.tied_embeddings,
            "experts": arch.experts,
            "experts_per_token": arch.experts_per_token,
            "shared_expert_ffn": arch.shared_ffn,
            "dense_layers": arch.dense_layers,
            "dense_ffn": arch.dense_ffn,
            "kv_lora_rank": arch.kv_lora_rank,
            "kv_cache_width": arch.kv_cache_width,  # elements a token stores per layer
            "mtp_params": arch.mtp_params,
            "sliding_window": arch.sliding_window,
            "causal": arch.causal,
        }
    else:
        rec["architecture"] = {
            "flops_per_sample": entry.flops_per_sample,
            "activation_bytes_per_sample": entry.activation_bytes_per_sample,
            "input_shape": entry.input_shape,
            "embedding_tables": [asdict(t) for t in entry.embedding_tables],
        }
    rec["notes"] = entry.notes
    rec["sources"] = _sources(entry, catalog)
    if entry.params_source:
        rec["sources"]["published_params"] = {
            "id": entry.params_source,
            **asdict(catalog.sources[entry.params_source]),
        }
    return rec
