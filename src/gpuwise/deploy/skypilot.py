"""A SkyPilot task from a plan: `train.yaml` (`sky launch`: `num_nodes` nodes, each running the
plan's torchrun from SkyPilot's node-rank and head-IP variables) or `serve.yaml` (`sky serve up`:
the plan's replicas behind SkyServe's load balancer, each running the plan's engine).

The launch facts are `deploy.launch`'s and `deploy.engines`'s, as on Kubernetes and Slurm; the GPU
and cloud names are data/skypilot.yaml's. SkyPilot's own parser checks what is written
(`sky.Task.from_yaml`, in the tests: importing SkyPilot is slow and needs its own environment).
Pure: returns texts.
"""

from __future__ import annotations

import functools
import math
from importlib import resources
from typing import Any

import yaml

from gpuwise.catalog import Catalog
from gpuwise.deploy.common import DeployConventions, DeployOptions, Why, slug
from gpuwise.deploy.engines import PIP_PACKAGES, PORT, engine_for, server_command
from gpuwise.deploy.inference import growth_replicas
from gpuwise.deploy.launch import Rendezvous as _Rdzv
from gpuwise.deploy.launch import TrainLaunch, layout_text, torchrun_args, train_launch
from gpuwise.deploy.nccl import nccl_env
from gpuwise.deploy.shell import Rendered, ShellText, array, comment, word
from gpuwise.errors import UsageError
from gpuwise.plan.results import Candidate
from gpuwise.workload import InferenceJob, TrainingJob

TRAIN_FILE = "train.yaml"
SERVE_FILE = "serve.yaml"
DEFAULT_DISK_GB = 256  # SkyPilot's default disk (sky/resources.py DEFAULT_DISK_SIZE_GB, v0.14.1)
CHECKPOINTS_KEPT = 2  # the last good checkpoint and the one being written


@functools.cache
def table() -> dict[str, Any]:
    text = resources.files("gpuwise.deploy").joinpath("data/skypilot.yaml").read_text(encoding="utf-8")
    return dict(yaml.safe_load(text))


def skypilot_gpus() -> frozenset[str]:
    """The gpuwise GPU ids SkyPilot's catalog names."""
    return frozenset(table()["accelerators"])


def accelerator(gpu_id: str, cloud: str | None) -> tuple[str, str]:
    """(SkyPilot's accelerator name for the GPU on that cloud, a note or '')."""
    entry = table()["accelerators"].get(gpu_id)
    if entry is None:
        raise UsageError(
            f"SkyPilot's catalog has no accelerator for {gpu_id}: plan on one of {sorted(skypilot_gpus())}"
        )
    name = (entry.get("by_cloud") or {}).get(cloud, entry["name"])
    return str(name), str(entry.get("note", ""))


class _Block(str):
    """A multi-line string written as a YAML literal block."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Block, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", str(s), style="|"))


def _resources(
    c: Candidate, per_node: int, disk: tuple[int, str], ports: int | None
) -> tuple[dict[str, Any], list[str]]:
    """`resources` and the reasons for it: the accelerators, the offer's cloud and region, spot, disk."""
    offer = {} if c.offer is None else c.offer.as_dict()
    provider = offer.get("provider")
    cloud = table()["clouds"].get(provider) if provider else None
    gpu = c.est.hardware.gpu
    name, note = accelerator(gpu.id, cloud)
    res: dict[str, Any] = {"accelerators": f"{name}:{per_node}"}
    why = [
        f"accelerators {name}:{per_node}: {per_node} {gpu.id} per node, SkyPilot's name for it"
        + (f" ({note})" if note else "")
    ]
    if cloud:
        res["cloud"] = cloud
        where = f"{offer.get('instance')} from {provider}"
        region = offer.get("region")
        if region and region not in ("any", "cn"):
            res["region"] = region
            where += f" in {region}"
        why.append(
            f"cloud{', region' if 'region' in res else ''}: the plan priced {where}; drop them to let SkyPilot shop"
        )
    elif provider:
        why.append(f"no cloud: the plan's offer is from {provider}, which SkyPilot does not launch on")
    spot = c.pricing == "spot"
    res["use_spot"] = spot
    why.append("use_spot: the plan is priced " + ("at spot rates (preemptible)" if spot else f"{c.pricing}"))
    res["disk_size"] = disk[0]
    why.append(f"disk_size {disk[0]} GB: {disk[1]}")
    if ports is not None:
        res["ports"] = ports
        why.append(f"ports {ports}: the engine's HTTP port, opened for SkyServe's load balancer")
    return res, why


