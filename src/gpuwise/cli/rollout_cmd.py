"""`gpuwise rollout plan|record|status`: staged roll-outs of drivers, firmware and CUDA.

`register(app)` adds the `rollout` group to the main app. SQLAlchemy and rich load inside the commands.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise.cli.bounds import MAX_TOLERANCE, bounded
from gpuwise.cli.ops_cmd import DbOpt, JsonOpt, _errors, _store
from gpuwise.cli.output import print_json
from gpuwise.errors import UsageError
from gpuwise.terminal import shown

rollout_app = typer.Typer(
    name="rollout",
    help="Driver, firmware and CUDA roll-outs with Ansible: a canary, then waves, each host behind a benchmark gate.",
    no_args_is_help=True,
    add_completion=False,
)
RolloutOpt = Annotated[int | None, typer.Option("--rollout", help="Roll-out id (default: the newest).")]


@rollout_app.command("plan")
def plan(
    target: Annotated[str, typer.Option("--target", help="driver=VERSION, firmware=VERSION or cuda=VERSION.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Folder for the inventory and playbooks.")],
    db: DbOpt = None,
    wave_size: Annotated[int, typer.Option("--wave-size", help="Hosts per wave after the canary.")] = 1,
    canary: Annotated[str | None, typer.Option("--canary", help="The host that goes first (default: chosen).")] = None,
    hosts: Annotated[
        Path | None,
        typer.Option("--hosts", help="YAML `hosts: {NAME: {pool, k8s_node, ansible_host, doctor_replay, ...}}`."),
    ] = None,
    baseline: Annotated[
        str, typer.Option("--baseline", help="Gate baseline: 'db' (the fleet's median) or a bench --json file.")
    ] = "db",
    tolerance: Annotated[float, typer.Option("--tolerance", help="Allowed shortfall against the baseline.")] = 0.1,
    gpuwise_bin: Annotated[str, typer.Option("--gpuwise-bin", help="gpuwise on the hosts.")] = "gpuwise",
    record_bin: Annotated[str, typer.Option("--record-bin", help="gpuwise on the controller.")] = "gpuwise",
    install_command: Annotated[
        str | None, typer.Option("--install-command", help="What installs a version; {{ version }} in it.")
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="Every host a local connection (rehearse on this machine).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Ansible inventory and playbooks from the fleet store; the plan is stored for `rollout status`."""
    with _errors():
        from gpuwise.deploy.rollout_playbook import PlaybookSettings, files
        from gpuwise.deploy.writer import check_free, write_texts
        from gpuwise.ops import fleet, rollout

        goal = rollout.parse_target(target)
        bounded(tolerance, "--tolerance", 0, MAX_TOLERANCE)  # what the gates' `bench accept` takes
        if baseline != "db" and not Path(baseline).is_file():
            raise UsageError(f"--baseline {baseline!r}: not 'db' and no such file")
        baseline = baseline if baseline == "db" else str(Path(baseline).resolve())
        facts = rollout.load_rollout_hosts(hosts) if hosts else {}
        with _store(db) as store:
            cuda = rollout.cuda_by_host(store) if goal.kind == "cuda" else {}
            the_plan = rollout.plan_rollout(
                goal,
                fleet.list_cards(store),
                wave_size=wave_size,
                canary=canary,
                facts=facts,
                cuda=cuda,
                schedulers=fleet.host_schedulers(store),
            )
            url = _absolute(store.engine.url.render_as_string(hide_password=False))
            settings = PlaybookSettings(0, url, baseline, tolerance, gpuwise_bin, record_bin, local, install_command)
            check_free(files(the_plan, settings), out)  # before the plan is stored
            settings = dataclasses.replace(settings, rollout_id=rollout.save_rollout(store, the_plan))
        rollout_id = settings.rollout_id
        written = write_texts(files(the_plan, settings), out)
        if as_json:
            print_json({"id": rollout_id, **the_plan.as_dict(), "files": [str(p) for p in written]})
            return
        _plan_view(rollout_id, the_plan, out, local)


def _absolute(url: str) -> str:
    """A SQLite URL with a relative path made absolute: the playbook runs from its own folder."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith(prefix + "/") and ":memory:" not in url:
        return prefix + str(Path(url.removeprefix(prefix)).resolve())
    return url


def _line(text: str) -> None:
    """One line of a view that holds stored values (`shown`: no escape reaches the terminal)."""
    sys.stdout.write(shown(text) + "\n")


def _plan_view(rollout_id: int, the_plan: Any, out: Path, local: bool) -> None:
    w = sys.stdout.write
    w(f"roll-out {rollout_id}: {the_plan.target.label} on {len(the_plan.hosts)} host(s)\n")
    for host in the_plan.order:
        p = the_plan.hosts[host]
        _line(f"  {the_plan.stage_of(host):8} {host}  {p.model}, pool {p.pool}, {len(p.gpus)} GPU(s), now {p.previous}")
    for note in the_plan.notes:
        _line(f"  note: {note}")
    check = " --check" if local else ""
    w(f"wrote {out}; rehearse, then run:\n  cd {out} && ansible-playbook -i inventory.yml rollout.yml{check}\n")
    w(f"follow it with: gpuwise rollout status --rollout {rollout_id}\n")


@rollout_app.command("record")
def record_cmd(
    rollout_id: Annotated[int, typer.Option("--rollout", help="Roll-out id (from `rollout plan`).")],
    host: Annotated[str, typer.Option("--host", help="The host the step ran on.")],
    step: Annotated[str, typer.Option("--step", help="gate-before|upgrade|gate-after|rollback|done")],
    outcome: Annotated[str, typer.Option("--outcome", help="pass|fail")],
    detail: Annotated[str, typer.Option("--detail", help="What happened, in a line.")] = "",
    check: Annotated[bool, typer.Option("--check", help="Recorded by an ansible-playbook --check rehearsal.")] = False,
    db: DbOpt = None,
) -> None:
    """Write one step's outcome on one host (the playbook calls this)."""
    with _errors():
        from gpuwise.ops import rollout

        with _store(db) as store:
            rollout.record(store, rollout_id, host, step, outcome, detail=detail, checked=check)


@rollout_app.command("status")
def status(
    db: DbOpt = None,
    rollout_id: RolloutOpt = None,
    check: Annotated[
        bool | None, typer.Option("--check/--real", help="Show the check-mode rehearsal, or the real run.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """How far a roll-out has gone: each host's stage, state and steps."""
    with _errors():
        from gpuwise.ops import rollout

        with _store(db) as store:
            st = rollout.rollout_status(store, rollout_id, check)
        if as_json:
            print_json(st.as_dict())
            return
        _line(st.headline)
        for h in st.hosts:
            steps = ", ".join(f"{e.step} {e.outcome}" for e in h.events) or "-"
            _line(f"  {h.stage:8} {shown(h.host):24} {h.state:12} {steps}")
            last = h.events[-1] if h.events else None
            if last is not None and last.outcome == "fail" and last.detail:
                _line(f"           {last.detail}")


def register(app: typer.Typer) -> None:
    """Add the `rollout` group to `app`."""
    app.add_typer(rollout_app, name="rollout")


__all__ = ["register", "rollout_app"]
