"""`gpuwise` command line. Domain errors become exit codes here, in one place."""

from __future__ import annotations

import copy
import functools
import inspect
import os
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise import cache
from gpuwise.cli.plain_help import PlainHelpGroup
from gpuwise.cli.prices_cmd import ClassOpt, ExcludeOpt, IndicativeOpt, MaxAgeOpt, ProvidersOpt, RegionOpt
from gpuwise.errors import GpuwiseError, UsageError

app = typer.Typer(
    cls=PlainHelpGroup,  # the list of commands without rich: `gpuwise --help` stays fast
    name="gpuwise",
    help="Which GPUs, how many, how connected, and what it costs — for your workload.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output (SI units).", metavar="")]


def _print_json(data: Any) -> None:
    from gpuwise.cli.output import print_json

    print_json(data)


# ------------------------------------------------------------------------------------------
@app.command()
def gpus(
    as_json: JsonOpt = False,
    vendor: Annotated[str | None, typer.Option(help="nvidia or amd.")] = None,
    arch: Annotated[str | None, typer.Option(help="Architecture, e.g. hopper, ampere, ada.")] = None,
    min_memory: Annotated[str | None, typer.Option(help="Minimum memory, e.g. 40GB or 48GiB.")] = None,
    sort: Annotated[str, typer.Option(help="name|memory|bandwidth|bf16|fp8|tdp|price|cloud|release")] = "name",
    desc: Annotated[bool, typer.Option("--desc", help="Sort descending.")] = False,
) -> None:
    """Catalog of accelerators: a spec sheet with prices, every value sourced."""
    from gpuwise.api import gpu_records

    records = gpu_records(vendor, arch, min_memory, sort, desc)
    if as_json:
        _print_json(records)
        return
    from gpuwise.catalog import load_catalog
    from gpuwise.cli.render import gpu_table

    cat = load_catalog()
    cloud = {r["id"]: r["price"]["cloud_usd_per_gpu_hour"] for r in records if r["price"]["cloud"] is not None}
    gpu_table([cat.gpus[r["id"]] for r in records], cloud)


@app.command()
def models(
    as_json: JsonOpt = False,
    task: Annotated[str | None, typer.Option(help="llm|encoder|vision|diffusion|recommender")] = None,
) -> None:
    """Catalog of model architectures (parameters computed from each config)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.records import model_record

    cat = load_catalog()
    entries = [m for m in cat.models.values() if task is None or m.task == task]
    records = [model_record(m, cat) for m in entries]
    if as_json:
        _print_json(records)
        return
    from gpuwise.cli.render import model_table

    model_table(records)


# ------------------------------------------------------------------------------------------
# Workload, hardware and requirement options come from the one schema (gpuwise.workload.schema).
class _SchemaOptions:
    """A `**opts` command whose signature, as typer reads it (`__signature__`), adds the typed
    options of the schema's `sections`. They are derived when typer builds the command, not when
    this module is imported: listing the commands (`gpuwise --help`) builds no pydantic model."""

    __wrapped__: Callable[..., Any]
    __name__: str

    def __init__(self, fn: Callable[..., Any], sections: tuple[str, ...]) -> None:
        functools.update_wrapper(self, fn)  # name, docstring, annotations, __wrapped__
        self._sections = sections

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        from gpuwise.workload.schema import fields

        fn = self.__wrapped__
        sig = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)  # resolve the postponed annotations
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in sig.parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        extra = [
            inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=_option(f))
            for section in self._sections
            for f in fields(section)
        ]
        return sig.replace(parameters=[*own, *extra])


def _with_options(*sections: str) -> Callable[[Callable[..., Any]], Any]:
    """Give a `**opts` command the typed options of the schema's `sections` (see _SchemaOptions)."""
    return lambda fn: _SchemaOptions(fn, sections)


