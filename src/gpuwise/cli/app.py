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
def _workload_options(
    model: str | None,
    task: str | None,
    method: str | None,
    precision: str | None,
    weights_dtype: str | None,
    kv_dtype: str | None,
    optimizer: str | None,
    micro_batch: int | None,
    global_batch: int | None,
    seq: int | None,
    zero: int | None,
    tp: int | None,
    pp: int | None,
    recompute: str | None,
    attention: str | None,
    lora_rank: int | None,
    lora_targets: str | None,
    tokens: str | None,
    samples: str | None,
    input_tokens: int | None,
    output_tokens: int | None,
    concurrency: int | None,
    file: Path | None,
    master_weights: bool | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Flags override the YAML file, which overrides defaults."""
    opts: dict[str, Any] = {}
    if file is not None:
        from gpuwise.files import read_workload_file

        opts.update(read_workload_file(file))
    flags = dict(
        model=model,
        task=task,
        method=method,
        precision=precision,
        weights_dtype=weights_dtype,
        kv_dtype=kv_dtype,
        optimizer=optimizer,
        micro_batch=micro_batch,
        global_batch=global_batch,
        seq=seq,
        zero=zero,
        tp=tp,
        pp=pp,
        recompute=recompute,
        attention=attention,
        lora_rank=lora_rank,
        lora_targets=lora_targets,
        tokens=tokens,
        samples=samples,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        concurrency=concurrency,
        master_weights=master_weights,
        **extra,
    )
    opts.update({k: v for k, v in flags.items() if v is not None})
    return opts


@app.command()
def estimate(
    gpu: Annotated[str | None, typer.Option("--gpu", help="GPU id and total count, e.g. h100-sxm:8.")] = None,
    gpus_per_node: Annotated[
        int | None, typer.Option(help="GPUs per node (default: the usual node for that GPU).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="Catalog id or path to a Hugging Face config.json.")] = None,
    task: Annotated[str | None, typer.Option(help="pretrain|finetune|inference")] = None,
    method: Annotated[str | None, typer.Option(help="full|lora|qlora")] = None,
    precision: Annotated[str | None, typer.Option(help="fp32|tf32|fp16|bf16|fp8")] = None,
    weights_dtype: Annotated[str | None, typer.Option(help="fp32|fp16|bf16|fp8|int8|int4|nf4")] = None,
    kv_dtype: Annotated[str | None, typer.Option(help="fp32|fp16|bf16|fp8|int8")] = None,
    optimizer: Annotated[str | None, typer.Option(help="adamw|adamw-8bit|sgd|adafactor")] = None,
    master_weights: Annotated[
        bool | None,
        typer.Option("--master-weights/--no-master-weights", help="fp32 master copy (default) or pure 16-bit."),
    ] = None,
    micro_batch: Annotated[int | None, typer.Option(help="Samples per GPU per forward pass.")] = None,
    global_batch: Annotated[int | None, typer.Option(help="Samples per optimizer step, all GPUs.")] = None,
    seq: Annotated[int | None, typer.Option(help="Training sequence length (tokens).")] = None,
    zero: Annotated[int | None, typer.Option(help="ZeRO/FSDP stage 0-3.")] = None,
    tp: Annotated[int | None, typer.Option(help="Tensor-parallel degree.")] = None,
    pp: Annotated[int | None, typer.Option(help="Pipeline-parallel degree.")] = None,
    recompute: Annotated[str | None, typer.Option(help="none|selective|full")] = None,
    attention: Annotated[str | None, typer.Option(help="flash|eager")] = None,
    lora_rank: Annotated[int | None, typer.Option(help="LoRA rank r.")] = None,
    lora_targets: Annotated[str | None, typer.Option(help="Comma list (q_proj,v_proj) or all-linear.")] = None,
    tokens: Annotated[str | None, typer.Option(help="Training tokens in total, e.g. 2T, 300B.")] = None,
    samples: Annotated[str | None, typer.Option(help="Training samples in total, e.g. 1.2M.")] = None,
    input_tokens: Annotated[int | None, typer.Option(help="Prompt tokens per request.")] = None,
    output_tokens: Annotated[int | None, typer.Option(help="Generated tokens per request.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Requests served together (batch).")] = None,
    read_bandwidth: Annotated[
        str | None, typer.Option(help="Data pipeline: storage read per node, e.g. 2GB/s.")
    ] = None,
    sample_bytes: Annotated[str | None, typer.Option(help="Data pipeline: bytes per sample, e.g. 120KB.")] = None,
    decode_ms: Annotated[
        float | None, typer.Option(help="Data pipeline: CPU ms to decode one sample on one core.")
    ] = None,
    loader_cores: Annotated[int | None, typer.Option(help="Data pipeline: CPU cores loading data per node.")] = None,
    network: Annotated[
        str | None, typer.Option(help="Inter-node network: ib-hdr|ib-ndr|ib-xdr|roce-100g|roce-200g|roce-400g.")
    ] = None,
    qps: Annotated[float | None, typer.Option(help="Serving: requests per second to carry.")] = None,
    p95_ms: Annotated[float | None, typer.Option(help="Serving: P95 latency target in ms.")] = None,
    p99_ms: Annotated[float | None, typer.Option(help="Serving: P99 latency target in ms.")] = None,
    file: Annotated[Path | None, typer.Option("-f", "--file", help="Workload YAML (same names as the flags).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Memory (and, as estimators land, time and cost) of one workload on one GPU configuration."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate import estimate as run_estimate
    from gpuwise.workload import build_hardware, build_workload

    cat = load_catalog()
    opts = _workload_options(
        model,
        task,
        method,
        precision,
        weights_dtype,
        kv_dtype,
        optimizer,
        micro_batch,
        global_batch,
        seq,
        zero,
        tp,
        pp,
        recompute,
        attention,
        lora_rank,
        lora_targets,
        tokens,
        samples,
        input_tokens,
        output_tokens,
        concurrency,
        file,
        master_weights,
        read_bandwidth=read_bandwidth,
        sample_bytes=sample_bytes,
        decode_ms=decode_ms,
        loader_cores=loader_cores,
    )
    hw_opts = {k: opts.pop(k, None) for k in ("gpu", "gpus_per_node", "network", "qps", "p95_ms", "p99_ms")}
    hw_spec = gpu or hw_opts["gpu"]
    if not hw_spec:
        raise UsageError("give the hardware with --gpu ID[:N], e.g. --gpu a100-80gb-sxm:8")
    work = build_workload(opts, cat)
    hw = build_hardware(str(hw_spec), cat, gpus_per_node or hw_opts["gpus_per_node"], network or hw_opts["network"])
    target = _latency_target(qps or hw_opts["qps"], p95_ms or hw_opts["p95_ms"], p99_ms or hw_opts["p99_ms"])
    est = run_estimate(work, hw, cat, target=target)
    if as_json:
        _print_json(est.as_dict())
    else:
        from gpuwise.cli.render import estimate_view

        estimate_view(est.as_dict())
    if not est.memory.fits or (est.serving is not None and not est.serving.meets):
        raise typer.Exit(1)


def _latency_target(qps: float | None, p95: float | None, p99: float | None) -> Any:
    """--qps with --p95-ms or --p99-ms (not both) -> a LatencyTarget; nothing -> None."""
    from gpuwise.estimate.report import LatencyTarget

    if qps is None and p95 is None and p99 is None:
        return None
    if qps is None or (p95 is None) == (p99 is None):
        raise UsageError("a serving target needs --qps and one of --p95-ms or --p99-ms")
    return LatencyTarget(
        qps=float(qps),
        percentile=95.0 if p95 is not None else 99.0,
        seconds=float(p95 if p95 is not None else p99) / 1e3,
    )


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
