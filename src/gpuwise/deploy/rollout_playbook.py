"""A roll-out plan as Ansible files: an inventory grouped by stage, GPU model and pool, and playbooks.

Layout of the folder `gpuwise rollout plan -o DIR` writes:

    inventory.yml        hosts in groups canary, wave_N (the stages), gpu_<model>, pool_<pool>
    rollout.yml          one play per stage, in order; any failed host stops everything after it
    tasks/host.yml       gate before, cordon/drain (Kubernetes) or drain (Slurm, scontrol), upgrade
                         (firmware: one GPU at a time), gate after, uncordon or resume; a failure after
                         the gate before rolls the host back (block/rescue)
    tasks/gate.yml       `gpuwise doctor` and the benchmark suite on the host, `gpuwise bench accept`
                         against the fleet baseline on the controller, written back with
                         `gpuwise rollout record` (only the controller reaches the store)
    rollout.json         the plan, as stored

The gates change nothing, so they run in `ansible-playbook --check` too (check_mode: false): a
rehearsal runs every gate, skips every change, and records its events marked as a check.
Pure: returns file texts; the caller writes them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from gpuwise.deploy.common import why
from gpuwise.deploy.writer import Unsafe, dump_tree
from gpuwise.ops.rollout import RolloutPlan
from gpuwise.store import mask_password

# What installs a version, per kind; {{ version }} is the target (or, to roll back, the previous one).
INSTALL_COMMANDS = {
    "driver": "sh /opt/nvidia/NVIDIA-Linux-x86_64-{{ version }}.run --silent",
    "cuda": "sh /opt/nvidia/cuda_{{ version }}_linux.run --silent --toolkit",
    "firmware": "nvflash --index={{ gpu }} /opt/nvidia/firmware/{{ version }}.rom",
}
REBOOT = {"driver": True, "firmware": True, "cuda": False}  # a new kernel module or VBIOS loads at boot
DRAIN_TIMEOUT_S = 1800  # how long a drain may wait for the host's work to leave
DRAIN_TIMEOUT = f"{DRAIN_TIMEOUT_S // 60}m"  # kubectl drain --timeout
DRAIN_POLL_S = 10  # how often the Slurm drain looks at the node's jobs
DRAIN_RETRIES = DRAIN_TIMEOUT_S // DRAIN_POLL_S


@dataclass(frozen=True, slots=True)
class PlaybookSettings:
    rollout_id: int
    db_url: str  # the store `gpuwise rollout record` writes to (and `--baseline db` reads)
    baseline: str = "db"  # 'db' (the fleet's median per GPU model) or a `gpuwise bench --json` file
    tolerance: float = 0.1
    gpuwise_bin: str = "gpuwise"  # on the hosts
    record_bin: str = "gpuwise"  # on the controller
    local: bool = False  # every host a local connection (rehearsals, tests)
    install_command: str | None = None


def group_name(prefix: str, text: str) -> str:
    """An Ansible group name (letters, digits, '_') from free text."""
    return f"{prefix}_" + (re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "unknown")


# ---------------------------------------------------------------------------------------------
def _host_vars(plan: RolloutPlan, host: str, settings: PlaybookSettings) -> dict[str, Any]:
    p = plan.hosts[host]
    out: dict[str, Any] = {"pool": Unsafe(p.pool), "gpu_model": Unsafe(p.model), "gpu_indices": list(p.gpus)}
    if p.previous:
        previous = Unsafe(p.previous)
        out["rollout_previous"] = why(previous, f"the {plan.target.kind} it runs now: what a failed gate restores")
    f = p.facts
    extra = {
        "ansible_host": f.ansible_host,
        "k8s_node": p.node if p.scheduler == "kubernetes" else f.k8s_node,
        "slurm_node": p.node if p.scheduler == "slurm" else None,
        "gpuwise_doctor_replay": f.doctor_replay,
        "gpuwise_bench_results": f.bench_results,
        "gpuwise_bench_results_after": f.bench_results_after,
    }
    out.update({k: Unsafe(v) for k, v in extra.items() if v is not None})
    if settings.local:
        out["ansible_connection"] = "local"
        out["ansible_python_interpreter"] = "{{ ansible_playbook_python }}"
    return out


def _store_var(url: str) -> Any:
    if mask_password(url) != url:  # the store's own reading of a password (one may hold '/' or '@')
        return why(
            "{{ lookup('ansible.builtin.env', 'GPUWISE_DB') }}",
            "the store URL holds a password: export GPUWISE_DB on the controller instead of writing it here",
        )
    return Unsafe(url)


def _all_vars(plan: RolloutPlan, settings: PlaybookSettings) -> dict[str, Any]:
    kind = plan.target.kind
    install = settings.install_command or INSTALL_COMMANDS[kind]
    return {
        "rollout_id": settings.rollout_id,
        "rollout_kind": kind,
        "rollout_version": Unsafe(plan.target.version),
        "rollout_install_cmd": why(
            install, "replace with your package step; {{ version }} is the target, or the previous one to roll back"
        ),
        "rollout_reboot": why(
            REBOOT[kind] and not settings.local,
            "never on a local connection (it would reboot the controller)"
            if settings.local
            else ("a new kernel module or VBIOS loads at boot" if REBOOT[kind] else "a CUDA toolkit needs no reboot"),
        ),
        "rollout_become": why(not settings.local, "installing needs root on the host"),
        "gpuwise_bin": why(Unsafe(settings.gpuwise_bin), "gpuwise on the hosts (pip install 'gpuwise[ops,bench]')"),
        "gpuwise_record_bin": why(
            Unsafe(settings.record_bin),
            "gpuwise on the controller: the acceptance check, and each step written to the store",
        ),
        "gpuwise_db": _store_var(settings.db_url),
        "gpuwise_bench_args": why(["all"], "the suite the gates run on a host without recorded results"),
        "gpuwise_baseline": why(
            Unsafe(settings.baseline),
            "the fleet's median per GPU model in the store" if settings.baseline == "db" else "a baseline file",
        ),
        "gpuwise_tolerance": why(settings.tolerance, "the shortfall against the baseline a gate allows"),
    }


def inventory(plan: RolloutPlan, settings: PlaybookSettings) -> dict[str, Any]:
    """Stage groups (under `rollout`) hold the host variables; model and pool groups list hosts.
    Every value from a host or the store is `Unsafe`: data to Ansible, never a template."""
    stages: dict[str, Any] = {"canary": {"hosts": {Unsafe(plan.canary): _host_vars(plan, plan.canary, settings)}}}
    for i, wave in enumerate(plan.waves, 1):
        stages[f"wave_{i}"] = {"hosts": {Unsafe(h): _host_vars(plan, h, settings) for h in wave}}
    children: dict[str, Any] = {"rollout": {"children": stages}}
    for prefix, attr in (("gpu", "model"), ("pool", "pool")):
        groups: dict[str, dict[str, Any]] = {}
        for h in plan.order:
            groups.setdefault(group_name(prefix, getattr(plan.hosts[h], attr)), {})[Unsafe(h)] = {}
        children.update({g: {"hosts": hs} for g, hs in sorted(groups.items())})
    return {"all": {"vars": _all_vars(plan, settings), "children": children}}


# ---------------------------------------------------------------------------------------------
def _record(step: str, outcome: str, detail: str) -> dict[str, Any]:
    """A task that writes one step's outcome to the store from the controller (Jinja expressions in)."""
    argv = (
        "{{ [gpuwise_record_bin, 'rollout', 'record', '--db', gpuwise_db, '--rollout', rollout_id | string,\n"
        f"    '--host', inventory_hostname, '--step', {step}, '--outcome', {outcome},\n"
        f"    '--detail', {detail}]\n"
        "   + (['--check'] if ansible_check_mode else []) }}"
    )
    return {
        "ansible.builtin.command": {"argv": argv},
        "delegate_to": "localhost",
        "check_mode": why(False, "the record is the point of a rehearsal too: it is marked as a check"),
        "changed_when": True,
    }


