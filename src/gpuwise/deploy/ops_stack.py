"""`gpuwise deploy ops`: the operate side of gpuwise on Kubernetes, as manifests.

- the exporter as a DaemonSet on every GPU node (NVML through the NVIDIA runtime, no GPU taken),
  its headless Service and a ServiceMonitor (Prometheus Operator);
- the alert rules (`gpuwise exporter --print-rules`) as a PrometheusRule, the Grafana dashboard as a
  ConfigMap the Grafana sidecar imports;
- one benchmark CronJob per GPU node (`gpuwise bench all` into the PostgreSQL store), and an
  acceptance Job for new nodes (`gpuwise fleet scan`, then `gpuwise bench accept` against the fleet).

Builders return `Manifest`s; the alert rules and dashboard are read from gpuwise.ops' package data.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpuwise import __version__
from gpuwise.catalog import load_catalog
from gpuwise.deploy.common import (
    NODE_NAME_RULE,
    Bundle,
    DeployConventions,
    Manifest,
    dns_label,
    is_node_name,
    make,
    meta,
    shm_volume,
    slug,
    why,
)
from gpuwise.deploy.launch import TORCHRUN_PORT
from gpuwise.errors import UsageError
from gpuwise.ops import EXPORTER_PORT, data_file

DEFAULT_NAMESPACE = "gpuwise-ops"
DEFAULT_IMAGE = f"gpuwise:{__version__}"
STORE_SECRET = "gpuwise-store"  # a Secret with key `url`: the PostgreSQL URL of the store
BENCH_SCHEDULE = "0 3 * * 0"  # Sundays 03:00: a full suite keeps the node's GPUs busy for minutes
ACCEPT_LABEL = "gpuwise.io/acceptance"
GPU_PRESENT = {"nvidia.com/gpu.present": "true"}  # GPU feature discovery puts it on every NVIDIA node
LABELS = {"app.kubernetes.io/part-of": "gpuwise"}
NODE_GPUS = 8  # GPUs of a node when --node gives none: an HGX/DGX server's 8 (and the acceptance Job's ask)


@dataclass(frozen=True, slots=True)
class GpuNode:
    name: str  # the Kubernetes node name (kubernetes.io/hostname)
    gpus: int
    model: str | None = None  # catalog GPU id: nodes of one model get an all-reduce Job across them


@dataclass(frozen=True, slots=True)
class OpsOptions:
    namespace: str = DEFAULT_NAMESPACE
    image: str = DEFAULT_IMAGE
    nodes: tuple[GpuNode, ...] = ()
    bench_schedule: str = BENCH_SCHEDULE
    network: str | None = None  # the plan's inter-node network (catalog id); None: the GPU family's usual one
    queue: str = "default"  # Volcano queue of the all-reduce Job
    notes: list[str] = field(default_factory=list)


def parse_node(text: str) -> GpuNode:
    """`NAME`, `NAME:GPUS` (default NODE_GPUS) or `NAME:GPUS:GPU_ID` (catalog id) from --node."""
    name, _, rest = text.partition(":")
    gpus, _, model = rest.partition(":")
    # ASCII digits only, as --gpu NAME:N reads them: int() would also read '1_6' and '١٦' as 16
    gpus = gpus.strip()
    if gpus and not (gpus.isascii() and gpus.isdigit()):
        raise UsageError(f"--node {text!r}: GPUS must be a whole number (NAME:GPUS)")
    count = int(gpus) if gpus else NODE_GPUS
    if not 1 <= count <= 64:
        raise UsageError(f"--node {text!r}: 1 to 64 GPUs per node")
    if not name or len(name) > 253:
        raise UsageError(f"--node {text!r}: give the Kubernetes node name")
    if not is_node_name(name):  # it is written as a label value (kubernetes.io/hostname)
        raise UsageError(f"--node {text!r}: {name!r} is not a Kubernetes node name ({NODE_NAME_RULE})")
    if model:
        from gpuwise.errors import UnknownNameError

        try:
            load_catalog().gpu(model)
        except UnknownNameError as exc:
            raise UsageError(f"--node {text!r}: {exc}") from None
    return GpuNode(name, count, model or None)


# ------------------------------------------------------------------------------------------
def _nvml_access() -> tuple[dict[str, Any], list[Any]]:
    """(pod spec fields, container env) that give a container NVML without taking a GPU."""
    spec = {
        "runtimeClassName": why(
            "nvidia", "the NVIDIA container runtime mounts the driver's NVML library (the GPU operator's RuntimeClass)"
        ),
    }
    env = [
        why({"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}, "see every GPU of the node without requesting one"),
        {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "utility"},
    ]
    return spec, env


def _gpu_tolerations() -> list[Any]:
    return [
        why(
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            "GPU nodes are commonly tainted nvidia.com/gpu:NoSchedule",
        )
    ]


def exporter_daemonset(o: OpsOptions) -> Manifest:
    labels = {"app.kubernetes.io/name": "gpuwise-exporter", **LABELS}
    nvml_spec, env = _nvml_access()
    container = {
        "name": "exporter",
        "image": o.image,
        "command": ["gpuwise"],
        "args": ["exporter", "--host", "0.0.0.0", "--port", str(EXPORTER_PORT)],
        "env": env,
        "ports": [{"name": "metrics", "containerPort": EXPORTER_PORT}],
        "readinessProbe": {"httpGet": {"path": "/metrics", "port": "metrics"}, "periodSeconds": 30},
        "resources": why(
            {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
            "one NVML snapshot per scrape: small and steady",
        ),
        "securityContext": why(
            {
                "allowPrivilegeEscalation": False,
                "readOnlyRootFilesystem": True,
                "capabilities": {"drop": ["ALL"], "add": ["SYSLOG"]},
            },
            "SYSLOG: the kernel log for XID events (dmesg); nothing else",
        ),
    }
    pod = {
        **nvml_spec,
        "hostNetwork": why(True, "the host label is the node's hostname, as in the fleet store and `gpuwise doctor`"),
        "dnsPolicy": "ClusterFirstWithHostNet",
        "hostPID": why(True, "GPU processes' /proc entries: leaked memory and zombie checks"),
        "nodeSelector": why(GPU_PRESENT, "every NVIDIA GPU node, as GPU feature discovery labels them"),
        "tolerations": _gpu_tolerations(),
        "containers": [container],
    }
    body = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": meta("gpuwise-exporter", o.namespace, labels),
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "gpuwise-exporter"}},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }
    return make(body, "exporter.yaml", "gpuwise exporter on every GPU node: /metrics on port 9835")


def exporter_service(o: OpsOptions) -> Manifest:
    body = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta("gpuwise-exporter", o.namespace, {"app.kubernetes.io/name": "gpuwise-exporter", **LABELS}),
        "spec": {
            "clusterIP": why("None", "headless: Prometheus scrapes each exporter pod, not a load-balanced one"),
            "selector": {"app.kubernetes.io/name": "gpuwise-exporter"},
            "ports": [{"name": "metrics", "port": EXPORTER_PORT, "targetPort": "metrics"}],
        },
    }
    return make(body, "exporter.yaml", "the exporter pods as scrape targets")


def service_monitor(o: OpsOptions) -> Manifest:
    body = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": meta("gpuwise-exporter", o.namespace, LABELS),
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "gpuwise-exporter"}},
            "endpoints": [
                {
                    "port": "metrics",
                    "interval": why("30s", "the alert rules' `for:` windows are 1 minute and up"),
                    "relabelings": [
                        why(
                            {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"},
                            "the Kubernetes node name beside the exporter's host label",
                        )
                    ],
                }
            ],
        },
    }
    return make(body, "monitoring.yaml", "Prometheus Operator: scrape the exporter")


def prometheus_rule(o: OpsOptions, rules_yaml: str) -> Manifest:
    groups = yaml.safe_load(rules_yaml)["groups"]
    body = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": meta("gpuwise-alerts", o.namespace, LABELS),
        "spec": {"groups": why(groups, "gpuwise exporter --print-rules (tested with promtool in gpuwise's CI)")},
    }
    return make(body, "monitoring.yaml", "the gpuwise alert rules")


def dashboard_configmap(o: OpsOptions, dashboard_json: str) -> Manifest:
    json.loads(dashboard_json)  # a broken package file fails here, not in Grafana
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": why(
            meta("gpuwise-dashboard", o.namespace, {**LABELS, "grafana_dashboard": "1"}),
            "grafana_dashboard=1: the label the Grafana chart's dashboard sidecar imports",
        ),
        "data": {"gpuwise-gpu-hosts.json": dashboard_json if dashboard_json.endswith("\n") else dashboard_json + "\n"},
    }
    return make(body, "monitoring.yaml", "Grafana dashboard: GPU hosts")


# ------------------------------------------------------------------------------------------
def _store_env() -> list[Any]:
    return [
        why(
            {"name": "GPUWISE_DB", "valueFrom": {"secretKeyRef": {"name": STORE_SECRET, "key": "url"}}},
            f"the PostgreSQL store: kubectl create secret generic {STORE_SECRET} --from-literal=url=postgresql://...",
        )
    ]


def _gpu_pod(
    o: OpsOptions,
    conv: DeployConventions,
    gpus: int,
    args: list[Any],
    node_selector: dict[str, Any],
    command: list[str] | None = None,
) -> dict[str, Any]:
    """A pod spec that takes `gpus` GPUs of one node and runs `command args` (default: gpuwise) against the store."""
    volume, mount = shm_volume(conv.shm_gib(gpus), "NCCL's shared-memory transport for the all-reduce benchmark")
    return {
        "restartPolicy": "Never",
        "nodeSelector": node_selector,
        "tolerations": _gpu_tolerations(),
        "containers": [
            {
                "name": "gpuwise",
                "image": o.image,
                "command": command or ["gpuwise"],
                "args": args,
                "env": _store_env(),
                "resources": {
                    "limits": {"nvidia.com/gpu": why(gpus, "every GPU of the node: the suite measures each")}
                },
                "volumeMounts": [mount],
            }
        ],
        "volumes": [volume],
    }


def bench_cronjob(o: OpsOptions, conv: DeployConventions, node: GpuNode) -> Manifest:
    name = f"gpuwise-bench-{slug(node.name, 38)}"
    selector = {"kubernetes.io/hostname": why(node.name, "one CronJob per node: results per host in the store")}
    labels = {"app.kubernetes.io/name": "gpuwise-bench", **LABELS}
    body = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": meta(name, o.namespace, labels),
        "spec": {
            "schedule": why(o.bench_schedule, "weekly at a quiet hour: the suite takes every GPU of the node"),
            "concurrencyPolicy": "Forbid",
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 3,
            "jobTemplate": {
                "spec": {
                    "backoffLimit": why(0, "a failed benchmark is a finding; a retry would hide it"),
                    "activeDeadlineSeconds": 3600,
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": _gpu_pod(o, conv, node.gpus, ["bench", "all"], selector),
                    },
                }
            },
        },
    }
    return make(body, "bench-cronjobs.yaml", f"gpuwise bench all on {node.name} into the store")


ACCEPT_SCRIPT = (
    "set -eu\n"
    "gpuwise fleet scan\n"
    "gpuwise bench all --no-store --json > /tmp/card.json\n"
    "gpuwise bench accept --results /tmp/card.json --baseline db\n"
)


def acceptance_job(o: OpsOptions, conv: DeployConventions, gpus: int = NODE_GPUS) -> Manifest:
    selector = {ACCEPT_LABEL: why("pending", f"label a new node: kubectl label node NODE {ACCEPT_LABEL}=pending")}
    body = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta("gpuwise-accept", o.namespace, {"app.kubernetes.io/name": "gpuwise-accept", **LABELS}),
        "spec": {
            "backoffLimit": 0,
            "ttlSecondsAfterFinished": 86400,
            "template": {"spec": _gpu_pod(o, conv, gpus, [ACCEPT_SCRIPT], selector, command=["sh", "-c"])},
        },
    }
    return make(body, "accept-job.yaml", "a new node: inventory its cards, accept them against the fleet baseline")


# ------------------------------------------------------------------------------------------


def _by_model(nodes: Sequence[GpuNode]) -> dict[str, list[GpuNode]]:
    """GPU model -> its nodes, for the models with two nodes or more (an inter-node all-reduce)."""
    groups: dict[str, list[GpuNode]] = {}
    for n in _unique(nodes):
        if n.model:
            groups.setdefault(n.model, []).append(n)
    return {m: ns for m, ns in sorted(groups.items()) if len(ns) >= 2}


def _allreduce_container(
    o: OpsOptions, name: str, model: str, nodes: int, per_node: int, env: list[Any]
) -> dict[str, Any]:
    args: list[Any] = [
        why(f"--nnodes={nodes}", f"one pod on each of the {nodes} {model} nodes"),
        why(f"--nproc-per-node={per_node}", "one rank per GPU"),
        why("--node-rank=$(VC_TASK_INDEX)", "this pod's index, set by Volcano's env plugin"),
        "--master-addr=$(MASTER_ADDR)",
        f"--master-port={TORCHRUN_PORT}",
        "-m",
        "gpuwise.ops.multinode",
        "--gpu",
        model,
    ]
    if o.network:
        args += [why("--network", "the network the plan assumed: the measured busbw is compared with it"), o.network]
    master = {"name": "MASTER_ADDR", "value": f"{name}-worker-0.{name}"}
    return {
        "name": "allreduce",
        "image": o.image,
        "command": ["torchrun"],
        "args": args,
        "env": [why(master, "pod 0 of task 'worker' under Volcano's headless Service"), *_store_env(), *env],
        "ports": [{"name": "rendezvous", "containerPort": TORCHRUN_PORT}],
        "resources": {"limits": {"nvidia.com/gpu": why(per_node, "every GPU of the node: one rank each")}},
    }


def allreduce_job(o: OpsOptions, conv: DeployConventions, model: str, nodes: list[GpuNode]) -> tuple[Manifest, str]:
    """(a Volcano Job running torchrun across `nodes` for the inter-node all-reduce bus bandwidth, an
    RDMA note or ''). NCCL settings from the planned network, as for a training job."""
    from gpuwise.deploy.nccl import nccl_env
    from gpuwise.workload import Hardware

    catalog = load_catalog()
    per_node = min(n.gpus for n in nodes)
    name = f"gpuwise-allreduce-{slug(model, 30)}"
    fab, nccl = nccl_env(Hardware(catalog.gpu(model), per_node * len(nodes), per_node, o.network), catalog, o.network)
    container = _allreduce_container(
        o, name, model, len(nodes), per_node, [why({"name": e.name, "value": e.value}, e.why) for e in nccl]
    )
    volume, mount = shm_volume(conv.shm_gib(per_node), "NCCL's shared-memory transport inside a node")
    container["volumeMounts"] = [mount]
    rdma = ""
    if fab.rdma:
        container["securityContext"] = why({"capabilities": {"add": ["IPC_LOCK"]}}, f"RDMA ({fab.inter}) pins memory")
        rdma = f"{name}: add the RDMA device your network operator advertises under resources.limits"
    hosts = [n.name for n in nodes]
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": hosts}]}]}}}  # fmt: skip
    pod = {
        "restartPolicy": "Never",
        "affinity": why(affinity, f"the {model} nodes of the fleet: {', '.join(hosts)}"),
        "tolerations": _gpu_tolerations(),
        "containers": [container],
        "volumes": [volume],
    }
    labels = {"app.kubernetes.io/name": "gpuwise-allreduce", **LABELS}
    body = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": meta(name, o.namespace, labels),
        "spec": {
            "schedulerName": why("volcano", "gang scheduling: every rank starts together or none does"),
            "queue": o.queue,
            "minAvailable": len(nodes),
            "maxRetry": 1,
            "plugins": why({"svc": [], "env": []}, "svc: pod hostnames for the rendezvous; env: VC_TASK_INDEX"),
            "tasks": [
                {"name": "worker", "replicas": len(nodes), "template": {"metadata": {"labels": labels}, "spec": pod}}
            ],
        },
    }
    what = f"all-reduce bus bandwidth across {len(nodes)} {model} nodes, compared with the plan ({fab.network_name})"
    return make(body, "allreduce-jobs.yaml", what), rdma


# ------------------------------------------------------------------------------------------
def ops_manifests(o: OpsOptions, rules_yaml: str | None = None, dashboard_json: str | None = None) -> Bundle:
    """Every object of the ops stack (rules and dashboard default to gpuwise.ops' package data)."""
    dns_label(o.namespace, "--namespace")
    rules_yaml = rules_yaml if rules_yaml is not None else data_file("alerts.yaml").read_text(encoding="utf-8")
    if dashboard_json is None:
        dashboard_json = data_file("grafana-dashboard.json").read_text(encoding="utf-8")
    conv = DeployConventions.from_catalog(load_catalog())
    namespace = make(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(o.namespace, None, LABELS)},
        "00-namespace.yaml",
        "gpuwise's operate stack",
    )
    manifests = [
        namespace,
        exporter_daemonset(o),
        exporter_service(o),
        service_monitor(o),
        prometheus_rule(o, rules_yaml),
        dashboard_configmap(o, dashboard_json),
        *(bench_cronjob(o, conv, n) for n in _unique(o.nodes)),
        acceptance_job(o, conv),
    ]
    notes = list(o.notes)
    for m, rdma in (allreduce_job(o, conv, model, nodes) for model, nodes in _by_model(o.nodes).items()):
        manifests.append(m)
        notes += [rdma] if rdma else []
    notes.append(
        f"create the store Secret first: kubectl -n {o.namespace} create secret generic {STORE_SECRET} "
        "--from-literal=url=postgresql://USER:PASSWORD@HOST:5432/gpuwise"
    )
    notes.append(
        "kube-prometheus-stack selects ServiceMonitors and PrometheusRules by its `release` label unless "
        "its *SelectorNilUsesHelmValues are false: add that label if yours does"
    )
    if not o.nodes:
        notes.append("no GPU node named: no benchmark CronJob (give --node NAME[:GPUS], or --db of a fleet store)")
    summary = {"kind": "ops", "namespace": o.namespace, "image": o.image, "nodes": [n.name for n in o.nodes]}
    return Bundle(manifests=manifests, notes=notes, summary=summary)


def _unique(nodes: Sequence[GpuNode]) -> list[GpuNode]:
    """One CronJob per node name (the last --node wins) in name order; two names sharing a slug are refused."""
    by_name = {n.name: n for n in nodes}
    slugs: dict[str, str] = {}
    for name in sorted(by_name):
        s = slug(name, 38)
        if s in slugs:
            raise UsageError(f"nodes {slugs[s]!r} and {name!r} would share the CronJob name gpuwise-bench-{s}")
        slugs[s] = name
    return [by_name[n] for n in sorted(by_name)]


__all__ = ["DEFAULT_IMAGE", "DEFAULT_NAMESPACE", "STORE_SECRET", "GpuNode", "OpsOptions", "ops_manifests", "parse_node"]
