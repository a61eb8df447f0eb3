#!/usr/bin/env python3
"""Wall time of whole `gpuwise` processes: start-up (--help) and one estimate.

Targets (issue 2): `gpuwise --help` < 0.5 s, one `estimate` process < 0.5 s on a 2-core machine.
Prints the median and worst of N runs and exits 1 when a median misses its target.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

CASES = {
    "gpuwise --help": (["--help"], 0.5),
    "gpuwise estimate (llama-2-7b qlora on a10, --json)": (
        ["estimate", "--model", "llama-2-7b", "--method", "qlora", "--gpu", "a10", "--json"],
        0.5,
    ),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    exe = shutil.which("gpuwise")
    base = [exe] if exe else [sys.executable, "-m", "gpuwise.cli.app"]
    failed = False
    print(f"{'case':58s} {'median':>9s} {'worst':>9s} {'target':>8s}")
    for name, (argv, target) in CASES.items():
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run(base + argv, check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        failed |= med > target
        flag = "" if med <= target else "  MISSED"
        print(f"{name:58s} {med * 1e3:7.0f}ms {max(times) * 1e3:7.0f}ms {target * 1e3:6.0f}ms{flag}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
