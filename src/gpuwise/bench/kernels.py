"""Kernel-level measurements: matmul FLOP/s per dtype and shape (the best of the sweep is the
maximum achievable matmul rate), device memory copy bandwidth, host<->device copy bandwidth.

Method: random normal inputs (never all zeros, which some hardware multiplies faster), distinct
operands and a preallocated output, warm-up calls, then timed repetitions; medians are reported.
On CUDA every matmul repetition is preceded, outside the timed region, by a write to a buffer
several times the size of the L2 cache, so that operands are read from device memory as they are
in a real model. Timing uses CUDA events there and `time.perf_counter` on the host.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from gpuwise.bench._common import (
    Progress,
    ProgressFn,
    is_cuda,
    on_device,
    reps_for,
    resolve_device,
    synchronize,
    time_calls,
    torch_module,
)
from gpuwise.errors import UsageError
from gpuwise.store.results import Measurement
from gpuwise.units import MiB

MATMUL_DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8")

# (m, n, k): square sweeps plus shapes of LLM layers (tokens x out x in).
_SHAPES_CPU_QUICK = ((128, 128, 128), (256, 256, 256), (384, 384, 384), (512, 512, 512), (512, 128, 512))
_SHAPES_CPU = ((512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (2048, 512, 2048), (2048, 5504, 2048))
_SHAPES_GPU_QUICK = ((1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (4096, 12288, 4096))
_SHAPES_GPU = (
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (16384, 16384, 16384),
    (8192, 12288, 4096),  # fused QKV projection of a 4096-wide model, 8192 tokens
    (8192, 28672, 4096),  # fused gate+up projection (Llama-3-8B MLP)
    (8192, 4096, 14336),  # down projection
    (4096, 8192, 16384),
)


def matmul_dtypes(device: str) -> tuple[str, ...]:
    """The dtypes `matmul` measures on `device` ('cpu' or 'cuda:i', already resolved)."""
    if not is_cuda(device):
        return ("fp32", "bf16")
    torch = torch_module()
    out = ["fp32"]
    ampere = torch.cuda.get_device_capability(device) >= (8, 0) or bool(getattr(torch.version, "hip", None))
    if ampere:  # TF32 tensor cores; before Ampere a 'tf32' run would only repeat fp32
        out.append("tf32")
    out.append("fp16")
    if ampere:  # bf16 in hardware (older GPUs only emulate it)
        out.append("bf16")
    if _fp8_supported(device):
        out.append("fp8")
    return tuple(out)


def _fp8_supported(device: str) -> bool:
    """float8_e4m3fn through `torch._scaled_mm` (compute capability 8.9 or newer), tried for real."""
    torch = torch_module()
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        return False
    if torch.cuda.get_device_capability(device) < (8, 9):
        return False
    try:
        a = torch.randn(16, 32, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(16, 32, device=device).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=device)
        torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16)
        torch.cuda.synchronize(device)
    except (RuntimeError, TypeError):
        return False
    return True


@contextlib.contextmanager
def _fp32_precision(torch: Any, mode: str) -> Iterator[None]:
    """'highest' (IEEE fp32) or 'high' (TF32 tensor cores) for the duration; restored after."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(mode)
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def _l2_flusher(torch: Any, device: str) -> Any:
    """A function that overwrites a buffer 4x the L2 cache (at least 256 MiB): operands leave L2."""
    if not is_cuda(device):
        return None
    l2 = int(getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0)
    buf = torch.empty(max(4 * l2, 256 * MiB), dtype=torch.uint8, device=device)
    return buf.zero_


def _operands(torch: Any, dtype: str, m: int, n: int, k: int, device: str) -> Any:
    """A zero-argument function computing one (m x k) @ (k x n) product in `dtype`."""
    if dtype == "fp8":
        a = torch.randn(m, k, device=device, dtype=torch.bfloat16).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=device, dtype=torch.bfloat16).to(torch.float8_e4m3fn).t()  # column-major
        scale_a = torch.ones((), device=device)
        scale_b = torch.ones((), device=device)

        def run_fp8() -> Any:
            return torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=torch.bfloat16)

        return run_fp8
    torch_dtype = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
    a = torch.randn(m, k, device=device, dtype=torch_dtype)
    b = torch.randn(k, n, device=device, dtype=torch_dtype)
    c = torch.empty(m, n, device=device, dtype=torch_dtype)

    def run() -> Any:
        return torch.mm(a, b, out=c)

    return run


