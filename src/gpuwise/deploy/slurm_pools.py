"""A team's GPU pools as Slurm configuration: `slurm.conf` node and partition lines (dev, train,
inference, with priorities, preemption and time limits), `gres.conf` (GPU type, count, device
files; MIG and shards where the dev pool shares GPUs) and `qos.sh`, the `sacctmgr` commands that
create the team's QOS with its GPU limit per pool: QOS live in Slurm's accounting database
(slurmdbd), not in slurm.conf, so they are commands to run, not lines to merge.

The pools are the same as on Kubernetes (`deploy.pools.plan_pools`): sized from the workloads'
plans and the team. Node names are placeholders (`train-h100-sxm-[01-02]`): rename them to your
hosts and give each its CPUs and memory as `slurmd -C` prints them. Pure: returns texts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from gpuwise.catalog import GPU, Catalog
from gpuwise.deploy import gpu as gpuinfo
from gpuwise.deploy.common import slug
from gpuwise.deploy.launch import time_limit
from gpuwise.deploy.pools import POOL_NAMES, Pool, PoolPlan
from gpuwise.deploy.shell import Rendered, comment, word
from gpuwise.deploy.slurm import gres_type, slurm_name, slurm_time

# ASSUMPTION (no published figure): an interactive dev session lasts at most a working day; Slurm
# has no idle-GPU reclaimer, so the time limit is what frees a forgotten session's GPU.
DEV_MAX_SECONDS = 8 * 3600
# Partition priority tiers: serving answers users now, training has a deadline, dev is best effort.
PRIORITY_TIER = {"inference": 3, "train": 2, "dev": 1}
# A preempted training job is requeued (it resumes from its checkpoint); serving and interactive
# sessions are never preempted.
PREEMPT_MODE = {"inference": "OFF", "train": "REQUEUE", "dev": "OFF"}
SLURM_FILES = ("slurm.conf", "gres.conf", "qos.sh")


@dataclass(frozen=True, slots=True)
class NodeSet:
    """Nodes of one GPU model in one pool: names, GPUs per node, and what Slurm schedules on them."""

    pool: str
    gpu: GPU
    names: str  # a Slurm hostlist, e.g. train-h100-sxm-[01-02]
    count: int  # nodes
    gpus_per_node: int
    gres: str  # the node's Gres= value
    gres_conf: str  # its gres.conf line
    why: str


def hostlist(prefix: str, count: int) -> str:
    """`prefix-01` or `prefix-[01-NN]`."""
    width = max(2, len(str(count)))
    return f"{prefix}-{1:0{width}d}" if count == 1 else f"{prefix}-[{1:0{width}d}-{count:0{width}d}]"


def _devices(gpu: GPU, n: int) -> str:
    """The device files of `n` GPUs (AMD: the DRM render nodes ROCm uses)."""
    if gpuinfo.vendor(gpu) == "amd":
        return f"/dev/dri/renderD[128-{127 + n}]" if n > 1 else "/dev/dri/renderD128"
    return f"/dev/nvidia[0-{n - 1}]" if n > 1 else "/dev/nvidia0"


def _node_set(pool: Pool, gpu: GPU, gpus: int) -> NodeSet:
    per_node = min(gpus, gpu.node_gpus)
    count = math.ceil(gpus / per_node)
    names = hostlist(f"{pool.name}-{slug(gpu.id)}", count)
    gtype, _ = gres_type(gpu)
    share = pool.share
    why = f"{pool.name} pool: {gpus} {gpu.id} on {count} node(s) of {per_node}"
    if pool.name == "dev" and share.mode == "mig" and share.mig is not None:
        # Slurm's NVML autodetection types a MIG slice <GPU type up to its first '-'>_<profile>
        # (src/plugins/gpu/nvml/gpu_nvml.c, _handle_mig); the slices' /dev/nvidia-caps files exist only
        # once the GPUs are partitioned, so gres.conf leaves them to AutoDetect.
        slices = share.mig.per_gpu * per_node
        mig_type = f"{gtype.split('-', 1)[0]}_{share.mig.name}"
        gres = f"gpu:{mig_type}:{slices}"
        line = f"NodeName={names} AutoDetect=nvml"
        why += f", MIG {share.mig.name} x {share.mig.per_gpu} per GPU ({share.reason})"
        return NodeSet(pool.name, gpu, names, count, per_node, gres, line, why)
    gres = f"gpu:{gtype}:{per_node}"
    line = f"NodeName={names} Name=gpu Type={gtype} File={_devices(gpu, per_node)}"
    if pool.name == "dev" and share.mode == "time-slicing":
        shards = share.per_gpu * per_node
        gres += f",shard:{shards}"
        line += f"\nNodeName={names} Name=shard Count={shards}"
        why += f", {share.per_gpu} shards per GPU (Slurm's GPU sharing without isolation: {share.reason})"
    return NodeSet(pool.name, gpu, names, count, per_node, gres, line, why)


def node_sets(plan: PoolPlan, catalog: Catalog) -> Iterator[NodeSet]:
    for key in POOL_NAMES:
        pool = plan.pools[key]
        for gpu_id, gpus in sorted(pool.by_model.items()):
            if gpus > 0:
                yield _node_set(pool, catalog.gpu(gpu_id), gpus)


def _max_time(pool: Pool, catalog: Catalog) -> tuple[str, str]:
    """(MaxTime, reason) of a pool's partition."""
    if pool.name == "dev":
        return slurm_time(DEV_MAX_SECONDS), "a working day (gpuwise ASSUMPTION): Slurm has no idle-GPU reclaimer"
    if pool.name == "inference":
        return "INFINITE", "services run until stopped"
    limits = [time_limit(w.chosen, catalog)[0] for w in pool.workloads]
    known = [s for s in limits if s is not None]
    if not known:
        return "INFINITE", "no train plan has a run length"
    return slurm_time(max(known)), "the longest train plan's expected time x batch_time_limit_factor (conventions.yaml)"


