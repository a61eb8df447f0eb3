"""The building blocks every manifest builder shares: values with reasons (`why`), the
`Manifest` and `Bundle` they become, deploy options, names, metadata, node placement, the
shared-memory volume, and the deploy conventions read from the catalog.

Pure: nothing here reads or writes files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog import GPU, Catalog
from gpuwise.deploy import gpu as gpuinfo
from gpuwise.errors import UsageError

ENGINES = ("triton", "vllm", "sglang", "trtllm")  # Kubernetes runs the first two
SCHEDULERS = ("volcano", "job")
SHARING = ("none", "auto", "mig", "time-slicing")
DEFAULT_PROMETHEUS = "http://prometheus-operated.monitoring.svc:9090"
MANAGED_BY = {"app.kubernetes.io/managed-by": "gpuwise"}

KeyPath = tuple[Any, ...]  # where a value sits in a manifest: keys and list indices


# ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Why:
    """A value and the reason it was chosen (written as a comment above it)."""

    value: Any
    why: str


def why(value: Any, reason: str) -> Why:
    """Wrap a chosen value with its reason; `make` strips it off into the comments."""
    return Why(value, reason)


def split_reasons(tree: Any, path: KeyPath = ()) -> tuple[Any, dict[KeyPath, str]]:
    """The plain tree (no `Why` left) and the reasons keyed by the path of what they explain."""
    notes: dict[KeyPath, str] = {}
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


@dataclass(slots=True)
class Manifest:
    """One Kubernetes object: its plain body, the reasons behind its values, where it is written."""

    body: dict[str, Any]
    comments: dict[KeyPath, str]
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
    """A `Manifest` from a tree that may hold `why(...)` values."""
    body, comments = split_reasons(tree)
    return Manifest(body=body, comments=comments, file=file, why=summary, header=list(header or []))


@dataclass(frozen=True, slots=True)
class NodeLabel:
    """A label an operator puts on nodes (`kubectl label`): the GPU operator acts on it."""

    key: str
    value: str
    nodes: str  # which nodes, in words
    why: str

    def command(self) -> str:
        return f"kubectl label nodes <{self.nodes}> {self.key}={self.value} --overwrite"


@dataclass(slots=True)
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


# ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
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
        """Self, once every choice is known and every name is a valid Kubernetes name."""
        if self.engine is not None and self.engine not in ENGINES:
            raise UsageError(f"--engine must be one of {', '.join(ENGINES)}; got {self.engine!r}")
        if self.scheduler not in SCHEDULERS:
            raise UsageError(f"--scheduler must be one of {', '.join(SCHEDULERS)}; got {self.scheduler!r}")
        if self.sharing not in SHARING:
            raise UsageError(f"--sharing must be one of {', '.join(SHARING)}; got {self.sharing!r}")
        dns_label(self.namespace, "--namespace")
        dns_label(self.queue, "--queue")
        if self.name is not None:
            dns_label(self.name, "--name", max_len=40)
        return self


@dataclass(frozen=True, slots=True)
class DeployConventions:
    """The modelling numbers deploy uses, each from conventions.yaml (value, unit, source there)."""

    gpu_memory_utilization: float  # vLLM --gpu-memory-utilization when the plan fits below it
    memory_margin: float  # share of GPU memory left free above what a replica needs
    memory_utilization_max: float  # the most of a GPU vLLM is ever told to take
    model_cache_headroom: float  # download cache beyond the weights, as a fraction of them
    model_cache_min_bytes: float
    shm_bytes_per_gpu: float  # /dev/shm per GPU a pod drives (NCCL shared-memory transport, loaders)
    shm_min_bytes: float
    time_slices_max: int  # time-sliced replicas per GPU at most

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> DeployConventions:
        c = catalog.convention
        return cls(
            gpu_memory_utilization=c("serving_memory_utilization"),
            memory_margin=c("serving_memory_margin"),
            memory_utilization_max=c("serving_memory_utilization_max"),
            model_cache_headroom=c("model_cache_headroom"),
            model_cache_min_bytes=c("model_cache_min_bytes"),
            shm_bytes_per_gpu=c("shm_bytes_per_gpu"),
            shm_min_bytes=c("shm_min_bytes"),
            time_slices_max=int(c("time_slices_max")),
        )

    def shm_gib(self, gpus: int) -> int:
        """GiB of /dev/shm for a pod that drives `gpus` GPUs."""
        return math.ceil(max(self.shm_min_bytes, self.shm_bytes_per_gpu * gpus) / 2**30)


_DNS = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def dns_label(value: str, what: str, max_len: int = 63) -> str:
    """`value` if it is a valid Kubernetes name, else a `UsageError` naming `what`."""
    if not _DNS.match(value) or len(value) > max_len:
        raise UsageError(
            f"{what} {value!r} is not a valid Kubernetes name: lower-case letters, digits and '-', "
            f"starting with a letter, at most {max_len} characters"
        )
    return value


# Kubernetes' own rules for labels and node names (k8s.io/apimachinery/pkg/util/validation): a label
# value is empty or at most 63 letters, digits, '-', '_' and '.', a letter or digit at each end; a label
# key is such a name (not empty), after an optional DNS-subdomain prefix and '/'; a node name is a DNS
# subdomain (lower case, at most 253), and the kubernetes.io/hostname label holds it, so at most 63.
LABEL_MAX = 63
SUBDOMAIN_MAX = 253
_LABEL_NAME = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
LABEL_VALUE_RULE = f"at most {LABEL_MAX} letters, digits, '-', '_' and '.', a letter or digit at each end"
NODE_NAME_RULE = f"lower-case letters, digits, '-' and '.', a letter or digit at each end, at most {LABEL_MAX}"


def is_label_value(value: str) -> bool:
    return len(value) <= LABEL_MAX and _LABEL_NAME.fullmatch(value) is not None


def is_label_key(key: str) -> bool:
    prefix, slash, name = key.rpartition("/")
    prefix_ok = not slash or (len(prefix) <= SUBDOMAIN_MAX and _SUBDOMAIN.fullmatch(prefix) is not None)
    return prefix_ok and bool(name) and is_label_value(name)


def is_node_name(name: str) -> bool:
    """A name a node can have that the kubernetes.io/hostname label can hold."""
    return len(name) <= LABEL_MAX and _SUBDOMAIN.fullmatch(name) is not None


def slug(text: str, max_len: int = 40) -> str:
    """A Kubernetes-safe name from free text (a model id, a workload name)."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if not s or not s[0].isalpha():
        s = "w-" + s
    return s[:max_len].rstrip("-")


