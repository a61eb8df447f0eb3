"""Per-operator roofline for models described operator by operator (CNNs, recommenders, any
module `gpuwise describe` traced).

A roofline over totals is far too fast for these models: most of their kernels are memory-bound
(normalization, activations, pooling, gathers) or too small to fill the GPU, and at small batches
each kernel costs a launch (and, in eager PyTorch, a host dispatch) whatever its size. Here every
operator is timed on its own,

    t_op = max(flops / (rate x eff[class, arch, precision]), bytes / (bandwidth x eff_mem[class]))
           + kernel floor

where a tensor-core convolution's rate is the GPU's achievable GEMM rate (the catalog's measured
matmul efficiency x the dense peak: the clock the card sustains under tensor load, which the
datasheet's boost-clock peak does not say) and a CUDA-core fp32 one's the fp32 peak,

for the forward pass, the backward pass (class-specific ratios: a convolution or GEMM runs its
data- and weight-gradient kernels, twice the forward FLOPs) and, in training, the weight casts of
mixed precision. Inference under a compiler (TensorRT, Triton's default for these models) folds
normalization and activations into the convolution or GEMM that feeds them; eager PyTorch runs
each op as its own kernel behind a host dispatch. Every efficiency is a catalog convention with
its source; the fitted ones come from scripts/fit_operators.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from gpuwise.catalog import GPU, Catalog, GenericArch, Operator
from gpuwise.catalog.arch import DESCRIBED_ELEMENT_BYTES
from gpuwise.estimate.comm import pcie_link
from gpuwise.estimate.embedding_exchange import shard_tables
from gpuwise.estimate.rates import Rates, compute_rates, cudnn_tf32, tf32_gemm_gain, without_fused_attention
from gpuwise.workload.specs import DEFAULT_RUNTIME, DTYPE_BYTES

Runtime = Literal["eager", "graph", "folded", "compiled", "inductor"]
# eager: PyTorch from Python, one host dispatch per kernel; graph: the same kernels issued without
# Python (TorchScript, CUDA graphs); folded: ONNX Runtime's CUDA provider, batch norms folded into the
# convolution and Relu (with a residual Add before it) fused into it (FusedConv), other activations on
# their own; compiled: TensorRT-style, every epilogue fused into its conv/GEMM. Which runtime a named
# engine uses is catalog data (engines.yaml `runtimes`).
FOLDED_OPS = ("relu", "add")  # ONNX Runtime's CUDA FusedConv: cuDNN conv-bias-activation, Relu and an Add input
_MEMORY_CLASSES = ("normalization", "elementwise", "pooling", "embedding", "data-movement", "attention")


def precision_class(dtype: str) -> str:
    """Which convolution efficiency applies: tensor cores at 16 bits or less, TF32, or CUDA-core fp32."""
    return {"fp32": "fp32", "tf32": "tf32"}.get(dtype, "tensor16")


def element_bytes(dtype: str) -> float:
    """Bytes an activation element takes at the compute dtype (int8/fp8 inference: one)."""
    return DTYPE_BYTES.get(dtype, DESCRIBED_ELEMENT_BYTES)


def fp16_accumulate_gain(rates: Rates) -> float:
    """How much faster fp16 tensor kernels that accumulate in fp16 run than FP32-accumulate ones on this GPU:
    its FP16-accumulate peak over its FP16 (FP32-accumulate) peak at 16-bit rates, else 1."""
    fast, peaks = rates.gpu.fp16_accumulate_flops, rates.gpu.peak_flops
    if rates.dtype not in ("fp16", "bf16") or fast is None or "fp16" not in peaks:
        return 1.0
    return max(1.0, fast / peaks["fp16"])


@dataclass(frozen=True, slots=True)
class OperatorParams:
    """The conventions one GPU and dtype need, looked up once (names in `sources`)."""

    conv_efficiency: float
    conv_rate: float  # FLOP/s of a convolution: conv_efficiency x the GPU's achievable tensor GEMM rate (fp32: peak)
    gemm_rate: float  # FLOP/s of a large GEMM (the catalog's matmul efficiency)
    memory_efficiency: Mapping[str, float]
    backward_bytes: Mapping[str, float]
    train_norm_reads: float
    host_seconds: float  # eager PyTorch: host time to dispatch one kernel
    launch_seconds: float  # the shortest a kernel takes on the GPU
    sources: tuple[str, ...]

    @classmethod
    def of(cls, rates: Rates, catalog: Catalog, conv_gain: float = 1.0, graphs: bool = False) -> OperatorParams:
        """`conv_gain`: how much faster the runtime's 16-bit convolutions run than at the FP32-accumulate rate
        (fp16_accumulate_gain where they accumulate in fp16); its GEMMs keep fp32 accumulation. `graphs`: the
        kernels are replayed from a captured CUDA graph, each costing the graph floor instead of the launch one."""
        conv = catalog.conventions
        prec = precision_class(rates.dtype)
        arch_key = f"operator_conv_efficiency_{rates.gpu.architecture}_{prec}"
        conv_key = arch_key if arch_key in conv else f"operator_conv_efficiency_default_{prec}"
        mem = {c: conv[f"operator_memory_efficiency_{c.replace('-', '_')}"].value for c in _MEMORY_CLASSES}
        bwd = {c: conv[f"operator_backward_bytes_{c.replace('-', '_')}"].value for c in _MEMORY_CLASSES}
        host_key = f"operator_host_seconds_eager_{rates.gpu.architecture}"  # the host its machines carry
        host_key = host_key if host_key in conv else "operator_host_seconds_eager"
        floor_key = "operator_kernel_floor_seconds_graphs" if graphs else "operator_kernel_floor_seconds"
        used = (conv_key, host_key, floor_key, "operator_train_norm_reads")
        eff = conv[conv_key].value
        # tensor cores run an implicit-GEMM convolution at the clock and operand feed the GPU's GEMMs get
        # (rates.matmul: measured, power-capped, calibrated); CUDA-core fp32 at its peak and clock
        base = rates.peak * rates.clock if prec == "fp32" else rates.matmul
        if prec != "fp32":
            base *= conv_gain
        return cls(
            conv_efficiency=eff,
            conv_rate=base * eff,
            gemm_rate=rates.matmul,
            memory_efficiency=mem,
            backward_bytes=bwd,
            train_norm_reads=conv["operator_train_norm_reads"].value,
            host_seconds=conv[host_key].value,
            launch_seconds=conv[floor_key].value,
            sources=used,
        )


@dataclass(frozen=True, slots=True)
class OperatorTime:
    """Seconds of one batch, by pass and by operator class, and the kernels it launches."""

    forward: float
    backward: float
    kernels: int
    by_class: dict[str, float] = field(default_factory=dict)
    floor: float = 0.0  # seconds in which kernels waited on the launch or host floor
    notes: tuple[str, ...] = ()

    @property
    def total(self) -> float:
        return self.forward + self.backward


class _Timer:
    """Times the kernels of one batch on one GPU, in issue order, and adds them up by class.

    The host issues a kernel every `host_seconds` (eager PyTorch; a compiled engine's enqueue is
    free); the GPU starts it when both it and the host are ready, so long kernels hide the host
    and runs of short ones wait for it. Every kernel adds `launch_seconds` to its roofline time."""

    def __init__(self, rates: Rates, p: OperatorParams, runtime: Runtime, scale: float, gemm_share: float) -> None:
        self.rates, self.p, self.scale = rates, p, scale
        self.host_s = p.host_seconds if runtime == "eager" else 0.0
        self.gemm_share = gemm_share  # of the GEMM and attention rates: below 1 for fp32 GEMMs without TF32
        self.host = self.gpu = 0.0  # clocks: when the host issued the last kernel, when the GPU is free
        self.by_class: dict[str, float] = {}
        self.kernels, self.floor = 0, 0.0

    def kernel(self, cls: str, flops: float, moved: float) -> float:
        """Seconds this kernel adds to the batch: its roofline time and the kernel floor, plus any
        wait for the host."""
        if cls == "convolution":
            rate = self.p.conv_rate
        elif cls in ("gemm", "attention"):
            rate = (self.p.gemm_rate if cls == "gemm" else self.rates.attention) * self.gemm_share
        else:
            rate = 0.0
        bw = self.rates.bandwidth * self.p.memory_efficiency.get(cls, 1.0)
        # random row gathers cost per row fetched (a few cache lines), whatever the element size
        scale = 1.0 if cls == "embedding" else self.scale
        busy = max(flops / rate if rate else 0.0, moved * scale / bw)
        self.host += self.host_s
        end = max(self.gpu, self.host) + busy + self.p.launch_seconds
        t, self.gpu = end - self.gpu, end
        self.floor += t - busy
        self.kernels += 1
        self.by_class[cls] = self.by_class.get(cls, 0.0) + t
        return t

    def repeat(self, runs: int, walk: Callable[[], tuple[float, float]]) -> tuple[float, float]:
        """`runs` runs of the same kernels, `walk` timing one: a run's times depend only on how far the
        GPU is behind the host when it starts (its lag), so each run is walked once per lag it starts
        at and replayed after (the lag repeats once a run holds a wait on the host, and a run the host
        never catches up with takes the same time whatever its lag). Returns (forward, backward)."""
        self.gpu, self.host = self.gpu - self.host, 0.0  # clocks from the host's: only the lag counts
        seen: dict[float | None, tuple[float, float, int, float, dict[str, float], float]] = {}
        forward = backward = 0.0
        host_per_run = math.inf
        for _ in range(runs):
            lag = self.gpu
            key = None if lag >= host_per_run else lag
            if key not in seen:
                kernels, floor, by_class = self.kernels, self.floor, dict(self.by_class)
                f, b = walk()
                added = {c: v - by_class.get(c, 0.0) for c, v in self.by_class.items()}
                seen[key] = (f, b, self.kernels - kernels, self.floor - floor, added, self.gpu - lag - self.host)
                self.by_class, self.kernels, self.floor = by_class, kernels, floor  # added back below, as replayed
                host_per_run = self.host
            f, b, kernels, floor, added, ahead = seen[key]
            self.kernels, self.floor = self.kernels + kernels, self.floor + floor
            for c, v in added.items():
                self.by_class[c] = self.by_class.get(c, 0.0) + v
            self.gpu, self.host = lag + ahead, 0.0
            forward, backward = forward + f, backward + b
        return forward, backward


_RECENT: dict[
    tuple[int, int, int, bool, str, bool | None, bool, bool, bool],
    list[tuple[GenericArch, Catalog, Rates, OperatorTime]],
] = {}
_RECENT_MOST = 4096  # batches remembered before the memo starts afresh (a long-running server's bound)


def operator_seconds(
    model: GenericArch,
    batch: int,
    rates: Rates,
    catalog: Catalog,
    *,
    training: bool,
    runtime: Runtime = "eager",
    autocast: bool | None = None,
    tf32_gemm: bool = True,
    fp16_accumulate: bool = False,
    graphs: bool = False,
) -> OperatorTime:
    """`_operator_seconds`, remembered: a serving plan asks for the same batch on the same GPU from
    every replica count and layout it tries, and a pipeline of tens of thousands of kernels takes tens
    of milliseconds to walk. An entry is reused only for the same model and catalog objects and equal
    rates, so the answer is the one a fresh walk gives."""
    key = (id(model), id(catalog), batch, training, runtime, autocast, tf32_gemm, fp16_accumulate, graphs)
    seen = _RECENT.setdefault(key, [])
    for m, c, r, t in seen:
        if m is model and c is catalog and r == rates:
            return t
    t = _operator_seconds(
        model,
        batch,
        rates,
        catalog,
        training=training,
        runtime=runtime,
        autocast=autocast,
        tf32_gemm=tf32_gemm,
        fp16_accumulate=fp16_accumulate,
        graphs=graphs,
    )
    if len(_RECENT) > _RECENT_MOST:
        _RECENT.clear()
        seen = _RECENT.setdefault(key, [])
    seen.append((model, catalog, rates, t))
    return t


def _operator_seconds(
    model: GenericArch,
    batch: int,
    rates: Rates,
    catalog: Catalog,
    *,
    training: bool,
    runtime: Runtime = "eager",
    autocast: bool | None = None,
    tf32_gemm: bool = True,
    fp16_accumulate: bool = False,
    graphs: bool = False,
) -> OperatorTime:
    """One batch of `batch` samples through `model`'s operators: forward (and backward when
    `training`). Training runs eager PyTorch (unfused); inference runs `runtime`. `autocast`
    (default: training at 16 bits) adds the fp32-to-16-bit weight copy autocast makes before
    every convolution and GEMM, each pass. Without `tf32_gemm`, inference of fp32 weights (TF32
    rates) runs its GEMMs at the GPU's measured fp32 GEMM rate instead, its convolutions still at TF32's. With
    `fp16_accumulate` (inference only) fp16 convolutions run at the FP16-accumulate rate. With `graphs` (a
    compiled engine's inference) the kernels replay from one CUDA graph at the graph floor."""
    gain = fp16_accumulate_gain(rates) if fp16_accumulate and not training else 1.0
    graphs = graphs and not training  # a training step is eager PyTorch: nothing replays it
    p = OperatorParams.of(rates, catalog, gain, graphs=graphs)
    scale = element_bytes(rates.dtype) / DESCRIBED_ELEMENT_BYTES
    eager = training or runtime == "eager"
    full_fp32 = not tf32_gemm and rates.dtype == "tf32" and "fp32" in rates.gpu.peak_flops
    cuda_cores = compute_rates(rates.gpu, "fp32", catalog) if full_fp32 else None
    share = 1 / tf32_gemm_gain(rates.gpu, catalog) if cuda_cores else 1.0
    timer = _Timer(rates, p, "eager" if eager else runtime, scale, share)
    fused = runtime in ("compiled", "folded", "inductor") and not training
    # a compiled graph still casts the fp32 weights each call (no freezing), in kernels of its own
    casting = eager or runtime == "inductor"
    casts = (training if autocast is None else autocast) and casting and rates.dtype in ("fp16", "bf16")
    forward = backward = 0.0
    for ops, runs in _runs(model):
        kernels = launched(ops, runtime) if fused else ops
        walk = partial(_walk, timer, p, kernels, batch, training, casts)
        f, b = walk() if runs == 1 else timer.repeat(runs, walk)
        forward, backward = forward + f, backward + b
    notes = (
        (
            f"{model.name}: {timer.kernels} kernels per batch of {batch} "
            f"({_FUSION[runtime] if fused else 'unfused'}"
            f"{', eager PyTorch' if eager else ''}); "
            f"{timer.floor * 1e3:.2f} ms of it waiting on the kernel floor ({p.launch_seconds * 1e6:.0f} us"
            f"{', replayed from one CUDA graph' if graphs else ''}) "
            f"or the host ({timer.host_s * 1e6:.0f} us per kernel) "
            f"[{', '.join(p.sources)}]",
        )
        + (
            (
                f"{model.name}: fp32 GEMMs in full fp32, not TF32: the runtime "
                f"leaves TF32 off for matmuls (convolutions keep it) [engines.yaml runtimes: tf32_gemm]; "
                f"{cuda_cores.notes[0]}",
            )
            if cuda_cores
            else ()
        )
        + (
            (
                f"{model.name}: fp16 convolutions accumulate in fp16, {gain:g} x the FP32-accumulate tensor "
                f"rate of the {rates.gpu.name} ({rates.gpu.fp16_accumulate_flops or 0.0:.3g} FLOP/s peak) [engines.yaml "
                "runtimes: fp16_accumulate]",
            )
            if gain > 1.0
            else ()
        )
    )
    return OperatorTime(forward, backward, timer.kernels, timer.by_class, timer.floor, notes)


def _runs(model: GenericArch) -> list[tuple[tuple[Operator, ...], int]]:
    """The model's operators in issue order as (kernels, times run): each repeated run (`repeats`)
    once with its count, the operators between them once."""
    ops, parts, at = model.operators, [], 0
    for first, length, runs in sorted(model.repeats):
        parts += [(ops[at:first], 1), (ops[first : first + length], runs)]
        at = first + length * runs
    return [*parts, (ops[at:], 1)]


def _walk(
    timer: _Timer, p: OperatorParams, kernels: tuple[Operator, ...], batch: int, training: bool, casts: bool
) -> tuple[float, float]:
    """(forward, backward) seconds of `kernels` in issue order, on `timer`'s clocks."""
    forward = backward = 0.0
    for op in kernels:
        moved = op.act_bytes * batch + op.param_bytes
        if training and op.cls == "normalization":
            moved *= p.train_norm_reads  # batch statistics: the input is read once more
        forward += timer.kernel(op.cls, op.flops * batch, moved)
        if casts and op.param_bytes and op.cls in ("convolution", "gemm"):
            forward += timer.kernel("data-movement", 0.0, op.param_bytes * 3)  # read fp32, write 16-bit
        if training:
            backward += _backward(timer, p, op, batch, moved)
            if casts and op.param_bytes and op.cls in ("convolution", "gemm"):
                # the 16-bit weight gradient cast back to fp32: read 16-bit, write fp32
                backward += timer.kernel("data-movement", 0.0, op.param_bytes * 3)
    return forward, backward


_FUSION = {
    "compiled": "compiled engine, conv/GEMM epilogues fused",
    "inductor": "TorchInductor: each conv/GEMM's following pointwise ops in one kernel of their own",
    "folded": "batch norms folded, Relu and residual adds fused into the convolutions",
}


def launched(operators: tuple[Operator, ...], runtime: Runtime) -> tuple[Operator, ...]:
    """The kernels a runtime launches for inference: a compiled engine drops every operator fused into
    a convolution or GEMM; ONNX Runtime's CUDA provider only the folded batch norms and the fused Relu
    and residual Add (FOLDED_OPS); eager PyTorch and TorchScript launch them all."""
    if runtime == "compiled":
        return tuple(op for op in operators if op.fused_into is None)
    if runtime == "inductor":
        return _pointwise_fused(operators)
    if runtime == "folded":
        return tuple(
            op
            for op in operators
            if op.fused_into is None or not (op.cls == "normalization" or op.name.rsplit(".", 1)[-1] in FOLDED_OPS)
        )
    return operators


def _pointwise_fused(operators: tuple[Operator, ...]) -> tuple[Operator, ...]:
    """TorchInductor's kernels: the convolutions and GEMMs as the vendor library runs them, and the
    operators an inference compiler would fold into each (batch norm, activation, residual add) as one
    generated pointwise kernel after it, which reads the anchor's output and each extra input once and
    writes once (PyTorch docs, torch.compiler Getting Started: fusion turns 2 reads and 2 writes into 1
    and 1). Each member's act_bytes is its reads and writes of tensors the anchor's size: a unary op moves
    2 of them, an add 3; the fused kernel moves 2 plus each member's inputs beyond its first."""
    out: list[Operator] = []
    groups: dict[int, list[Operator]] = {}
    for op in operators:
        if op.fused_into is None:
            out.append(op)
        elif op.fused_into in groups:
            groups[op.fused_into].append(op)
        else:
            groups[op.fused_into] = [op]
            out.append(op)  # the group's place in issue order, replaced below
    merged = {id(group[0]): _one_kernel(group) for group in groups.values() if len(group) > 1}  # one: as it is
    return tuple(merged.get(id(op), op) for op in out)


def _one_kernel(group: list[Operator]) -> Operator:
    """One generated kernel for a chain of pointwise operators on the same tensor size (a CNN's or a
    recommender's, whose operators each count their own reads and writes: workload.build COMPILE_TASKS). It
    is a plain pointwise kernel, timed at the elementwise class's bandwidth: a batch norm in eval is a
    scale and shift by its running statistics, the normalization class's lower efficiency is for its kernel
    of its own (about 13-15 % of torch-compile's gain over eager at batch 256 is this)."""
    size = min(op.act_bytes for op in group) / 2  # a unary member reads and writes one such tensor
    extra = sum(max(0.0, op.act_bytes - 2 * size) for op in group)  # residual and other second inputs
    first = group[0]
    return Operator(
        name=f"{first.name}+{len(group) - 1}",
        cls="elementwise",
        flops=sum(op.flops for op in group),
        act_bytes=2 * size + extra,
        param_bytes=sum(op.param_bytes for op in group),
        plane=first.plane,
    )


def _backward(timer: _Timer, p: OperatorParams, op: Operator, batch: int, moved: float) -> float:
    """The backward kernels of one forward operator: a convolution or GEMM computes the data and
    the weight gradient (each the forward's FLOPs); the rest move `operator_backward_bytes_*`."""
    if op.cls in ("convolution", "gemm"):
        return timer.kernel(op.cls, op.flops * batch, moved) + timer.kernel(op.cls, op.flops * batch, moved)
    return timer.kernel(op.cls, 0.0, moved * p.backward_bytes[op.cls])


def operator_step(
    model: GenericArch,
    micro_batch: int,
    rates: Rates,
    catalog: Catalog,
    framework: float,
    notes: list[str],
    autocast: bool = True,
) -> tuple[float, float]:
    """(forward, backward) seconds of one training micro-batch, for the training estimator: eager PyTorch. At
    fp32 on an NVIDIA board with TF32 tensor cores cuDNN is allowed TF32 for convolutions (`cudnn_tf32`) and takes
    the faster of its TF32 and fp32 kernels: TF32 on a GA100 or Hopper board (156 against 19.5 TFLOP/s on an A100);
    the CUDA-core kernels on boards whose TF32 convolutions are no faster (GeForce, whose TF32 tensor rate is its
    fp32 rate; A10, L4, L40S and RTX A6000 at the fitted TF32 convolution efficiency); matmuls as the eager runtime
    sets them (TF32 off since 1.12). `autocast`: the step casts fp32 weights to 16 bits (memory.states
    autocast_casts_weights), forward and the weight gradient back.

    The fitted efficiencies are kernel rates already; the estimator divides compute by the
    framework's efficiency afterwards, so it is multiplied in here and the two cancel."""
    t = operator_seconds(model, micro_batch, rates, catalog, training=True, autocast=autocast)
    if (tf32 := cudnn_tf32(rates, catalog)) is not None:
        eager = catalog.runtime("eager").tf32_gemm
        on_tf32 = operator_seconds(model, micro_batch, tf32, catalog, training=True, tf32_gemm=eager, autocast=autocast)
        if on_tf32.forward + on_tf32.backward < t.forward + t.backward:
            t = on_tf32
            notes.append(
                f"{model.name}: fp32 convolutions on TF32 tensor cores (PyTorch lets cuDNN take TF32 for them, "
                f"torch.backends.cudnn.allow_tf32; its TF32 kernels are the faster here) "
                f"[{catalog.sources['pytorch-tf32'].title.split(',')[0]}]"
            )
    if not t.by_class.get("attention"):
        notes[:] = without_fused_attention(notes)
    notes.extend(t.notes)
    notes.append(f"{model.name}: per-operator roofline (estimate/operators.py); the framework factor does not apply")
    return t.forward * framework, t.backward * framework


# ------------------------------------------------------------------------------------------
# what a served request pays besides the GPU
# ------------------------------------------------------------------------------------------
def input_bytes_per_sample(model: GenericArch) -> float:
    """Bytes one sample's input takes on the wire and over PCIe: fp32 tensors (Triton's default for
    exported vision models), for recommenders one 64-bit id per categorical feature, or as the model
    says (a BERT's int64 token ids and attention mask)."""
    elements = math.prod(model.input_shape) if model.input_shape else 0
    if model.input_element_bytes is not None:
        return float(elements * model.input_element_bytes)
    return float(elements * (8 if model.embedding_tables else 4))


def request_terms(
    model: GenericArch, samples: int, gpu: GPU, catalog: Catalog, *, dynamic_batching: bool = True
) -> dict[str, float]:
    """Seconds one request of `samples` samples spends outside the GPU kernels, by name: the
    server's fixed per-request cost (framework, scheduling, RPC framing), its input over the RPC,
    the host-to-device copy, the dynamic batcher's queue delay and (recommenders) the feature fetch."""
    conv = catalog.conventions
    nbytes = samples * input_bytes_per_sample(model)
    link = pcie_link(gpu, catalog)
    terms = {
        "framework_floor": conv["serving_request_floor_seconds"].value,
        "rpc_transfer": nbytes / conv["serving_rpc_bytes_per_second"].value,
        "input_copy": nbytes / link.achieved_bandwidth,
    }
    if dynamic_batching:
        terms["batching_delay"] = conv["serving_max_queue_delay_seconds"].value
    if model.task == "recommender":
        terms["feature_fetch"] = conv["serving_feature_fetch_seconds"].value
    return terms


@dataclass(frozen=True, slots=True)
class ServedBatch:
    """One dynamic batch of `requests` requests of a one-pass model, served: what occupies the GPU
    (kernels and the input copy) and what only adds latency (framework, RPC, queue, features)."""

    gpu_seconds: float
    outside_seconds: float
    terms: dict[str, float]
    notes: tuple[str, ...]
    bottleneck: str = "compute"  # the GPU side: compute (conv, GEMM, attention) or memory-bandwidth
    fused_attention: bool = True  # any kernel ran at the fused-attention rate


def served_batch(
    model: GenericArch,
    requests: int,
    items: int,
    rates: Rates,
    catalog: Catalog,
    engine: str = DEFAULT_RUNTIME,
    input_from_host: bool = False,
    autocast: bool | None = None,
    fp16: bool = False,
    cuda_graphs: bool = False,
    tf32_matmul: bool | None = None,
) -> ServedBatch:
    """A batch of `requests` requests of `items` samples each through the runtime `engine` (catalog
    engines.yaml `runtimes`): its kernels, and, under a server (Triton, what `gpuwise deploy`
    writes), the input copy and the per-request terms around them. A runtime without a server is
    timed as its own benchmarks time it: the batch's kernels on inputs already on the GPU, or, with
    `input_from_host`, after the batch's input is copied from host memory in the timed loop. `fp16`: the
    model is held in fp16 (not bf16), which a runtime with `fp16_accumulate` multiplies at that rate.
    `cuda_graphs`: the engine replays the batch's kernels from one captured CUDA graph. `tf32_matmul`: PyTorch's
    matmul precision as the run sets it (None: the runtime's `tf32_gemm`)."""
    profile = catalog.runtime(engine)
    samples = requests * items
    amp = profile.autocasts(autocast)  # --no-autocast: weights held in 16 bits
    kernels = operator_seconds(
        model,
        samples,
        rates,
        catalog,
        training=False,
        runtime=profile.kernels,
        autocast=amp,
        tf32_gemm=profile.tf32(tf32_matmul),
        fp16_accumulate=profile.fp16_accumulate and fp16,
        graphs=cuda_graphs,
    )
    runs = (
        f"{model.name} runs on {profile.name} (--engine {engine}"
        + (", the default" if engine == DEFAULT_RUNTIME else "")
        + ")"
    )
    if amp and rates.dtype in ("fp16", "bf16"):
        runs += f"; {rates.dtype} under torch.autocast: each convolution and GEMM weight is cast on every call"
    if tf32_matmul:
        runs += (
            "; fp32 GEMMs on TF32 tensor cores as the run sets PyTorch's matmul precision (--tf32-matmul)"
            if rates.dtype == "tf32"
            else f"; --tf32-matmul changes nothing on the {rates.gpu.name}, which has no TF32 tensor cores"
        )
    runs += f" [{catalog.sources[profile.source].title.split(':')[0]}]"
    math_s = sum(v for k, v in kernels.by_class.items() if k in ("convolution", "gemm", "attention"))
    side = "compute" if math_s >= kernels.total - math_s else "memory-bandwidth"
    fused = kernels.by_class.get("attention", 0.0) > 0
    if not profile.server:
        if input_from_host:
            notes = (*kernels.notes, runs)
            return _copied_then_run(model, samples, kernels.total, rates.gpu, catalog, notes, side, fused)
        notes = (
            *kernels.notes,
            runs,
            f"{model.name}: no server around it: a batch of {samples} sample(s) takes the runtime's kernels only, "
            "inputs already on the GPU (a server adds its request floor, RPC and queue delay: --engine triton)",
        )
        return ServedBatch(kernels.total, 0.0, {"gpu": kernels.total}, notes, side, fused)
    around = request_terms(model, items, rates.gpu, catalog)
    copy = around.pop("input_copy") * requests  # every request's input crosses PCIe in the batch
    terms = {"gpu": kernels.total, "input_copy": copy, **around}
    notes = (
        *kernels.notes,
        runs,
        f"{model.name}: a request is {items} sample(s); the batch of {requests} request(s) is {samples} samples; "
        f"around the GPU: framework floor, the input over the RPC, the batcher's queue delay"
        + (" and the feature fetch" if "feature_fetch" in around else "")
        + " [serving_request_floor_seconds, serving_rpc_bytes_per_second, serving_max_queue_delay_seconds"
        + (", serving_feature_fetch_seconds]" if "feature_fetch" in around else "]"),
    )
    parts = " + ".join(f"{k.replace('_', ' ')} {v * 1e3:.2f}" for k, v in terms.items())
    notes += (f"{model.name}: request latency {sum(terms.values()) * 1e3:.2f} ms = {parts} (ms)",)
    return ServedBatch(kernels.total + copy, sum(around.values()), terms, notes, side, fused)


# ------------------------------------------------------------------------------------------
# embedding tables larger than the GPUs: host memory with a cache of hot rows
# ------------------------------------------------------------------------------------------
def _copied_then_run(
    model: GenericArch,
    samples: int,
    kernels: float,
    gpu: GPU,
    catalog: Catalog,
    notes: tuple[str, ...],
    side: str,
    fused: bool,
) -> ServedBatch:
    """A benchmark loop that copies each batch's input from (pinned) host memory and then runs the
    kernels, one after the other inside the timed region: FlagPerf's p_infer_core times `model([x])`,
    whose engine wrapper calls `x.cuda()` first."""
    link = pcie_link(gpu, catalog)
    copy = samples * input_bytes_per_sample(model) / link.achieved_bandwidth
    note = (
        f"{model.name}: each batch of {samples} sample(s) is copied from host memory in the timed loop "
        f"(--input-from-host): {samples * input_bytes_per_sample(model) / 1e6:.3g} MB at "
        f"{link.achieved_bandwidth / 1e9:.1f} GB/s [{link.name}], then the kernels; no server around it"
    )
    return ServedBatch(kernels + copy, 0.0, {"input_copy": copy, "gpu": kernels}, (*notes, note), side, fused)


@dataclass(frozen=True, slots=True)
class TablePlacement:
    """Where one GPU's share of a recommender's tables lives (TorchRec UVM caching when it is too
    large): `gpu_bytes` in GPU memory (all of it, or the cache of hot rows), `host_bytes` in host
    memory, `hit_rate` the share of lookups the GPU copy serves, `gpu_rows` the rows in GPU memory
    (what a row-wise optimizer keeps a state for there)."""

    gpu_bytes: float
    host_bytes: float
    hit_rate: float
    gpu_rows: float = 0.0


def table_placement(
    model: GenericArch, gpus: int, nodes: int, capacity_bytes: float, element_bytes: float, catalog: Catalog
) -> TablePlacement:
    """The most loaded GPU's tables on the GPU when the even share fits the share of memory the sharding
    planner gives tables: the tables as gpuwise.estimate.embedding_exchange lays them out (splitting
    more of them until every GPU fits that budget); else the budget as a cache of the hottest rows of
    the even share, the rest in host memory (TorchRec's UVM caching)."""
    share = model.embedding_params / max(gpus, 1) * element_bytes
    budget = capacity_bytes * catalog.convention("embedding_gpu_table_share")
    if share <= budget:
        laid = shard_tables(model, gpus, nodes, capacity_bytes, element_bytes, catalog)
        return TablePlacement(laid.heaviest * element_bytes, 0.0, 1.0, laid.heaviest_rows)
    rows = sum(r for r, _ in model.embedding_tables) / max(gpus, 1) * budget / share  # the cached share's
    return TablePlacement(budget, share - budget, catalog.convention("embedding_cache_hit_rate"), rows)


def host_lookup_seconds(
    model: GenericArch, samples: int, placement: TablePlacement, gpu: GPU, element_bytes: float, catalog: Catalog
) -> float:
    """PCIe time of the rows the GPU cache misses for `samples` samples (one way)."""
    if placement.host_bytes == 0:
        return 0.0
    row_bytes = samples * model.lookups_per_table * sum(dim for _, dim in model.embedding_tables) * element_bytes
    link = pcie_link(gpu, catalog)
    return row_bytes * (1 - placement.hit_rate) / link.achieved_bandwidth
