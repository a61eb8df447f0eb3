"""Plumbing shared by the benchmarks: torch imported on demand, device names checked, operations
timed (CUDA events on a GPU, `time.perf_counter` on the host), progress reported.

Nothing here imports torch at module level: `import gpuwise.bench.<module>` works without it.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from gpuwise.errors import UsageError

ProgressFn = Callable[[str, int, int], None]

_DEVICE = re.compile(r"cuda(?::(\d+))?")


def torch_module() -> Any:
    """`import torch`, or a UsageError saying how to install it."""
    try:
        import torch
    except ImportError:
        raise UsageError("benchmarks need PyTorch: pip install 'gpuwise[bench]'") from None
    return torch


def resolve_device(device: str) -> str:
    """'cpu', or 'cuda:<i>' for 'cuda'/'cuda:i' when that GPU exists (UsageError otherwise)."""
    torch = torch_module()
    name = (device or "").strip().lower()
    if name == "cpu":
        return "cpu"
    match = _DEVICE.fullmatch(name)
    if not match:
        raise UsageError(f"device must be 'cpu' or 'cuda[:i]'; got {device!r}")
    if not torch.cuda.is_available():
        raise UsageError(f"device {device!r}: CUDA is not available here (torch {torch.__version__}); use 'cpu'")
    index = int(match.group(1)) if match.group(1) is not None else torch.cuda.current_device()
    count = torch.cuda.device_count()
    if index >= count:
        raise UsageError(f"device {device!r}: this host has {count} CUDA device(s)")
    return f"cuda:{index}"


def is_cuda(device: str) -> bool:
    return device.startswith("cuda")


def synchronize(device: str) -> None:
    if is_cuda(device):
        torch_module().cuda.synchronize(device)


@contextlib.contextmanager
def on_device(device: str) -> Iterator[None]:
    """Make `device` the current CUDA device (events and streams belong to it); no-op on CPU."""
    if is_cuda(device):
        with torch_module().cuda.device(device):
            yield
    else:
        yield


class Progress:
    """Calls `progress(label, done, total)` when one was given; counts the steps itself."""

    def __init__(self, progress: ProgressFn | None, label: str, total: int) -> None:
        self.fn, self.label, self.total, self.done = progress, label, max(int(total), 0), 0
        self._emit()

    def _emit(self) -> None:
        if self.fn is not None:
            self.fn(self.label, self.done, self.total)

    def advance(self, steps: int = 1) -> None:
        self.done = min(self.done + steps, self.total)
        self._emit()

    def finish(self) -> None:
        if self.done != self.total:
            self.done = self.total
            self._emit()


def time_calls(
    fn: Callable[[], Any],
    device: str,
    *,
    warmup: int,
    reps: int,
    before: Callable[[], Any] | None = None,
) -> list[float]:
    """Seconds taken by each of `reps` calls of `fn`, after `warmup` untimed calls.

    `before` (e.g. an L2 cache flush) runs ahead of every call, outside the timed region. On CUDA
    each call sits between two `torch.cuda.Event`s on the current stream and the device is
    synchronized before the events are read; on the host `time.perf_counter` brackets the call.
    """
    torch = torch_module()
    for _ in range(warmup):
        if before is not None:
            before()
        fn()
    synchronize(device)
    if is_cuda(device):
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for start, end in zip(starts, ends, strict=True):
            if before is not None:
                before()
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize(device)
        return [start.elapsed_time(end) / 1e3 for start, end in zip(starts, ends, strict=True)]
    times = []
    for _ in range(reps):
        if before is not None:
            before()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def reps_for(seconds_per_call: float, budget_s: float, lo: int, hi: int) -> int:
    """How many timed repetitions fit in `budget_s`, clamped to [lo, hi]."""
    if seconds_per_call <= 0:
        return hi
    return max(lo, min(hi, int(budget_s / seconds_per_call)))


def check_positive(**values: float | None) -> None:
    for name, value in values.items():
        if value is not None and not value > 0:
            raise UsageError(f"{name} must be positive; got {value!r}")