def file_path(options: DeployOptions, name: str) -> str:
    """Where a manifest is written, under the options' directory."""
    return f"{options.directory.rstrip('/')}/{name}" if options.directory else name


def meta(name: str, namespace: str | None, labels: dict[str, str], **extra: Any) -> dict[str, Any]:
    """Object metadata: name, namespace, labels (always marked as managed by gpuwise)."""
    out: dict[str, Any] = {"name": name}
    if namespace is not None:
        out["namespace"] = namespace
    out["labels"] = {**labels, **MANAGED_BY}
    out.update(extra)
    return out


def namespace_manifest(
    namespace: str, options: DeployOptions, purpose: str, labels: dict[str, str] | None = None
) -> Manifest:
    return make(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(namespace, None, labels or {})},
        file_path(options, "00-namespace.yaml"),
        purpose,
    )


# ------------------------------------------------------------------------------------------
def placement(
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


def shm_volume(gib: int, reason: str) -> tuple[Why, dict[str, Any]]:
    """A memory-backed /dev/shm of `gib` GiB: (the volume, its mount)."""
    volume = why(
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{gib}Gi"}},
        reason + "; a container's /dev/shm is 64 MiB by default. Memory-backed: counts as the pod's memory",
    )
    return volume, {"name": "dshm", "mountPath": "/dev/shm"}


def yaml_text(doc: Any) -> str:
    """YAML text for a ConfigMap value (a pure serializer; no I/O)."""
    import yaml

    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
