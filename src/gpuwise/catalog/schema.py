"""Typed shapes of the catalog files. Units: bytes, bytes/s, FLOP/s, watts, USD, seconds.

Each shape is a frozen stdlib dataclass whose bounds are `annotated_types` markers in its
annotations and whose cross-field rules live in `__post_init__`. `validate` checks a file's data
against a shape with pydantic (types coerced, unknown keys refused, numbers finite); only a cold
start does that: a warm start unpickles the validated catalog (gpuwise.cache), so pydantic is
imported inside `validate`, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeVar

from annotated_types import Ge, Gt, Le, MinLen

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from gpuwise.catalog.arch import TransformerArch

DTYPES = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4")
_T = TypeVar("_T")
_ADAPTERS: dict[type, TypeAdapter[Any]] = {}  # built on first use, one per shape


def validate(cls: type[_T], data: Any) -> _T:
    """`data` (a mapping from YAML or JSON) checked against the shape `cls` and made one: types
    coerced as pydantic does, unknown keys refused, numbers finite, the bounds and `__post_init__`
    rules applied. A bad value raises pydantic.ValidationError (its errors name the field)."""
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        from pydantic import TypeAdapter  # the cold path only (see the module docstring)

        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    shape: _T = adapter.validate_python(data)
    return shape


class _Strict:
    """A catalog shape: unknown keys and non-finite numbers are refused when it is validated."""

    __slots__ = ()
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "allow_inf_nan": False}


@dataclass(frozen=True, slots=True, kw_only=True)
class Source(_Strict):
    """A document a value comes from: datasheet, paper, price list."""

    title: str
    url: str | None = None
    date: str | None = None
    accessed: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class _Sourced(_Strict):
    """An entry whose every value has a source: `source` by default, `field_sources` per field."""

    source: str
    field_sources: dict[str, str] = field(default_factory=dict)

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


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuLink(_Strict):
    nvlink: int | None = None
    fabric: str | None = None
    bandwidth: Annotated[float, Gt(0)]  # total bidirectional bytes/s per GPU, as datasheets quote it


@dataclass(frozen=True, slots=True, kw_only=True)
class Pcie(_Strict):
    generation: Annotated[int, Ge(1), Le(6)]
    lanes: Annotated[int, Ge(1), Le(32)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Price(_Strict):
    """What the GPU costs to buy; renting it is priced from offers.yaml (gpuwise.estimate.offers)."""

    list_usd: Annotated[float, Ge(0)] | None = None


_PCI_ID = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{4}$")


@dataclass(frozen=True, slots=True, kw_only=True)
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

    nvml: list[str] = field(default_factory=list)
    pci: list[str] = field(default_factory=list)
    rocm: list[str] = field(default_factory=list)
    jetson: list[str] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)
    sources: Annotated[list[str], MinLen(1)]

    def __post_init__(self) -> None:
        bad = [p for p in self.pci if not _PCI_ID.match(p)]
        if bad:
            raise ValueError(f"pci ids must be 'vendor:device' in lower-case hex (e.g. '10de:2330'), not {bad}")
        if not (self.nvml or self.pci or self.rocm or self.jetson or self.shared):
            raise ValueError("identity lists no name and no PCI id")

    def names(self) -> list[str]:
        """Every name that identifies the entry on its own (not the shared family names)."""
        return [*self.nvml, *self.rocm, *self.jetson]


@dataclass(frozen=True, slots=True, kw_only=True)
class GpuDevices(_Strict):
    """A board that software sees as several GPUs: each AMD Instinct MI250X module holds two
    graphics compute dies, and ROCm, torch and rocm-smi list each die as its own GPU with its own
    memory. `id` is the catalog entry of one such device, `count` how many a board holds."""

    id: str
    count: Annotated[int, Ge(2), Le(16)]


@dataclass(frozen=True, slots=True, kw_only=True)
class GPU(_Sourced):
    id: str
    name: str
    vendor: str
    architecture: str
    release: str | None = None
    memory_bytes: Annotated[int, Gt(0)]
    memory_usable_bytes: Annotated[int, Gt(0)] | None = None
    memory_type: str
    memory_bandwidth: Annotated[float, Gt(0)]
    peak_flops: dict[str, float]
    tdp_watts: Annotated[float, Gt(0)]
    form_factor: str
    interconnect: GpuLink | None = None
    pcie: Pcie | None = None
    mig_max_instances: Annotated[int, Ge(0)]
    node_gpus: Annotated[int, Ge(1)]
    price: Price = field(default_factory=Price)
    identity: GpuIdentity | None = None
    devices: GpuDevices | None = None  # a multi-die board: plans and estimates run on its devices
    # dense FP16 tensor rate with FP16 accumulate, where it is above peak_flops.fp16 (FP32 accumulate): GeForce
    # cards run FP32 accumulate at half rate; a runtime with `fp16_accumulate` reaches this one
    fp16_accumulate_flops: Annotated[float, Gt(0)] | None = None
    notes: str | None = None

    def __post_init__(self) -> None:
        if self.devices is not None and self.identity is not None:
            raise ValueError("a board of several devices has no identity of its own: tools report its devices")
        unknown = set(self.peak_flops) - set(DTYPES)
        if unknown:
            raise ValueError(f"unknown dtype(s) in peak_flops: {sorted(unknown)}")
        if any(v <= 0 for v in self.peak_flops.values()):
            raise ValueError("peak_flops values must be positive")

    def source_ids(self) -> set[str]:
        ids = _Sourced.source_ids(self)  # slots=True makes a new class: zero-argument super() fails
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Interconnect(_Sourced):
    id: str
    name: str
    kind: Literal["pcie", "nvlink", "nvswitch", "infiniband", "roce", "infinity-fabric", "ethernet"]
    scope: Literal["intra-node", "inter-node"]
    nominal_bandwidth: Annotated[float, Gt(0)]  # bytes/s per direction
    achieved_bandwidth: Annotated[float, Gt(0)]  # bytes/s per direction, typically achieved
    latency_seconds: Annotated[float, Gt(0)]
    notes: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DefaultNetwork(_Strict):
    """The inter-node network a GPU family's reference node ships with."""

    architecture: str
    form_factor: str
    link: str
    per: Literal["gpu", "node"]
    source: str
    nics: Annotated[int, Ge(1), Le(64)] | None = None  # NICs per node, where neither one per GPU nor per node

    def nics_per_node(self, gpus_per_node: int) -> int:
        """The node's compute NICs: `nics` where given, else one per GPU or one per node."""
        return self.nics or (gpus_per_node if self.per == "gpu" else 1)

    def matches(self, gpu: GPU) -> bool:
        return self.architecture in ("*", gpu.architecture) and self.form_factor in ("*", gpu.form_factor)


