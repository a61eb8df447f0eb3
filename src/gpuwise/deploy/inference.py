"""Serving manifests from a plan: a Triton or vLLM Deployment, its Service and a KEDA
ScaledObject, with the replicas, batch, tensor parallelism and memory share the plan chose.

Each object has its own builder; `inference_manifests` puts them together. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog import GPU, Catalog, GenericArch, TransformerArch
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
from gpuwise.deploy.engines import PORT, PROGRAMS, model_source, vllm_args, vllm_memory
from gpuwise.deploy.nccl import nccl_env
from gpuwise.deploy.sharing import Sharing, serving_sharing, sharing_layout
from gpuwise.errors import UsageError
from gpuwise.estimate.cost import HOURS_PER_MONTH
from gpuwise.estimate.operators import input_bytes_per_sample
from gpuwise.i18n import reason_text
from gpuwise.plan.results import Candidate, Code
from gpuwise.units import fmt_bytes
from gpuwise.workload import InferenceJob
from gpuwise.workload.requirements import Requirements

# Default images: pin your own tag (or digest) in production; these are only starting points.
TRITON_IMAGE = "nvcr.io/nvidia/tritonserver:25.01-py3"
VLLM_IMAGE = "vllm/vllm-openai:v0.8.5"
# a plan timed with --async-scheduling: an image whose vLLM has the flag (v0.8.5 predates it, vLLM pull request #19970)
VLLM_ASYNC_IMAGE = "vllm/vllm-openai:v0.11.0"
VLLM_ROCM_IMAGE = "rocm/vllm:latest"
TRITON_PINNED_DEFAULT = 256 * 2**20  # tritonserver --pinned-memory-pool-byte-size default
TRITON_GRPC_PORT, TRITON_METRICS_PORT = 8001, 8002  # tritonserver's defaults
TOKEN_ID_BYTES = 4.0  # a token id as the servers copy it: int32 (Triton's INT32 input_ids)


# ------------------------------------------------------------------------------------------
def choose_engine(work: InferenceJob, gpu: GPU, options: DeployOptions) -> tuple[str, str]:
    """(engine, reason). vLLM for decoder LLMs (continuous batching, as the plan's simulation
    assumes), Triton for everything else (dynamic batching of any framework's model)."""
    llm = isinstance(work.model, TransformerArch) and work.model.decoder
    amd = gpuinfo.vendor(gpu) == "amd"
    if options.engine is not None:
        if options.engine not in ("vllm", "triton"):
            raise UsageError(
                f"--engine {options.engine}: the Kubernetes manifests run vLLM or Triton; "
                "deploy with --target slurm or --target skypilot for SGLang and TensorRT-LLM"
            )
        if options.engine == "vllm" and not llm:
            raise UsageError(
                f"vLLM serves generative language models; {work.model.name} is not one: use --engine triton"
            )
        if options.engine == "triton" and amd and options.image is None:
            raise UsageError(
                f"{gpu.id} is an AMD GPU and NVIDIA publishes Triton images for CUDA only: use --engine vllm, "
                "or give a ROCm build of Triton with --image"
            )
        return options.engine, "as given (--engine)"
    if llm:
        return "vllm", "decoder LLM: vLLM's continuous batching is what the plan's serving simulation assumes"
    if amd and options.image is None:
        raise UsageError(
            f"{work.model.name} on {gpu.id}: no stock serving image (Triton images are CUDA-only and vLLM serves "
            "LLMs only): give a ROCm serving image with --image and --engine triton"
        )
    return "triton", "not a generative LLM: Triton serves it with dynamic batching"


def _image(engine: str, gpu: GPU, options: DeployOptions, work: InferenceJob) -> tuple[str, str]:
    """(image, reason) of the serving container."""
    if options.image:
        return options.image, "as given (--image)"
    if engine == "triton":
        return TRITON_IMAGE, "NVIDIA Triton Inference Server (NGC); pin your own tag or digest"
    if gpuinfo.vendor(gpu) == "amd":
        return VLLM_ROCM_IMAGE, "AMD's ROCm build of vLLM; pin a tag or digest"
    if work.async_scheduling:
        return VLLM_ASYNC_IMAGE, "vLLM's server image with --async-scheduling (the plan's timing); pin your own tag"
    return VLLM_IMAGE, "vLLM's OpenAI-compatible server image; pin your own tag or digest"


def _request_bytes(work: InferenceJob) -> float:
    """Bytes of one request's inputs and outputs as the server copies them (token ids as int32;
    one-pass models: the estimator's input bytes per sample times the candidates per request);
    0 when the model gives no input shape."""
    model = work.model
    if isinstance(model, TransformerArch):
        return TOKEN_ID_BYTES * (work.input_tokens + work.output_tokens)
    assert isinstance(model, GenericArch)
    return input_bytes_per_sample(model) * work.items_per_request


def _triton_old(image: str) -> bool:
    """Triton before 22.07 (2.24.0) needs --strict-model-config=false to auto-complete configs."""
    m = re.search(r":(\d\d)\.(\d\d)", image)
    return m is not None and (int(m.group(1)), int(m.group(2))) < (22, 7)


def growth_replicas(c: Candidate) -> int | None:
    """Replicas the growth check asks for when the plan does not hold, else None."""
    g = c.growth
    if g is None or g.holds or g.upgrade_path is None or g.upgrade_path.code != Code.GROWTH_PATH_REPLICAS:
        return None
    replicas = g.upgrade_path.get("replicas")
    same_size = g.upgrade_path.get("count") == c.est.hardware.count
    return replicas if isinstance(replicas, int) and same_size else None


# ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Scale:
    """Replicas to run and to scale up to, and the capacity of one replica, with reasons."""

    replicas: int
    replicas_why: str
    max_replicas: int
    max_why: str
    capacity: float | None  # requests/s one replica serves (on its share of a GPU)
    note: str | None


def _scale(c: Candidate, share: Sharing, req: Requirements, batch: int) -> _Scale:
    """The plan's replicas, more of them when replicas share GPUs, and the autoscaler's ceiling."""
    capacity = None if c.serving is None else c.serving.capacity_rps_per_replica
    replicas = c.replicas
    rep_why = f"the plan's {c.replicas} replica(s) of {c.est.hardware.count}x {c.est.hardware.gpu.id}"
    if capacity is not None:
        rep_why += f", {capacity:,.2f} requests/s each at batch {batch}"
    note = None
    if share.mode != "none" and capacity is not None:
        demand = req.qps or capacity * c.replicas
        capacity = capacity * share.fraction
        replicas = max(1, math.ceil(demand / capacity))
        rep_why = (
            f"{demand:,.2f} requests/s over {capacity:,.2f} per shared replica ({share.fraction:.2f} of a GPU's "
            f"throughput, an approximation: the plan measured a whole GPU) = {replicas}"
        )
        note = (
            f"{share.reason}; replica capacity scaled to {share.fraction:.2f} of the plan's - confirm with "
            "`gpuwise bench latency` on a slice"
        )
    grown = growth_replicas(c)
    if share.mode != "none" and grown:
        grown = math.ceil(grown / share.fraction)
    max_replicas = max(grown or 0, 2 * replicas)
    if grown and grown >= 2 * replicas:
        max_why = f"the growth check: {reason_text(c.growth.summary) if c.growth else ''}"
    else:
        max_why = "ASSUMPTION: room for twice the planned load" + (
            f" (the growth check asks for {grown})" if grown else " (the plan has no growth target)"
        )
    return _Scale(replicas, rep_why, max_replicas, max_why, capacity, note)


@dataclass(slots=True)
class _Server:
    """What differs between Triton and vLLM: the container's command and files, the health
    endpoints, and the Prometheus query the autoscaler reads."""

    command: list[str]
    args: list[Any]
    ports: list[dict[str, Any]]
    ready: str
    live: str
    metrics_port: int
    query: str
    query_why: str
    env: list[Any] = field(default_factory=list)
    volumes: list[Any] = field(default_factory=list)
    mounts: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _triton(work: InferenceJob, image: str, name: str, ns: str, batch: int) -> _Server:
    """tritonserver on a model repository volume, with pinned buffers sized for the batch."""
    req_bytes = _request_bytes(work)
    pinned = max(TRITON_PINNED_DEFAULT, math.ceil(2 * batch * req_bytes / 2**20) * 2**20)
    args: list[Any] = [
        why("--model-repository=/models", "the model repository volume mounted below"),
        why(
            f"--pinned-memory-pool-byte-size={pinned}",
            f"page-locked host buffers for input/output copies: 2 x batch {batch} x {fmt_bytes(req_bytes)} "
            f"per request, at least Triton's 256 MiB default",
        ),
    ]
    if _triton_old(image):
        args.append(
            why(
                "--strict-model-config=false",
                "this Triton is older than 22.07: without the flag it refuses models lacking a complete "
                "config.pbtxt (newer releases auto-complete by default and soft-deprecate the flag)",
            )
        )
    server = _Server(
        command=["tritonserver"],
        args=args,
        ports=[
            {"name": "http", "containerPort": PORT},
            {"name": "grpc", "containerPort": TRITON_GRPC_PORT},
            {"name": "metrics", "containerPort": TRITON_METRICS_PORT},
        ],
        ready="/v2/health/ready",
        live="/v2/health/live",
        metrics_port=TRITON_METRICS_PORT,
        query=f'sum(rate(nv_inference_request_success{{namespace="{ns}",pod=~"{name}-.*"}}[2m]))',
        query_why=f"requests/s Triton completes, summed over the replicas (Triton's metrics on :{TRITON_METRICS_PORT})",
    )
    server.volumes.append(
        why(
            {
                "name": "model-repository",
                "persistentVolumeClaim": {"claimName": f"{name}-model-repository", "readOnly": True},
            },
            "create this PVC (or use your storage) holding the Triton model repository "
            f"(<model>/config.pbtxt, <model>/1/...) for {work.model.name}",
        )
    )
    server.mounts.append({"name": "model-repository", "mountPath": "/models", "readOnly": True})
    tp = work.parallel.tp
    if tp > 1:
        server.notes.append(
            f"Triton with tensor parallelism {tp}: the model's backend config must use {tp} GPUs "
            "(model.json tensor_parallel_size for the vLLM backend, or a TensorRT-LLM engine built for tp)"
        )
    return server


def _vllm(
    c: Candidate, options: DeployOptions, catalog: Catalog, conv: DeployConventions, share: Sharing, batch: int
) -> _Server:
    """vLLM's OpenAI-compatible server, downloading the weights into a cache volume."""
    work = c.est.workload
    assert isinstance(work, InferenceJob)
    name, ns = options.name or slug(work.model.name), options.namespace
    source = model_source(work, options.model_source, catalog)
    server = _Server(
        command=list(PROGRAMS["vllm"]),
        args=vllm_args(work, source, batch, vllm_memory(c, share, conv, catalog)),
        ports=[{"name": "http", "containerPort": PORT}],
        ready="/health",
        live="/health",
        metrics_port=PORT,
        query=f'sum(rate(vllm:request_success_total{{namespace="{ns}",pod=~"{name}-.*"}}[2m]))',
        query_why=(
            "requests/s vLLM completes, summed over the replicas (vLLM's /metrics on :8000); completions lag "
            "arrivals under overload, so also watch vllm:num_requests_waiting"
        ),
    )
    if work.weights_dtype not in ("bf16", "fp16", "fp32"):
        server.notes.append(
            f"weights in {work.weights_dtype}: serve a checkpoint quantized that way and add vLLM's matching "
            "--quantization flag"
        )
    server.env.append(
        why(
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token", "optional": True}}},
            "gated repositories (e.g. Llama) need a token: kubectl create secret generic hf-token --from-literal=token=...",
        )
    )
    server.env.append({"name": "HF_HOME", "value": "/models/hf-cache"})
    weights = c.est.memory.per_gpu.weights * max(work.parallel.tp, 1)
    cache_gib = max(
        math.ceil(conv.model_cache_min_bytes / 2**30), math.ceil(weights * (1 + conv.model_cache_headroom) / 2**30)
    )
    server.volumes.append(
        why(
            {"name": "model-cache", "emptyDir": {"sizeLimit": f"{cache_gib}Gi"}},
            f"downloaded weights ({fmt_bytes(weights)}) plus {conv.model_cache_headroom:.0%}; use a PVC to avoid "
            "downloading on every start",
        )
    )
    server.mounts.append({"name": "model-cache", "mountPath": "/models"})
    return server


# ------------------------------------------------------------------------------------------
def _container(engine: str, server: _Server, image: tuple[str, str], limit: tuple[str, int, str]) -> dict[str, Any]:
    """The serving container: image, flags, ports, the GPU limit (resource, units, reason), probes."""
    res, units, res_why = limit
    probe_common = {"periodSeconds": 10}
    container: dict[str, Any] = {
        "name": engine,
        "image": why(*image),
        "command": server.command,
        "args": server.args,
        "ports": server.ports,
        "resources": {"limits": {res: why(units, res_why)}},
        "readinessProbe": why(
            {"httpGet": {"path": server.ready, "port": PORT}, **probe_common, "failureThreshold": 3},
            f"{engine}'s readiness endpoint: traffic only once the model is loaded",
        ),
        "livenessProbe": why(
            {"httpGet": {"path": server.live, "port": PORT}, **probe_common, "failureThreshold": 6},
            f"{engine}'s liveness endpoint: restart a wedged server after a minute",
        ),
        "startupProbe": why(
            {
                "httpGet": {"path": server.ready if engine == "triton" else server.live, "port": PORT},
                **probe_common,
                "failureThreshold": 90,
            },
            "loading (and downloading) the weights can take minutes: 15 minutes before liveness applies; raise for large models",
        ),
        "volumeMounts": server.mounts,
    }
    if server.env:
        container["env"] = server.env
    return container


def _gpu_limit(c: Candidate, share: Sharing) -> tuple[str, int, str]:
    """(extended resource, units per replica, reason): whole GPUs, or one MIG/time-sliced share."""
    hw = c.est.hardware
    res = gpuinfo.resource_name(hw.gpu)
    if share.mode == "mig":
        mig = share.mig.name if share.mig else ""
        return res, 1, f"one MIG {mig} slice: the 'single' MIG strategy advertises each slice as one {res}"
    if share.mode == "time-slicing":
        return res, 1, f"one of the {share.per_gpu} time-sliced replicas of a GPU the device plugin advertises"
    tp = c.est.workload.parallel.tp
    return res, hw.count, f"GPUs per replica: tensor parallelism {tp} on {hw.gpu.id}"


def _deployment(
    c: Candidate, name: str, ns: str, pod_spec: dict[str, Any], scale: _Scale, metrics_port: int
) -> dict[str, Any]:
    """The Deployment: the planned replicas, one at a time on update, scraped by Prometheus."""
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "inference"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(name, ns, labels, annotations={"gpuwise.io/plan": c.label}),
        "spec": {
            "replicas": why(scale.replicas, scale.replicas_why),
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "strategy": why(
                {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
                "no spare GPU for a surge pod: replace one replica at a time"
                + (" (one replica: the service is down while it restarts)" if scale.replicas == 1 else ""),
            ),
            "template": {
                "metadata": {
                    "labels": labels,
                    "annotations": why(
                        {
                            "prometheus.io/scrape": "true",
                            "prometheus.io/port": str(metrics_port),
                            "prometheus.io/path": "/metrics",
                        },
                        "scraped by Prometheus' kubernetes-pods job (or add a PodMonitor): the autoscaler's metric",
                    ),
                },
                "spec": pod_spec,
            },
        },
    }


def _service(name: str, ns: str, ports: list[dict[str, Any]]) -> dict[str, Any]:
    """A Service over every port the server listens on."""
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "inference"}
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(name, ns, labels),
        "spec": {
            "selector": {"app.kubernetes.io/name": name},
            "ports": [{"name": p["name"], "port": p["containerPort"], "targetPort": p["name"]} for p in ports],
        },
    }