def _option(f: Any) -> Any:
    """One schema field as a typer option: its flag, help (with the default), metavar and panel.

    Values arrive as text (flags as bools): the schema converts and bounds them (schema.validate) with
    its own messages, and typer needs no conversion for them (gpuwise.cli.coercion)."""
    decls = [f"{f.flag}/--no-{f.flag[2:]}"] if f.negatable else [f.flag]
    text = f.help + (f" (default: {f.default_doc})" if f.default_doc else "")
    metavar = None if f.kind is bool else ("|".join(f.choices) if f.choices and not f.metavar else f.metavar or "TEXT")
    panel = {
        "workload": "Workload",
        "hardware": "Hardware",
        "target": "Serving target",
        "plan": "Requirements",
        "prices": "Prices",
    }
    kind = bool if f.kind is bool else str
    return Annotated[kind | None, typer.Option(*decls, help=text, metavar=metavar, rich_help_panel=panel[f.section])]


def _split(opts: dict[str, Any], file: str | None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(workload, hardware+requirements, cost overrides): the YAML file first, flags over it.

    `file` is text (a `str` option: typer converts no path, see gpuwise.cli.coercion)."""
    from gpuwise.planfile import read_plan_file
    from gpuwise.workload.schema import names

    work, reqs, costs = read_plan_file(Path(file)) if file is not None else ({}, {}, {})
    workload_names = names("workload")
    for key, value in opts.items():
        if value is None:
            continue
        (work if key in workload_names else reqs)[key] = value
    return work, reqs, costs


CALIBRATED_HELP = (
    "Use the team's measurements in the store: gpuwise bench rates and host launch times, and runs imported with "
    "gpuwise calibrate import."
)
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Store URL (sqlite:///file.db, postgresql://...); default GPUWISE_DB or ~/.local/share/gpuwise/gpuwise.db.",
    ),
]


@app.command()
@_with_options("hardware", "workload", "target", "prices")
def estimate(
    file: Annotated[
        str | None, typer.Option("-f", "--file", help="Workload YAML (same names as the flags).", metavar="FILE")
    ] = None,
    calibrated: Annotated[bool, typer.Option("--calibrated", help=CALIBRATED_HELP)] = False,
    db: DbOpt = None,
    currency: Annotated[
        str, typer.Option(help="Also give the cost in CNY or EUR (dated rate in offers.yaml).")
    ] = "USD",
    as_json: JsonOpt = False,
    **opts: Any,
) -> None:
    """Memory, time and cost of one workload on one GPU configuration (and replicas for a target)."""
    from gpuwise.api import calibrated_estimate, make_estimate, measured_calibrations, money_block, team_measurements

    work_opts, other, costs = _split(opts, file)
    block = None
    if calibrated:
        cals = measured_calibrations(db)
        est, match = calibrated_estimate(work_opts, other, cals, team_measurements(db), costs)
        from gpuwise.calibration.report import calibration_json

        block = calibration_json(match)
        if est.hardware.gpu.id not in cals and match.fitted is None and match.link is None:
            sys.stderr.write(
                f"no measurements of {est.hardware.gpu.id} in the store for this workload (gpuwise bench, "
                "gpuwise calibrate import): the model's own figures\n"
            )
    else:
        est = make_estimate(work_opts, other, None, costs)
    d = est.as_dict()
    if block is not None:
        d["calibration"] = block
    money = money_block(currency, d.get("cost"))
    if money is not None:
        d["currency"] = money
    if as_json:
        _print_json(d)
    else:
        from gpuwise.cli.render import estimate_view
        from gpuwise.i18n.words import money_text

        estimate_view(d)
        if money is not None:
            print("Cost " + (money_text(money) or ""))
    if not est.memory.fits or (est.serving is not None and not est.serving.meets):
        raise typer.Exit(1)


@app.command()
@_with_options("workload", "target", "plan", "prices")
def plan(
    file: Annotated[
        str | None, typer.Option("-f", "--file", help="Plan YAML: workload, requirements, costs.", metavar="FILE")
    ] = None,
    top: Annotated[int, typer.Option(help="Runners-up to show.")] = 5,
    report: Annotated[Path | None, typer.Option(help="Write a report: FILE.md or FILE.html.")] = None,
    calibrated: Annotated[bool, typer.Option("--calibrated", help=CALIBRATED_HELP)] = False,
    db: DbOpt = None,
    verbose: Annotated[
        bool, typer.Option("-v", "--verbose", help="Every ruled-out GPU type with its reasons, one per line.")
    ] = False,
    as_json: JsonOpt = False,
    **opts: Any,
) -> None:
    """The cheapest GPU configuration that meets the requirements, the runners-up, and why."""
    from gpuwise.api import make_plan, measured_calibrations, team_calibrations, team_measurements
    from gpuwise.workload.schema import names

    work_opts, req_opts, cost_opts = _split(opts, file)
    for key in names("hardware"):
        req_opts.pop(key, None)  # plan chooses the hardware
    cals: dict[str, Any] | None = None
    matches: dict[str, Any] = {}
    if calibrated:
        cals, matches = team_calibrations(work_opts, team_measurements(db), measured_calibrations(db), req_opts)
    result = make_plan(work_opts, req_opts, cost_opts, cals, show=top)
    if report is not None:
        from gpuwise.report import write_report

        write_report(result, report)
    if as_json:
        from gpuwise.report.as_json import plan_json

        d = plan_json(result)
        if calibrated:
            from gpuwise.calibration.report import calibration_json

            d["calibration"] = {gpu: calibration_json(m) for gpu, m in matches.items()}
        _print_json(d)
    else:
        from gpuwise.cli.render import plan_view

        plan_view(result, top, verbose)
        if report is not None:
            sys.stderr.write(f"report written to {report}\n")
    if result.chosen is None:
        if not as_json:
            sys.stderr.write("no configuration meets the requirements (see the rejected GPU types above)\n")
        raise typer.Exit(1)


@app.command()
def tco(
    gpu: Annotated[list[str], typer.Option("--gpu", help="GPU id and count, e.g. h100-sxm:8 (repeatable).")],
    years: Annotated[float, typer.Option(help="Horizon in years.")] = 3.0,
    busy: Annotated[float, typer.Option(help="Fraction of the time the GPUs would be rented (0-1].")] = 1.0,
    costs: Annotated[Path | None, typer.Option(help="YAML overriding cost parameters (see costs.yaml).")] = None,
    currency: Annotated[str, typer.Option(help="USD, or CNY/EUR at the dated rate in offers.yaml.")] = "USD",
    providers: ProvidersOpt = None,
    exclude_providers: ExcludeOpt = None,
    region: RegionOpt = None,
    max_age: MaxAgeOpt = None,
    offer_class: ClassOpt = None,
    allow_indicative: IndicativeOpt = False,
    prices: Annotated[Path | None, typer.Option(help="A team's own offers (YAML `offers:` list).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Buy versus rent, side by side, over N years; every rent total names its offer."""
    from gpuwise.api import tco as tco_table
    from gpuwise.cli.prices_cmd import price_filters

    filters = price_filters(providers, exclude_providers, region, max_age, offer_class, allow_indicative)
    table = tco_table(gpu, years, busy, costs, currency, prices, **filters)
    if as_json:
        _print_json(table.as_dict())
        return
    from gpuwise.cli.render import tco_view

    tco_view(table.rows(), table.params, table.fx)


@app.command()
def bench(
    names: Annotated[
        list[str] | None, typer.Argument(help="matmul|membw|h2d|allreduce|io|step|latency|launch|all, or accept")
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="Small sizes (CI, smoke tests).")] = False,
    device: Annotated[str | None, typer.Option(help="cpu or cuda[:i] (default: cuda when available).")] = None,
    db: DbOpt = None,
    store: Annotated[bool, typer.Option("--store/--no-store", help="Save the results in the store.")] = True,
    baseline: Annotated[
        str | None, typer.Option(help="accept: a baseline JSON file, or 'db' for the fleet's median.")
    ] = None,
    tolerance: Annotated[
        float, typer.Option(help="accept: allowed shortfall against the baseline (0.1 = 10 %).")
    ] = 0.1,
    results: Annotated[Path | None, typer.Option(help="accept: this card's results (bench --json output).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Measure this machine: matmul FLOP/s, bandwidths, all-reduce, data loading, a training step, serving latency,
    the host's time per kernel launch.

    Needs PyTorch (the `bench` extra). Results go to the store."""
    names = names or ["all"]
    if names[0] == "accept":
        from gpuwise.cli.bench_cmd import accept

        raise typer.Exit(accept(results, baseline, tolerance, db, as_json))
    from gpuwise.cli.bench_cmd import run_bench

    run_bench(names, quick, device, db if store else None, store, as_json)


@app.command()
def matrix(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Capability matrix from measured results, each cell beside gpuwise's estimate; and each imported
    measurement beside gpuwise's prediction of its workload."""
    from gpuwise.bench.matrix import SCENARIOS, imported_rows, matrix_dict
    from gpuwise.bench.matrix import matrix as build
    from gpuwise.catalog import load_catalog
    from gpuwise.store import open_store
    from gpuwise.store.imported import load

    cat = load_catalog()
    with open_store(db) as s:
        rows = s.results(include_quick=True)
        imported = imported_rows(load(s), cat)
    m = build(rows, cat)
    if as_json:
        _print_json(matrix_dict(m, imported))
        return
    if not m and not imported:
        sys.stderr.write("no measurements in the store yet: run `gpuwise bench` or `gpuwise calibrate import`\n")
        raise typer.Exit(1)
    from gpuwise.cli.render import imported_view, matrix_view

    if m:
        matrix_view(m, SCENARIOS)
    if imported:
        imported_view(imported)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8000,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(help="A Host name the server answers to besides the bound address and localhost ('*': any)."),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="GPUWISE_TOKEN",
            show_envvar=True,
            help="Required to bind beyond loopback: requests carry `Authorization: Bearer TOKEN` "
            "(or open /?token=TOKEN once in a browser).",
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="Worker processes (plans are CPU-bound).")] = 1,
) -> None:
    """The web UI and JSON API (FastAPI, the `web` extra); everything served locally."""
    if not 0 < port < 65536:
        raise UsageError(f"--port must be between 1 and 65535; got {port}")
    try:
        from gpuwise.web.server import bind_settings, run
    except ImportError as exc:
        raise UsageError(f"the web UI needs its extra: pip install 'gpuwise[web]' ({exc})") from None
    settings = bind_settings(host, token, allowed_host or [])
    try:
        run(host, port, workers, settings)
    except OSError as exc:  # address in use, cannot bind
        raise UsageError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None


