"""`gpuwise describe` on a module of the user's own, end to end: real processes, the JSON document,
and that document estimated and planned as `--model FILE.json` (no torch needed for those)."""

from __future__ import annotations

import json
import textwrap

import pytest

from .conftest import run_process as run

pytest.importorskip("torch")

USER_MODULE = textwrap.dedent(
    """
    import torch
    from torch import nn


    class ShopNet(nn.Module):
        # a user's own small CNN: conv-BN-ReLU twice, pooling, a classifier
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(16)
            self.conv = nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(32)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            x = torch.relu(self.bn1(self.stem(x)))
            x = torch.relu(self.bn2(self.conv(x)))
            return self.fc(self.pool(x).flatten(1))


    class NeedsArgs(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.fc = nn.Linear(width, 1)
    """
)


@pytest.fixture(scope="module")
def described(tmp_path_factory):
    folder = tmp_path_factory.mktemp("user")
    (folder / "shopnet.py").write_text(USER_MODULE, encoding="utf-8")
    out = folder / "shopnet.json"
    proc = run("describe", "shopnet.py:ShopNet", "--input-shape", "3,32,32", "--json", "-o", str(out), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return folder, json.loads(proc.stdout), out


def test_operators_hand_computed(described):
    _, doc, out = described
    assert json.loads(out.read_text(encoding="utf-8")) == doc
    ops = doc["operators"]
    assert [o["class"] for o in ops] == [
        "convolution",
        "normalization",
        "elementwise",
        "convolution",
        "normalization",
        "elementwise",
        "pooling",
        "gemm",
    ]
    b = doc["batch"]
    stem, conv, fc = ops[0], ops[3], ops[7]
    assert stem["flops"] == 2 * b * 32 * 32 * 16 * 3 * 3 * 3  # 2 x output elements x (C_in x k x k)
    assert conv["flops"] == 2 * b * 16 * 16 * 32 * 16 * 3 * 3  # stride 2: a 16 x 16 output
    assert fc["flops"] == 2 * b * 32 * 10
    # bf16: the stem reads its input (b x 3 x 32 x 32) and weights (16 x 3 x 3 x 3), writes b x 16 x 32 x 32
    assert stem["bytes_read"] == 2 * (b * 3 * 32 * 32 + 16 * 27)
    assert stem["param_bytes"] == 2 * 16 * 27
    assert stem["bytes_written"] == 2 * b * 16 * 32 * 32
    assert stem["shape"] == [[b, 16, 32, 32]]
    # conv+BN+ReLU fuse into the convolution under a compiler; pooling and the classifier do not
    assert [o["fused_into"] for o in ops] == [None, 0, 0, None, 3, 3, None, None]
    assert doc["params"] == 16 * 27 + 2 * 16 + 32 * 16 * 9 + 2 * 32 + 32 * 10 + 10


def test_the_description_is_estimated_and_planned(described):
    _, _, out = described
    est = run("estimate", "--model", str(out), "--task", "inference", "--concurrency", "8", "--gpu", "t4:1", "--json")
    assert est.returncode == 0, est.stderr
    inf = json.loads(est.stdout)["inference"]
    terms = inf["decode_terms"]
    assert {"gpu", "input_copy", "framework_floor", "batching_delay"} <= set(terms)
    assert inf["latency_seconds"] == pytest.approx(sum(terms.values()))
    train = run(
        "estimate", "--model", str(out), "--task", "pretrain", "--micro-batch", "64", "--gpu", "a10:1", "--json"
    )
    assert train.returncode == 0, train.stderr
    t = json.loads(train.stdout)["training"]
    assert t["samples_per_second"] > 0
    assert any("per-operator roofline" in a for a in json.loads(train.stdout)["assumptions"])
    plan = run("plan", "--model", str(out), "--task", "inference", "--concurrency", "8", "--qps", "500", "--json")
    assert plan.returncode == 0, plan.stderr
    chosen = json.loads(plan.stdout)["chosen"]
    assert chosen["meets"] and chosen["workload"]["model"] == "ShopNet"


def test_user_errors_are_one_line_exit_2(described):
    folder, _, _ = described
    for args, words in (
        (("describe", "shopnet.py:Missing", "--input-shape", "3,32,32"), "classes there: NeedsArgs, ShopNet"),
        (("describe", "shopnet.py:NeedsArgs", "--input-shape", "8"), "could not be built with no arguments"),
        (("describe", "nothere.py:X", "--input-shape", "8"), "no such file"),
        (("describe", "shopnet.py", "--input-shape", "8"), "FILE.py:ClassName"),
        (("describe", "shopnet.py:ShopNet", "--input-shape", "3,0,32"), "--input-shape"),
        (("describe", "shopnet.py:ShopNet", "--input-shape", "3,32,32", "--dtype", "int3"), "--dtype"),
    ):
        proc = run(*args, cwd=folder)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert words in proc.stderr, (args, proc.stderr)


def test_a_broken_description_is_a_config_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"operators": [{"class": "warp-drive", "flops": 1}], "params": 1}), encoding="utf-8")
    proc = run("estimate", "--model", str(bad), "--task", "inference", "--gpu", "t4:1")
    assert proc.returncode == 2 and "operators[0].class must be one of" in proc.stderr