def _disk(need_bytes: float, what: str) -> tuple[int, str]:
    gb = max(DEFAULT_DISK_GB, math.ceil(need_bytes / 1e9))
    return gb, f"{what} ({need_bytes / 1e9:,.0f} GB), at least SkyPilot's default {DEFAULT_DISK_GB} GB"


def _dump(header: list[str], tree: dict[str, Any]) -> str:
    body = yaml.dump(tree, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=10**6, allow_unicode=True)
    return "\n".join(header) + "\n" + body


# ------------------------------------------------------------------------------------------
def training_task(launch: TrainLaunch, options: DeployOptions) -> tuple[str, list[str]]:
    c, work = launch.c, launch.work
    mem = c.est.memory.per_gpu
    shard = (mem.weights + mem.optimizer) * launch.per_node * CHECKPOINTS_KEPT
    res, why = _resources(c, launch.per_node, _disk(shard, "this node's checkpoint shards, the last two"), None)
    rdzv = _Rdzv(
        "static",
        ShellText("${head_ip}"),
        "the first of SkyPilot's node IPs",
        rank=(ShellText("${SKYPILOT_NODE_RANK}"), "this node's rank, set by SkyPilot"),
    )
    launcher = torchrun_args(launch.nodes, launch.per_node, None, rdzv if launch.nodes > 1 else None, "SkyPilot node")
    run = [
        "set -euo pipefail",
        *comment("the first node SkyPilot lists is the rendezvous master"),
        'head_ip=$(echo "$SKYPILOT_NODE_IPS" | head -n 1)',
        *comment("torchrun's processes per node: the GPUs SkyPilot gave each node (the plan's count)"),
        *array("launcher", [_gpus_from_skypilot(a) for a in launcher]),
        f"trainer=({word(options.script)})",
        *array("stack_args", list(launch.stack_args)),
        'torchrun "${launcher[@]}" "${trainer[@]}" "${stack_args[@]}"',
    ]
    envs = {e.name: e.value for e in launch.nccl}
    envs["GPUWISE_LAYOUT"] = layout_text(work)
    tree: dict[str, Any] = {
        "name": launch.name,
        "resources": res,
        "num_nodes": launch.nodes,
        "workdir": ".",
        "envs": envs,
        "setup": _Block(
            "set -euo pipefail\n"
            "# your training stack: requirements.txt in the workdir, else PyTorch (torchrun)\n"
            "if [ -f requirements.txt ]; then pip install -r requirements.txt; else pip install torch; fi\n"
        ),
        "run": _Block("\n".join(run) + "\n"),
    }
    header = [
        *comment(f"gpuwise deploy: {c.label} ({work.model.name} {work.task}, {work.method}), stack {launch.framework}"),
        *comment(f"launch: sky launch -c {launch.name} {TRAIN_FILE}"),
        *comment(
            f"num_nodes {launch.nodes}: the plan's nodes; envs: NCCL for {launch.fabric.intra}"
            + (f" and {launch.fabric.network_name}" if launch.fabric.inter else "")
        ),
        *[line for w in why for line in comment(w)],
    ]
    return _dump(header, tree), list(launch.notes)


def _gpus_from_skypilot(arg: Any) -> Any:
    """torchrun's --nproc-per-node from SKYPILOT_NUM_GPUS_PER_NODE (the plan's count, as requested)."""
    value = arg.value if isinstance(arg, Why) else arg
    if isinstance(value, str) and value.startswith("--nproc-per-node="):
        return Why(ShellText("--nproc-per-node=${SKYPILOT_NUM_GPUS_PER_NODE}"), arg.why if isinstance(arg, Why) else "")
    return arg