def _account(plan: PoolPlan) -> str:
    return slurm_name(plan.account, "team.account")


def slurm_conf(plan: PoolPlan, sets: list[NodeSet], catalog: Catalog) -> str:
    shards = any(",shard:" in s.gres for s in sets)
    lines = [
        *comment(f"gpuwise deploy: GPU pools for {plan.name} ({plan.engineers} engineers), as slurm.conf lines"),
        *comment(
            "Merge into your slurm.conf (the same file on every node). Node names are placeholders: rename them "
            "to your hosts and add CPUs=, RealMemory= etc. as `slurmd -C` prints them on each node."
        ),
        "",
        *comment("GPUs (and shards of a GPU, where the dev pool time-slices) are generic resources"),
        f"GresTypes=gpu{',shard' if shards else ''}",
        *comment(
            "a partition of a higher PriorityTier preempts jobs of a lower one on nodes they share; the pools' "
            "nodes are disjoint here, so preemption acts only once you put a node in two partitions"
        ),
        "PreemptType=preempt/partition_prio",
        "PreemptMode=REQUEUE",
        "",
    ]
    for s in sets:
        lines += [*comment(s.why), f"NodeName={s.names} Gres={s.gres} State=UNKNOWN"]
    lines.append("")
    for key in POOL_NAMES:
        mine = [s.names for s in sets if s.pool == key]
        if not mine:
            continue
        max_time, time_why = _max_time(plan.pools[key], catalog)
        lines += comment(
            f"{key}: PriorityTier {PRIORITY_TIER[key]}, PreemptMode {PREEMPT_MODE[key]}, MaxTime {max_time} "
            f"({time_why}); jobs ask for the pool's QOS (qos.sh): --qos={_account(plan)}-{key}"
        )
        lines.append(
            f"PartitionName={key} Nodes={','.join(mine)} PriorityTier={PRIORITY_TIER[key]} "
            f"PreemptMode={PREEMPT_MODE[key]} MaxTime={max_time} State=UP" + (" Default=YES" if key == "dev" else "")
        )
    return "\n".join(lines) + "\n"