def _judge() -> list[dict[str, Any]]:
    """Pass when both exit 0; the detail names the doctor's FAILed checks and the acceptance's error."""
    failed = (
        "{{ ((rollout_doctor.stdout | from_json).results | selectattr('status', 'equalto', 'FAIL')\n"
        "    | map(attribute='check') | join(', ')) if rollout_doctor.stdout.startswith('{') else '' }}"
    )
    return [
        {
            "name": "Judge the gate",
            "ansible.builtin.set_fact": {
                "rollout_gate_ok": "{{ rollout_doctor.rc == 0 and rollout_accept.rc == 0 }}",
                "rollout_gate_failed_checks": failed,
            },
        },
        {
            "name": "Say why",
            "ansible.builtin.set_fact": {
                "rollout_gate_detail": (
                    "doctor exit {{ rollout_doctor.rc }}{{ (' (FAIL: ' + rollout_gate_failed_checks + ')')\n"
                    "  if rollout_gate_failed_checks else '' }}, acceptance exit {{ rollout_accept.rc }}\n"
                    "{{- (': ' + rollout_accept.stderr) if rollout_accept.stderr else '' }}"
                )
            },
        },
    ]


def gate_tasks() -> list[dict[str, Any]]:
    """The gate (variable `gate`: before|after): doctor and acceptance, recorded, then a stop on failure."""
    chosen = (
        "{{ gpuwise_bench_results_after if (gate == 'after' and gpuwise_bench_results_after is defined)\n"
        "   else (gpuwise_bench_results | default('')) }}"
    )
    fresh = "{{ playbook_dir }}/bench-{{ inventory_hostname }}-{{ gate }}.json"
    accept = (
        "{{ [gpuwise_record_bin, 'bench', 'accept', '--results', rollout_results, '--baseline', gpuwise_baseline,\n"
        "    '--tolerance', gpuwise_tolerance | string, '--json']\n"
        "   + (['--db', gpuwise_db] if gpuwise_baseline == 'db' else []) }}"
    )
    doctor = (
        "{{ [gpuwise_bin, 'doctor', '--json']\n"
        "   + (['--replay', gpuwise_doctor_replay] if gpuwise_doctor_replay is defined else []) }}"
    )
    read_only = why(False, "the gate changes nothing: it runs in check mode too")
    return [
        {
            "name": "Choose the benchmark results the gate reads",
            "ansible.builtin.set_fact": {"rollout_results": chosen},
        },
        {
            "name": "Run the benchmark suite on the host",
            "ansible.builtin.command": {
                "argv": "{{ [gpuwise_bin, 'bench'] + gpuwise_bench_args + ['--json', '--no-store'] }}"
            },
            "register": "rollout_bench",
            "changed_when": False,
            "failed_when": why(False, "a suite that cannot run fails the gate (the acceptance finds no results)"),
            "check_mode": read_only,
            "when": "not rollout_results",
        },
        {
            "name": "Keep the results beside the playbook for the acceptance check",
            "ansible.builtin.copy": {"content": "{{ rollout_bench.stdout }}", "dest": fresh, "mode": "0600"},
            "delegate_to": why("localhost", "the acceptance runs on the controller, with the store and the baseline"),
            "check_mode": False,
            "when": "not rollout_results and rollout_bench.rc == 0",
        },
        {
            "name": "Use the fresh results",
            "ansible.builtin.set_fact": {"rollout_results": fresh},
            "when": "not rollout_results",
        },
        {
            "name": "Doctor: host checks (exit 1 when a check FAILs)",
            "ansible.builtin.command": {"argv": doctor},
            "register": "rollout_doctor",
            "changed_when": False,
            "failed_when": False,
            "check_mode": read_only,
        },
        {
            "name": "Acceptance against the fleet baseline (exit 1 below it)",
            "ansible.builtin.command": {"argv": accept},
            "register": "rollout_accept",
            "delegate_to": "localhost",
            "changed_when": False,
            "failed_when": False,
            "check_mode": read_only,
        },
        *_judge(),
        {
            "name": "Record the gate",
            **_record("'gate-' + gate", "('pass' if rollout_gate_ok else 'fail')", "rollout_gate_detail"),
        },
        {
            "name": "Stop when the gate failed",
            "ansible.builtin.fail": {
                "msg": "{{ inventory_hostname }} failed the gate {{ gate }} the upgrade: {{ rollout_gate_detail }}"
            },
            "when": "not rollout_gate_ok",
        },
    ]