@dataclass(frozen=True, slots=True, kw_only=True)
class EmbeddingTable(_Strict):
    rows: Annotated[int, Gt(0)]
    dim: Annotated[int, Gt(0)]
    name: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelEntry(_Sourced):
    id: str
    name: str
    kind: Literal["transformer", "generic"]
    task: Literal["llm", "encoder", "vision", "diffusion", "recommender"]
    published_params: Annotated[float, Gt(0)] | None = None
    params_source: str | None = None
    published_active_params: Annotated[float, Gt(0)] | None = None
    hf_config: dict[str, Any] | None = None
    flops_per_sample: Annotated[float, Gt(0)] | None = None
    input_shape: list[int] | None = None
    activation_bytes_per_sample: Annotated[float, Gt(0)] | None = None
    embedding_tables: list[EmbeddingTable] = field(default_factory=list)
    bottom_mlp: list[int] | None = None  # recommender MLP widths (DLRM)
    top_mlp: list[int] | None = None
    dnn_hidden_layers: list[int] | None = None  # DeepFM deep part
    notes: str | None = None

    def __post_init__(self) -> None:
        if self.kind == "transformer" and not self.hf_config:
            raise ValueError(f"{self.id}: a transformer entry needs hf_config")
        if self.kind == "generic" and self.published_params is None:
            raise ValueError(f"{self.id}: a generic entry needs published_params")

    def source_ids(self) -> set[str]:
        ids = _Sourced.source_ids(self)  # slots=True makes a new class: zero-argument super() fails
        return ids | ({self.params_source} if self.params_source else set())


@dataclass(frozen=True, slots=True, kw_only=True)
class Convention(_Strict):
    """A modelling constant (overhead, efficiency, bytes per parameter) with its source."""

    value: float
    unit: str
    source: str
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LengthDataset(_Strict):
    """A serving benchmark's dataset as its harness samples it (datasets.yaml, written by
    scripts/dataset_lengths.py): the quantile function of its prompt and output lengths in tokens at
    `levels`, their means, and the longest context its sampling keeps."""

    name: str
    source: str
    sampling_source: str
    pairs: Annotated[int, Gt(0)]
    prompt_mean: Annotated[float, Gt(0)]
    output_mean: Annotated[float, Gt(0)]
    context_cap: Annotated[int, Gt(0)]
    levels: tuple[float, ...]
    prompt: tuple[float, ...]
    output: tuple[float, ...]
    notes: str = ""

    def __post_init__(self) -> None:
        ends = self.levels[:1] + self.levels[-1:]
        if ends != (0.0, 1.0) or list(self.levels) != sorted(set(self.levels)):
            raise ValueError("levels rise from 0 to 1, each once")
        for name, q in (("prompt", self.prompt), ("output", self.output)):
            if len(q) != len(self.levels) or list(q) != sorted(q) or q[0] < 1:
                raise ValueError(f"{name}: one length of at least 1 per level, never falling")