HOSTILE_FILES = {
    "loops.py": "while True:\n    pass\n",
    "exits.py": "import sys\nsys.exit(0)\n",
    "exits_hard.py": "import os\nos._exit(0)\n",
    "loops_in_forward.py": textwrap.dedent(
        """
        from torch import nn

        class Spin(nn.Module):
            def forward(self, x):
                while True:
                    pass
        """
    ),
}


def test_the_users_file_runs_in_a_child_process_that_ends_cleanly(tmp_path):
    """A file that loops (at import or in forward) times out: exit 2, "timed out"; one that calls
    sys.exit or os._exit at import is an exit 2 that says so, not a silent exit 0."""
    for name, text in HOSTILE_FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for target, limit, words in (
        ("loops.py:X", "3", "timed out after 3 s"),
        ("loops_in_forward.py:Spin", "3", "timed out after 3 s"),
        ("exits.py:X", "600", "sys.exit(0)"),  # a limit no slow machine reaches: the exit must be said
        ("exits_hard.py:X", "600", "ended its process"),
    ):
        proc = run("describe", target, "--input-shape", "8", "--timeout", limit, cwd=tmp_path, timeout=300)
        assert proc.returncode == 2, (target, proc.stdout, proc.stderr)
        assert words in proc.stderr and proc.stdout == "", (target, proc.stderr)


def test_describe_says_it_runs_the_file_and_its_prints_stay_out_of_the_json(described):
    folder, doc, _ = described
    (folder / "chatty.py").write_text(USER_MODULE + "\nprint('hello from the module')\n", encoding="utf-8")
    proc = run("describe", "chatty.py:ShopNet", "--input-shape", "3,32,32", "--json", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["operators"] == doc["operators"] and "hello from the module" in proc.stderr
    helped = run("describe", "--help")
    assert "runs FILE.py" in " ".join(helped.stdout.split()) and "--timeout" in helped.stdout
    for bad in ("0", "nan", "-1", "1e9"):
        proc = run("describe", "chatty.py:ShopNet", "--input-shape", "8", "--timeout", bad, cwd=folder)
        assert proc.returncode == 2 and "--timeout" in proc.stderr, (bad, proc.stderr)


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _as_from_a_terminal() -> None:
    """Ctrl-C's default disposition, as a terminal's shell gives it: a runner started in the background
    (`cmd &`, nohup) ignores SIGINT, which every child then inherits and Python keeps ignored."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_interrupted_describe_ends_the_users_process_too(tmp_path):
    """The child runs in its own session, where the terminal's Ctrl-C does not reach it: when describe
    is interrupted, it ends the child (a looping file would otherwise run on, orphaned)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    pid_file = tmp_path / "child.pid"
    (tmp_path / "spin.py").write_text(
        f"import os\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\nwhile True:\n    pass\n", encoding="utf-8"
    )
    log = (tmp_path / "stderr.txt").open("w")  # a file, not a pipe: an orphaned child would hold a pipe open
    parent = subprocess.Popen(
        [sys.executable, "-m", "gpuwise.cli.app", "describe", "spin.py:X", "--input-shape", "8", "--timeout", "600"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=log,
        preexec_fn=_as_from_a_terminal,
    )  # fmt: skip
    child = None
    try:
        for _ in range(1200):  # the child writes its pid once it runs the file (seconds on a busy machine)
            if pid_file.is_file() and pid_file.read_text():
                child = int(pid_file.read_text())
                break
            time.sleep(0.1)
        assert child is not None, "the user's file never ran"
        parent.send_signal(signal.SIGINT)
        parent.wait(timeout=60)
        for _ in range(300):  # gone (its zombie reaped by init: poll until it is)
            if not _alive(child):
                break
            time.sleep(0.1)
        assert not _alive(child), f"the child {child} still runs after describe was interrupted"
    finally:
        parent.kill()
        log.close()
        if child is not None and _alive(child):
            os.kill(child, signal.SIGKILL)
    err = (tmp_path / "stderr.txt").read_text()
    assert parent.returncode == 130 and "Traceback" not in err, err
