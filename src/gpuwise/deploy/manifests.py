"""Kubernetes manifests from a plan: pure functions from a chosen candidate to manifest dicts.

Serving becomes a Deployment (Triton or vLLM), a Service and a KEDA ScaledObject; training a
Volcano Job with gang scheduling (or a plain Indexed batch/v1 Job) wired for torchrun, with
NCCL settings from the planned interconnect; GPU sharing a MIG layout (only on GPUs the catalog
says have MIG) or a device-plugin time-slicing config. Every value that is not a Kubernetes or
engine default is wrapped in `why(...)`; the reason travels with the manifest as a comment.
Nothing here reads or writes files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog import GPU, Catalog, GenericArch, TransformerArch, load_catalog
from gpuwise.deploy import gpu as gpuinfo
from gpuwise.deploy.nccl import nccl_env
from gpuwise.errors import RequirementNotMet, UsageError
from gpuwise.plan import PlanResult
from gpuwise.plan.search import HOURS_PER_MONTH, Candidate
from gpuwise.units import fmt_bytes, fmt_gib
from gpuwise.workload import InferenceJob, TrainingJob
from gpuwise.workload.requirements import Requirements

ENGINES = ("triton", "vllm")
SCHEDULERS = ("volcano", "job")
SHARING = ("none", "auto", "mig", "time-slicing")

# Default images: pin your own tag (or digest) in production; these are only starting points.
TRITON_IMAGE = "nvcr.io/nvidia/tritonserver:25.01-py3"
VLLM_IMAGE = "vllm/vllm-openai:v0.8.5"
VLLM_ROCM_IMAGE = "rocm/vllm:latest"
PYTORCH_IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"
PYTORCH_ROCM_IMAGE = "rocm/pytorch:latest"
RECLAIMER_IMAGE = "python:3.12-alpine"
DEFAULT_PROMETHEUS = "http://prometheus-operated.monitoring.svc:9090"

TRITON_PINNED_DEFAULT = 256 * 2**20  # tritonserver --pinned-memory-pool-byte-size default
TORCHRUN_PORT = 29500
# vLLM's own default for --gpu-memory-utilization (vllm EngineArgs.gpu_memory_utilization = 0.9)
VLLM_GPU_MEMORY_UTILIZATION = 0.90
# ASSUMPTION (no published limit: the device plugin accepts any replica count): at most 8 time-sliced
# replicas per GPU, beyond which context switching dominates. Used for serving and the dev pool.
TIME_SLICES_MAX = 8
MANAGED_BY = {"app.kubernetes.io/managed-by": "gpuwise"}


# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Why:
    """A value and the reason it was chosen (written as a comment above it)."""

    value: Any
    why: str


def why(value: Any, reason: str) -> Why:
    return Why(value, reason)


Path = tuple[Any, ...]


def split_reasons(tree: Any, path: Path = ()) -> tuple[Any, dict[Path, str]]:
    """The plain tree (no `Why` left) and the reasons keyed by the path of what they explain."""
    notes: dict[Path, str] = {}
    if isinstance(tree, Why):
        plain, inner = split_reasons(tree.value, path)
        notes[path] = tree.why
        notes.update(inner)
        return plain, notes
    if isinstance(tree, Mapping):
        out = {}
        for k, v in tree.items():
            out[k], inner = split_reasons(v, (*path, k))
            notes.update(inner)
        return out, notes
    if isinstance(tree, list | tuple):
        items = []
        for i, v in enumerate(tree):
            plain, inner = split_reasons(v, (*path, i))
            items.append(plain)
            notes.update(inner)
        return items, notes
    return tree, notes


@dataclass
class Manifest:
    """One Kubernetes object: its plain body, the reasons behind its values, where it is written."""

    body: dict[str, Any]
    comments: dict[Path, str]
    file: str
    why: str
    header: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return str(self.body["kind"])

    @property
    def name(self) -> str:
        return str(self.body["metadata"]["name"])

    @property
    def api_version(self) -> str:
        return str(self.body["apiVersion"])

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "file": self.file, "why": self.why, "body": self.body}


def make(tree: dict[str, Any], file: str, summary: str, header: list[str] | None = None) -> Manifest:
    body, comments = split_reasons(tree)
    return Manifest(body=body, comments=comments, file=file, why=summary, header=list(header or []))


@dataclass(frozen=True)
class NodeLabel:
    """A label an operator puts on nodes (`kubectl label`): the GPU operator acts on it."""

    key: str
    value: str
    nodes: str  # which nodes, in words
    why: str

    def command(self) -> str:
        return f"kubectl label nodes <{self.nodes}> {self.key}={self.value} --overwrite"


@dataclass
class Bundle:
    """Everything `gpuwise deploy` emits for one plan (or a pool plan)."""

    manifests: list[Manifest] = field(default_factory=list)
    node_labels: list[NodeLabel] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    def extend(self, other: Bundle) -> None:
        have = {(m.file, m.kind, m.name) for m in self.manifests}
        self.manifests += [m for m in other.manifests if (m.file, m.kind, m.name) not in have]
        self.node_labels += [n for n in other.node_labels if n not in self.node_labels]
        self.notes += [n for n in other.notes if n not in self.notes]

    def find(self, kind: str, name: str | None = None) -> list[Manifest]:
        return [m for m in self.manifests if m.kind == kind and (name is None or m.name == name)]

    def as_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "manifests": [m.as_dict() for m in self.manifests],
            "node_labels": [
                {"key": n.key, "value": n.value, "nodes": n.nodes, "why": n.why, "command": n.command()}
                for n in self.node_labels
            ],
            "notes": self.notes,
        }


@dataclass(frozen=True)
class DeployOptions:
    name: str | None = None  # base object name (default: from the model)
    namespace: str = "default"
    engine: str | None = None  # triton | vllm; None: vLLM for decoder LLMs, Triton otherwise
    image: str | None = None
    scheduler: str = "volcano"  # volcano | job
    queue: str = "default"  # Volcano queue
    sharing: str = "none"  # none | auto | mig | time-slicing
    network: str | None = None  # inter-node link (catalog id); default: the plan's/catalog's
    gpu_product: str | None = None  # node label value to select, when the built-in table is wrong
    model_source: str | None = None  # vLLM --model: Hugging Face repo id or a path in the image
    script: str = "train.py"  # what torchrun runs
    prometheus_url: str = DEFAULT_PROMETHEUS
    socket_ifname: str = "eth0"
    ib_hca: str | None = None
    directory: str = ""  # prefix of the written files (pools put each workload in a folder)

    def checked(self) -> DeployOptions:
        if self.engine is not None and self.engine not in ENGINES:
            raise UsageError(f"--engine must be one of {', '.join(ENGINES)}; got {self.engine!r}")
        if self.scheduler not in SCHEDULERS:
            raise UsageError(f"--scheduler must be one of {', '.join(SCHEDULERS)}; got {self.scheduler!r}")
        if self.sharing not in SHARING:
            raise UsageError(f"--sharing must be one of {', '.join(SHARING)}; got {self.sharing!r}")
        _dns_label(self.namespace, "--namespace")
        _dns_label(self.queue, "--queue")
        if self.name is not None:
            _dns_label(self.name, "--name", max_len=40)
        return self


_DNS = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def _dns_label(value: str, what: str, max_len: int = 63) -> str:
    if not _DNS.match(value) or len(value) > max_len:
        raise UsageError(
            f"{what} {value!r} is not a valid Kubernetes name: lower-case letters, digits and '-', "
            f"starting with a letter, at most {max_len} characters"
        )
    return value


def slug(text: str, max_len: int = 40) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if not s or not s[0].isalpha():
        s = "w-" + s
    return s[:max_len].rstrip("-")


def _path(options: DeployOptions, name: str) -> str:
    return f"{options.directory.rstrip('/')}/{name}" if options.directory else name


def _meta(name: str, namespace: str | None, labels: dict[str, str], **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    meta["labels"] = {**labels, **MANAGED_BY}
    meta.update(extra)
    return meta


# ------------------------------------------------------------------------------------------
def namespace_manifest(
    namespace: str, options: DeployOptions, purpose: str, labels: dict[str, str] | None = None
) -> Manifest:
    return make(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(namespace, None, labels or {})},
        _path(options, "00-namespace.yaml"),
        purpose,
    )


def _placement(
    gpu: GPU, options: DeployOptions, mig: gpuinfo.MigProfile | None = None, time_sliced: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """nodeSelector and tolerations that put a pod on nodes with this GPU."""
    spec: dict[str, Any] = {}
    notes: list[str] = []
    label = gpuinfo.product_label(gpu, options.gpu_product)
    if label is None:
        notes.append(
            f"no known node label for {gpu.id}: add a nodeSelector for your nodes (pods go to any node "
            "with the GPU resource)"
        )
    else:
        key, value = label
        if gpuinfo.vendor(gpu) == "nvidia":
            shown = gpuinfo.shared_product(value, mig, time_sliced)
            src = "as given (--gpu-product)" if options.gpu_product else "the NVML name of the part"
            extra = ""
            if mig:
                extra = f"; with the MIG 'single' strategy GFD appends -MIG-{mig.name}"
            elif time_sliced:
                extra = "; time-slicing (renameByDefault=false) appends -SHARED"
            spec["nodeSelector"] = {
                key: why(shown, f"{gpu.name} nodes, as GPU feature discovery labels them ({src}{extra})")
            }
        else:
            spec["nodeSelector"] = {key: why(value, f"{gpu.name} nodes, as AMD's node labeller labels them")}
    res = gpuinfo.resource_name(gpu)
    spec["tolerations"] = [
        why(
            {"key": res, "operator": "Exists", "effect": "NoSchedule"},
            f"GPU nodes are commonly tainted {res}:NoSchedule so that only GPU pods land there",
        )
    ]
    return spec, notes


def _shm(gib: int, reason: str) -> tuple[dict[str, Any], dict[str, Any]]:
    volume = why(
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{gib}Gi"}},
        reason + "; a container's /dev/shm is 64 MiB by default. Memory-backed: counts as the pod's memory",
    )
    return volume, {"name": "dshm", "mountPath": "/dev/shm"}


def _requirements(result: PlanResult | None) -> Requirements:
    return result.requirements if result is not None else Requirements()


# ------------------------------------------------------------------------------------------
def plan_manifests(result: PlanResult, options: DeployOptions | None = None, catalog: Catalog | None = None) -> Bundle:
    """The manifests for a plan's chosen configuration."""
    options = (options or DeployOptions()).checked()
    chosen = result.chosen
    if chosen is None:
        raise RequirementNotMet(
            "nothing to deploy: no configuration meets the requirements (`gpuwise plan` shows what rules "
            "each GPU type out)"
        )
    return candidate_manifests(chosen, options, catalog, result.requirements)


