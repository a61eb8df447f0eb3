"""Slurm batch scripts from a plan: a training job (`train.sbatch`: `srun` starts one `torchrun` per
node, which meet at a rendezvous on the first node), or the serving replicas (`serve.sbatch`: a job
array, one job per replica, each running the plan's engine).

The facts come from `deploy.launch` (training) and `deploy.engines` (serving), as for Kubernetes;
this module only writes them as `#SBATCH` directives and bash. Every value is quoted for the shell
(`deploy.shell`). `GPUWISE_STANDIN`, when set at submission, replaces the training script (or the
serving engine) by another program that gets the same arguments: the tests run a CPU stand-in so a
real Slurm runs the generated script end to end. Pure: returns texts.
"""

from __future__ import annotations

import math
import re
from typing import Any

from gpuwise.catalog import GPU, Catalog
from gpuwise.deploy.common import DeployOptions, slug, why
from gpuwise.deploy.engines import PORT, SERVER_EXTRA_PROCESSES, engine_for, server_command
from gpuwise.deploy.launch import Rendezvous, TrainLaunch, layout_text, torchrun_args, train_launch
from gpuwise.deploy.nccl import EnvVar, nccl_env
from gpuwise.deploy.shell import Rendered, ShellText, array, comment, export, word
from gpuwise.errors import UsageError
from gpuwise.plan.results import Candidate
from gpuwise.workload import InferenceJob, TrainingJob

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
STANDIN = "GPUWISE_STANDIN"


def slurm_name(value: str, what: str) -> str:
    """A partition, account or GRES type name: letters, digits, '_', '.', '-' (no shell or config syntax)."""
    if not _NAME.match(value):
        raise UsageError(f"{what} {value!r} is not a valid Slurm name: letters, digits, '_', '.', '-', at most 64")
    return value


def gres_type(gpu: GPU, override: str | None = None) -> tuple[str, str]:
    """(GRES type, reason) of a GPU: the name Slurm's NVML autodetection gives it (the NVML name
    in lower case, spaces as '_': src/plugins/gpu/nvml/gpu_nvml.c, gpu_common_underscorify_tolower),
    so that scripts and a gres.conf with AutoDetect=nvml agree; ROCm names alike; else the catalog id."""
    if override:
        return slurm_name(override, "--gres-type"), "as given (--gres-type)"
    ident = gpu.identity
    names = (ident.rocm if gpu.vendor.lower() == "amd" else ident.nvml) if ident else []
    if names:
        name = re.sub(r"\s", "_", names[0].strip()).lower()
        return name, f"the type Slurm's GPU autodetection names {names[0]!r} (lower case, '_' for spaces)"
    return gpu.id, "gpuwise's id for the GPU (no vendor name known): name your gres.conf Type alike"


def slurm_time(seconds: float) -> str:
    """Slurm's `--time` format, days-hours:minutes:seconds, rounded up to the minute."""
    minutes = math.ceil(seconds / 60)
    days, rest = divmod(minutes, 24 * 60)
    return f"{days}-{rest // 60:02d}:{rest % 60:02d}:00"


def _directives(rows: list[tuple[str, str | None]]) -> list[str]:
    """`#SBATCH` lines, each with its reason above it (sbatch reads them until the first command)."""
    out: list[str] = []
    for directive, reason in rows:
        if reason:
            out += comment(reason)
        out.append(f"#SBATCH {directive}")
    return out


Directives = list[tuple[str, str | None]]  # (#SBATCH option, the reason for it)


def _site(partition: str | None, account: str | None) -> Directives:
    rows: Directives = []
    if partition:
        rows.append((f"--partition={slurm_name(partition, '--partition')}", "as given (--partition)"))
    if account:
        rows.append((f"--account={slurm_name(account, '--account')}", "as given (--account)"))
    return rows


def _exports(env: list[EnvVar] | tuple[EnvVar, ...]) -> list[str]:
    out: list[str] = []
    for e in env:
        out += export(e.name, e.value, e.why)
    return out


def _program(variable: str, default: list[str], what: str) -> list[str]:
    """The program the job runs, replaceable at submission by GPUWISE_STANDIN (tests: a CPU stand-in)."""
    return [
        *comment(f"{what}; with {STANDIN} set at submission (sbatch passes the environment on), that program instead"),
        f"{variable}=({' '.join(word(p) for p in default)})",
        f'if [ -n "${{{STANDIN}:-}}" ]; then {variable}=("${STANDIN}"); fi',
    ]


