#!/usr/bin/env python3
"""How long published hosts take to issue a kernel: the per-kernel host time each host-bound eager
generate loop of the diagnostic holdouts implies, against the default every estimate takes.

Why: an eager decode step (a Transformers generate loop, TGI before 2.0, vLLM with --enforce-eager) is
its kernels times the host's seconds a kernel, and gpuwise takes one figure for every host
(`decode_host_seconds_eager`, 23 us, from gpt-fast's machine). This script asks the published runs how
far hosts differ, which is what `gpuwise bench launch` and `--calibrated` are for.

Method: each inference case of the diagnostic holdouts (corpus/holdout.py SETS whose misses were read: their file
carries `diagnostic_since`; the unread ones, the judge among them, are never read here)
whose scored options issue every kernel from Python is estimated twice through `--calibrated`'s own
path (a Calibration carrying the launch time): at the default and at twice it. Its predicted time is
then a + b x (seconds a kernel); a case whose host term is at least `HOST_SHARE` of it at the default is
host-bound, and its measured time implies the host's figure (measured - a) / b. Each document weighs
once in the summary (its cases' median). Reads the holdouts as evidence about hosts only: no model
constant is fitted here. Writes the table of docs/time-model.md between its markers; `--check` fails if
it is out of date. Run from the repository root: `python scripts/host_launch_evidence.py`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus import holdout  # noqa: E402
from corpus.generated import write_or_check  # noqa: E402
from gpuwise.api import make_estimate  # noqa: E402
from gpuwise.catalog import load_catalog  # noqa: E402
from gpuwise.errors import GpuwiseError  # noqa: E402
from gpuwise.estimate.rates import Calibration, LaunchTimes  # noqa: E402

DOC = ROOT / "docs" / "time-model.md"
BEGIN = "<!-- host_launch_evidence.py: table -->"
END = "<!-- end of host_launch_evidence.py's table -->"
HOST_SHARE = 0.7  # of the predicted time at the default: the host, not the GPU, sets the pace


@dataclass(frozen=True)
class Implied:
    holdout: int
    id: str
    engine: str
    gpu: str
    source: str
    seconds: float  # the host's seconds a kernel the measurement implies


def _seconds(options: dict[str, object], metric: str, per: float | None) -> float | None:
    """The case's predicted time (a rate turned into its time) with the host at `per` a kernel."""
    opts = dict(options)
    if str(opts.get("model", "")).endswith(".json"):
        opts["model"] = str(ROOT / str(opts["model"]))
    work, hardware = holdout.split(opts)
    gpu = load_catalog().gpu(str(hardware["gpu"]).split(":")[0]).id  # the id the calibration is keyed by
    cals = {gpu: Calibration(launch=LaunchTimes(per, per, per))} if per else None
    value = holdout.figure(metric, make_estimate(work, hardware, cals).as_dict())
    if not value:
        return None
    return value if holdout.METRICS[metric].time else 1 / value


def implied(case: dict[str, object], number: int, default: float) -> Implied | None:
    """The host's figure a host-bound eager case implies; None for any other case."""
    if case["kind"] != "inference":
        return None
    try:
        options, _, _, _ = holdout.resolve(case)
        metric = str(case["metric"])
        at, twice = _seconds(options, metric, None), _seconds(options, metric, 2 * default)
    except GpuwiseError:
        return None
    if at is None or twice is None or twice <= at:
        return None
    slope = (twice - at) / default
    if slope * default < HOST_SHARE * at:
        return None
    measured = holdout.published_si(case)
    measured = measured if holdout.METRICS[metric].time else 1 / measured
    source = str(case["source"]["url"]).split("/blob/")[0]  # type: ignore[index]
    gpu = str(options["gpu"])
    return Implied(
        number, str(case["id"]), str(options.get("engine", "")), gpu, source, (measured - at) / slope + default
    )


def gather() -> list[Implied]:
    default = load_catalog().convention("decode_host_seconds_eager")
    out = []
    for number, hs in sorted(holdout.SETS.items()):
        doc = holdout.load(hs.data)
        if not doc.get("diagnostic_since"):  # out of sample and unread: never read here
            continue
        for case in doc["cases"]:
            if (got := implied(case, number, default)) is not None:
                out.append(got)
    return out


def render(rows: list[Implied], default: float) -> str:
    per_source: dict[str, list[float]] = {}
    for r in rows:
        per_source.setdefault(r.source, []).append(r.seconds)
    by_doc = [statistics.median(v) for v in per_source.values()]
    us = sorted(r.seconds * 1e6 for r in rows)
    q1, q2, q3 = statistics.quantiles(us, n=4)
    lines = [
        BEGIN,
        "| holdout | case | engine | GPU | implied host time a kernel |",
        "| ---: | --- | --- | --- | ---: |",
        *(
            f"| {r.holdout} | {r.id} | {r.engine} | {r.gpu} | {r.seconds * 1e6:.1f} us |"
            for r in sorted(rows, key=lambda r: r.seconds)
        ),
        "",
        f"{len(rows)} host-bound cases from {len(by_doc)} documents: median {q2:.1f} us a kernel (quartiles "
        f"{q1:.1f}-{q3:.1f} us, {us[0]:.1f}-{us[-1]:.1f} us in all); each document once, median "
        f"{statistics.median(by_doc) * 1e6:.1f} us; the default `decode_host_seconds_eager` is {default * 1e6:.0f} us.",
        END,
    ]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/time-model.md's table is out of date")
    args = ap.parse_args()
    default = load_catalog().convention("decode_host_seconds_eager")
    table = render(gather(), default)
    doc = DOC.read_text(encoding="utf-8")
    head, rest = doc.split(BEGIN, 1)
    text = head + table + rest.split(END, 1)[1]
    return write_or_check({DOC: text}, args.check, "python scripts/host_launch_evidence.py")


if __name__ == "__main__":
    sys.exit(main())
