"""A bounded, seeded fuzzer over every gpuwise command, in-process through `gpuwise.cli.app:main`.

    python scripts/fuzz_cli.py [--count 2000] [--seed 12] [--db URL] [--timeout 20]

Each invocation draws a command (gpus, models, estimate, plan, tco, fleet, doctor --replay,
exporter --print-rules/--once, deploy --dry-run, deploy ops, bench accept, matrix, prices --prices,
rollout plan|status|record, describe) and fills its options with plausible and hostile values,
including the malformed files of corpus/data/hostile/ and big ones made here (100,000-deep JSON,
3,000-deep YAML, files over the size limit), prices files (a 500-offer export, prices no rental has),
hosts files, and Python files for describe (a module, and files that loop, exit, fail to import).
The store starts with the example hosts scanned, so that roll-outs can be planned. Then the
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


PRICE_LINE = (
    "- {{gpu: {gpu}, provider: ourcloud, instance: team-{i}, gpus_per_instance: {n}, link: {link},"
    " region: r{i}, price_model: on-demand, currency: {cur}, price_per_hour: {price}, date: '2026-11-01',"
    " source: 'row {i}', available: true}}"
)

DESCRIBE_FILES = {
    "net.py": "from torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = nn.Linear(8, 4)\n\n    def forward(self, x):\n        return self.fc(x)\n\n\n"
    "class NeedsArgs(nn.Module):\n    def __init__(self, width):\n        super().__init__()\n",
    "loops.py": "while True:\n    pass\n",
    "exits.py": "import sys\nsys.exit(3)\n",
    "exits_hard.py": "import os\nos._exit(0)\n",
    "raises.py": "raise RuntimeError('broken at import')\n",
    "syntax.py": "def (:\n",
    "plain.py": "class Net:\n    pass\n",
}


def make_user_files(folder: Path) -> dict[str, list[Path]]:
    """Plausible and odd files of the kinds the newer doors read: prices, hosts, Python modules."""
    folder.mkdir(parents=True, exist_ok=True)

    def offers(name: str, rows: list[dict[str, Any]]) -> Path:
        base = {"gpu": "h100-sxm", "n": 8, "link": "nvswitch", "cur": "USD", "price": 31.5}
        (folder / name).write_text("offers:\n" + "\n".join(PRICE_LINE.format(**{**base, **r}) for r in rows) + "\n")
        return folder / name

    prices = [
        EXAMPLES / "prices" / "team-rates.yaml",
        offers("export.yaml", [{"i": i, "price": 20 + i / 100} for i in range(500)]),
        offers("cny.yaml", [{"i": 1, "cur": "CNY", "price": 180.0, "gpu": "a100-80gb-sxm"}]),
        offers("denormal.yaml", [{"i": 1, "price": "5e-324"}]),
        offers("zero.yaml", [{"i": 1, "price": 0}]),
        offers("huge.yaml", [{"i": 1, "price": "1e308"}]),
        offers("nan.yaml", [{"i": 1, "price": ".nan"}]),
        offers("unknown-gpu.yaml", [{"i": 1, "gpu": "h1000"}]),
        offers("odd-currency.yaml", [{"i": 1, "cur": "XYZ"}]),
        offers("one-gpu.yaml", [{"i": 1, "n": 1, "link": "none", "price": 2.1}]),
    ]
    aliased = folder / "aliased.yaml"
    aliased.write_text(
        "base: &o {gpu: l4, provider: ourcloud, instance: l4-1x, gpus_per_instance: 1, link: none, region: any,"
        " price_model: on-demand, currency: USD, price_per_hour: 0.7, date: '2026-11-01', source: x,"
        " available: true}\noffers: [*o, *o, *o]\n"
    )
    prices.append(aliased)
    replay = {"hgx-h100-07": "healthy-8x-h100-nvlink", "dgx-a100-12": "faulty-8x-a100",
              "ws-rtx": "workstation-2x-rtx4090-pcie"}  # fmt: skip
    hosts = folder / "hosts.yaml"
    hosts.write_text(
        "hosts:\n"
        + "".join(
            f"  {h}: {{pool: {'dev' if h == 'ws-rtx' else 'train'}, k8s_node: {h},"
            f" doctor_replay: {HOSTS / (r + '.json')}}}\n"
            for h, r in replay.items()
        )
    )
    unknown = folder / "hosts-unknown.yaml"
    unknown.write_text("hosts:\n  hgx-h100-7: {pool: train}\n")
    extra = folder / "hosts-extra-key.yaml"
    extra.write_text("hosts:\n  ws-rtx: {pool: dev, k8s-node: ws}\n")
    python = []
    for name, text in DESCRIBE_FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
        python.append(folder / name)
    return {"prices": prices, "hosts": [hosts, unknown, extra], "python": python}


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
    grouped = args[:2] if args[:1] in (["fleet"], ["bench"], ["rollout"]) or args[:2] == ["deploy", "ops"] else args[:1]
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

    def __init__(
        self, rng: random.Random, db: str, files: list[Path], work: Path, user: dict[str, list[Path]] | None = None
    ) -> None:
        self.rng, self.db, self.files, self.work = rng, db, files, work
        self.user = user or make_user_files(work / "user")
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
        sub = self.pick("scan", "inspect", "list", "retire", "evaluate", "view")
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
        elif sub == "view":
            if self.maybe():
                args += ["--tolerance", self.number(["0.1", "0.05"])]
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

    def deploy_ops(self) -> list[str]:
        args = ["deploy", "ops"]
        if self.maybe(0.4):  # writes: only under the temporary folder, or where nothing can be written
            out = [self.work / "ops", self.work / "ops", Path("/dev/null/ops"), self.work / "user" / "net.py"]
            args += ["-o", str(self.rng.choice(out))]
        else:
            args.append("--dry-run")
        nodes = ["gpu-01:8", "gpu-02:4:h100-sxm", "gpu-03:8:h100-sxm", "gpu-04:2:a100-80gb-sxm", "gpu-05"]
        for _ in range(self.rng.randrange(4)):
            args += ["--node", self.pick(*nodes, "a b:8", "n1:0", "n1:many", "Gpu_01:8", "n1:8:h1000", *TEXT)]
        if self.maybe(0.2):
            args += ["--db", self.db]
        if self.maybe(0.2):
            args += ["--namespace", self.pick("gpuwise-ops", "ops", *TEXT)]
        if self.maybe(0.2):
            args += ["--network", self.pick("ib-ndr", "roce-400g", "4x400g", *TEXT)]
        if self.maybe(0.1):
            args += ["--crds", str(self.rng.choice([HOSTILE / "crds-malformed", self.work]))]
        return [*args, *(["--json"] if self.maybe(0.6) else [])]

    def prices(self) -> list[str]:
        args = ["prices"]
        if self.maybe(0.8):
            args += ["--prices", self.file(self.user["prices"])]
        for flag, plausible in (
            ("--gpu", ["h100-sxm", "a100-80gb-sxm", "l4"]),
            ("--provider", ["aws", "ourcloud", "aws,lambda"]),
            ("--price-model", ["on-demand", "spot", "1y", "3y"]),
            ("--region", ["us", "r1"]),
            ("--max-age", ["12m", "1y", "30d"]),
        ):
            if self.maybe(0.2):
                args += [flag, self.pick(*plausible, *TEXT)]
        if self.maybe(0.3):
            args.append("--cheapest")
        return [*args, *(["--json"] if self.maybe(0.6) else [])]

    def rollout(self) -> list[str]:
        sub = self.pick("plan", "plan", "status", "record")
        db = self.db if self.maybe(0.95) else self.pick(*TEXT)
        rid = self.pick("1", "2", "3", "99999999999999999999", "-1", "2147483648", *TEXT)
        hosts = ["hgx-h100-07", "dgx-a100-12", "ws-rtx", "nosuch"]
        if sub == "status":
            args = ["rollout", "status", "--db", db]
            if self.maybe(0.7):
                args += ["--rollout", rid]
            if self.maybe(0.3):
                args.append(self.pick("--check", "--real"))
            return [*args, *(["--json"] if self.maybe(0.6) else [])]
        if sub == "record":
            return ["rollout", "record", "--db", db, "--rollout", rid, "--host", self.pick(*hosts, *TEXT),
                    "--step", self.pick("gate-before", "upgrade", "gate-after", "rollback", "done", *TEXT),
                    "--outcome", self.pick("pass", "fail", *TEXT), "--detail", self.pick("ok", "doctor exit 1", *TEXT),
                    *(["--check"] if self.maybe(0.3) else [])]  # fmt: skip
        target = self.pick("driver=550.127.05", "firmware=96.00.A5.00.01", "cuda=12.8", "driver", "bios=1", *TEXT)
        out = [self.work / "rollout", self.work / "rollout", Path("/dev/null/r"), self.work / "user" / "net.py"]
        args = ["rollout", "plan", "--db", db, "--target", target, "-o", str(self.rng.choice(out))]
        if self.maybe(0.5):
            args += ["--hosts", self.file(self.user["hosts"])]
        if self.maybe(0.3):
            args += ["--canary", self.pick(*hosts, *TEXT)]
        if self.maybe(0.3):
            args += ["--wave-size", self.number(["1", "2", "3"])]
        if self.maybe(0.2):
            args += ["--tolerance", self.number(["0.1", "0.05"])]
        if self.maybe(0.2):
            args += ["--baseline", self.pick("db", str(HOSTILE / "results-good.json"), *TEXT)]
        if self.maybe(0.2):
            args += ["--install-command", self.pick("sh install.sh {{ version }}", *TEXT)]
        if self.maybe(0.3):
            args.append("--local")
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
        """Mostly refused before the user's file runs (it runs in a child process that imports torch: a
        few seconds each); --timeout always well below the fuzzer's own, so a looping file is no hang."""
        files = {p.name: p for p in self.user["python"]}
        target = self.pick(
            f"{files['net.py']}:Net", f"{files['net.py']}:NeedsArgs", f"{files['net.py']}:Missing",
            *(f"{files[n]}:X" for n in ("loops.py", "exits.py", "exits_hard.py", "raises.py", "syntax.py")),
            f"{files['plain.py']}:Net", "nofile.py:Net", f"{files['net.py']}", "x" * 5000, ":", *TEXT,
        )  # fmt: skip
        ran = self.maybe(0.15)  # a valid shape: the file runs
        shape = self.pick("8", "2,8") if ran else self.pick("0", "1,2,3,4,5,6,7,8,9", "8,x", "99999999", *TEXT)
        limit = self.pick("2", "4", *TEXT)
        if ran and self.calm:  # the module itself, with time to import torch in the child
            target, limit = f"{files['net.py']}:Net", "15"
        args = ["describe", target, "--input-shape", shape, "--timeout", limit]
        if self.maybe(0.3):
            args += ["--dtype", self.pick("fp32", "bf16", *TEXT)]
        if self.maybe(0.2):
            args += ["--batch", self.number(["1", "2"])]
        if self.maybe(0.2):
            args += ["-o", str(self.rng.choice([self.work / "described.json", Path("/dev/null/x")]))]
        return [*args, *(["--json"] if self.maybe(0.5) else [])]

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
    "deploy_ops": 1.5,
    "bench": 2,
    "matrix": 1,
    "prices": 1.5,
    "rollout": 2,
    "describe": 1,
    "unknown": 0.5,
}


