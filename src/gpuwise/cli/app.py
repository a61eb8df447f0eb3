"""`gpuwise` command line. Domain errors become exit codes here, in one place."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise.errors import GpuwiseError, UsageError

app = typer.Typer(
    name="gpuwise",
    help="Which GPUs, how many, how connected, and what it costs — for your workload.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output (SI units).")]


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


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
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.query import filter_gpus
    from gpuwise.catalog.records import gpu_record

    cat = load_catalog()
    rows = filter_gpus(cat, vendor=vendor, architecture=arch, min_memory=min_memory, sort=sort, descending=desc)
    if as_json:
        _print_json([gpu_record(g, cat) for g in rows])
        return
    from gpuwise.cli.render import gpu_table

    gpu_table(rows)


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
# Shared option groups: declared once, attached to each command's signature.
_WORKLOAD_OPTIONS: list[tuple[str, type, str]] = [
    ("model", str, "Catalog id or path to a Hugging Face config.json."),
    ("task", str, "pretrain|finetune|inference"),
    ("method", str, "full|lora|qlora"),
    ("precision", str, "fp32|tf32|fp16|bf16|fp8"),
    ("weights_dtype", str, "fp32|fp16|bf16|fp8|int8|int4|nf4"),
    ("kv_dtype", str, "fp32|fp16|bf16|fp8|int8"),
    ("optimizer", str, "adamw|adamw-8bit|sgd|adafactor"),
    ("master_weights", bool, "fp32 master copy (default) or pure 16-bit."),
    ("micro_batch", int, "Samples per GPU per forward pass."),
    ("global_batch", int, "Samples per optimizer step, all GPUs."),
    ("seq", int, "Training sequence length (tokens)."),
    ("zero", int, "ZeRO/FSDP stage 0-3."),
    ("tp", int, "Tensor-parallel degree."),
    ("pp", int, "Pipeline-parallel degree."),
    ("recompute", str, "none|selective|full"),
    ("attention", str, "flash|eager"),
    ("lora_rank", int, "LoRA rank r."),
    ("lora_targets", str, "Comma list (q_proj,v_proj) or all-linear."),
    ("tokens", str, "Training tokens in total, e.g. 2T, 300B."),
    ("samples", str, "Training samples in total, e.g. 1.2M."),
    ("input_tokens", int, "Prompt tokens per request."),
    ("output_tokens", int, "Generated tokens per request."),
    ("concurrency", int, "Requests served together (batch)."),
    ("read_bandwidth", str, "Data pipeline: storage read per node, e.g. 2GB/s."),
    ("sample_bytes", str, "Data pipeline: bytes per sample, e.g. 120KB."),
    ("decode_ms", float, "Data pipeline: CPU ms to decode one sample on one core."),
    ("loader_cores", int, "Data pipeline: CPU cores loading data per node."),
]
_HARDWARE_OPTIONS: list[tuple[str, type, str]] = [
    ("gpu", str, "GPU id and total count, e.g. h100-sxm:8."),
    ("gpus_per_node", int, "GPUs per node (default: the usual node for that GPU)."),
    ("network", str, "Inter-node network: ib-hdr|ib-ndr|ib-xdr|roce-100g|roce-200g|roce-400g."),
]
_TARGET_OPTIONS: list[tuple[str, type, str]] = [
    ("qps", float, "Serving: requests per second to carry."),
    ("p95_ms", float, "Serving: P95 latency target in ms."),
    ("p99_ms", float, "Serving: P99 latency target in ms."),
]
_PLAN_OPTIONS: list[tuple[str, type, str]] = [
    ("deadline", str, "Training must finish within, e.g. 2h, 3d."),
    ("budget", float, "USD: the whole training run, or a month of serving."),
    ("max_gpus", int, "At most this many GPUs in total."),
    ("growth_model", str, "The model six months from now."),
    ("growth_data", float, "Training data six months from now, as a factor (e.g. 2)."),
    ("growth_users", float, "Requests per second six months from now, as a factor (e.g. 3)."),
    ("objective", str, "Rank by cost (default) or time."),
    ("pricing", str, "on-demand|reserved|spot (pay per use) or owned (buy: total cost over --years)."),
    ("years", float, "Owned pricing: horizon in years (default: the depreciation life)."),
    ("gpus", str, "Only these GPU ids, comma separated."),
    ("methods", str, "Compare training methods, e.g. full,lora,qlora."),
]


def _with_options(*groups: list[tuple[str, type, str]]) -> Any:
    """Give a `**opts` command the typed options of `groups` (typer reads __signature__)."""
    import inspect

    def attach(fn: Any) -> Any:
        import typing

        sig = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)  # resolve the postponed annotations
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in sig.parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        extra = []
        for group in groups:
            for name, typ, help_ in group:
                flag = "--" + name.replace("_", "-")
                decls = [f"{flag}/--no-{name.replace('_', '-')}"] if typ is bool else [flag]
                extra.append(
                    inspect.Parameter(
                        name,
                        inspect.Parameter.KEYWORD_ONLY,
                        default=None,
                        annotation=Annotated[typ | None, typer.Option(*decls, help=help_)],
                    )
                )
        fn.__signature__ = sig.replace(parameters=[*own, *extra])
        return fn

    return attach


def _split(opts: dict[str, Any], file: Path | None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(workload, hardware+requirements, cost overrides): the YAML file first, flags over it."""
    from gpuwise.files import read_plan_file

    work, reqs, costs = read_plan_file(file) if file is not None else ({}, {}, {})
    names = {n for n, _, _ in _WORKLOAD_OPTIONS}
    for key, value in opts.items():
        if value is None:
            continue
        (work if key in names else reqs)[key] = value
    return work, reqs, costs


DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Store URL (sqlite:///file.db, postgresql://...); default GPUWISE_DB or ~/.local/share/gpuwise/gpuwise.db.",
    ),
]


def _calibration(gpu_id: str, db: str | None) -> Any:
    """The measured rates of a GPU model from the store, or None."""
    from gpuwise.bench.calibrate import calibrations
    from gpuwise.store import open_store

    with open_store(db) as store:
        return calibrations(store.results(gpu_id=gpu_id, include_quick=False)).get(gpu_id)


@app.command()
@_with_options(_HARDWARE_OPTIONS, _WORKLOAD_OPTIONS, _TARGET_OPTIONS)
def estimate(
    file: Annotated[Path | None, typer.Option("-f", "--file", help="Workload YAML (same names as the flags).")] = None,
    calibrated: Annotated[
        bool, typer.Option("--calibrated", help="Use measured rates from the store (gpuwise bench).")
    ] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    **opts: Any,
) -> None:
    """Memory, time and cost of one workload on one GPU configuration (and replicas for a target)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate import estimate as run_estimate
    from gpuwise.workload import build_hardware, build_workload

    cat = load_catalog()
    work_opts, other, _ = _split(opts, file)
    if not other.get("gpu"):
        raise UsageError("give the hardware with --gpu ID[:N], e.g. --gpu a100-80gb-sxm:8")
    work = build_workload(work_opts, cat)
    hw = build_hardware(str(other["gpu"]), cat, other.get("gpus_per_node"), other.get("network"))
    target = _latency_target(other.get("qps"), other.get("p95_ms"), other.get("p99_ms"))
    calibration = _calibration(hw.gpu.id, db) if calibrated else None
    if calibrated and calibration is None:
        sys.stderr.write(f"no full (non --quick) measurements of {hw.gpu.id} in the store: using the cited defaults\n")
    est = run_estimate(work, hw, cat, target=target, calibration=calibration)
    if as_json:
        _print_json(est.as_dict())
    else:
        from gpuwise.cli.render import estimate_view

        estimate_view(est.as_dict())
    if not est.memory.fits or (est.serving is not None and not est.serving.meets):
        raise typer.Exit(1)


def _latency_target(qps: float | None, p95: float | None, p99: float | None) -> Any:
    """--qps with --p95-ms or --p99-ms (not both) -> a LatencyTarget; nothing -> None."""
    from gpuwise.estimate.run import LatencyTarget

    if qps is None and p95 is None and p99 is None:
        return None
    if qps is None or (p95 is None) == (p99 is None):
        raise UsageError("a serving target needs --qps and one of --p95-ms or --p99-ms")
    return LatencyTarget(
        qps=float(qps),
        percentile=95.0 if p95 is not None else 99.0,
        seconds=float(p95 if p95 is not None else p99) / 1e3,
    )


@app.command()
@_with_options(_WORKLOAD_OPTIONS, _TARGET_OPTIONS, _PLAN_OPTIONS)
def plan(
    file: Annotated[Path | None, typer.Option("-f", "--file", help="Plan YAML: workload, requirements, costs.")] = None,
    top: Annotated[int, typer.Option(help="Runners-up to show.")] = 5,
    report: Annotated[Path | None, typer.Option(help="Write a report: FILE.md or FILE.html.")] = None,
    calibrated: Annotated[
        bool, typer.Option("--calibrated", help="Use measured rates from the store (gpuwise bench).")
    ] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    **opts: Any,
) -> None:
    """The cheapest GPU configuration that meets the requirements, the runners-up, and why."""
    from gpuwise.api import make_plan, measured_calibrations

    work_opts, req_opts, cost_opts = _split(opts, file)
    for key in ("gpu", "gpus_per_node", "network"):
        req_opts.pop(key, None)  # plan chooses the hardware
    result = make_plan(work_opts, req_opts, cost_opts, measured_calibrations(db) if calibrated else None)
    if report is not None:
        from gpuwise.report import write_report

        write_report(result, report)
    if as_json:
        _print_json(result.as_dict())
    else:
        from gpuwise.cli.render import plan_view

        plan_view(result, top)
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
    as_json: JsonOpt = False,
) -> None:
    """Buy versus rent, side by side, over N years."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.cost import CostParams, compare
    from gpuwise.files import read_yaml
    from gpuwise.workload import build_hardware

    cat = load_catalog()
    overrides = (read_yaml(costs).get("costs", read_yaml(costs)) if costs else {}) or {}
    params = CostParams.from_catalog(cat, overrides)
    rows = [compare(build_hardware(g, cat), years, params, busy).as_dict() for g in gpu]
    if as_json:
        _print_json(
            {"parameters": {k: getattr(params, k) for k in params.__dataclass_fields__}, "configurations": rows}
        )
        return
    from gpuwise.cli.render import tco_view

    tco_view(rows, params)