@dataclass(frozen=True, slots=True, kw_only=True)
class Framework(_Sourced):
    """A training stack's default conventions (frameworks.yaml), each with its source; `efficiency`
    is the fit over the stack's published runs (framework_efficiency.yaml, written by a script)."""

    id: str
    name: str
    gradient_bytes: dict[str, float]
    main_gradient_bytes: dict[str, float] = field(default_factory=dict)
    fp32_params: bool
    master_weights: bool
    # parameters and gradients in contiguous buffers allocated once (Megatron Core): the caching
    # allocator's slack is the convention allocator_fragmentation_assumed, not the fitted one
    contiguous_buffers: bool = False
    norm_saved_bytes: Annotated[float, Gt(0)]
    fused_swiglu: bool
    attention_kernel: Literal["fa2", "fused"]  # FlashAttention-2, or fused cuDNN / FlashAttention-3 class
    # the decoders are Transformers' code: their eager attention softmaxes in fp32 and casts back
    transformers_attention: bool = False
    selective_policy: Literal["attention", "op"] = "attention"  # what --recompute selective recomputes
    # the loss implementation; its bytes per logit are conventions (logits_bytes_<kind>)
    loss_kind: Literal["eager", "eager_16bit", "vocab_parallel", "vocab_parallel_copy", "chunked", "fused", "cce"]
    loss: str
    default_recompute: Literal["none", "selective", "full"]
    # the data-parallel gradient bucket in bytes (PyTorch DDP), or in elements of the gradient buffer at the
    # width it reduces in (Megatron); both None: DeepSpeed's, counted in elements (reduce_bucket_bytes)
    bucket_bytes: Annotated[float, Gt(0)] | None = None
    bucket_elements: Annotated[float, Gt(0)] | None = None
    overlap_grad_reduce: bool
    tp_comm_overlap: bool = False  # TP all-gather/reduce-scatter pipelined with the GEMMs (TE userbuffers)
    fp8_saves_fp8_inputs: bool
    compile: bool
    # torch.compile covers the stack's eager loss when the run compiles, the model's forward computing it
    # (Transformers' CausalLM under the Trainer): the loss runs as the `compiled` kind (logits_bytes_compiled)
    compiled_loss: bool = False
    # the stack's kernels are issued from Python (eager PyTorch: a host floor of a launch each); false: from
    # native code (llm.c), whose launches are not counted (a few microseconds each; what paces a small-batch
    # llm.c step is an open miss, docs/holdout-diagnosis.md)
    python_launches: bool = True
    # the stack splits a model over GPUs (tensor, pipeline, context or expert parallelism) and trains adapters
    # (LoRA, QLoRA); llm.c does neither: data parallelism (ZeRO 0-1) and full training only
    model_parallel: bool = True
    adapters: bool = True
    # elementwise ops the stack runs as separate eager kernels unless torch.compile fuses them
    eager_ops: list[Literal["norm", "rotary", "gated_act"]] = field(default_factory=list)
    peak_measure: Literal["max_allocated", "max_reserved", "device_used"]
    # QLoRA's 4-bit linears: bitsandbytes keeps each input on ctx; torchao's NF4 linear keeps none
    quantized_linear: Literal["bitsandbytes", "bitsandbytes-legacy", "torchao"] = "bitsandbytes"
    loss_held_between_steps: bool = False  # the loop's `loss` keeps last micro-batch's graph into the next
    pipeline_fsdp_unsharded: bool = False  # under PP, FSDP keeps a stage unsharded and its grads unreduced
    # a deferred-sync gradient is upcast to the reduce dtype as it accumulates (FSDP2); FSDP1's no_sync
    # keeps it in the dtype the backward computed it (its post-backward hook returns before the cast)
    deferred_grads_upcast: bool = False
    hybrid_sharding: bool = False  # shards inside a node and replicates across nodes (HSDP)
    # LoRA adapters run as PEFT's eager modules (a separate output, scale and add per targeted layer)
    peft_lora: bool = False
    # ZeRO-1 (a distributed optimizer) sharded inside a node and replicated across nodes (Megatron Core's
    # partial distributed optimizer, --num-distributed-optimizer-instances)
    hybrid_zero1: bool = False
    # how the stack's activation checkpointing runs a checkpointed forward: without a graph
    # (reentrant: torch.utils.checkpoint use_reentrant=True, Megatron's and DeepSpeed's CheckpointFunction)
    # or building one under saved-tensor hooks (non-reentrant: checkpoint_wrapper's default)
    checkpoint_impl: Literal["non-reentrant", "reentrant"]
    # how the stack's AdamW steps: PyTorch's foreach kernels (torch.optim.AdamW's default: a tensor of every
    # parameter's size in the moments' dtype at the step) or a fused in-place kernel (apex, Transformer Engine and
    # DeepSpeed FusedAdam, fused=True); a for-loop step's one-parameter temporary is counted as fused
    optimizer_impl: Literal["foreach", "fused"]
    zeropp: bool = False  # DeepSpeed ZeRO++ (hierarchical partitioning, quantized weights and gradients)
    # passes a step makes over the gradients it updates from, beside the update, per training precision: the
    # stack's default clipping (a norm read; torch's clip_grad_norm_ then multiplies by the clamped coefficient,
    # a read and a write, every step; Megatron scales only when the norm is past the limit) and fp16's loss-scale
    # unscaling (a read and a write)
    step_gradient_passes: dict[str, Annotated[int, Ge(0), Le(6)]]
    default_zero: Annotated[int, Ge(0), Le(3)]
    pipeline_max_zero: Annotated[int, Ge(0), Le(3)]  # the deepest sharding the stack combines with pipelines
    # the ZeRO stages the stack can run: FSDP2 stacks shard gradients with the states or not at all (no
    # ZeRO-1: FULL_SHARD is 3, reshard_after_forward=False / SHARD_GRAD_OP is 2, DDP or one GPU 0)
    zero_stages: list[Annotated[int, Ge(0), Le(3)]] = field(default_factory=lambda: [0, 1, 2, 3])
    # runs DeepSpeed's ZeRO-Offload (optimizer states and fp32 master in CPU memory under ZeRO-2, 16-bit
    # weights on the GPU): what a one-GPU layout search may choose beside the stack's own loop
    zero_offload: bool = False
    # its DeepSpeed config leaves reduce_bucket_size 'auto', which the Transformers integration fills
    # with hidden_size^2 (else DeepSpeed's default, conventions deepspeed_reduce_bucket_elements)
    zero_bucket_auto: bool = False
    # accumulates and reduces gradients in bf16 on request (Megatron Core's --grad-reduce-in-bf16)
    bf16_grad_reduce: bool = False
    # keeps the linears' weights as Transformer Engine FP8 parameters beside an fp32 main copy
    # (Megatron Core's --fp8-param-gather): --weights-dtype fp8 in full training
    fp8_params: bool = False
    interleaved_pipeline: bool = False  # runs the interleaved 1F1B schedule (virtual pipeline stages)
    expert_parallel: bool = False  # shards MoE experts over ranks (--ep), which the layout search may choose
    efficiency: Annotated[float, Gt(0), Le(1.5)] = 1.0
    efficiency_note: str = ""

    def __post_init__(self) -> None:
        for name in ("gradient_bytes", "step_gradient_passes"):
            missing = {"fp32", "tf32", "fp16", "bf16", "fp8"} - set(getattr(self, name))
            if missing:
                raise ValueError(f"{name} needs every training precision; missing {sorted(missing)}")


