"""The host's time per kernel: how long eager PyTorch takes to issue one GPU kernel from module code.

Why: without CUDA graphs or torch.compile, a small model's forward pass (a decode step under
`--engine transformers`, a small fine-tune) is as slow as its host issues kernels, not as fast as
its GPU runs them. gpuwise's default (`decode_host_seconds_eager`, 23 us) is one machine's, and
published hosts range from about 10 to 45 us (docs/time-model.md); `gpuwise estimate --calibrated`
uses the figures measured on the GPU model's hosts in its place.

Method: the decoder stand-in of a catalog model (the training step benchmark's, shrunk to hidden
256 and one token so that each kernel's GPU time stays below its launch) runs, in bf16 (fp16 before
Ampere, fp32 on the host), forward passes without gradients (a generate loop's:
`inference_seconds_per_kernel`), then training passes: the gradients dropped (`zero_grad(set_to_none=
True)`, as an optimizer step leaves them), a forward that records the autograd graph
(`training_forward_seconds_per_kernel`) and the backward, whose kernels the autograd engine issues from
its own thread (`backward_seconds_per_kernel`). torch.profiler counts the kernels of each part (CUDA
kernels, copies and fills; on the host, the outermost ATen operators); the parts are then timed
without the profiler, `time.perf_counter` around each with one device synchronization at the end of
every round, and the seconds a kernel are a round's time over its kernels. The GPU's own busy share
of the rounds (kernel time over wall time, from the profiler) is kept: above GPU_BOUND_SHARE the GPU,
not the host, set the pace, and the run calibrates nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from gpuwise.bench._common import Progress, ProgressFn, is_cuda, on_device, resolve_device, synchronize, torch_module
from gpuwise.bench.step import stand_in_classes, transformer_dims
from gpuwise.errors import UsageError
from gpuwise.store.results import LAUNCH_NAMES, Measurement


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """The profiler's native library logs each start and stop on file descriptor 2: hidden while it runs."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real descriptor 2 (an embedding host): nothing to hide
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _count(torch: Any, device: str, run: Callable[[], Any]) -> tuple[int, float]:
    """(kernels `run` launches, seconds of GPU time they take) from one profiled call; on the host the
    top-level operators it dispatches and 0 GPU seconds."""
    prof_mod = torch.profiler
    activities = [prof_mod.ProfilerActivity.CPU]
    if is_cuda(device):
        activities.append(prof_mod.ProfilerActivity.CUDA)
    with _quiet_stderr(), prof_mod.profile(activities=activities) as prof:
        run()
        synchronize(device)
    events = list(prof.events())
    if not is_cuda(device):
        return sum(1 for e in events if _outermost_operator(e)), 0.0
    gpu = [e for e in events if str(getattr(e, "device_type", "")).endswith("CUDA")]
    busy = sum(e.time_range.elapsed_us() for e in gpu) * 1e-6
    return len(gpu), busy


def _outermost_operator(event: Any) -> bool:
    """An ATen operator no other operator called: one dispatch from Python or from an autograd node."""
    if not event.name.startswith("aten::"):
        return False
    parent = event.cpu_parent
    while parent is not None:
        if parent.name.startswith("aten::"):
            return False
        parent = parent.cpu_parent
    return True


def _stand_in(torch: Any, device: str, model: str, layers: int) -> tuple[Any, Any, Any, dict[str, Any]]:
    """(network, one-token input, its target, params): the model's decoder stand-in at hidden <= 256."""
    d, _ = transformer_dims(model, quick=True, layers=layers)
    if d["layers"] < layers:
        d["layers"] = layers  # a small model still gets enough blocks to count
    with torch.device(device):
        net = stand_in_classes()["Transformer"](d)
    dtype = torch.float32
    if is_cuda(device):
        bf16 = torch.cuda.get_device_capability(device) >= (8, 0) or bool(getattr(torch.version, "hip", None))
        dtype = torch.bfloat16 if bf16 else torch.float16
    net = net.to(dtype)
    tokens = torch.zeros((1, 1), dtype=torch.long, device=device)
    params = {
        "model": model, "hidden": d["hidden"], "layers": d["layers"], "tokens": 1, "stand_in": True,
        "dtype": {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(dtype, "fp32"), "device": device.split(":")[0],
    }  # fmt: skip
    return net, tokens, tokens.clone(), params


def _rounds(
    torch: Any, device: str, parts: dict[str, Callable[[], Any]], passes: int, rounds: int, bar: Progress
) -> dict[str, list[float]]:
    """Per part: the seconds of each round of `passes` calls, the parts called in turn in every pass."""
    out: dict[str, list[float]] = {k: [] for k in parts}
    for _ in range(rounds):
        spent = dict.fromkeys(parts, 0.0)
        for _ in range(passes):
            for name, call in parts.items():
                t0 = time.perf_counter()
                call()
                spent[name] += time.perf_counter() - t0
        t0 = time.perf_counter()
        synchronize(device)
        last = list(parts)[-1]
        spent[last] += time.perf_counter() - t0  # the queue's tail belongs to the last part issued
        for name, s in spent.items():
            out[name].append(s)
        bar.advance()
    return out


def launch(
    device: str = "cpu",
    quick: bool = False,
    progress: ProgressFn | None = None,
    model: str = "llama-3.1-8b",
    layers: int = 4,
) -> list[Measurement]:
    """Median seconds a kernel takes to issue in each of LAUNCH_NAMES' parts, each with its kernel count
    and the GPU's busy share. UsageError when the profiler sees no kernel (no CUPTI on a GPU host)."""
    torch = torch_module()
    device = resolve_device(device)
    if int(layers) < 1:
        raise UsageError(f"layers must be at least 1; got {layers}")
    passes, rounds, warmup = (10, 3, 3) if quick else (50, 7, 10)
    with on_device(device):
        net, tokens, target, params = _stand_in(torch, device, model, int(layers))
        loss_box: list[Any] = []

        def inference() -> None:
            with torch.no_grad():
                net(tokens, target)

        def forward() -> None:
            net.zero_grad(set_to_none=True)  # as after an optimizer step: no gradient to accumulate into
            loss_box.append(net(tokens, target))

        def backward() -> None:
            loss_box.pop().backward()

        parts = {LAUNCH_NAMES[0]: inference, LAUNCH_NAMES[1]: forward, LAUNCH_NAMES[2]: backward}
        for _ in range(warmup):  # allocator, cuBLAS handles, autograd's first graph
            for call in parts.values():
                call()
        counted = {}
        for name, call in parts.items():
            synchronize(device)  # the kernels before this part are not its own
            counted[name] = _count(torch, device, call)
        if any(kernels < 1 for kernels, _ in counted.values()):
            raise UsageError(
                f"the profiler saw no kernels on {device} (on a GPU it needs CUPTI, the CUDA profiling library "
                "that ships with the CUDA toolkit): cannot time a launch"
            )
        bar = Progress(progress, "launch", 2 * rounds)
        seconds = _rounds(torch, device, {LAUNCH_NAMES[0]: inference}, passes, rounds, bar)
        seconds |= _rounds(torch, device, {k: parts[k] for k in LAUNCH_NAMES[1:]}, passes, rounds, bar)
    out = []
    for name in LAUNCH_NAMES:
        kernels, busy = counted[name]
        per = [s / (passes * kernels) for s in seconds[name]]
        share = min(1.0, busy * passes / min(seconds[name])) if busy else 0.0
        extra = {"kernels_per_pass": kernels, "passes": passes, "gpu_busy_share": round(share, 3)}
        out.append(Measurement.median_of("launch", name, per, "seconds", **params, **extra))
    return out
