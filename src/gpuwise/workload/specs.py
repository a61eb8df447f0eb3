"""Typed workload specs: what is trained or served, how, and on what hardware.

Specs are frozen dataclasses built (and validated) by `gpuwise.workload.build`; estimators take
them as plain values.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, cast, get_args

if TYPE_CHECKING:  # annotations only: the CLI builds its options from these specs without the catalog
    from gpuwise.catalog import GPU, ModelArch

Task = Literal["pretrain", "finetune", "inference"]
Method = Literal["full", "lora", "qlora"]
Precision = Literal["fp32", "tf32", "fp16", "bf16", "fp8"]
# --scheduler: a diffusion pipeline's scheduler (catalog/diffusion_pipeline.py SCHEDULERS writes each out)
SchedulerName = Literal["pndm", "ddim", "euler", "euler-ancestral", "dpm-solver", "lcm"]
WeightsDtype = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "nf4", "nvfp4"]
KvDtype = Literal["fp32", "fp16", "bf16", "fp8", "int8"]
# "none": forward and backward only (a fwd+bwd benchmark: gradients, no optimizer states, no update)
Optimizer = Literal["adamw", "adamw-8bit", "sgd", "adafactor", "lamb", "lion", "none"]
Recompute = Literal["none", "selective", "full"]
# how full recomputation is implemented: torch.utils.checkpoint with use_reentrant False or True
CheckpointImpl = Literal["non-reentrant", "reentrant"]
# how an Adam/AdamW step runs over the parameters: PyTorch's foreach kernels (a new tensor of every
# parameter's size at the step) or a fused kernel that updates in place
OptimizerImpl = Literal["foreach", "fused"]
Attention = Literal["flash", "eager"]
# Cross-entropy implementations (the catalog's Framework.loss_kind; bytes per logit in conventions).
GradReduceDtype = Literal["fp32", "bf16"]
MoeDispatcher = Literal["alltoall", "hybridep"]  # Megatron Core --moe-token-dispatcher-type (flex: its backend)
Loss = Literal["eager", "eager_16bit", "compiled", "vocab_parallel", "vocab_parallel_copy", "chunked", "fused", "cce"]
# QLoRA's 4-bit linear layers: bitsandbytes (0.43.2 on: MatMul4Bit keeps no input), bitsandbytes before
# 0.43.2 (MatMul4Bit keeps its input on autograd ctx), torchao's LinearNF4 (keeps only the weight)
QuantizedLinear = Literal["bitsandbytes", "bitsandbytes-legacy", "torchao"]
# bitsandbytes 4-bit weights (--weights-dtype nf4) in inference: the QLoRA recipe (NF4, double quantization,
# 16-bit compute) or BitsAndBytesConfig(load_in_4bit=True) as transformers leaves it (FP4, one fp32 absmax per
# 64 weights, compute dtype fp32)
Bnb4bit = Literal["qlora", "load-in-4bit"]
# how an LLM engine batches requests: continuously (a server: requests join and leave a running batch) or
# in static batches (one batch prefilled together, then decoded together until its last request ends)
Batching = Literal["continuous", "static"]
# Training stacks with a profile in the catalog (frameworks.yaml; a test keeps the two lists equal).
FrameworkName = Literal[
    "megatron", "nemo", "torchtitan", "deepspeed", "fsdp", "hf-trainer", "torchtune", "unsloth", "axolotl", "llmc"
]
# What a training job keeps in CPU memory: optimizer states (ZeRO-Offload, FSDP CPU offload of the
# optimizer), parameters and gradients too (ZeRO-Infinity, FSDP cpu_offload), or saved activations.
Offload = Literal["optimizer", "params", "activations"]
# ZeRO-3/FSDP sharding group: every data-parallel rank (full), or the ranks of a node with replicas
# across nodes (hybrid: FSDP HYBRID_SHARD, torchtitan HSDP)
Sharding = Literal["full", "hybrid"]
LayoutMode = Literal["given", "auto"]  # estimate --layout: as written, or searched as a plan searches
# DeepSpeed ZeRO++ (Wang et al. 2023): hierarchical partitioning (a secondary weight shard per node),
# quantized weights (int8 all-gather), quantized gradients (int4 reduce-scatter)
ZeroPP = Literal["hpz", "qwz", "qgz"]
# LLM serving engines with a profile in catalog engines.yaml `engines`; runtimes of models described
# operator by operator (CNNs, recommenders) with one in its `runtimes` (a test keeps them equal)
LLMEngine = Literal[
    "vllm",
    "vllm-v0",
    "sglang",
    "trtllm",
    "lmdeploy",
    "tgi",
    "tgi-v2",
    "tgi-v1",
    "transformers",
    "transformers-v4.36",
    "transformers-v4.35",
]
Runtime = Literal["eager", "torchscript", "torch-compile", "onnxruntime", "tensorrt", "triton"]
Engine = Literal[LLMEngine, Runtime]
DEFAULT_LLM_ENGINE: LLMEngine = "vllm"
DEFAULT_RUNTIME: Runtime = "triton"  # TensorRT under Triton: what `gpuwise deploy` writes for these models
PYTORCH_RUNTIMES: tuple[Runtime, ...] = ("eager", "torchscript")  # the runtimes that run a module's own attention code
AUTOCAST_RUNTIMES: tuple[Runtime, ...] = ("eager", "torch-compile")  # the runtimes torch.autocast can wrap (--autocast)
# the runtimes whose fp32 matmuls follow PyTorch's matmul precision (--tf32-matmul)
TORCH_MATMUL_RUNTIMES: tuple[Runtime, ...] = ("eager", "torch-compile", "torchscript")

Objective = Literal["cost", "time"]
Pricing = Literal["on-demand", "reserved", "spot", "owned"]

# The same choices as tuples, for messages and loops (derived: the Literal is the one list).
TASKS: tuple[Task, ...] = get_args(Task)
METHODS: tuple[Method, ...] = get_args(Method)
PRECISIONS: tuple[Precision, ...] = get_args(Precision)
WEIGHTS_DTYPES: tuple[WeightsDtype, ...] = get_args(WeightsDtype)
KV_DTYPES: tuple[KvDtype, ...] = get_args(KvDtype)
OPTIMIZERS: tuple[Optimizer, ...] = get_args(Optimizer)
RECOMPUTES: tuple[Recompute, ...] = get_args(Recompute)
ATTENTIONS: tuple[Attention, ...] = get_args(Attention)
FRAMEWORKS: tuple[FrameworkName, ...] = get_args(FrameworkName)
OFFLOADS: tuple[Offload, ...] = get_args(Offload)
SHARDINGS: tuple[Sharding, ...] = get_args(Sharding)
ZEROPP: tuple[ZeroPP, ...] = get_args(ZeroPP)
ENGINES: tuple[Engine, ...] = get_args(Engine)
LLM_ENGINES: tuple[LLMEngine, ...] = get_args(LLMEngine)
RUNTIMES: tuple[Runtime, ...] = get_args(Runtime)
OBJECTIVES: tuple[Objective, ...] = get_args(Objective)
PRICINGS: tuple[Pricing, ...] = get_args(Pricing)

# Storage size of one element. Quantized formats' scales are added by the estimator from the
# cited conventions; these are the packed element sizes by definition of each format.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4,
    "tf32": 4,
    "fp16": 2,
    "bf16": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
    "nf4": 0.5,
    "nvfp4": 0.5,  # NVFP4: E2M1 codes (its FP8 scale per 16 weights added by the estimator)
}
Unquantized = Literal["fp16", "bf16", "fp32"]
HalfDtype = Literal["fp16", "bf16"]  # the 16-bit dtypes torch.autocast computes at


def unquantized(dtype: str) -> Unquantized:
    """The dtype a checkpoint stored as `dtype` keeps its unquantized tensors in (embeddings, norms, LM head, and
    by default its KV cache and activations): `dtype` itself where it is 16/32-bit, else bf16."""
    return cast(Unquantized, dtype) if dtype in get_args(Unquantized) else "bf16"


# a serving engine's own settings as deployed (InferenceJob fields; None: the engine's own)
ENGINE_SETTINGS = ("max_seqs", "max_batch_tokens", "memory_fraction")
DEFAULT_ADAPTER_RANK = 16  # vLLM's --max-lora-rank default (vllm/config LoRAConfig.max_lora_rank)
# The dtype whose tensor-core peak a precision runs at (tf32 stores fp32, computes tf32).
COMPUTE_DTYPE: dict[str, str] = {"fp32": "fp32", "tf32": "tf32", "fp16": "fp16", "bf16": "bf16", "fp8": "fp8"}


# A pipeline chunk may hold only the input embedding or only the output layer and its loss (Megatron
# Core's --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split; the
# Llama 3 schedule, Dubey et al. 2024 section 3.3.2, gives the first and last stages a layer fewer),
# so a model's layers fill at most two chunks more than it has layers.
PIPELINE_EDGE_CHUNKS = 2


def interleavable(layers: int, pp: int, vpp: int) -> bool:
    """Whether `layers` transformer layers fill pp x vpp pipeline chunks (vpp virtual stages per rank
    of the interleaved schedule), the first and last chunks allowed to hold only the embedding and
    the output layer."""
    return vpp <= 1 or pp * vpp <= layers + PIPELINE_EDGE_CHUNKS


def interleaved_only(overlap_ep_comm: bool, pp: int) -> bool:
    """Whether a pipeline may run only the interleaved schedule (virtual stages, vpp >= 2): Megatron Core
    overlaps expert-parallel communication in a pipeline only there (TransformerConfig asserts
    virtual_pipeline_model_parallel_size when overlap_moe_expert_parallel_comm and pp > 1)."""
    return overlap_ep_comm and pp > 1


def full_recompute_allowed(overlap_ep_comm: bool) -> bool:
    """Whether full recomputation may run: Megatron-Bridge refuses expert-parallel overlap under it
    (comm_overlap.py: recompute_granularity must not be full; Megatron Core asserts it too)."""
    return not overlap_ep_comm


def stage_shortfall(layers: int, pp: int) -> int:
    """Stages that hold a layer fewer than ceil(layers / pp) (0 where pp divides the layers; < pp)."""
    return pp * math.ceil(layers / pp) - layers if pp > 1 else 0


def stage_layers(layers: int, pp: int, stage: str) -> int:
    """Transformer layers on the `first`, `last` or a full (`middle`, `second`) pipeline stage (all of
    them when `only`): ceil(layers / pp), where pp does not divide the layers the first stage
    (embedding) and then the last (output layer and loss) hold one fewer, as the embedding and the
    loss take a layer's place in the split (Megatron Core's --account-for-embedding-in-pipeline-split
    and --account-for-loss-in-pipeline-split; Llama 3 405B: 126 layers on 16 stages as 7, 14 x 8, 7,
    Dubey et al. 2024 section 3.3.2). Every stage holds ceil or ceil - 1 layers."""
    if pp <= 1 or stage == "only":
        return layers
    full = math.ceil(layers / pp)
    short = stage_shortfall(layers, pp)
    if stage == "first":
        return full - (short >= 1)
    if stage == "last":
        return full - (short >= 2)
    return full


@dataclass(frozen=True, slots=True)
class Parallelism:
    """Tensor (tp), pipeline (pp), context (cp, ring attention over sequence shards) and ZeRO/FSDP
    sharding; expert parallelism (ep) splits MoE experts over data-parallel ranks and expert-tensor
    parallelism (etp) each expert's matrices; the data-parallel degree follows the GPUs."""

    tp: int = 1
    pp: int = 1
    zero: int = 0
    sequence_parallel: bool = True
    cp: int = 1
    ep: int = 1
    vpp: int = 1  # virtual pipeline stages per GPU (Megatron's interleaved 1F1B schedule)
    etp: int | None = None  # expert-tensor parallel; None: tp (Megatron's --expert-tensor-parallel-size default)
    sharding: Sharding = "full"  # ZeRO-2/3 over every data-parallel rank, or inside each node (hybrid)
    zeropp: tuple[ZeroPP, ...] = ()  # DeepSpeed ZeRO++ components on a ZeRO-3 run
    # serving a MoE model: attention (and the dense layers) data-parallel over the tp ranks, each with its
    # own requests and KV cache, the experts split ep ways (TensorRT-LLM enable_attention_dp)
    attention_dp: bool = False

    @property
    def expert_tp(self) -> int:
        """Ranks each MoE expert's matrices are split over."""
        return self.tp if self.etp is None else self.etp

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp * self.cp

    def dp(self, gpus: int) -> int:
        return gpus // self.model_parallel


