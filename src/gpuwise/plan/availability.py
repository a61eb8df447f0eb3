"""Availability from the first question: what failures cost a training run at its scale, and the
spare replicas a service keeps to meet its target after losing N of them.

Training: interruptions per GPU-hour from the largest published report (reliability.yaml: the Llama 3
405B run, 419 unexpected interruptions in 54 days on 16,384 GPUs) give the job's mean time between
failures M = 1 / (rate x GPUs). A checkpoint of the unique model states (weights and optimizer,
counted once however they are sharded) takes delta to write and R to restore at the shared file
system's bandwidth. Daly's first-order optimum interval tau = sqrt(2 delta M) - delta (Young's
sqrt(2 delta M) for small delta) balances checkpoint overhead against rework, and the expected
wall time is the start-up (the same restart time, once) + the failure-free time / goodput, with
goodput = 1 / (1 + delta/tau + (tau/2 + R)/M).

Serving: --redundancy N adds N replicas to those the target needs and spreads them one per node,
so that losing N replicas or nodes still leaves enough (N+1 sizing).
"""

from __future__ import annotations

import math
from dataclasses import replace

from gpuwise.catalog import Catalog
from gpuwise.estimate.run import Estimate
from gpuwise.plan.results import Candidate, Code, Meet, Reason, Reliability

__all__ = ["Reliability", "add_redundancy", "interruptions_per_gpu_hour", "training_reliability"]


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


def training_reliability(est: Estimate, cat: Catalog) -> Reliability | None:
    """Expected losses of the run `est` times (None without a total: no --tokens or --samples)."""
    t = est.training
    if t is None or not t.total_seconds:
        return None
    rate = interruptions_per_gpu_hour(cat)
    mtbf = 3600 / (rate * est.hardware.count)
    size = _checkpoint_bytes(est)
    bandwidth = cat.pipeline["parallel_fs_client_bytes_per_s"].value * est.hardware.nodes
    delta = size / bandwidth
    start = cat.reliability["restart_seconds_per_interruption"].value  # every run starts once, too
    restore = size / bandwidth + start
    tau = max(_daly_interval(delta, mtbf), delta)
    # nothing on the GPUs to save (states offloaded to the host): no checkpoint cost, restarts only
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
        expected_seconds=start + t.total_seconds / goodput,
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
    return replace(c, replicas=replicas, serving=serving, meets=meets)