@dataclass(frozen=True, slots=True, kw_only=True)
class FittedEfficiency(_Strict):
    """One profile's efficiency as scripts/fit_efficiency.py derived it."""

    value: Annotated[float, Gt(0), Le(1.5)]
    cases: Annotated[int, Ge(0)]
    sources: list[str] = field(default_factory=list)
    pooled: bool = False  # no published runs of this stack: the fit over every stack's runs
    loso_median_abs_error: float | None = None
    loso_bias: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FittedOverheads(_Strict):
    """One engine's serving overheads as scripts/fit_serving.py fitted them to its published cases,
    with the in-sample and held-out (leave one model/GPU pair out) errors per metric."""

    matmul_efficiency: Annotated[float, Gt(0), Le(1)]
    layer_overhead_seconds: Annotated[float, Ge(0)]
    request_overhead_seconds: Annotated[float, Ge(0)]
    cases: Annotated[int, Ge(1)]
    groups: Annotated[int, Ge(1)]
    in_sample: dict[str, dict[str, float]] = field(default_factory=dict)
    held_out: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryReserve(_Strict):
    """An engine's static memory share computed from the device (SGLang 0.5's mem_fraction_static when
    none is given): (device MiB - reserve MiB) / device MiB, to three places, the reserve holding the
    attention backend's metadata (`base_mib`), a prefill chunk's activations (`per_prefill_token_mib` x
    max(the chunk, `min_prefill_tokens`)), the CUDA graphs' buffers (`per_graph_request_mib` x the
    largest graph batch), the communicators of tp x pp ranks (`per_rank_mib` each), attention data
    parallelism's padding (`per_dp_request_mib` x graph batch x ranks, `per_dp_request_large_mib` more
    above `large_graph_batch`; a draft model's reserve does not apply: gpuwise's speculation is n-gram
    lookup, for which SGLang reserves nothing); at least `floor_mib` on devices
    above `floor_above_bytes`. The largest graph batch by the device's memory: `graph_batch_tiers`
    ((bytes below which, batch under tp `graph_batch_tp_split`, batch from it), ascending), else
    `graph_batch`."""

    base_mib: Annotated[float, Ge(0)]
    per_prefill_token_mib: Annotated[float, Ge(0)]
    min_prefill_tokens: Annotated[int, Ge(0)]
    per_graph_request_mib: Annotated[float, Ge(0)]
    per_rank_mib: Annotated[float, Ge(0)]
    per_dp_request_mib: Annotated[float, Ge(0)]
    per_dp_request_large_mib: Annotated[float, Ge(0)]
    large_graph_batch: Annotated[int, Ge(1)]
    floor_mib: Annotated[float, Ge(0)]
    floor_above_bytes: Annotated[int, Ge(0)]
    graph_batch_tiers: tuple[tuple[Annotated[int, Ge(1)], Annotated[int, Ge(1)], Annotated[int, Ge(1)]], ...]
    graph_batch: Annotated[int, Ge(1)]
    graph_batch_tp_split: Annotated[int, Ge(1)]
    # on AMD GPUs the default attention backend (aiter, for models without latent attention) scales the share
    # by `amd_scale` for models of more than `amd_scale_above_positions` positions
    amd_scale: Annotated[float, Gt(0), Le(1)] = 1.0
    amd_scale_above_positions: Annotated[int, Ge(0)] = 0

    def graph_max_batch(self, memory_bytes: float, tp: int) -> int:
        """The largest batch the engine captures a CUDA graph for on this device at this tp."""
        row = next((r for r in self.graph_batch_tiers if memory_bytes < r[0]), None)
        if row is None:
            return self.graph_batch
        return row[1] if tp < self.graph_batch_tp_split else row[2]


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineProfile(_Sourced):
    """A serving engine's scheduler and memory defaults (catalog engines.yaml).

    `memory_basis` says what `memory_fraction` is a share of: `total` device memory (vLLM's
    gpu_memory_utilization, SGLang's mem_fraction_static; None: the serving_memory_utilization
    convention), or the memory `free` after weights and activations (TensorRT-LLM's KV cache)."""

    name: str
    memory_basis: Literal["total", "free"]
    memory_fraction: Annotated[float, Gt(0), Le(1)] | None = None
    # where the engine computes its share from the device when none is given (SGLang 0.5), how; then
    # `memory_fraction` is what it falls back to without a device
    memory_reserve: MemoryReserve | None = None
    kv_block_tokens: Annotated[int, Ge(1)]
    token_budget: Annotated[int, Ge(1)]  # tokens (prefill chunks plus decodes) per engine step
    # the budget is at least the model's maximum context (vLLM V0 without chunked prefill:
    # max_num_batched_tokens = max(max_model_len, 2048), `token_budget` the 2048)
    budget_covers_context: bool = False
    # models of more than `chunked_above_positions` positions and no sliding window are served with chunked
    # prefill at `chunked_token_budget` tokens a step instead (vLLM 0.5's default for contexts over 32K); 0: never
    chunked_above_positions: Annotated[int, Ge(0)] = 0
    # under attention data parallelism the engine splits the running-request cap and the step's token budget
    # it is given over its data-parallel ranks (SGLang: max_running_requests // dp, chunked_prefill_size // dp);
    # False: each rank's scheduler keeps them whole
    settings_split_over_dp: bool = False
    # whether a step's token budget holds the running requests' decode tokens: `refused`, the engine refuses a
    # running-request cap above the budget, its own default included (vLLM 0.5's SchedulerConfig); `lowered`, it
    # refuses a given cap above the budget and lowers its own to it (vLLM V1's engine arguments); `capped`, its
    # scheduler puts no more decodes in a step than the budget holds (TensorRT-LLM's max_num_tokens); `no`, the
    # budget bounds prompt tokens only (SGLang's chunked_prefill_size, TGI's prefill tokens)
    decodes_in_budget: Literal["no", "capped", "lowered", "refused"] = "no"
    # the running-request cap holds for the whole engine, all pipeline batches in flight together (vLLM V1: one
    # running list; a request still in another stage is skipped), not for each (vLLM 0.5: one scheduler a batch)
    cap_spans_pipeline: bool = False
    chunked_token_budget: Annotated[int, Ge(0)] = 0
    max_seqs: Annotated[int, Ge(1)] | None = None
    small_gpu_bytes: Annotated[int, Ge(0)]  # below this memory the small-GPU defaults apply
    small_gpu_token_budget: Annotated[int, Ge(1)]
    small_gpu_max_seqs: Annotated[int, Ge(1)] | None = None
    # tokens per step by the GPU's memory, where the engine sets more than two tiers (SGLang 0.5's
    # chunked_prefill_size): (memory in bytes below which, tokens) ascending; at or above the last bound
    # `token_budget`; empty: `small_gpu_token_budget` below `small_gpu_bytes`
    token_budget_tiers: tuple[tuple[Annotated[int, Ge(1)], Annotated[int, Ge(1)]], ...] = ()
    # running requests at most by GPU, where the engine picks it from the device name (LMDeploy's
    # get_max_batch_size): a substring of the GPU id -> the cap; others keep `max_seqs`
    max_seqs_by_gpu: dict[str, Annotated[int, Ge(1)]] = field(default_factory=dict)
    vendors: tuple[str, ...] = ("nvidia", "amd")  # the GPU vendors the engine runs on
    # fitted to published measurements at load by scripts/fit_serving.py (serving_fit.yaml, filled in
    # by the loader): what the roofline of the operations leaves out — the share of the large-GEMM rate
    # a serving step's GEMMs reach, a fixed cost per layer of each engine step (the kernel chain a
    # layer launches, with the step's scheduling and sampling spread over its layers) and per request
    # (front end, tokenizer). `overheads_from`: the engine whose published cases the
    # values are fitted to (None: its own); `overheads_note` says which, in every estimate.
    overheads_from: str | None = None
    overheads_note: str = ""
    matmul_efficiency: Annotated[float, Gt(0), Le(1)] = 1.0
    layer_overhead_seconds: Annotated[float, Ge(0)] = 0.0
    request_overhead_seconds: Annotated[float, Ge(0)] = 0.0
    lora_step_overhead_seconds: Annotated[float, Ge(0)] = 0.0
    # host work per sequence of a step that the engine does not overlap with the GPU (scheduling, input
    # preparation, sampling bookkeeping and output processing in Python, as vLLM's V0 engine ran them in
    # turn with the forward pass): each step takes this much longer for every sequence it carries
    host_seconds_per_sequence: Annotated[float, Ge(0)] = 0.0
    # the engine can schedule the next step while the GPU runs this one (vLLM V1's --async-scheduling): that host
    # work then hides behind the step's GPU work, the step being the longer of the two
    async_scheduling: bool = False
    # the time one block-scaled FP8 GEMM kernel of the engine was measured to take at decode sizes on a
    # named Hopper GPU (flat over the rows: set by the weight tiles' parallelism, not the batch): each such
    # GEMM of a block-FP8 checkpoint served in fp8 is held to at least this (0: not modelled); engines.yaml
    # says which measurement and which shapes were timed shorter
    block_fp8_gemm_seconds: Annotated[float, Ge(0)] = 0.0
    # what one fused-MoE call (a MoE layer's routed experts in one kernel, as vLLM's and SGLang's Triton
    # fused_moe) takes beyond streaming its experts' weights at the achievable bandwidth, by GPU
    # architecture ("default": the others); engines.yaml names the kernel benchmarks (empty: not modelled)
    fused_moe_call_seconds: dict[str, Annotated[float, Ge(0)]] = field(default_factory=dict)
    # NVFP4 checkpoints: whether the engine runs them as W4A4 GEMMs on FP4 tensor cores where the GPU has them, and
    # the architectures without FP4 tensor cores where it dequantizes them for 16-bit GEMMs (FP4 Marlin); empty: none
    nvfp4_on_fp4: bool = False
    nvfp4_weight_only: tuple[str, ...] = ()
    # a per-tensor FP8 GEMM's time at decode sizes (1-128 rows) over the 16-bit GEMM's of the same shape,
    # measured for the engine's own linear layer, by GPU id (else architecture): above 0.5 the FP8 kernels
    # stream their half-size weights below the 16-bit kernels' rate (empty: not measured, not modelled)
    fp8_gemm_time_share: dict[str, Annotated[float, Gt(0), Le(2)]] = field(default_factory=dict)
    # how the engine issues a step's kernels: from CUDA graphs (the host cost is in the step
    # overhead), or eagerly from Python, one host dispatch per kernel (decode_host_seconds_eager):
    # `eager_kernels_per_layer` per decoder layer (all-reduces included under tensor parallelism,
    # `eager_collectives_per_layer` of them) and `eager_kernels_head` per step besides the layers
    cuda_graphs: bool = True
    eager_kernels_per_layer: Annotated[int, Ge(0)] = 0
    eager_collectives_per_layer: Annotated[int, Ge(0)] = 0
    eager_kernels_head: Annotated[int, Ge(0)] = 0
    # of the layer's count, the copies that expand grouped KV heads to the query heads (Transformers'
    # repeat_kv before SDPA): launched only where the model groups its KV heads, none for multi-head attention
    eager_gqa_copies_per_layer: Annotated[int, Ge(0)] = 0
    # how prompts enter: in chunks beside the running decodes (chunked prefill), or in prefill steps
    # of their own that the decodes wait for, batched by a router that onboards waiting requests once
    # `max_waiting_steps` decode steps have run since the last prefill, or sooner when at least
    # `waiting_served_ratio` x the running requests wait (Text Generation Inference before 3.0)
    chunked_prefill: bool = True
    max_waiting_steps: Annotated[int, Ge(1)] | None = None
    waiting_served_ratio: Annotated[float, Gt(0)] | None = None
    # prompts in steps of their own as soon as one waits: a new prefill batch runs before the next decode
    # step (SGLang's scheduler with mixed chunks off, its default); no waiting rule (needs chunked_prefill off)
    prefill_first: bool = False
    # a library's generate loop rather than a server (Hugging Face transformers): the whole batch
    # prefills in one forward pass (no token budget) and decodes until its longest request finishes
    # (`static_batching`); the KV cache is contiguous and grows by torch.cat every step (`kv_concat`:
    # "layer" when the previous layer's tensor is freed at once, "cache" when the previous step's
    # whole cache stays referenced until the step returns); the prefill computes logits for every
    # position or the last only (`prefill_logits`), upcast to fp32; `attention` is the default
    # kernel (flash: SDPA or FlashAttention, no score matrix; eager: matmul and softmax)
    static_batching: bool = False
    kv_concat: Literal["none", "layer", "cache"] = "none"
    prefill_logits: Literal["last", "all"] = "last"
    attention: Literal["flash", "eager"] = "flash"
    # the runtime (engines.yaml `runtimes`) whose kernels a library loop issues (transformers: PyTorch
    # eager): its `tf32_gemm` says whether fp32 weights multiply on TF32 tensor cores (None: they do)
    runtime: str | None = None

    def for_model(self, model: TransformerArch) -> EngineProfile:
        """The profile as the engine runs `model`: chunked prefill where the engine turns it on for long
        contexts (`chunked_above_positions`, models without a sliding window), else itself."""
        limit = self.chunked_above_positions
        if not limit or model.max_seq <= limit or model.sliding_window is not None:
            return self
        return replace(
            self,
            chunked_prefill=True,
            prefill_first=False,
            budget_covers_context=False,
            token_budget=self.chunked_token_budget,
            small_gpu_token_budget=self.chunked_token_budget,
        )

    @property
    def prefills_whole(self) -> bool:
        """A prompt is prefilled in one step, never chunked: no chunks beside the decodes and either a budget
        that must hold the context (vLLM 0.5) or prefill steps bounded by the budget whole (TGI 1.x and 2.x);
        SGLang prefills first yet chunks its prompts at the budget."""
        return not self.chunked_prefill and (self.budget_covers_context or not self.prefill_first)

    def with_settings(self, max_seqs: int | None, max_batch_tokens: int | None) -> EngineProfile:
        """The profile with a user's settings in place of its defaults: `max_batch_tokens` (vLLM
        --max-num-batched-tokens) every step's token budget on any GPU, where the engine's own may grow
        with the device or the model's context; `max_seqs` (vLLM --max-num-seqs) its running-request cap
        on any GPU. None keeps the engine's own."""
        profile = self
        if max_batch_tokens is not None:
            n = max_batch_tokens
            profile = replace(
                profile, token_budget=n, small_gpu_token_budget=n, token_budget_tiers=(), budget_covers_context=False
            )
        if max_seqs is not None:
            profile = replace(profile, max_seqs=max_seqs, small_gpu_max_seqs=max_seqs, max_seqs_by_gpu={})
        return profile

    def budget(self, memory_bytes: int, gpu_id: str = "", max_seq: int = 0) -> tuple[int, int | None]:
        """(tokens per step, running requests at most) on the GPU `gpu_id` with `memory_bytes`, serving a
        model of `max_seq` positions (where the engine's budget is at least the model's context)."""
        by_name = next((cap for name, cap in self.max_seqs_by_gpu.items() if name in gpu_id), None)
        small = memory_bytes < self.small_gpu_bytes
        if self.token_budget_tiers:
            tokens = next((t for below, t in self.token_budget_tiers if memory_bytes < below), self.token_budget)
        else:
            tokens = self.small_gpu_token_budget if small else self.token_budget
        if self.budget_covers_context:
            tokens = max(tokens, max_seq)
        return tokens, by_name or (self.small_gpu_max_seqs if small else self.max_seqs)


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeProfile(_Sourced):
    """How a runtime runs a model described operator by operator (catalog engines.yaml `runtimes`):
    which kernels it launches (`kernels`, gpuwise.estimate.operators.Runtime: eager PyTorch with a
    host dispatch per kernel, the same kernels issued without Python, batch norms folded into the
    convolutions, conv/GEMM epilogues fused, or each conv/GEMM's following pointwise ops fused into one
    kernel of their own (TorchInductor)), whether a 16-bit run casts weights per call under
    torch.autocast, whether its fp32 GEMMs use TF32 (`tf32_gemm`), and whether a server (Triton)
    adds its per-request terms around the GPU."""

    name: str
    kernels: Literal["eager", "graph", "folded", "compiled", "inductor"]
    autocast: bool = False
    server: bool = False
    triton_backend: str | None = None  # the Triton backend that runs this form of the model, if any
    vendors: tuple[str, ...] = ("nvidia", "amd")  # the GPU vendors the runtime runs on
    # fp32 weights on a GPU with TF32 tensor cores: whether its GEMMs run on them (TensorRT, ONNX
    # Runtime) or in full fp32 on the CUDA cores (PyTorch since 1.12: allow_tf32 off for matmul, on
    # for cuDNN convolutions)
    tf32_gemm: bool = True
    # fp16 engines pick convolution kernels that accumulate in fp16 where they are faster: on a GPU whose
    # FP32-accumulate tensor rate is half its FP16-accumulate rate (GeForce: GPU.fp16_accumulate_flops)
    fp16_accumulate: bool = False

    def autocasts(self, requested: bool | None) -> bool:
        """Whether a run on this runtime is under torch.autocast: --autocast/--no-autocast where given, else the
        runtime's own default (the one rule the operator timer, the workload builder and the fp32 stream share)."""
        return self.autocast if requested is None else requested

    def tf32(self, requested: bool | None) -> bool:
        """Whether its fp32 GEMMs run on TF32 tensor cores: --[no-]tf32-matmul where given (PyTorch's matmul
        precision as the run sets it), else the runtime's own `tf32_gemm`."""
        return self.tf32_gemm if requested is None else requested


