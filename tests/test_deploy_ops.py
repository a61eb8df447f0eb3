"""`gpuwise deploy ops`: the ops stack as manifests, validated against the Kubernetes schemas and the
Prometheus Operator CRDs shipped in gpuwise/deploy/data; the benchmark CronJob's container command,
run here with the same arguments (plus `--device cpu --quick`), writes its results into a real
PostgreSQL (the test server from conftest.py)."""

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from gpuwise.cli.app import app
from gpuwise.deploy.ops_stack import GpuNode, OpsOptions, ops_manifests
from gpuwise.deploy.validate import SHIPPED_CRDS, load_crds, validate
from gpuwise.errors import UsageError
from gpuwise.ops import data_file

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

pytest.importorskip("kubernetes_validate", exc_type=ImportError)


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _deploy(tmp_path, *args):
    result = run("deploy", "ops", "-o", tmp_path, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _objects(payload, kind):
    return [m["body"] for m in payload["manifests"] if m["kind"] == kind]


def test_every_object_validates_against_kubernetes_and_the_prometheus_operator_crds(tmp_path):
    payload = _deploy(tmp_path, "--node", "gpu-node-1:8", "--node", "gpu-node-2:2")
    checks = payload["validation"]["checks"]
    assert payload["validation"]["ok"] and {c["status"] for c in checks} == {"ok"}
    by_kind = {c["kind"]: c["detail"] for c in checks}
    assert "monitoring.coreos.com_servicemonitors.yaml" in by_kind["ServiceMonitor"]
    assert "monitoring.coreos.com_prometheusrules.yaml" in by_kind["PrometheusRule"]
    kinds = sorted(m["kind"] for m in payload["manifests"])
    assert kinds == ["ConfigMap", "CronJob", "CronJob", "DaemonSet", "Job", "Namespace", "PrometheusRule",
                     "Service", "ServiceMonitor"]  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".gpuwise-written", "00-namespace.yaml", "accept-job.yaml", "bench-cronjobs.yaml", "exporter.yaml",
        "gpuwise-deploy.json", "monitoring.yaml",
    ]  # fmt: skip
    written = sorted(p.name for p in tmp_path.iterdir() if p.name != ".gpuwise-written")
    assert (tmp_path / ".gpuwise-written").read_text().split() == written  # what a second run may rewrite


def test_the_shipped_prometheus_operator_crds_are_loaded():
    crds = load_crds(SHIPPED_CRDS)
    assert ("monitoring.coreos.com/v1", "ServiceMonitor") in crds
    assert ("monitoring.coreos.com/v1", "PrometheusRule") in crds
    text = (SHIPPED_CRDS / "CRDS.md").read_text()
    assert "prometheus-operator/prometheus-operator/blob/v0.93.0" in text


