"""Typed shapes of the catalog files. Units: bytes, bytes/s, FLOP/s, watts, USD, seconds."""

from __future__ import annotations

import re
from typing import Any, Literal

from gpuwise.catalog.record import Field, Record

DTYPES = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")


class _Strict(Record):
    """A catalog shape: a light frozen record (gpuwise.catalog.record). Built from YAML through
    `record.validate`, which derives a pydantic model (unknown keys refused, numbers finite) on the
    cold path only, so that a start from the cached catalog (gpuwise.cache) imports no pydantic."""


class Source(_Strict):
    """A document a value comes from: datasheet, paper, price list."""

    title: str
    url: str | None = None
    date: str | None = None
    accessed: str | None = None


class _Sourced(_Strict):
    """An entry whose every value has a source: `source` by default, `field_sources` per field."""

    source: str
    field_sources: dict[str, str] = Field(default_factory=dict)

    def source_of(self, field: str) -> str:
        """Most specific override wins: 'price.list_usd' before 'price' before the default."""
        parts = field.split(".")
        for i in range(len(parts), 0, -1):
            key = ".".join(parts[:i])
            if key in self.field_sources:
                return self.field_sources[key]
        return self.source

    def source_ids(self) -> set[str]:
        return {self.source, *self.field_sources.values()}


class GpuLink(_Strict):
    nvlink: int | None = None
    fabric: str | None = None
    bandwidth: float = Field(gt=0, description="total bidirectional bytes/s per GPU, as datasheets quote it")


class Pcie(_Strict):
    generation: int = Field(ge=1, le=6)
    lanes: int = Field(ge=1, le=32)


class Price(_Strict):
    list_usd: float | None = Field(default=None, ge=0)
    cloud_usd_per_gpu_hour: float | None = Field(default=None, ge=0)
    cloud_provider: str | None = None
    cloud_spot_usd_per_gpu_hour: float | None = Field(default=None, ge=0)
    cloud_reserved_usd_per_gpu_hour: float | None = Field(default=None, ge=0)


_PCI_ID = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{4}$")


class GpuIdentity(_Strict):
    """What vendor tools call this board, so that a benchmark, a fleet card and a manifest of the
    same GPU land on the same catalog id. Names are matched exactly after normalising case,
    punctuation and a leading 'NVIDIA'; a name that is not listed is unknown, never a guess.

    - `nvml`: product names NVML prints (nvidia-smi, nvmlDeviceGetName, torch on CUDA); the first
      is what current drivers print (Kubernetes node labels are derived from it).
    - `pci`: 'vendor:device' ids in lower-case hex (PCI ID repository); preferred when known.
    - `rocm`: names ROCm SMI / amd-smi and torch on ROCm print; the first is the product name.
    - `jetson`: Jetson module ids from /proc/device-tree/compatible ('nvidia,p3701-0005').
    - `shared`: names every board of a family prints (Jetson 'Orin (nvgpu)'): they identify this
      entry only together with a memory size that agrees with it.
    """

    nvml: list[str] = Field(default_factory=list)
    pci: list[str] = Field(default_factory=list)
    rocm: list[str] = Field(default_factory=list)
    jetson: list[str] = Field(default_factory=list)
    shared: list[str] = Field(default_factory=list)
    sources: list[str] = Field(min_length=1)

    def check(self) -> None:
        bad = [p for p in self.pci if not _PCI_ID.match(p)]
        if bad:
            raise ValueError(f"pci ids must be 'vendor:device' in lower-case hex (e.g. '10de:2330'), not {bad}")
        if not (self.nvml or self.pci or self.rocm or self.jetson or self.shared):
            raise ValueError("identity lists no name and no PCI id")

    def names(self) -> list[str]:
        """Every name that identifies the entry on its own (not the shared family names)."""
        return [*self.nvml, *self.rocm, *self.jetson]


class GpuDevices(_Strict):
    """A board that software sees as several GPUs: each AMD Instinct MI250X module holds two
    graphics compute dies, and ROCm, torch and rocm-smi list each die as its own GPU with its own
    memory. `id` is the catalog entry of one such device, `count` how many a board holds."""

    id: str
    count: int = Field(ge=2, le=16)