def _scaled_object(
    name: str, options: DeployOptions, scale: _Scale, server: _Server, shared: bool, batch: int
) -> tuple[dict[str, Any], str]:
    """(KEDA ScaledObject, its threshold): replicas from completed requests/s over one replica's capacity."""
    capacity = scale.capacity
    assert capacity is not None
    threshold = f"{capacity:.4g}" if capacity < 1e6 else f"{capacity:.0f}"
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "inference"}
    trigger = {
        "type": "prometheus",
        "metricType": "AverageValue",
        "metadata": {
            "serverAddress": why(
                options.prometheus_url, "your Prometheus (Prometheus Operator's default service here)"
            ),
            "query": why(server.query, server.query_why),
            "threshold": why(
                threshold,
                f"the plan's capacity per replica{' on its share of a GPU' if shared else ''} "
                f"({capacity:,.4g} requests/s at batch {batch} within the latency target): KEDA runs "
                "ceil(total / threshold) replicas",
            ),
        },
    }
    scale_down = why(
        {"stabilizationWindowSeconds": 600},
        "a GPU replica takes minutes to load: scale down only after 10 quiet minutes",
    )
    body = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": meta(name, options.namespace, labels),
        "spec": {
            "scaleTargetRef": {"name": name},
            "minReplicaCount": why(
                scale.replicas, "never below the planned replicas: they meet the latency target at the planned load"
            ),
            "maxReplicaCount": why(scale.max_replicas, scale.max_why),
            "fallback": why(
                {"failureThreshold": 3, "replicas": scale.replicas},
                "if Prometheus cannot be read three times in a row, hold the planned replicas",
            ),
            "advanced": {"horizontalPodAutoscalerConfig": {"behavior": {"scaleDown": scale_down}}},
            "triggers": [trigger],
        },
    }
    return body, threshold