def _register_more() -> None:
    """Command groups that live in their own modules (lazy inside each command)."""
    from gpuwise.cli import calibrate_cmd, deploy_cmd, describe_cmd, ops_cmd, prices_cmd, rollout_cmd

    calibrate_cmd.register(app)
    deploy_cmd.register(app)
    describe_cmd.register(app)
    ops_cmd.register(app)
    rollout_cmd.register(app)
    prices_cmd.register(app)


_register_more()


def _readable_metavars(cmd: Any) -> Any:
    """Name what an option takes (FILE, N, X, TEXT; nothing for a flag, --help included) instead of
    typer's <bool> or <list[str]>; an argument by its name alone (typer 0.29 adds <path> beside it
    and writes a required one as {NAME} in the usage line; click's usage says NAME, or [NAME])."""
    names = {"int": "N", "float": "X", "Path": "FILE", "str": "TEXT", "list[str]": "TEXT..."}
    get_help = getattr(cmd, "get_help_option", None)
    if callable(get_help) and hasattr(cmd, "context_class"):  # made once, kept for the real parse
        help_option = get_help(cmd.context_class(cmd, **(cmd.context_settings or {})))
        if help_option is not None and help_option.metavar is None:
            help_option.metavar = ""
    for param in getattr(cmd, "params", []):
        if param.param_type_name == "argument":
            _readable_argument(param)
            continue
        if getattr(param, "metavar", None) is not None:
            continue
        if getattr(param, "is_flag", False):
            param.metavar = ""
            continue
        bare = param.bare_type() if callable(getattr(param, "bare_type", None)) else "str"
        param.metavar = names.get(str(bare), "TEXT")
    for sub in getattr(cmd, "commands", {}).values():
        _readable_metavars(sub)
    return cmd


