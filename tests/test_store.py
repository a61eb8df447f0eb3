"""The result store on SQLite and on a real PostgreSQL server (GPUWISE_TEST_POSTGRES; CI starts one
with scripts/start_postgres.sh and requires it)."""

import multiprocessing as mp
import os

import pytest

from gpuwise.bench.result import HostFacts, Measurement
from gpuwise.errors import UsageError
from gpuwise.store import open_store
from gpuwise.store.schema import metadata

PG = os.environ.get("GPUWISE_TEST_POSTGRES")
if os.environ.get("CI") and not PG:
    raise RuntimeError("CI must test the store against PostgreSQL: set GPUWISE_TEST_POSTGRES")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    if not PG:
        pytest.skip("no PostgreSQL server (set GPUWISE_TEST_POSTGRES)")
    with open_store(PG) as store:
        metadata.drop_all(store.engine)  # a clean database for each test
    return PG


HOST = HostFacts(
    "node-1",
    "test cpu",
    2,
    "cuda",
    gpu_model="NVIDIA H100 80GB HBM3",
    gpu_id="h100-sxm",
    gpu_count=8,
    driver="550.54",
    cuda="12.4",
    torch="2.13",
    python="3.11",
)


def _m(value, name="best"):
    return Measurement("matmul", name, value, "FLOP/s", {"dtype": "bf16", "m": 8192}, (value * 0.99, value))


def test_round_trip_and_filters(url):
    with open_store(url) as s:
        _round_trip(s)


def _round_trip(s):
    rid = s.save_run(
        HOST,
        [_m(7.9e14), Measurement("membw", "copy", 3.0e12, "bytes/s", {"bytes": 2**30})],
        "gpuwise bench all",
        quick=False,
    )
    rows = s.results()
    assert {r.benchmark for r in rows} == {"matmul", "membw"} and all(r.run_id == rid for r in rows)
    best = s.results(benchmark="matmul", gpu_id="h100-sxm", name="best")
    assert best[0].value == pytest.approx(7.9e14) and best[0].params["dtype"] == "bf16"
    assert s.results(gpu_id="a10") == []


def test_migrations_are_idempotent(url):
    with open_store(url) as a:
        v = a.version()
    with open_store(url) as b:
        assert b.version() == v >= 1


def _writer(url, n, worker):
    with open_store(url) as s:
        host = HostFacts(f"worker-{worker}", "cpu", 2, "cpu")
        for i in range(n):
            s.save_run(host, [_m(1e12 + i), _m(2e12 + i, "shape")], f"bench {worker}.{i}", quick=True)


def test_concurrent_writers_lose_nothing(url):
    open_store(url).close()  # created once; the writers also race on opening it
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(url, 15, w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with open_store(url) as s:
        assert s.run_count() == 60
        assert len(s.results(benchmark="matmul")) == 120


def test_bad_urls_are_usage_errors(tmp_path):
    with pytest.raises(UsageError):
        open_store("nosuchdb://x")
    with pytest.raises(UsageError):
        open_store("postgresql://nobody@127.0.0.1:1/none")
