"""gpuwise deploy --target slurm: batch scripts and pool configuration that a real Slurm accepts
and runs (tests/slurm_cluster.py starts one), with the plan's nodes, GPUs, layout and engine."""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.deploy.common import DeployOptions
from gpuwise.deploy.engines import server_command
from gpuwise.deploy.launch import framework_args, train_launch
from gpuwise.deploy.nccl import nccl_env
from gpuwise.deploy.pools import plan_from_file, plan_pools_file
from gpuwise.deploy.shell import ShellText, word
from gpuwise.deploy.slurm import gres_type, slurm_files, slurm_time
from gpuwise.deploy.slurm_pools import slurm_pool_files
from gpuwise.errors import UsageError
from gpuwise.workload import build_hardware, build_workload

from .conftest import missing, run_process

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
# the README's training example: `gpuwise plan -f examples/train-13b-multi-gpu-plan.yaml --gpus h100-sxm`
TRAIN = ("train-13b-multi-gpu-plan.yaml", ("h100-sxm",))
SERVE = ("chat-7b-p99.yaml", None)  # the README's serving example (gpuwise deploy examples/chat-7b-p99.yaml)
HOSTILE = "$(touch /tmp/gpuwise-pwned-by-slurm-script); echo"

STANDIN = """#!{python}
# gpuwise's CPU stand-in for the training script / serving engine: records what it was given.
import json, os, sys
rank = os.environ.get("RANK", os.environ.get("SLURM_ARRAY_TASK_ID", "0"))
keep = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "GPUWISE_LAYOUT",
        "SLURM_JOB_NUM_NODES", "SLURM_ARRAY_TASK_ID", "SLURM_CPUS_ON_NODE")
env = {{k: v for k, v in os.environ.items() if k in keep or k.startswith("NCCL_")}}
with open(os.path.join({out!r}, f"rank-{{rank}}.json"), "w") as f:
    json.dump({{"argv": sys.argv[1:], "env": env}}, f)
"""


@functools.cache
def _plan(name: str, gpus: tuple[str, ...] | None):
    return plan_from_file(EXAMPLES / name, {"gpus": list(gpus)} if gpus else None)[0]


