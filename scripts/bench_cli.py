#!/usr/bin/env python3
"""Wall time of whole `gpuwise` processes, as a ratio to a bare `import pydantic, yaml, typer, rich`.

Absolute times swing with the machine's load (on a shared 2-core box the baseline took 70 ms idle
and 176 ms busy), so each case is measured side by side with the baseline process: the runs are
interleaved (baseline, case 1, case 2, ... then again), each ratio is median(case) /
median(baseline), and the targets are ratios (docs/performance.md, "A fast start"): `gpuwise
--help` at most 1.3x (the list of commands builds no pydantic model and imports no rich help
renderer), one `estimate` or `plan` process at most 3x (its values are validated by the schema's
pydantic models). Both wall and CPU time (user + system) are shown; the targets are checked on CPU
time, which other processes on the machine disturb far less than the wall clock (a busy neighbour
stretches a long process's wall time more than the short baseline's). A missed target is printed;
with --strict the script also exits 1.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = [sys.executable, "-c", "import pydantic, yaml, typer, rich"]
BASELINE_NAME = 'python -c "import pydantic, yaml, typer, rich"'
# name -> (gpuwise arguments, the highest allowed ratio to the baseline)
CASES: dict[str, tuple[list[str], float]] = {
    "gpuwise --help": (["--help"], 1.3),
    "gpuwise estimate (llama-2-7b lora on a100-80gb-sxm:1)": (
        ["estimate", "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm:1", "--method", "lora"],
        3.0,
    ),
    "gpuwise plan -f examples/chat-7b-serving.yaml": (["plan", "-f", str(ROOT / "examples/chat-7b-serving.yaml")], 3.0),
}


def _gpuwise() -> list[str]:
    """The installed entry point (what users run), else the module beside this interpreter."""
    exe = shutil.which("gpuwise", path=str(Path(sys.executable).parent)) or shutil.which("gpuwise")
    return [exe] if exe else [sys.executable, "-m", "gpuwise.cli.app"]


def _env(scratch: Path) -> dict[str, str]:
    """The caller's environment, with bytecode and the catalog cache kept in `scratch`.

    An installed package runs from compiled bytecode; PYTHONDONTWRITEBYTECODE (set in some
    sandboxes) would make every run recompile gpuwise's modules and none of the baseline's.
    """
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(scratch / "pycache"), XDG_CACHE_HOME=str(scratch / "cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("COLUMNS", "100")  # the same help layout in a terminal and in CI
    return env


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one process; its exit status is ignored
    (plan exits 1 when nothing fits)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # grows by the child just reaped
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(runs: int, cases: dict[str, list[str]]) -> dict[str, list[tuple[float, float]]]:
    """Interleaved (wall, CPU) times: every round runs the baseline and then each case once."""
    times: dict[str, list[tuple[float, float]]] = {"baseline": [], **{name: [] for name in cases}}
    commands = {"baseline": BASELINE, **cases}
    with tempfile.TemporaryDirectory(prefix="gpuwise-bench-cli-") as scratch:
        env = _env(Path(scratch))
        for argv in commands.values():  # one warm-up each: bytecode, catalog cache, disk cache
            _run(argv, env)
        for _ in range(runs):
            for name, argv in commands.items():
                times[name].append(_run(argv, env))
    return times


def _medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="Rounds of interleaved runs (default 7).")
    ap.add_argument(
        "--strict", action="store_true", help="Exit 1 when a ratio misses its target (CI prints them; see the note)."
    )
    args = ap.parse_args()
    if args.runs < 1:
        ap.error(f"--runs must be at least 1; got {args.runs}")
    base = _gpuwise()
    times = measure(args.runs, {name: base + argv for name, (argv, _) in CASES.items()})
    ref_wall, ref_cpu = _medians(times["baseline"])
    print(f"{'case':56s} {'wall':>7s} {'ratio':>6s} {'CPU':>7s} {'ratio':>6s} {'target':>7s}")
    print(f"{BASELINE_NAME:56s} {ref_wall * 1e3:5.0f}ms {1:5.2f}x {ref_cpu * 1e3:5.0f}ms {1:5.2f}x")
    failed = False
    for name, (_, target) in CASES.items():
        wall, cpu = _medians(times[name])
        failed |= cpu / ref_cpu > target
        flag = "" if cpu / ref_cpu <= target else "  MISSED"
        print(
            f"{name:56s} {wall * 1e3:5.0f}ms {wall / ref_wall:5.2f}x {cpu * 1e3:5.0f}ms {cpu / ref_cpu:5.2f}x "
            f"{target:6.2f}x{flag}"
        )
    if failed:
        print("a start-up target is missed: see 'A fast start' in docs/performance.md")
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