def candidate_manifests(
    c: Candidate,
    options: DeployOptions | None = None,
    catalog: Catalog | None = None,
    requirements: Requirements | None = None,
) -> Bundle:
    options = (options or DeployOptions()).checked()
    catalog = catalog or load_catalog()
    work = c.est.workload
    bundle = Bundle()
    if options.namespace != "default":
        bundle.manifests.append(
            namespace_manifest(options.namespace, options, f"namespace for {c.label}", {"gpuwise.io/workload": "true"})
        )
    if isinstance(work, TrainingJob):
        if options.sharing != "none":
            raise UsageError(
                "training uses whole GPUs: NCCL does not run across MIG instances and time-sliced GPUs would "
                "slow every rank; deploy training without --sharing"
            )
        part = training_manifests(c, options, catalog)
    else:
        part = inference_manifests(c, options, catalog, requirements or Requirements())
    bundle.extend(part)
    bundle.summary = part.summary
    return bundle


# ------------------------------------------------------------------------------------------
# Serving
def choose_engine(work: InferenceJob, gpu: GPU, options: DeployOptions) -> tuple[str, str]:
    """(engine, reason). vLLM for decoder LLMs (continuous batching, as the plan's simulation
    assumes), Triton for everything else (dynamic batching of any framework's model)."""
    llm = isinstance(work.model, TransformerArch) and work.model.decoder
    amd = gpuinfo.vendor(gpu) == "amd"
    if options.engine is not None:
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