def _install(kind: str, version_var: str, label: str) -> dict[str, Any]:
    """Install one version; firmware: one GPU after the other (a card flashed while others flash
    can be bricked), each a task of its own with throttle 1."""
    task: dict[str, Any] = {
        "name": label,
        "ansible.builtin.command": {"cmd": "{{ rollout_install_cmd }}"},
        "vars": {"version": "{{ " + version_var + " }}"},
        "become": "{{ rollout_become | bool }}",
        "changed_when": True,
    }
    if kind == "firmware":
        task["loop"] = "{{ gpu_indices }}"
        task["loop_control"] = {"loop_var": "gpu", "label": "GPU {{ gpu }}"}
        task["throttle"] = why(1, "one GPU at a time, never several cards flashing at once")
    return task


def _kubectl(name: str, args: list[str], reason: str) -> dict[str, Any]:
    return {
        "name": name,
        "ansible.builtin.command": {"argv": ["kubectl", *args]},
        "delegate_to": why("localhost", reason),
        "when": "k8s_node is defined",
        "changed_when": True,
    }


def _scontrol(name: str, state: str) -> dict[str, Any]:
    """Drain or resume the host's Slurm node, on the host (a Slurm node has scontrol and the
    cluster's config; changing a node's state needs the Slurm administrator: root)."""
    argv = ["scontrol", "update", "nodename={{ slurm_node }}", f"state={state}"]
    if state == "drain":
        argv.append("reason=gpuwise roll-out {{ rollout_id }}: {{ rollout_kind }} {{ rollout_version }}")
    return {
        "name": name,
        "ansible.builtin.command": {"argv": argv},
        "become": "{{ rollout_become | bool }}",
        "when": "slurm_node is defined",
        "changed_when": True,
    }


