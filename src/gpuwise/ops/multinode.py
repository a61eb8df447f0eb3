"""Inter-node all-reduce bus bandwidth under torchrun, stored, and compared with the topology the
plan assumed (the estimate's collective model for that GPU, node count and network).

The all-reduce Job of `gpuwise deploy ops` runs on every node:

    torchrun --nnodes=N --nproc-per-node=G ... -m gpuwise.ops.multinode --gpu h100-sxm --network ib-ndr

Every rank measures (gpuwise.bench.collective under the launcher); rank 0 saves the run in the
store (GPUWISE_DB or --db) and prints, per message size, the measured bus bandwidth beside the
planned one and their ratio (JSON on stdout). Exit 1 when the largest message falls below
`--min-ratio` of the plan: the fabric does not deliver what the plan counted on.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from gpuwise.errors import GpuwiseError, UsageError

DEFAULT_MIN_RATIO = 0.7  # below 70 % of the planned bandwidth the plan's step times do not hold


def planned_busbw(
    gpu_id: str, nodes: int, gpus_per_node: int, network: str | None, bytes_: float, catalog: Any = None
) -> float:
    """The bus bandwidth (bytes/s, nccl-tests convention) the estimate assumes for one all-reduce of
    `bytes_` over `nodes` x `gpus_per_node` GPUs: the time from gpuwise.estimate.comm, as busbw."""
    from gpuwise.bench.collective import bus_bandwidth
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.comm import collective, topology
    from gpuwise.workload import Hardware

    catalog = catalog or load_catalog()
    ranks = nodes * gpus_per_node
    hw = Hardware(catalog.gpu(gpu_id), ranks, gpus_per_node, network)
    seconds = collective("all_reduce", bytes_, ranks, topology(hw, catalog, network), spans_nodes=nodes > 1)
    return bus_bandwidth(bytes_, seconds, ranks)


def compare(
    measurements: Sequence[Any], gpu_id: str, nodes: int, gpus_per_node: int, network: str | None, catalog: Any = None
) -> list[dict[str, Any]]:
    """Per measured message size: measured and planned bus bandwidth and their ratio."""
    out = []
    for m in measurements:
        if m.benchmark != "allreduce" or m.name != "busbw":
            continue
        size = float(m.params["bytes"])
        plan = planned_busbw(gpu_id, nodes, gpus_per_node, network, size, catalog)
        out.append(
            {"bytes": int(size), "measured": m.value, "planned": plan, "ratio": m.value / plan if plan else None}
        )
    return out


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m gpuwise.ops.multinode", description=__doc__.splitlines()[0])
    p.add_argument("--gpu", required=True, help="catalog GPU id of the nodes, e.g. h100-sxm")
    p.add_argument(
        "--network",
        default=None,
        help="the plan's inter-node network (catalog id or NICs x Gbit/s per node), e.g. ib-ndr, 8x400g",
    )
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    p.add_argument("--quick", action="store_true", help="small messages (tests)")
    p.add_argument("--db", default=None, help="store URL (default: GPUWISE_DB)")
    p.add_argument("--min-ratio", type=float, default=DEFAULT_MIN_RATIO, help="exit 1 below this share of the plan")
    return p.parse_args(argv)


def run(argv: Sequence[str] | None = None) -> int:
    """One rank's part; rank 0 stores, compares and prints. Returns the exit code."""
    from gpuwise.bench.collective import allreduce
    from gpuwise.bench.host import host_facts

    a = _args(argv)
    if not 0 < a.min_ratio <= 1:
        raise UsageError("--min-ratio must be in (0, 1]")
    world, local = int(os.environ.get("WORLD_SIZE", "0")), int(os.environ.get("LOCAL_WORLD_SIZE", "0"))
    if world < 1 or local < 1:
        raise UsageError("run under torchrun: WORLD_SIZE and LOCAL_WORLD_SIZE are not set")
    if world < 2:
        raise UsageError("an all-reduce needs two ranks or more (torchrun --nproc-per-node / --nnodes)")
    device = a.device or _default_device()
    measurements = allreduce(device=device, quick=a.quick)
    if int(os.environ.get("RANK", "0")) != 0:
        return 0
    nodes = max(1, world // local)
    rows = compare(measurements, a.gpu, nodes, local, a.network)
    from gpuwise.store import open_store

    with open_store(a.db) as store:
        command = "python -m gpuwise.ops.multinode " + shlex.join(list(argv if argv is not None else sys.argv[1:]))
        run_id = store.save_run(host_facts(device), measurements, command, a.quick)
    worst = rows[-1]["ratio"] if rows else None
    ok = worst is not None and worst >= a.min_ratio
    report = {"run_id": run_id, "nodes": nodes, "gpus_per_node": local, "network": a.network, "sizes": rows, "ok": ok}
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0 if ok else 1


def _default_device() -> str:
    from gpuwise.bench._common import torch_module

    return "cuda" if torch_module().cuda.is_available() else "cpu"


def main() -> None:
    try:
        code = run()
    except GpuwiseError as exc:
        sys.stderr.write(f"error: {exc}\n")
        code = exc.exit_code
    raise SystemExit(code)


if __name__ == "__main__":
    main()


__all__ = ["DEFAULT_MIN_RATIO", "compare", "planned_busbw", "run"]
