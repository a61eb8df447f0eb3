"""`gpuwise bench`: run benchmarks with progress bars, store them, and the acceptance check.

Imported only when `gpuwise bench` runs; torch, SQLAlchemy and rich load inside the functions
that use them (`accept` against a baseline file needs none of them).
"""

from __future__ import annotations

import math
import shlex
import statistics
import sys
from pathlib import Path
from typing import Any

from gpuwise.cli.bounds import MAX_TOLERANCE, bounded
from gpuwise.cli.output import print_json
from gpuwise.errors import UsageError
from gpuwise.store.results import ACCEPT_KEYS  # what the acceptance check compares


def run_bench(names: list[str], quick: bool, device: str | None, db: str | None, store: bool, as_json: bool) -> None:
    from gpuwise.bench.suite import expand, run  # torch-free: the benchmarks import it when run

    expand(names)  # an unknown name is a usage error with "did you mean", before anything runs
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from gpuwise.cli.render import console

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=as_json,
    ) as bar:
        tasks: dict[str, Any] = {}

        def progress(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        try:
            host, measurements = run(names, device or _default_device(), quick, progress)
        except ImportError as exc:
            raise UsageError(f"benchmarks need PyTorch: pip install 'gpuwise[bench]' ({exc})") from None
    run_id = None
    if store:
        from gpuwise.store import open_store  # SQLAlchemy: only when results are saved

        with open_store(db) as s:
            run_id = s.save_run(host, measurements, "gpuwise bench " + shlex.join(names), quick)
    if as_json:
        print_json({"host": host.as_dict(), "run_id": run_id, "results": [m.as_dict() for m in measurements]})
        return
    from gpuwise.cli.render import bench_view

    bench_view(host, measurements, run_id)


def _default_device() -> str:
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        return "cpu"


def _index(results: list[dict[str, Any]]) -> dict[tuple[Any, ...], float]:
    out: dict[tuple[Any, ...], list[float]] = {}
    for r in results:
        for bench, name, keys in ACCEPT_KEYS:
            if r["benchmark"] == bench and r["name"] == name:
                key = (bench, name, *(r["params"].get(k) for k in keys))
                out.setdefault(key, []).append(float(r["value"]))
    return {k: statistics.median(v) for k, v in out.items()}


def accept(results: Path | None, baseline: str | None, tolerance: float, db: str | None, as_json: bool) -> int:
    """Compare one card's results with the fleet baseline of its model: 0 pass, 1 fail."""
    if results is None or baseline is None:
        raise UsageError("gpuwise bench accept --results CARD.json --baseline BASELINE.json|db [--tolerance 0.1]")
    bounded(tolerance, "--tolerance", 0, MAX_TOLERANCE)
    card = _load_results(results)
    if baseline == "db":
        host = card.get("host")
        gpu_id = host.get("gpu_id") if isinstance(host, dict) else None
        if not gpu_id or not isinstance(gpu_id, str):
            raise UsageError("the card's results name no catalog GPU: give a baseline file instead of 'db'")
        from gpuwise.store import open_store

        with open_store(db) as s:
            rows = s.results(gpu_id=gpu_id, include_quick=False)
        base = [{"benchmark": r.benchmark, "name": r.name, "value": r.value, "params": r.params} for r in rows]
    else:
        base = _load_results(Path(baseline))["results"]
    mine, ref = _index(card["results"]), _index(base)
    checks = []
    for key, value in sorted(mine.items(), key=str):
        if key in ref:
            floor = ref[key] * (1 - tolerance)
            checks.append(
                {
                    "check": " ".join(str(k) for k in key if k is not None),
                    "value": value,
                    "baseline": ref[key],
                    "ok": value >= floor,
                    "ratio": value / ref[key],
                }
            )
    if not checks:
        raise UsageError("no measurement of the card matches the baseline (same benchmark, dtype, message size)")
    passed = all(c["ok"] for c in checks)
    if as_json:
        print_json({"passed": passed, "tolerance": tolerance, "checks": checks})
    else:
        for c in checks:
            mark = "PASS" if c["ok"] else "FAIL"
            sys.stdout.write(
                f"{mark}  {c['check']}: {c['value']:.4g} vs baseline {c['baseline']:.4g} ({c['ratio']:.0%})\n"
            )
        sys.stdout.write(
            ("accepted" if passed else f"rejected: below the baseline by more than {tolerance:.0%}") + "\n"
        )
    return 0 if passed else 1


_SCALAR = str | int | float | bool | None
MAX_VALUE = 1e30  # far above any FLOP/s or bytes/s a card reaches (an H200 does ~2e15 FLOP/s)


def _valid_result(r: Any) -> bool:
    """One measurement as `gpuwise bench --json` writes it: names, a finite positive value, scalar params."""
    return (
        isinstance(r, dict)
        and isinstance(r.get("benchmark"), str)
        and isinstance(r.get("name"), str)
        and isinstance(r.get("value"), int | float)
        and not isinstance(r["value"], bool)
        and math.isfinite(r["value"])
        and 0 < r["value"] <= MAX_VALUE  # rates and bandwidths; a zero baseline would make every ratio undefined
        and isinstance(r.get("params"), dict)
        and all(isinstance(v, _SCALAR) for v in r["params"].values())  # compared as keys
    )


def _load_results(path: Path) -> dict[str, Any]:
    """A results file (`gpuwise bench --json`), read within the file limits and checked entry by entry."""
    from gpuwise.files import read_json

    doc = read_json(path, "results file")
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, list):
        raise UsageError(f"{path}: expected `gpuwise bench --json` output with a 'results' list")
    for i, r in enumerate(results):
        if not _valid_result(r):
            raise UsageError(
                f"{path}: results[{i}] must have text 'benchmark' and 'name', a finite positive 'value' "
                f"(at most {MAX_VALUE:g}) and 'params' of plain values"
            )
    return doc
