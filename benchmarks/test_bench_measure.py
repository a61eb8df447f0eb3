"""Timing comparisons of the measurement benchmarks on this host (`pytest -n 0 benchmarks
--benchmark-enable`): how repeatable a quick run is, and whether the medians of a step's parts add
up to the median total. They compare seconds with seconds, so they live here, apart from the
unit tests (tests/test_bench.py checks only what holds however loaded the machine is).

They run on one torch thread: with a thread per core, another process on a 2-core machine stalls
every parallel region while it holds a core (seen here: the same quick fp32 matmul at 1.5e8 and
1.5e11 FLOP/s in two runs under a load of 4; on one thread, three runs within 5 %)."""

import pytest

from gpuwise.bench.kernels import matmul, membw  # these import torch lazily
from gpuwise.bench.step import step

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _within_10x(a: float, b: float) -> None:
    assert 0.1 < a / b < 10, (a, b)


def _by_case(ms):
    """Measurements by name and inputs ('best' by dtype alone: its shape may differ between runs)."""
    return {(m.name, m.params["dtype"] if m.name == "best" else tuple(sorted(m.params.items()))): m for m in ms}


def test_quick_matmul_is_repeatable_within_10x(benchmark):
    first, second = benchmark.pedantic(lambda: (matmul("cpu", True, None), matmul("cpu", True, None)), rounds=1)
    a, b = _by_case(first), _by_case(second)
    assert a.keys() == b.keys()
    for case, m in a.items():
        _within_10x(m.value, b[case].value)


def test_quick_membw_is_repeatable_within_10x(benchmark):
    first, second = benchmark.pedantic(lambda: (membw("cpu", True, None), membw("cpu", True, None)), rounds=1)
    _within_10x(first[0].value, second[0].value)


def test_step_part_medians_add_up_to_the_median_total(benchmark):
    """Each repetition's parts sum to its total by construction; the medians only roughly."""
    ms = benchmark.pedantic(step, args=("cpu", True, None), rounds=1)
    named = {m.name: m.value for m in ms}
    parts = sum(named[n] for n in ("data", "forward", "backward", "optimizer"))
    assert parts == pytest.approx(named["total"], rel=0.3)