class GPU(_Sourced):
    id: str
    name: str
    vendor: str
    architecture: str
    release: str | None = None
    memory_bytes: int = Field(gt=0)
    memory_usable_bytes: int | None = Field(default=None, gt=0)
    memory_type: str
    memory_bandwidth: float = Field(gt=0)
    peak_flops: dict[str, float]
    tdp_watts: float = Field(gt=0)
    form_factor: str
    interconnect: GpuLink | None = None
    pcie: Pcie | None = None
    mig_max_instances: int = Field(ge=0)
    node_gpus: int = Field(ge=1)
    price: Price = Field(default_factory=Price)
    identity: GpuIdentity | None = None
    devices: GpuDevices | None = None  # a multi-die board: plans and estimates run on its devices
    notes: str | None = None

    def check(self) -> None:
        if self.devices is not None and self.identity is not None:
            raise ValueError("a board of several devices has no identity of its own: tools report its devices")
        unknown = set(self.peak_flops) - set(DTYPES)
        if unknown:
            raise ValueError(f"unknown dtype(s) in peak_flops: {sorted(unknown)}")
        if any(v <= 0 for v in self.peak_flops.values()):
            raise ValueError("peak_flops values must be positive")

    def source_ids(self) -> set[str]:
        ids = super().source_ids()
        return (ids | set(self.identity.sources)) if self.identity else ids

    @property
    def capacity_bytes(self) -> int:
        """What programs can allocate at most: the usable total where measured, else nominal."""
        return self.memory_usable_bytes or self.memory_bytes

    @property
    def link_id(self) -> str:
        """Name of the GPU-to-GPU path inside a node: NVLink generation on SXM boards, a bridge on
        PCIe cards, the fabric (AMD), else the PCIe generation; 'none' for integrated modules."""
        link = self.interconnect
        if link and link.nvlink:
            return f"nvlink{link.nvlink}" if self.form_factor == "sxm" else f"nvlink{link.nvlink}-bridge"
        if link and link.fabric:
            return link.fabric
        return f"pcie{self.pcie.generation}-x16" if self.pcie else "none"


class Interconnect(_Sourced):
    id: str
    name: str
    kind: Literal["pcie", "nvlink", "nvswitch", "infiniband", "roce", "infinity-fabric", "ethernet"]
    scope: Literal["intra-node", "inter-node"]
    nominal_bandwidth: float = Field(gt=0, description="bytes/s per direction")
    achieved_bandwidth: float = Field(gt=0, description="bytes/s per direction, typically achieved")
    latency_seconds: float = Field(gt=0)
    notes: str | None = None


class DefaultNetwork(_Strict):
    """The inter-node network a GPU family's reference node ships with."""

    architecture: str
    form_factor: str
    link: str
    per: Literal["gpu", "node"]
    source: str
    nics: int | None = Field(default=None, ge=1, le=64)  # NICs per node, where neither one per GPU nor per node

    def nics_per_node(self, gpus_per_node: int) -> int:
        """The node's compute NICs: `nics` where given, else one per GPU or one per node."""
        return self.nics or (gpus_per_node if self.per == "gpu" else 1)

    def matches(self, gpu: GPU) -> bool:
        return self.architecture in ("*", gpu.architecture) and self.form_factor in ("*", gpu.form_factor)


class EmbeddingTable(_Strict):
    rows: int = Field(gt=0)
    dim: int = Field(gt=0)
    name: str | None = None


class ModelEntry(_Sourced):
    id: str
    name: str
    kind: Literal["transformer", "generic"]
    task: Literal["llm", "encoder", "vision", "diffusion", "recommender"]
    published_params: float | None = Field(default=None, gt=0)
    params_source: str | None = None
    published_active_params: float | None = Field(default=None, gt=0)
    hf_config: dict[str, Any] | None = None
    flops_per_sample: float | None = Field(default=None, gt=0)
    input_shape: list[int] | None = None
    activation_bytes_per_sample: float | None = Field(default=None, gt=0)
    embedding_tables: list[EmbeddingTable] = Field(default_factory=list)
    bottom_mlp: list[int] | None = None  # recommender MLP widths (DLRM)
    top_mlp: list[int] | None = None
    dnn_hidden_layers: list[int] | None = None  # DeepFM deep part
    notes: str | None = None

    def check(self) -> None:
        if self.kind == "transformer" and not self.hf_config:
            raise ValueError(f"{self.id}: a transformer entry needs hf_config")
        if self.kind == "generic" and self.published_params is None:
            raise ValueError(f"{self.id}: a generic entry needs published_params")

    def source_ids(self) -> set[str]:
        ids = super().source_ids()
        return ids | ({self.params_source} if self.params_source else set())


