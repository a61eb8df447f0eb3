#!/usr/bin/env python3
"""Fit the per-operator efficiencies (conventions.yaml `operator_*`, `serving_request_floor_seconds`,
`serving_rpc_bytes_per_second`) to the published cases of corpus/data/operators_accuracy.yaml, and
report the leave-one-group-out error: each table family (group) is predicted by values fitted
without it, so the reported error is what a table gpuwise has not seen would get.

The fit is a coordinate descent over multiplicative steps minimizing the mean |log(ours/published)|;
a parameter no remaining case informs keeps its catalog value. Prints the fitted values (which
conventions.yaml records with the source gpuwise-fit-operators) and the errors. No torch needed.
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
from corpus.operators_accuracy import cases, evaluate, with_values  # noqa: E402
from gpuwise.catalog import Catalog, load_catalog  # noqa: E402

PARAMS = (
    "operator_conv_efficiency_volta_tensor16",
    "operator_conv_efficiency_volta_fp32",
    "operator_conv_efficiency_turing_tensor16",
    "operator_conv_efficiency_turing_fp32",
    "operator_conv_efficiency_ampere_tensor16",
    "operator_conv_efficiency_ampere_tf32",
    "operator_host_seconds_eager",
    "operator_kernel_floor_seconds",
    "serving_request_floor_seconds",
    "serving_rpc_bytes_per_second",
    "operator_memory_efficiency_embedding",
)
STEPS = (1.5, 1.2, 1.05, 1.01)
CAPS = {k: 0.9 for k in PARAMS if "efficiency" in k}  # no kernel family sustains more than 90 % of peak


def loss(catalog: Catalog, subset: list[dict[str, Any]]) -> float:
    return statistics.fmean(abs(math.log(r.ours / r.published)) for r in evaluate(catalog, subset))


def fit(base: Catalog, subset: list[dict[str, Any]]) -> dict[str, float]:
    """Coordinate descent from the catalog's values: each parameter scaled while the loss falls."""
    values = {k: base.conventions[k].value for k in PARAMS}
    best = loss(with_values(base, values), subset)
    for step in STEPS:
        improved = True
        while improved:
            improved = False
            for key in PARAMS:
                for factor in (step, 1 / step):
                    trial = dict(values, **{key: min(values[key] * factor, CAPS.get(key, math.inf))})
                    score = loss(with_values(base, trial), subset)
                    if score < best - 1e-9:
                        values, best, improved = trial, score, True
    return values


def held_out(base: Catalog, every: list[dict[str, Any]]) -> dict[str, float]:
    """Each case's error (ours / published - 1) with values fitted without its table family: what
    a table gpuwise has not seen would get (scripts/fit_bands.py builds the bands from these)."""
    held: dict[str, float] = {}
    for g in sorted({c["group"] for c in every}):
        rest = [c for c in every if c["group"] != g]
        values = fit(base, rest)
        for r in evaluate(with_values(base, values), [c for c in every if c["group"] == g]):
            held[r.id] = r.error
    return held


def main() -> None:
    base, every = load_catalog(), cases()
    fitted = fit(base, every)
    print("fitted on all cases:")
    for key, v in fitted.items():
        print(f"  {key}: {v:.3g}")
    all_results = evaluate(with_values(base, fitted))
    groups = sorted({c["group"] for c in every})
    held = held_out(base, every)
    print(f"\n{'case':28s} {'published':>10s} {'ours':>10s} {'error':>7s} {'held-out':>9s}")
    for r in all_results:
        print(f"{r.id:28s} {r.published:10.2f} {r.ours:10.2f} {r.error:+7.1%} {held[r.id]:+9.1%}")
    med = statistics.median(abs(r.error) for r in all_results)
    med_held = statistics.median(abs(e) for e in held.values())
    print(f"\nmedian |error|: {med:.1%} fitted on all, {med_held:.1%} leave-one-group-out ({len(groups)} groups)")


if __name__ == "__main__":
    main()
