"""What a recommender's model-parallel embedding tables exchange each micro-batch, by how the sharding
planner lays each table out (TorchRec's EmbeddingShardingPlanner; pytorch/torchrec at a48cef79):

- **table-wise**: a table that fits one GPU's table budget lives whole on one GPU. Its owner sends its
  pooled vectors to every rank by an all-to-all (PooledEmbeddingsAllToAll, tw_sharding.py): ranks x
  micro-batch x dim for each table it owns, while every rank receives micro-batch x the widths of all
  of them; gradients come back by the mirror all-to-all. The exchange takes as long as its busiest GPU:
  the owner of the most table width (the planner spreads the tables over the GPUs) or any receiver.
- **row-wise** over every GPU (rw_sharding.py): each rank holds a slice of the rows and writes partial
  sums for the *whole group's* batch, [ranks x micro-batch, dim], which a reduce-scatter over all ranks
  sums (PooledEmbeddingsReduceScatter); its backward is an all-gather of the same size. Every GPU pays
  it for every such table. The planner picks it for a table too large for one GPU on a single node, or
  when it is not told the node size (DistributedModelParallel built its planner without it until
  torchrec 9eec308d, April 2022; since then it passes the launcher's LOCAL_WORLD_SIZE).
- **table-row-wise** (twrw_sharding.py): the rows split over the GPUs of one node; a reduce-scatter of
  [ranks x micro-batch, dim] inside the node (NVLink), then an all-to-all across nodes among the GPUs of
  one local rank, (nodes - 1) x micro-batch x dim off the node per GPU of the owning node; backward the
  mirror (all-to-all, then all-gather). The planner picks it for every table too large for one GPU when
  the job spans nodes and it knows the node size: each GPU's cross-node bytes for one table are what
  row-wise sends, but only the owning node's GPUs send them, for their own tables.

The table budget is `embedding_gpu_table_share` of a GPU's memory: a whole table must fit it, and so
must the most loaded GPU's tables (the whole ones dealt largest first to the least loaded GPU), which
the memory model holds (operators.table_placement); where they do not while the even share does, the
largest whole table on that GPU is split too (or, with none, the largest node-split table on its node
goes over every GPU), as a planner balancing the GPUs' memory would; where even the even
share does not fit, the memory model caches the hottest rows and keeps the rest in host memory. Not
modelled: the id all-to-all before the lookups (KeyedJaggedTensor lengths and
values: a few bytes a lookup, latency-bound; TorchRec's own cost model leaves it out too) and its
overlap with the dense compute by TorchRec's TrainPipelineSparseDist. Sources: conventions.yaml
`torchrec-sharding`.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from gpuwise.catalog import Catalog, GenericArch
from gpuwise.estimate.comm import Topology, collective, collective_across_nodes


@dataclass(frozen=True, slots=True)
class TableSharding:
    """The tables' widths (embedding dims) by how they are sharded; `nodes` the job's nodes;
    `heaviest` the table parameters the most loaded GPU holds, laid out so, and `heaviest_rows` its rows
    (0 where not computed)."""

    table_wise: tuple[int, ...]
    row_wise: tuple[int, ...]
    table_row_wise: tuple[int, ...]
    nodes: int
    heaviest: float = 0.0
    heaviest_rows: float = 0.0


def shard_tables(
    model: GenericArch, gpus: int, nodes: int, capacity_bytes: float, element_bytes: float, catalog: Catalog
) -> TableSharding:
    """Each table as the planner shards it: whole on one GPU where it fits the table budget; else over
    the GPUs of one node when the job spans nodes and a node's share fits; else over every GPU. While the
    even share fits the budget but the most loaded GPU does not, the largest whole table on that GPU is
    split too (with none, the largest node-split table on its node goes over every GPU), as a planner
    balancing the GPUs' memory would."""
    budget = capacity_bytes * catalog.convention("embedding_gpu_table_share") / element_bytes  # in parameters
    gpus, nodes = max(1, gpus), max(1, nodes)
    per_node = math.ceil(gpus / nodes)
    tw: list[tuple[int, int]] = []
    rw: list[tuple[int, int]] = []
    twrw: list[tuple[int, int]] = []

    def split(table: tuple[int, int]) -> None:
        (twrw if nodes > 1 and _params(table) / per_node <= budget else rw).append(table)

    for table in model.embedding_tables:
        if gpus == 1 or _params(table) <= budget:
            tw.append(table)
        else:
            split(table)
    load = _most_loaded(tw, rw, twrw, gpus, nodes)
    even = sum(map(_params, model.embedding_tables)) / gpus
    while load.params > budget >= even:
        slice_ = _params(load.node_split) / per_node if load.node_split else 0.0
        if load.whole is not None and _params(load.whole) >= slice_:  # its largest whole table
            tw.remove(load.whole)
            split(load.whole)
        elif load.node_split is not None:  # else its node's largest node-split table, over every GPU
            twrw.remove(load.node_split)
            rw.append(load.node_split)
        else:  # only slices over every GPU: the even share, which fits
            break
        load = _most_loaded(tw, rw, twrw, gpus, nodes)
    widths = (tuple(d for _, d in tw), tuple(d for _, d in rw), tuple(d for _, d in twrw))
    return TableSharding(*widths, nodes=nodes, heaviest=load.params, heaviest_rows=load.rows)


