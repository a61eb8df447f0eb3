"""All-reduce bus bandwidth with torch.distributed (NCCL on GPUs, gloo on the host).

Conventions are those of nccl-tests (its PERFORMANCE.md): for a message of S bytes taking t
seconds, the algorithm bandwidth is algbw = S / t, and the bus bandwidth, comparable with the
hardware's link speed whatever the number of ranks n, is busbw = algbw * 2(n-1)/n for all-reduce
and algbw * (n-1)/n for all-gather and reduce-scatter.

Run outside a launcher, `allreduce` starts `world_size` local processes itself (spawn, rendezvous
on 127.0.0.1 and a free port) and returns what rank 0 measured; under torchrun (RANK and
WORLD_SIZE set) every rank calls it and rank 0 returns the measurements, the others [].
As with any spawn, a calling script needs the `if __name__ == "__main__":` guard.
"""

from __future__ import annotations

import datetime as dt
import inspect
import os
import queue as queue_mod
import socket
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from gpuwise.bench._common import Progress, ProgressFn, is_cuda, resolve_device, torch_module
from gpuwise.errors import UsageError
from gpuwise.store.results import Measurement
from gpuwise.units import GiB, KiB, MiB

_BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}


def bus_bandwidth(bytes_: float, seconds: float, ranks: int, collective: str = "all_reduce") -> float:
    """nccl-tests bus bandwidth in bytes/s: (bytes_ / seconds) * factor(ranks).

    factor is 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and all_to_all,
    1 for broadcast and reduce.
    """
    if collective not in _BUS_FACTOR:
        raise UsageError(f"collective must be one of {', '.join(_BUS_FACTOR)}; got {collective!r}")
    if bytes_ < 0 or not seconds > 0 or int(ranks) < 1:
        raise UsageError(f"need bytes >= 0, seconds > 0 and ranks >= 1; got {bytes_}, {seconds}, {ranks}")
    return (bytes_ / seconds) * _BUS_FACTOR[collective](int(ranks))


def default_sizes(quick: bool) -> list[int]:
    """1 KiB to 4 MiB by x4 (quick), or 1 KiB to 1 GiB by x2."""
    top, step = (4 * MiB, 4) if quick else (GiB, 2)
    sizes, s = [], KiB
    while s <= top:
        sizes.append(s)
        s *= step
    return sizes


def _under_launcher() -> bool:
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def allreduce(
    device: str = "cpu",
    quick: bool = False,
    progress: ProgressFn | None = None,
    world_size: int = 2,
    sizes: Sequence[int] | None = None,
) -> list[Measurement]:
    """All-reduce (sum, fp32) bus bandwidth per message size: one Measurement 'busbw' per size,
    params {bytes, ranks, algbw, backend, dtype, seconds, iters}; samples are the busbw of each
    repetition. A repetition's time is the slowest rank's (the collective ends when all do).
    """
    torch = torch_module()
    if not torch.distributed.is_available():
        raise UsageError(f"this PyTorch build ({torch.__version__}) has no torch.distributed")
    device = resolve_device(device)
    chosen = _check_sizes(sizes if sizes is not None else default_sizes(quick))
    if _under_launcher() or torch.distributed.is_initialized():
        return _launched(device, quick, chosen, progress)
    world_size = int(world_size)
    if world_size < 1:
        raise UsageError(f"world_size must be at least 1; got {world_size}")
    if is_cuda(device):
        first, count = int(device.split(":")[1]), torch.cuda.device_count()
        if first + world_size > count:
            raise UsageError(
                f"world_size {world_size} from {device} needs GPUs {first}..{first + world_size - 1}; "
                f"this host has {count} (run it under torchrun across hosts, or lower world_size)"
            )
    return _spawned_on_a_free_port(device, quick, chosen, progress, world_size)


# a port found free by binding it can be taken by another process before rank 0 listens on it (EADDRINUSE):
# the ranks are started again on a new port, this many times in all, before the error stands
PORT_ATTEMPTS = 3


