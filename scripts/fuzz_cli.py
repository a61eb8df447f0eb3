"""A bounded, seeded fuzzer over every gpuwise command, in-process through `gpuwise.cli.app:main`.

    python scripts/fuzz_cli.py [--count 2000] [--seed 12] [--db URL] [--timeout 20]

Each invocation draws a command (gpus, models, estimate, plan, tco, fleet, doctor --replay,
exporter --print-rules/--once, deploy --dry-run, bench accept, matrix, describe) and fills its
options with plausible and hostile values, including the malformed files of corpus/data/hostile/
and big ones made here (100,000-deep JSON, 3,000-deep YAML, files over the size limit). Then the
edge-case corpus runs: every hostile file through every door that reads that kind of file.

Counted: invocations, tracebacks (exit 70 or an exception escaping main), hangs (over --timeout
seconds, by SIGALRM), non-finite numbers in JSON output, and exit codes other than 0, 1, 2.
The goal is 0 of each; the exit status is 1 when any is found.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOSTS = ROOT / "examples" / "hosts"
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(ROOT))
from corpus import HOSTILE  # noqa: E402 - the repository root is put on the path first
from corpus.hostile import HOSTILE_TEXT, all_finite  # noqa: E402

TEXT = HOSTILE_TEXT
NUMBERS = ["0", "1", "2", "0.5", "3", "10", "1e9", "1e308", "-5", "nan", "inf", "-inf", "9" * 400, "1e-300", "abc"]


def make_big_files(folder: Path) -> dict[str, Path]:
    """Hostile files too big to keep in the repository: deep nesting, over the size limit."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "deep-config.json": '{"hidden_size": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "deep.yaml": "a:\n" + "".join("  " * i + "- \n" for i in range(1, 3000)),
        "deep-flow.yaml": "model: " + "[" * 3000 + "]" * 3000 + "\n",
        "big.yaml": "model: llama-2-7b\n" + "# padding\n" * 500_000,
        "big.json": '{"results": [' + ",".join(["1"] * 2_500_000) + "]}",
    }
    out = {}
    for name, text in files.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        out[name] = path
    return out


def hostile_files(big: dict[str, Path]) -> list[Path]:
    """Every malformed file: the corpus in corpus/data/hostile/ and the generated big ones."""
    return sorted(p for p in HOSTILE.iterdir() if p.is_file()) + list(big.values())


@dataclass
class Tally:
    invocations: int = 0
    tracebacks: int = 0
    hangs: int = 0
    non_finite_json: int = 0
    bad_exit: int = 0
    exits: Counter[int] = field(default_factory=Counter)
    by_command: Counter[str] = field(default_factory=Counter)
    by_exit: Counter[str] = field(default_factory=Counter)
    findings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "invocations": self.invocations,
            "tracebacks": self.tracebacks,
            "hangs": self.hangs,
            "non_finite_json": self.non_finite_json,
            "bad_exit": self.bad_exit,
            "exit_codes": dict(sorted(self.exits.items())),
            "by_command": dict(sorted(self.by_command.items())),
            "by_command_and_exit": dict(sorted(self.by_exit.items())),
        }