def edge_cases(db: str, files: list[Path], work: Path | None = None) -> list[list[str]]:
    """Every hostile file through every door that reads that kind of file, and the flag edge cases."""
    cases: list[list[str]] = []
    out = str((work or Path(tempfile.gettempdir())) / "edge-rollout")
    for f in files:
        p = str(f)
        cases += [
            ["prices", "--prices", p, "--json"],
            ["rollout", "plan", "--db", db, "--target", "driver=550.127.05", "-o", out, "--hosts", p, "--json"],
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
        ["rollout", "status", "--db", db, "--rollout", "99999999999999999999"],
        [
            "rollout",
            "record",
            "--db",
            db,
            "--rollout",
            "2147483648",
            "--host",
            "h",
            "--step",
            "done",
            "--outcome",
            "pass",
        ],
        ["deploy", "ops", "--dry-run", "--node", "a b:8", "--json"],
        ["describe", "nofile.py:Net", "--input-shape", "8", "--timeout", "nan"],
    ]
    return cases


def run(
    count: int,
    seed: int,
    db: str | None,
    timeout: float,
    quiet: bool = False,
    corpus: bool = True,
    only: tuple[str, ...] = (),
) -> Tally:
    """`count` random invocations (of the generators named in `only`, default all), then (with
    `corpus`) the edge-case corpus; a tally of what went wrong."""
    rng = random.Random(seed)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="gpuwise-fuzz-") as tmp:
        work = Path(tmp)
        url = db or f"sqlite:///{work / 'fuzz.db'}"
        files = hostile_files(make_big_files(work / "big"))
        gen = Gen(rng, url, files, work)
        for host in sorted(HOSTS.glob("*.json")):  # cards in the store, so that roll-outs can be planned
            invoke(["fleet", "scan", "--replay", str(host), "--db", url, "--interval", "0"], timeout)
        names = [n for n in WEIGHTS if not only or n in only]
        weights = [WEIGHTS[n] for n in names]
        start = time.monotonic()
        for i in range(count):
            gen.calm = rng.random() < 0.4
            record(tally, getattr(gen, rng.choices(names, weights)[0])(), timeout)
            if not quiet and (i + 1) % 250 == 0:
                print(f"  {i + 1} invocations, {time.monotonic() - start:.0f} s", file=sys.__stderr__, flush=True)
        for args in edge_cases(url, files, work) if corpus else []:
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


__all__ = ["Tally", "edge_cases", "hostile_files", "invoke", "make_big_files", "make_user_files", "run"]

if __name__ == "__main__":
    raise SystemExit(main())
