"""Availability from the first question: what a training run loses at its scale, and the spare
replicas a service keeps to meet its target after losing N of them.

Training, each loss from published measurements (reliability.yaml), none fitted:

- efficiency at scale: on 256 GPUs or more, a run is assumed to reach at most the best model-FLOPs
  utilization published for a run on its GPU architecture at its GPU count or beyond (at_scale_mfu;
  where none ran that large, the largest count published); a layout the time model rates higher
  is stretched to it;
- stragglers: about 0.5 % of hosts run slower (MegaScale); a job on N hosts holds one with
  probability 1 - (1 - 0.005)^N, and loses 0.7 / 55.2 of its step while it does;
- failures: interruptions per GPU-hour from the largest published report (the Llama 3 405B run,
  419 unexpected interruptions in 54 days on 16,384 GPUs) give the job's mean time between failures
  M = 1 / (rate x GPUs). A checkpoint of the unique model states (weights and optimizer, counted once
  however they are sharded) takes delta to write and R to restore at the shared file system's
  bandwidth. Daly's first-order optimum interval tau = sqrt(2 delta M) - delta (Young's
  sqrt(2 delta M) for small delta) balances checkpoint overhead against rework; goodput =
  1 / (1 + delta/tau + (tau/2 + R)/M).

The expected wall time is the start-up (the restart time, once) + the useful time (failure-free,
stretched to the ceiling, plus the stragglers' share) / goodput.

Serving: --redundancy N adds N replicas to those the target needs and spreads them one per node,
so that losing N replicas or nodes still leaves enough (N+1 sizing).
"""

from __future__ import annotations

import math
from dataclasses import replace

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import AtScaleRun
from gpuwise.estimate.run import Estimate
from gpuwise.plan.results import Candidate, Code, Meet, Reason, Reliability

__all__ = [
    "AT_SCALE_MIN_GPUS",
    "Reliability",
    "add_redundancy",
    "at_scale_ceiling",
    "interruptions_per_gpu_hour",
    "straggler_share",
    "training_reliability",
]

AT_SCALE_MIN_GPUS = 256  # runs this large are held to what published runs at their scale reached
SIXTEEN_BIT = ("bf16", "fp16")  # the published ceilings are 16-bit runs' MFU against the 16-bit peak


def interruptions_per_gpu_hour(cat: Catalog) -> float:
    """419 / (54 days x 24 h x 16,384 GPUs): about 2.0e-5 per GPU-hour."""
    r = cat.reliability
    hours = r["interruption_window_days"].value * 24 * r["interruption_cluster_gpus"].value
    return r["unexpected_interruptions"].value / hours


def _checkpoint_bytes(est: Estimate) -> float:
    """Weights and optimizer states, each once: sharded ones summed over every GPU, replicated ones
    over one model-parallel group. States offloaded to host memory (ZeRO-Offload, FSDP cpu_offload)
    are saved too: a checkpoint holds them wherever they live."""
    w, hw = est.workload, est.hardware
    per = est.memory.per_gpu
    group = w.parallel.tp * w.parallel.pp
    zero = getattr(w.parallel, "zero", 0)
    offloaded = per.detail.get("offloaded_to_cpu", 0.0)
    weights = per.weights * (hw.count if zero >= 3 else group)
    states = (per.optimizer + offloaded) * (hw.count if zero >= 1 else group)
    return weights + states


def _daly_interval(delta: float, mtbf: float) -> float:
    """Daly's first-order optimum (Young's for delta << M); the whole MTBF once delta reaches M/2."""
    if delta >= mtbf / 2:
        return mtbf
    return math.sqrt(2 * delta * mtbf) - delta


def at_scale_ceiling(cat: Catalog, architecture: str, gpus: int) -> AtScaleRun | None:
    """The best published MFU of a run on `architecture` at `gpus` GPUs or more (where none ran that
    large, at the largest count published); None below AT_SCALE_MIN_GPUS or without a published run."""
    rows = [r for r in cat.at_scale if r.architecture == architecture]
    if gpus < AT_SCALE_MIN_GPUS or not rows:
        return None
    largest = max(r.gpus for r in rows)
    beyond = [r for r in rows if r.gpus >= min(gpus, largest)]
    return max(beyond, key=lambda r: r.mfu)


