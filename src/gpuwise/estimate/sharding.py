"""Where ZeRO-2/3 states are sharded and what their collectives move, over which link.

Three layouts of a ZeRO-3/FSDP run over `dp` data-parallel ranks, `g` of them in each node:

- full sharding: every state is split over all `dp` ranks; each micro-batch all-gathers the
  parameters for forward and again for backward and reduce-scatters the gradients, each collective
  over every rank (across nodes: the hierarchical algorithm, 1/g of the buffer over the network);
- hybrid sharding (FSDP HYBRID_SHARD, torchtitan HSDP): states split over the `g` ranks of a node and
  replicated on every node; the all-gathers and the reduce-scatter stay inside the node, and the
  gradient shards (1/g of the gradients) are all-reduced across the `dp / g` replicas, each rank with
  its peers in the other nodes over its share of the node's NICs;
- ZeRO++ (DeepSpeed; Wang et al. 2023): qwZ all-gathers the weights as int8, hpZ keeps a secondary
  16-bit weight shard over the node's `g` ranks so the backward all-gather stays inside the node, qgZ
  reduce-scatters the gradients as int4. Across nodes a micro-batch moves 0.5 + 0 + 0.25 of the 16-bit
  model instead of 1 + 1 + 1 (the paper's 3M -> 0.75M).

Block scales of the quantized collectives (one value per block of hundreds of elements) and the
quantization kernels are not timed; the notes say so.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.estimate.comm import Topology, collective, collective_across_nodes
from gpuwise.workload.build import data_parallel
from gpuwise.workload.specs import DTYPE_BYTES, Hardware, TrainingJob

INT4_BYTES = DTYPE_BYTES["int4"]  # qgZ's gradient element
INT8_BYTES = DTYPE_BYTES["int8"]  # qwZ's weight element


def node_ranks(job: TrainingJob, hw: Hardware) -> int:
    """Data-parallel (x context-parallel) ranks inside one node: tensor parallelism takes the rest."""
    group = data_parallel(job, hw) * job.parallel.cp
    return max(1, min(group, hw.gpus_per_node // job.parallel.tp))


def expert_data_parallel(job: TrainingJob, hw: Hardware) -> tuple[int, int]:
    """(ranks, ranks in one node) of the group that reduces one expert's gradients: Megatron Core folds a
    stage's tp x cp x dp ranks into etp x ep x expert-dp, the ep x etp ranks adjacent (inside a node
    where they fit), so the expert-data-parallel ranks are strided across the nodes."""
    par = job.parallel
    grid = par.ep * par.expert_tp
    ranks = max(1, hw.count // (par.pp * grid))
    return ranks, max(1, min(ranks, hw.gpus_per_node // grid))


def shard_ranks(job: TrainingJob, hw: Hardware) -> int:
    """Ranks each ZeRO-sharded state is split over: the data x context parallel group (Megatron's
    distributed optimizer and FSDP shard over it), or under hybrid sharding its part in one node."""
    if job.parallel.sharding == "hybrid" and job.parallel.zero >= 1:
        return node_ranks(job, hw)
    return data_parallel(job, hw) * job.parallel.cp


def secondary_weight_bytes(job: TrainingJob, hw: Hardware, stage_params: float, element_bytes: float) -> float:
    """hpZ's secondary partition: the stage's 16-bit weights split over the node's ranks, kept
    beside the primary shard (ZeRO++ section 3.2: M/g more per GPU)."""
    if "hpz" not in job.parallel.zeropp or job.parallel.zero < 3:
        return 0.0
    return stage_params * element_bytes / node_ranks(job, hw)


@dataclass(frozen=True, slots=True)
class Zero3Comm:
    """One micro-batch's ZeRO-3 collectives by name (seconds), the first layer's gather (never
    hidden under compute) and what the layout assumed, in words."""

    terms: dict[str, float]
    first_layer: float
    notes: tuple[str, ...]

    @property
    def total(self) -> float:
        return sum(self.terms.values())


def zero3_comm(
    job: TrainingJob,
    hw: Hardware,
    topo: Topology,
    weight_bytes: tuple[float, float],
    grad_bytes: tuple[float, float],
    layers: int,
    experts: tuple[float, tuple[int, int]] | None = None,
) -> Zero3Comm:
    """The collectives of one micro-batch under the job's layout. `weight_bytes` and `grad_bytes`:
    (the stage's bytes as gathered / reduced, bytes of one element); `experts`: the MoE experts' share
    of them and their expert-data-parallel group (ranks, ranks in a node), over which that share is
    gathered and reduced (full sharding; hybrid sharding and ZeRO++ keep it with the rest)."""
    par, dp, spans = job.parallel, data_parallel(job, hw), hw.nodes > 1
    w, w_elem = weight_bytes
    grads, g_elem = grad_bytes
    per_layer = w / max(layers, 1)
    if par.sharding == "hybrid" and spans and dp > node_ranks(job, hw):
        g = node_ranks(job, hw)
        gather = collective("all_gather", w, g, topo, spans_nodes=False)
        terms = {
            "param_all_gather_forward": gather,
            "param_all_gather_backward": gather,
            "grad_reduce_scatter": collective("reduce_scatter", grads, g, topo, spans_nodes=False),
            "grad_all_reduce_across_nodes": collective_across_nodes("all_reduce", grads / g, dp // g, topo),
        }
        note = (
            f"hybrid sharding (HSDP): states sharded over the {g} data-parallel ranks of a node, replicated on "
            f"{dp // g} nodes; parameter all-gathers and the gradient reduce-scatter inside the node, the gradient "
            "shards all-reduced across nodes each micro-batch"
        )
        return Zero3Comm(terms, collective("all_gather", per_layer, g, topo, spans_nodes=False), (note,))
    if par.zeropp and spans:
        return _zeropp(job, hw, topo, (w, w_elem), (grads, g_elem), per_layer)
    share, (e_ranks, e_node) = experts or (0.0, (dp, node_ranks(job, hw)))
    groups = ((1 - share, dp, spans, node_ranks(job, hw)), (share, e_ranks, e_ranks > e_node, e_node))

    def over(kind: str, bytes_: float) -> float:
        """The dense part over the data-parallel ranks, the experts' over theirs."""
        return sum(collective(kind, bytes_ * f, n, topo, across, g) for f, n, across, g in groups if f > 0)

    gather = over("all_gather", w)
    terms = {
        "param_all_gather_forward": gather,
        "param_all_gather_backward": gather,
        "grad_reduce_scatter": over("reduce_scatter", grads),
    }
    note = "ZeRO-3/FSDP: parameters gathered forward and backward, gradients reduce-scattered, overlapped with compute"
    return Zero3Comm(terms, over("all_gather", per_layer), (note,))


def _zeropp(
    job: TrainingJob,
    hw: Hardware,
    topo: Topology,
    weight_bytes: tuple[float, float],
    grad_bytes: tuple[float, float],
    per_layer: float,
) -> Zero3Comm:
    """ZeRO++'s collectives (see the module docstring) for the components the job names."""
    on, dp = job.parallel.zeropp, data_parallel(job, hw)
    (w, w_elem), (grads, g_elem) = weight_bytes, grad_bytes
    qw = INT8_BYTES / w_elem if "qwz" in on else 1.0
    g = node_ranks(job, hw)
    forward = collective("all_gather", w * qw, dp, topo, spans_nodes=True, per_node=g)
    backward = collective("all_gather", w, g, topo, spans_nodes=False) if "hpz" in on else forward
    qg = INT4_BYTES / g_elem if "qgz" in on else 1.0
    terms = {
        "param_all_gather_forward": forward,
        "param_all_gather_backward": backward,
        "grad_reduce_scatter": collective("reduce_scatter", grads * qg, dp, topo, spans_nodes=True, per_node=g),
    }
    parts = []
    if "qwz" in on:
        parts.append(f"qwZ: weights all-gathered as int8 ({qw:.2g} of their bytes)")
    if "hpz" in on:
        parts.append(f"hpZ: the backward all-gather from a secondary shard over the node's {g} ranks")
    if "qgz" in on:
        parts.append(f"qgZ: gradients reduce-scattered as int4 ({qg:.2g} of their bytes)")
    note = (
        "ZeRO++ (DeepSpeed): "
        + "; ".join(parts)
        + " [Wang et al. 2023]; block scales and the quantization kernels are not timed"
    )
    return Zero3Comm(terms, collective("all_gather", per_layer * qw, dp, topo, spans_nodes=True, per_node=g), (note,))


def sharded_optimizer_comm(
    job: TrainingJob,
    hw: Hardware,
    topo: Topology,
    grad_bytes: float,
    param_bytes: float,
    group: tuple[int, int] | None = None,
) -> tuple[float, float]:
    """(gradient reduction, updated-parameter all-gather) seconds of a step under ZeRO-1/2: over
    every data-parallel rank, or under hybrid ZeRO-1/2 (Megatron Core's partial distributed optimizer,
    FSDP _HYBRID_SHARD_ZERO2) a reduce-scatter inside the node plus the shards' all-reduce across
    nodes, and the all-gather inside the node. `group` (ranks, ranks in a node): another group than
    the data-parallel one (MoE experts' expert-data-parallel group, fully sharded over it)."""
    if group is not None:
        ranks, g = group
        spans = ranks > g
        scatter = collective("reduce_scatter", grad_bytes, ranks, topo, spans, g)
        return scatter, collective("all_gather", param_bytes, ranks, topo, spans, g)
    dp, spans = data_parallel(job, hw), hw.nodes > 1
    g = node_ranks(job, hw)
    if job.parallel.sharding == "hybrid" and spans and dp > g:
        scatter = collective("reduce_scatter", grad_bytes, g, topo, spans_nodes=False)
        scatter += collective_across_nodes("all_reduce", grad_bytes / g, dp // g, topo)
        return scatter, collective("all_gather", param_bytes, g, topo, spans_nodes=False)
    scatter = collective("reduce_scatter", grad_bytes, dp, topo, spans, g)
    return scatter, collective("all_gather", param_bytes, dp, topo, spans, g)
