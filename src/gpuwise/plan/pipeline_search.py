"""The data pipeline as a design dimension: when a job's GPUs wait for data, buy a faster pipeline
before buying GPUs for their CPUs.

For a GPU type and each small count (up to a few nodes), the GPUs' own rate comes from the layout
search without a pipeline; each host-side design (loader cores per node x storage tier x sample
format, pipeline.yaml, every value with its source) then delivers its own rate, and the run goes at
the slower of the two. The cheapest design that meets the deadline, GPU hours plus what the design
adds (extra loader cores, the storage tier's price, staging onto local NVMe), becomes a candidate
carrying the upgraded pipeline; the plan shows the GPU-only answer beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import product

from gpuwise.catalog import GPU, Catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.cost import HOURS_PER_MONTH
from gpuwise.estimate.pipeline import pipeline_rate
from gpuwise.estimate.rates import Rates
from gpuwise.plan.layouts import best_layout, hardware
from gpuwise.plan.results import PipelineUpgrade
from gpuwise.workload import DataPipeline, Hardware, TrainingJob

__all__ = ["PipelineDesign", "best_pipeline", "designs"]

MAX_NODES = 4  # pipeline designs are proposed for jobs of a few nodes; larger ones scale GPUs anyway
CORE_STEPS = (1, 2, 3)  # loader cores per node: the user's, then twice and three times (catalog cap)
GB = 10**9  # storage is priced per decimal GB
TIB = 2**40  # parallel file systems scale their bandwidth per TiB provisioned


@dataclass(frozen=True, slots=True)
class PipelineDesign:
    """One host-side design and what it adds to the run's cost."""

    cores: int  # loader cores per node
    storage: str  # current | object-store | parallel-fs | nvme-raid
    fmt: str  # as-is | preprocessed | gpu-decode
    data: DataPipeline
    usd_per_hour: float  # extra cores on all nodes + the storage tier, per hour of the run
    staging_seconds: float  # copying the data set onto local NVMe before the run

    def upgrade(self, nodes: int) -> PipelineUpgrade:
        """This design as the upgrade a candidate on `nodes` nodes carries."""
        return PipelineUpgrade(
            loader_cores_per_node=self.cores,
            storage=self.storage,
            format=self.fmt,
            read_bandwidth_per_node=self.data.read_bandwidth,
            decode_seconds=self.data.decode_seconds,
            extra_usd_per_hour=self.usd_per_hour,
            staging_seconds=self.staging_seconds,
            nodes=nodes,
        )


def _storage(
    cat: Catalog, data: DataPipeline, dataset_bytes: float, nodes: int
) -> list[tuple[str, float, float, float]]:
    """(tier, read bytes/s per node, USD per hour, staging seconds) for the current storage and each tier."""
    p = {k: v.value for k, v in cat.pipeline.items()}
    gb_hours = dataset_bytes / GB / HOURS_PER_MONTH
    fs_per_node = min(
        p["parallel_fs_client_bytes_per_s"], dataset_bytes / TIB * p["parallel_fs_bytes_per_s_per_tib"] / nodes
    )
    staging = dataset_bytes / nodes / p["object_store_read_bytes_per_s"]
    return [
        ("current", data.read_bandwidth, 0.0, 0.0),
        ("object-store", p["object_store_read_bytes_per_s"], gb_hours * p["object_store_usd_per_gb_month"], 0.0),
        ("parallel-fs", fs_per_node, gb_hours * p["parallel_fs_usd_per_gb_month"], 0.0),
        ("nvme-raid", p["nvme_raid_read_bytes_per_s"], gb_hours * p["nvme_raid_usd_per_gb_month"], staging),
    ]


def designs(work: TrainingJob, cat: Catalog, nodes: int) -> list[PipelineDesign]:
    """Every host-side design for `nodes` nodes (the user's pipeline first, adding nothing)."""
    data = work.data
    if data is None:
        return []
    p = {k: v.value for k, v in cat.pipeline.items()}
    dataset = (work.samples or 0) * data.sample_bytes
    formats = (
        ("as-is", 1.0),
        ("preprocessed", p["preprocessed_decode_factor"]),
        ("gpu-decode", p["gpu_decode_cpu_factor"]),
    )
    cores = sorted(
        {min(int(p["loader_max_cores_per_node"]), data.cpu_cores * k) for k in CORE_STEPS} | {data.cpu_cores}
    )
    out = []
    for n_cores, (tier, bw, tier_usd, staging), (fmt, factor) in product(
        cores, _storage(cat, data, dataset, nodes), formats
    ):
        extra_cores = max(0, n_cores - data.cpu_cores) * nodes * p["loader_usd_per_core_hour"]
        upgraded = replace(data, read_bandwidth=bw, decode_seconds=data.decode_seconds * factor, cpu_cores=n_cores)
        out.append(PipelineDesign(n_cores, tier, fmt, upgraded, extra_cores + tier_usd, staging))
    return out


def _gpu_rate(work: TrainingJob, hw: Hardware, cat: Catalog, rates: Rates) -> tuple[TrainingJob | None, float]:
    """The fastest layout's samples/s with the data pipeline taken away (what the GPUs could do)."""
    choice = best_layout(replace(work, data=None), hw, cat, rates)
    if choice.job is None:
        return None, 0.0
    from gpuwise.estimate.training import training_time  # a serving plan never loads it

    t = training_time(choice.job, hw, rates, topology(hw, cat, hw.network), cat)
    return replace(choice.job, data=work.data), t.samples_per_second


def best_pipeline(
    work: TrainingJob,
    gpu: GPU,
    cat: Catalog,
    rates: Rates,
    price: Callable[[Hardware], float | None],
    deadline: float | None,
    start_seconds: float = 0.0,
    shape: Callable[[int], Hardware | None] | None = None,
) -> tuple[TrainingJob, Hardware, PipelineDesign] | None:
    """The cheapest (GPUs + pipeline) run on up to MAX_NODES nodes of `gpu` that meets the deadline
    with an upgraded pipeline (None: no upgrade helps, or the user's pipeline is already the best).
    `start_seconds`: what every run spends starting (held GPUs, no progress); `shape`: the nodes a
    count of GPUs comes in (default: the GPU's usual node; None: not available)."""
    if work.data is None or not work.samples:
        return None
    best: tuple[float, TrainingJob, Hardware, PipelineDesign] | None = None
    count = 1
    while count <= gpu.node_gpus * MAX_NODES:
        shaped = hardware(gpu, count) if shape is None else shape(count)
        count *= 2
        if shaped is None:
            continue
        hw = shaped
        job, gpu_rate = _gpu_rate(work, hw, cat, rates)
        usd = price(hw)
        if job is None or usd is None:
            continue
        for d in designs(work, cat, hw.nodes):
            rate = min(gpu_rate, pipeline_rate(d.data, hw)[0])
            hours = (start_seconds + work.samples / rate + d.staging_seconds) / 3600
            if deadline is not None and hours * 3600 > deadline:
                continue
            cost = hours * (usd + d.usd_per_hour)
            if best is None or cost < best[0]:
                best = (cost, replace(job, data=d.data), hw, d)
    if best is None or (
        best[3].storage == "current" and best[3].fmt == "as-is" and best[3].cores == work.data.cpu_cores
    ):
        return None
    return best[1], best[2], best[3]