def gres_conf(sets: list[NodeSet]) -> str:
    lines = [
        *comment("gpuwise deploy: the GPUs of each pool's nodes (the same file on every node, beside slurm.conf)"),
        *comment(
            "Types are the names Slurm's NVML autodetection gives the GPUs, so AutoDetect=nvml agrees with them; "
            "check a node with `slurmd -G`."
        ),
    ]
    for s in sets:
        lines += ["", *comment(s.why), s.gres_conf]
    return "\n".join(lines) + "\n"


def qos_script(plan: PoolPlan) -> str:
    """`sacctmgr` commands: the team's account, one QOS per pool with the pool's GPU limit."""
    account = _account(plan)
    lines = [
        "#!/bin/sh",
        *comment(f"gpuwise deploy: the QOS of the pools of {plan.name}, with the GPUs each may hold at once."),
        *comment(
            "QOS live in Slurm's accounting database (slurmdbd), not in slurm.conf: run this once as a Slurm "
            "administrator. It needs AccountingStorageType=accounting_storage/slurmdbd and "
            "AccountingStorageEnforce=associations,limits,qos in slurm.conf."
        ),
        "set -eu",
        f"sacctmgr -i add account {word(account)} Description={word(f'{plan.name} (gpuwise pools)')}",
    ]
    names = []
    for key in POOL_NAMES:
        pool = plan.pools[key]
        gpus = sum(pool.quota.values())
        if not gpus:
            continue
        qos = f"{account}-{key}"
        names.append(qos)
        limits = [f"GrpTRES=gres/gpu={gpus}"]
        reason = f"{key}: at most {gpus} GPU(s)"
        if key == "dev":
            limits.append("MaxTRESPerJob=gres/gpu=1")
            reason += " (slices, where the dev GPUs are shared), one per job"
        elif key == "inference":
            reason += " (the autoscaler's maximum replicas)"
        lines += [
            *comment(reason),
            f"sacctmgr -i add qos {word(qos)}",
            f"sacctmgr -i modify qos {word(qos)} set {' '.join(limits)}",
        ]
    if names:
        lines += [
            *comment("the team's account may use the three QOS; dev is its default"),
            f"sacctmgr -i modify account {word(account)} set QOS={word(','.join(names))} DefaultQOS={word(names[0])}",
        ]
    return "\n".join(lines) + "\n"


def slurm_pool_files(plan: PoolPlan, catalog: Catalog) -> Rendered:
    """slurm.conf lines, gres.conf and the QOS script for a pool plan."""
    sets = list(node_sets(plan, catalog))
    files = {"slurm.conf": slurm_conf(plan, sets, catalog), "gres.conf": gres_conf(sets), "qos.sh": qos_script(plan)}
    why = {
        "slurm.conf": f"{len(sets)} node set(s), partitions {', '.join(k for k in POOL_NAMES if any(s.pool == k for s in sets))}",
        "gres.conf": "GPU type, count and device files per node set",
        "qos.sh": "sacctmgr: the team's QOS and GPU limit per pool (accounting database)",
    }
    summary = {"target": "slurm", "kind": "pools", "plan": plan.name, **plan.as_dict()}
    commands = (
        "merge slurm.conf into your slurm.conf, copy gres.conf beside it, restart slurmctld and slurmd",
        "sh qos.sh",
    )
    notes = [a for a in plan.assumptions if "reclaimed" not in a]  # Kubernetes' idle reclaimer: not on Slurm
    notes.append(
        f"dev partition: MaxTime {slurm_time(DEV_MAX_SECONDS)} (gpuwise ASSUMPTION: a working day) frees forgotten sessions"
    )
    return Rendered("slurm", files, why, summary, tuple(notes), commands)