# ----- offers (offers.yaml): what providers rent, at a price on a date ------------------------
PriceModel = Literal["on-demand", "spot", "1y", "3y"]
OfferLink = Literal["pcie", "nvlink-bridge", "nvswitch", "none"]
FabricKind = Literal["infiniband", "roce", "efa", "ethernet", "none"]
OfferClass = Literal["hyperscaler", "neocloud", "marketplace", "own"]
_OFFER_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")
_PROVIDER = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")


def _check_date(value: str) -> str:
    if not _OFFER_DATE.match(value):
        raise ValueError(f"date {value!r} must be YYYY-MM or YYYY-MM-DD (quoted in YAML)")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class OfferSource(Source):
    """A price source; `date_basis` says how its date was obtained (published, collected, bound,
    accessed), because an undated snapshot's date is not when the price held."""

    date_basis: Literal["published", "collected", "bound", "accessed"] | None = None


# An instance's price per hour, in its currency, lies within what any rental costs in any currency: a
# millionth of a unit is below the cheapest (USD 0.06 a GPU-hour here), 1e9 above an 8-GPU server priced
# in Indonesian rupiah (~2e6). Outside them a price is a typo, and one as small as 5e-324 turned a price
# ratio into a division by zero.
MIN_PRICE_PER_HOUR = 1e-6
MAX_PRICE_PER_HOUR = 1e9


