"""gpuwise deploy: manifests from plans validate against the Kubernetes and CRD schemas, NCCL
follows the interconnect, MIG only where the catalog has it, pools are sized from the plans."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib.util
import json
import socket
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlparse

import pytest
import typer
import yaml
from typer.testing import CliRunner

from corpus.operators_accuracy import with_values
from gpuwise.catalog import load_catalog
from gpuwise.cli.deploy_cmd import register
from gpuwise.deploy import gpu as gpuinfo
from gpuwise.deploy.common import DeployOptions, make, split_reasons, why
from gpuwise.deploy.inference import growth_replicas
from gpuwise.deploy.manifests import candidate_manifests, plan_manifests
from gpuwise.deploy.nccl import nccl_env
from gpuwise.deploy.pools import RECLAIMER_SCRIPT, plan_from_file, plan_pools, plan_pools_file, pool_manifests
from gpuwise.deploy.validate import load_crds, validate
from gpuwise.deploy.writer import dump, files, write
from gpuwise.errors import RequirementNotMet, UsageError
from gpuwise.estimate import estimate
from gpuwise.plan.results import Candidate
from gpuwise.workload import build_hardware, build_workload

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CRDS = Path(__file__).resolve().parent.parent / "src" / "gpuwise" / "deploy" / "data"
PLAN_FILES = sorted(p for p in EXAMPLES.glob("*.yaml") if "team" not in yaml.safe_load(p.read_text()))

HAVE_KV = importlib.util.find_spec("kubernetes_validate") is not None
needs_kv = pytest.mark.skipif(
    not HAVE_KV, reason="kubernetes-validate is not installed (pip install kubernetes-validate)"
)


@functools.cache
def _plan(name: str, gpus: tuple[str, ...] | None = None):
    return plan_from_file(EXAMPLES / name, {"gpus": list(gpus)} if gpus else None)[0]


@functools.cache
def _pools():
    return plan_pools_file(EXAMPLES / "pools.yaml")


def _assert_valid(bundle) -> None:
    report = validate(bundle.manifests, CRDS)
    assert report.ok, [c for c in report.invalid]
    if HAVE_KV:
        assert not report.skipped, [c for c in report.skipped]  # every object checked against a real schema
    else:  # core kinds are reported as not checked, never as valid
        assert all("kubernetes-validate" in c.detail or "jsonschema" in c.detail for c in report.skipped)
    for m in bundle.manifests:
        assert yaml.safe_load(dump(m)) == m.body, (m.kind, m.name)  # the commented YAML is the same object


def _container(bundle, kind):
    m = bundle.find(kind)[0].body
    spec = (
        m["spec"]["tasks"][0]["template"]["spec"]
        if m["apiVersion"].startswith("batch.volcano")
        else m["spec"]["template"]["spec"]
    )
    return spec, spec["containers"][0]


def _env(container) -> dict[str, str]:
    return {e["name"]: e.get("value") for e in container.get("env", [])}


# ------------------------------------------------------------------------------------------
def test_shipped_crds_are_the_ones_validated():
    crds = load_crds(CRDS)
    assert ("batch.volcano.sh/v1alpha1", "Job") in crds
    assert ("keda.sh/v1alpha1", "ScaledObject") in crds
    assert (CRDS / "CRDS.md").read_text().count("github.com") >= 2


@pytest.mark.parametrize("plan_file", PLAN_FILES, ids=[p.stem for p in PLAN_FILES])
def test_every_example_plan_deploys_and_validates(plan_file):
    result = _plan(plan_file.name)
    if result.chosen is None:
        pytest.skip("no chosen plan")
    # an AMD GPU chosen for a model Triton serves needs a ROCm serving image (no stock one): given here
    amd = result.chosen.est.hardware.gpu.vendor == "amd"
    extra = {"engine": "triton", "image": "registry.example/tritonserver-rocm:24.05"} if amd else {}
    for scheduler in ("volcano", "job"):
        bundle = plan_manifests(result, DeployOptions(namespace="ml", scheduler=scheduler, **extra))
        _assert_valid(bundle)
        kinds = {m.kind for m in bundle.manifests}
        if bundle.summary["kind"] == "inference":
            assert {"Deployment", "Service", "ScaledObject"} <= kinds
            break
        assert "Job" in kinds


def test_inference_manifest_follows_the_plan():
    result = _plan("chat-7b-p99.yaml", ("h100-sxm",))
    c = result.chosen
    bundle = plan_manifests(result, DeployOptions(namespace="serve"))
    dep = bundle.find("Deployment")[0].body
    spec, container = _container(bundle, "Deployment")
    assert dep["spec"]["replicas"] == c.replicas
    assert container["resources"]["limits"]["nvidia.com/gpu"] == c.est.hardware.count
    args = container["args"]
    assert f"--tensor-parallel-size={c.est.workload.parallel.tp}" in args
    assert f"--max-num-seqs={c.serving.max_batch}" in args
    assert any(a.startswith("--gpu-memory-utilization=") for a in args)
    assert container["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8000}
    assert spec["nodeSelector"] == {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    so = bundle.find("ScaledObject")[0].body["spec"]
    assert so["minReplicaCount"] == c.replicas
    trig = so["triggers"][0]
    assert trig["type"] == "prometheus"
    assert float(trig["metadata"]["threshold"]) == pytest.approx(c.serving.capacity_rps_per_replica, rel=1e-3)
    assert so["maxReplicaCount"] == growth_replicas(c) > c.replicas  # what the growth check asks for (3x users)
    # every non-default value carries its reason into the written YAML
    text = dump(bundle.find("Deployment")[0])
    assert "# the plan's tensor parallelism" in text and f"# the plan's {c.replicas} replica(s)" in text


def test_triton_for_non_llm_models():
    result = _plan("ecommerce-recsys-serving.yaml", ("a10",))
    bundle = plan_manifests(result, DeployOptions())
    _, container = _container(bundle, "Deployment")
    assert container["image"].startswith("nvcr.io/nvidia/tritonserver:")
    assert "--model-repository=/models" in container["args"]
    assert any(a.startswith("--pinned-memory-pool-byte-size=") for a in container["args"])
    assert "--strict-model-config=false" not in container["args"]  # auto-complete is the default since 22.07
    assert container["readinessProbe"]["httpGet"] == {"path": "/v2/health/ready", "port": 8000}
    old = plan_manifests(result, DeployOptions(image="nvcr.io/nvidia/tritonserver:22.05-py3"))
    _, container = _container(old, "Deployment")
    assert "--strict-model-config=false" in container["args"]
    assert "older than 22.07" in dump(old.find("Deployment")[0])
    with pytest.raises(UsageError, match="vLLM serves generative language models"):
        plan_manifests(result, DeployOptions(engine="vllm"))


def test_tensor_parallel_serving_gets_shm_and_tp():
    result = _plan("chat-7b-serving.yaml", ("h100-sxm",))
    c = result.chosen
    from gpuwise.workload import Parallelism

    work = dataclasses.replace(c.est.workload, parallel=Parallelism(tp=2))
    hw = build_hardware("h100-sxm:2", load_catalog())
    tp2 = Candidate(estimate(work, hw, load_catalog(), search_largest=False), 7.56, serving=c.serving)
    bundle = candidate_manifests(tp2, DeployOptions(engine="vllm"))
    _assert_valid(bundle)
    spec, container = _container(bundle, "Deployment")
    assert "--tensor-parallel-size=2" in container["args"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 2
    assert any(v.get("emptyDir", {}).get("medium") == "Memory" for v in spec["volumes"])


def _catalog_with(**values):
    """The packaged catalog with some conventions set to other values."""
    return with_values(load_catalog(), values)


def _volume(spec, name):
    return next(v for v in spec["volumes"] if v["name"] == name)


def test_serving_numbers_come_from_the_catalog():
    # Mistral-7B (7,241,732,096 parameters) in bf16 on one H100 (80 GiB); the plan needs 21.6 GiB
    result = _plan("chat-7b-serving.yaml", ("h100-sxm",))
    assert result.chosen.est.memory.per_gpu.weights == 2 * 7_241_732_096
    spec, container = _container(plan_manifests(result, DeployOptions()), "Deployment")
    assert "--gpu-memory-utilization=0.90" in container["args"]  # 21.6/80 + 0.02 = 0.29 < vLLM's 0.90
    assert _volume(spec, "model-cache")["emptyDir"]["sizeLimit"] == "18Gi"  # 14.48e9 B x 1.3 = 17.5 GiB
    cat = _catalog_with(serving_memory_utilization=0.8, model_cache_headroom=0.5)
    spec, container = _container(plan_manifests(result, DeployOptions(), cat), "Deployment")
    assert "--gpu-memory-utilization=0.80" in container["args"]
    assert _volume(spec, "model-cache")["emptyDir"]["sizeLimit"] == "21Gi"  # x 1.5 = 20.2 GiB
    cat = _catalog_with(model_cache_min_bytes=32 * 2**30)
    spec, _ = _container(plan_manifests(result, DeployOptions(), cat), "Deployment")
    assert _volume(spec, "model-cache")["emptyDir"]["sizeLimit"] == "32Gi"
    # three 21.6 GiB replicas fit in 80 GiB: each takes floor((1/3 - 0.02) x 100) / 100 = 0.31
    _, container = _container(plan_manifests(result, DeployOptions(sharing="time-slicing")), "Deployment")
    assert "--gpu-memory-utilization=0.31" in container["args"]
    # at most two slices per GPU: each takes floor((1/2 - 0.05) x 100) / 100 = 0.45
    cat = _catalog_with(time_slices_max=2, serving_memory_margin=0.05)
    shared = plan_manifests(result, DeployOptions(sharing="time-slicing"), cat)
    _, container = _container(shared, "Deployment")
    assert "--gpu-memory-utilization=0.45" in container["args"]
    assert shared.node_labels[0].value == "h100-sxm-x2"


def test_shared_memory_size_comes_from_the_catalog():
    cat = load_catalog()
    work = build_workload(
        {"model": "llama-2-7b", "task": "finetune", "method": "lora", "micro_batch": 1, "tokens": "1B"}, cat
    )
    for gpus, default_gib, small_gib in [("h100-sxm:8", "64Gi", "32Gi"), ("l40s:2", "16Gi", "16Gi")]:
        c = Candidate(estimate(work, build_hardware(gpus, cat), cat, search_largest=False), 10.0)
        spec, _ = _container(candidate_manifests(c, DeployOptions(), cat), "Job")
        assert _volume(spec, "dshm")["emptyDir"]["sizeLimit"] == default_gib  # max(16 GiB, 8 GiB x GPUs)
        small = _catalog_with(shm_bytes_per_gpu=4 * 2**30)
        spec, _ = _container(candidate_manifests(c, DeployOptions(), small), "Job")
        assert _volume(spec, "dshm")["emptyDir"]["sizeLimit"] == small_gib  # max(16 GiB, 4 GiB x GPUs)


def test_dev_pool_time_slices_come_from_the_catalog():
    team = {"team": {"engineers": 6, "gpu": "a10"}}
    dev = plan_pools(team, EXAMPLES).pools["dev"]
    assert (dev.gpus, dev.sharing["per_gpu"]) == (2, 3)  # ceil(6 / 3) GPUs, 6 engineers on 2 GPUs
    dev = plan_pools(team, EXAMPLES, catalog=_catalog_with(time_slices_max=2)).pools["dev"]
    assert (dev.gpus, dev.sharing["per_gpu"]) == (3, 2)  # 2 slices per GPU: ceil(6 / 2) GPUs


def test_deploy_functions_stay_short():
    """The builders are split by object kind; none grows past 80 lines again."""
    src = ROOT / "src" / "gpuwise"
    long = []
    for path in [*sorted((src / "deploy").glob("*.py")), src / "cli" / "deploy_cmd.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and (node.end_lineno or node.lineno) - node.lineno + 1 > 80:
                long.append(f"{path.name}:{node.name}")
    assert long == []


# ------------------------------------------------------------------------------------------
def _has_mig(bundle) -> bool:
    text = "".join(files(bundle).values())
    return (
        "mig-parted" in text
        or gpuinfo.MIG_CONFIG_LABEL in text
        or any(n.key == gpuinfo.MIG_CONFIG_LABEL for n in bundle.node_labels)
    )


def test_a10_never_gets_a_mig_layout():
    cat = load_catalog()
    assert cat.gpu("a10").mig_max_instances == 0
    serving = _plan("ecommerce-recsys-serving.yaml", ("a10",))
    assert serving.chosen.est.hardware.gpu.id == "a10"
    for sharing in ("none", "auto", "time-slicing"):
        bundle = plan_manifests(serving, DeployOptions(sharing=sharing))
        assert not _has_mig(bundle)
        _assert_valid(bundle)
    shared = plan_manifests(serving, DeployOptions(sharing="auto"))
    ts = shared.find("ConfigMap", "gpuwise-time-slicing")
    assert ts and "timeSlicing" in next(iter(ts[0].body["data"].values()))
    assert shared.node_labels[0].key == gpuinfo.DEVICE_PLUGIN_CONFIG_LABEL
    spec, _ = _container(shared, "Deployment")
    assert spec["nodeSelector"]["nvidia.com/gpu.product"] == "NVIDIA-A10-SHARED"
    with pytest.raises(UsageError, match="a10 has no MIG"):
        plan_manifests(serving, DeployOptions(sharing="mig"))
    training = _plan("finetune-7b-qlora.yaml")  # the file names gpu: a10
    assert training.chosen.est.hardware.gpu.id == "a10"
    assert not _has_mig(plan_manifests(training, DeployOptions()))
    # a dev pool on A10 is time-sliced
    pools = plan_pools({"team": {"engineers": 6, "gpu": "a10"}, "workloads": []}, EXAMPLES)
    dev = pools.pools["dev"]
    assert dev.sharing["mode"] == "time-slicing"
    assert not _has_mig(pool_manifests(pools))


@pytest.mark.parametrize("gpu_id", ["h100-sxm", "a100-80gb-sxm"])
def test_a100_h100_get_a_mig_layout_when_sharing_is_asked(gpu_id):
    result = _plan("chat-7b-serving.yaml", (gpu_id,))
    assert not _has_mig(plan_manifests(result, DeployOptions()))
    bundle = plan_manifests(result, DeployOptions(sharing="auto"))
    _assert_valid(bundle)
    assert _has_mig(bundle)
    cm = bundle.find("ConfigMap", "gpuwise-mig-parted-config")[0].body
    config = yaml.safe_load(cm["data"]["config.yaml"])
    label = next(n for n in bundle.node_labels if n.key == gpuinfo.MIG_CONFIG_LABEL)
    layout = config["mig-configs"][label.value]
    ((profile, per_gpu),) = layout[0]["mig-devices"].items()
    assert label.value == f"all-{profile}" and per_gpu >= 2
    need = result.chosen.est.memory.per_gpu.total
    assert float(profile.split(".")[1].rstrip("gb")) * 1e9 >= need
    spec, container = _container(bundle, "Deployment")
    assert spec["nodeSelector"]["nvidia.com/gpu.product"].endswith(f"-MIG-{profile}")
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1


def test_training_refuses_sharing():
    with pytest.raises(UsageError, match="whole GPUs"):
        plan_manifests(_plan("train-13b-multi-gpu.yaml"), DeployOptions(sharing="mig"))


# ------------------------------------------------------------------------------------------
def test_nccl_follows_the_interconnect():
    cat = load_catalog()
    ib_fab, ib_vars = nccl_env(build_hardware("h100-sxm:16", cat, network="ib-ndr"), cat)
    ib = {e.name: e.value for e in ib_vars}
    assert ib_fab.inter == "infiniband"
    assert ib["NCCL_IB_DISABLE"] == "0" and ib["NCCL_IB_HCA"] and ib["NCCL_NET_GDR_LEVEL"]
    assert "NCCL_IB_GID_INDEX" not in ib and "NCCL_P2P_LEVEL" not in ib

    roce_fab, roce_vars = nccl_env(build_hardware("h100-sxm:16", cat, network="roce-400g"), cat)
    roce = {e.name: e.value for e in roce_vars}
    assert roce_fab.inter == "roce"
    assert roce["NCCL_IB_GID_INDEX"] == "3" and roce["NCCL_SOCKET_IFNAME"] and roce["NCCL_IB_DISABLE"] == "0"
    assert "NCCL_NET_GDR_LEVEL" not in roce

    pcie_fab, pcie_vars = nccl_env(build_hardware("l40s:4", cat), cat)
    pcie = {e.name: e.value for e in pcie_vars}
    assert pcie_fab.inter is None and pcie_fab.intra == "pcie"
    assert pcie["NCCL_P2P_LEVEL"] == "PXB" and pcie["NCCL_IB_DISABLE"] == "1"
    assert not {"NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_NET_GDR_LEVEL", "NCCL_SOCKET_IFNAME"} & set(pcie)

    _, nvlink = nccl_env(build_hardware("h100-sxm:8", cat), cat)
    assert "NCCL_P2P_LEVEL" not in {e.name for e in nvlink}  # NVLink inside the node: NCCL's defaults
    assert nccl_env(build_hardware("h100-sxm:16", cat), cat)[0].network == "ib-ndr"  # catalog default for HGX H100
    assert all(e.why for e in [*nccl_env(build_hardware("a40:16", cat), cat)[1]])


@pytest.mark.parametrize(
    ("spec", "network", "expect", "absent"),
    [
        ("h100-sxm:16", "ib-ndr", {"NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "mlx5"}, "NCCL_IB_GID_INDEX"),
        ("h100-sxm:16", "roce-400g", {"NCCL_IB_GID_INDEX": "3", "NCCL_SOCKET_IFNAME": "eth0"}, "NCCL_NET_GDR_LEVEL"),
        ("l40s:4", None, {"NCCL_P2P_LEVEL": "PXB", "NCCL_IB_DISABLE": "1"}, "NCCL_SOCKET_IFNAME"),
    ],
)
def test_training_job_carries_the_nccl_settings(spec, network, expect, absent):
    cat = load_catalog()
    hw = build_hardware(spec, cat, network=network)
    work = build_workload(
        {"model": "llama-2-7b", "task": "finetune", "method": "lora", "micro_batch": 1, "tokens": "1B"}, cat
    )
    c = Candidate(estimate(work, hw, cat, search_largest=False), 10.0)
    for scheduler in ("volcano", "job"):
        bundle = candidate_manifests(c, DeployOptions(scheduler=scheduler, queue="research"), cat)
        _assert_valid(bundle)
        spec_, container = _container(bundle, "Job")
        env = _env(container)
        assert expect.items() <= env.items() and absent not in env
        assert container["resources"]["limits"]["nvidia.com/gpu"] == hw.gpus_per_node
        job = bundle.find("Job")[0].body
        if scheduler == "volcano":
            assert job["spec"]["minAvailable"] == hw.nodes == job["spec"]["tasks"][0]["replicas"]
            assert job["spec"]["queue"] == "research" and job["spec"]["schedulerName"] == "volcano"
        else:
            assert job["apiVersion"] == "batch/v1" and job["spec"]["completionMode"] == "Indexed"
            assert job["spec"]["completions"] == hw.nodes
        args = container["args"]
        assert f"--nproc-per-node={hw.gpus_per_node}" in args
        if hw.nodes > 1:
            assert f"--nnodes={hw.nodes}" in args and "MASTER_ADDR" in env
        if network:
            assert spec_["containers"][0]["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"]
        text = dump(bundle.find("Job")[0])
        assert "# gang scheduling" in text or "no gang scheduling" in text


# ------------------------------------------------------------------------------------------
def test_pool_planner_on_the_example():
    pools = _pools()
    dev, train, inference = (pools.pools[k] for k in ("dev", "train", "inference"))
    train_plan = next(w for w in train.workloads).chosen
    serve_plan = next(w for w in inference.workloads).chosen
    assert train.gpus == train_plan.gpus and train.gpu.id == train_plan.est.hardware.gpu.id
    assert inference.gpus == serve_plan.gpus
    assert inference.headroom_gpus == growth_replicas(serve_plan) - serve_plan.replicas  # the growth check's replicas
    assert dev.gpu.id == "h100-sxm" and dev.sharing["mode"] == "mig"
    assert dev.gpus == 4  # ceil(10 engineers / 3 per GPU)
    assert dev.sharing["per_gpu"] * dev.gpus >= 10
    assert dev.idle_minutes == 30
    for p in (dev, train, inference):
        assert p.usd_per_month and p.usd_per_month > 0
    assert train.usd_per_month == pytest.approx(train_plan.usd_per_hour * 730.5)
    d = pools.as_dict()
    assert json.dumps(d) and any("engineers_per_gpu" in a for a in d["assumptions"])


def test_pool_quotas_equal_the_planned_gpus():
    pools = _pools()
    bundle = pool_manifests(pools)
    _assert_valid(bundle)
    quotas = {m.body["metadata"]["namespace"]: m.body["spec"]["hard"] for m in bundle.find("ResourceQuota")}
    dev = pools.pools["dev"]
    assert quotas[dev.namespace] == {"requests.nvidia.com/gpu": str(dev.gpus * dev.sharing["per_gpu"])}
    train = pools.pools["train"]
    assert quotas[train.namespace] == {"requests.nvidia.com/gpu": str(train.gpus)}
    assert bundle.find("LimitRange") and bundle.find("CronJob", "gpu-idle-reclaimer")
    assert any(n.key == gpuinfo.MIG_CONFIG_LABEL for n in bundle.node_labels)
    # without sharing, the dev quota is exactly the planned physical GPUs
    plain = plan_pools({"team": {"engineers": 4, "engineers_per_gpu": 1, "gpu": "l4"}}, EXAMPLES)
    pdev = plain.pools["dev"]
    assert pdev.sharing["mode"] == "none" and pdev.gpus == 4
    q = pool_manifests(plain).find("ResourceQuota")[0].body["spec"]["hard"]
    assert q == {"requests.nvidia.com/gpu": "4"}


def test_pools_file_errors_are_clear():
    from gpuwise.errors import ConfigError

    with pytest.raises(ConfigError, match="engineers"):
        plan_pools({"team": {}}, EXAMPLES)
    with pytest.raises(ConfigError, match="pool must be one of"):
        plan_pools({"team": {"engineers": 3}, "workloads": [{"pool": "gpu", "plan": "chat-7b-p99.yaml"}]}, EXAMPLES)
    with pytest.raises(ConfigError, match="cannot read"):
        plan_pools({"team": {"engineers": 3}, "workloads": [{"pool": "train", "plan": "missing.yaml"}]}, EXAMPLES)
    with pytest.raises(ConfigError, match=r"team\.engineers must be a whole number"):
        plan_pools({"team": {"engineers": float("inf")}}, EXAMPLES)  # YAML .inf: was an internal error
    for bad in (0, float("nan"), float("inf")):  # NaN and .inf were internal errors
        with pytest.raises(ConfigError, match="engineers_per_gpu must be a positive finite number"):
            plan_pools({"team": {"engineers": 4, "engineers_per_gpu": bad, "gpu": "l4"}}, EXAMPLES)
    with pytest.raises(ConfigError, match="engineers_per_gpu must be a number"):  # was an OverflowError
        plan_pools({"team": {"engineers": 4, "engineers_per_gpu": 10**400, "gpu": "l4"}}, EXAMPLES)


# ------------------------------------------------------------------------------------------
def _cli(args, tmp_path):
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """gpuwise"""

    register(app)
    return CliRunner().invoke(app, args, catch_exceptions=True)


def test_dry_run_writes_nothing(tmp_path):
    out = tmp_path / "out"
    res = _cli(
        ["deploy", str(EXAMPLES / "chat-7b-serving.yaml"), "-o", str(out), "--dry-run", "--crds", str(CRDS)], tmp_path
    )
    assert res.exit_code == 0, res.output
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert "Deployment" in res.output and "ScaledObject" in res.output and "dry run" in res.output
    res = _cli(["deploy", str(EXAMPLES / "pools.yaml"), "--dry-run", "--json"], tmp_path)
    assert res.exit_code == 0, res.output
    payload = json.loads(res.output)
    assert payload["dry_run"] and payload["summary"]["kind"] == "pools" and list(tmp_path.iterdir()) == []
    statuses = {c["status"] for c in payload["validation"]["checks"]}
    assert statuses == {"ok"}  # the shipped CRDs validate Volcano/KEDA objects without --crds


def test_deploy_writes_commented_yaml(tmp_path):
    out = tmp_path / "out"
    res = _cli(
        [
            "deploy",
            str(EXAMPLES / "train-13b-multi-gpu-plan.yaml"),
            "-o",
            str(out),
            "--crds",
            str(CRDS),
            "--namespace",
            "research",
            "--queue",
            "gpu-a",
        ],
        tmp_path,
    )
    assert res.exit_code == 0, res.output
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert "20-volcano-job.yaml" in written and "00-namespace.yaml" in written
    text = (out / "20-volcano-job.yaml").read_text()
    job = yaml.safe_load(text)
    assert job["spec"]["queue"] == "gpu-a" and job["metadata"]["namespace"] == "research"
    assert "# gang scheduling" in text
    assert "validation:" in res.output and "INVALID" not in res.output
    assert json.loads((out / "gpuwise-deploy.json").read_text())["kind"] == "training"


def test_cli_usage_errors(tmp_path):
    res = _cli(["deploy", str(EXAMPLES / "chat-7b-serving.yaml")], tmp_path)
    assert isinstance(res.exception, UsageError) and "-o DIR" in str(res.exception)
    res = _cli(["deploy", str(EXAMPLES / "chat-7b-serving.yaml"), "--dry-run", "--scheduler", "slurm"], tmp_path)
    assert isinstance(res.exception, UsageError) and "--scheduler" in str(res.exception)
    res = _cli(["deploy", str(tmp_path / "nope.yaml"), "--dry-run"], tmp_path)
    assert isinstance(res.exception, UsageError) and "cannot read" in str(res.exception)


def test_no_chosen_plan_is_requirement_not_met():
    from gpuwise.api import make_plan

    result = make_plan({"model": "llama-2-70b", "task": "inference"}, {"gpus": ["t4"], "max_gpus": 1})
    assert result.chosen is None
    with pytest.raises(RequirementNotMet, match="nothing to deploy"):
        plan_manifests(result)


# ------------------------------------------------------------------------------------------
@needs_kv
def test_validation_catches_mistakes():
    result = _plan("chat-7b-p99.yaml", ("h100-sxm",))
    bundle = plan_manifests(result)
    dep = bundle.find("Deployment")[0]
    dep.body["spec"]["replica"] = 3  # a typo: unknown field
    so = bundle.find("ScaledObject")[0]
    so.body["spec"]["minReplicas"] = 1  # not a ScaledObject field
    report = validate(bundle.manifests, CRDS)
    bad = {c.kind for c in report.invalid}
    assert bad == {"Deployment", "ScaledObject"}
    job = plan_manifests(_plan("train-13b-multi-gpu-plan.yaml"))
    job.manifests[0].body["spec"]["minAvailable"] = "four"
    assert [c.kind for c in validate(job.manifests, CRDS).invalid] == ["Job"]


def test_the_validation_summary_counts_only_the_objects_it_checked():
    """Objects left unchecked (no validator, no schema) are neither valid nor invalid: a run that
    checked none says so instead of "0 of 3 objects valid"."""
    from gpuwise.deploy.validate import Check, Report

    ok, bad = Check("Service", "a", "a.yaml", "ok", ""), Check("Deployment", "b", "b.yaml", "invalid", "")
    skip = Check("Deployment", "c", "c.yaml", "skipped", "kubernetes-validate is not installed")
    nothing = Report([skip, skip, skip], None, None).summary()
    assert nothing.startswith("none of the 3 object(s) checked") and "valid;" not in nothing
    assert (
        Report([ok, bad, skip], "1.30", "kubernetes-validate 1.30.0")
        .summary()
        .startswith("1 of 2 checked object(s) valid, 1 not checked;")
    )
    assert (
        Report([ok, ok], "1.30", "kubernetes-validate 1.30.0").summary().startswith("2 of 2 checked object(s) valid;")
    )


@needs_kv
def test_validation_needs_no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    report = validate(plan_manifests(_plan("resnet50-training.yaml")).manifests, CRDS)
    assert report.ok and not report.skipped and report.kubernetes_version


def test_reasons_and_writer_round_trip(tmp_path):
    plain, notes = split_reasons({"a": why(1, "one"), "b": [why({"c": "x\ny\n"}, "block")], "d": {}})
    assert plain == {"a": 1, "b": [{"c": "x\ny\n"}], "d": {}}
    assert notes == {("a",): "one", ("b", 0): "block"}
    bundle = pool_manifests(_pools())
    paths = write(bundle, tmp_path)
    assert (tmp_path / "label-nodes.sh") in paths
    cron = yaml.safe_load((tmp_path / "dev" / "40-idle-reclaimer.yaml").read_text().split("---\n")[-1])
    assert cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["command"][2] == RECLAIMER_SCRIPT
    with pytest.raises(UsageError, match="not a directory"):
        write(bundle, tmp_path / "label-nodes.sh")


def test_writer_keeps_a_trailing_ellipsis():
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "loading...", "b": "..."}}
    assert yaml.safe_load(dump(make(body, "x.yaml", "test"))) == body


# ------------------------------------------------------------------------------------------
class _Fake(BaseHTTPRequestHandler):
    """Prometheus' query API and the pods API of one namespace, on the loopback interface."""

    pods: ClassVar[dict] = {}
    series: ClassVar[list] = []
    deleted: ClassVar[list] = []

    def log_message(self, *args):  # keep test output clean
        pass

    def _json(self, obj, code=200):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/api/v1/query":
            q = parse_qs(url.query)["query"][0]
            assert 'gpuwise_gpu_utilization_ratio{namespace="ml-dev"}[30m]' in q
            return self._json({"status": "success", "data": {"resultType": "vector", "result": self.series}})
        name = url.path.rsplit("/", 1)[-1]
        assert self.headers["Authorization"] == "Bearer t0ken"
        if name in self.pods:
            return self._json(self.pods[name])
        return self._json({"kind": "Status", "code": 404}, 404)

    def do_DELETE(self):
        self.deleted.append(self.path.rsplit("/", 1)[-1])
        self._json({"kind": "Pod"})