def test_rules_and_dashboard_are_the_packaged_ones(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUWISE_DB", raising=False)  # no fleet store to read nodes from
    payload = _deploy(tmp_path)
    (rule,) = _objects(payload, "PrometheusRule")
    assert rule["spec"]["groups"] == yaml.safe_load(data_file("alerts.yaml").read_text())["groups"]
    (cm,) = _objects(payload, "ConfigMap")
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    (dash,) = cm["data"].values()
    assert json.loads(dash) == json.loads(data_file("grafana-dashboard.json").read_text())
    assert _objects(payload, "CronJob") == []  # no node named, no store: no per-node benchmark
    assert any("--node" in n for n in payload["notes"])


def test_the_exporter_reads_nvml_without_taking_a_gpu(tmp_path):
    (ds,) = _objects(_deploy(tmp_path), "DaemonSet")
    pod = ds["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    assert pod["runtimeClassName"] == "nvidia" and pod["hostPID"] and pod["hostNetwork"]
    assert {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"} in c["env"]
    assert "nvidia.com/gpu" not in json.dumps(c["resources"])
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert c["command"] + c["args"] == ["gpuwise", "exporter", "--host", "0.0.0.0", "--port", "9835"]
    (svc,) = _objects(_deploy(tmp_path), "Service")
    (sm,) = _objects(_deploy(tmp_path), "ServiceMonitor")
    assert sm["spec"]["selector"]["matchLabels"] == svc["spec"]["selector"]
    assert sm["spec"]["endpoints"][0]["port"] == svc["spec"]["ports"][0]["name"] == "metrics"


def test_one_bench_cronjob_per_node_of_the_fleet_store(tmp_path):
    pytest.importorskip("sqlalchemy", exc_type=ImportError)
    db = f"sqlite:///{tmp_path / 'fleet.db'}"
    for f in sorted((ROOT / "examples" / "hosts").glob("*.json")):
        assert run("fleet", "scan", "--replay", f, "--db", db).exit_code == 0
    jobs = _objects(_deploy(tmp_path / "out", "--db", db), "CronJob")
    pinned = {}
    for j in jobs:
        pod = j["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        pinned[pod["nodeSelector"]["kubernetes.io/hostname"]] = pod["containers"][0]["resources"]["limits"]
    # the synthetic hosts: two 8-GPU servers and a 2-GPU workstation
    assert pinned == {"dgx-a100-12": {"nvidia.com/gpu": 8}, "hgx-h100-07": {"nvidia.com/gpu": 8},
                      "ws-rtx": {"nvidia.com/gpu": 2}}  # fmt: skip


def test_bad_input_is_a_usage_error(tmp_path):
    for args, message in (
        (["deploy", "ops", "-o", tmp_path, "--node", "n1:many"], "whole number"),
        (["deploy", "ops", "-o", tmp_path, "--node", "n1:1_6"], "whole number"),  # int() read 16
        (["deploy", "ops", "-o", tmp_path, "--node", "n1:\u0661\u0666"], "whole number"),  # Arabic-Indic 16
        (["deploy", "ops", "-o", tmp_path, "--node", "n1:0"], "1 to 64"),
        (["deploy", "ops", "-o", tmp_path, "--namespace", "Bad_NS"], "not a valid Kubernetes name"),
        (["deploy", ROOT / "examples" / "chat-7b-serving.yaml", "-o", tmp_path, "--node", "n1"], "deploy ops"),
    ):
        result = run(*args)
        assert isinstance(result.exception, UsageError) and message in str(result.exception), args
    proc = subprocess.run(  # at the real front door: exit 2, one line, no traceback
        [sys.executable, "-m", "gpuwise.cli.app", "deploy", "ops", "-o", str(tmp_path), "--node", "n1:many"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and "whole number" in proc.stderr and "Traceback" not in proc.stderr


def test_validation_catches_a_broken_service_monitor_and_rule():
    bundle = ops_manifests(OpsOptions())
    (sm,) = bundle.find("ServiceMonitor")
    (rule,) = bundle.find("PrometheusRule")
    broken_sm, broken_rule, warn_rule = copy.deepcopy(sm), copy.deepcopy(rule), copy.deepcopy(rule)
    broken_sm.body["spec"]["endpoints"][0]["scrapeEvery"] = "30s"  # not a field of the CRD
    broken_rule.body["spec"]["groups"][0]["partial_response_strategy"] = "sometimes"
    warn_rule.body["spec"]["groups"][0]["partial_response_strategy"] = "Warn"  # ^(?i)(abort|warn)?$ in RE2
    report = validate([broken_sm, broken_rule, warn_rule])
    assert [c.status for c in report.checks] == ["invalid", "invalid", "ok"]
    assert "scrapeEvery" in report.checks[0].detail and "partial_response_strategy" in report.checks[1].detail


def test_the_bench_cronjob_command_writes_to_postgresql(clean_postgres, tmp_path):
    """The CronJob's container command and arguments, run here (`gpuwise` from this environment, plus
    `--device cpu --quick`), with GPUWISE_DB as the CronJob's Secret would set it."""
    pytest.importorskip("torch", exc_type=ImportError)
    from gpuwise.store import open_store

    bundle = ops_manifests(OpsOptions(nodes=(GpuNode("gpu-node-1", 8),)))
    (cron,) = bundle.find("CronJob")
    (c,) = cron.body["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    assert c["env"][0]["name"] == "GPUWISE_DB" and c["env"][0]["valueFrom"]["secretKeyRef"]["key"] == "url"
    command = [str(BIN / c["command"][0]), *c["args"], "--device", "cpu", "--quick"]
    env = {**os.environ, "GPUWISE_DB": clean_postgres}
    # the timeout guards against a hang, not a speed: on a shared 2-core machine the quick suite took over 300 s
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open_store(clean_postgres) as store:
        assert store.run_count() == 1
        rows = store.results()
    benches = {r.benchmark for r in rows}
    assert {"matmul", "membw", "allreduce"} <= benches
    assert all(r.value > 0 for r in rows if r.benchmark == "matmul")


# ----- the multi-node all-reduce benchmark ----------------------------------------------------------
def test_nodes_of_one_model_get_an_allreduce_job_across_them(tmp_path):
    payload = _deploy(
        tmp_path, "--node", "a:8:h100-sxm", "--node", "b:8:h100-sxm", "--node", "c:2:rtx-4090", "--network", "ib-ndr"
    )
    assert payload["validation"]["ok"]
    (job,) = [m for m in payload["manifests"] if m["kind"] == "Job" and m["name"].startswith("gpuwise-allreduce")]
    check = next(c for c in payload["validation"]["checks"] if c["name"] == job["name"])
    assert check["status"] == "ok" and "batch.volcano.sh_jobs.yaml" in check["detail"]  # the Volcano CRD
    spec = job["body"]["spec"]
    assert spec["minAvailable"] == spec["tasks"][0]["replicas"] == 2  # the two H100 nodes; one RTX node: no job
    pod = spec["tasks"][0]["template"]["spec"]
    (term,) = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"][0]["values"] == ["a", "b"]
    (c,) = pod["containers"]
    assert c["command"] == ["torchrun"] and "--nnodes=2" in c["args"] and "--nproc-per-node=8" in c["args"]
    assert c["args"][c["args"].index("-m") + 1] == "gpuwise.ops.multinode"
    assert c["args"][-2:] == ["--network", "ib-ndr"]
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["NCCL_IB_DISABLE"] == "0"  # InfiniBand: the NCCL settings of a training job on that network


def test_planned_busbw_is_the_estimates_collective_time_as_busbw(catalog):
    """2 nodes x 8 H100 over ib-ndr, 1 GiB: the hierarchical ring of gpuwise.estimate.comm, by hand."""
    from gpuwise.estimate.comm import topology
    from gpuwise.ops.multinode import planned_busbw
    from gpuwise.workload import Hardware

    size = 2**30
    topo = topology(Hardware(catalog.gpu("h100-sxm"), 16, 8, "ib-ndr"), catalog, "ib-ndr")
    intra, inter = topo.intra, topo.inter
    local = 2 * 7 / 8 * size / intra.bandwidth + 2 * 7 * intra.latency  # ring over 8 GPUs in a node
    across = 2 * 1 / 2 * (size / 8) / inter.bandwidth + 2 * 1 * inter.latency  # a 1/8 shard over 2 nodes
    seconds = topo.base_latency + local + across
    assert planned_busbw("h100-sxm", 2, 8, "ib-ndr", size, catalog) == pytest.approx(size / seconds * 2 * 15 / 16)


def test_the_allreduce_module_under_torchrun_stores_and_compares(tmp_path):
    """torchrun with 2 local ranks on the CPU (gloo), as the Job's pods run it: rank 0 stores the run
    and prints measured against planned; a CPU is far below an H100 plan, so the exit is 1."""
    pytest.importorskip("torch", exc_type=ImportError)
    from gpuwise.store import open_store

    db = f"sqlite:///{tmp_path / 'mn.db'}"
    args = ["--nnodes=1", "--nproc-per-node=2", "-m", "gpuwise.ops.multinode", "--gpu", "h100-sxm"]
    proc = subprocess.run(
        [str(BIN / "torchrun"), *args, "--device", "cpu", "--quick", "--db", db],
        capture_output=True, text=True, timeout=900, cwd=tmp_path,  # a hang guard, not a speed
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["nodes"] == 1 and report["gpus_per_node"] == 2 and report["ok"] is False
    assert [r["bytes"] for r in report["sizes"]] == [1024, 4096, 16384, 65536, 262144, 1048576, 4194304]
    assert all(0 < r["ratio"] < 1 for r in report["sizes"])
    with open_store(db) as store:
        rows = store.results(benchmark="allreduce")
    assert len(rows) == 7 and {r.params["ranks"] for r in rows} == {2}


@pytest.mark.parametrize("name", ["a b", "gpu_01", "-gpu", "gpu-", "Gpu.01", "n" * 64, "gpu\n01", "{{ x }}"])
def test_a_node_name_kubernetes_would_refuse_is_a_usage_error(tmp_path, name):
    """`--node 'a b:8'` wrote `kubernetes.io/hostname: a b` (no label value can hold a space) and
    reported the manifests valid: a node name is a Kubernetes node name and a label value, or exit 2."""
    result = run("deploy", "ops", "-o", tmp_path / "out", "--node", f"{name}:8")
    assert isinstance(result.exception, UsageError) and "--node" in str(result.exception), result.output
    assert "not a Kubernetes node name" in str(result.exception) and not (tmp_path / "out").exists()


def test_validation_checks_label_keys_and_values_the_schemas_leave_free():
    bundle = ops_manifests(OpsOptions(nodes=(GpuNode("gpu-01", 8),)))
    (cron,) = bundle.find("CronJob")
    (ds,) = bundle.find("DaemonSet")
    bad_value, bad_key, fine = copy.deepcopy(cron), copy.deepcopy(ds), copy.deepcopy(ds)
    pod = bad_value.body["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    pod["nodeSelector"]["kubernetes.io/hostname"] = "a b"
    bad_key.body["metadata"]["labels"]["bad key/x"] = "v"
    fine.body["metadata"]["labels"]["example.com/Tier_2.a"] = "A-1_b.c"  # the rules' every character
    report = validate([bad_value, bad_key, fine])
    assert [c.status for c in report.checks] == ["invalid", "invalid", "ok"]
    assert "nodeSelector" in report.checks[0].detail and "'a b' is not a label value" in report.checks[0].detail
    assert "'bad key/x' is not a label key" in report.checks[1].detail


def test_a_second_run_rewrites_its_own_files_and_never_clobbers_others(tmp_path, monkeypatch):
    """`deploy ops -o ops` a second time: the folder `ops` then exists, and was taken for a plan file
    named ops. Its own files are rewritten; a file gpuwise did not write is left alone (exit 2)."""
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        result = run("deploy", "ops", "-o", "ops", "--node", "gpu-01:8", "--json")
        assert result.exit_code == 0, result.output
    mine = tmp_path / "theirs"
    mine.mkdir()
    (mine / "exporter.yaml").write_text("# the team's own exporter\n")
    result = run("deploy", "ops", "-o", mine, "--node", "gpu-01:8")
    assert isinstance(result.exception, UsageError), result.output
    assert "exporter.yaml" in str(result.exception) and "not written by gpuwise" in str(result.exception)
    assert [p.name for p in mine.iterdir()] == ["exporter.yaml"]  # nothing written, the file untouched
    assert (mine / "exporter.yaml").read_text() == "# the team's own exporter\n"
