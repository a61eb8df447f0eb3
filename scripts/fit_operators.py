#!/usr/bin/env python3
"""Fit the per-operator efficiencies to the published cases of corpus/data/operators_accuracy.yaml,
judged out of sample: each table family (group) is predicted by values fitted without it, so the
reported error is what a table gpuwise has not seen would get.

The fit is a coordinate descent over multiplicative steps minimizing the mean |log(ours/published)|,
from fixed starting values (the first fit's), so its result does not depend on what the catalog
holds; efficiencies are capped at 90 %. The convolution efficiency of an architecture without a case
is derived from the fitted ones (their median per precision class) and says that no case validates
it. No torch needed.

Writes src/gpuwise/catalog/data/operator_fit.yaml (the fitted conventions, merged into the catalog's
conventions by the loader), corpus/data/operators_held_out.yaml (every case's out-of-sample error,
which scripts/fit_bands.py reads) and docs/accuracy-operators.md; `--check` fails if any is out of
date. The holdout (corpus/data/holdout.yaml) is never read. Run from the repository root:
`python scripts/fit_operators.py`.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
from corpus.generated import held_out_yaml, write_or_check  # noqa: E402
from corpus.operators_accuracy import GOAL, HELD_OUT, cases, evaluate, with_values  # noqa: E402
from gpuwise.catalog import Catalog  # noqa: E402
from gpuwise.catalog.loader import build_catalog  # noqa: E402

OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "operator_fit.yaml"
CASES_OUT = HELD_OUT
DOC = ROOT / "docs" / "accuracy-operators.md"
SOURCE = "gpuwise-fit-operators"
_FITTED = "fitted by scripts/fit_operators.py to the cases of corpus/data/operators_accuracy.yaml"
_CONV = (
    "cuDNN convolution rate (channels-last, {prec}) on {arch}, as a share of {base}: "
    + _FITTED
    + " (ResNet-50 DeepLearningExamples tables)"
)
# what a convolution efficiency multiplies: tensor-core convolutions run at the clock and operand feed the GPU's
# own GEMMs get (its achievable GEMM rate, matmul_efficiency x peak: a GeForce card sustains clocks above the
# datasheet's boost clock, a power-limited one below), CUDA-core fp32 ones at the fp32 peak
_BASE = {
    "tensor16": "the GPU's achievable GEMM rate (matmul_efficiency x dense peak)",
    "tf32": "the GPU's achievable GEMM rate (matmul_efficiency x dense TF32 peak)",
    "fp32": "the dense fp32 peak",
}
_UNIT = {"tensor16": "fraction of the achievable GEMM rate", "tf32": "fraction of the achievable GEMM rate"}
# the cuDNN convolution rates the ResNet-50 tables decide: (architecture, precision) -> the first fit's value
# (tensor-core ones: the first fit's fraction of peak over the matmul efficiency the cases' GPUs take, 0.75 for
# Volta's and Turing's, the default, and 0.87 for Ampere's)
_CONV_STARTS = {
    ("volta", "tensor16"): 0.815,
    ("volta", "fp32"): 0.9,
    ("turing", "tensor16"): 0.581,
    ("turing", "fp32"): 0.803,
    ("ampere", "tensor16"): 0.609,
    ("ampere", "tf32"): 0.438,
}
# the machines each architecture's eager cases ran on, as their tables name them: the host CPU dispatches
_HOSTS = {
    "volta": "DGX-1: two Xeon E5-2698 v4",
    "turing": "the T4 servers of the ResNet-50 table",
    "ampere": "DGX A100: two EPYC 7742",
}
HOST_DEFAULT = "ampere"  # the newest host generation with a case: what a machine without one is given
# parameter -> (starting value: the first fit's, unit, why)
PARAMS: dict[str, tuple[float, str, str]] = {
    **{
        f"operator_conv_efficiency_{arch}_{prec}": (
            start,
            _UNIT.get(prec, "fraction of dense peak"),
            _CONV.format(prec=prec, arch=arch, base=_BASE[prec]),
        )
        for (arch, prec), start in _CONV_STARTS.items()
    },
    **{
        f"operator_host_seconds_eager_{arch}": (
            5.61e-05,  # the first fit's single value, for every host
            "seconds per kernel",
            "eager PyTorch dispatches every operator from Python: a kernel cannot start sooner than this after the "
            f"one before. A property of the host CPU and of the code each kernel goes through, not of the GPU: on the "
            f"machines the {arch} cases ran on ({host}), for CNN modules (cuDNN convolutions, batch norms); "
            f"{_FITTED}, the batch-1 rows of its eager inference tables (latency flat from batch 1 to 8) deciding it. "
            "Not the same quantity as decode_host_seconds_eager (a lean decode loop's GEMVs and elementwise ops)",
        )
        for arch, host in _HOSTS.items()
    },
    "operator_kernel_floor_seconds": (
        1.28e-05,
        "seconds added to every kernel",
        "what every kernel adds besides its roofline time: the launch (2-4 us, cuda-launch-overhead) and the ramp "
        f"and tail of its waves, which a batch-1 layer cannot hide; {_FITTED}, the small-batch Paddle-TRT ResNet-50 "
        "latencies (A100, A10) deciding it",
    ),
    "serving_request_floor_seconds": (
        0.000342,
        "seconds per request",
        "what a served request costs besides its kernels and its input bytes: server scheduling, the backend call, "
        f"RPC framing and the response; {_FITTED}, the batch-1 and batch-8 Triton ResNet-50 latencies (A40, A100, "
        "V100, T4) against TensorRT without a server deciding it",
    ),
    "serving_rpc_bytes_per_second": (
        2.73e09,
        "bytes per second",
        "a request's input crosses the RPC (gRPC/HTTP on the same host in perf_analyzer) at this rate: the Triton "
        f"latency grows with the client batch by more than the GPU time; {_FITTED}, with serving_request_floor_seconds",
    ),
    "operator_memory_efficiency_embedding": (
        0.0701,
        "fraction of the achievable memory bandwidth",
        "random row gathers (one 256-512 B row per id from tables of up to 40M rows, TLB misses included) reach a "
        f"small fraction of streaming bandwidth; {_FITTED}, the DLRM Triton latencies on V100 deciding it",
    ),
}
ARCHES = ("volta", "turing", "ampere")  # the architectures the cases ran on
# the convolution efficiency of every other architecture: the median of the fitted ones of its class
DERIVED = {
    "tensor16": tuple(f"operator_conv_efficiency_{a}_tensor16" for a in ARCHES),
    "tf32": ("operator_conv_efficiency_ampere_tf32",),
    "fp32": ("operator_conv_efficiency_volta_fp32", "operator_conv_efficiency_turing_fp32"),
}
STEPS = (1.5, 1.2, 1.05, 1.01)
# no kernel family sustains more than 90 % of its rate (the peak; a convolution's GEMM rate)
CAPS = {k: 0.9 for k in PARAMS if "efficiency" in k}


def loss(catalog: Catalog, subset: list[dict[str, Any]]) -> float:
    return statistics.fmean(abs(math.log(r.ours / r.published)) for r in evaluate(catalog, subset))


def decided(base: Catalog, subset: list[dict[str, Any]]) -> list[str]:
    """The parameters the subset can decide: an architecture's eager host dispatch only where it has an eager
    inference case at a small batch (training and large batches hide the host, so without one the value would
    wander to wherever it trades a hair of error elsewhere); it keeps its starting value otherwise."""
    hosts = {
        base.gpu(c["gpu"]).architecture
        for c in subset
        if c["mode"] == "inference" and c["runtime"] == "eager" and int(c["batch"]) <= 8
    }
    prefix = "operator_host_seconds_eager_"
    return [k for k in PARAMS if not k.startswith(prefix) or k.removeprefix(prefix) in hosts]


def fit(base: Catalog, subset: list[dict[str, Any]]) -> dict[str, float]:
    """Coordinate descent from the starting values: each parameter the subset decides scaled while the loss
    falls."""
    values = {k: start for k, (start, _, _) in PARAMS.items()}
    best = loss(with_values(base, values), subset)
    for step in STEPS:
        improved = True
        while improved:
            improved = False
            for key in decided(base, subset):
                for factor in (step, 1 / step):
                    trial = dict(values, **{key: min(values[key] * factor, CAPS.get(key, math.inf))})
                    score = loss(with_values(base, trial), subset)
                    if score < best - 1e-9:
                        values, best, improved = trial, score, True
    return {k: float(f"{v:.4g}") for k, v in values.items()}


def held_out(base: Catalog, every: list[dict[str, Any]]) -> dict[str, float]:
    """Each case's error (ours / published - 1) with values fitted without its table family: what
    a table gpuwise has not seen would get."""
    held: dict[str, float] = {}
    for g in sorted({c["group"] for c in every}):
        rest = [c for c in every if c["group"] != g]
        values = fit(base, rest)
        for r in evaluate(with_values(base, values), [c for c in every if c["group"] == g]):
            held[r.id] = r.error
    return held


def derived(values: dict[str, float]) -> dict[str, float]:
    conv = {
        f"operator_conv_efficiency_default_{prec}": float(f"{statistics.median(values[k] for k in keys):.4g}")
        for prec, keys in DERIVED.items()
    }
    return {**conv, "operator_host_seconds_eager": values[f"operator_host_seconds_eager_{HOST_DEFAULT}"]}


def _derived_why(key: str) -> tuple[str, str]:
    """(unit, why) of a derived value."""
    if key == "operator_host_seconds_eager":
        return "seconds per kernel", (
            f"no validated case: the eager host dispatch of GPUs whose machines have no case here (all but "
            f"{', '.join(_HOSTS)}; H100, L40S, RTX 4090 and MI300X among them) is the newest validated host "
            f"generation's ({HOST_DEFAULT}: {_HOSTS[HOST_DEFAULT]}), an assumption: a machine sold with a newer GPU "
            "dispatches at least as fast; replace with a gpuwise bench measurement of the host"
        )
    prec = key.rsplit("_", 1)[1]
    return _UNIT.get(prec, "fraction of dense peak"), (
        f"no validated case: architectures without a published case here (all but {', '.join(ARCHES)}; CDNA3, "
        f"Ada, Hopper and Blackwell among them) take the median of the fitted {prec} convolution "
        f"efficiencies, a share of {_BASE[prec]}; replace with a gpuwise bench measurement"
    )


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(values: dict[str, float]) -> str:
    lines = [
        "# Generated by scripts/fit_operators.py from corpus/data/operators_accuracy.yaml; do not edit.",
        "# The per-operator conventions fitted to the published cases (merged into conventions.yaml's by the",
        "# loader); their in-sample and leave-one-group-out errors: docs/accuracy-operators.md.",
        "conventions:",
    ]
    for key, (_, unit, why) in PARAMS.items():
        lines.append(f"  {key}:")
        lines += [
            f"    value: {values[key]:.4g}",
            f"    unit: {unit}",
            f"    source: {SOURCE}",
            f"    why: {_quote(why)}",
        ]
    for key, value in derived(values).items():
        unit, why = _derived_why(key)
        lines.append(f"  {key}:")
        lines += [f"    value: {value:.4g}", f"    unit: {unit}", f"    source: {SOURCE}"]
        lines.append(f"    why: {_quote(why)}")
    return "\n".join(lines) + "\n"


def render_cases(held: dict[str, float]) -> str:
    return held_out_yaml(
        [
            "# Generated by scripts/fit_operators.py; do not edit. Every case of operators_accuracy.yaml with its",
            "# error (ours / published - 1) when predicted by values fitted without its table family (out of sample).",
        ],
        held,
    )


def _stats(errors: list[float]) -> str:
    within = sum(abs(e) <= GOAL for e in errors)
    return (
        f"{statistics.median(abs(e) for e in errors):.1%} | {statistics.median(errors):+.1%} | {within}/{len(errors)}"
    )


def render_doc(results: list[Any], held: dict[str, float], groups: int) -> str:
    ins = [r.error for r in results]
    out = [held[r.id] for r in results]
    lines = [
        "# Accuracy of the per-operator time model",
        "",
        "Generated by `python scripts/fit_operators.py` from corpus/data/operators_accuracy.yaml; do not edit",
        "(`--check` fails when it is out of date). `error` = ours / published − 1 (for latencies a positive",
        "error means gpuwise is slower); `bias` = median signed error.",
        "",
        f"**Out of sample**: each of the {groups} table families predicted with the values fitted without it",
        "(leave one group out). **In sample**: the values the catalog holds, fitted on every case.",
        "",
        f"| cases | n | median abs error | bias | within ±{GOAL:.0%} |",
        "| --- | ---: | ---: | ---: | ---: |",
        f"| out of sample (leave one group out) | {len(out)} | {_stats(out)} |",
        f"| in sample (fitted on every case) | {len(ins)} | {_stats(ins)} |",
        "",
        "## Every case",
        "",
        "| case | group | GPU | published | gpuwise | error (in sample) | out of sample |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r.id} | {r.group} | {r.gpu} | {r.published:.4g} | {r.ours:.4g} | {r.error:+.1%} | {held[r.id]:+.1%} |"
        for r in results
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the written files are out of date")
    args = ap.parse_args()
    base, every = build_catalog(), cases()
    values = fit(base, every)
    results = evaluate(with_values(base, {**values, **derived(values)}))
    held = held_out(base, every)
    texts = {
        OUT: render(values),
        CASES_OUT: render_cases(held),
        DOC: render_doc(results, held, len({c["group"] for c in every})),
    }
    return write_or_check(texts, args.check, "python scripts/fit_operators.py")


if __name__ == "__main__":
    sys.exit(main())
