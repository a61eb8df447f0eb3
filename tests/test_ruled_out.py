"""The GPU types a plan rules out: grouped by reason on the terminal's first screen, every reason of
every type with -v and in --json."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from gpuwise.i18n import rejection_text, ruled_out_lines
from gpuwise.plan.results import Code, Reason, Rejection

ROOT = Path(__file__).resolve().parent.parent
METHODS = ROOT / "examples" / "finetune-7b-methods.yaml"


def _above(gpu: str, bound: float, method: str | None = None) -> Rejection:
    return Rejection(gpu, Reason.of(Code.ABOVE_BEST, bound_usd=bound, best_usd=2.05), method)


def test_types_with_one_sentence_share_a_line_and_a_shared_code_is_counted():
    no_bf16 = Reason.of(Code.NO_TENSOR_CORES, precision="bf16")
    rejected = [
        _above("a100", 3.31, "full"),
        _above("a100", 2.21, "lora"),
        _above("l40", 3.79, "full"),
        _above("l40", 2.53, "lora"),
        Rejection("t4", no_bf16),
        Rejection("v100", no_bf16),
        Rejection("h800", Reason.of(Code.NO_COMPUTE_FIGURES)),
    ]
    lines = ruled_out_lines(rejected)
    assert lines == [
        "2 types cost more even at their best rate: a100, l40",
        "t4, v100: no bf16 tensor cores",
        "h800: no published compute figures: cannot estimate time",
    ]
    full = ruled_out_lines(rejected, grouped=False)  # -v: each type, each of its reasons
    assert len(full) == 5 and full[0].startswith("a100: full: cost: at least $3.31")
    assert "; lora: cost: at least $2.21" in full[0]
    assert ruled_out_lines(rejected, "zh")[0] == "2 种型号即使按峰值速率成本也更高: a100, l40"


def test_a_type_alone_in_its_group_keeps_its_whole_sentence():
    lines = ruled_out_lines([_above("a10", 5.11), Rejection("t4", Reason.of(Code.NO_LAYOUT))])
    assert lines == [f"a10: {rejection_text(_above('a10', 5.11))}", "t4: no layout fits"]


def _plan(*args: str, file: Path = METHODS) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "160", "TERM": "dumb", "NO_COLOR": "1", "GPUWISE_TODAY": "2026-12-01"}
    cmd = [sys.executable, "-m", "gpuwise.cli.app", "plan", "-f", str(file), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


FULL = "(each GPU type's reasons in full: -v or --json)"


def _section(stdout: str) -> list[str]:
    """The ruled-out entries of the summary (an entry starts with two spaces; the terminal wraps
    long ones onto lines of their own), up to the hint that the full list is elsewhere."""
    lines = stdout.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("Ruled out"))
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == FULL)
    entries: list[str] = []
    for line in lines[start + 1 : end + 1]:
        if line.startswith("  "):
            entries.append(line.strip())
        else:
            entries[-1] += " " + line.strip()
    return entries


def test_the_main_jobs_first_screen_groups_the_ruled_out_types():
    """`plan -f examples/finetune-7b-methods.yaml`: one line per reason, not per GPU type (each
    type's three per-method sentences took three wrapped lines)."""
    screen, verbose, as_json = _plan(), _plan("-v"), _plan("--json")
    assert screen.returncode == verbose.returncode == as_json.returncode == 0, screen.stderr
    rejected = json.loads(as_json.stdout)["rejected"]
    gpus = list(dict.fromkeys(r["gpu"] for r in rejected))
    grouped = _section(screen.stdout)
    assert len(grouped) <= len({r["code"] for r in rejected}) + 1 < len(gpus), grouped
    assert all(any(g in line for line in grouped) for g in gpus)
    assert grouped[-1] == FULL
    starts = [line.split(": ")[0].strip() for line in verbose.stdout.split("\n") if line.startswith("  ")]
    assert [s for s in starts if s in gpus] == gpus  # -v: every type on its own line, in order
    assert len(screen.stdout.split("\n")) < 40, screen.stdout


# a non-finite number as Python or JSON prints it (not the name ZeRO-Infinity)
NON_FINITE = re.compile(r"(?<!ZeRO-)(?<!\w)(inf|nan|infinity)\b", re.IGNORECASE)


def test_types_the_cost_bound_pruned_say_cost_and_no_message_says_inf():
    """`plan -f examples/train-13b-multi-gpu-plan.yaml`: H100, B200 and MI300X (a 13B model fits each
    of them) are ruled out because the cost bound pruned every count, so their reason is cost, not
    'memory: ... needs inf TiB per GPU'; no message of the plan, on the terminal or in --json,
    prints a non-finite number."""
    plan13 = ROOT / "examples" / "train-13b-multi-gpu-plan.yaml"
    runs = [_plan(*extra, file=plan13) for extra in ((), ("-v",), ("--json",))]
    for proc in runs:
        assert proc.returncode == 0, proc.stderr
        assert not NON_FINITE.findall(proc.stdout), NON_FINITE.findall(proc.stdout)
    rejected = json.loads(runs[2].stdout)["rejected"]
    # a 13B model fits each of these: whatever rules one out (the cost bound, or no offer that rents the
    # cluster it would need), it is never memory
    for gpu in ("h100-sxm", "b200", "mi300x", "h200", "a100-80gb-sxm"):
        codes = {r["code"] for r in rejected if r["gpu"] == gpu}
        assert all(code.startswith(("cost.", "price.")) for code in codes), (gpu, codes)
    pruned = {r["gpu"] for r in rejected if r["code"].startswith("cost.")}
    assert {"h200", "a100-80gb-sxm"} <= pruned, pruned  # the types the cost bound pruned say cost