def _readable_argument(param: Any) -> None:
    """An argument shown by its name (its metavar, else NAME; NAME... for several) with no type
    beside it, in the usage line as NAME when required and [NAME] when not."""
    if param.metavar is None:
        bare = param.bare_type() if callable(getattr(param, "bare_type", None)) else "str"
        param.metavar = (param.name or "arg").upper() + ("..." if str(bare).startswith("list") else "")
    usage = param.metavar if param.required else f"[{param.metavar}]"
    param.get_usage_pieces = lambda ctx: [usage]
    param.display_type_rich = lambda ctx: None


def _command_name(info: Any) -> str:
    """A registered command's name as typer gives it (its function's name, dashed, unless named)."""
    return str(info.name or typer.main.get_command_name(getattr(info.callback, "__name__", "")))


def _command_for(args: list[str]) -> Any:
    """The click group to run `args` with. typer builds the options of every command a group holds
    (about 20 ms for all of gpuwise's, and the schema's models for `estimate` and `plan`), so
    `gpuwise NAME ...` for a command or group NAME gets a group holding only that one (the same
    command, usage line and errors). Anything else (the list of commands, a usage error) gets every
    command without the schema's options, which only the commands' own help and runs need."""
    name = args[0] if args else None
    one = copy.copy(app)  # shares app's settings; only the command lists differ
    commands = [c for c in app.registered_commands if _command_name(c) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if len(commands) + len(groups) == 1:
        one.registered_commands, one.registered_groups = commands, groups
    else:
        one.registered_commands = [_listed(c) for c in app.registered_commands]
    return typer.main.get_group(one)


def _listed(info: Any) -> Any:
    """A registered command as the list of commands shows it: its name and help, without the
    schema's options (a stand-in that is listed, never run)."""
    if not isinstance(info.callback, _SchemaOptions):
        return info

    def listed() -> None:
        raise AssertionError("a listed command is never run")  # pragma: no cover

    listed.__name__, listed.__doc__ = info.callback.__name__, info.callback.__doc__
    out = copy.copy(info)
    out.callback = listed
    return out


def main() -> None:
    """Entry point: domain errors print one line and exit 2 (usage) or 1 (requirement not met);
    anything else is gpuwise's own fault: exit 70 (EX_SOFTWARE), the traceback only with --debug."""
    # pydantic looks for plugins in every installed distribution's entry points (importlib.metadata,
    # about 10 ms) when it builds its first validator; gpuwise uses none. A user's own setting wins
    # (PYDANTIC_DISABLE_PLUGINS= , empty, loads them all again).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    debug = cache.debugging()
    args = [a for a in sys.argv[1:] if a != "--debug"]
    try:
        command = _readable_metavars(_command_for(args))
        result = command.main(args=args, prog_name="gpuwise", standalone_mode=False)
    except GpuwiseError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("aborted\n")
        sys.exit(130)
    except Exception as exc:
        # click's usage errors (typer vendors its own click, so match by shape, not by class)
        show, code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(code, int):
            show()
            sys.exit(code)
        if debug:
            raise
        sys.stderr.write(
            f"internal error: {type(exc).__name__}: {exc}\n"
            "this is a bug in gpuwise; run again with --debug for the traceback and report it\n"
        )
        sys.exit(70)
    sys.exit(result if isinstance(result, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