def _srun(options: str, image: str | None) -> str:
    """`srun OPTIONS `, in the image through NVIDIA pyxis/enroot when --image names one."""
    container = f" --container-image={word(image)}" if image else ""
    return f"srun{(' ' + options) if options else ''}{container} "


# ------------------------------------------------------------------------------------------
def training_script(launch: TrainLaunch, options: DeployOptions, gres: tuple[str, str], site: Directives) -> str:
    """The batch script of a training plan."""
    c, work = launch.c, launch.work
    rows: Directives = [
        (f"--job-name={launch.name}", None),
        (f"--nodes={launch.nodes}", f"the plan's {launch.nodes} node(s) of {launch.per_node} {c.est.hardware.gpu.id}"),
        ("--ntasks-per-node=1", "one task per node: its torchrun starts one process per GPU"),
        (f"--gres=gpu:{gres[0]}:{launch.per_node}", f"all {launch.per_node} GPUs of each node; type: {gres[1]}"),
        (
            f"--cpus-per-task={launch.cpus_per_node}",
            f"at least {launch.cpus_why}; srun below gives the task every core",
        ),
        ("--exclusive", "whole nodes: NCCL and the data loaders share no node with other jobs"),
        ("--mem=0", "all of each node's memory (the nodes are the job's alone)"),
    ]
    if launch.time_limit_seconds is not None:
        rows.append((f"--time={slurm_time(launch.time_limit_seconds)}", launch.time_why))
    rows += [*site, ("--output=%x-%j.out", "one log per job: <job name>-<job id>.out")]
    multi = launch.nodes > 1
    rdzv = Rendezvous(
        "c10d",
        ShellText("${head_addr}"),
        "the first node of the allocation hosts the rendezvous store",
        run_id=(ShellText("${SLURM_JOB_ID}"), "the job's id: agents of one job meet, another job's never"),
    )
    launcher = torchrun_args(launch.nodes, launch.per_node, None, rdzv if multi else None, agent="Slurm task")
    lines = [
        "#!/bin/bash",
        *comment(f"gpuwise deploy: {c.label} ({work.model.name} {work.task}, {work.method})"),
        *comment(f"submit: sbatch {TRAIN_FILE}; stack: {launch.framework} ({launch.framework_why})"),
        *_directives(rows),
        "",
        "set -euo pipefail",
        "",
        *_exports(launch.nccl),
        *export("GPUWISE_LAYOUT", layout_text(work), "the layout the plan fits in memory: the script's parallelism"),
        "",
    ]
    if multi:
        lines += [
            *comment("the first node of the allocation (scontrol expands the node list) hosts torchrun's rendezvous,"),
            *comment("at the address Slurm itself reaches it by (its NodeAddr: the node name unless the site set one)"),
            'head_node=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)',
            "head_addr=$(scontrol show node \"$head_node\" | grep -o 'NodeAddr=[^ ]*' | cut -d= -f2 || true)",
            "head_addr=${head_addr:-$head_node}",
            "",
        ]
    lines += [
        *_program("trainer", [options.script], "what torchrun starts on every GPU: your training script"),
        "",
        *array("launcher", launcher),
        *array("stack_args", [why(a.value, a.why) for a in launch.stack_args]),
        "",
        *comment("srun starts one torchrun per node, with every core of the node; a failed node ends the job"),
        _srun('--ntasks-per-node=1 --cpus-per-task="${SLURM_CPUS_ON_NODE}" --kill-on-bad-exit=1', options.image)
        + 'torchrun "${launcher[@]}" "${trainer[@]}" "${stack_args[@]}"',
    ]
    return "\n".join(lines) + "\n"