def _standin(tmp: Path) -> tuple[Path, Path]:
    out = tmp / "ranks"
    out.mkdir()
    script = tmp / "standin.py"
    script.write_text(STANDIN.format(python=sys.executable, out=str(out)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, out


# ----- what the scripts say (no Slurm needed) ----------------------------------------------------
def test_gres_type_is_the_name_slurms_nvml_autodetection_gives():
    cat = load_catalog()
    # NVML 'NVIDIA H100 80GB HBM3' lower-cased with '_' for spaces (Slurm gpu_nvml.c)
    assert gres_type(cat.gpu("h100-sxm"))[0] == "nvidia_h100_80gb_hbm3"
    assert gres_type(cat.gpu("a100-80gb-sxm"))[0] == "nvidia_a100-sxm4-80gb"
    assert gres_type(cat.gpu("h100-sxm"), "h100")[0] == "h100"
    with pytest.raises(UsageError, match="not a valid Slurm name"):
        gres_type(cat.gpu("h100-sxm"), "h100 --wrap=id")


def test_slurm_time_rounds_up_to_the_minute():
    assert slurm_time(60) == "0-00:01:00"
    assert slurm_time(61) == "0-00:02:00"
    assert slurm_time(86400 + 3600 + 60 + 1) == "1-01:02:00"


def test_training_script_carries_the_plans_nodes_gpus_time_and_nccl():
    cat = load_catalog()
    c = _plan(*TRAIN).chosen
    hw = c.est.hardware
    text = slurm_files(c, DeployOptions(), cat).files["train.sbatch"]
    assert f"#SBATCH --nodes={hw.nodes}\n" in text
    assert f"#SBATCH --gres=gpu:nvidia_h100_80gb_hbm3:{hw.gpus_per_node}\n" in text
    assert "#SBATCH --ntasks-per-node=1\n" in text and "#SBATCH --exclusive\n" in text
    # the time limit: the plan's expected hours x 1.25 (conventions.yaml), rounded up to the minute
    minutes = math.ceil(c.hours * 3600 * 1.25 / 60)
    assert f"#SBATCH --time={minutes // 1440}-{minutes % 1440 // 60:02d}:{minutes % 60:02d}:00\n" in text
    for e in nccl_env(hw, cat)[1]:  # the same NCCL settings as the Kubernetes Job
        assert f"export {e.name}={word(e.value)}\n" in text
    assert f"--nnodes={hw.nodes}" in text and f"--nproc-per-node={hw.gpus_per_node}" in text
    assert '--rdzv-endpoint="${head_addr}":29500' in text
    subprocess.run(["bash", "-n"], input=text, text=True, check=True)


def test_stack_flags_follow_the_layout():
    cat = load_catalog()
    work = build_workload(
        {
            "model": "llama-2-13b",
            "task": "pretrain",
            "tp": 2,
            "pp": 2,
            "zero": 1,
            "micro_batch": 2,
            "global_batch": 64,
            "seq": 4096,
            "recompute": "selective",
        },
        cat,
    )
    hw = build_hardware("h100-sxm:16", cat)
    args, notes = framework_args(work, hw, "megatron")
    flags = [a.value for a in args]
    assert flags[:2] == ["--tensor-model-parallel-size=2", "--pipeline-model-parallel-size=2"]
    assert "--sequence-parallel" in flags and "--use-distributed-optimizer" in flags
    assert "--micro-batch-size=2" in flags and "--global-batch-size=64" in flags
    assert "--recompute-granularity=selective" in flags and not notes
    hf, hf_notes = framework_args(work, hw, "hf-trainer")
    # 16 GPUs / (tp 2 x pp 2) = 4 data-parallel ranks; 64 / (2 x 4) = 8 micro-batches per step
    assert "--gradient_accumulation_steps=8" in [a.value for a in hf]
    assert any("tensor parallelism" in n for n in hf_notes) and any("ZeRO-1" in n for n in hf_notes)
    assert framework_args(work, hw, "deepspeed")[0] == []


def test_megatron_runs_the_interleaved_schedule_and_the_edge_split_the_plan_assumes():
    """Llama 3.1 405B on Table 4's layout (TP 8, PP 16, 8 virtual stages): 126 layers, 7 on the first
    stage beside the embedding and 7 on the last beside the loss (the memory model's split), which
    Megatron Core runs with both account-for flags (126 + 2 = 16 x 8 chunks of one); 125 layers on 16
    stages leave 3 short (7, 8 ... 8, 7 with one more stage of 7), which no such flag says: a note."""
    cat = load_catalog()
    spec = {"model": "llama-3.1-405b", "task": "pretrain", "framework": "megatron", "tp": 8, "pp": 16}
    work = build_workload(spec | {"vpp": 8, "zero": 1, "seq": 8192, "global_batch": 2048}, cat)
    hw = build_hardware("h100-sxm:16384", cat)
    args, notes = framework_args(work, hw, "megatron")
    flags = [a.value for a in args]
    assert "--num-virtual-stages-per-pipeline-rank=8" in flags and not notes
    split = ["--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"]
    assert [f for f in flags if f.startswith("--account-for")] == split
    even = build_workload({**spec, "model": "llama-3.1-70b", "pp": 8, "zero": 1, "seq": 8192}, cat)
    assert not [f for f in (a.value for a in framework_args(even, hw, "megatron")[0]) if "split" in f or "virtual" in f]
    short3 = replace(work, model=replace(work.model, layers=125), parallel=replace(work.parallel, vpp=1))
    args3, notes3 = framework_args(short3, hw, "megatron")
    assert not [a for a in args3 if "account-for" in a.value or a.value == "embedding"]
    assert any("pipeline split of 125 layers" in n for n in notes3)
    assert any("interleaved schedule" in n for n in framework_args(work, hw, "torchtitan")[1])


def test_hybrid_sharding_is_sharded_in_a_node_and_replicated_across_nodes():
    cat = load_catalog()
    spec = {"model": "llama-2-13b", "task": "pretrain", "zero": 3, "sharding": "hybrid", "framework": "torchtitan"}
    work = build_workload(spec, cat)
    hw = build_hardware("h100-sxm:32", cat)  # 4 nodes of 8: shards over a node's 8 ranks, 4 replicas
    flags = [a.value for a in framework_args(work, hw, "torchtitan")[0]]
    assert "--parallelism.data_parallel_replicate_degree=4" in flags
    assert "--parallelism.data_parallel_shard_degree=8" in flags
    assert "--fsdp=hybrid_shard auto_wrap" in [a.value for a in framework_args(work, hw, "hf-trainer")[0]]
    assert any("hybrid sharding" in n for n in framework_args(work, hw, "megatron")[1])


def test_megatron_zero2_and_zero3_run_as_megatron_fsdp():
    """A plan may shard a Megatron run's gradients or parameters too (BERT-large on 8 B200 takes ZeRO-3): Megatron
    Core runs that as Megatron-FSDP, whose user guide lists its required flags; the stage picks the strategy."""
    cat = load_catalog()
    spec = {"model": "bert-large-uncased", "task": "pretrain", "framework": "megatron", "micro_batch": 32}
    hw = build_hardware("b200:8", cat)
    for zero, strategy in ((2, "optim_grads"), (3, "optim_grads_params")):
        args, notes = framework_args(build_workload({**spec, "zero": zero}, cat), hw, "megatron")
        flags = [a.value for a in args]
        assert "--use-megatron-fsdp" in flags and f"--data-parallel-sharding-strategy={strategy}" in flags
        assert "--use-distributed-optimizer" in flags and "--ckpt-format=fsdp_dtensor" in flags and not notes
    zero0 = [a.value for a in framework_args(build_workload({**spec, "zero": 0}, cat), hw, "megatron")[0]]
    assert not any("fsdp" in f or "distributed-optimizer" in f for f in zero0)


def test_megatron_zero1_sharded_in_a_node_takes_the_partial_distributed_optimizer():
    """Megatron Core's --num-distributed-optimizer-instances: one optimizer copy per node, 4 on 32 GPUs."""
    cat = load_catalog()
    spec = {"model": "llama-2-13b", "task": "pretrain", "zero": 1, "sharding": "hybrid", "framework": "megatron"}
    flags = [
        a.value for a in framework_args(build_workload(spec, cat), build_hardware("h100-sxm:32", cat), "megatron")[0]
    ]
    assert "--use-distributed-optimizer" in flags and "--num-distributed-optimizer-instances=4" in flags


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_each_engine_gets_the_plans_tp_batch_and_port(engine):
    cat = load_catalog()
    c = _plan(*SERVE).chosen
    cmd = server_command(engine, c, cat, None, 48, ShellText("${port}"))
    flags = [a.value if hasattr(a, "value") else a for a in cmd.args]
    tp = c.est.workload.parallel.tp
    expect = {
        "vllm": [f"--tensor-parallel-size={tp}", "--max-num-seqs=48", "--max-model-len=1280"],
        "sglang": [f"--tp-size={tp}", "--max-running-requests=48", "--context-length=1280", "--host=0.0.0.0"],
        "trtllm": [f"--tp_size={tp}", "--max_batch_size=48", "--max_seq_len=1280", "--host=0.0.0.0"],
    }[engine]
    assert set(expect) <= set(flags)
    assert word(flags[-1]) == '--port="${port}"'  # the replica's port, expanded by the shell


@pytest.mark.parametrize(("engine", "flag"), [("vllm", "--max-model-len"), ("sglang", "--context-length")])
def test_an_engine_admits_the_longest_request_a_length_spread_draws(engine, flag):
    """The plan's workload with --length-spread 0.9 about 1024 prompt + 256 output tokens: its longest request
    is 1946 + 487 = 2433 tokens, which the engine must admit (a shorter maximum context refuses it)."""
    cat = load_catalog()
    c = _plan(*SERVE).chosen
    work = replace(c.est.workload, length_spread=0.9)
    assert work.longest_context == 1946 + 487
    c = replace(c, est=replace(c.est, workload=work))
    flags = [
        a.value if hasattr(a, "value") else a for a in server_command(engine, c, cat, None, 48, ShellText("1")).args
    ]
    assert f"{flag}=2433" in flags


def test_sglang_is_given_the_memory_share_the_estimate_sized_its_kv_cache_with():
    """SGLang 0.5's mem_fraction_static as the estimate computed it for the plan's GPU and replica (three
    places: a two-place flag would round 0.836 up to 0.84, more than the plan assumed), before the 0.85 that
    SGLang itself applies on AMD (aiter), so that the server runs at the share the estimate sized."""
    from gpuwise.estimate.memory.inference import amd_scaled, memory_fraction

    cat = load_catalog()
    c = _plan(*SERVE).chosen
    cmd = server_command("sglang", c, cat, None, 48, ShellText("${port}"))
    flags = [a.value if hasattr(a, "value") else a for a in cmd.args]
    profile, gpu = cat.engine("sglang"), c.est.hardware.gpu
    share = memory_fraction(profile, cat, gpu, c.est.workload)
    assert share != 0.88  # not v0.4's fixed share
    rule = profile.memory_reserve
    assert rule is not None
    written = share / rule.amd_scale if amd_scaled(rule, gpu, c.est.workload) else share
    assert f"--mem-fraction-static={written:.3f}" in flags


def test_plan_values_are_data_for_the_shell():
    assert word("a b") == "'a b'"
    assert word(HOSTILE) == "'" + HOSTILE + "'"
    # only gpuwise's own ShellText expands, and only its ${VAR} parts
    assert word(ShellText("--x=${head_node}:1 $(id)")) == "--x=\"${head_node}\"':1 $(id)'"


def test_usage_errors_are_clear(tmp_path):
    proc = run_process("deploy", str(EXAMPLES / "chat-7b-p99.yaml"), "--target", "slrum", "-o", str(tmp_path))
    assert proc.returncode == 2 and "did you mean slurm" in proc.stderr
    proc = run_process(
        "deploy", str(EXAMPLES / "chat-7b-p99.yaml"), "--target", "slurm", "--partition", "a;b", "-o", str(tmp_path)
    )
    assert proc.returncode == 2 and "not a valid Slurm name" in proc.stderr
    proc = run_process("deploy", str(EXAMPLES / "pools.yaml"), "--target", "skypilot", "-o", str(tmp_path))
    assert proc.returncode == 2 and "pools file deploys to kubernetes or slurm" in proc.stderr
    assert not list(tmp_path.iterdir())


def test_cli_writes_the_script(tmp_path):
    proc = run_process("deploy", str(EXAMPLES / "chat-7b-p99.yaml"), "--target", "slurm", "-o", str(tmp_path), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["target"] == "slurm" and out["summary"]["kind"] == "inference"
    text = (tmp_path / "serve.sbatch").read_text()
    assert f"#SBATCH --array=0-{out['summary']['replicas'] - 1}\n" in text


def test_train_launch_is_shared_with_kubernetes():
    """The torchrun flags on Slurm are the Kubernetes Job's, bar the rendezvous."""
    from gpuwise.deploy.manifests import candidate_manifests

    cat = load_catalog()
    c = _plan(*TRAIN).chosen
    launch = train_launch(c, DeployOptions(), cat)
    job = candidate_manifests(c, DeployOptions(), cat).manifests[-1].body
    env = job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["env"]
    assert {e["name"]: e["value"] for e in env if e["name"].startswith("NCCL_")} == {
        e.name: e.value for e in launch.nccl
    }


# ----- a real Slurm runs them -------------------------------------------------------------------
def _job_env(standin: Path) -> dict[str, str]:
    torchrun = Path(sys.executable).parent / "torchrun"
    if not torchrun.exists() and shutil.which("torchrun") is None:
        missing("torchrun (PyTorch: bash scripts/setup_dev.sh installs the CPU build)")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {"GPUWISE_STANDIN": str(standin), "PATH": path}


def test_slurm_runs_the_readme_training_example(slurm_cluster, tmp_path):
    """The README's plan (nodes of 8 H100), with a CPU stand-in for train.py: srun starts a torchrun
    on each node, they meet at the first node, and every rank gets the stack's flags and NCCL."""
    cat = load_catalog()
    c = _plan(*TRAIN).chosen
    hw = c.est.hardware
    assert 2 <= hw.nodes <= len(slurm_cluster.nodes)  # multi-node, and this cluster can hold it
    rendered = slurm_files(c, DeployOptions(), cat)
    script = tmp_path / "train.sbatch"
    script.write_text(rendered.files["train.sbatch"])
    standin, out = _standin(tmp_path)
    job = slurm_cluster.submit(script, _job_env(standin), tmp_path)
    [state] = slurm_cluster.wait_job(job)
    log = "\n".join(p.read_text() for p in tmp_path.glob("*.out"))
    assert state["JobState"] == "COMPLETED" and state["ExitCode"] == "0:0", log
    assert state["NumNodes"] == str(hw.nodes)
    ranks = [json.loads(p.read_text()) for p in sorted(out.glob("rank-*.json"))]
    assert sorted(int(r["env"]["RANK"]) for r in ranks) == list(range(hw.count))
    launch = train_launch(c, DeployOptions(), cat)
    for r in ranks:
        assert r["env"]["WORLD_SIZE"] == str(hw.count) and r["env"]["LOCAL_WORLD_SIZE"] == str(hw.gpus_per_node)
        assert r["argv"] == [a.value for a in launch.stack_args]
        assert {k: v for k, v in r["env"].items() if k.startswith("NCCL_")} == {e.name: e.value for e in launch.nccl}


def test_slurm_runs_the_readme_serving_example(slurm_cluster, tmp_path):
    """One job per replica (a job array), each starting the engine with the plan's flags; a model
    source from the command line stays one argument, never shell code."""
    marker = Path("/tmp/gpuwise-pwned-by-slurm-script")
    marker.unlink(missing_ok=True)
    cat = load_catalog()
    c = _plan(*SERVE).chosen
    rendered = slurm_files(c, DeployOptions(model_source=HOSTILE), cat)
    script = tmp_path / "serve.sbatch"
    script.write_text(rendered.files["serve.sbatch"])
    standin, out = _standin(tmp_path)
    job = slurm_cluster.submit(script, {"GPUWISE_STANDIN": str(standin)}, tmp_path)
    jobs = slurm_cluster.wait_job(job)
    log = "\n".join(p.read_text() for p in tmp_path.glob("*.out"))
    assert len(jobs) == c.replicas and {j["JobState"] for j in jobs} == {"COMPLETED"}, log
    seen = [json.loads(p.read_text()) for p in sorted(out.glob("rank-*.json"))]
    assert sorted(s["env"]["SLURM_ARRAY_TASK_ID"] for s in seen) == [str(i) for i in range(c.replicas)]
    for s in seen:
        i = int(s["env"]["SLURM_ARRAY_TASK_ID"])
        assert f"--model={HOSTILE}" in s["argv"] and f"--port={8000 + i}" in s["argv"]
    assert not marker.exists()


def test_slurm_accepts_the_pools_config(slurm_cluster, munge_socket, tmp_path):
    """The pools file's slurm.conf lines and gres.conf, merged into a cluster's configuration: slurmctld
    starts with them, the partitions carry their limits, and a train node's slurmd registers with
    the GPUs gres.conf gives it."""
    from .conftest import free_port
    from .slurm_cluster import SlurmCluster

    cat = load_catalog()
    files = slurm_pool_files(plan_pools_file(EXAMPLES / "pools.yaml"), cat).files
    conf = [line for line in files["slurm.conf"].splitlines() if line and not line.startswith("#")]
    settings = [line for line in conf if not line.startswith(("NodeName=", "PartitionName="))]
    ports = [free_port(), free_port()]
    # every node at this machine's loopback address, the slurmd of the first train node on its own port
    nodes = [
        f"{line} NodeAddr=127.0.0.1 Port={ports[1]}" if line.startswith("NodeName=") else line
        for line in conf
        if line.startswith(("NodeName=", "PartitionName="))
    ]
    dev = tmp_path / "dev"
    dev.mkdir()
    for i in range(8):
        (dev / f"nvidia{i}").symlink_to("/dev/null")
    gres = ["AutoDetect=off"] + [
        line.replace("/dev/nvidia", f"{dev}/nvidia")
        for line in files["gres.conf"].splitlines()
        if line.startswith("NodeName=train")
    ]
    cluster = SlurmCluster(tmp_path / "c", munge_socket, ["train-h100-sxm-01"], [], ports, settings, nodes, gres)
    cluster.root.mkdir()
    try:
        cluster.start(slurmd_nodes=["train-h100-sxm-01"])
        cluster.wait_idle(["train-h100-sxm-01"])
        parts = cluster.scontrol("show", "partition", "-o").stdout
        for name, tier in (("dev", 1), ("train", 2), ("inference", 3)):
            assert f"PartitionName={name} " in parts and f"PriorityTier={tier}" in parts
        node = cluster.scontrol("show", "node", "train-h100-sxm-01").stdout
        assert "Gres=gpu:nvidia_h100_80gb_hbm3:8" in node
        config = cluster.scontrol("show", "config").stdout
        assert "preempt/partition_prio" in config
    finally:
        cluster.stop()
    subprocess.run(["sh", "-n"], input=files["qos.sh"], text=True, check=True)


def test_one_node_needs_no_rendezvous_and_an_image_runs_through_pyxis():
    cat = load_catalog()
    c = _plan("finetune-7b-qlora.yaml", None).chosen
    assert c.est.hardware.nodes == 1
    text = slurm_files(c, DeployOptions(image="nvcr.io/nvidia/pytorch:25.01-py3"), cat).files["train.sbatch"]
    assert "--standalone" in text and "head_node" not in text and "--rdzv" not in text
    assert "srun --ntasks-per-node=1" in text and "--container-image=nvcr.io/nvidia/pytorch:25.01-py3 torchrun" in text
    subprocess.run(["bash", "-n"], input=text, text=True, check=True)


def test_dev_pool_shares_gpus_as_mig_slices_or_shards(tmp_path):
    cat = load_catalog()
    files = slurm_pool_files(plan_pools_file(EXAMPLES / "pools.yaml"), cat).files
    # the example's dev pool: H100 in MIG 2g.20gb slices; Slurm types a slice <type before its first '-'>_<profile>
    assert "Gres=gpu:nvidia_h100_80gb_hbm3_2g.20gb:" in files["slurm.conf"]
    assert "NodeName=dev-h100-sxm-01 AutoDetect=nvml" in files["gres.conf"]
    # a GPU without MIG: whole GPUs, each shared as Slurm shards
    pools = tmp_path / "pools.yaml"
    pools.write_text(
        "team: {engineers: 12, gpu: l40s}\n"
        "workloads:\n"
        "  - {pool: dev, name: notebook, workload: {model: llama-2-7b, task: inference}, requirements: {max_gpus: 1}}\n"
    )
    plan = plan_pools_file(pools)
    files = slurm_pool_files(plan, cat).files
    dev = plan.pools["dev"]
    shards = dev.share.per_gpu * dev.gpus
    assert "GresTypes=gpu,shard" in files["slurm.conf"] and f",shard:{shards} " in files["slurm.conf"]
    assert f"Name=shard Count={shards}" in files["gres.conf"]
    assert f"GrpTRES=gres/gpu={sum(dev.quota.values())}" in files["qos.sh"]


def test_the_throwaway_cluster_starts_a_slurmd_that_never_registered_again(munge_socket: str, tmp_path: Path) -> None:
    """The CI failure of 2026-12-03 and -04: one slurmd of four never registered. wait_idle starts a
    node's slurmd again when it is not up after a third of the wait: here its first start is skipped."""
    from .conftest import free_port, slurm_gres_types
    from .slurm_cluster import SlurmCluster

    names = ["retry-node1", "retry-node2"]
    cluster = SlurmCluster(tmp_path / "c", munge_socket, names, slurm_gres_types()[:1], [free_port() for _ in range(3)])
    cluster.root.mkdir()
    try:
        cluster.start(slurmd_nodes=names[1:])
        cluster.wait_idle(names, seconds=60)
        states = cluster.scontrol("show", "node", "-o").stdout
        assert all(f"NodeName={n} " in states for n in names) and states.count("State=IDLE") == 2
    finally:
        cluster.stop()


def test_the_throwaway_cluster_moves_off_a_port_taken_meanwhile(munge_socket: str, tmp_path: Path) -> None:
    """The CI failure of 2026-12-04: a port free when picked was bound by another process before
    slurmctld, which exited with 'Address already in use'; start() picks new ports and starts again."""
    import socket

    from .conftest import free_port, slurm_gres_types
    from .slurm_cluster import SlurmCluster

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 0)
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        busy = int(taken.getsockname()[1])
        cluster = SlurmCluster(
            tmp_path / "c", munge_socket, ["port-node1"], slurm_gres_types()[:1], [busy, free_port()]
        )
        cluster.root.mkdir()
        try:
            cluster.start()
            assert cluster.ports[0] != busy
            cluster.wait_idle(["port-node1"], seconds=60)
        finally:
            cluster.stop()
