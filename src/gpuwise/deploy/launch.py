"""What launching a training plan takes, whatever runs it: nodes and GPUs, the NCCL environment
of the interconnect, torchrun's arguments, the training stack's layout flags, the wall-time limit
and the CPUs a batch scheduler asks for. Kubernetes (`deploy.training`), Slurm (`deploy.slurm`)
and SkyPilot (`deploy.skypilot`) only render these facts, each in its own format.

Pure: the stack flags come from package data (data/framework_args.yaml), nothing else is read.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from gpuwise.catalog import Catalog, TransformerArch
from gpuwise.catalog.arch import is_language_model
from gpuwise.deploy.common import DeployOptions, Why, slug, why
from gpuwise.deploy.nccl import EnvVar, Fabric, nccl_env
from gpuwise.estimate.sharding import node_ranks
from gpuwise.plan.results import Candidate
from gpuwise.units import fmt_seconds
from gpuwise.workload import Hardware, TrainingJob
from gpuwise.workload.specs import stage_layers, stage_shortfall

TORCHRUN_PORT = 29500  # torchrun's default master/rendezvous port


@dataclass(frozen=True, slots=True)
class Rendezvous:
    """How the torchrun agents of a multi-node job find each other, as the target writes it:
    `static` (every node is told its rank and the master's address) or `c10d` (agents meet at an
    endpoint and are given ranks there)."""

    kind: Literal["static", "c10d"]
    host: str  # master address or the c10d endpoint's host (a target expression such as $(MASTER_ADDR))
    host_why: str
    rank: tuple[str, str] | None = None  # static: (this node's rank expression, why)
    run_id: tuple[str, str] | None = None  # c10d: (the job's id expression, why)


def torchrun_args(
    nodes: int, per_node: int, script: Any, rdzv: Rendezvous | None, agent: str = "torchrun agent"
) -> list[Any]:
    """torchrun's arguments: one process per GPU; one node needs no rendezvous, several meet per
    `rdzv`; `agent` names what runs one torchrun on each node (a pod, a Slurm task)."""
    procs = why(f"--nproc-per-node={per_node}", f"one process per GPU: {per_node} GPUs" + (" per node" * (nodes > 1)))
    args: list[Any]
    if nodes == 1 or rdzv is None:
        args = [why("--standalone", "one node: torchrun's local rendezvous, no master address needed"), procs]
        return [*args, script] if script is not None else args
    args = [why(f"--nnodes={nodes}", f"the plan's {nodes} nodes, one {agent} each"), procs]
    text = type(rdzv.host)  # a target's shell expression (ShellText) stays one through the f-strings
    if rdzv.kind == "static":
        assert rdzv.rank is not None
        args += [
            why(text(f"--node-rank={rdzv.rank[0]}"), rdzv.rank[1]),
            text(f"--master-addr={rdzv.host}"),
            f"--master-port={TORCHRUN_PORT}",
        ]
    else:
        assert rdzv.run_id is not None
        args += [
            why("--rdzv-backend=c10d", "torchrun's own rendezvous: the agents agree on node ranks among themselves"),
            why(text(f"--rdzv-endpoint={rdzv.host}:{TORCHRUN_PORT}"), rdzv.host_why),
            why(text(f"--rdzv-id={rdzv.run_id[0]}"), rdzv.run_id[1]),
        ]
    return [*args, script] if script is not None else args


# ------------------------------------------------------------------------------------------
@functools.cache
def _framework_table() -> dict[str, Any]:
    import yaml

    text = resources.files("gpuwise.deploy").joinpath("data/framework_args.yaml").read_text(encoding="utf-8")
    return dict(yaml.safe_load(text))


def layout_text(work: TrainingJob) -> str:
    """The plan's layout in one line (GPUWISE_LAYOUT in every target's environment)."""
    par = work.parallel
    text = f"tp={par.tp} pp={par.pp} zero={par.zero} micro_batch={work.micro_batch}"
    if par.sharding != "full":
        text += f" sharding={par.sharding}"
    if par.zeropp:
        text += f" zeropp={','.join(par.zeropp)}"
    return text


def _values(work: TrainingJob, hw: Hardware) -> dict[str, int]:
    par = work.parallel
    gpus = hw.count
    group = node_ranks(work, hw)
    return {
        "tp": par.tp,
        "pp": par.pp,
        "vpp": par.vpp,
        "cp": par.cp,
        "dp": par.dp(gpus),
        "shard_group": group,
        "replicas": max(1, par.dp(gpus) * par.cp // group),
        "micro_batch": work.micro_batch,
        "global_batch": work.global_batch or 0,
        "grad_accumulation": work.grad_accumulation(gpus),
        "seq": work.seq,
    }


def _sharding_row(work: TrainingJob, hw: Hardware) -> tuple[str, str | None, str]:
    par = work.parallel
    if par.sharding == "hybrid":
        where = f"inside each node's {node_ranks(work, hw)} ranks, replicated across nodes"
        return "sharding", f"hybrid-{par.zero}", f"the plan's hybrid sharding: ZeRO-{par.zero} {where}"
    return "zero", str(par.zero), f"the plan's sharding: ZeRO-{par.zero} over {par.dp(hw.count)} data-parallel ranks"


def _pipeline_split(work: TrainingJob) -> tuple[str, str | None, str] | None:
    """Where the pipeline size does not divide the layers, the memory model gives the first stage (and
    then the last) a layer fewer (stage_layers): the embedding (and the loss) take a layer's place in
    the split. A shortfall of more than two layers is no such split (the stages between would differ)."""
    model, pp = work.model, work.parallel.pp
    if not isinstance(model, TransformerArch):
        return None
    short = stage_shortfall(model.layers, pp)
    if not short:
        return None
    first, last = stage_layers(model.layers, pp, "first"), stage_layers(model.layers, pp, "last")
    sub = {1: "embedding", 2: "embedding-and-loss"}.get(short)
    return (
        "pipeline_split",
        sub,
        f"the plan's pipeline split of {model.layers} layers: {first} on the first stage beside the embedding, "
        f"{last} on the last beside the output layer",
    )


def _chosen(work: TrainingJob, hw: Hardware) -> list[tuple[str, str | None, str]]:
    """(table key, sub-key or None, reason) of every layout value the plan sets."""
    par = work.parallel
    rows: list[tuple[str, str | None, str]] = [
        ("tp", None, f"the plan's tensor parallelism ({par.tp})"),
        ("pp", None, f"the plan's pipeline stages ({par.pp})"),
    ]
    if par.vpp > 1:
        rows.append(("vpp", None, f"the plan's interleaved schedule ({par.vpp} virtual stages per pipeline rank)"))
    if split := _pipeline_split(work):
        rows.append(split)
    if par.cp > 1:
        rows.append(("cp", None, f"the plan's context parallelism ({par.cp})"))
    if par.tp > 1 and par.sequence_parallel:
        rows.append(("sequence_parallel", None, "sequence parallelism beside tensor parallelism, as the plan assumes"))
    rows.append(_sharding_row(work, hw))
    if par.zeropp:
        rows.append(("zeropp", None, f"the plan's ZeRO++ ({', '.join(par.zeropp)})"))
    rows.append(("micro_batch", None, f"the plan's micro-batch ({work.micro_batch}) per GPU"))
    if work.global_batch:
        accumulation = work.grad_accumulation(hw.count)
        rows.append(("global_batch", None, f"the plan's global batch ({work.global_batch})"))
        rows.append(("grad_accumulation", None, f"{accumulation} micro-batches per step make it"))
    rows.append(("seq", None, f"the plan's sequence length ({work.seq})"))
    rows.append(("recompute", work.recompute, f"the plan's activation recomputation ({work.recompute})"))
    rows.append(("precision", work.precision, f"the plan's training precision ({work.precision})"))
    return rows


def framework_args(work: TrainingJob, hw: Hardware, framework: str) -> tuple[list[Why], list[str]]:
    """The stack's own flags for the plan's layout, and notes for what its command line cannot say."""
    spec = _framework_table()["frameworks"].get(framework)
    if spec is None:
        return [], [
            f"{framework} takes its layout from its config file: set {layout_text(work)} there "
            "(GPUWISE_LAYOUT carries it into the job)"
        ]
    values, args, notes = _values(work, hw), [], []
    for key, sub, reason in _chosen(work, hw):
        entry = spec.get(key)
        flags = (entry.get(sub) if sub is not None else None) if isinstance(entry, dict) else entry
        trivial = (key in ("tp", "pp") and values[key] == 1) or (key == "zero" and sub == "0")
        if flags is None:
            if not trivial and key not in ("precision", "grad_accumulation", "global_batch"):
                notes.append(f"{framework} has no command-line flag for {reason}: set it in its configuration")
            continue
        for flag in flags:
            args.append(why(flag.format(**values), f"{reason} ({framework})"))
    return args, notes


# ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TrainLaunch:
    """A training plan as every target launches it."""

    c: Candidate
    work: TrainingJob
    name: str
    nodes: int
    per_node: int
    fabric: Fabric
    nccl: tuple[EnvVar, ...]
    framework: str
    framework_why: str
    stack_args: tuple[Why, ...]
    notes: tuple[str, ...]
    time_limit_seconds: float | None
    time_why: str
    cpus_per_node: int
    cpus_why: str

    @property
    def gpus(self) -> int:
        return self.nodes * self.per_node


def time_limit(c: Candidate, catalog: Catalog) -> tuple[float | None, str]:
    """(seconds, reason): the plan's expected wall time (failures and restarts included) times the
    batch_time_limit_factor convention, or None when the plan has no total (no --tokens)."""
    hours = c.hours
    if hours is None or not math.isfinite(hours):
        return None, "the plan has no run length (give --tokens or --samples): the partition's default limit applies"
    factor = catalog.convention("batch_time_limit_factor")
    seconds = hours * 3600 * factor
    return seconds, (
        f"the plan's expected {fmt_seconds(hours * 3600)} (with failures and restarts) x {factor:g} "
        "(conventions.yaml batch_time_limit_factor: most published runs land within +-20% of gpuwise's time); "
        "longer than the partition's MaxTime? chain jobs that resume from the last checkpoint"
    )


def train_launch(c: Candidate, options: DeployOptions, catalog: Catalog) -> TrainLaunch:
    """Everything a target needs to launch the training candidate `c`."""
    work = c.est.workload
    assert isinstance(work, TrainingJob)
    hw = c.est.hardware
    fab, nccl = nccl_env(hw, catalog, options.network, options.socket_ifname, options.ib_hca)
    framework = work.framework or catalog.default_framework(work.task, language_model=is_language_model(work.model))
    fw_why = "the training stack the plan was estimated for (--framework; frameworks.yaml)"
    if work.runs_plain_ddp:  # no stack named for a model its trainers run under DDP
        fw_why = (
            "no --framework for a model that is not a language model: plain DDP (torchrun, DistributedDataParallel, "
            "ZeRO-0), as the plan estimated it"
        )
    stack_args, notes = framework_args(work, hw, framework)
    seconds, time_why = time_limit(c, catalog)
    loader = work.data.cpu_cores if work.data is not None else 0
    cpus = hw.gpus_per_node + loader
    cpus_why = f"one core per GPU process ({hw.gpus_per_node})" + (
        f" plus the plan's {loader} data-loader cores per node" if loader else " (the plan has no data pipeline)"
    )
    return TrainLaunch(
        c=c,
        work=work,
        name=options.name or slug(f"{work.model.name}-{work.method}"),
        nodes=hw.nodes,
        per_node=hw.gpus_per_node,
        fabric=fab,
        nccl=tuple(nccl),
        framework=framework,
        framework_why=fw_why,
        stack_args=tuple(stack_args),
        notes=tuple(notes),
        time_limit_seconds=seconds,
        time_why=time_why,
        cpus_per_node=cpus,
        cpus_why=cpus_why,
    )