class Convention(_Strict):
    """A modelling constant (overhead, efficiency, bytes per parameter) with its source."""

    value: float
    unit: str
    source: str
    why: str


class Framework(_Sourced):
    """A training stack's default conventions (frameworks.yaml), each with its source; `efficiency`
    is the fit over the stack's published runs (framework_efficiency.yaml, written by a script)."""

    id: str
    name: str
    gradient_bytes: dict[str, float]
    main_gradient_bytes: dict[str, float] = Field(default_factory=dict)
    fp32_params: bool
    master_weights: bool
    norm_saved_bytes: float = Field(gt=0)
    fused_swiglu: bool
    attention_kernel: Literal["fa2", "fused"]  # FlashAttention-2, or fused cuDNN / FlashAttention-3 class
    selective_policy: Literal["attention", "op"] = "attention"  # what --recompute selective recomputes
    # the loss implementation; its bytes per logit are conventions (logits_bytes_<kind>)
    loss_kind: Literal["eager", "vocab_parallel", "chunked", "fused"]
    loss: str
    default_recompute: Literal["none", "selective", "full"]
    bucket_bytes: float = Field(gt=0)
    overlap_grad_reduce: bool
    tp_comm_overlap: bool = False  # TP all-gather/reduce-scatter pipelined with the GEMMs (TE userbuffers)
    fp8_saves_fp8_inputs: bool
    compile: bool
    # elementwise ops the stack runs as separate eager kernels unless torch.compile fuses them
    eager_ops: list[Literal["norm", "rotary", "gated_act"]] = Field(default_factory=list)
    peak_measure: Literal["max_allocated", "max_reserved", "device_used"]
    # QLoRA's 4-bit linears: bitsandbytes keeps each input on ctx; torchao's NF4 linear keeps none
    quantized_linear: Literal["bitsandbytes", "torchao"] = "bitsandbytes"
    loss_held_between_steps: bool = False  # the loop's `loss` keeps last micro-batch's graph into the next
    pipeline_fsdp_unsharded: bool = False  # under PP, FSDP keeps a stage unsharded and its grads unreduced
    default_zero: int = Field(ge=0, le=3)  # sharding stage when none is given (NeMo: distributed optimizer)
    pipeline_max_zero: int = Field(ge=0, le=3)  # the deepest sharding the stack combines with pipelines
    efficiency: float = Field(default=1.0, gt=0, le=1.5)
    efficiency_note: str = ""

    def check(self) -> None:
        missing = {"fp32", "tf32", "fp16", "bf16", "fp8"} - set(self.gradient_bytes)
        if missing:
            raise ValueError(f"gradient_bytes needs every training precision; missing {sorted(missing)}")


class FittedEfficiency(_Strict):
    """One profile's efficiency as scripts/fit_efficiency.py derived it."""

    value: float = Field(gt=0, le=1.5)
    cases: int = Field(ge=0)
    sources: list[str] = Field(default_factory=list)
    pooled: bool = False  # no published runs of this stack: the fit over every stack's runs
    loso_median_abs_error: float | None = None
    loso_bias: float | None = None


class EngineProfile(_Sourced):
    """A serving engine's scheduler and memory defaults (catalog engines.yaml).

    `memory_basis` says what `memory_fraction` is a share of: `total` device memory (vLLM's
    gpu_memory_utilization, SGLang's mem_fraction_static; None: the serving_memory_utilization
    convention), or the memory `free` after weights and activations (TensorRT-LLM's KV cache)."""

    name: str
    memory_basis: Literal["total", "free"]
    memory_fraction: float | None = Field(default=None, gt=0, le=1)
    kv_block_tokens: int = Field(ge=1)
    token_budget: int = Field(ge=1)  # tokens (prefill chunks plus decodes) per engine step
    max_seqs: int | None = Field(default=None, ge=1)  # running requests at most (None: KV-bound only)
    small_gpu_bytes: int = Field(ge=0)  # below this memory the small-GPU defaults apply
    small_gpu_token_budget: int = Field(ge=1)
    small_gpu_max_seqs: int | None = Field(default=None, ge=1)
    # fitted to published measurements at load (the source says which): what the roofline of the
    # operations leaves out — the share of the large-GEMM rate a serving step's GEMMs reach, a fixed
    # cost per engine step (scheduling, sampling, launches) and per request (front end, tokenizer)
    matmul_efficiency: float = Field(default=1.0, gt=0, le=1)
    step_overhead_seconds: float = Field(default=0.0, ge=0)
    request_overhead_seconds: float = Field(default=0.0, ge=0)
    lora_step_overhead_seconds: float = Field(default=0.0, ge=0)  # the LoRA matmuls of a step (multi-LoRA on)

    def budget(self, memory_bytes: int) -> tuple[int, int | None]:
        """(tokens per step, running requests at most) on a GPU with `memory_bytes`."""
        if memory_bytes < self.small_gpu_bytes:
            return self.small_gpu_token_budget, self.small_gpu_max_seqs
        return self.token_budget, self.max_seqs


