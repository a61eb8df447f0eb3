"""The shipped alert rules through promtool, and a real Prometheus server scraping the exporter once
on loopback. Both need Debian's `prometheus` package (promtool, prometheus); skipped without it."""

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from gpuwise.ops import data_file

from .conftest import free_port

HOSTS = Path(__file__).resolve().parent.parent / "examples" / "hosts"


def _binary(name):
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install prometheus)")
    return path


def test_promtool_accepts_the_rules():
    promtool = _binary("promtool")
    out = subprocess.run(
        [promtool, "check", "rules", str(data_file("alerts.yaml"))], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout


def test_promtool_unit_tests_pass(tmp_path):
    promtool = _binary("promtool")
    for name in ("alerts.yaml", "alerts_test.yaml"):  # promtool resolves rule_files next to the test file
        shutil.copy(data_file(name), tmp_path / name)
    out = subprocess.run(
        [promtool, "test", "rules", "alerts_test.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stdout + out.stderr


def _query(port, expr):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


def test_a_real_prometheus_scrapes_the_exporter(tmp_path):
    prometheus = _binary("prometheus")
    pytest.importorskip("prometheus_client", exc_type=ImportError)
    from gpuwise.hw import ReplaySource
    from gpuwise.ops.exporter import start

    exporter = start(0, "127.0.0.1", ReplaySource(HOSTS / "faulty-8x-a100.json"))
    web = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"rule_files:\n  - {data_file('alerts.yaml')}\n"
        "scrape_configs:\n  - job_name: gpuwise\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{exporter.port}']\n"
    )
    log = (tmp_path / "prometheus.log").open("w")
    proc = subprocess.Popen(
        [
            prometheus,
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{web}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        result: list[dict[str, Any]] = []
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline and not result:
            time.sleep(0.5)
            if proc.poll() is not None:
                break
            try:
                result = _query(web, "gpuwise_gpu_up")["data"]["result"]
            except (OSError, ValueError, KeyError):
                continue
        assert result, (tmp_path / "prometheus.log").read_text()[-2000:]
        assert len(result) == 8 and {r["value"][1] for r in result} == {"1"}
        labels = result[0]["metric"]
        assert labels["job"] == "gpuwise" and labels["host"] == "dgx-a100-12" and labels["uuid"].startswith("GPU-")
        rules = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{web}/api/v1/rules", timeout=5).read())
        names = {r["name"] for g in rules["data"]["groups"] for r in g["rules"]}
        assert {"GpuLost", "GpuUncorrectableEccError", "GpuMemoryPressureHigh"} <= names
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()
        exporter.stop()
