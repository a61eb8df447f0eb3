"""What a training run loses beyond its failure-free time at its scale, each loss from published
measurements (reliability.yaml), none fitted:

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
stretched to the ceiling, plus the stragglers' share) / goodput. Part of every training estimate
with a total (--tokens or --samples), so that `estimate` says what a plan's row ranks by.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuwise.catalog import Catalog, GenericArch
from gpuwise.catalog.schema import AtScaleRun
from gpuwise.workload import TrainingJob

if TYPE_CHECKING:
    from gpuwise.estimate.run import Estimate

__all__ = [
    "AT_SCALE_MIN_GPUS",
    "Reliability",
    "at_scale_ceiling",
    "interruptions_per_gpu_hour",
    "straggler_share",
    "training_reliability",
]


@dataclass(frozen=True, slots=True)
class Reliability:
    """What a training run loses beyond its failure-free time at the layout's modelled rate
    (seconds unless named otherwise): the efficiency runs at its scale reached, slow hosts, and
    failures (checkpoints, rework, restarts), with the start-up once. `losses` names the terms;
    they and the failure-free time add up to the expected time."""

    interruptions_per_gpu_hour: float
    mtbf_seconds: float  # of the whole job
    checkpoint_bytes: float
    write_seconds: float
    restore_seconds: float
    interval_seconds: float  # Daly's first-order optimum
    goodput: float  # useful training time / wall time
    failure_free_seconds: float
    start_seconds: float  # scheduling, start-up and loading, once per run (as after an interruption)
    expected_seconds: float
    at_scale_seconds: float = 0.0  # added where the layout's MFU exceeds the best published at its scale
    at_scale_mfu: float | None = None  # that published ceiling (None: none applies)
    at_scale_run: str | None = None  # the run (at_scale_mfu id) that set it
    straggler_seconds: float = 0.0  # slow hosts holding back the synchronous steps

    @property
    def expected_interruptions(self) -> float:
        return self.expected_seconds / self.mtbf_seconds

    @property
    def losses(self) -> dict[str, float]:
        """Seconds by cause; with the failure-free time they add up to the expected time."""
        useful = self.failure_free_seconds + self.at_scale_seconds + self.straggler_seconds
        return {
            "at_scale_efficiency": self.at_scale_seconds,
            "stragglers": self.straggler_seconds,
            "checkpoints_and_failures": self.expected_seconds - self.start_seconds - useful,
            "start": self.start_seconds,
        }

    def as_dict(self, gpus: int) -> dict[str, Any]:
        """The JSON of `estimate` and of each plan candidate (`gpus`: the run's GPU count)."""
        return {
            "interruptions_per_gpu_hour": self.interruptions_per_gpu_hour,
            "mtbf_seconds": self.mtbf_seconds,
            "expected_interruptions": self.expected_interruptions,
            "checkpoint_bytes": self.checkpoint_bytes,
            "checkpoint_write_seconds": self.write_seconds,
            "checkpoint_restore_seconds": self.restore_seconds,
            "checkpoint_interval_seconds": self.interval_seconds,
            "goodput": self.goodput,
            "failure_free_seconds": self.failure_free_seconds,
            "start_seconds": self.start_seconds,
            "expected_seconds": self.expected_seconds,
            "expected_gpu_hours": self.expected_seconds * gpus / 3600,
            "losses_seconds": self.losses,
            "at_scale_mfu": self.at_scale_mfu,
            "at_scale_run": self.at_scale_run,
            "basis": "reliability.yaml: Llama 3 interruption rate, Young/Daly checkpoint interval, MegaScale's slow "
            "hosts, the best MFU published at this scale (at_scale_mfu)",
        }


AT_SCALE_MIN_GPUS = 256  # runs this large are held to what published runs at their scale reached
SIXTEEN_BIT = ("bf16", "fp16")  # the published ceilings are 16-bit runs' MFU against the 16-bit peak


def interruptions_per_gpu_hour(cat: Catalog) -> float:
    """419 / (54 days x 24 h x 16,384 GPUs): about 2.0e-5 per GPU-hour."""
    r = cat.reliability
    hours = r["interruption_window_days"].value * 24 * r["interruption_cluster_gpus"].value
    return r["unexpected_interruptions"].value / hours


def _checkpoint_bytes(est: Estimate, cat: Catalog) -> float:
    """Weights and optimizer states, each once: sharded ones summed over every GPU, replicated ones
    over one model-parallel group. States offloaded to host memory (ZeRO-Offload, FSDP cpu_offload)
    are saved too: a checkpoint holds them wherever they live. A recommender's embedding tables and
    their row-wise states are sharded over every GPU and saved whole, not as the most loaded GPU's."""
    w, hw = est.workload, est.hardware
    per = est.memory.per_gpu
    group = w.parallel.tp * w.parallel.pp
    zero = getattr(w.parallel, "zero", 0)
    offloaded = per.detail.get("offloaded_to_cpu", 0.0)
    tables, table_states = per.detail.get("embedding_tables", 0.0), per.detail.get("embedding_optimizer", 0.0)
    weights = (per.weights - tables) * (hw.count if zero >= 3 else group)
    states = (per.optimizer - table_states + offloaded) * (hw.count if zero >= 1 else group)
    model = w.model
    if tables and isinstance(model, GenericArch) and isinstance(w, TrainingJob):
        from gpuwise.estimate.memory.states import training_element_bytes

        rows = sum(r for r, _ in model.embedding_tables)
        weights += model.embedding_params * training_element_bytes(w)
        states += rows * cat.convention("rowwise_adagrad_state_bytes_per_row")
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
    size = _checkpoint_bytes(est, cat)
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