# ----- offers (offers.yaml): what providers rent, at a price on a date ------------------------
PriceModel = Literal["on-demand", "spot", "1y", "3y"]
OfferLink = Literal["pcie", "nvlink-bridge", "nvswitch", "none"]
_OFFER_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")
_PROVIDER = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


def _check_date(value: str) -> str:
    if not _OFFER_DATE.match(value):
        raise ValueError(f"date {value!r} must be YYYY-MM or YYYY-MM-DD (quoted in YAML)")
    return value


class OfferSource(Source):
    """A price source; `date_basis` says how its date was obtained (published, collected, bound,
    accessed), because an undated snapshot's date is not when the price held."""

    date_basis: Literal["published", "collected", "bound", "accessed"] | None = None


class Offer(_Strict):
    """One thing a provider rents: `price_per_hour` is the WHOLE instance's price in `currency`,
    for `gpus_per_instance` GPUs, so a cluster is priced in instances of a size the provider sells."""

    gpu: str
    provider: str
    instance: str = Field(min_length=1)
    gpus_per_instance: int = Field(ge=1, le=1024)
    link: OfferLink
    region: str = Field(min_length=1)
    price_model: PriceModel
    currency: str
    price_per_hour: float = Field(gt=0, allow_inf_nan=False)
    date: str
    source: str = Field(min_length=1)
    available: bool
    note: str | None = None

    def check(self) -> None:
        _check_date(self.date)
        if not _PROVIDER.match(self.provider):
            raise ValueError(f"provider {self.provider!r} must be a lower-case id like aws or runpod-secure")
        if not _CURRENCY.match(self.currency):
            raise ValueError(f"currency {self.currency!r} must be an ISO code like USD or CNY")

    @property
    def price_per_gpu_hour(self) -> float:
        return self.price_per_hour / self.gpus_per_instance


class FxRate(_Strict):
    """Units of `currency` per 1 USD on `date`, from `source`."""

    currency: str
    per_usd: float = Field(gt=0, allow_inf_nan=False)
    date: str
    source: str

    def check(self) -> None:
        _check_date(self.date)
        if not _CURRENCY.match(self.currency):
            raise ValueError(f"currency {self.currency!r} must be an ISO code like CNY")


PciePath = Literal["host-staged", "pcie-switch", "pcie-root-complex", "pcie-cross-socket"]


class BusBandwidth(_Strict):
    """A measured nccl-tests all-reduce busbw of one intra-node path (collectives.yaml)."""

    id: str
    path: PciePath | Literal["nvlink-bridge"]
    gpus: int = Field(ge=2)
    busbw: float = Field(gt=0, description="bytes/s")
    source: str
    pcie_generation: int | None = Field(default=None, ge=1, le=6)
    gpu_ids: list[str] = Field(default_factory=list)


class NoP2P(_Strict):
    gpus: list[str]
    source: str


class PcieLayout(_Strict):
    """The PCIe path a node of up to `max_gpus` peer-to-peer PCIe cards takes (collectives.yaml)."""

    max_gpus: int = Field(ge=1)
    path: PciePath
    source: str


class ServerPrice(_Strict):
    """A whole server as bought (costs.yaml `servers`): its price with the GPUs, how many it holds and
    what it ships with, so owning is priced per server, not as chip prices plus a generic host."""

    usd: float = Field(gt=0, allow_inf_nan=False)
    gpus: int = Field(ge=1, le=64)
    platform: str = Field(min_length=1)
    source: str
    why: str