@dataclass(frozen=True, slots=True, kw_only=True)
class Fabric(_Strict):
    """The network between a provider's instances: its kind and line rate per GPU (Gbit/s, None when
    the provider does not publish it); `none` where the provider says instances are not joined."""

    kind: FabricKind
    gbps_per_gpu: Annotated[float, Gt(0), Le(10_000)] | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        if self.kind == "none" and self.gbps_per_gpu is not None:
            raise ValueError("a fabric of kind none has no rate")


@dataclass(frozen=True, slots=True, kw_only=True)
class Cluster(_Strict):
    """The provider rents the instance as a multi-node cluster of up to `max_gpus` GPUs (None: rented
    as a cluster, no size published, so no multi-node plan can count on it)."""

    max_gpus: Annotated[int, Ge(2), Le(1_000_000)] | None = None
    source: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Offer(_Strict):
    """One thing a provider rents: `price_per_hour` is the WHOLE instance's price in `currency`,
    for `gpus_per_instance` GPUs, so a cluster is priced in instances of a size the provider sells."""

    gpu: str
    provider: str
    instance: Annotated[str, MinLen(1)]
    gpus_per_instance: Annotated[int, Ge(1), Le(1024)]
    link: OfferLink
    region: Annotated[str, MinLen(1)]
    price_model: PriceModel
    currency: str
    price_per_hour: Annotated[float, Ge(MIN_PRICE_PER_HOUR), Le(MAX_PRICE_PER_HOUR)]
    date: str | None  # None: the source is undated (the price's date is unknown, never today's)
    source: Annotated[str, MinLen(1)]
    available: bool
    note: str | None = None
    fabric: Fabric | None = None  # between instances; None: unknown
    cluster: Cluster | None = None  # rented as a multi-node cluster; None: not, or not known
    offer_class: OfferClass | None = None
    indicative: bool = False  # a 'starting at' / lowest-listing price, not what a cluster rents at

    def __post_init__(self) -> None:
        if self.date is not None:
            _check_date(self.date)
        if not _PROVIDER.match(self.provider):
            raise ValueError(f"provider {self.provider!r} must be a lower-case id like aws or runpod-secure")
        if not _CURRENCY.match(self.currency):
            raise ValueError(f"currency {self.currency!r} must be an ISO code like USD or CNY")

    @property
    def price_per_gpu_hour(self) -> float:
        return self.price_per_hour / self.gpus_per_instance