def _spawned_on_a_free_port(
    device: str, quick: bool, sizes: list[int], progress: ProgressFn | None, world_size: int
) -> list[Measurement]:
    """`_spawned`, started again on a new port when rank 0 finds its port taken."""
    raised = getattr(torch_module().multiprocessing, "ProcessRaisedException", RuntimeError)
    attempt = 1
    while True:
        try:
            return _spawned(device, quick, sizes, progress, world_size)
        except raised as exc:
            if "EADDRINUSE" not in str(exc) or attempt >= PORT_ATTEMPTS:
                raise
            attempt += 1


def _check_sizes(sizes: Sequence[int]) -> list[int]:
    out = []
    for s in sizes:
        if int(s) < 4:
            raise UsageError(f"message sizes must be at least 4 bytes (one fp32); got {s}")
        out.append(int(s) // 4 * 4)
    if not out:
        raise UsageError("no message sizes given")
    return out


def _launched(device: str, quick: bool, sizes: list[int], progress: ProgressFn | None) -> list[Measurement]:
    """Under torchrun (or an existing process group): this process is one rank."""
    dist = torch_module().distributed
    created = False
    if is_cuda(device):
        device = f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}"
    if not dist.is_initialized():
        backend = "nccl" if is_cuda(device) else "gloo"
        dist.init_process_group(backend, timeout=dt.timedelta(seconds=300), **_device_id(device))
        created = True
    try:
        rank = dist.get_rank()
        out = _measure(device, quick, sizes, progress if rank == 0 else None)
        return out if rank == 0 else []
    finally:
        if created:
            dist.destroy_process_group()


def _device_id(device: str) -> dict[str, Any]:
    """Bind this rank to its GPU (and tell init_process_group, where it takes `device_id`)."""
    if not is_cuda(device):
        return {}
    torch = torch_module()
    torch.cuda.set_device(device)
    if "device_id" in inspect.signature(torch.distributed.init_process_group).parameters:
        return {"device_id": torch.device(device)}
    return {}


def _spawned(
    device: str, quick: bool, sizes: list[int], progress: ProgressFn | None, world_size: int
) -> list[Measurement]:
    """Start `world_size` local ranks (spawn) and collect rank 0's measurements."""
    torch = torch_module()
    mp = torch.multiprocessing
    ctx = mp.get_context("spawn")
    messages = ctx.Queue()
    port = _free_port()
    device_type = "cuda" if is_cuda(device) else "cpu"
    first_gpu = int(device.split(":")[1]) if is_cuda(device) else 0
    procs = mp.start_processes(
        _worker,
        args=(world_size, port, device_type, first_gpu, sizes, quick, messages),
        nprocs=world_size,
        join=False,
        start_method="spawn",
    )
    deadline = time.monotonic() + (120 if quick else 3600)
    result: list[Measurement] | None = None

    def drain(block: float) -> None:
        nonlocal result
        try:
            while True:
                msg = messages.get(timeout=block)
                if msg[0] == "progress" and progress is not None:
                    progress(msg[1], msg[2], msg[3])
                elif msg[0] == "result":
                    result = msg[1]
                block = 0.0
        except queue_mod.Empty:
            pass

    try:
        while not procs.join(timeout=0.05):
            drain(0.05)
            if time.monotonic() > deadline:
                raise TimeoutError(f"all-reduce benchmark did not finish in time ({world_size} ranks)")
        drain(0.2)
    finally:
        for p in procs.processes:
            if p.is_alive():
                p.terminate()
        for p in procs.processes:
            p.join(timeout=5)
        messages.close()
        messages.join_thread()
    if result is None:
        raise RuntimeError("all-reduce benchmark: rank 0 returned no measurements")
    return result