def test_idle_reclaimer_script_deletes_only_idle_old_pods(tmp_path):
    now = datetime.now(UTC)
    old = (now - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    young = (now - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    _Fake.pods = {
        "idle-old": {"metadata": {"name": "idle-old"}, "status": {"startTime": old}},
        "idle-young": {"metadata": {"name": "idle-young"}, "status": {"startTime": young}},
        "idle-kept": {
            "metadata": {"name": "idle-kept", "annotations": {"gpuwise.io/keep": "true"}},
            "status": {"startTime": old},
        },
        "busy": {"metadata": {"name": "busy"}, "status": {"startTime": old}},
    }
    _Fake.series = [
        {"metric": {"pod": p}, "value": [0, v]}
        for p, v in [("idle-old", "0.01"), ("idle-young", "0"), ("idle-kept", "0"), ("busy", "0.9"), ("gone", "0")]
    ]
    _Fake.deleted = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Fake)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        (tmp_path / "token").write_text("t0ken\n")
        env = {
            "NAMESPACE": "ml-dev",
            "IDLE_MINUTES": "30",
            "PROMETHEUS_URL": base,
            "KUBE_API": base,
            "TOKEN_FILE": str(tmp_path / "token"),
            "PATH": "/usr/bin:/bin",
        }
        run = subprocess.run(
            [sys.executable, "-c", RECLAIMER_SCRIPT], env=env, capture_output=True, text=True, timeout=30
        )
        assert run.returncode == 0, run.stderr
        assert _Fake.deleted == ["idle-old"]
        assert "keeping idle-kept" in run.stdout and "1 idle pod(s) deleted" in run.stdout
        _Fake.deleted = []
        run = subprocess.run(
            [sys.executable, "-c", RECLAIMER_SCRIPT],
            env={**env, "DRY_RUN": "true"},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert run.returncode == 0 and _Fake.deleted == [] and "would delete idle-old" in run.stdout
    finally:
        server.shutdown()
        server.server_close()


def test_a_plan_timed_without_cuda_graphs_deploys_vllm_with_enforce_eager():
    """--enforce-eager times vLLM's decode steps by their host dispatches; the server the plan deploys
    must run that way too, and one timed with CUDA graphs must not."""
    from gpuwise.catalog import load_catalog
    from gpuwise.deploy.engines import vllm_args
    from gpuwise.workload import build_workload

    cat = load_catalog()
    opts = {"model": "llama-2-7b", "task": "inference", "engine": "vllm"}
    eager = build_workload({**opts, "enforce_eager": True}, cat)
    graphed = build_workload(opts, cat)

    def flags(work) -> list[str]:
        return [
            str(getattr(a, "value", a))
            for a in vllm_args(work, ("meta-llama/Llama-2-7b-hf", "the model"), 32, (0.9, "util"))
        ]

    assert "--enforce-eager" in flags(eager)
    assert "--enforce-eager" not in flags(graphed)