@dataclass(frozen=True, slots=True, kw_only=True)
class FxRate(_Strict):
    """Units of `currency` per 1 USD on `date`, from `source`."""

    currency: str
    per_usd: Annotated[float, Gt(0)]
    date: str
    source: str

    def __post_init__(self) -> None:
        _check_date(self.date)
        if not _CURRENCY.match(self.currency):
            raise ValueError(f"currency {self.currency!r} must be an ISO code like CNY")


PciePath = Literal["host-staged", "pcie-switch", "pcie-root-complex", "pcie-cross-socket"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AtScaleRun(_Strict):
    """One run's published model-FLOPs utilization (dense 16-bit peak, attention counted as PaLM
    counts it) at its GPU count (reliability.yaml at_scale_mfu): what runs at that scale reached."""

    id: str
    run: str  # the training run it measured; rows of one run share it (leave-one-run-out drops them together)
    architecture: str  # the GPU architecture it ran on (catalog gpus' architecture)
    gpus: Annotated[int, Ge(1)]
    mfu: Annotated[float, Gt(0), Le(1)]
    source: str
    where: str  # table, row and quote


@dataclass(frozen=True, slots=True, kw_only=True)
class BusBandwidth(_Strict):
    """A measured nccl-tests all-reduce busbw of one intra-node path (collectives.yaml)."""

    id: str
    path: PciePath | Literal["nvlink-bridge"]
    gpus: Annotated[int, Ge(2)]
    busbw: Annotated[float, Gt(0)]  # bytes/s
    source: str
    pcie_generation: Annotated[int, Ge(1), Le(6)] | None = None
    gpu_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class NoP2P(_Strict):
    gpus: list[str]
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PcieLayout(_Strict):
    """The PCIe path a node of up to `max_gpus` peer-to-peer PCIe cards takes (collectives.yaml)."""

    max_gpus: Annotated[int, Ge(1)]
    path: PciePath
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerPrice(_Strict):
    """A whole server as bought (costs.yaml `servers`): its price with the GPUs, how many it holds and
    what it ships with, so owning is priced per server, not as chip prices plus a generic host."""

    usd: Annotated[float, Gt(0), Le(1e9)]
    gpus: Annotated[int, Ge(1), Le(64)]
    platform: Annotated[str, MinLen(1)]
    source: str
    why: str
    power_watts: Annotated[float, Gt(0), Le(1e6)] | None = None  # one server's maximum draw, GPUs included
    date: str | None = None  # when the price was quoted

    def __post_init__(self) -> None:
        if self.date is not None:
            _check_date(self.date)


@dataclass(frozen=True, slots=True, kw_only=True)
class BandClass(_Strict):
    """One class of published cases in uncertainty.yaml (scripts/fit_bands.py): how many, from how
    many sources and source families, how many predicted out of sample, the median bias, a flag when
    they lie on one side of the estimate, and per level the multipliers [low, high] on an estimate of
    the class (`widened_from`: the class whose band it took at a level where it has too few families)."""

    cases: Annotated[int, Ge(1)]
    sources: Annotated[int, Ge(1)]
    families: Annotated[int, Ge(1)]
    out_of_sample: Annotated[int, Ge(0)]
    in_sample_note: str | None = None
    bias: float
    flag: str | None = None
    biased_cases: Annotated[int, Ge(1)] | None = None  # with a flag: how many cases lie on its side
    bands: dict[str, tuple[Annotated[float, Gt(0), Le(1)], Annotated[float, Ge(1)]]]
    widened_from: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class BandCalibration(_Strict):
    """One scope of uncertainty.yaml's calibration (a figure, its classes with a validated case or
    those with none): the factor per level on the corpus bands' log-width that holds the errors on
    sources no fit saw, from how many corpus and holdout source families, and the scope whose errors
    gave it at a level where this one has too few (`pooled`)."""

    corpus_families: Annotated[int, Ge(0)]
    unseen_families: Annotated[int, Ge(0)]
    factors: dict[str, Annotated[float, Gt(0)]]
    pooled: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class UncertaintyTable(_Strict):
    """uncertainty.yaml: the levels held, the fewest source families a class's own band needs at
    each, the classes, and the widest band per figure (and figure/family) for what no case validates."""

    levels: list[Annotated[float, Ge(0.5), Le(0.95)]]
    min_families: dict[str, Annotated[int, Ge(1)]]
    classes: dict[str, BandClass]
    widest: dict[str, dict[str, tuple[Annotated[float, Gt(0), Le(1)], Annotated[float, Ge(1)]]]]
    calibration: dict[str, BandCalibration] = field(default_factory=dict)

    def __post_init__(self) -> None:
        levels = {f"{lv:g}" for lv in self.levels}
        for name, c in self.classes.items():
            if set(c.bands) != levels or not set(c.widened_from) <= levels:
                raise ValueError(f"class {name}: a band for each level {sorted(levels)}")
            if any(src not in self.classes for src in c.widened_from.values()):
                raise ValueError(f"class {name}: widened from an unknown class")
        if any(set(w) != levels for w in self.widest.values()):
            raise ValueError(f"widest: a band for each level {sorted(levels)}")
