"""Calibration from the team's own measurements: which measurement matches a workload, and the
rate factors with which gpuwise's own model reproduces it.

A serving run (vLLM's benchmark) fixes two factors on this GPU's rates for this model: compute
(matmul and attention: the prompt's chunks, TTFT) and memory bandwidth (the decode steps, TPOT),
found by running the estimator at the measured workload until both match. A training log fixes
one factor on both (tokens per second per GPU). An nccl-tests run inside a node gives the link's
all-reduce bandwidth. Asked at another concurrency, batch or size nearby, the model's own scaling
carries the measured ratio there; too far from every measurement, nothing is applied and the
output says so. Pure: the estimators and plain records in, a Calibration out.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpuwise.calibration.predict import BUSBW_FACTOR, Prediction, predict
from gpuwise.catalog import Catalog
from gpuwise.estimate.bands import DEFAULT_LEVEL, MEASURED_NEAR, MeasuredSpread, size_distance, workload_sizes
from gpuwise.estimate.rates import Calibration

NEAR = MEASURED_NEAR  # a measurement applies within this factor of its prompt, output and sequence lengths
MAX_STEPS = 16  # estimator runs one fit may take
TOLERANCE = 0.001  # a fit stops when every matched figure is within 0.1 % of its measurement
FACTOR_RANGE = (0.05, 20.0)  # rates are never scaled beyond this: a measurement that needs more is not modelled
SERVING_TARGETS = (("ttft.median", "compute"), ("tpot.median", "bandwidth"))
TRAINING_TARGET = "tokens_per_second_per_gpu"
# shape keys whose ratio measures how far the asked workload is from a measured one (the nearest
# measurement is used), and those that must be within NEAR: lengths change what the work is, while
# the model's own scaling carries a measured ratio to another concurrency or batch (which a plan
# chooses itself)
SERVING_SIZES = ("concurrency", "input_tokens", "output_tokens")
TRAINING_SIZES = ("micro_batch", "seq", "global_batch")
SIZES = {"serving": SERVING_SIZES, "training": TRAINING_SIZES}
LENGTHS = ("input_tokens", "output_tokens", "seq")


@dataclass(frozen=True, slots=True)
class Fitted:
    """The calibration one measurement gives, with what it reproduces: figure -> (measured,
    predicted by the model alone, predicted calibrated), at the measured workload."""

    measurement: Any  # a Record
    calibration: Calibration
    figures: Mapping[str, tuple[float, float, float]]
    distance: float = 0.0  # log2 distance of the asked workload from the measured one
    away: str = "the measured workload"
    residual: float = 0.0  # the largest |calibrated/measured - 1| left at the measured workload


@dataclass(frozen=True, slots=True)
class Match:
    """What --calibrated found for one workload on one GPU: the fit used, or why none is."""

    gpu: str
    fitted: Fitted | None = None
    link: Fitted | None = None  # the nccl-tests run inside a node
    why: str | None = None
    repeats: tuple[Any, ...] = field(default_factory=tuple)  # other measurements at the same workload


def distance(asked: Mapping[str, Any], measured: Mapping[str, Any], keys: Sequence[str]) -> float | None:
    """Sum of |log2(asked/measured)| over the sizes both have; None when a length is more than
    NEAR away (another prompt or sequence length is other work, not the measured one scaled)."""
    for k in LENGTHS:
        if k in keys and size_distance(asked, measured, (k,)) > math.log2(NEAR) + 1e-9:
            return None
    return size_distance(asked, measured, keys)


def select(records: Iterable[Any], kind: str, model: str, gpu: str, asked: Mapping[str, Any]) -> tuple[list[Any], str]:
    """The measurements of `kind` for `model` on `gpu` nearest to the `asked` shape (several
    when repeats tie), with words saying how near; none, with the reason, when none is near."""
    keys = SIZES[kind]
    same = [r for r in records if r.kind == kind and r.model == model and r.gpu_id == gpu]
    if not same:
        return [], f"no imported {kind} measurement of {model} on {gpu}"
    near = [(d, r) for r in same if (d := distance(asked, r.shape, keys)) is not None]
    if not near:
        shown = ", ".join(f"#{r.id}" for r in same)
        return [], f"no {kind} measurement of {model} on {gpu} within {NEAR:g}x of these lengths ({shown} are farther)"
    best = min(d for d, _ in near)
    chosen = [r for d, r in near if d <= best + 1e-9]
    return chosen, _away(asked, chosen[0].shape, keys)


def _away(asked: Mapping[str, Any], measured: Mapping[str, Any], keys: Sequence[str]) -> str:
    diffs = [
        f"{k} {measured[k]:g} (asked {asked[k]:g})"
        for k in keys
        if k in asked and k in measured and asked[k] != measured[k]
    ]
    return "measured at " + ", ".join(diffs) if diffs else "the measured workload"


# ----- fitting ------------------------------------------------------------------------------------
def fit(m: Any, catalog: Catalog, base: Calibration | None = None) -> Fitted | None:
    """The factors with which the model reproduces measurement `m` (on top of `base`, the bench
    rates); None when the model cannot estimate its workload or it measured nothing to fit."""
    base = base or Calibration()
    if m.kind == "serving":
        targets = [(f, side) for f, side in SERVING_TARGETS if m.figures.get(f, 0) > 0]
        return _fit_rates(m, catalog, base, targets)
    if m.kind == "training" and m.figures.get(TRAINING_TARGET, 0) > 0:
        return _fit_rates(m, catalog, base, [(TRAINING_TARGET, "both")])
    if m.kind == "collective":
        return _fit_link(m, catalog, base)
    return None


def _fit_rates(m: Any, catalog: Catalog, base: Calibration, targets: list[tuple[str, str]]) -> Fitted | None:
    """Newton's method in log space on the factors (one per target: 'compute', 'bandwidth', or
    'both' for one factor on every rate) until each target figure matches its measurement; the
    Jacobian by finite steps. The closest step is kept, its residual reported."""
    if not targets:
        return None
    cal0 = replace(base, fitted_to=f"measurement {m.label}")
    first = predict(m, catalog, cal0)
    if first.why or not all(f in first.values for f, _ in targets):
        return None
    measured = [m.figures[f] for f, _ in targets]

    def run(x: Sequence[float]) -> tuple[Calibration, Prediction, list[float]] | None:
        cal = _with_factors(cal0, [side for _, side in targets], x)
        pred = predict(m, catalog, cal)
        if pred.why or not all(f in pred.values and pred.values[f] > 0 for f, _ in targets):
            return None
        return cal, pred, [math.log(pred.values[f] / v) for (f, _), v in zip(targets, measured, strict=True)]

    x = [0.0] * len(targets)
    now = run(x)
    best = now
    for _ in range(MAX_STEPS):
        if now is None or max(abs(g) for g in now[2]) < math.log1p(TOLERANCE):
            break
        x = _newton(run, x, now[2])
        now = run(x)
        if now is not None and (best is None or max(map(abs, now[2])) < max(map(abs, best[2]))):
            best = now
    if best is None:
        return None
    cal, pred, errors = best
    figures = {
        f: (m.figures[f], first.values[f], pred.values[f]) for f in first.values if f in m.figures and f in pred.values
    }
    return Fitted(m, cal, figures, residual=math.expm1(max(abs(g) for g in errors)))


def _with_factors(cal: Calibration, sides: Sequence[str], x: Sequence[float]) -> Calibration:
    c = b = 1.0
    for side, value in zip(sides, x, strict=True):
        factor = math.exp(value)
        c *= factor if side in ("compute", "both") else 1.0
        b *= factor if side in ("bandwidth", "both") else 1.0
    return replace(cal, compute_factor=c, bandwidth_factor=b)


STEP = 0.05  # the finite step of the Jacobian, in log factor
MAX_MOVE = 1.0  # the largest change of a log factor in one Newton step (a factor of e)


def _newton(run: Any, x: list[float], g: list[float]) -> list[float]:
    """One damped Newton step for g(x) = 0 (one or two unknowns)."""
    n = len(x)
    columns = []
    for j in range(n):
        probe = run([x[i] + (STEP if i == j else 0.0) for i in range(n)])
        if probe is None:
            return x
        columns.append([(probe[2][i] - g[i]) / STEP for i in range(n)])
    if n == 1:
        slope = columns[0][0]
        dx = [-g[0] / slope] if abs(slope) > 1e-9 else [0.0]
    else:
        (a, c), (b, d) = columns  # J = [[a, b], [c, d]], stored by column
        det = a * d - b * c
        if abs(det) < 1e-9:
            return x
        dx = [(-g[0] * d + g[1] * b) / det, (-g[1] * a + g[0] * c) / det]
    lo, hi = (math.log(v) for v in FACTOR_RANGE)
    return [min(hi, max(lo, xi + max(-MAX_MOVE, min(MAX_MOVE, d)))) for xi, d in zip(x, dx, strict=True)]


def _fit_link(m: Any, catalog: Catalog, base: Calibration) -> Fitted | None:
    """The intra-node link bandwidth that makes gpuwise's ring give the measured time at the
    measured size (its per-hop latencies kept): a run on one host of an all-reduce, all-gather,
    reduce-scatter or all-to-all."""
    from gpuwise.estimate.comm import topology
    from gpuwise.workload import build_hardware

    op, ranks = str(m.shape.get("collective")), int(m.shape.get("ranks") or m.gpu_count)
    hosts = m.facts.get("hosts") or []
    if op not in BUSBW_FACTOR or ranks < 2 or len(hosts) > 1 or "busbw" not in m.figures:
        return None
    first = predict(m, catalog, base)
    if first.why:
        return None
    size, measured = float(m.shape["bytes"]), m.figures["busbw"]
    seconds = BUSBW_FACTOR[op] * (ranks - 1) / ranks * size / measured
    topo = topology(build_hardware(f"{m.gpu_id}:{ranks}", catalog), catalog)
    fixed = topo.base_latency + BUSBW_FACTOR[op] * (ranks - 1) * topo.intra.latency
    link = measured * seconds / (seconds - fixed) if seconds > 2 * fixed else measured
    cal = replace(base, intra_busbw=link, intra_gpus=ranks, intra_source=f"measurement {m.label}")
    after = predict(m, catalog, cal)
    figures = {"busbw": (measured, first.values["busbw"], after.values.get("busbw", math.nan))}
    return Fitted(m, cal, figures, residual=abs(figures["busbw"][2] / measured - 1))


# ----- spread: how sure the measurement itself is --------------------------------------------------
def measured_spread(records: Sequence[Any], figure: str, level: float) -> float | None:
    """Relative half-width of a measured figure at `level`: the largest of its repeats' spread, the
    spread of the log lines it is the median of (the level's central share of them), and the
    sampling error of a median over a serving run's requests (1.2533 x std / sqrt(n)). None when
    the file gives no way to tell."""
    z = statistics.NormalDist().inv_cdf((1 + level) / 2)
    widths: list[float] = []
    values = [r.figures[figure] for r in records if figure in r.figures]
    if len(values) > 1:
        mid = statistics.median(values)
        widths.append((max(values) - min(values)) / 2 / mid)
    for r in records:
        samples = sorted(r.samples.get(figure) or ())
        if len(samples) > 1:
            lo, hi = _quantile(samples, (1 - level) / 2), _quantile(samples, (1 + level) / 2)
            widths.append((hi - lo) / 2 / statistics.median(samples))
        std = (r.facts.get("std_seconds") or {}).get(figure.split(".")[0])
        n = r.facts.get("requests")
        if std and n and r.figures.get(figure):
            widths.append(z * 1.2533 * std / math.sqrt(n) / r.figures[figure])
    return max(widths) if widths else None


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between the closest ranks."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def combined(fits: Sequence[Fitted]) -> Fitted:
    """One calibration from repeats at the same workload: the median of their factors."""
    if len(fits) == 1:
        return fits[0]
    head = fits[0]
    cal = replace(
        head.calibration,
        compute_factor=statistics.median(f.calibration.compute_factor for f in fits),
        bandwidth_factor=statistics.median(f.calibration.bandwidth_factor for f in fits),
        fitted_to=f"the median of {len(fits)} measurements ({', '.join(f'#{f.measurement.id}' for f in fits)})",
    )
    return replace(head, calibration=cal, residual=max(f.residual for f in fits))


# JSON path of a calibrated figure -> the measured figures whose spread it takes (first found)
BAND_SOURCES = {
    "inference.time_to_first_token_seconds": ("ttft.median",),
    "inference.decode_seconds_per_token": ("tpot.median",),
    "inference.latency_seconds": ("e2e.median", "tpot.median"),
    "inference.tokens_per_second": ("output_tokens_per_second", "e2e.median", "tpot.median"),
    "inference.requests_per_second": ("requests_per_second", "e2e.median", "tpot.median"),
    "inference.samples_per_second": ("requests_per_second", "e2e.median", "tpot.median"),
    **{
        f"training.{k}": ("tokens_per_second_per_gpu",)
        for k in ("tokens_per_second", "samples_per_second", "step_seconds", "total_seconds", "gpu_hours")
    },
}


def with_spread(f: Fitted, records: Sequence[Any], level: float) -> Fitted:
    """`f` whose calibration carries the bands of the figures it fits: each the measured spread
    of its figure (or the nearest one measured with a spread) plus what the calibrated model still
    misses at the measured workload."""
    widths: dict[str, float] = {}
    for path, sources in BAND_SOURCES.items():
        spread = next((w for src in sources if (w := measured_spread(records, src, level)) is not None), None)
        if spread is None:
            continue
        own = f.figures.get(sources[0])
        miss = abs(own[2] / own[0] - 1) if own is not None and own[0] else f.residual
        widths[path] = spread + miss
    if not widths:
        return f
    m = f.measurement
    sizes = {k: float(v) for k, v in m.shape.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    ids = ", ".join(f"#{r.id}" for r in records)
    basis = (
        f"the team's measurement {m.label if len(records) == 1 else ids}: its spread at the {level:.0%} level "
        f"and what the calibrated model misses there"
    )
    bands = MeasuredSpread(widths, sizes, len(records), basis)
    return replace(f, calibration=replace(f.calibration, spread=bands))


# ----- the whole answer for one workload on one GPU --------------------------------------------------
def shape_of(work: Any) -> tuple[str, dict[str, float]]:
    """(kind, sizes) of a workload, in the names measurements record."""
    return ("serving" if hasattr(work, "concurrency") else "training"), workload_sizes(work)


def for_workload(
    records: Sequence[Any],
    work: Any,
    gpu: str,
    gpus_per_node: int,
    catalog: Catalog,
    base: Calibration | None = None,
    level: float = DEFAULT_LEVEL,
) -> Match:
    """The calibration of `work` on `gpu` from the team's `records`: the nearest measurement of this
    model on this GPU (repeats at the same workload combined), and the nccl-tests run of a node of
    `gpus_per_node` such GPUs; the calibrated figures' bands are the run's spread at `level`."""
    kind, asked = shape_of(work)
    chosen, away = select(records, kind, work.model.name, gpu, asked)
    link = _link(records, gpu, gpus_per_node, catalog, base)  # first: the rates are fitted over this link
    fits = [f for r in chosen if (f := fit(r, catalog, link.calibration if link else base)) is not None]
    rate = with_spread(replace(combined(fits), away=away), chosen, level) if fits else None
    why = None if rate else (away if not chosen else f"gpuwise cannot reproduce {chosen[0].label}")
    return Match(gpu, rate, link, why, tuple(chosen[1:]))


def _link(records: Sequence[Any], gpu: str, per_node: int, catalog: Catalog, base: Calibration | None) -> Fitted | None:
    """The newest one-host collective run on `per_node` of this GPU (all-reduce first, then the
    largest message), fitted as the intra-node link."""
    if per_node < 2:
        return None
    runs = [
        r
        for r in records
        if r.kind == "collective"
        and r.gpu_id == gpu
        and r.shape.get("ranks") == per_node
        and len(r.facts.get("hosts") or []) <= 1
    ]
    runs.sort(key=lambda r: (r.shape.get("collective") == "all_reduce", r.shape.get("bytes") or 0, r.id))
    return fit(runs[-1], catalog, base) if runs else None


def calibration_of(match: Match) -> Calibration | None:
    """The one Calibration the estimators take: the fitted rates with the measured link."""
    if match.fitted is not None:
        return match.fitted.calibration  # fitted over the measured link, which it carries
    return match.link.calibration if match.link is not None else None


__all__ = [
    "NEAR",
    "Fitted",
    "Match",
    "calibration_of",
    "combined",
    "distance",
    "fit",
    "for_workload",
    "measured_spread",
    "select",
    "shape_of",
]
