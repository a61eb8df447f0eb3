"""The data pipeline: storage reads and CPU decoding against the GPUs' consumption rate.

The requirement documents' e-commerce case is a job whose GPUs wait on Parquet reads and CPU
parsing; when the loader is slower than the GPUs, training runs at the loader's rate.
"""

from __future__ import annotations

from gpuwise.workload import DataPipeline, Hardware


def pipeline_rate(data: DataPipeline, hw: Hardware) -> tuple[float, str]:
    """Samples per second the loaders of all nodes deliver, and which side limits them."""
    io = data.read_bandwidth / data.sample_bytes
    cpu = data.cpu_cores / data.decode_seconds if data.decode_seconds > 0 else float("inf")
    per_node = min(io, cpu)
    side = "storage reads" if io <= cpu else "CPU decoding"
    why = (
        f"data pipeline: {per_node:,.0f} samples/s per node, limited by {side} "
        f"(reads {io:,.0f}/s, decode {cpu:,.0f}/s), {hw.nodes} node(s)"
    )
    return per_node * hw.nodes, why
