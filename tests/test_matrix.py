"""The capability matrix and the acceptance check, from stored measurements."""

import json
import subprocess
import sys

import pytest

from gpuwise.bench.matrix import matrix
from gpuwise.catalog import load_catalog
from gpuwise.store import open_store
from gpuwise.store.results import HostFacts, Measurement

CAT = load_catalog()


def _host(name, gpu_id=None):
    return HostFacts(
        name,
        "cpu",
        32,
        "cuda" if gpu_id else "cpu",
        gpu_model=gpu_id and f"NVIDIA {gpu_id}",
        gpu_id=gpu_id,
        gpu_count=8 if gpu_id else 0,
    )


def _cli(*args, check=False):
    """`gpuwise ARGS` in a fresh interpreter, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "gpuwise.cli.app", *args], capture_output=True, text=True, check=check)


def _fill(db):
    with open_store(db) as s:
        for flops, bw in ((7.8e14, 2.9e12), (8.0e14, 3.0e12)):
            s.save_run(
                _host("n1", "h100-sxm"),
                [
                    Measurement("matmul", "best", flops, "FLOP/s", {"dtype": "bf16"}),
                    Measurement("membw", "copy", bw, "bytes/s", {"bytes": 2**30}),
                    Measurement("allreduce", "busbw", 3.5e11, "bytes/s", {"bytes": 2**30, "ranks": 8}),
                    Measurement("launch", "inference_seconds_per_kernel", flops / 7.8e14 * 11.5e-6, "seconds", {}),
                    Measurement(
                        "step",
                        "total",
                        0.5,
                        "seconds",
                        {
                            "model": "llama-2-7b",
                            "hidden": 4096,
                            "layers": 2,
                            "heads": 32,
                            "kv_heads": 32,
                            "ffn": 11008,
                            "vocab": 32000,
                            "batch": 4,
                            "seq": 512,
                            "dtype": "bf16",
                        },
                    ),
                ],
                "bench",
                quick=False,
            )
        s.save_run(
            _host("laptop"),
            [
                Measurement("matmul", "best", 1.0e11, "FLOP/s", {"dtype": "fp32"}),
                Measurement("io", "read-decode", 5000, "samples/s", {"workers": 2}),
                Measurement("launch", "inference_seconds_per_kernel", 4e-6, "seconds", {}),
            ],
            "bench",
            True,
        )


def test_matrix_cells_beside_estimates(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    _fill(db)
    with open_store(db) as s:
        m = matrix(s.results(), CAT)
    h100 = m["h100-sxm"]
    assert h100["matmul"].measured == pytest.approx(7.9e14)
    assert h100["matmul"].estimated == pytest.approx(0.8 * 989.4e12, rel=0.01)
    assert 0.9 < h100["matmul"].ratio < 1.1
    assert h100["memory"].ratio == pytest.approx(2.95e12 / (0.8 * 3.35e12))
    assert h100["allreduce"].estimated > 0 and h100["training"].estimated > 0
    # this host issues a kernel in the median of 11.5 and 11.79 us, against the 23 us every eager estimate takes
    assert h100["launch"].measured == pytest.approx((11.5e-6 + 8.0 / 7.8 * 11.5e-6) / 2)
    assert h100["launch"].estimated == CAT.convention("decode_host_seconds_eager") == 23e-6
    cpu = next(v for k, v in m.items() if k.startswith("cpu:"))
    assert cpu["matmul"].estimated is None and cpu["data"].measured == 5000
    assert cpu["launch"].measured == 4e-6 and cpu["launch"].estimated is None  # operators on a CPU: no GPU launch


def test_matrix_cli(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    _fill(db)
    d = json.loads(_cli("matrix", "--db", db, "--json", check=True).stdout)
    assert "h100-sxm" in d["rows"] and d["rows"]["h100-sxm"]["matmul"]["ratio"] > 0
    table = _cli("matrix", "--db", db, check=True).stdout
    assert "h100-sxm" in table and "TFLOP/s" in table
    empty = _cli("matrix", "--db", f"sqlite:///{tmp_path / 'e.db'}")
    assert empty.returncode == 1 and "gpuwise bench" in empty.stderr


def _results(path, flops, bw):
    path.write_text(
        json.dumps(
            {
                "host": {"gpu_id": "h100-sxm"},
                "results": [
                    {"benchmark": "matmul", "name": "best", "value": flops, "params": {"dtype": "bf16"}},
                    {"benchmark": "membw", "name": "copy", "value": bw, "params": {"bytes": 2**30}},
                ],
            }
        )
    )
    return path


@pytest.mark.parametrize(("flops", "code"), [(7.9e14, 0), (6.0e14, 1)])
def test_acceptance_against_a_baseline_file(tmp_path, flops, code):
    base = _results(tmp_path / "base.json", 8.0e14, 3.0e12)
    card = _results(tmp_path / "card.json", flops, 2.95e12)
    proc = _cli("bench", "accept", "--results", str(card), "--baseline", str(base), "--tolerance", "0.1")
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert ("FAIL" in proc.stdout) == bool(code)


def test_acceptance_against_the_fleet_in_the_store(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    _fill(db)
    card = _results(tmp_path / "card.json", 6.5e14, 2.9e12)  # 18 % below the fleet's matmul
    proc = _cli("bench", "accept", "--results", str(card), "--baseline", "db", "--db", db, "--json")
    assert proc.returncode == 1
    d = json.loads(proc.stdout)
    assert not d["passed"] and any(not c["ok"] and "matmul" in c["check"] for c in d["checks"])


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (  # no value
            {"results": [{"benchmark": "matmul", "name": "best", "params": {"dtype": "bf16"}}]},
            "results[0] must have text 'benchmark' and 'name', a finite positive 'value'",
        ),
        (
            {"results": [{"benchmark": "matmul", "name": "best", "value": 0, "params": {"dtype": "bf16"}}]},
            "a finite positive 'value'",
        ),
        ({"results": "matmul"}, "expected `gpuwise bench --json` output"),
    ],
)
def test_acceptance_rejects_malformed_baselines_with_a_message(tmp_path, doc, message):
    card = _results(tmp_path / "card.json", 7.9e14, 2.95e12)
    base = tmp_path / "base.json"
    base.write_text(json.dumps(doc))
    proc = _cli("bench", "accept", "--results", str(card), "--baseline", str(base))
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_bench_names_a_misspelt_benchmark_before_running_any():
    """A misspelt benchmark is a usage error (exit 2) with the names it was near, and nothing runs."""
    proc = _cli("bench", "lanch", "--quick", "--no-store")
    assert proc.returncode == 2
    assert "did you mean 'launch'" in proc.stderr and "Traceback" not in proc.stderr