def _worker(
    rank: int,
    world_size: int,
    port: int,
    device_type: str,
    first_gpu: int,
    sizes: list[int],
    quick: bool,
    messages: Any,
) -> None:
    """One spawned rank: join the group, measure, send rank 0's results to the parent."""
    torch = torch_module()
    dist = torch.distributed
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RANK=str(rank),
        WORLD_SIZE=str(world_size),
        LOCAL_RANK=str(rank),
        LOCAL_WORLD_SIZE=str(world_size),
    )
    if device_type == "cpu":
        # the ranks share this host's cores: one compute thread each
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world_size))
        if sys.platform.startswith("linux"):
            os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        device, backend = "cpu", "gloo"
    else:
        device, backend = f"cuda:{first_gpu + rank}", "nccl"
    dist.init_process_group(
        backend,
        rank=rank,
        world_size=world_size,
        timeout=dt.timedelta(seconds=120 if quick else 600),
        **_device_id(device),
    )
    try:

        def report(label: str, done: int, total: int) -> None:
            messages.put(("progress", label, done, total))

        out = _measure(device, quick, sizes, report if rank == 0 else None)
        if rank == 0:
            messages.put(("result", out))
    finally:
        dist.destroy_process_group()
    messages.close()
    messages.join_thread()


def _timed(torch: Any, device: str, fn: Callable[[], None], iters: int) -> float:
    """Seconds per call of `iters` back-to-back calls: CUDA events on a GPU, the host clock otherwise."""
    if is_cuda(device):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        torch.cuda.synchronize(device)
        return float(start.elapsed_time(end)) / 1e3 / iters
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t0) / iters


def _sync(torch: Any, device: str) -> None:
    if is_cuda(device):
        torch.cuda.synchronize(device)


def _slowest(torch: Any, device: str, values: list[float]) -> list[float]:
    """Element-wise maximum over the ranks (every rank calls it; all get the result)."""
    dist = torch.distributed
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return [float(x) for x in t.tolist()]


def _time_size(torch: Any, device: str, size: int, quick: bool) -> tuple[list[float], int]:
    """(the slowest rank's seconds per all-reduce of `size` bytes, one value a repetition; calls per repetition)."""
    dist = torch.distributed
    warmup, reps = (2, 5) if quick else (5, 20)
    target = 0.002 if quick else 0.02  # seconds per timed repetition: small messages are batched
    buf = torch.empty(size // 4, dtype=torch.float32, device=device).uniform_()

    def op() -> None:
        dist.all_reduce(buf)

    dist.barrier()
    for _ in range(warmup):
        op()
    _sync(torch, device)
    # how many back-to-back operations make one repetition: agreed by all ranks (the slowest)
    probe = _slowest(torch, device, [_timed(torch, device, op, 1)])[0]
    iters = max(1, min(16, int(target / max(probe, 1e-9))))
    times = []
    for _ in range(reps):
        buf.uniform_()  # fresh values: repeated sums must not grow to inf
        _sync(torch, device)
        times.append(_timed(torch, device, op, iters))
    return _slowest(torch, device, times), iters


def _busbw(size: int, per_rep: list[float], ranks: int, backend: str, iters: int) -> Measurement:
    """The median repetition's bus bandwidth, every repetition's as samples (nccl-tests conventions)."""
    t = statistics.median(per_rep)
    params = {
        "bytes": size, "ranks": ranks, "algbw": size / t, "backend": backend, "dtype": "fp32", "seconds": t,
        "iters": iters,
    }  # fmt: skip
    samples = tuple(bus_bandwidth(size, x, ranks) for x in per_rep)
    return Measurement("allreduce", "busbw", bus_bandwidth(size, t, ranks), "bytes/s", params, samples)


def _measure(device: str, quick: bool, sizes: list[int], progress: ProgressFn | None) -> list[Measurement]:
    """Every rank runs this; rank 0 gets the measurements (the slowest rank's time per repetition)."""
    torch = torch_module()
    dist = torch.distributed
    n, rank, backend = dist.get_world_size(), dist.get_rank(), str(dist.get_backend())
    bar = Progress(progress, "allreduce", len(sizes))
    first = torch.ones(256, device=device)
    for _ in range(3 * (2 if quick else 5)):  # connections, buffers and (NCCL) communicators set up first
        dist.all_reduce(first)
    del first
    out: list[Measurement] = []
    for size in sizes:
        per_rep, iters = _time_size(torch, device, size, quick)
        if rank == 0:
            out.append(_busbw(size, per_rep, n, backend, iters))
        bar.advance()
    return out