def _layout_mfu(est: Estimate) -> float | None:
    """The layout's modelled MFU against the GPU's 16-bit peak (None for a run in another precision:
    the published ceilings are 16-bit runs)."""
    t, w, gpu = est.training, est.workload, est.hardware.gpu
    precision = getattr(w, "precision", None)
    if t is None or precision not in SIXTEEN_BIT or not t.step_seconds:
        return None
    peak = gpu.peak_flops.get(precision) or gpu.peak_flops.get("bf16")
    return t.flops_per_step / t.step_seconds / (est.hardware.count * peak) if peak else None


def straggler_share(cat: Catalog, nodes: int) -> float:
    """The step share a job on `nodes` hosts loses to slow ones: MegaScale's loss while one is in the
    job x the probability that one of `nodes` hosts is slow."""
    r = cat.reliability
    return r["straggler_step_loss"].value * (1 - (1 - r["straggler_host_share"].value) ** nodes)


def _at_scale(est: Estimate, cat: Catalog) -> tuple[float, AtScaleRun | None]:
    """The factor the failure-free time is stretched by to the published ceiling (1: none binds)."""
    ceiling = at_scale_ceiling(cat, est.hardware.gpu.architecture, est.hardware.count)
    mfu = _layout_mfu(est)
    if ceiling is None or mfu is None or mfu <= ceiling.mfu:
        return 1.0, ceiling if mfu is not None else None
    return mfu / ceiling.mfu, ceiling


def training_reliability(est: Estimate, cat: Catalog) -> Reliability | None:
    """Expected losses of the run `est` times (None without a total: no --tokens or --samples)."""
    t = est.training
    if t is None or not t.total_seconds:
        return None
    stretch, ceiling = _at_scale(est, cat)
    at_scale = t.total_seconds * (stretch - 1)
    stragglers = (t.total_seconds + at_scale) * straggler_share(cat, est.hardware.nodes)
    useful = t.total_seconds + at_scale + stragglers
    rate = interruptions_per_gpu_hour(cat)
    mtbf = 3600 / (rate * est.hardware.count)
    size = _checkpoint_bytes(est)
    bandwidth = cat.pipeline["parallel_fs_client_bytes_per_s"].value * est.hardware.nodes
    delta = size / bandwidth
    start = cat.reliability["restart_seconds_per_interruption"].value  # every run starts once, too
    restore = size / bandwidth + start
    tau = max(_daly_interval(delta, mtbf), delta)
    # nothing to save: no checkpoint cost, restarts only
    lost = delta / tau + tau / 2 / mtbf if tau > 0 else 0.0
    goodput = 1 / (1 + lost + restore / mtbf)
    return Reliability(
        interruptions_per_gpu_hour=rate,
        mtbf_seconds=mtbf,
        checkpoint_bytes=size,
        write_seconds=delta,
        restore_seconds=restore,
        interval_seconds=tau,
        goodput=goodput,
        failure_free_seconds=t.total_seconds,
        start_seconds=start,
        expected_seconds=start + useful / goodput,
        at_scale_seconds=at_scale,
        at_scale_mfu=ceiling.mfu if ceiling else None,
        at_scale_run=ceiling.id if ceiling else None,
        straggler_seconds=stragglers,
    )


def add_redundancy(c: Candidate, n: int) -> Candidate:
    """N+1 sizing of a serving candidate: N spare replicas beyond those the target needs, one
    replica per node, so that losing N replicas or nodes leaves the target met."""
    if n <= 0 or c.serving is None:
        return c
    needed = c.replicas
    replicas = needed + n
    nodes = replicas * c.est.hardware.nodes
    serving = replace(c.serving, redundancy=n, replicas_needed=needed, replicas=replicas, nodes=nodes)
    why = Reason.of(Code.SPARES, needed=needed, n=n, nodes=nodes)
    meets = c.meets.put("redundancy", Meet(True, value=n, limit=n, margin=0, why=why))
    # one per node: no replica shares an instance, so the fleet is each replica's price (none packed)
    return replace(c, replicas=replicas, serving=serving, meets=meets, fleet_usd_per_hour=None)
