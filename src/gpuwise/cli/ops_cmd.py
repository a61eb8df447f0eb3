"""`gpuwise doctor`, `gpuwise exporter` and `gpuwise fleet ...`: the operate commands.

`register(app)` adds them to a Typer app. Nothing heavy is imported here at module import time:
NVML, prometheus_client, SQLAlchemy and rich load inside the commands that need them. Every
command that reads the hardware accepts `--replay FILE` (a recording from `gpuwise doctor --record`
or examples/hosts/), so it runs the same on a laptop, in CI and on a GPU host.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise.cli.bounds import bounded
from gpuwise.cli.output import print_json
from gpuwise.errors import GpuwiseError, UsageError
from gpuwise.ops import EXPORTER_PORT
from gpuwise.terminal import shown

MAX_INTERVAL_S = 3600.0  # seconds between two readings: an hour is already far past any rate worth measuring
MAX_SAMPLES = 1000  # readings per inspection (the hottest temperature is kept)

JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
ReplayOpt = Annotated[
    Path | None,
    typer.Option(
        "--replay", help="Read a recorded host (JSON from --record or examples/hosts/) instead of the hardware."
    ),
]
DbOpt = Annotated[
    str | None, typer.Option("--db", help="Store URL (sqlite:///FILE or postgresql://...); default GPUWISE_DB.")
]


@contextmanager
def _errors() -> Iterator[None]:
    """Domain errors become one line on stderr and their exit code, whoever runs the command."""
    try:
        yield
    except GpuwiseError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise typer.Exit(exc.exit_code) from None


def _source(replay: Path | None, **kwargs: Any) -> Any:
    from gpuwise.hw import NvmlSource, ReplaySource

    return ReplaySource(replay) if replay is not None else NvmlSource(**kwargs)


def _close(source: Any) -> None:
    from gpuwise.hw import close_source

    close_source(source)


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False)


# ------------------------------------------------------------------------------------------
def doctor(
    as_json: JsonOpt = False,
    record: Annotated[Path | None, typer.Option("--record", help="Also write what was read to FILE (JSON).")] = None,
    replay: ReplayOpt = None,
    interval: Annotated[
        float,
        typer.Option(
            "--interval",
            help="Seconds between two readings on live hardware, for rates (PCIe replays); 0: one reading.",
        ),
    ] = 2.0,
    latency: Annotated[
        bool, typer.Option("--latency/--no-latency", help="Judge C-states as for a latency-sensitive (serving) host.")
    ] = True,
) -> None:
    """Host checks, each PASS/WARN/FAIL/SKIP with its evidence and the fix. Exit 1 when anything FAILs."""
    with _errors():
        from gpuwise.hw import ReplaySource
        from gpuwise.hw import record as write_recording
        from gpuwise.ops.doctor import DoctorOptions, run_checks

        bounded(interval, "--interval", 0, MAX_INTERVAL_S)
        source = _source(replay)
        try:
            if isinstance(source, ReplaySource):
                readings = list(source.snapshots)
            else:
                readings = [source.read()]
                if interval > 0 and readings[0].has_nvidia and readings[0].gpus:
                    time.sleep(interval)
                    readings.append(source.read())
        finally:
            _close(source)
        if record is not None:
            write_recording(readings if len(readings) > 1 else readings[0], record)
        snap = readings[-1]
        previous = readings[0] if len(readings) > 1 else None
        report = run_checks(snap, DoctorOptions(latency_sensitive=latency, previous=previous))
        if as_json:
            print_json(report.as_dict())
        else:
            _doctor_view(report)
    raise typer.Exit(report.exit_code)


_STYLE = {"PASS": "green", "WARN": "yellow", "FAIL": "bold red", "SKIP": "dim"}


def _doctor_view(report: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    console = _console()
    console.print(f"[bold]gpuwise doctor[/bold] — {report.hostname}, {report.time}")
    console.print(report.headline)
    table = Table(show_header=True, header_style="bold", expand=False, show_lines=False)
    table.add_column("status", no_wrap=True)
    table.add_column("check", no_wrap=True)
    table.add_column("finding")
    for r in report.results:
        finding = Text(r.summary)
        if r.evidence and r.status != "PASS":
            finding.append("\n" + r.evidence, style="dim")
        if r.fix and r.status in ("WARN", "FAIL", "SKIP"):
            finding.append("\nfix: " + r.fix, style="cyan")
        table.add_row(Text(r.status, style=_STYLE.get(r.status, "")), r.check, finding)
    console.print(table)
    c = report.counts
    console.print(f"{c['FAIL']} FAIL, {c['WARN']} WARN, {c['PASS']} PASS, {c['SKIP']} SKIP")


# ------------------------------------------------------------------------------------------
def exporter(
    port: Annotated[int, typer.Option("--port", help="TCP port for /metrics.")] = EXPORTER_PORT,
    host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback by default).")] = "127.0.0.1",
    replay: ReplayOpt = None,
    print_rules: Annotated[
        bool, typer.Option("--print-rules", help="Print the Prometheus alert rules and exit.")
    ] = False,
    print_dashboard: Annotated[
        bool, typer.Option("--print-dashboard", help="Print the Grafana dashboard JSON and exit.")
    ] = False,
    once: Annotated[bool, typer.Option("--once", help="Print one scrape (Prometheus text format) and exit.")] = False,
) -> None:
    """Prometheus metrics endpoint: GPU utilization, memory, temperature, power, clocks, ECC, PCIe, NVLink, XID."""
    with _errors():
        from gpuwise.ops import data_file

        if print_rules or print_dashboard:
            for wanted, name in ((print_rules, "alerts.yaml"), (print_dashboard, "grafana-dashboard.json")):
                if wanted:
                    sys.stdout.write(data_file(name).read_text(encoding="utf-8"))
            return
        bounded(port, "--port", 0, 65535)
        try:
            import prometheus_client  # noqa: F401
        except ImportError:
            raise UsageError("the exporter needs prometheus-client: pip install 'gpuwise[ops]'") from None
        from gpuwise.ops import exporter as exp

        source = _source(replay)
        if once:
            try:
                sys.stdout.write(exp.render(exp.make_registry(source)))
            finally:
                _close(source)
            return

        def ready(url: str) -> None:
            sys.stderr.write(f"gpuwise exporter: serving {url} (Ctrl-C stops)\n")
            sys.stderr.flush()

        exp.serve(port, host, source, ready=ready)


# ------------------------------------------------------------------------------------------
fleet_app = typer.Typer(
    name="fleet",
    help="Card inventory, inspections and retirement rules (stored in the gpuwise store).",
    no_args_is_help=True,
    add_completion=False,
)


def _store(db: str | None) -> Any:
    try:
        from gpuwise.store import open_store
    except ImportError as exc:
        raise UsageError(f"the fleet needs the store: pip install 'gpuwise[store]' ({exc})") from None
    return open_store(db)


def _scan_view(result: Any, what: str) -> None:
    out = sys.stdout
    out.write(f"{what} {shown(result.host)} at {result.time}: ")
    parts = []
    if result.added:
        parts.append(f"{len(result.added)} new card(s)")
    if result.updated:
        parts.append(f"{len(result.updated)} known card(s) updated")
    parts.append(f"{len(result.inspected)} inspection(s) stored")
    out.write(", ".join(parts) + "\n")
    for uuid in result.added:
        out.write(f"  + {shown(uuid)}\n")
    for line in result.skipped:
        out.write(f"  skipped {shown(line)}\n")


def _hardware_command(fn_name: str, label: str) -> Callable[..., None]:
    def command(
        db: DbOpt = None,
        replay: ReplayOpt = None,
        samples: Annotated[
            int, typer.Option("--samples", help="Readings per inspection (the hottest temperature is kept).")
        ] = 1,
        interval: Annotated[float, typer.Option("--interval", help="Seconds between readings.")] = 1.0,
        as_json: JsonOpt = False,
    ) -> None:
        with _errors():
            from gpuwise.ops import fleet

            bounded(samples, "--samples", 1, MAX_SAMPLES)
            bounded(interval, "--interval", 0, MAX_INTERVAL_S)
            source = _source(replay, kernel_log=False)
            try:
                with _store(db) as store:
                    result = getattr(fleet, fn_name)(store, source, samples=samples, interval=interval)
            finally:
                _close(source)
            if as_json:
                print_json(result.as_dict())
            else:
                _scan_view(result, label)

    return command


fleet_app.command("scan", help="Add this host's cards to the inventory (update known ones) and inspect each.")(
    _hardware_command("scan", "scanned")
)
fleet_app.command(
    "inspect", help="Store an inspection (ECC, remaps, temperature, clocks) of every inventoried card here."
)(_hardware_command("inspect", "inspected"))


@fleet_app.command("list")
def fleet_list(
    db: DbOpt = None,
    status: Annotated[str | None, typer.Option("--status", help="active|watch|retired")] = None,
    host: Annotated[str | None, typer.Option("--host", help="Only this host's cards.")] = None,
    replay: ReplayOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The card inventory."""
    with _errors():
        from gpuwise.ops import fleet

        if replay is not None:
            raise UsageError("`fleet list` reads the store, not the hardware: --replay applies to scan and inspect")
        with _store(db) as store:
            cards = fleet.list_cards(store, status=status, host=host)
        if as_json:
            print_json([c.as_dict() for c in cards])
            return
        from rich.table import Table
        from rich.text import Text

        table = Table(show_header=True, header_style="bold")
        for col in ("host", "gpu", "uuid", "model", "vbios", "driver", "status", "last seen"):
            table.add_column(col, overflow="fold")
        for c in cards:
            status_text = c.status + (f" ({c.retired_reason})" if c.retired_reason else "")
            cells = (c.host, c.gpu_index, c.uuid, c.model, c.vbios, c.driver, status_text)
            # stored texts as Text: escapes shown escaped, rich markup ([bold]) printed as it is
            table.add_row(*(Text(shown("" if v is None else v)) for v in cells), f"{c.last_seen:%Y-%m-%d %H:%M}")
        console = _console()
        console.print(table)
        console.print(f"{len(cards)} card(s)")