@dataclass(frozen=True, slots=True)
class Hardware:
    """`count` GPUs of one model in total, grouped `gpus_per_node` to a node; `network` names the
    inter-node link (gpuwise.catalog.network spellings), or None for the GPU family's reference network;
    `power_cap` a power limit below the board's TDP."""

    gpu: GPU
    count: int = 1
    gpus_per_node: int = 1
    network: str | None = None
    power_cap: float | None = None  # watts each GPU is limited to (nvidia-smi -pl); None: its TDP

    @property
    def nodes(self) -> int:
        return math.ceil(self.count / self.gpus_per_node)


@dataclass(frozen=True, slots=True)
class DataPipeline:
    """Per node: storage read bandwidth (bytes/s), bytes per sample, CPU seconds to decode and
    augment one sample on one core, and the cores the loader uses."""

    read_bandwidth: float
    sample_bytes: float
    decode_seconds: float = 0.0
    cpu_cores: int = 1

    def __post_init__(self) -> None:
        if self.read_bandwidth <= 0 or self.sample_bytes <= 0 or self.decode_seconds < 0 or self.cpu_cores < 1:
            raise ValueError("data pipeline: bandwidth, sample size and cores must be positive")


@dataclass(frozen=True, slots=True)
class BatchBound:
    """The largest global batch at which the model's published training still converges without a
    change of recipe (catalog conventions `largest_global_batch.<model>`), and its citation: a plan
    sizes the batch per GPU up to it when the user named no batch."""

    samples: int
    source: str  # where the bound is published: its catalog source's address (its title where it has none)
    # the batch sized is the smallest whose rate is within this fraction of the fastest that fits
    # (catalog conventions `batch_sizing_tolerance`)
    tolerance: float


