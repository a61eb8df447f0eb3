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