@fleet_app.command("scheduler")
def fleet_scheduler(
    host: Annotated[str, typer.Argument(help="The host (as `fleet scan` recorded it).")],
    scheduler: Annotated[str, typer.Argument(help="kubernetes|slurm|none: what places work on it.")],
    node: Annotated[str | None, typer.Option("--node", help="Its node name there (default: the host name).")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record the scheduler a host serves: roll-outs cordon (Kubernetes) or drain (Slurm) it around the upgrade."""
    with _errors():
        from gpuwise.ops import fleet

        with _store(db) as store:
            record = fleet.set_scheduler(store, host, scheduler, node)
        if as_json:
            print_json(record.as_dict())
        else:
            where = f" node {record.node_name}" if record.scheduler != "none" else ""
            sys.stdout.write(shown(f"{record.host}: {record.scheduler}{where}") + "\n")


@fleet_app.command("retire")
def fleet_retire(
    uuid: Annotated[str, typer.Argument(help="Card UUID (or a unique prefix).")],
    reason: Annotated[str, typer.Option("--reason", help="Why the card is retired (kept with it).")] = "",
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark a card retired, with the reason."""
    with _errors():
        from gpuwise.ops import fleet

        with _store(db) as store:
            card = fleet.retire(store, uuid, reason)
        if as_json:
            print_json(card.as_dict())
        else:
            what = f"retired {card.uuid} ({card.model}, {card.host} GPU {card.gpu_index}): {card.retired_reason}"
            sys.stdout.write(shown(what) + "\n")


@fleet_app.command("evaluate")
def fleet_evaluate(
    db: DbOpt = None,
    rules: Annotated[
        Path | None, typer.Option("--rules", help="Rules YAML (default: the packaged fleet-rules.yaml).")
    ] = None,
    acceptance: Annotated[
        Path | None, typer.Option("--acceptance", help="JSON: card UUID -> `gpuwise bench accept --json` output.")
    ] = None,
    apply: Annotated[bool, typer.Option("--apply", help="Put flagged cards on `watch` (never retires one).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Apply the life cycle rules to the recorded inspections: which cards to watch, which to retire, and why."""
    with _errors():
        from gpuwise.ops import fleet

        rule_set = fleet.load_rules(rules)
        hook = fleet.acceptance_from_file(acceptance) if acceptance else None
        with _store(db) as store:
            verdicts = fleet.evaluate(store, rule_set, acceptance=hook)
            changed = fleet.apply_verdicts(store, verdicts) if apply else []
        if as_json:
            print_json({"verdicts": [v.as_dict() for v in verdicts], "set_to_watch": [c.uuid for c in changed]})
            return
        out = sys.stdout
        if not verdicts:
            out.write("no card needs attention\n")
            return
        for v in verdicts:
            c = v.card
            out.write(shown(f"{v.verdict.upper():6} {c.uuid} ({c.model}, {c.host} GPU {c.gpu_index})") + "\n")
            for r in v.reasons:
                out.write(f"       {r.rule}: {shown(r.evidence)}\n         why: {r.why}\n")
        if changed:
            out.write(f"{len(changed)} card(s) set to watch\n")


@fleet_app.command("view")
def fleet_view_cmd(
    db: DbOpt = None,
    tolerance: Annotated[float, typer.Option("--tolerance", help="Drift: below the model's median by more.")] = 0.1,
    as_json: JsonOpt = False,
) -> None:
    """Per pool and GPU model: acceptance spread, drifting hosts, driver/VBIOS versions, roll-out progress."""
    with _errors():
        from gpuwise.ops.fleet_view import fleet_view, render_text

        if not 0 <= tolerance < 1:
            raise UsageError("--tolerance must be between 0 and 1")
        with _store(db) as store:
            view = fleet_view(store, tolerance=tolerance)
        if as_json:
            print_json(view)
        else:
            sys.stdout.write(render_text(view))


def register(app: typer.Typer) -> None:
    """Add `doctor`, `exporter` and the `fleet` group to `app`."""
    app.command("doctor")(doctor)
    app.command("exporter")(exporter)
    app.add_typer(fleet_app, name="fleet")


__all__ = ["doctor", "exporter", "fleet_app", "register"]