@app.command()
def bench(
    names: Annotated[
        list[str] | None, typer.Argument(help="matmul|membw|h2d|allreduce|io|step|latency|all, or accept")
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
    """Measure this machine: matmul FLOP/s, bandwidths, all-reduce, data loading, a training step, serving latency.

    Needs PyTorch (the `bench` extra). Results go to the store."""
    names = names or ["all"]
    if names[0] == "accept":
        from gpuwise.cli.bench_cmd import accept

        raise typer.Exit(accept(results, baseline, tolerance, db, as_json))
    from gpuwise.cli.bench_cmd import run_bench

    run_bench(names, quick, device, db if store else None, store, as_json)


@app.command()
def matrix(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Capability matrix from measured results, each cell beside gpuwise's estimate."""
    from gpuwise.bench.matrix import SCENARIOS, matrix_dict
    from gpuwise.bench.matrix import matrix as build
    from gpuwise.catalog import load_catalog
    from gpuwise.store import open_store

    with open_store(db) as s:
        rows = s.results(include_quick=True)
    m = build(rows, load_catalog())
    if as_json:
        _print_json(matrix_dict(m))
        return
    if not m:
        sys.stderr.write("no measurements in the store yet: run `gpuwise bench`\n")
        raise typer.Exit(1)
    from gpuwise.cli.render import matrix_view

    matrix_view(m, SCENARIOS)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8000,
) -> None:
    """The web UI and JSON API (FastAPI, the `web` extra); everything served locally."""
    if not 0 < port < 65536:
        raise UsageError(f"--port must be between 1 and 65535; got {port}")
    try:
        import uvicorn

        from gpuwise.web import create_app
    except ImportError as exc:
        raise UsageError(f"the web UI needs its extra: pip install 'gpuwise[web]' ({exc})") from None
    try:
        uvicorn.run(create_app(), host=host, port=port, log_level="info")
    except OSError as exc:  # address in use, cannot bind
        raise UsageError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None


def _register_more() -> None:
    """Command groups that live in their own modules (lazy inside each command)."""
    from gpuwise.cli import deploy_cmd, ops_cmd

    deploy_cmd.register(app)
    ops_cmd.register(app)


_register_more()


def main() -> None:
    """Entry point: domain errors print one line and exit 2 (usage) or 1 (requirement not met)."""
    try:
        result = app(standalone_mode=False)  # returns typer.Exit's code instead of raising it
    except GpuwiseError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        sys.exit(130)
    except Exception as exc:
        # click's usage errors (typer vendors its own click, so match by shape, not by class)
        if callable(getattr(exc, "show", None)) and isinstance(getattr(exc, "exit_code", None), int):
            exc.show()
            sys.exit(exc.exit_code)
        raise
    sys.exit(result if isinstance(result, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