def quantized_base(method: str, weights_dtype: str) -> str | None:
    """The quantized frozen base adapters train on: QLoRA's (bitsandbytes NF4, or a GPTQ/AWQ int4
    checkpoint) or LoRA's bitsandbytes LLM.int8 base (load_in_8bit); None where the base is 16/32-bit."""
    if method == "qlora":
        return "int4" if weights_dtype == "int4" else "nf4"
    return "int8" if method == "lora" and weights_dtype == "int8" else None


def integer_base(base: str | None) -> bool:
    """An LLM.int8 or GPTQ/AWQ int4 base: integer parameters that FSDP and ZeRO-3 neither shard nor offload
    (only bitsandbytes NF4 stored in a float dtype flattens into their shards)."""
    return base in ("int8", "int4")


@dataclass(frozen=True, slots=True)
class TrainingJob:
    model: ModelArch
    task: Literal["pretrain", "finetune"] = "finetune"
    method: Method = "full"
    precision: Precision = "bf16"
    weights_dtype: WeightsDtype = "bf16"
    optimizer: Optimizer = "adamw"
    master_weights: bool = True  # False: pure 16-bit training (states in the 16-bit dtype)
    micro_batch: int = 1
    global_batch: int | None = None
    # set when the user named neither micro-batch nor global batch and the catalog bounds the model's
    # global batch: a plan then chooses the batch per GPU (estimate keeps micro_batch as it is)
    batch_bound: BatchBound | None = None
    seq: int = 2048
    parallel: Parallelism = field(default_factory=Parallelism)
    recompute: Recompute = "none"
    checkpoint_impl: CheckpointImpl | None = None  # None: the framework's own (frameworks.yaml checkpoint_impl)
    optimizer_impl: OptimizerImpl | None = None  # None: the framework's own (frameworks.yaml optimizer_impl)
    attention: Attention = "flash"
    lora_rank: int = 8
    lora_targets: tuple[str, ...] = ("q_proj", "v_proj")
    tokens: float | None = None
    samples: float | None = None
    data: DataPipeline | None = None
    # evaluation inside the run: every `[0]` optimizer steps each rank runs `[1]` forward passes of a micro-batch
    evaluation: tuple[int, int] | None = None
    framework: FrameworkName | None = None  # None: the catalog's default for the task
    # no stack named for a model that is not a language model, nothing needing sharding: its trainers run
    # plain DDP (workload.build._runs_ddp), so a plan keeps ZeRO-0 wherever a ZeRO-0 layout fits
    plain_ddp: bool = False
    offload: tuple[Offload, ...] = ()
    compile: bool = False  # torch.compile (inductor's fused kernels save fewer intermediates)
    overlap_grad_reduce: bool | None = None  # None: the framework's (frameworks.yaml overlap_grad_reduce)
    # the dtype gradients accumulate and reduce in; None: the framework's (frameworks.yaml gradient_bytes)
    grad_reduce_dtype: GradReduceDtype | None = None
    # Transformer Engine keeps its FP8 weight copies (and transposes) across micro-batches (Megatron Core's
    # is_first_microbatch); off (FP8 parameters only): disable_parameter_transpose_cache, transposed in each backward
    param_transpose_cache: bool = True
    optimizer_in_backward: bool = False  # per-parameter step in backward: no full gradient buffer
    paged_optimizer: bool = False  # bitsandbytes paged states: unified memory, outside torch's allocator
    kbit_fp32_upcast: bool = False  # PEFT prepare_model_for_kbit_training: fp32 non-k-bit weights and stream
    loss: Loss | None = None  # None: the framework's loss
    quantized_linear: QuantizedLinear | None = None  # None: the framework's (frameworks.yaml quantized_linear)
    defer_grad_sync: bool = False  # FSDP no_sync: unsharded gradients accumulated in the reduce dtype
    mixed_frozen_units: bool = False  # FSDP units mixing frozen and trainable weights: gradients for all of them
    momentum_encoder: bool = False  # a moving-average copy of the model (MoCo's key encoder) runs a forward per batch
    loss_parallel: bool = True  # under TP, the loss on vocabulary-sharded logits (off: full logits per rank)
    tp_embedding: bool = True  # under TP, the token embedding sharded over the ranks (off: replicated)
    # an encoder's masked-LM head (the model's `mlm_transform`): the positions of a sequence it scores;
    # None: every position (transformers' BertForMaskedLM), or no such head
    mlm_positions: int | None = None
    # sequences packed from documents with attention kept inside each: the documents' mean length in tokens
    # (None: one document per sequence, attention over the whole of it)
    packed_doc_tokens: int | None = None
    capacity_factor: float | None = None  # MoE expert capacity over the even share; None: dropless
    pad_to_capacity: bool = False  # Megatron --moe-pad-expert-input-to-capacity
    moe_dispatcher: MoeDispatcher = "alltoall"  # Megatron Core's default; hybridep: flex dispatcher, HybridEP backend
    overlap_ep_comm: bool = False  # Megatron Core --overlap-moe-expert-parallel-comm
    # dtype fields holding the bf16 default the user did not name (gpuwise.workload.precision)
    dtype_defaults: frozenset[str] = frozenset()

    @property
    def runs_plain_ddp(self) -> bool:
        """Plain DDP at this layout: the DDP default (`plain_ddp`) where the plan kept ZeRO-0."""
        return self.plain_ddp and self.parallel.zero == 0

    @property
    def expert_load(self) -> float:
        """Tokens each MoE expert processes over its even share at uniform routing: the capacity
        when inputs are padded to it, at most the capacity otherwise (tokens over it are dropped),
        one when dropless (GShard, Switch Transformer; Megatron's --moe-expert-capacity-factor)."""
        f = self.capacity_factor
        if f is None:
            return 1.0
        return f if self.pad_to_capacity else min(1.0, f)

    kind: Literal["training"] = field(default="training", init=False)

    @property
    def trains_base(self) -> bool:
        return self.method == "full"

    @property
    def quantized_base(self) -> str | None:
        return quantized_base(self.method, self.weights_dtype)

    @property
    def updates(self) -> bool:
        """Whether a step ends with an optimizer update (not under --optimizer none: forward and backward only)."""
        return self.optimizer != "none"

    @property
    def masked_positions(self) -> int | None:
        """The positions of a sequence an encoder's masked-LM head scores; None without such a head."""
        from gpuwise.catalog.arch import TransformerArch  # here: the CLI reads these specs without the catalog

        if not (isinstance(self.model, TransformerArch) and self.model.mlm_transform):
            return None
        return min(self.mlm_positions or self.seq, self.seq)

    @property
    def head_positions(self) -> int:
        """Positions of a sample the output head scores: a masked-LM head's, else every token of it."""
        from gpuwise.catalog.arch import TransformerArch

        tokens = self.model.tokens_per_sample(self.seq) if isinstance(self.model, TransformerArch) else self.seq
        return self.masked_positions or tokens

    def grad_accumulation(self, gpus: int) -> int:
        """Micro-batches per step on each data-parallel rank."""
        dp = self.parallel.dp(gpus)
        if self.global_batch is None:
            return 1
        return max(1, self.global_batch // (self.micro_batch * dp))


def spread_bounds(mean: int, spread: float) -> tuple[int, int]:
    """The lengths a request of mean length `mean` is drawn from under `length_spread` R: the integers of
    [floor(L(1 - R)), ceil(L(1 + R))], at least one when L is (vLLM's RandomDataset)."""
    if not spread:
        return mean, mean
    return max(min(1, mean), math.floor(mean * (1 - spread))), math.ceil(mean * (1 + spread))


# added before a floor of scaled lengths: a pair exactly at the cap (2,048 x 1.0) must not lose a token to the
# float product's last bit (not a modelling constant)
FLOOR_GUARD = 1e-9


@dataclass(frozen=True, slots=True)
class LengthDistribution:
    """A benchmark dataset's request lengths scaled to a job's mean lengths (`--dataset`): the quantile
    function of the prompt and of the output lengths at `levels` (tokens, scaled), the factors they were
    scaled by (`scale`: prompt, output) and the longest pair the dataset's sampling keeps, in its own
    tokens (`cap`: a pair fits when prompt / a + output / b is at most it). Built from a catalog
    datasets.yaml entry."""

    name: str
    levels: tuple[float, ...]
    prompt: tuple[float, ...]
    output: tuple[float, ...]
    scale: tuple[float, float]
    cap: int

    @classmethod
    def scaled(
        cls,
        name: str,
        levels: tuple[float, ...],
        quantiles: tuple[tuple[float, ...], tuple[float, ...]],
        means: tuple[float, float],
        cap: int,
        to: tuple[float, float],
    ) -> LengthDistribution:
        """The dataset's quantiles (prompt, output) of means `means`, each scaled to the mean lengths `to`."""
        a, b = to[0] / means[0], to[1] / means[1]
        return cls(name, levels, tuple(x * a for x in quantiles[0]), tuple(x * b for x in quantiles[1]), (a, b), cap)

    def at(self, part: Literal["prompt", "output"], p: float) -> float:
        """The length at quantile level p (0-1) of the prompts or the outputs, linear between levels."""
        q = self.prompt if part == "prompt" else self.output
        i = bisect.bisect_left(self.levels, p, lo=1)  # the first level at or above p
        if i == len(self.levels):
            return q[-1]
        lo, hi = self.levels[i - 1], self.levels[i]
        return q[i - 1] + (q[i] - q[i - 1]) * (p - lo) / (hi - lo)

    def draws(self, part: Literal["prompt", "output"], n: int) -> list[int]:
        """`n` lengths, one at the middle of each of n equal slices of the levels: the distribution without
        sampling noise (the longest at level 1 - 1/(2n), so a larger run reaches further into the tail), in
        whole tokens of the same total (gpuwise.workload.specs.whole_tokens)."""
        return whole_tokens([self.at(part, (2 * i + 1) / (2 * n)) for i in range(n)])

    def output_room(self, prompt: int) -> int:
        """The longest output a prompt of `prompt` tokens may have under the dataset's cap (one at least)."""
        a, b = self.scale
        return max(1, math.floor(b * (self.cap - prompt / a) + FLOOR_GUARD))

    @property
    def longest_prompt(self) -> int:
        return max(1, round(self.prompt[-1]))

    @property
    def longest_context(self) -> int:
        """The longest pair drawn can be: the longest prompt with the output room it leaves, or the longest
        output with the prompt room it leaves (the corners of the cap's line inside the box of the longest)."""
        a, b = self.scale
        p_max, o_max = self.longest_prompt, max(1, round(self.output[-1]))
        prompt_room = max(1, min(p_max, math.floor(a * (self.cap - o_max / b) + FLOOR_GUARD)))
        return max(p_max + min(o_max, self.output_room(p_max)), prompt_room + min(o_max, self.output_room(prompt_room)))


def whole_tokens(lengths: list[float]) -> list[int]:
    """Lengths in whole tokens of at least one each, their total the rounded total of `lengths` where the
    floor of one allows (largest remainders first): rounding each alone would move the mean of short ones."""
    out = [max(1, math.floor(x)) for x in lengths]
    short = round(sum(lengths)) - sum(out)
    order = sorted(range(len(lengths)), key=lambda i: lengths[i] - math.floor(lengths[i]), reverse=short > 0)
    for i in order:
        if short == 0:
            break
        if short > 0:
            out[i] += 1
            short -= 1
        elif out[i] > 1:
            out[i] -= 1
            short += 1
    return out


@dataclass(frozen=True, slots=True)
class InferenceJob:
    model: ModelArch
    weights_dtype: WeightsDtype = "bf16"
    kv_dtype: KvDtype = "bf16"
    input_tokens: int = 1024
    output_tokens: int = 256
    concurrency: int = 1
    parallel: Parallelism = field(default_factory=Parallelism)
    engine: Engine = "vllm"
    prefix_hit_rate: float = 0.0  # share of prompt tokens served from the prefix cache
    # a finite benchmark run of this many requests sent at the start (0: the steady state); `clients`: how many
    # send them, each its next when one of its own ends (0: all at once, a burst bounded by the engine)
    requests: int = 0
    clients: int = 0
    request_rate: float = 0.0  # a finite run's requests sent at this rate (Poisson; 0: all at the start)
    # a simulated run's request lengths, each uniform on [L(1 - R), L(1 + R)] about the lengths given (0: all alike)
    length_spread: float = 0.0
    # a simulated run's request lengths drawn from a benchmark dataset's, scaled to the lengths given (None: not)
    lengths: LengthDistribution | None = None
    speculative_tokens: int = 0  # tokens proposed per decode step (0: no speculative decoding)
    speculative_acceptance: float = 0.0  # chance that each proposed token is accepted
    items_per_request: int = 1  # ranking models: candidates scored per request (samples per request)
    input_from_host: bool = False  # runtimes without a server: each batch's input crosses PCIe in the timed loop
    cuda_graphs: bool = False  # compiled engines: the batch's kernels replayed as one CUDA graph
    tf32_matmul: bool | None = None  # PyTorch fp32 GEMMs on TF32 tensor cores (None: the runtime's default)
    autocast: bool | None = None  # eager inference: weights cast per call (None: the runtime's default)
    # fp32 weights under torch.autocast: the 16-bit dtype it computes at (--precision); None: the weights' own
    autocast_dtype: HalfDtype | None = None
    diffusers_version: str | None = None  # a diffusion pipeline's release under eager attention (its memory)
    denoising_steps: int | None = None  # a diffusion pipeline's num_inference_steps (None: its call default)
    guidance_scale: float | None = None  # a diffusion pipeline's guidance scale (None: its call default)
    scheduler: SchedulerName | None = None  # a diffusion pipeline's scheduler (None: the checkpoint's own)
    enforce_eager: bool = False  # LLM engines: CUDA graphs off, every kernel issued from Python
    async_scheduling: bool = False  # vLLM V1: the next step scheduled while the GPU runs this one
    batching: Batching | None = None  # None: the engine's (a server's continuous, a generate loop's static)
    attention: Attention | None = None  # a generate loop's attention kernel (None: the engine's default)
    bnb_4bit: Bnb4bit = "qlora"  # how bitsandbytes 4-bit weights were loaded (weights_dtype nf4)
    lora_adapters: int = 0  # LoRA adapters resident on the base (vLLM --max-loras; 0: LoRA off)
    lora_adapter_rank: int = DEFAULT_ADAPTER_RANK  # the rank their memory is reserved at (vLLM --max-lora-rank)
    # a serving engine's settings as the user gave them (None: the engine's own, catalog engines.yaml)
    max_seqs: int | None = None  # requests a replica runs at once at most (vLLM --max-num-seqs)
    max_batch_tokens: int | None = None  # tokens an engine step carries at most (vLLM --max-num-batched-tokens)
    memory_fraction: float | None = None  # the engine's memory share, as it counts it (vLLM --gpu-memory-utilization)
    # dtype fields holding the bf16 default the user did not name (gpuwise.workload.precision)
    dtype_defaults: frozenset[str] = frozenset()
    # the user named the engine: only then are its start-time allocations counted as it reports them
    # (an unnamed one stands for any runtime in the memory figures); a job made in Python names it
    engine_named: bool = True

    kind: Literal["inference"] = field(default="inference", init=False)

    @property
    def task(self) -> Literal["inference"]:
        return "inference"

    @property
    def context_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def longest_context(self) -> int:
        """The longest request's context: its mean, or when lengths vary the longest prompt and output drawn."""
        if self.lengths is not None:
            return self.lengths.longest_context
        return (
            spread_bounds(self.input_tokens, self.length_spread)[1]
            + spread_bounds(self.output_tokens, self.length_spread)[1]
        )

    @property
    def longest_prompt(self) -> int:
        """The longest prompt a request has: the mean, or when lengths vary the longest drawn."""
        if self.lengths is not None:
            return self.lengths.longest_prompt
        return spread_bounds(self.input_tokens, self.length_spread)[1]

    @property
    def lengths_vary(self) -> bool:
        """Whether a simulated run's requests differ in length (--length-spread or --dataset)."""
        return bool(self.length_spread) or self.lengths is not None

    @property
    def lengths_flag(self) -> str:
        """The option that makes the lengths vary, as the user gave it ('' when they do not)."""
        if self.lengths is not None:
            return f"--dataset {self.lengths.name}"
        return f"--length-spread {self.length_spread:g}" if self.length_spread else ""

    @property
    def senders(self) -> int:
        """Who sends a finite run's requests: its clients, or, with none or as many as requests, every
        request at once (a burst)."""
        return self.clients if 0 < self.clients < self.requests else self.requests

    @property
    def attention_ranks(self) -> int:
        """Ranks that each run attention on their own requests: tp under attention data parallelism, else 1."""
        par = self.parallel
        return par.tp if par.attention_dp and par.tp > 1 else 1

    def attention_rank(self) -> InferenceJob:
        """The job as one attention rank of an attention-data-parallel replica runs it: its share of
        the requests (rounded up: the busiest rank), attention and the dense layers whole (tp 1), the
        experts still split over the ep ranks, whose tokens it sends and receives. The job itself
        without attention data parallelism (and for a rank already)."""
        ranks = self.attention_ranks
        if ranks == 1:
            return self
        par = replace(self.parallel, tp=1, etp=1)
        return replace(self, concurrency=math.ceil(self.concurrency / ranks), parallel=par)


Workload = TrainingJob | InferenceJob