def hf_repo(model_name: str, catalog: Catalog) -> str | None:
    """The Hugging Face repository a catalog model's config comes from, if any."""
    entry = catalog.models.get(model_name)
    if entry is None:
        return None
    for sid in sorted(entry.source_ids()):
        url = catalog.sources[sid].url or ""
        m = re.match(r"https://huggingface\.co/([^/]+/[^/]+?)(?:/|$)", url)
        if m:
            return m.group(1)
    return None


def _request_bytes(work: InferenceJob) -> float:
    """Bytes of one request's inputs and outputs as the server copies them (token ids as int32,
    tensors as fp32); 0 when the model gives no input shape."""
    model = work.model
    if isinstance(model, TransformerArch):
        return 4.0 * (work.input_tokens + work.output_tokens)
    assert isinstance(model, GenericArch)
    return 4.0 * math.prod(model.input_shape) if model.input_shape else 0.0


def _triton_old(image: str) -> bool:
    """Triton before 22.07 (2.24.0) needs --strict-model-config=false to auto-complete configs."""
    m = re.search(r":(\d\d)\.(\d\d)", image)
    return bool(m) and (int(m.group(1)), int(m.group(2))) < (22, 7)


def _growth_replicas(c: Candidate) -> int | None:
    g = c.growth or {}
    if g.get("holds"):
        return None
    m = re.match(r"(\d+) replica\(s\) of (\d+)x", str(g.get("upgrade_path", "")))
    if m and int(m.group(2)) == c.est.hardware.count:
        return int(m.group(1))
    return None


@dataclass(frozen=True)
class Sharing:
    mode: str  # none | mig | time-slicing
    mig: gpuinfo.MigProfile | None = None
    per_gpu: int = 1  # replicas (slices) per physical GPU
    fraction: float = 1.0  # share of one GPU's throughput each replica gets
    reason: str = ""