def serving_script(
    c: Candidate, options: DeployOptions, catalog: Catalog, gres: tuple[str, str], site: Directives
) -> tuple[str, tuple[str, ...]]:
    """(the batch script of a serving plan: a job array, one job per replica; the engine's notes)."""
    work = c.est.workload
    assert isinstance(work, InferenceJob)
    hw = c.est.hardware
    if hw.nodes > 1:
        raise UsageError(
            f"a replica of this plan spans {hw.nodes} nodes: the Slurm target serves replicas within one node "
            "(plan with --gpus-per-node to keep a replica on one node)"
        )
    engine, engine_why = engine_for(work, options.engine)
    batch = c.serving.max_batch if c.serving is not None else work.concurrency
    port = ShellText("${port}")
    server = server_command(engine, c, catalog, options.model_source, batch, port)
    tp = work.parallel.tp
    cpus = hw.count + SERVER_EXTRA_PROCESSES
    name = options.name or slug(work.model.name)
    rows: Directives = [
        (f"--job-name={name}", None),
        (f"--array=0-{c.replicas - 1}", f"one job per replica: the plan's {c.replicas} replica(s)"),
        ("--nodes=1", "a replica runs on one node"),
        ("--ntasks=1", "one server per replica"),
        (f"--gres=gpu:{gres[0]}:{hw.count}", f"GPUs per replica: tensor parallelism {tp}; type: {gres[1]}"),
        (
            f"--cpus-per-task={cpus}",
            f"one core per GPU worker and {SERVER_EXTRA_PROCESSES} for the server's front end and scheduler "
            f"({engine}'s processes)",
        ),
        *site,
        ("--output=%x-%A_%a.out", "one log per replica: <job name>-<array job id>_<replica>.out"),
    ]
    env: list[EnvVar] = []
    if tp > 1:
        env = nccl_env(hw, catalog, socket_ifname=options.socket_ifname)[1]
    lines = [
        "#!/bin/bash",
        *comment(f"gpuwise deploy: {c.label} ({work.model.name} serving with {engine}: {engine_why})"),
        *comment(
            f"submit: sbatch {SERVE_FILE}; services run until cancelled (scancel), so no --time: the partition's "
            "limit applies"
        ),
        *_directives(rows),
        "",
        "set -euo pipefail",
        "",
        *_exports(env),
        *comment(
            f"replicas may share a node: each listens on {PORT} + its index; point your load "
            "balancer at the addresses below"
        ),
        f"port=$(({PORT} + SLURM_ARRAY_TASK_ID))",
        'echo "replica ${SLURM_ARRAY_TASK_ID} serves http://$(hostname):${port} (health: ' + server.health + ')"',
        "",
        *_program("server", list(server.program), f"{engine}'s OpenAI-compatible server"),
        *array("engine_args", server.args),
        "",
        _srun("", options.image) + '"${server[@]}" "${engine_args[@]}"',
    ]
    return "\n".join(lines) + "\n", server.notes


TRAIN_FILE = "train.sbatch"
SERVE_FILE = "serve.sbatch"


def slurm_files(
    c: Candidate,
    options: DeployOptions,
    catalog: Catalog,
    partition: str | None = None,
    account: str | None = None,
    gres_override: str | None = None,
) -> Rendered:
    """The batch script for a plan's chosen candidate, with a summary."""
    site = _site(partition, account)
    gres = gres_type(c.est.hardware.gpu, gres_override)
    work = c.est.workload
    notes: list[str] = []
    if options.image:
        notes.append("--image runs the task in a container through NVIDIA pyxis/enroot (srun --container-image)")
    summary: dict[str, Any] = {"target": "slurm", "plan": c.label, "gpu": c.est.hardware.gpu.id, "gres": gres[0]}
    if isinstance(work, TrainingJob):
        launch = train_launch(c, options, catalog)
        text = training_script(launch, options, gres, site)
        notes += list(launch.notes)
        summary.update(
            kind="training",
            nodes=launch.nodes,
            gpus_per_node=launch.per_node,
            framework=launch.framework,
            time_limit=None if launch.time_limit_seconds is None else slurm_time(launch.time_limit_seconds),
            nccl={e.name: e.value for e in launch.nccl},
        )
        why_line = f"{launch.nodes} node(s) x {launch.per_node} GPUs, torchrun ({launch.framework})"
        return Rendered(
            "slurm", {TRAIN_FILE: text}, {TRAIN_FILE: why_line}, summary, tuple(notes), (f"sbatch {TRAIN_FILE}",)
        )
    text, engine_notes = serving_script(c, options, catalog, gres, site)
    notes += engine_notes
    assert isinstance(work, InferenceJob)
    engine = engine_for(work, options.engine)[0]
    summary.update(kind="inference", replicas=c.replicas, gpus_per_replica=c.est.hardware.count, engine=engine)
    why_line = f"{c.replicas} replica(s) of {c.est.hardware.count} GPU(s), {engine}"
    return Rendered(
        "slurm", {SERVE_FILE: text}, {SERVE_FILE: why_line}, summary, tuple(notes), (f"sbatch {SERVE_FILE}",)
    )
