"""A throw-away Slurm cluster on this machine for the deploy tests: Debian's munge and slurm-wlm,
started from a temporary directory, stopped at the end.

- munged runs with a freshly generated key and its own socket (AuthInfo=socket=... in slurm.conf);
- slurmctld and one slurmd per node read a generated slurm.conf: no cgroups (proctrack/linuxproc,
  task/none), no accounting, state and spool in the temporary directory, free loopback ports;
- the nodes are all this machine: several slurmd (`slurmd -N NAME`, one port each) stand for the
  nodes of a multi-node plan, each with NodeAddr=127.0.0.1 (where a batch script's rendezvous
  goes: the first node's NodeAddr). 'localhost' is no node name here: Slurm reads it as this host;
- every node has 8 GPUs of every GRES type the tests may ask for, as gres.conf lines whose device
  files are symlinks to /dev/null (Slurm requires a device file for a typed GPU; nothing opens it),
  and the CPU and GPU counts of the configuration stand (SlurmdParameters=config_overrides).

Slurm runs its daemons as root here (SlurmUser=root), as CI does; elsewhere the tests skip.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "scontrol")
GPUS_PER_NODE = 8
CPUS_PER_NODE = 16
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}


def missing_tools() -> list[str]:
    return [d for d in DAEMONS if shutil.which(d) is None and not Path("/usr/sbin", d).exists()]


def tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def start_munge(root: Path) -> str:
    """munged with a generated key; returns its socket path."""
    keydir = root / "munge-key"
    keydir.mkdir(mode=0o700)
    key = keydir / "munge.key"
    key.write_bytes(secrets.token_bytes(1024))
    key.chmod(0o400)
    sock = root / "munge.sock"
    subprocess.run(
        [
            tool("munged"),
            f"--key-file={key}",
            f"--socket={sock}",
            f"--pid-file={root / 'munged.pid'}",
            f"--log-file={root / 'munged.log'}",
            f"--seed-file={root / 'munged.seed'}",
            "--force",
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )
    _wait(sock.exists, 10, lambda: f"munged did not create {sock}")
    return str(sock)


def _wait(ok: Callable[[], bool], seconds: float, what: Callable[[], str]) -> None:
    """Poll `ok` until it holds; after `seconds`, fail with `what()` (read then: logs written meanwhile)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if ok():
            return
        time.sleep(0.2)
    raise RuntimeError(what())