def _serving_sharing(c: Candidate, options: DeployOptions) -> Sharing:
    mode = options.sharing
    if mode == "none":
        return Sharing("none")
    hw = c.est.hardware
    gpu = hw.gpu
    need = c.est.memory.per_gpu.total
    if hw.count > 1:
        raise UsageError(f"a replica spans {hw.count} GPUs (tensor parallel): it needs whole GPUs; drop --sharing")
    if gpuinfo.vendor(gpu) == "amd":
        raise UsageError(f"{gpu.id}: the AMD device plugin offers neither MIG nor time-slicing; drop --sharing")
    if mode == "auto":
        mode = "mig" if gpuinfo.mig_capable(gpu) else "time-slicing"
    if mode == "mig":
        profile = gpuinfo.smallest_mig_profile(gpu, need)  # UsageError for GPUs without MIG
        if profile is None:
            raise UsageError(
                f"one replica needs {fmt_gib(need)}: no MIG slice of {gpu.id} smaller than the whole GPU holds it; "
                "deploy without --sharing"
            )
        frac = profile.compute_slices / gpuinfo.MIG_COMPUTE_SLICES
        return Sharing(
            "mig",
            profile,
            profile.per_gpu,
            frac,
            f"MIG {profile.name}: one replica needs {fmt_gib(need)}; {profile.per_gpu} such slices per {gpu.id}, "
            f"each with {profile.compute_slices}/{gpuinfo.MIG_COMPUTE_SLICES} of the GPU's compute",
        )
    per = min(TIME_SLICES_MAX, int(gpu.capacity_bytes // max(need, 1)))
    if per < 2:
        raise UsageError(
            f"one replica needs {fmt_gib(need)} of {gpu.id}'s {fmt_gib(gpu.capacity_bytes)}: two do not fit "
            "on one GPU, so time-slicing gains nothing; deploy without --sharing"
        )
    return Sharing(
        "time-slicing",
        None,
        per,
        1.0 / per,
        f"time-slicing: {per} replicas of {fmt_gib(need)} fit in {fmt_gib(gpu.capacity_bytes)}; they take turns "
        "on the GPU (no memory or fault isolation)",
    )


def inference_manifests(c: Candidate, options: DeployOptions, catalog: Catalog, req: Requirements) -> Bundle:
    work = c.est.workload
    assert isinstance(work, InferenceJob)
    hw = c.est.hardware
    gpu = hw.gpu
    ns = options.namespace
    name = options.name or slug(work.model.name)
    engine, engine_why = choose_engine(work, gpu, options)
    amd = gpuinfo.vendor(gpu) == "amd"
    if options.image:
        image, image_why = options.image, "as given (--image)"
    elif engine == "triton":
        image, image_why = TRITON_IMAGE, "NVIDIA Triton Inference Server (NGC); pin your own tag or digest"
    elif amd:
        image, image_why = VLLM_ROCM_IMAGE, "AMD's ROCm build of vLLM; pin a tag or digest"
    else:
        image, image_why = VLLM_IMAGE, "vLLM's OpenAI-compatible server image; pin your own tag or digest"
    serving = c.serving or {}
    tp = work.parallel.tp
    batch = int(serving.get("max_batch", work.concurrency))
    capacity = serving.get("capacity_rps_per_replica")
    latency = float(serving.get("latency_seconds") or (c.est.inference.latency_seconds if c.est.inference else 0.0))
    share = _serving_sharing(c, options)
    res = gpuinfo.resource_name(gpu)
    need = c.est.memory.per_gpu.total
    notes: list[str] = []

    # replicas and capacity, adjusted when replicas share GPUs
    replicas = c.replicas
    rep_why = f"the plan's {c.replicas} replica(s) of {hw.count}x {gpu.id}"
    if capacity is not None:
        rep_why += f", {capacity:,.2f} requests/s each at batch {batch}"
    if share.mode != "none" and capacity is not None:
        demand = req.qps or capacity * c.replicas
        capacity = capacity * share.fraction
        replicas = max(1, math.ceil(demand / capacity))
        rep_why = (
            f"{demand:,.2f} requests/s over {capacity:,.2f} per shared replica ({share.fraction:.2f} of a GPU's "
            f"throughput, an approximation: the plan measured a whole GPU) = {replicas}"
        )
        notes.append(
            f"{share.reason}; replica capacity scaled to {share.fraction:.2f} of the plan's - confirm with "
            "`gpuwise bench latency` on a slice"
        )
    grown = _growth_replicas(c)
    if share.mode != "none" and grown:
        grown = math.ceil(grown / share.fraction)
    max_replicas = max(grown or 0, 2 * replicas)
    if grown and grown >= 2 * replicas:
        max_why = f"the growth check: {c.growth['summary'] if c.growth else ''}"
    else:
        max_why = "ASSUMPTION: room for twice the planned load" + (
            f" (the growth check asks for {grown})" if grown else " (the plan has no growth target)"
        )
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "inference"}
    selector = {"app.kubernetes.io/name": name}

    # the container
    env: list[Any] = []
    mounts: list[Any] = []
    volumes: list[Any] = []
    port = 8000
    if engine == "triton":
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
        command = ["tritonserver"]
        ports = [
            {"name": "http", "containerPort": 8000},
            {"name": "grpc", "containerPort": 8001},
            {"name": "metrics", "containerPort": 8002},
        ]
        ready, live = "/v2/health/ready", "/v2/health/live"
        volumes.append(
            why(
                {
                    "name": "model-repository",
                    "persistentVolumeClaim": {"claimName": f"{name}-model-repository", "readOnly": True},
                },
                "create this PVC (or use your storage) holding the Triton model repository "
                f"(<model>/config.pbtxt, <model>/1/...) for {work.model.name}",
            )
        )
        mounts.append({"name": "model-repository", "mountPath": "/models", "readOnly": True})
        metrics_port = 8002
        query = f'sum(rate(nv_inference_request_success{{namespace="{ns}",pod=~"{name}-.*"}}[2m]))'
        query_why = "requests/s Triton completes, summed over the replicas (Triton's metrics on :8002)"
        if tp > 1:
            notes.append(
                f"Triton with tensor parallelism {tp}: the model's backend config must use {tp} GPUs "
                "(model.json tensor_parallel_size for the vLLM backend, or a TensorRT-LLM engine built for tp)"
            )
    else:
        source = options.model_source or hf_repo(work.model.name, catalog) or f"/models/{work.model.name}"
        src_why = (
            "as given (--model-source)"
            if options.model_source
            else (
                "Hugging Face repository of the catalog's config"
                if "/" in source and not source.startswith("/")
                else "no known repository: mount the weights at this path or pass --model-source"
            )
        )
        util = VLLM_GPU_MEMORY_UTILIZATION
        util_why = (
            f"vLLM pre-allocates this share of GPU memory for weights and KV cache; the plan needs "
            f"{fmt_gib(need)} of {fmt_gib(c.est.memory.capacity)} per GPU ({need / c.est.memory.capacity:.0%})"
        )
        if share.mode == "time-slicing":
            util = math.floor((1 / share.per_gpu - 0.02) * 100) / 100
            util_why += f"; {share.per_gpu} replicas share each GPU, so each takes at most {util:.2f}"
        else:
            memory = share.mig.memory_bytes if share.mig else c.est.memory.capacity
            util = max(util, min(0.95, math.ceil((need / memory + 0.02) * 100) / 100))
            if share.mig:
                util_why += f"; on a MIG {share.mig.name} slice vLLM sees only the slice's memory"
        args = [
            why(f"--model={source}", src_why),
            why(f"--served-model-name={work.model.name}", "clients ask for the model by its gpuwise id"),
            why(f"--tensor-parallel-size={tp}", f"the plan's tensor parallelism: one replica spans {tp} GPU(s)"),
            why(f"--max-num-seqs={batch}", "the plan's batch: the largest whose latency leaves room for queueing"),
            why(
                f"--max-model-len={work.input_tokens + work.output_tokens}",
                f"{work.input_tokens} prompt + {work.output_tokens} generated tokens, the context the KV cache was sized for",
            ),
            why(f"--gpu-memory-utilization={util:.2f}", util_why),
            "--port=8000",
        ]
        dtype = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}.get(work.weights_dtype)
        if dtype:
            args.insert(2, why(f"--dtype={dtype}", f"the plan's weights dtype ({work.weights_dtype})"))
        else:
            notes.append(
                f"weights in {work.weights_dtype}: serve a checkpoint quantized that way and add vLLM's matching "
                "--quantization flag"
            )
        if work.kv_dtype == "fp8":
            args.append(why("--kv-cache-dtype=fp8", "the plan's KV-cache dtype (fp8)"))
        command = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
        ports = [{"name": "http", "containerPort": 8000}]
        ready = live = "/health"
        env.append(
            why(
                {
                    "name": "HF_TOKEN",
                    "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token", "optional": True}},
                },
                "gated repositories (e.g. Llama) need a token: kubectl create secret generic hf-token --from-literal=token=...",
            )
        )
        env.append({"name": "HF_HOME", "value": "/models/hf-cache"})
        weights = c.est.memory.per_gpu.weights * max(tp, 1)
        cache_gib = max(10, math.ceil(weights * 1.3 / 2**30))
        volumes.append(
            why(
                {"name": "model-cache", "emptyDir": {"sizeLimit": f"{cache_gib}Gi"}},
                f"downloaded weights ({fmt_bytes(weights)}) plus 30%; use a PVC to avoid downloading on every start",
            )
        )
        mounts.append({"name": "model-cache", "mountPath": "/models"})
        metrics_port = 8000
        query = f'sum(rate(vllm:request_success_total{{namespace="{ns}",pod=~"{name}-.*"}}[2m]))'
        query_why = (
            "requests/s vLLM completes, summed over the replicas (vLLM's /metrics on :8000); completions lag "
            "arrivals under overload, so also watch vllm:num_requests_waiting"
        )
    if tp > 1:
        vol, mount = _shm(
            max(16, 8 * tp), f"NCCL between the {tp} tensor-parallel GPUs of a replica uses shared memory"
        )
        volumes.append(vol)
        mounts.append(mount)
        _, nccl = nccl_env(hw, catalog, socket_ifname=options.socket_ifname)
        env += [why({"name": e.name, "value": e.value}, e.why) for e in nccl]

    units = 1 if share.mode != "none" else hw.count
    if share.mode == "mig":
        res_why = f"one MIG {share.mig.name if share.mig else ''} slice: the 'single' MIG strategy advertises each slice as one {res}"
    elif share.mode == "time-slicing":
        res_why = f"one of the {share.per_gpu} time-sliced replicas of a GPU the device plugin advertises"
    else:
        res_why = f"GPUs per replica: tensor parallelism {tp} on {gpu.id}"
    probe_common = {"periodSeconds": 10}
    container: dict[str, Any] = {
        "name": engine,
        "image": why(image, image_why),
        "command": command,
        "args": args,
        "ports": ports,
        "resources": {"limits": {res: why(units, res_why)}},
        "readinessProbe": why(
            {"httpGet": {"path": ready, "port": port}, **probe_common, "failureThreshold": 3},
            f"{engine}'s readiness endpoint: traffic only once the model is loaded",
        ),
        "livenessProbe": why(
            {"httpGet": {"path": live, "port": port}, **probe_common, "failureThreshold": 6},
            f"{engine}'s liveness endpoint: restart a wedged server after a minute",
        ),
        "startupProbe": why(
            {
                "httpGet": {"path": ready if engine == "triton" else live, "port": port},
                **probe_common,
                "failureThreshold": 90,
            },
            "loading (and downloading) the weights can take minutes: 15 minutes before liveness applies; raise for large models",
        ),
        "volumeMounts": mounts,
    }
    if env:
        container["env"] = env
    placement, place_notes = _placement(gpu, options, share.mig, share.mode == "time-slicing")
    notes += place_notes
    grace = max(30, math.ceil(2 * latency))
    pod_spec: dict[str, Any] = {
        "terminationGracePeriodSeconds": why(
            grace, f"in-flight requests finish before the pod stops (planned request latency {latency:.1f} s, x2)"
        ),
        "containers": [container],
        "volumes": volumes,
        **placement,
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(name, ns, labels, annotations={"gpuwise.io/plan": c.label}),
        "spec": {
            "replicas": why(replicas, rep_why),
            "selector": {"matchLabels": selector},
            "strategy": why(
                {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
                "no spare GPU for a surge pod: replace one replica at a time"
                + (" (one replica: the service is down while it restarts)" if replicas == 1 else ""),
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
    service_ports = [{"name": p["name"], "port": p["containerPort"], "targetPort": p["name"]} for p in ports]
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(name, ns, labels),
        "spec": {"selector": selector, "ports": service_ports},
    }
    bundle = Bundle(notes=notes)
    header = [f"gpuwise deploy: {c.label} ({c.est.workload.model.name} serving)"]
    bundle.manifests.append(
        make(deployment, _path(options, "20-deployment.yaml"), f"{engine} x{replicas}, {units} {res} each", header)
    )
    bundle.manifests.append(
        make(
            service,
            _path(options, "30-service.yaml"),
            f"ports {', '.join(str(p['port']) for p in service_ports)} of {name}",
            header,
        )
    )
    if capacity is not None:
        threshold = f"{capacity:.4g}" if capacity < 1e6 else f"{capacity:.0f}"
        scaled = {
            "apiVersion": "keda.sh/v1alpha1",
            "kind": "ScaledObject",
            "metadata": _meta(name, ns, labels),
            "spec": {
                "scaleTargetRef": {"name": name},
                "minReplicaCount": why(
                    replicas, "never below the planned replicas: they meet the latency target at the planned load"
                ),
                "maxReplicaCount": why(max_replicas, max_why),
                "fallback": why(
                    {"failureThreshold": 3, "replicas": replicas},
                    "if Prometheus cannot be read three times in a row, hold the planned replicas",
                ),
                "advanced": {
                    "horizontalPodAutoscalerConfig": {
                        "behavior": {
                            "scaleDown": why(
                                {"stabilizationWindowSeconds": 600},
                                "a GPU replica takes minutes to load: scale down only after 10 quiet minutes",
                            )
                        }
                    }
                },
                "triggers": [
                    {
                        "type": "prometheus",
                        "metricType": "AverageValue",
                        "metadata": {
                            "serverAddress": why(
                                options.prometheus_url, "your Prometheus (Prometheus Operator's default service here)"
                            ),
                            "query": why(query, query_why),
                            "threshold": why(
                                threshold,
                                f"the plan's capacity per replica{' on its share of a GPU' if share.mode != 'none' else ''} "
                                f"({capacity:,.4g} requests/s at batch {batch} within the latency target): KEDA runs "
                                "ceil(total / threshold) replicas",
                            ),
                        },
                    }
                ],
            },
        }
        bundle.manifests.append(
            make(
                scaled,
                _path(options, "40-scaledobject.yaml"),
                f"{replicas}..{max_replicas} replicas at {threshold} req/s each",
                header,
            )
        )
    else:
        bundle.notes.append("the plan has no serving capacity figure: no ScaledObject emitted")
    if share.mode != "none":
        layout = sharing_layout(gpu, share, options, nodes=f"nodes for {name}", purpose=f"{name} serving")
        bundle.extend(layout)
    bundle.summary = {
        "kind": "inference",
        "plan": c.label,
        "gpu": gpu.id,
        "gpus_per_replica": hw.count,
        "replicas": replicas,
        "max_replicas": max_replicas,
        "engine": engine,
        "image": image,
        "engine_why": engine_why,
        "sharing": share.mode,
        "mig_profile": share.mig.name if share.mig else None,
        "physical_gpus": math.ceil(replicas / share.per_gpu) * (hw.count if share.mode == "none" else 1),
        "usd_per_month": None if c.usd_per_hour is None else c.usd_per_hour * c.replicas * HOURS_PER_MONTH,
    }
    return bundle


# ------------------------------------------------------------------------------------------
# GPU sharing layouts
def sharing_layout(gpu: GPU, share: Sharing, options: DeployOptions, nodes: str, purpose: str) -> Bundle:
    """The GPU operator config that makes the sharing real: a mig-parted ConfigMap and the
    `nvidia.com/mig.config` node label (MIG), or a device-plugin time-slicing ConfigMap and the
    `nvidia.com/device-plugin.config` node label."""
    out = Bundle()
    op_ns = gpuinfo.GPU_OPERATOR_NAMESPACE
    if share.mode == "mig":
        assert share.mig is not None
        profiles = gpuinfo.mig_profiles(gpu)  # refuses GPUs without MIG
        config = gpuinfo.mig_parted_config([p for p in profiles if p.name == share.mig.name])
        cm = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta("gpuwise-mig-parted-config", op_ns, {"app.kubernetes.io/name": "gpuwise-mig-layout"}),
            "data": {
                "config.yaml": why(
                    _yaml_text(config), f"{share.reason}; layout name as in the GPU operator's default config"
                )
            },
        }
        header = [
            f"MIG layout for {purpose} on {gpu.id}: point the GPU operator at this config, MIG strategy 'single':",
            "  kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge -p "
            '\'{"spec":{"mig":{"strategy":"single"},"migManager":{"config":{"name":"gpuwise-mig-parted-config"}}}}\'',
            f"then label the nodes: kubectl label nodes <node> {gpuinfo.MIG_CONFIG_LABEL}={share.mig.config_name} --overwrite",
        ]
        out.manifests.append(
            make(
                cm, _path(options, "05-mig-layout.yaml"), f"MIG {share.mig.name} x{share.per_gpu} per {gpu.id}", header
            )
        )
        out.node_labels.append(
            NodeLabel(
                gpuinfo.MIG_CONFIG_LABEL,
                share.mig.config_name,
                f"{gpu.id} {nodes}",
                f"mig-manager repartitions each GPU into {share.per_gpu}x {share.mig.name}",
            )
        )
    elif share.mode == "time-slicing":
        key = f"{gpu.id}-x{share.per_gpu}"
        cm = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta("gpuwise-time-slicing", op_ns, {"app.kubernetes.io/name": "gpuwise-time-slicing"}),
            "data": {
                key: why(
                    _yaml_text(gpuinfo.time_slicing_config(gpu, share.per_gpu)),
                    f"{share.reason}; {gpu.id} has no MIG (catalog mig_max_instances {gpu.mig_max_instances})",
                )
            },
        }
        header = [
            f"Time-slicing for {purpose} on {gpu.id}: point the device plugin at this config:",
            "  kubectl patch clusterpolicies.nvidia.com/cluster-policy --type merge -p "
            '\'{"spec":{"devicePlugin":{"config":{"name":"gpuwise-time-slicing"}}}}\'',
            f"then label the nodes: kubectl label nodes <node> {gpuinfo.DEVICE_PLUGIN_CONFIG_LABEL}={key} --overwrite",
        ]
        out.manifests.append(
            make(cm, _path(options, "05-time-slicing.yaml"), f"{gpu.id} advertised {share.per_gpu}x per GPU", header)
        )
        out.node_labels.append(
            NodeLabel(
                gpuinfo.DEVICE_PLUGIN_CONFIG_LABEL,
                key,
                f"{gpu.id} {nodes}",
                f"the device plugin advertises each GPU {share.per_gpu} times",
            )
        )
    return out


def _yaml_text(doc: Any) -> str:
    import yaml  # a pure serializer; no I/O

    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


# ------------------------------------------------------------------------------------------
# Training
def training_manifests(c: Candidate, options: DeployOptions, catalog: Catalog) -> Bundle:
    work = c.est.workload
    assert isinstance(work, TrainingJob)
    hw = c.est.hardware
    gpu = hw.gpu
    ns = options.namespace
    name = options.name or slug(f"{work.model.name}-{work.method}")
    nodes, per_node = hw.nodes, hw.gpus_per_node
    amd = gpuinfo.vendor(gpu) == "amd"
    res = gpuinfo.resource_name(gpu)
    fab, nccl = nccl_env(hw, catalog, options.network, options.socket_ifname, options.ib_hca)
    if options.image:
        image, image_why = options.image, "as given (--image)"
    elif amd:
        image, image_why = PYTORCH_ROCM_IMAGE, "AMD's ROCm PyTorch image (torchrun, RCCL); use your training image"
    else:
        image, image_why = PYTORCH_IMAGE, "NGC PyTorch (torchrun, NCCL); use your training image"
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "training"}
    volcano = options.scheduler == "volcano"
    if volcano:
        master = f"{name}-worker-0.{name}"
        rank_var, master_why = (
            "VC_TASK_INDEX",
            (
                "pod 0 of task 'worker': Volcano's svc plugin gives each pod the hostname <job>-worker-<i> in a "
                "headless Service named after the job"
            ),
        )
    else:
        master = f"{name}-0.{name}"
        rank_var, master_why = (
            "JOB_COMPLETION_INDEX",
            ("pod 0 of the Indexed Job: its hostname is <job>-0 under the headless Service named in subdomain"),
        )
    env: list[Any] = []
    if nodes > 1:
        args: list[Any] = [
            why(f"--nnodes={nodes}", f"the plan's {nodes} nodes, one pod each"),
            why(f"--nproc-per-node={per_node}", f"one process per GPU: {per_node} GPUs per node"),
            why(
                f"--node-rank=$({rank_var})",
                f"this pod's index ({rank_var}, set by {'Volcano' if volcano else 'the Job controller'})",
            ),
            "--master-addr=$(MASTER_ADDR)",
            f"--master-port={TORCHRUN_PORT}",
            why(options.script, "your training script (in the image or on a mounted volume)"),
        ]
        env.append(why({"name": "MASTER_ADDR", "value": master}, master_why))
    else:
        args = [
            why("--standalone", "one node: torchrun's local rendezvous, no master address needed"),
            why(f"--nproc-per-node={per_node}", f"one process per GPU: {per_node} GPUs"),
            why(options.script, "your training script (in the image or on a mounted volume)"),
        ]
    env += [why({"name": e.name, "value": e.value}, e.why) for e in nccl]
    par = work.parallel
    env.append(
        why(
            {
                "name": "GPUWISE_LAYOUT",
                "value": f"tp={par.tp} pp={par.pp} zero={par.zero} micro_batch={work.micro_batch}",
            },
            "the layout the plan fits in memory: configure the script's parallelism to match",
        )
    )
    volume, mount = _shm(max(16, 8 * per_node), "NCCL's shared-memory transport and DataLoader workers")
    resources: dict[str, Any] = {"limits": {res: why(per_node, f"all {per_node} GPUs of a node: one pod per node")}}
    if work.data is not None:
        resources["requests"] = {
            "cpu": why(
                str(work.data.cpu_cores), f"the plan's data pipeline uses {work.data.cpu_cores} loader cores per node"
            )
        }
    container: dict[str, Any] = {
        "name": "trainer",
        "image": why(image, image_why),
        "command": ["torchrun"],
        "args": args,
        "env": env,
        "resources": resources,
        "volumeMounts": [mount],
    }
    if nodes > 1:
        container["ports"] = [{"name": "rendezvous", "containerPort": TORCHRUN_PORT}]
    rdma_note = ""
    if fab.rdma:
        container["securityContext"] = why(
            {"capabilities": {"add": ["IPC_LOCK"]}},
            f"RDMA ({fab.inter}) pins memory for the NIC: lift the locked-memory limit",
        )
        rdma_note = (
            f"{fab.network_name}: pods also need the RDMA device your network operator advertises, e.g. "
            "rdma/rdma_shared_device_a: 1 (NVIDIA Network Operator), added under resources.limits"
        )
        container["resources"] = why(resources, rdma_note)
    placement, notes = _placement(gpu, options)
    pod_spec: dict[str, Any] = {
        "restartPolicy": why("Never", "a failed rank breaks the collective: the job restarts as a whole"),
        "containers": [container],
        "volumes": [volume],
        **placement,
    }
    bundle = Bundle(notes=notes + ([rdma_note] if rdma_note else []))
    header = [f"gpuwise deploy: {c.label} ({work.model.name} {work.task}, {work.method})"]
    inter = f", {fab.network_name}" if fab.inter else ""
    fabric_words = f"{fab.intra}{inter}"
    job_meta = _meta(name, ns, labels, annotations={"gpuwise.io/plan": c.label})
    template = {"metadata": {"labels": labels}, "spec": pod_spec}
    if volcano:
        job = {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": job_meta,
            "spec": {
                "schedulerName": why("volcano", "Volcano's scheduler does the gang scheduling"),
                "queue": why(options.queue, "the Volcano queue whose share of GPUs this job uses"),
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
                            nodes, f"{nodes} node(s) x {per_node} GPUs = {hw.count} GPUs, the plan's count"
                        ),
                        "template": template,
                    }
                ],
            },
        }
        if nodes > 1:
            job["spec"]["plugins"] = why(
                {"svc": [], "env": []},
                "svc: headless Service + pod hostnames for the rendezvous; env: VC_TASK_INDEX for the node rank",
            )
        bundle.manifests.append(
            make(
                job,
                _path(options, "20-volcano-job.yaml"),
                f"gang of {nodes} pod(s) x {per_node} {res}; {fabric_words}",
                header,
            )
        )
    else:
        pod_spec["subdomain"] = why(
            name, "the headless Service below: gives pod 0 the DNS name the others rendezvous at"
        )
        job = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": job_meta,
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
        bundle.manifests.append(
            make(
                job,
                _path(options, "20-job.yaml"),
                f"Indexed Job of {nodes} pod(s) x {per_node} {res}; {fabric_words}",
                header,
            )
        )
        if nodes > 1:
            svc = {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": _meta(name, ns, labels),
                "spec": {
                    "clusterIP": why("None", "headless: DNS names for the pods, no load balancing"),
                    "publishNotReadyAddresses": why(True, "workers must resolve pod 0 before it is Ready"),
                    "selector": {"batch.kubernetes.io/job-name": name},
                    "ports": [{"name": "rendezvous", "port": TORCHRUN_PORT}],
                },
            }
            bundle.manifests.append(
                make(svc, _path(options, "10-headless-service.yaml"), "DNS for the torchrun rendezvous", header)
            )
    bundle.summary = {
        "kind": "training",
        "plan": c.label,
        "gpu": gpu.id,
        "gpus": hw.count,
        "nodes": nodes,
        "gpus_per_node": per_node,
        "scheduler": options.scheduler,
        "image": image,
        "fabric": {"intra": fab.intra, "inter": fab.inter, "network": fab.network},
        "nccl": {e.name: e.value for e in nccl},
        "usd_per_hour": c.usd_per_hour,
        "run_usd": c.cost if c.hours is not None else None,
    }
    return bundle