def _fits(torch: Any, device: str, dtype: str, m: int, n: int, k: int) -> bool:
    if not is_cuda(device):
        return True
    size = 1 if dtype == "fp8" else 2 if dtype in ("fp16", "bf16") else 4
    out = 2 if dtype == "fp8" else size
    need = (m * k + k * n) * size + m * n * out + (256 * MiB)
    free, _total = torch.cuda.mem_get_info(device)
    return need < 0.85 * free


def matmul(
    device: str = "cpu",
    quick: bool = False,
    progress: ProgressFn | None = None,
    dtypes: Sequence[str] | None = None,
) -> list[Measurement]:
    """Matmul FLOP/s (2*M*N*K / seconds) per dtype and shape, and the best shape per dtype.

    One Measurement 'shape' per (dtype, shape), params {dtype, m, n, k}, samples the FLOP/s of each
    repetition; one 'best' per dtype, the maximum over its shapes (the maximum achievable matmul
    rate), params {dtype, m, n, k} of that shape, samples the median of every shape.
    `dtypes` defaults to all the device supports: cpu fp32, bf16; cuda fp32, tf32, fp16, bf16 and
    fp8 (e4m3, `torch._scaled_mm`, bf16 output) on compute capability 8.9+.
    """
    torch = torch_module()
    device = resolve_device(device)
    supported = matmul_dtypes(device)
    if dtypes is None:
        chosen = list(supported)
    else:
        chosen = list(dict.fromkeys(dtypes))
        for d in chosen:
            if d not in MATMUL_DTYPES:
                raise UsageError(f"matmul dtype must be one of {', '.join(MATMUL_DTYPES)}; got {d!r}")
            if d not in supported:
                raise UsageError(f"{d} matmul is not supported on {device} (supported: {', '.join(supported)})")
    gpu = is_cuda(device)
    shapes = (_SHAPES_GPU_QUICK if quick else _SHAPES_GPU) if gpu else (_SHAPES_CPU_QUICK if quick else _SHAPES_CPU)
    budget = 0.1 if quick else 1.0  # seconds of timed repetitions per shape
    bar = Progress(progress, "matmul", len(chosen) * len(shapes))
    out: list[Measurement] = []
    with on_device(device):
        flush = _l2_flusher(torch, device)
        for dtype in chosen:
            per_shape: list[Measurement] = []
            with _fp32_precision(torch, "high" if dtype == "tf32" else "highest"):
                for m, n, k in shapes:
                    if not _fits(torch, device, dtype, m, n, k):
                        bar.advance()
                        continue
                    run = _operands(torch, dtype, m, n, k, device)
                    once = time_calls(run, device, warmup=2 if quick else 5, reps=1, before=flush)[0]
                    reps = reps_for(once, budget, 5, 50 if quick else 100)
                    times = time_calls(run, device, warmup=0, reps=reps, before=flush)
                    flops = 2.0 * m * n * k
                    rates = [flops / t for t in times]
                    per_shape.append(
                        Measurement.median_of("matmul", "shape", rates, "FLOP/s", dtype=dtype, m=m, n=n, k=k)
                    )
                    del run
                    bar.advance()
            out.extend(per_shape)
            if per_shape:
                top = max(per_shape, key=lambda r: r.value)
                params = {key: top.params[key] for key in ("dtype", "m", "n", "k")}
                out.append(
                    Measurement("matmul", "best", top.value, "FLOP/s", params, tuple(r.value for r in per_shape))
                )
        del flush
    if gpu:
        torch.cuda.empty_cache()
    bar.finish()
    return out


