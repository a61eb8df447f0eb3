"""Model-parallel embedding tables: which sharding each table takes, and the exchange it costs, by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gpuwise.api import make_estimate
from gpuwise.catalog import GenericArch
from gpuwise.estimate.comm import Link, Topology
from gpuwise.estimate.embedding_exchange import TableSharding, exchange_seconds, shard_tables

ROOT = Path(__file__).resolve().parent.parent
GIB = 2**30


def _tables(*rows: int) -> GenericArch:
    return GenericArch(name="tables", task="recommender", params=0, embedding_tables=tuple((r, 128) for r in rows))


def _topo() -> Topology:
    """Round numbers: 100 GB/s per GPU inside a node, 10 GB/s per GPU across nodes, no latencies."""
    return Topology(intra=Link("nv", 100e9, 0.0), inter=Link("net", 10e9, 0.0), gpus_per_node=8, notes=())


def _layout(s: TableSharding) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    return s.table_wise, s.row_wise, s.table_row_wise, s.nodes


def test_a_table_that_fits_one_gpu_stays_whole(catalog):
    """The budget is 0.6 of 40 GiB = 25.8 GB: 50M rows x 128 x 4 bytes = 25.6 GB fits it; its GPU holds all
    6.4e9 of its parameters (the small table goes to another GPU)."""
    s = shard_tables(_tables(50_000_000, 1_000), 16, 2, 40 * GIB, 4, catalog)
    assert _layout(s) == ((128, 128), (), (), 2)
    assert s.heaviest == 6.4e9


def test_an_oversized_table_splits_over_one_node_when_the_job_spans_nodes(catalog):
    """80M rows x 128 x 4 = 41 GB: too large for one 40 GiB GPU; a node's eighth (5.1 GB) fits: table-row-wise,
    1.28e9 parameters on each GPU of its node (the 10-row table goes to a GPU of the other node). On one node
    the same split is row-wise over its GPUs (1.28e9 each); a table whose node share is still too large (500M
    rows: 32 GB an eighth) goes row-wise over every GPU (4e9 each of 16)."""
    s = shard_tables(_tables(80_000_000, 10), 16, 2, 40 * GIB, 4, catalog)
    assert (_layout(s), s.heaviest) == (((128,), (), (128,), 2), 1.28e9)
    s = shard_tables(_tables(80_000_000), 8, 1, 40 * GIB, 4, catalog)
    assert (_layout(s), s.heaviest) == (((), (128,), (), 1), 1.28e9)
    s = shard_tables(_tables(500_000_000), 16, 2, 40 * GIB, 4, catalog)
    assert (_layout(s), s.heaviest) == (((), (128,), (), 2), 4e9)


def test_whole_tables_are_dealt_largest_first_to_the_least_loaded_gpu(catalog):
    """Tables of 6, 5 and 4 million rows (width 128) on 2 GPUs: 6 on one, then 5 on the other, then 4 beside
    the 5 (the less loaded): 9M rows there, so the most loaded GPU holds 9M x 128 = 1.152e9 parameters where
    the even share is 0.96e9."""
    rows = (6_000_000, 5_000_000, 4_000_000)
    s = shard_tables(_tables(*rows), 2, 1, 40 * GIB, 4, catalog)
    assert s.heaviest == 9_000_000 * 128


def test_row_wise_reduce_scatters_the_whole_batch():
    """8 GPUs, micro-batch 1000, dim 128, fp32: each rank's partial sums are [8 x 1000, 128] = 4.096 MB; a ring
    reduce-scatter sends 7/8 of it at 100 GB/s (35.84 us), and the all-gather backward the same: 71.68 us."""
    seconds, terms = exchange_seconds(TableSharding((), (128,), (), 1), 1000, 4, 8, _topo())
    assert seconds == pytest.approx(2 * 7 / 8 * 4.096e6 / 100e9)
    assert "row-wise over all 8 GPUs" in terms[0]


def test_table_row_wise_crosses_nodes_with_one_batch_per_node():
    """16 GPUs on 2 nodes, one table: the owning node reduce-scatters [16 x 1000, 128] fp32 (8.192 MB, 7/8 of it
    at 100 GB/s: 71.68 us), then each of its GPUs sends the other node's 1000 x 128 x 4 = 512 kB at 10 GB/s
    (51.2 us); backward the mirror: 245.76 us."""
    seconds, _ = exchange_seconds(TableSharding((), (), (128,), 2), 1000, 4, 16, _topo())
    assert seconds == pytest.approx(2 * (7 / 8 * 8.192e6 / 100e9 + 512e3 / 10e9))


def test_table_wise_is_timed_at_the_tables_owner():
    """16 GPUs on 2 nodes, one table: its owner sends its 1000 x 128 x 4 = 512 kB of pooled vectors to each of
    the 16 GPUs, 8.192 MB, half of it to the other node at 10 GB/s (409.6 us), the rest over NVLink meanwhile;
    forward and backward: 819.2 us. With 32 tables of width 128 on 16 GPUs each GPU owns two and sends
    16 x 2 x 512 kB = 16.384 MB, as much as it receives (32 x 512 kB): twice the time."""
    one, _ = exchange_seconds(TableSharding((128,), (), (), 2), 1000, 4, 16, _topo())
    assert one == pytest.approx(2 * 0.5 * 16 * 512e3 / 10e9)
    many, _ = exchange_seconds(TableSharding((128,) * 32, (), (), 2), 1000, 4, 16, _topo())
    assert many == pytest.approx(2 * 0.5 * 32 * 512e3 / 10e9)


def test_a_wide_tables_owner_takes_no_other_table():
    """8 narrow tables (width 16) and one wide one (width 512) on 4 GPUs of one node: dealt widest first, the
    wide table's owner gets none of the narrow ones and sends 4 x 1000 x 512 x 4 = 8.192 MB, more than any GPU
    receives (1000 x 640 x 4 = 2.56 MB); a ring of 4 at 100 GB/s carries 3/4 of it: 61.44 us a direction."""
    topo = Topology(intra=Link("nv", 100e9, 0.0), inter=None, gpus_per_node=4, notes=())
    seconds, _ = exchange_seconds(TableSharding((16,) * 8 + (512,), (), (), 1), 1000, 4, 4, topo)
    assert seconds == pytest.approx(2 * 3 / 4 * 4 * 1000 * 512 * 4 / 100e9)


def test_table_row_wise_times_the_node_with_the_widest_tables():
    """Three split tables of widths 256, 128 and 64 on 2 nodes of 8, dealt widest first to the least loaded node:
    256 to one, 128 and 64 to the other (192); the busiest node's reduce-scatter of [16 x 1000, 256] fp32
    (16.384 MB, 7/8 at 100 GB/s: 143.36 us), then 1000 x 256 x 4 = 1.024 MB to the other node at 10 GB/s
    (102.4 us), with a 5 us collective latency each and a 2 us hop across nodes; both directions."""
    topo = Topology(
        intra=Link("nv", 100e9, 0.0), inter=Link("net", 10e9, 2e-6), gpus_per_node=8, notes=(), base_latency=5e-6
    )
    seconds, _ = exchange_seconds(TableSharding((), (), (256, 128, 64), 2), 1000, 4, 16, topo)
    inside = 5e-6 + 7 / 8 * 16 * 1000 * 256 * 4 / 100e9
    assert seconds == pytest.approx(2 * (inside + 5e-6 + 1000 * 256 * 4 / 10e9 + 2e-6))


def test_row_wise_across_nodes_crosses_each_node_once_per_table():
    """A 500M-row table on 2 nodes of 8 goes row-wise over all 16 GPUs: each GPU's [16 x 1000, 128] fp32 partial
    sums (8.192 MB) reduce-scattered inside its node (7/8 at 100 GB/s: 71.68 us), then an eighth of it (1.024 MB)
    across the 2 nodes (1/2 at 10 GB/s: 51.2 us); the all-gather backward the same: 245.76 us."""
    seconds, _ = exchange_seconds(TableSharding((), (128,), (), 2), 1000, 4, 16, _topo())
    assert seconds == pytest.approx(2 * (7 / 8 * 8.192e6 / 100e9 + 0.5 * 1.024e6 / 10e9))


def test_torchrec_full_size_tables_split_and_the_estimate_says_how():
    """TorchRec's DLRM README 'Full Size' tables on 80 A100 40GB (ten nodes): the four tables above the budget
    of 25.8 GB (227.6M, 130.2M, 292.8M and 187.2M rows: 67-150 GB) are split over a node's GPUs, the other 22
    stay whole (the next largest, 40.8M rows, is 20.9 GB)."""
    path = ROOT / "corpus/data/holdout_configs/torchrec-dlrm-fullsize-tables.json"
    rows = [r for r, _ in json.loads(path.read_text())["embedding_tables"]]
    big = [r for r in rows if r * 128 * 4 > 0.6 * 40 * GIB]
    assert sorted(big) == [130_229_467, 187_188_510, 227_605_432, 292_775_614]
    est = make_estimate(
        {
            "model": str(path),
            "task": "pretrain",
            "precision": "tf32",
            "weights_dtype": "fp32",
            "optimizer": "sgd",
            "micro_batch": 819,
            "global_batch": 65520,
        },
        {"gpu": "a100-40gb-sxm:80", "gpus_per_node": 8, "network": "4x100g"},
    )
    said = [n for n in est.notes if "TorchRec's planner" in n]
    assert said and "22 table-wise" in said[0] and "4 table-row-wise" in said[0]


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.integers(1, 400_000_000), min_size=1, max_size=30),
    nodes=st.integers(1, 32),
    per_node=st.sampled_from([1, 2, 4, 8]),
    batch=st.integers(1, 65536),
)
def test_every_table_is_laid_out_once_and_the_exchange_is_finite_and_grows_with_the_batch(
    catalog, rows, nodes, per_node, batch
):
    """Whatever the tables and the cluster (whole nodes, as gpuwise's hardware check requires): each table
    takes exactly one layout; the exchange is a finite, non-negative time that a larger micro-batch never
    shortens."""
    gpus = nodes * per_node
    assume(gpus > 1)
    s = shard_tables(_tables(*rows), gpus, nodes, 40 * GIB, 4, catalog)
    assert len(s.table_wise) + len(s.row_wise) + len(s.table_row_wise) == len(rows)
    assert not s.table_row_wise or nodes > 1
    total = sum(rows) * 128.0
    # the most loaded GPU holds at least the even share, never more than all the tables, and within the
    # budget whenever the even share is
    assert total / gpus * (1 - 1e-9) <= s.heaviest <= total * (1 + 1e-9)
    if total / gpus * 4 <= 0.6 * 40 * GIB:
        assert s.heaviest * 4 <= 0.6 * 40 * GIB * (1 + 1e-9)
    topo = Topology(intra=Link("nv", 100e9, 1e-6), inter=Link("net", 10e9, 5e-6), gpus_per_node=per_node, notes=())
    small, _ = exchange_seconds(s, batch, 4, gpus, topo)
    large, _ = exchange_seconds(s, batch + 1, 4, gpus, topo)
    assert math.isfinite(small) and 0 <= small <= large


def test_a_planner_splits_whole_tables_until_every_gpu_fits_its_budget(catalog):
    """Three tables of 15 GB (29,296,875 rows x 128 x 4 bytes) on 2 GPUs of 40 GiB (budget 25.8 GB): each fits
    alone and the even share (22.5 GB) fits, but two whole tables on one GPU (30 GB) do not. The largest is
    split row-wise (7.5 GB on each GPU), the other two stay whole, one on each GPU: 22.5 GB on either."""
    s = shard_tables(_tables(29_296_875, 29_296_875, 29_296_875), 2, 1, 40 * GIB, 4, catalog)
    assert _layout(s) == ((128, 128), (128,), (), 1)
    assert s.heaviest == pytest.approx(22.5e9 / 4)


def test_the_table_split_to_relieve_a_gpu_is_the_one_that_loads_it(catalog):
    """16 GPUs on 2 nodes, a budget of 1e9 parameters: three tables of 4.8e9 split over a node (0.6e9 a GPU),
    two on one node (1.2e9 a GPU, past the budget), and twenty small tables (1e6 parameters) whole on the
    other node's GPUs. The overload is the two slices, so one node-split table goes over every GPU (0.3e9
    each) and the small tables stay whole: every GPU at 0.9e9, four of them with two small tables (20 over
    16 GPUs), 0.902e9."""
    model = GenericArch(
        name="tables",
        task="recommender",
        params=0,
        embedding_tables=((37_500_000, 128),) * 3 + ((62_500, 16),) * 20,
    )
    s = shard_tables(model, 16, 2, 1e9 * 4 / 0.6, 4, catalog)
    assert _layout(s) == ((16,) * 20, (128,), (128, 128), 2)
    assert s.heaviest == pytest.approx(0.902e9)
