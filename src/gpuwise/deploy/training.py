"""Training manifests from a plan: a gang-scheduled Volcano Job, or a plain Indexed batch/v1 Job
with its headless Service, wired for torchrun with NCCL settings from the planned interconnect.

Each object has its own builder; `training_manifests` puts them together. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.deploy import gpu as gpuinfo
from gpuwise.deploy.common import (
    Bundle,
    DeployConventions,
    DeployOptions,
    file_path,
    make,
    meta,
    placement,
    shm_volume,
    slug,
    why,
)
from gpuwise.deploy.launch import TORCHRUN_PORT, Rendezvous, layout_text, torchrun_args
from gpuwise.deploy.nccl import Fabric, nccl_env
from gpuwise.plan.results import Candidate
from gpuwise.workload import TrainingJob

PYTORCH_IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"
PYTORCH_ROCM_IMAGE = "rocm/pytorch:latest"


@dataclass(frozen=True, slots=True)
class _Job:
    """What every training object shares: the plan, its name, namespace, labels, layout."""

    c: Candidate
    work: TrainingJob
    options: DeployOptions
    name: str
    labels: dict[str, str]
    nodes: int
    per_node: int
    res: str

    @property
    def volcano(self) -> bool:
        return self.options.scheduler == "volcano"


def _image(job: _Job) -> tuple[str, str]:
    """(image, reason) of the training container."""
    if job.options.image:
        return job.options.image, "as given (--image)"
    if gpuinfo.vendor(job.c.est.hardware.gpu) == "amd":
        return PYTORCH_ROCM_IMAGE, "AMD's ROCm PyTorch image (torchrun, RCCL); use your training image"
    return PYTORCH_IMAGE, "NGC PyTorch (torchrun, NCCL); use your training image"


def _torchrun(job: _Job) -> tuple[list[Any], list[Any]]:
    """(torchrun arguments, environment): one process per GPU, a rendezvous at pod 0 across nodes."""
    script = why(job.options.script, "your training script (in the image or on a mounted volume)")
    if job.nodes == 1:
        return torchrun_args(1, job.per_node, script, None), []
    if job.volcano:
        master, rank_var = f"{job.name}-worker-0.{job.name}", "VC_TASK_INDEX"
        master_why = (
            "pod 0 of task 'worker': Volcano's svc plugin gives each pod the hostname <job>-worker-<i> in a "
            "headless Service named after the job"
        )
    else:
        master, rank_var = f"{job.name}-0.{job.name}", "JOB_COMPLETION_INDEX"
        master_why = "pod 0 of the Indexed Job: its hostname is <job>-0 under the headless Service named in subdomain"
    rank_why = f"this pod's index ({rank_var}, set by {'Volcano' if job.volcano else 'the Job controller'})"
    rdzv = Rendezvous("static", "$(MASTER_ADDR)", master_why, rank=(f"$({rank_var})", rank_why))
    args = torchrun_args(job.nodes, job.per_node, script, rdzv, agent="pod")
    return args, [why({"name": "MASTER_ADDR", "value": master}, master_why)]


def _container(job: _Job, fab: Fabric, nccl_vars: list[Any], mount: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(the trainer container, the RDMA note or ''): all GPUs of a node, NCCL settings, the layout."""
    work = job.work
    args, env = _torchrun(job)
    env += nccl_vars
    env.append(
        why(
            {"name": "GPUWISE_LAYOUT", "value": layout_text(work)},
            "the layout the plan fits in memory: configure the script's parallelism to match",
        )
    )
    limits = {job.res: why(job.per_node, f"all {job.per_node} GPUs of a node: one pod per node")}
    resources: dict[str, Any] = {"limits": limits}
    if work.data is not None:
        cores = work.data.cpu_cores
        resources["requests"] = {"cpu": why(str(cores), f"the plan's data pipeline uses {cores} loader cores per node")}
    container: dict[str, Any] = {
        "name": "trainer",
        "image": why(*_image(job)),
        "command": ["torchrun"],
        "args": args,
        "env": env,
        "resources": resources,
        "volumeMounts": [mount],
    }
    if job.nodes > 1:
        container["ports"] = [{"name": "rendezvous", "containerPort": TORCHRUN_PORT}]
    if not fab.rdma:
        return container, ""
    container["securityContext"] = why(
        {"capabilities": {"add": ["IPC_LOCK"]}},
        f"RDMA ({fab.inter}) pins memory for the NIC: lift the locked-memory limit",
    )
    rdma_note = (
        f"{fab.network_name}: pods also need the RDMA device your network operator advertises, e.g. "
        "rdma/rdma_shared_device_a: 1 (NVIDIA Network Operator), added under resources.limits"
    )
    container["resources"] = why(resources, rdma_note)
    return container, rdma_note