def _params(table: tuple[int, int]) -> int:
    """A table's parameters: rows x width."""
    return table[0] * table[1]


@dataclass(frozen=True, slots=True)
class _Load:
    """The most loaded GPU: its table parameters and rows, the largest whole table on it and the largest
    node-split table on its node (None: none)."""

    params: float
    rows: float
    whole: tuple[int, int] | None
    node_split: tuple[int, int] | None


def _most_loaded(
    tw: list[tuple[int, int]], rw: list[tuple[int, int]], twrw: list[tuple[int, int]], gpus: int, nodes: int
) -> _Load:
    """The row-wise tables' slices on every GPU, each node-split table's on the GPUs of one node (the
    tables dealt largest first to the least loaded node), then the whole tables dealt largest first to
    the least loaded GPU: the GPU that ends with the most table parameters. A node's GPUs are alike until
    a whole table lands on one, so only the GPUs that take one are tracked one by one (a search over
    thousands of GPUs costs what its few tables cost)."""
    per_node = math.ceil(gpus / nodes)
    base = (sum(map(_params, rw)) / gpus, sum(r for r, _ in rw) / gpus)
    node_load = [[base[0], base[1]] for _ in range(nodes)]
    node_tables: list[list[tuple[int, int]]] = [[] for _ in range(nodes)]
    heap = [(base[0], n) for n in range(nodes)]
    for t in sorted(twrw, key=_params, reverse=True):
        _, n = heapq.heappop(heap)
        node_load[n][0] += _params(t) / per_node
        node_load[n][1] += t[0] / per_node
        node_tables[n].append(t)
        heapq.heappush(heap, (node_load[n][0], n))
    used = [0] * nodes  # GPUs of each node that took a whole table
    touched: list[tuple[int, list[float], list[tuple[int, int]]]] = []  # (node, [params, rows], tables)
    gheap: list[tuple[float, int, int]] = [(node_load[n][0], 0, n) for n in range(nodes)]  # 0: an untouched GPU
    heapq.heapify(gheap)
    for t in sorted(tw, key=_params, reverse=True):
        load, kind, i = heapq.heappop(gheap)
        if kind == 0:  # a fresh GPU of node i; the node's other untouched GPUs stay in the heap
            used[i] += 1
            if used[i] < per_node:
                heapq.heappush(gheap, (load, 0, i))
            touched.append((i, list(node_load[i]), []))
            i = len(touched) - 1
        _, sums, tables = touched[i]
        sums[0] += _params(t)
        sums[1] += t[0]
        tables.append(t)
        heapq.heappush(gheap, (sums[0], 1, i))
    fresh = [n for n in range(nodes) if used[n] < per_node]
    best = max(fresh, key=lambda n: node_load[n][0], default=None)
    top = max(touched, key=lambda g: g[1][0], default=None)
    if top is not None and (best is None or top[1][0] >= node_load[best][0]):
        node, sums, tables = top
        return _Load(sums[0], sums[1], max(tables, key=_params), max(node_tables[node], key=_params, default=None))
    assert best is not None
    return _Load(node_load[best][0], node_load[best][1], None, max(node_tables[best], key=_params, default=None))


