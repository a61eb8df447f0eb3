"""Measured rates replace the default efficiencies: matmul FLOP/s per dtype and copy bandwidth of a
GPU model become a `Calibration` that the estimators take in place of the cited conventions."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any, Protocol

from gpuwise.estimate.rates import Calibration, LaunchTimes
from gpuwise.store.results import GPU_BOUND_SHARE, LAUNCH_NAMES


class Row(Protocol):
    """What calibration needs of a stored result (the store's ResultRow)."""

    @property
    def gpu_id(self) -> str | None: ...
    @property
    def benchmark(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> float: ...
    @property
    def params(self) -> dict[str, Any]: ...


def calibrations(rows: Iterable[Row]) -> dict[str, Calibration]:
    """Per catalog GPU id: the median over runs of each dtype's best matmul, of the copy bandwidth and of
    each of the host's times to issue a kernel (a launch run the GPU paced says nothing of the host)."""
    matmul: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    membw: dict[str, list[float]] = defaultdict(list)
    launch: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if not r.gpu_id:
            continue
        if r.benchmark == "matmul" and r.name == "best" and r.params.get("dtype"):
            matmul[r.gpu_id][str(r.params["dtype"])].append(r.value)
        elif r.benchmark == "membw" and r.name == "copy":
            membw[r.gpu_id].append(r.value)
        elif r.benchmark == "launch" and r.name in LAUNCH_NAMES and _host_paced(r):
            launch[r.gpu_id][r.name].append(r.value)
    out = {}
    for gpu in set(matmul) | set(membw) | set(launch):
        flops = {dtype: statistics.median(v) for dtype, v in matmul[gpu].items()}
        bw = statistics.median(membw[gpu]) if membw[gpu] else None
        runs = max([len(v) for v in matmul[gpu].values()] + [len(membw[gpu])])
        out[gpu] = Calibration(
            matmul_flops=flops,
            memory_bandwidth=bw,
            source=f"gpuwise bench, median of {runs} run(s)",
            launch=_launch_times(launch[gpu]),
        )
    return out


def _host_paced(r: Row) -> bool:
    """A launch run the host paced, with a finite positive figure (a shared store's rows are data, not trusted):
    its GPU busy at most GPU_BOUND_SHARE of the time, or no share recorded."""
    share = r.params.get("gpu_busy_share", 0.0)
    busy_ok = isinstance(share, int | float) and not isinstance(share, bool) and 0 <= share <= GPU_BOUND_SHARE
    return busy_ok and math.isfinite(r.value) and r.value > 0


def _launch_times(measured: dict[str, list[float]]) -> LaunchTimes | None:
    """The medians of a GPU model's launch runs, when every figure was measured."""
    if not all(measured.get(name) for name in LAUNCH_NAMES):
        return None
    inference, forward, backward = (statistics.median(measured[name]) for name in LAUNCH_NAMES)
    return LaunchTimes(inference=inference, forward=forward, backward=backward)