def _volcano_job(job: _Job, template: dict[str, Any]) -> dict[str, Any]:
    """A Volcano Job: gang-scheduled, restarted as a whole, one pod per node."""
    nodes, opts = job.nodes, job.options
    spec: dict[str, Any] = {
        "schedulerName": why("volcano", "Volcano's scheduler does the gang scheduling"),
        "queue": why(opts.queue, "the Volcano queue whose share of GPUs this job uses"),
        "minAvailable": why(
            nodes, f"gang scheduling: all {nodes} pods start together or none does (no idle partial gangs)"
        ),
        "maxRetry": why(3, "restart the whole job up to three times (resume from your last checkpoint)"),
        "policies": why(
            [{"event": "PodEvicted", "action": "RestartJob"}, {"event": "PodFailed", "action": "RestartJob"}],
            "one lost rank stalls every other: restart all pods together",
        ),
        "tasks": [
            {
                "name": "worker",
                "replicas": why(
                    nodes, f"{nodes} node(s) x {job.per_node} GPUs = {job.c.est.hardware.count} GPUs, the plan's count"
                ),
                "template": template,
            }
        ],
    }
    if nodes > 1:
        spec["plugins"] = why(
            {"svc": [], "env": []},
            "svc: headless Service + pod hostnames for the rendezvous; env: VC_TASK_INDEX for the node rank",
        )
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": _job_meta(job), "spec": spec}


def _batch_job(job: _Job, template: dict[str, Any]) -> dict[str, Any]:
    """A batch/v1 Indexed Job: one pod per node, each pod's index its node rank."""
    nodes = job.nodes
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _job_meta(job),
        "spec": {
            "completionMode": why("Indexed", "each pod gets JOB_COMPLETION_INDEX: its node rank"),
            "completions": why(nodes, f"one pod per node, {nodes} node(s)"),
            "parallelism": why(
                nodes,
                "all at once; note: no gang scheduling - pods that start early wait in the rendezvous while "
                "holding GPUs (use --scheduler volcano on shared clusters)",
            ),
            "backoffLimit": why(0, "a failed rank breaks the collective: fail the job, resubmit from a checkpoint"),
            "template": template,
        },
    }


def _headless_service(job: _Job) -> dict[str, Any]:
    """DNS names for the Indexed Job's pods, so that the others find pod 0."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(job.name, job.options.namespace, job.labels),
        "spec": {
            "clusterIP": why("None", "headless: DNS names for the pods, no load balancing"),
            "publishNotReadyAddresses": why(True, "workers must resolve pod 0 before it is Ready"),
            "selector": {"batch.kubernetes.io/job-name": job.name},
            "ports": [{"name": "rendezvous", "port": TORCHRUN_PORT}],
        },
    }


def _job_meta(job: _Job) -> dict[str, Any]:
    return meta(job.name, job.options.namespace, job.labels, annotations={"gpuwise.io/plan": job.c.label})


# ------------------------------------------------------------------------------------------
def training_manifests(c: Candidate, options: DeployOptions, catalog: Catalog) -> Bundle:
    """The training job for a plan (Volcano or Indexed Job), with NCCL settings and placement."""
    work = c.est.workload
    assert isinstance(work, TrainingJob)
    hw = c.est.hardware
    name = options.name or slug(f"{work.model.name}-{work.method}")
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "training"}
    res = gpuinfo.resource_name(hw.gpu)
    job = _Job(c, work, options, name, labels, hw.nodes, hw.gpus_per_node, res)
    fab, nccl = nccl_env(hw, catalog, options.network, options.socket_ifname, options.ib_hca)
    shm_gib = DeployConventions.from_catalog(catalog).shm_gib(job.per_node)
    volume, mount = shm_volume(shm_gib, "NCCL's shared-memory transport and DataLoader workers")
    nccl_vars = [why({"name": e.name, "value": e.value}, e.why) for e in nccl]
    container, rdma_note = _container(job, fab, nccl_vars, mount)
    place, notes = placement(hw.gpu, options)
    pod_spec: dict[str, Any] = {
        "restartPolicy": why("Never", "a failed rank breaks the collective: the job restarts as a whole"),
        "containers": [container],
        "volumes": [volume],
        **place,
    }
    bundle = Bundle(notes=notes + ([rdma_note] if rdma_note else []))
    header = [f"gpuwise deploy: {c.label} ({work.model.name} {work.task}, {work.method})"]
    inter = f", {fab.network_name}" if fab.inter else ""
    layout = f"{job.nodes} pod(s) x {job.per_node} {res}; {fab.intra}{inter}"
    template = {"metadata": {"labels": labels}, "spec": pod_spec}
    if job.volcano:
        volcano = _volcano_job(job, template)
        bundle.manifests.append(make(volcano, file_path(options, "20-volcano-job.yaml"), f"gang of {layout}", header))
    else:
        pod_spec["subdomain"] = why(
            name, "the headless Service below: gives pod 0 the DNS name the others rendezvous at"
        )
        indexed = _batch_job(job, template)
        bundle.manifests.append(make(indexed, file_path(options, "20-job.yaml"), f"Indexed Job of {layout}", header))
        if job.nodes > 1:
            svc = _headless_service(job)
            bundle.manifests.append(
                make(svc, file_path(options, "10-headless-service.yaml"), "DNS for the torchrun rendezvous", header)
            )
    bundle.summary = {
        "kind": "training",
        "plan": c.label,
        "gpu": hw.gpu.id,
        "gpus": hw.count,
        "nodes": job.nodes,
        "gpus_per_node": job.per_node,
        "scheduler": options.scheduler,
        "image": _image(job)[0],
        "fabric": {"intra": fab.intra, "inter": fab.inter, "network": fab.network},
        "nccl": {e.name: e.value for e in nccl},
        "usd_per_hour": c.usd_per_hour,
        "run_usd": c.cost if c.hours is not None else None,
    }
    return bundle