def _slurm_jobs_gone() -> dict[str, Any]:
    """A drained node takes no new job; the ones running finish first (as kubectl drain waits for pods)."""
    return {
        "name": "Wait for the Slurm node's running jobs to end",
        "ansible.builtin.command": {"argv": ["squeue", "--noheader", "--nodelist={{ slurm_node }}", "--format=%A"]},
        "register": "slurm_jobs",
        "until": "slurm_jobs.stdout | trim | length == 0",
        "retries": why(DRAIN_RETRIES, f"every {DRAIN_POLL_S} s for {DRAIN_TIMEOUT}, as long as kubectl drain waits"),
        "delay": DRAIN_POLL_S,
        "changed_when": False,
        "when": "slurm_node is defined",
    }


def _reboot(when: str) -> dict[str, Any]:
    return {
        "name": "Reboot to load it",
        "ansible.builtin.reboot": {"reboot_timeout": 1800},
        "become": "{{ rollout_become | bool }}",
        "when": when,
    }


def host_tasks(kind: str) -> list[dict[str, Any]]:
    """One host: gate before (a failure leaves it untouched), then the upgrade behind the gate."""
    kube = "kubectl on the controller (its kubeconfig); skipped when the host is no Kubernetes node"
    upgrade = [
        _kubectl("Cordon the Kubernetes node", ["cordon", "{{ k8s_node }}"], kube),
        _kubectl(
            "Drain the Kubernetes node",
            ["drain", "{{ k8s_node }}", "--ignore-daemonsets", "--delete-emptydir-data", f"--timeout={DRAIN_TIMEOUT}"],
            kube,
        ),
        _scontrol("Drain the Slurm node", "drain"),
        _slurm_jobs_gone(),
        _install(kind, "rollout_version", f"Install the {kind}" + (" one GPU at a time" if kind == "firmware" else "")),
        _reboot("rollout_reboot | bool"),
        {
            "name": "Record the upgrade",
            **_record(
                "'upgrade'", "'pass'", "('would install ' if ansible_check_mode else 'installed ') + rollout_version"
            ),
        },
        {"name": "Gate after the upgrade", "ansible.builtin.import_tasks": "gate.yml", "vars": {"gate": "after"}},
        _kubectl("Uncordon the Kubernetes node", ["uncordon", "{{ k8s_node }}"], kube),
        _scontrol("Resume the Slurm node", "resume"),
        {"name": "Record the host done", **_record("'done'", "'pass'", "rollout_kind + ' ' + rollout_version")},
    ]
    rollback = [
        {
            **_install(kind, "rollout_previous", "Roll back to the version the host ran"),
            "when": "rollout_previous is defined",
        },
        _reboot("rollout_reboot | bool and rollout_previous is defined"),
        {
            "name": "Record the roll-back",
            **_record(
                "'rollback'",
                "('pass' if rollout_previous is defined else 'fail')",
                "(('back to ' + rollout_previous) if rollout_previous is defined else 'no previous version known')\n"
                "    + ' after: ' + (ansible_failed_result.msg | default('a failed step'))",
            ),
        },
        {
            "name": "Stop the roll-out",
            "ansible.builtin.fail": {
                "msg": "{{ inventory_hostname }}: the {{ rollout_kind }} upgrade failed and was rolled back; "
                "its node stays cordoned or drained until someone looks"
            },
        },
    ]
    return [
        {"name": "Gate before the upgrade", "ansible.builtin.import_tasks": "gate.yml", "vars": {"gate": "before"}},
        {"name": "Upgrade behind the gate", "block": upgrade, "rescue": rollback},
    ]