def exchange_seconds(
    sharding: TableSharding, micro_batch: int, element_bytes: float, gpus: int, topo: Topology
) -> tuple[float, list[str]]:
    """Seconds of the pooled-embedding exchange of one micro-batch, forward and backward, and what it is."""
    spans = sharding.nodes > 1
    b, e = micro_batch, element_bytes
    terms: list[str] = []
    total = 0.0
    if sharding.table_wise:
        tw = 2 * collective("all_to_all", b * _busiest_width(sharding.table_wise, gpus) * e, gpus, topo, spans)
        total += tw
        terms.append(
            f"{len(sharding.table_wise)} table-wise: all-to-all of the pooled vectors from each table's owner, "
            f"{tw * 1e3:.2f} ms"
        )
    if sharding.row_wise:
        rw = 2 * collective("reduce_scatter", gpus * b * sum(sharding.row_wise) * e, gpus, topo, spans)
        total += rw
        terms.append(
            f"{len(sharding.row_wise)} row-wise over all {gpus} GPUs: reduce-scatter of the whole batch's partial "
            f"sums (all-gather backward), {rw * 1e3:.2f} ms"
        )
    if sharding.table_row_wise:
        twrw = 2 * _table_row_wise(sharding, b, e, gpus, topo)
        total += twrw
        terms.append(
            f"{len(sharding.table_row_wise)} table-row-wise (rows over one node's GPUs): reduce-scatter inside the "
            f"node, all-to-all across nodes (mirrored backward), {twrw * 1e3:.2f} ms"
        )
    return total, terms


def _busiest_width(dims: tuple[int, ...], gpus: int) -> int:
    """The table width one GPU's all-to-all buffer carries, in rows of the micro-batch: the owner of the
    widest share sends its tables' vectors to every GPU; every GPU receives all the tables' vectors of its
    own micro-batch."""
    return max(sum(dims), gpus * _heaviest_share(dims, gpus))


def _heaviest_share(dims: tuple[int, ...], bins: int) -> int:
    """The largest sum of widths one of `bins` owners gets when the tables are dealt widest first, each to
    the least loaded owner (the greedy balance a planner's partitioner seeks; within 4/3 of the best)."""
    loads = [0] * max(1, bins)
    for dim in sorted(dims, reverse=True):
        heapq.heapreplace(loads, loads[0] + dim)
    return max(loads)


def _table_row_wise(sharding: TableSharding, b: int, e: float, gpus: int, topo: Topology) -> float:
    """One direction of the table-row-wise exchange on the busiest node: its tables (the planner spreads
    them over the nodes) reduce-scattered among its GPUs, then each GPU's (nodes - 1) x micro-batch x dim
    sent across nodes over its share of the node's NICs."""
    nodes = sharding.nodes
    per_node = math.ceil(gpus / nodes)
    own = _heaviest_share(sharding.table_row_wise, nodes)  # the busiest node's tables
    inside = collective("reduce_scatter", gpus * b * own * e, per_node, topo, False)
    # each GPU holds the partial sums of every node's micro-batch and sends all but its own node's
    return inside + collective_across_nodes("all_to_all", nodes * b * own * e, nodes, topo)