# ------------------------------------------------------------------------------------------
def _pod_spec(
    c: Candidate, options: DeployOptions, share: Sharing, container: dict[str, Any], server: _Server
) -> tuple[dict[str, Any], list[str]]:
    """(pod spec, placement notes): the container, its volumes, node placement and grace period."""
    place, notes = placement(c.est.hardware.gpu, options, share.mig, share.mode == "time-slicing")
    serving = c.serving
    planned = serving.latency_seconds if serving is not None else None
    latency = float(planned or (c.est.inference.latency_seconds if c.est.inference else 0.0))
    grace = max(30, math.ceil(2 * latency))
    spec = {
        "terminationGracePeriodSeconds": why(
            grace, f"in-flight requests finish before the pod stops (planned request latency {latency:.1f} s, x2)"
        ),
        "containers": [container],
        "volumes": server.volumes,
        **place,
    }
    spread = _spread(c, options)
    if spread:
        spec.update(spread)
        notes.append(
            f"redundancy N+{serving.redundancy if serving else None}: one replica per node, so losing a node loses one replica"
        )
    return spec, notes


def _spread(c: Candidate, options: DeployOptions) -> dict[str, Any]:
    """With --redundancy N (N >= 1) the plan sized N spare replicas on the promise that one node's
    loss costs one replica: replicas are spread one per node (required anti-affinity on the node's
    hostname, and an even spread that refuses to schedule rather than stack them)."""
    n = c.serving.redundancy if c.serving is not None else 0
    if n < 1:
        return {}
    name = options.name or slug(c.est.workload.model.name)
    match = {"matchLabels": {"app.kubernetes.io/name": name}}
    host = "kubernetes.io/hostname"
    return {
        "topologySpreadConstraints": why(
            [{"maxSkew": 1, "topologyKey": host, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": match}],
            f"N+{n}: replicas spread evenly over nodes, never stacked where a node's loss would take several",
        ),
        "affinity": why(
            {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": match, "topologyKey": host}]
                }
            },
            f"N+{n}: at most one replica per node, so losing {n} node(s) leaves the target met",
        ),
    }


def _tensor_parallel(
    server: _Server, c: Candidate, options: DeployOptions, catalog: Catalog, conv: DeployConventions
) -> None:
    """A replica over several GPUs: shared memory and NCCL settings for its tensor-parallel ranks."""
    tp = c.est.workload.parallel.tp
    if tp <= 1:
        return
    vol, mount = shm_volume(
        conv.shm_gib(tp), f"NCCL between the {tp} tensor-parallel GPUs of a replica uses shared memory"
    )
    server.volumes.append(vol)
    server.mounts.append(mount)
    _, nccl = nccl_env(c.est.hardware, catalog, socket_ifname=options.socket_ifname)
    server.env += [why({"name": e.name, "value": e.value}, e.why) for e in nccl]


def inference_manifests(c: Candidate, options: DeployOptions, catalog: Catalog, req: Requirements) -> Bundle:
    """Deployment, Service and (when the plan has a capacity figure) ScaledObject for a serving plan,
    plus the GPU operator config when replicas share GPUs."""
    work = c.est.workload
    assert isinstance(work, InferenceJob)
    conv = DeployConventions.from_catalog(catalog)
    gpu, ns = c.est.hardware.gpu, options.namespace
    name = options.name or slug(work.model.name)
    engine, engine_why = choose_engine(work, gpu, options)
    image = _image(engine, gpu, options, work)
    batch = c.serving.max_batch if c.serving is not None else work.concurrency
    share = serving_sharing(c, options, conv)
    scale = _scale(c, share, req, batch)
    if engine == "triton":
        server = _triton(work, image[0], name, ns, batch)
    else:
        server = _vllm(c, options, catalog, conv, share, batch)
    _tensor_parallel(server, c, options, catalog, conv)
    limit = _gpu_limit(c, share)
    pod_spec, place_notes = _pod_spec(c, options, share, _container(engine, server, image, limit), server)
    bundle = Bundle(notes=([scale.note] if scale.note else []) + server.notes + place_notes)
    bundle.notes += _runtime_notes(work, engine, catalog)
    header = [f"gpuwise deploy: {c.label} ({work.model.name} serving)"]
    res, units = limit[0], limit[1]
    deployment = _deployment(c, name, ns, pod_spec, scale, server.metrics_port)
    bundle.manifests.append(
        make(
            deployment,
            file_path(options, "20-deployment.yaml"),
            f"{engine} x{scale.replicas}, {units} {res} each",
            header,
        )
    )
    service = _service(name, ns, server.ports)
    ports = ", ".join(str(p["port"]) for p in service["spec"]["ports"])
    bundle.manifests.append(make(service, file_path(options, "30-service.yaml"), f"ports {ports} of {name}", header))
    if scale.capacity is not None:
        scaled, threshold = _scaled_object(name, options, scale, server, share.mode != "none", batch)
        summary = f"{scale.replicas}..{scale.max_replicas} replicas at {threshold} req/s each"
        bundle.manifests.append(make(scaled, file_path(options, "40-scaledobject.yaml"), summary, header))
    else:
        bundle.notes.append("the plan has no serving capacity figure: no ScaledObject emitted")
    if share.mode != "none":
        bundle.extend(sharing_layout(gpu, share, options, nodes=f"nodes for {name}", purpose=f"{name} serving"))
    bundle.summary = _summary(c, engine, engine_why, image[0], share, scale)
    return bundle


def _runtime_notes(work: InferenceJob, engine: str, catalog: Catalog) -> list[str]:
    """The runtime the plan timed, where the manifests need it named (Triton's backend for the model
    repository) or run another engine than the plan's."""
    if work.engine in catalog.runtimes:
        rt = catalog.runtime(work.engine)
        if engine != "triton" or rt.triton_backend is None:
            return []
        note = (
            f"the plan timed {rt.name} (--engine {work.engine}): put {work.model.name} in the model repository in "
            f'the form Triton\'s {rt.triton_backend} backend runs (config.pbtxt backend: "{rt.triton_backend}")'
        )
        if not rt.server:
            note += "; Triton adds its request floor, RPC and queue delay, which the plan's figures leave out"
        return [note]
    if engine != work.engine:
        planned = catalog.engine(work.engine).name
        return [
            f"the plan timed {planned} (--engine {work.engine}); these manifests run {engine}, whose step times "
            f"differ: re-plan with --engine {engine} for figures that match"
        ]
    return []


def _summary(c: Candidate, engine: str, engine_why: str, image: str, share: Sharing, scale: _Scale) -> dict[str, Any]:
    """What was deployed, for the JSON output and gpuwise-deploy.json."""
    hw = c.est.hardware
    return {
        "kind": "inference",
        "plan": c.label,
        "gpu": hw.gpu.id,
        "gpus_per_replica": hw.count,
        "replicas": scale.replicas,
        "max_replicas": scale.max_replicas,
        "engine": engine,
        "image": image,
        "engine_why": engine_why,
        "sharing": share.mode,
        "mig_profile": share.mig.name if share.mig else None,
        "physical_gpus": math.ceil(scale.replicas / share.per_gpu) * (hw.count if share.mode == "none" else 1),
        "usd_per_month": None if c.hourly is None else c.hourly * HOURS_PER_MONTH,
    }