def playbook(plan: RolloutPlan) -> list[dict[str, Any]]:
    """One play per stage, in order; a failure anywhere stops the run (any_errors_fatal)."""
    firmware = plan.target.kind == "firmware"
    stages = [("canary", f"Canary - {plan.target.label} on {plan.canary}", 1)]
    stages += [
        (f"wave_{i}", f"Wave {i} - {plan.target.label} on {len(w)} host(s)", 1 if firmware else plan.wave_size)
        for i, w in enumerate(plan.waves, 1)
    ]
    reasons = {"canary": "the canary alone"}
    plays = []
    for group, name, serial in stages:
        reason = reasons.get(group, "firmware: one host at a time" if firmware else "the wave's hosts together")
        plays.append(
            {
                "name": Unsafe(name),  # it holds a host name
                "hosts": group,
                "gather_facts": False,
                "serial": why(serial, reason),
                "any_errors_fatal": why(True, "a failed gate stops the whole roll-out, not only this host"),
                "max_fail_percentage": 0,
                "tasks": [{"name": "Roll out on the host", "ansible.builtin.import_tasks": "tasks/host.yml"}],
            }
        )
    return plays


def files(plan: RolloutPlan, settings: PlaybookSettings) -> dict[str, str]:
    """Relative path -> text of every file of the roll-out folder."""
    head = [f"gpuwise roll-out {settings.rollout_id}: {plan.target.label}; written by `gpuwise rollout plan`."]
    run = "  ansible-playbook -i inventory.yml rollout.yml" + (" --check" if settings.local else "")
    return {
        "inventory.yml": dump_tree(inventory(plan, settings), [*head, "Stages: canary, then wave_1, wave_2, ..."]),
        "rollout.yml": dump_tree(playbook(plan), [*head, "Rehearse with --check (gates run, nothing changes):", run]),
        "tasks/host.yml": dump_tree(host_tasks(plan.target.kind), head),
        "tasks/gate.yml": dump_tree(gate_tasks(), head),
        "rollout.json": json.dumps({"id": settings.rollout_id, **plan.as_dict()}, indent=2) + "\n",
    }


__all__ = [
    "INSTALL_COMMANDS",
    "PlaybookSettings",
    "files",
    "gate_tasks",
    "group_name",
    "host_tasks",
    "inventory",
    "playbook",
]
