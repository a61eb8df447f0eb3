"""The benchmarks by name, and one call that runs a selection and records the host."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from gpuwise.bench._common import ProgressFn, resolve_device, torch_module
from gpuwise.bench.collective import _under_launcher, allreduce
from gpuwise.bench.host import host_facts
from gpuwise.bench.io import io
from gpuwise.bench.kernels import h2d, matmul, membw
from gpuwise.bench.latency import latency
from gpuwise.bench.launch import launch
from gpuwise.bench.step import step
from gpuwise.errors import UsageError, suggest
from gpuwise.store.results import HostFacts, Measurement

BENCHES: dict[str, Callable[..., list[Measurement]]] = {
    "matmul": matmul,
    "membw": membw,
    "h2d": h2d,
    "allreduce": allreduce,
    "io": io,
    "step": step,
    "latency": latency,
    "launch": launch,
}
_COMMON = ("device", "quick", "progress")
# benchmarks that `all` leaves out, keeping the others, where the host cannot run them (a usage error when named)
_SKIPPABLE_UNDER_ALL = frozenset({"launch"})


def options_of(name: str) -> tuple[str, ...]:
    """The keyword options benchmark `name` takes besides device, quick and progress."""
    params = inspect.signature(BENCHES[name]).parameters
    return tuple(p for p in params if p not in _COMMON)


def expand(names: Iterable[str]) -> list[str]:
    """Benchmark names in BENCHES order, 'all' meaning every one; UsageError for unknown names."""
    wanted: set[str] = set()
    for raw in [names] if isinstance(names, str) else names:
        name = raw.strip().lower()
        if name == "all":
            wanted.update(BENCHES)
        elif name in BENCHES:
            wanted.add(name)
        else:
            hint = suggest(name, BENCHES)
            more = f"; did you mean {' or '.join(repr(s) for s in hint)}?" if hint else ""
            raise UsageError(f"unknown benchmark {raw!r}{more} (known: all, {', '.join(BENCHES)})")
    if not wanted:
        raise UsageError(f"no benchmark named (known: all, {', '.join(BENCHES)})")
    return [n for n in BENCHES if n in wanted]


def _enough_gpus(device: str, options: dict[str, Any]) -> bool:
    if not device.strip().lower().startswith("cuda") or _under_launcher():
        return True
    first = int(resolve_device(device).split(":")[1])
    return first + int(options.get("world_size", 2)) <= torch_module().cuda.device_count()


def run(
    names: Iterable[str],
    device: str = "cpu",
    quick: bool = False,
    progress: ProgressFn | None = None,
    **options: Any,
) -> tuple[HostFacts, list[Measurement]]:
    """Run the named benchmarks ('all' for every one) in BENCHES order.

    `options` go to the benchmarks that take them: `dtypes=` to matmul, `path=` to io, ... An
    option named after a benchmark with a dict value goes to that benchmark only, e.g.
    `step={"model": "mlp"}, latency={"rate": 20}` (two benchmarks both taking `model`). An option
    that no selected benchmark takes is a UsageError. With 'all' on a host with fewer GPUs than the
    all-reduce needs (2 by default), the all-reduce is left out; named explicitly, it is an error.
    """
    names = [names] if isinstance(names, str) else list(names)
    selected = expand(names)
    per_bench: dict[str, dict[str, Any]] = {n: {} for n in selected}
    for key, value in options.items():
        if key in BENCHES:
            if not isinstance(value, dict):
                raise UsageError(f"option {key!r} names a benchmark: give it a dict of that benchmark's options")
            if key not in per_bench:
                continue
            unknown = set(value) - set(options_of(key))
            if unknown:
                raise UsageError(f"{key} takes no option(s) {sorted(unknown)}; it takes {list(options_of(key))}")
            per_bench[key].update(value)
            continue
        takers = [n for n in selected if key in options_of(n)]
        if not takers:
            raise UsageError(f"no selected benchmark takes option {key!r}")
        for n in takers:
            per_bench[n].setdefault(key, value)
    facts = host_facts(device)
    explicit = {n.strip().lower() for n in names}
    out: list[Measurement] = []
    for name in selected:
        if name == "allreduce" and name not in explicit and not _enough_gpus(device, per_bench[name]):
            continue  # 'all' on a host with one GPU: an all-reduce needs two ranks
        try:
            out.extend(BENCHES[name](device=device, quick=quick, progress=progress, **per_bench[name]))
        except UsageError:
            if name not in _SKIPPABLE_UNDER_ALL or name in explicit:
                raise
            # 'all' on a host that cannot run it (launch: a profiler without CUPTI): the other results still count
    return facts, out
