"""What one GPU achieves: dense peak x matmul efficiency, attention efficiency, bandwidth.

Defaults come from cited conventions (by architecture); measured calibration from `gpuwise bench`
replaces them per GPU model. Every factor used is named in the estimate's assumptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gpuwise.catalog import GPU, Catalog
from gpuwise.errors import UsageError

if TYPE_CHECKING:
    from gpuwise.estimate.bands import MeasuredSpread

# Which peak a compute dtype runs at; fp32 training without TF32 uses the CUDA-core fp32 rate.
PEAK_KEY = {"fp32": "fp32", "tf32": "tf32", "fp16": "fp16", "bf16": "bf16", "fp8": "fp8", "fp4": "fp4", "int8": "int8"}

FUSED_ATTENTION_NOTE = "fused attention at "  # the start of the note naming the fused-attention rate


def without_fused_attention(notes: list[str]) -> list[str]:
    """The notes less the fused-attention rate, for a model whose kernels run no fused attention
    (a CNN, or a UNet whose attention runs eagerly as baddbmm, softmax and bmm)."""
    return [n for n in notes if not n.startswith(FUSED_ATTENTION_NOTE)]


@dataclass(frozen=True, slots=True)
class LaunchTimes:
    """Seconds the host takes to issue one kernel from eager PyTorch, as `gpuwise bench launch` measured
    them: from Python without gradients (a generate loop), in a training forward (which records the
    autograd graph) and in the backward (issued by the autograd engine's own thread)."""

    inference: float
    forward: float
    backward: float

    def of(self, role: str) -> float:
        return {"inference": self.inference, "forward": self.forward, "backward": self.backward}[role]


@dataclass(frozen=True, slots=True)
class Calibration:
    """Measured rates for one GPU model; any field may be missing. From `gpuwise bench`: the
    achieved matmul rates and copy bandwidth. From the team's imported measurements
    (gpuwise.calibration.fit): factors on the compute and memory rates that make gpuwise's own
    model reproduce a measured run of this workload, and the all-reduce bus bandwidth nccl-tests
    measured inside a node."""

    matmul_flops: Mapping[str, float] = field(default_factory=dict)  # dtype -> FLOP/s of the best large matmul
    memory_bandwidth: float | None = None  # achieved device copy bandwidth, bytes/s
    source: str = "gpuwise bench"
    compute_factor: float = 1.0  # on matmul and attention rates, fitted to a measured run
    bandwidth_factor: float = 1.0  # on the memory bandwidth, fitted to a measured run
    fitted_to: str | None = None  # the measurement the factors reproduce
    intra_busbw: float | None = None  # all-reduce bandwidth per GPU inside a node (the link's, bytes/s)
    intra_gpus: int | None = None  # ... of a node of this many GPUs
    intra_source: str | None = None
    spread: MeasuredSpread | None = None  # the fitted figures' bands: the measured run's spread
    # seconds the host takes to issue one kernel from eager PyTorch (gpuwise bench launch)
    launch: LaunchTimes | None = None


@dataclass(frozen=True, slots=True)
class Rates:
    """Achievable rates of one GPU for one compute dtype."""

    gpu: GPU
    dtype: str
    peak: float  # dense FLOP/s at `dtype` (the MFU denominator)
    matmul: float  # achievable FLOP/s for large GEMMs
    attention: float  # achievable FLOP/s for fused attention
    bandwidth: float  # achievable bytes/s
    notes: tuple[str, ...]
    clock: float = 1.0  # share of its TDP clock the compute runs at (a power cap lowers it; peak stays nominal)
    # bytes/s at which memory-bound GEMMs (few rows: decode, small batches) stream their operands where a
    # GPU's GEMM library was measured to stay below the copy rate; None: `bandwidth`
    matmul_bandwidth: float | None = None
    # the measured seconds to issue a kernel from eager PyTorch on this GPU model's hosts; None: the default
    launch: LaunchTimes | None = None

    def bandwidth_of(self, kind: str) -> float:
        """The bytes/s an operation of `kind` moves its bytes at."""
        return self.matmul_bandwidth or self.bandwidth if kind == "matmul" else self.bandwidth

    def time(self, flops: float, bytes_moved: float, kind: str = "matmul") -> float:
        """Roofline: an operation takes as long as its slower side."""
        return self.bound(flops, bytes_moved, kind)[0]

    def bound(self, flops: float, bytes_moved: float, kind: str = "matmul") -> tuple[float, str]:
        """(seconds, 'compute' or 'memory-bandwidth'): the slower side and which one it is."""
        rate = self.attention if kind == "attention" else self.matmul
        compute = flops / rate if kind != "memory" else 0.0
        memory = bytes_moved / self.bandwidth_of(kind)
        return (compute, "compute") if compute >= memory else (memory, "memory-bandwidth")


def _first(conv: Mapping[str, object], keys: tuple[str, ...]) -> str | None:
    """The first of `keys` the conventions hold (most specific first)."""
    return next((k for k in keys if k in conv), None)


def _title(catalog: Catalog, key: str, sep: str = ":") -> str:
    return catalog.sources[catalog.conventions[key].source].title.split(sep)[0]


def compute_rates(gpu: GPU, dtype: str, catalog: Catalog, calibration: Calibration | None = None) -> Rates:
    key = PEAK_KEY.get(dtype, dtype)
    peaks = gpu.peak_flops
    if not peaks:
        raise UsageError(
            f"{gpu.name}: the vendor publishes no compute figures; time estimates need a measured "
            f"calibration (gpuwise bench matmul) for this GPU"
        )
    if key not in peaks:
        fallback = "bf16" if "bf16" in peaks else "fp16"
        if key in ("int8", "fp8") and fallback in peaks:
            key = fallback  # no low-precision tensor cores: weights are dequantized, math runs 16-bit
        else:
            raise UsageError(f"{gpu.name} has no {dtype} tensor cores (it has {', '.join(sorted(peaks))})")
    peak = peaks[key]
    conv = catalog.conventions
    # the GPU model's own measurement (for this dtype, then any), else its architecture's, else the default
    g, a = gpu.id, gpu.architecture
    if key == "fp32":  # a GEMM in full fp32: a measured fp32 rate before the GPU's tensor-core one (none: that)
        mm_keys = (f"matmul_efficiency_{g}_fp32", f"matmul_efficiency_{a}_fp32", f"matmul_efficiency_{g}")
    else:
        mm_keys = (f"matmul_efficiency_{g}_{key}", f"matmul_efficiency_{g}", f"matmul_efficiency_{a}_{key}")
    mm_key = _first(conv, (*mm_keys, f"matmul_efficiency_{a}")) or "matmul_efficiency_default"
    notes: list[str] = []
    mm_eff = conv[mm_key].value
    matmul = peak * mm_eff
    if calibration and key in calibration.matmul_flops:
        matmul = calibration.matmul_flops[key]
        notes.append(f"{gpu.id} {key} matmul: {matmul / 1e12:.0f} TFLOP/s measured ({calibration.source})")
    else:
        notes.append(
            f"{gpu.id} {key} matmul: {mm_eff:.0%} of the {peak / 1e12:.0f} TFLOP/s dense peak "
            f"[{mm_key}: {_title(catalog, mm_key)}]"
        )
    att_key = _first(conv, (f"attention_efficiency_{g}", f"attention_efficiency_{a}")) or "attention_efficiency"
    att_eff = conv[att_key].value
    bw_eff = conv["memory_bandwidth_efficiency"].value
    bandwidth = gpu.memory_bandwidth * bw_eff
    if calibration and calibration.memory_bandwidth:
        bandwidth = calibration.memory_bandwidth
        notes.append(f"{gpu.id} memory bandwidth: {bandwidth / 1e9:.0f} GB/s measured ({calibration.source})")
    else:
        notes.append(
            f"{gpu.id} memory bandwidth: {bw_eff:.0%} of {gpu.memory_bandwidth / 1e9:.0f} GB/s "
            f"[memory_bandwidth_efficiency: {_title(catalog, 'memory_bandwidth_efficiency', ',')}]"
        )
    mbw_key = _first(conv, (f"matmul_bandwidth_efficiency_{g}", f"matmul_bandwidth_efficiency_{a}"))
    matmul_bandwidth = None
    if mbw_key:
        matmul_bandwidth = min(bandwidth, gpu.memory_bandwidth * conv[mbw_key].value)
        notes.append(
            f"memory-bound GEMMs (decode, small batches) stream weights at {matmul_bandwidth / 1e9:.0f} GB/s "
            f"[{mbw_key}: {_title(catalog, mbw_key)}]"
        )
    where = "FlashAttention-2 paper" if att_key == "attention_efficiency" else _title(catalog, att_key)
    of_peak = "of the FP8 peak (no engine runs attention in FP4)" if key == "fp4" else "of peak"
    notes.append(f"{FUSED_ATTENTION_NOTE}{att_eff:.0%} {of_peak} [{att_key}: {where}]")
    rates = Rates(
        gpu=gpu,
        dtype=key,
        peak=peak,
        matmul=matmul,
        # no engine runs its fused attention in FP4: NVFP4 GEMMs beside FP8 (or 16-bit) attention
        attention=min(matmul, gpu.peak_flops.get("fp8", peak) * att_eff if key == "fp4" else peak * att_eff),
        bandwidth=bandwidth,
        notes=tuple(notes),
        matmul_bandwidth=matmul_bandwidth,
        launch=calibration.launch if calibration else None,
    )
    return fitted(rates, calibration)


def default_launch(catalog: Catalog) -> tuple[float, str]:
    """(seconds, its name) a kernel takes to issue when no host was measured: `decode_host_seconds_eager`,
    a kernel issued from Python on gpt-fast's machine, for every kind of kernel alike."""
    return catalog.convention("decode_host_seconds_eager"), "decode_host_seconds_eager"


MEASURED_LAUNCH = "measured: gpuwise bench launch"


def launch_hint(basis: str) -> str:
    """What to say beside a launch figure taken at the default (`basis` from host_launch): how to replace it."""
    if basis == MEASURED_LAUNCH:
        return ""
    return "; hosts differ by 2x and more: measure yours with `gpuwise bench launch`, then --calibrated"


def host_launch(rates: Rates, catalog: Catalog, role: str = "inference") -> tuple[float, str]:
    """(seconds, where the figure comes from) the host takes to issue one kernel from eager PyTorch in
    `role` (inference, forward or backward: LaunchTimes): the GPU model's hosts' measurement (gpuwise bench
    launch) when the calibration has one, else the default."""
    if rates.launch is not None:
        return rates.launch.of(role), MEASURED_LAUNCH
    return default_launch(catalog)


def pytorch_sdpa_rates(rates: Rates, catalog: Catalog) -> Rates:
    """`rates` as PyTorch's scaled_dot_product_attention runs attention in inference under eager PyTorch or
    TorchScript: its flash backend is FlashAttention-2, whose forward was measured on the GPU model (B200,
    B300) or its architecture (Hopper: the FlashAttention-3 paper's 35 %); elsewhere (Ampere, where the
    FlashAttention-2 paper measured it) the GPU's fused-attention rate."""
    g, a = rates.gpu.id, rates.gpu.architecture
    keys = (f"attention_efficiency_fa2_forward_{g}", f"attention_efficiency_fa2_{g}", f"attention_efficiency_fa2_{a}")
    key = _first(catalog.conventions, keys)
    if key is None:
        return rates
    eff = catalog.conventions[key].value
    note = f"{FUSED_ATTENTION_NOTE}{eff:.0%} of peak, PyTorch's scaled_dot_product_attention (FlashAttention-2) [{key}]"
    notes = (*without_fused_attention(list(rates.notes)), note)
    return replace(rates, attention=min(rates.matmul, rates.peak * rates.clock * eff), notes=notes)


def fitted(rates: Rates, calibration: Calibration | None) -> Rates:
    """`rates` with the factors fitted to the team's measured run (compute: matmul and attention;
    memory bandwidth), named in the notes; unchanged without them."""
    if calibration is None or (calibration.compute_factor == 1.0 and calibration.bandwidth_factor == 1.0):
        return rates
    c, b = calibration.compute_factor, calibration.bandwidth_factor
    note = (
        f"{rates.gpu.id} rates x{c:.2f} compute, x{b:.2f} memory bandwidth: fitted so that this model reproduces "
        f"{calibration.fitted_to or 'a measured run'}"
    )
    return replace(
        rates,
        matmul=rates.matmul * c,
        attention=rates.attention * c,
        bandwidth=rates.bandwidth * b,
        matmul_bandwidth=rates.matmul_bandwidth * b if rates.matmul_bandwidth else None,
        notes=(*rates.notes, note),
    )


def tf32_gemm_gain(gpu: GPU, catalog: Catalog) -> float:
    """A GEMM's TF32 tensor-core rate over its measured full-fp32 rate on `gpu`, both at the catalog's efficiencies
    and clocks (a power cap or a calibration scales both alike): what TF32 off costs PyTorch's fp32 matmuls."""
    return compute_rates(gpu, "tf32", catalog).matmul / compute_rates(gpu, "fp32", catalog).matmul


def cudnn_tf32(rates: Rates, catalog: Catalog) -> Rates | None:
    """The rates an fp32 training step in PyTorch may run its convolutions at on an NVIDIA board with TF32 tensor
    cores (torch.backends.cudnn.allow_tf32 defaults to True; its matmuls stay fp32): `rates` (their power cap,
    clock, calibrated bandwidth and launch times) with the GEMM and attention rates moved from the board's fp32
    to its TF32 ones. None: not fp32, no TF32 cores, or not cuDNN (ROCm's MIOpen has no such default)."""
    gpu = rates.gpu
    if rates.dtype != "fp32" or "tf32" not in gpu.peak_flops or gpu.vendor != "nvidia":
        return None
    fp32, tf32 = compute_rates(gpu, "fp32", catalog), compute_rates(gpu, "tf32", catalog)
    return replace(
        rates,
        dtype="tf32",
        peak=tf32.peak,
        matmul=rates.matmul * tf32_gemm_gain(gpu, catalog),
        attention=rates.attention * tf32.attention / fp32.attention,
    )


def power_capped(rates: Rates, watts: float | None, catalog: Catalog) -> Rates:
    """`rates` on a GPU limited to `watts`: compute (matmul, attention, every kernel's FLOP rate) at
    (watts / TDP)^k of its clock, k the catalog's power_cap_clock_exponent (DVFS: dynamic power grows as
    the cube of the clock); memory bandwidth unchanged; `peak` stays the nominal dense peak, so MFU is
    still measured against the datasheet. A cap at or above the TDP changes nothing."""
    if watts is None:
        return rates
    tdp = rates.gpu.tdp_watts
    if watts >= tdp:
        note = f"--power-cap {watts:g} W is at or above the {tdp:g} W TDP of {rates.gpu.id}: no effect"
        return replace(rates, notes=(*rates.notes, note))
    conv = catalog.conventions["power_cap_clock_exponent"]
    clock = (watts / tdp) ** conv.value
    note = (
        f"power cap {watts:g} W of the {tdp:g} W TDP: compute at {clock:.0%} of its clock ((cap/TDP)^{conv.value:.2g}, "
        f"memory bandwidth unchanged) [power_cap_clock_exponent: {catalog.sources[conv.source].title.split(',')[0]}]"
    )
    return replace(
        rates,
        matmul=rates.matmul * clock,
        attention=rates.attention * clock,
        clock=rates.clock * clock,
        notes=(*rates.notes, note),
    )