def membw(device: str = "cpu", quick: bool = False, progress: ProgressFn | None = None) -> list[Measurement]:
    """Device memory bandwidth: 'copy', a large `dst.copy_(src)` (bytes read + written per second),
    and 'read', a sum over the same buffer (bytes read per second: what a decode step's weight
    stream does; a copy measures less, e.g. a V100 copies at 0.88-0.92 of its datasheet and reads at
    0.99, docs/memory-bandwidth-evidence.md). Params {bytes: size of one buffer}. Buffers are far
    larger than the caches (GPU: 1 GiB, quick 256 MiB; host: 256 MiB, quick 64 MiB).
    """
    torch = torch_module()
    device = resolve_device(device)
    gpu = is_cuda(device)
    nbytes = (256 if quick else 1024) * MiB if gpu else (64 if quick else 256) * MiB
    if gpu:
        free, _ = torch.cuda.mem_get_info(device)
        while 2 * nbytes > 0.8 * free and nbytes > 16 * MiB:
            nbytes //= 2
    bar = Progress(progress, "membw", 2)
    out = []
    with on_device(device):
        src = torch.rand(nbytes // 4, device=device)
        dst = torch.empty_like(src)
        for name, call, moved in (("copy", lambda: dst.copy_(src), 2.0), ("read", lambda: src.sum(), 1.0)):
            once = time_calls(call, device, warmup=2, reps=1)[0]
            reps = reps_for(once, 0.2 if quick else 1.0, 7, 30 if quick else 100)
            times = time_calls(call, device, warmup=1, reps=reps)
            out.append(
                Measurement.median_of("membw", name, [moved * nbytes / t for t in times], "bytes/s", bytes=nbytes)
            )
            bar.advance()
    bar.finish()
    return out


def h2d(device: str = "cpu", quick: bool = False, progress: ProgressFn | None = None) -> list[Measurement]:
    """Host<->device copy bandwidth (bytes moved per second, one direction at a time).

    On CUDA: 'h2d-pinned', 'h2d-pageable', 'd2h-pinned', 'd2h-pageable' (pinned copies are
    asynchronous from page-locked memory, pageable ones from ordinary host memory), params
    {bytes, direction, pinned}. On a CPU device there is no device: one 'h2d-pageable-cpu', a host
    memcpy between two CPU tensors, so that the benchmark runs anywhere; its params say so
    (device_involved False).
    """
    torch = torch_module()
    device = resolve_device(device)
    nbytes = (64 if quick else 256) * MiB
    if not is_cuda(device):
        bar = Progress(progress, "h2d", 1)
        src = torch.randint(0, 256, (nbytes,), dtype=torch.uint8)
        dst = torch.empty_like(src)
        once = time_calls(lambda: dst.copy_(src), device, warmup=2, reps=1)[0]
        times = time_calls(lambda: dst.copy_(src), device, warmup=0, reps=reps_for(once, 0.2 if quick else 1.0, 7, 50))
        bar.finish()
        return [
            Measurement.median_of(
                "h2d",
                "h2d-pageable-cpu",
                [nbytes / t for t in times],
                "bytes/s",
                bytes=nbytes,
                direction="host-to-host",
                pinned=False,
                device_involved=False,
                note="no GPU: a host memcpy between two CPU tensors, not a host-to-device transfer",
            )
        ]
    cases = (("h2d", True), ("h2d", False), ("d2h", True), ("d2h", False))
    bar = Progress(progress, "h2d", len(cases))
    out = []
    with on_device(device):
        pinned = torch.randint(0, 256, (nbytes,), dtype=torch.uint8).pin_memory()
        pageable = torch.randint(0, 256, (nbytes,), dtype=torch.uint8)
        dev = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device=device)
        for direction, is_pinned in cases:
            host = pinned if is_pinned else pageable
            if direction == "h2d":

                def copy(host: Any = host, is_pinned: bool = is_pinned) -> Any:
                    return dev.copy_(host, non_blocking=is_pinned)
            else:

                def copy(host: Any = host, is_pinned: bool = is_pinned) -> Any:
                    return host.copy_(dev, non_blocking=is_pinned)

            once = time_calls(copy, device, warmup=2, reps=1)[0]
            times = time_calls(copy, device, warmup=0, reps=reps_for(once, 0.3 if quick else 1.0, 5, 50))
            synchronize(device)
            name = f"{direction}-{'pinned' if is_pinned else 'pageable'}"
            out.append(
                Measurement.median_of(
                    "h2d",
                    name,
                    [nbytes / t for t in times],
                    "bytes/s",
                    bytes=nbytes,
                    direction=direction,
                    pinned=is_pinned,
                    device_involved=True,
                )
            )
            bar.advance()
    bar.finish()
    return out
