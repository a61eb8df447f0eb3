"""The README's sample sessions (`$ gpuwise ...` in a text block, followed by its output) are what
the commands print now: each is run at the width the samples were taken at, and its output, up to
the sections the README leaves out (ruled-out GPUs, the parts and assumptions lists), must equal
the sample. A change to the model or the wording shows here; rerun the command and paste."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WIDTH = "160"  # the terminal width the samples were taken at
TAKEN_ON = "2026-12-01"  # the day the samples were taken: offers are aged as on that day (gpuwise.clock)
OMITTED = ("Ruled out", "排除的", "Parts:")  # sections the README cuts a sample before


def _samples() -> list[tuple[int, str, list[str]]]:
    """(line number, command, output lines) of each sample that shows its output."""
    out: list[tuple[int, str, list[str]]] = []
    current: tuple[int, str, list[str]] | None = None
    in_block = False
    for number, line in enumerate((ROOT / "README.md").read_text(encoding="utf-8").split("\n"), 1):
        if line.startswith("```"):
            in_block = not in_block
            if current:
                out.append(current)
            current = None
        elif in_block and line.startswith("$ gpuwise "):
            if current:
                out.append(current)
            current = (number, line[2:].split("  #")[0].strip(), [])
        elif current:
            current[2].append(line)
    return [s for s in out if s[2]]


SAMPLES = _samples()


def test_the_readme_has_samples():
    assert len(SAMPLES) >= 5, SAMPLES


@pytest.mark.parametrize(("number", "command", "shown"), SAMPLES, ids=[f"README:{s[0]}" for s in SAMPLES])
def test_readme_sample_is_what_the_command_prints(number, command, shown, tmp_path):
    env = {
        **os.environ,
        "COLUMNS": WIDTH,
        "TERM": "dumb",
        "NO_COLOR": "1",
        "XDG_CACHE_HOME": str(tmp_path),
        "GPUWISE_TODAY": TAKEN_ON,
    }
    args = shlex.split(command)[1:]
    proc = subprocess.run(
        [sys.executable, "-m", "gpuwise.cli.app", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.rstrip("\n").split("\n")
    cut = next((i for i, line in enumerate(lines) if line.startswith(OMITTED)), len(lines))
    assert lines[:cut] == shown, f"README.md:{number}: `{command}` prints otherwise now; paste its output"