def serving_task(c: Candidate, options: DeployOptions, catalog: Catalog) -> tuple[str, list[str]]:
    work = c.est.workload
    assert isinstance(work, InferenceJob)
    hw = c.est.hardware
    if hw.nodes > 1:
        raise UsageError(f"a replica of this plan spans {hw.nodes} nodes: the SkyPilot target serves one-node replicas")
    engine, engine_why = engine_for(work, options.engine)
    batch = c.serving.max_batch if c.serving is not None else work.concurrency
    server = server_command(engine, c, catalog, options.model_source, batch)
    conv = DeployConventions.from_catalog(catalog)
    weights = c.est.memory.per_gpu.weights * max(work.parallel.tp, 1)
    cache = max(conv.model_cache_min_bytes, weights * (1 + conv.model_cache_headroom))
    res, why = _resources(c, hw.count, _disk(cache, "the downloaded weights and the engine's cache"), PORT)
    unpacked = _one_replica_per_instance(c)
    why += [unpacked] if unpacked else []
    capacity = None if c.serving is None else c.serving.capacity_rps_per_replica
    service: dict[str, Any] = {"readiness_probe": server.health}
    if capacity:
        grown = growth_replicas(c)
        most = max(grown or 0, 2 * c.replicas)
        service["replica_policy"] = {
            "min_replicas": c.replicas,
            "max_replicas": most,
            "target_qps_per_replica": round(float(capacity), 4),
        }
        why.append(
            f"replica_policy: at least the plan's {c.replicas} replica(s), each good for {capacity:,.4g} requests/s "
            f"within the latency target; at most {most}: "
            + (
                "the growth check's replicas"
                if grown and grown >= 2 * c.replicas
                else "room for twice the load (ASSUMPTION)"
            )
        )
    else:
        service["replicas"] = c.replicas
    envs: dict[str, str] = {}
    if work.parallel.tp > 1:
        envs = {e.name: e.value for e in nccl_env(hw, catalog, socket_ifname=options.socket_ifname)[1]}
    run = [
        "set -euo pipefail",
        f"server=({' '.join(word(p) for p in server.program)})",
        *array("engine_args", list(server.args)),
        'exec "${server[@]}" "${engine_args[@]}"',
    ]
    tree: dict[str, Any] = {"name": options.name or slug(work.model.name), "resources": res, "service": service}
    if envs:
        tree["envs"] = envs
    tree["setup"] = _Block(f"set -euo pipefail\npip install {word(PIP_PACKAGES[engine])}\n")
    tree["run"] = _Block("\n".join(run) + "\n")
    header = [
        *comment(f"gpuwise deploy: {c.label} ({work.model.name} serving with {engine}: {engine_why})"),
        *comment(f"launch: sky serve up {SERVE_FILE}"),
        *[line for w in why for line in comment(w)],
    ]
    return _dump(header, tree), [*server.notes, *([unpacked] if unpacked else [])]


def _one_replica_per_instance(c: Candidate) -> str | None:
    """Where the plan packs several replicas into one instance: SkyServe gives each replica a
    cluster of its own, so the fleet it rents is not the one the plan priced."""
    q = c.offer
    if q is None or q.per_instance < 2:
        return None
    return (
        f"the plan packs up to {q.per_instance} replicas into each {q.offer.gpus_per_instance}-GPU "
        f"{q.offer.instance} ({q.instances} instance(s) for {q.replicas} replicas); SkyServe launches every replica on "
        f"its own cluster of {c.est.hardware.count} GPU(s), which can cost more than the plan "
        "(the Kubernetes and Slurm targets pack replicas onto shared nodes)"
    )


def skypilot_files(c: Candidate, options: DeployOptions, catalog: Catalog) -> Rendered:
    """The SkyPilot task for a plan's chosen candidate."""
    work = c.est.workload
    summary: dict[str, Any] = {"target": "skypilot", "plan": c.label, "gpu": c.est.hardware.gpu.id}
    if options.image:
        raise UsageError("--image: SkyPilot tasks here install the stack in `setup`; set resources.image_id yourself")
    if isinstance(work, TrainingJob):
        launch = train_launch(c, options, catalog)
        text, notes = training_task(launch, options)
        summary.update(kind="training", nodes=launch.nodes, gpus_per_node=launch.per_node)
        line = f"sky launch: {launch.nodes} node(s) x {launch.per_node} GPUs, torchrun ({launch.framework})"
        return Rendered(
            "skypilot",
            {TRAIN_FILE: text},
            {TRAIN_FILE: line},
            summary,
            tuple(notes),
            (f"sky launch -c {launch.name} {TRAIN_FILE}",),
        )
    text, notes = serving_task(c, options, catalog)
    summary.update(kind="inference", replicas=c.replicas, gpus_per_replica=c.est.hardware.count)
    line = f"sky serve up: {c.replicas} replica(s) of {c.est.hardware.count} GPU(s)"
    return Rendered(
        "skypilot", {SERVE_FILE: text}, {SERVE_FILE: line}, summary, tuple(notes), (f"sky serve up {SERVE_FILE}",)
    )
