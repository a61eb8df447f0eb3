"""The console script (gpuwise.cli.entry.run): the CLI's exit codes, with the collector tuned for
one short process and left alone by the in-process `main`."""

import gc
import subprocess
import sys

import pytest

from gpuwise.cli import entry


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; sys.argv = ['gpuwise', *sys.argv[1:]]; from gpuwise.cli.entry import run; run()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--help",), 0),
        (("estimate", "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm:1", "--method", "lora"), 0),
        (("estimate", "--model", "no-such-model", "--gpu", "a100-80gb-sxm:1"), 2),
        (("estimate", "--model", "llama-2-70b", "--gpu", "rtx-4090:1", "--task", "inference"), 1),
    ],
)
def test_the_console_script_keeps_the_exit_codes(args, code):
    proc = _run(*args)
    assert proc.returncode == code, proc.stderr


def test_the_script_raises_the_young_threshold_and_freezes_at_exit(monkeypatch):
    calls = []
    monkeypatch.setattr("gpuwise.cli.app.main", lambda: calls.append(gc.get_threshold()[0]) or sys.exit(3))
    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    before = gc.get_threshold()
    try:
        with pytest.raises(SystemExit) as exc:
            entry.run()
    finally:
        gc.set_threshold(*before)
    assert exc.value.code == 3  # main's exit code passes through the freeze
    assert calls == [entry.YOUNG_THRESHOLD] and frozen == [True]


def test_main_in_process_leaves_the_collector_alone(capsys):
    from gpuwise.cli.app import main

    before = gc.get_threshold()
    sys_argv = sys.argv
    sys.argv = ["gpuwise", "--help"]
    try:
        with pytest.raises(SystemExit):
            main()
    finally:
        sys.argv = sys_argv
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