class _Hang(BaseException):
    """Raised by the alarm; a BaseException so that main's `except Exception` cannot swallow it."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang


def _json_ok(out: str) -> bool:
    """False when stdout is JSON holding NaN or an infinity."""
    text = out.strip()
    if not text.startswith(("{", "[")):
        return True

    def bad(_: str) -> Any:
        raise OverflowError

    try:
        return all_finite(json.loads(text, parse_constant=bad))
    except OverflowError:
        return False
    except ValueError:  # not one JSON document (a table that starts with a bracket): nothing to check
        return True


def invoke(args: list[str], timeout: float) -> tuple[int | None, str, str, bool]:
    """(exit code, stdout, stderr, hung) of `gpuwise ARGS` run in this process."""
    from gpuwise.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    argv, code, hung = sys.argv, None, False
    sys.argv = ["gpuwise", *args]
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except _Hang:
        hung = True
    except Exception as exc:  # escaped main: a traceback
        err.write(f"Traceback (escaped main): {type(exc).__name__}: {exc}\n")
        code = 70
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.argv = argv
    return code, out.getvalue(), err.getvalue(), hung


def record(tally: Tally, args: list[str], timeout: float) -> None:
    code, out, err, hung = invoke(args, timeout)
    tally.invocations += 1
    grouped = args[:2] if args[:1] in (["fleet"], ["bench"]) else args[:1]
    tally.by_command[" ".join(grouped)[:20]] += 1
    tally.by_exit[f"{' '.join(grouped)[:20]} -> {code}"] += 1
    shown = " ".join(a if len(a) < 80 else a[:40] + "..." for a in args)
    if hung:
        tally.hangs += 1
        tally.findings.append(f"HANG: {shown}")
        return
    assert code is not None
    tally.exits[code] += 1
    if code == 70 or "Traceback" in err:
        tally.tracebacks += 1
        lines = err.strip().splitlines() or [""]
        cause = next((line for line in lines if line.startswith(("internal error", "Traceback"))), lines[-1])
        tally.findings.append(f"TRACEBACK: {shown}\n    {cause[:300]}")
    elif code not in (0, 1, 2):
        tally.bad_exit += 1
        tally.findings.append(f"EXIT {code}: {shown}")
    if not _json_ok(out):
        tally.non_finite_json += 1
        tally.findings.append(f"NON-FINITE JSON: {shown}")


# ----- invocation generators ------------------------------------------------------------------
class Gen:
    """Draws one invocation per command, half plausible, half hostile."""

    def __init__(self, rng: random.Random, db: str, files: list[Path], work: Path) -> None:
        self.rng, self.db, self.files, self.work = rng, db, files, work
        self.calm = False  # True: this invocation draws plausible values only (the working paths)
        self.replays = sorted(HOSTS.glob("*.json"))  # the corpus's broken replays come as the hostile files
        self.plans = sorted(EXAMPLES.glob("*.yaml"))

    def pick(self, *options: Any) -> Any:
        """One of `options`; the ones before a TEXT splat are plausible, drawn 70 % of the time."""
        plausible = [o for o in options if o not in TEXT]
        hostile = [o for o in options if o in TEXT]
        if plausible and (not hostile or self.calm or self.rng.random() < 0.7):
            return self.rng.choice(plausible)
        return self.rng.choice(hostile)

    def number(self, plausible: list[str]) -> str:
        if self.calm or self.rng.random() < 0.7:
            return self.rng.choice(plausible)
        return self.rng.choice(NUMBERS + TEXT)

    def file(self, plausible: list[Path]) -> str:
        if plausible and (self.calm or self.rng.random() < 0.6):
            return str(self.rng.choice(plausible))
        return str(self.rng.choice([*self.files, self.work / "missing.json", Path("/dev/null"), Path("x" * 5000)]))

    def maybe(self, p: float = 0.5) -> bool:
        return self.rng.random() < p

    def gpus(self) -> list[str]:
        args = ["gpus"]
        if self.maybe():
            args += ["--vendor", self.pick("nvidia", "amd", *TEXT)]
        if self.maybe():
            args += ["--min-memory", self.pick("40GB", "48GiB", "1e400GB", "-1GB", *TEXT)]
        if self.maybe():
            args += ["--sort", self.pick("name", "memory", "price", "cloud", "release", *TEXT)]
        if self.maybe():
            args += ["--arch", self.pick("hopper", "ampere", *TEXT)]
        return [*args, *(["--json"] if self.maybe(0.7) else [])]

    def models(self) -> list[str]:
        args = ["models"]
        if self.maybe():
            args += ["--task", self.pick("llm", "vision", "encoder", *TEXT)]
        return [*args, *(["--json"] if self.maybe(0.7) else [])]

    def _workload(self) -> list[str]:
        model = self.pick("llama-2-7b", "resnet-50", "bert-base-uncased", "mistral-7b-v0.1", *TEXT)
        if self.maybe(0.2):
            model = self.file([p for p in self.files if p.name.startswith("config-")])
        args = ["--model", model]
        for flag, plausible in (
            ("--task", ["pretrain", "finetune", "inference"]),
            ("--precision", ["bf16", "fp16", "fp8"]),
            ("--micro-batch", ["1", "4", "9" * 400]),
            ("--seq", ["2048", "4096"]),
            ("--tokens", ["1e9", "1e400"]),
            ("--concurrency", ["8", "64"]),
            ("--tp", ["1", "2", "8"]),
            ("--decode-ms", ["20", "inf"]),
        ):
            if self.maybe(0.15):
                args += [flag, self.number(plausible)]
        if self.maybe(0.1):
            args += ["-f", self.file(self.plans)]
        return args

    def estimate(self) -> list[str]:
        gpu = self.pick("a10", "h100-sxm:8", "l4:2", "t4", "h100-sxm:0", "h100-sxm:1e9", *TEXT)
        return ["estimate", *self._workload(), "--gpu", gpu, "--json"]

    def plan(self) -> list[str]:
        args = ["plan", *self._workload(), "--gpus", self.pick("a10", "l4", "a10,t4", "h100-sxm")]
        for flag, plausible in (("--qps", ["1", "20"]), ("--deadline", ["30d", "1h30m"]), ("--budget", ["1000"])):
            if self.maybe(0.3):
                args += [flag, self.number(plausible)]
        return [*args, "--json"]

    def tco(self) -> list[str]:
        args = ["tco", "--gpu", self.pick("h100-sxm:8", "a10", "mi300x:8", "a10:0", *TEXT)]
        if self.maybe():
            args += ["--years", self.number(["1", "3", "5"])]
        if self.maybe():
            args += ["--busy", self.number(["0.5", "1"])]
        if self.maybe(0.3) and not self.calm:
            args += ["--costs", self.file([p for p in self.files if p.name.startswith("costs-")])]
        return [*args, *(["--json"] if self.maybe(0.7) else [])]

    def fleet(self) -> list[str]:
        sub = self.pick("scan", "inspect", "list", "retire", "evaluate")
        args = [
            "fleet",
            sub,
            "--db",
            self.db if self.maybe(0.9) else self.pick("postgresql+nodriver://u:pw@h/db", *TEXT),
        ]
        if sub in ("scan", "inspect"):
            args += ["--replay", self.file(self.replays)]
            if self.maybe():
                args += ["--samples", self.number(["1", "2", "3"])]
            if self.maybe():
                args += ["--interval", self.number(["0", "0"])]
            else:
                args += ["--interval", "0"]
        elif sub == "list":
            if self.maybe():
                args += ["--status", self.pick("active", "watch", "retired", *TEXT)]
            if self.maybe():
                args += ["--host", self.pick("hgx-h100-07", *TEXT)]
        elif sub == "retire":
            args = [
                "fleet",
                "retire",
                self.pick("GPU-5c1d", "GPU-", *TEXT),
                "--reason",
                self.pick("bad", "", " "),
                *args[2:],
            ]
        else:
            if self.maybe() and not self.calm:
                args += ["--rules", self.file([p for p in self.files if p.name.startswith("rules-")])]
            if self.maybe(0.3) and not self.calm:
                args += ["--acceptance", self.file([p for p in self.files if p.name.startswith("acceptance-")])]
        return [*args, *(["--json"] if self.maybe(0.7) else [])]

    def doctor(self) -> list[str]:
        args = ["doctor", "--replay", self.file(self.replays), "--interval", self.number(["0", "0"])]
        if self.maybe(0.2):
            records = [self.work / "rec.json", Path("/dev/null/x"), self.work / ("x" * 5000)]
            args += ["--record", str(self.rng.choice(records))]
        return [
            *args,
            *(["--json"] if self.maybe(0.7) else []),
            *([self.pick("--no-latency")] if self.maybe(0.2) else []),
        ]

    def exporter(self) -> list[str]:
        mode = self.pick("--print-rules", "--print-dashboard", "--once")
        args = ["exporter", mode]
        if mode == "--once":
            args += ["--replay", self.file(self.replays)]
        if self.maybe(0.3):
            args += ["--port", self.number(["9400"])]
        return args

    def deploy(self) -> list[str]:
        plans = self.plans + [p for p in self.files if p.suffix == ".yaml"]
        args = ["deploy", self.file(plans), "--dry-run"]
        if self.maybe(0.3):
            args += ["--sharing", self.pick("none", "auto", "mig", "time-slicing", *TEXT)]
        if self.maybe(0.3):
            args += ["--engine", self.pick("vllm", "triton", *TEXT)]
        if self.maybe(0.2):
            crds = [HOSTILE / "crds-malformed", HOSTILE / "crds-bad-schema", self.work, Path("x" * 5000)]
            args += ["--crds", str(self.rng.choice(crds))]
        if self.maybe(0.2):  # writes: only under the temporary folder, or where nothing can be written
            out = [self.work / "out", Path("/dev/null/out"), self.work / ("x" * 5000)]
            args = [a for a in args if a != "--dry-run"] + ["-o", str(self.rng.choice(out))]
        return [*args, *(["--json"] if self.maybe(0.6) else [])]

    def bench(self) -> list[str]:
        results = [HOSTILE / "results-good.json"]
        if self.maybe(0.1):
            return ["bench", self.pick("nosuchbench", *TEXT), "--no-store"]
        args = ["bench", "accept", "--results", self.file(results), "--baseline"]
        args += [self.file(results) if self.maybe(0.8) else "db", "--db", self.db]
        if self.maybe():
            args += ["--tolerance", self.number(["0.1", "0.05"])]
        return [*args, *(["--json"] if self.maybe(0.7) else [])]

    def matrix(self) -> list[str]:
        return [
            "matrix",
            "--db",
            self.db if self.maybe(0.8) else self.pick(f"sqlite:///{HOSTILE / 'empty.json'}/x.db", *TEXT),
            "--json",
        ]

    def describe(self) -> list[str]:
        return [
            "describe",
            self.pick("nofile.py:Net", "x" * 5000, ":", *TEXT),
            "--input-shape",
            self.pick("1,3,224,224", *TEXT),
        ]

    def unknown(self) -> list[str]:
        return self.pick([self.pick(*TEXT)], ["--help"], ["fleet"], ["estimate"], ["tco"], ["deploy"])


WEIGHTS = {
    "gpus": 1,
    "models": 1,
    "estimate": 3,
    "plan": 2,
    "tco": 2,
    "fleet": 3,
    "doctor": 2,
    "exporter": 1,
    "deploy": 2,
    "bench": 2,
    "matrix": 1,
    "describe": 0.5,
    "unknown": 0.5,
}


def edge_cases(db: str, files: list[Path]) -> list[list[str]]:
    """Every hostile file through every door that reads that kind of file, and the flag edge cases."""
    cases: list[list[str]] = []
    for f in files:
        p = str(f)
        cases += [
            ["estimate", "-f", p, "--gpu", "a10", "--json"],
            ["plan", "-f", p, "--gpus", "a10", "--json"],
            ["estimate", "--model", p, "--gpu", "a10", "--json"],
            ["tco", "--gpu", "h100-sxm:8", "--costs", p, "--json"],
            ["doctor", "--replay", p, "--json", "--interval", "0"],
            ["exporter", "--once", "--replay", p],
            ["fleet", "scan", "--replay", p, "--db", db, "--interval", "0", "--json"],
            ["fleet", "inspect", "--replay", p, "--db", db, "--interval", "0", "--json"],
            ["fleet", "evaluate", "--rules", p, "--db", db, "--json"],
            ["fleet", "evaluate", "--acceptance", p, "--db", db, "--json"],
            ["deploy", p, "--dry-run", "--json"],
            ["bench", "accept", "--results", p, "--baseline", str(HOSTILE / "results-good.json"), "--json"],
            ["bench", "accept", "--results", str(HOSTILE / "results-good.json"), "--baseline", p, "--json"],
        ]
    for d in ("crds-malformed", "crds-bad-schema"):
        cases.append(["deploy", str(EXAMPLES / "chat-7b-p99.yaml"), "--dry-run", "--crds", str(HOSTILE / d)])
    cases += [
        ["tco", "--gpu", "h100-sxm:8", "--years", "nan", "--json"],
        ["tco", "--gpu", "h100-sxm:8", "--years", "1e308", "--json"],
        ["tco", "--gpu", "h100-sxm:8", "--busy", "inf", "--json"],
        ["fleet", "scan", "--replay", str(HOSTS / "healthy-8x-h100-nvlink.json"), "--db", db, "--samples", "9" * 30],
        ["fleet", "scan", "--replay", str(HOSTS / "healthy-8x-h100-nvlink.json"), "--db", db, "--interval", "1e308"],
        ["fleet", "scan", "--replay", str(HOSTS / "healthy-8x-h100-nvlink.json"), "--db", db, "--interval", "nan"],
        ["fleet", "list", "--db", "postgresql+nodriver://admin:hunter2@db.example/x"],
        ["matrix", "--db", f"sqlite:///{HOSTILE / 'empty.json'}/x.db"],  # a file where the folder would be
        ["matrix", "--db", "sqlite:///" + "x" * 300 + "/x.db"],
        ["doctor", "--replay", str(HOSTS / "faulty-8x-a100.json"), "--interval", "inf"],
        ["exporter", "--once", "--port", "nan", "--replay", str(HOSTS / "faulty-8x-a100.json")],
        ["bench", "accept", "--results", str(HOSTILE / "results-good.json"), "--baseline", "db", "--tolerance", "nan"],
        ["estimate", "--model", "x" * 5000, "--gpu", "a10", "--json"],
        ["estimate", "--model", "llama-2-7b", "--gpu", "a10", "--micro-batch", "9" * 400, "--json"],
        ["estimate", "--model", "llama-2-7b", "--gpu", "a10", "--tokens", "1e400", "--json"],
        ["gpus", "--min-memory", "1e400GB", "--json"],
    ]
    return cases


def run(count: int, seed: int, db: str | None, timeout: float, quiet: bool = False, corpus: bool = True) -> Tally:
    """`count` random invocations, then (with `corpus`) the edge-case corpus; a tally of what went wrong."""
    rng = random.Random(seed)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="gpuwise-fuzz-") as tmp:
        work = Path(tmp)
        url = db or f"sqlite:///{work / 'fuzz.db'}"
        files = hostile_files(make_big_files(work / "big"))
        gen = Gen(rng, url, files, work)
        names, weights = list(WEIGHTS), list(WEIGHTS.values())
        start = time.monotonic()
        for i in range(count):
            gen.calm = rng.random() < 0.4
            record(tally, getattr(gen, rng.choices(names, weights)[0])(), timeout)
            if not quiet and (i + 1) % 250 == 0:
                print(f"  {i + 1} invocations, {time.monotonic() - start:.0f} s", file=sys.__stderr__, flush=True)
        for args in edge_cases(url, files) if corpus else []:
            record(tally, args, timeout)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="random invocations (the corpus runs after them)")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--db", help="store URL for the fleet commands (default: a throw-away SQLite file)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds before an invocation counts as a hang")
    opts = parser.parse_args(argv)
    started = time.monotonic()
    tally = run(opts.count, opts.seed, opts.db, opts.timeout)
    for line in tally.findings[:60]:
        print(line)
    summary: dict[str, Any] = {**tally.as_dict(), "seconds": round(time.monotonic() - started, 1), "seed": opts.seed}
    print(json.dumps(summary, indent=2))
    bad = tally.tracebacks + tally.hangs + tally.non_finite_json + tally.bad_exit
    return 1 if bad else 0


__all__ = ["Tally", "edge_cases", "hostile_files", "invoke", "make_big_files", "run"]

if __name__ == "__main__":
    raise SystemExit(main())