@dataclass
class SlurmCluster:
    root: Path
    munge_socket: str
    nodes: list[str]
    gres_types: list[str]
    ports: list[int]  # slurmctld, then one per node
    extra_conf: list[str] = field(default_factory=list)  # lines merged into slurm.conf (a pools file's)
    node_lines: list[str] | None = None  # NodeName/PartitionName lines instead of the default ones
    gres_lines: list[str] | None = None

    @property
    def conf(self) -> Path:
        return self.root / "etc" / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    # --- configuration ------------------------------------------------------------------
    def _devices(self) -> list[str]:
        """gres.conf lines: GPUS_PER_NODE fake GPUs of each type on every node."""
        dev = self.root / "dev"
        dev.mkdir(exist_ok=True)
        lines = ["AutoDetect=off"]
        n = 0
        for gtype in self.gres_types:
            first = n
            for _ in range(GPUS_PER_NODE):
                link = dev / f"nvidia{n}"
                if not link.exists():
                    link.symlink_to("/dev/null")
                n += 1
            lines.append(f"Name=gpu Type={gtype} File={dev}/nvidia[{first}-{n - 1}]")
        return lines

    def write_conf(self) -> None:
        etc = self.root / "etc"
        etc.mkdir(exist_ok=True)
        for d in ("state", "spool", "log"):
            (self.root / d).mkdir(exist_ok=True)
        ctld, *node_ports = self.ports
        base = [
            "ClusterName=gpuwisetest",
            "SlurmctldHost=localhost(127.0.0.1)",
            f"SlurmctldPort={ctld}",
            f"SlurmdPort={node_ports[0] if node_ports else ctld + 1}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={self.root}/state",
            f"SlurmdSpoolDir={self.root}/spool/%n",
            f"SlurmctldPidFile={self.root}/slurmctld.pid",
            f"SlurmdPidFile={self.root}/spool/%n.pid",
            f"SlurmctldLogFile={self.root}/log/slurmctld.log",
            f"SlurmdLogFile={self.root}/log/slurmd-%n.log",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "SchedulerType=sched/builtin",
            "SlurmdParameters=config_overrides",
            "ReturnToService=2",
            "MinJobAge=600",
            "SlurmdTimeout=60",
            "KillWait=5",
        ]
        if self.node_lines is None:
            gres = ",".join(f"gpu:{t}:{GPUS_PER_NODE}" for t in self.gres_types)
            nodes = [
                f"NodeName={name} NodeHostname={name} NodeAddr=127.0.0.1 "
                f"Port={port} CPUs={CPUS_PER_NODE} Gres={gres} State=UNKNOWN"
                for name, port in zip(self.nodes, node_ports, strict=True)
            ]
            nodes.append(f"PartitionName=debug Nodes={','.join(self.nodes)} Default=YES MaxTime=INFINITE State=UP")
            gres_types = ["GresTypes=gpu"]
        else:
            nodes, gres_types = self.node_lines, []
        self.conf.write_text("\n".join([*base, *gres_types, *self.extra_conf, *nodes]) + "\n")
        lines = self.gres_lines if self.gres_lines is not None else self._devices()
        (etc / "gres.conf").write_text("\n".join(lines) + "\n")

    # --- daemons ------------------------------------------------------------------------
    def start(self, slurmd_nodes: Iterable[str] | None = None) -> None:
        """slurmctld, then each node's slurmd. The ports were free when picked, but another process (the
        other test worker's connections) may bind one first: slurmctld then exits with 'Address already
        in use' (the fresh-clone CI of 2026-12-04), and it is started again on new ports, twice at most
        (where the node lines are the caller's, their ports are too, so that failure stands)."""
        for attempt in range(3):
            for old in (self.root / "log").glob("slurmctld*.log"):  # each attempt's log alone
                old.unlink()
            self.write_conf()
            self._daemon([tool("slurmctld"), "-f", str(self.conf), "-i"], "slurmctld")
            try:
                _wait(self._ctld_up, 30, lambda: "slurmctld did not answer: " + self.log("slurmctld"))
                break
            except RuntimeError:
                if attempt == 2 or self.node_lines is not None or "Address already in use" not in self.log("slurmctld"):
                    raise
                from .conftest import free_port

                self.stop()
                self.ports = [free_port() for _ in self.ports]
        for name in self.nodes if slurmd_nodes is None else slurmd_nodes:
            self._daemon([tool("slurmd"), "-f", str(self.conf), "-N", name], f"slurmd {name}")

    def _daemon(self, cmd: list[str], what: str) -> None:
        proc = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=60)
        if proc.returncode:
            raise RuntimeError(f"{what} did not start: {proc.stderr.strip()} {self.log(what.split()[0])}")

    def _ctld_up(self) -> bool:
        return self.scontrol("ping", check=False).returncode == 0

    def wait_idle(self, nodes: Iterable[str], seconds: float = 180) -> None:
        """Until every node registers idle. A loaded CI machine (two test workers) has left one slurmd
        unregistered for good (2026-12-03 and -04, with its log cut off): a node not up after a
        third of the wait has its slurmd started again, and a failure carries every node's log."""
        want = set(nodes)

        def states() -> dict[str, str]:
            out = self.scontrol("show", "node", "-o", check=False).stdout
            return dict(re.findall(r"NodeName=(\S+).*? State=(\S+)", out))

        def idle() -> bool:
            now = states()
            return all(now.get(n, "").startswith("IDLE") for n in want)

        try:
            _wait(idle, seconds / 3, lambda: "")
            return
        except RuntimeError:
            late = sorted(n for n in want if not states().get(n, "").startswith("IDLE"))
        for name in late:
            _kill(self.root / "spool" / f"{name}.pid")
            self._daemon([tool("slurmd"), "-f", str(self.conf), "-N", name], f"slurmd {name}")
        _wait(
            idle,
            2 * seconds / 3,
            lambda: (
                f"nodes {sorted(want)} not up ({late} restarted once): "
                f"{self.scontrol('show', 'node', check=False).stdout}\n" + self.log("slurmd")
            ),
        )

    def stop(self) -> None:
        self.scontrol("shutdown", check=False)
        for pid_file in [self.root / "slurmctld.pid", *sorted((self.root / "spool").glob("*.pid"))]:
            _kill(pid_file)

    def log(self, daemon: str) -> str:
        """The end of each of the daemon's logs (one per node for slurmd), each named."""
        logs = sorted((self.root / "log").glob(f"{daemon}*.log"))
        return "\n".join(f"--- {p.name}\n" + p.read_text(errors="replace")[-3000:] for p in logs)

    # --- commands -----------------------------------------------------------------------
    def scontrol(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([tool("scontrol"), *args], env=self.env, capture_output=True, text=True, timeout=60)
        if check and proc.returncode:
            raise RuntimeError(f"scontrol {' '.join(args)}: {proc.stderr.strip()}")
        return proc

    def submit(self, script: Path, env: dict[str, str], cwd: Path) -> str:
        proc = subprocess.run(
            [tool("sbatch"), "--parsable", str(script)],
            env={**self.env, **env},
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode:
            raise RuntimeError(f"sbatch refused {script.name}: {proc.stderr.strip()}")
        return proc.stdout.strip().split(";")[0]

    def wait_job(self, job_id: str, seconds: float = 240) -> list[dict[str, str]]:
        """Every job of `job_id` (an array's tasks too) once all reached a final state."""
        jobs: list[dict[str, str]] = []

        def done() -> bool:
            nonlocal jobs
            out = self.scontrol("show", "job", "-o", job_id, check=False).stdout
            jobs = [dict(re.findall(r"(\w+)=(\S*)", line)) for line in out.splitlines() if line.strip()]
            return bool(jobs) and all(j.get("JobState") in FINAL for j in jobs)

        _wait(done, seconds, lambda: f"job {job_id} did not finish: {jobs} {self.log('slurmctld')[-1500:]}")
        return jobs


def _kill(pid_file: Path) -> None:
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
    for sig in (15, 9):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        time.sleep(0.5)


def stop_munge(root: Path) -> None:
    _kill(root / "munged.pid")
