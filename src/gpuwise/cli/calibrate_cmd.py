"""`gpuwise calibrate import|list`: the team's own measurements into the store.

A thin adapter: it reads the file (bytes, hashed), hands the text to the pure parsers
(gpuwise.calibration), settles model and GPU against the catalog, and stores the result in one
transaction. `register(app)` adds the group; SQLAlchemy and rich load inside the commands.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise.cli.ops_cmd import DbOpt, JsonOpt, _errors, _store
from gpuwise.cli.output import print_json
from gpuwise.errors import ConfigError, UsageError, shorten
from gpuwise.terminal import shown

MAX_IMPORT_BYTES = 64 * 2**20  # a detailed vLLM result (every request's tokens) runs to tens of MiB

calibrate_app = typer.Typer(
    name="calibrate",
    help="The team's own measurements (vLLM benchmark, nccl-tests, training logs, memory dumps) for --calibrated.",
    no_args_is_help=True,
    add_completion=False,
)


@calibrate_app.command("import")
def import_(
    file: Annotated[str, typer.Argument(help="The file the tool wrote (its stdout for nccl-tests).", metavar="FILE")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="vllm-bench | nccl-tests | torchtitan-log | megatron-log | torch-memory",
            metavar="FORMAT",
        ),
    ],
    model: Annotated[
        str | None, typer.Option("--model", help="Catalog model id, where the file does not name it.")
    ] = None,
    gpu: Annotated[
        str | None, typer.Option("--gpu", help="GPU id and count (e.g. h100-sxm:8), where the file does not say.")
    ] = None,
    shape: Annotated[
        list[str] | None,
        typer.Option(
            "--shape",
            help="A workload option the file does not record, as KEY=VALUE in gpuwise's names "
            "(micro_batch=4, seq=2048, method=lora); repeatable.",
        ),
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Read a measurement file and store it (the same file twice is one measurement)."""
    with _errors():
        from gpuwise.calibration import check_format, parse
        from gpuwise.calibration.resolve import resolve, row
        from gpuwise.catalog import load_catalog
        from gpuwise.store.imported import save_file

        check_format(fmt)
        data, where = _read(file)
        text = _text(data, where)  # its errors name the file already
        try:
            parsed = parse(text, fmt)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        cat = load_catalog()
        extra = _shape_options(shape or [])
        resolved = [resolve(p, cat, model, gpu, extra) for p in parsed]
        digest = hashlib.sha256(data).hexdigest()
        with _store(db) as store:
            saved = save_file(store, digest, Path(file).name, [row(r) for r in resolved])
        _report(saved, digest, resolved, as_json)


def _read(file: str) -> tuple[bytes, str]:
    p = Path(file)
    where = shorten(str(p), 120)
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_IMPORT_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {where!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if len(data) > MAX_IMPORT_BYTES:
        raise ConfigError(f"{where}: larger than {MAX_IMPORT_BYTES // 2**20} MiB: not a measurement file gpuwise reads")
    return data, where


def _text(data: bytes, where: str) -> str:
    from gpuwise.files import decode_text

    return decode_text(data, where, "measurement file", MAX_IMPORT_BYTES)


def _shape_options(pairs: list[str]) -> dict[str, str]:
    """--shape KEY=VALUE pairs, checked against the workload's option names (did you mean)."""
    from gpuwise.errors import check_unknown
    from gpuwise.workload.schema import names

    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UsageError(f"--shape {shorten(pair)!r}: give KEY=VALUE, e.g. --shape micro_batch=4")
        out[key.strip().replace("-", "_")] = value.strip()
    check_unknown(out, names("workload") - {"model"}, "--shape workload")
    return out


def _report(saved: Any, digest: str, resolved: list[Any], as_json: bool) -> None:
    from gpuwise.calibration.describe import headline, shape_text

    if as_json:
        print_json({"ids": list(saved.ids), "new": saved.new, "sha256": digest})
        return
    out = sys.stdout
    if not saved.new:
        ids = ", ".join(f"#{i}" for i in saved.ids)
        out.write(f"already imported: the same file (sha256 {digest[:12]}) is measurement {ids}; nothing added\n")
        return
    for mid, r in zip(saved.ids, resolved, strict=True):
        p = r.parsed
        who = f"{r.model} on " if r.model else ""
        out.write(
            f"imported measurement #{mid} ({p.format}, sha256 {digest[:12]}): {who}{r.gpu_count} x {r.gpu}, "
            f"{shown(shape_text(p.kind, r.shape))}\n  {headline(p.kind, p.figures)}\n"
        )
        for note in r.notes:
            out.write(f"  note: {shown(note)}\n")


@calibrate_app.command("list")
def list_(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """The imported measurements, oldest first."""
    with _errors():
        from gpuwise.store.imported import load

        with _store(db) as store:
            found = load(store)
        if as_json:
            print_json([m.as_dict() for m in found])
            return
        if not found:
            sys.stderr.write("no imported measurements yet: gpuwise calibrate import FILE --format FORMAT\n")
            return
        _table(found)


def _table(found: list[Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from gpuwise.calibration.describe import headline, shape_text
    from gpuwise.cli.render import console

    t = Table(title="Imported measurements (used by --calibrated)", header_style="bold", show_edge=False)
    for col in ("id", "format", "model", "GPUs", "workload", "measured", "when", "sha256"):
        t.add_column(col)
    for m in found:
        cells = (
            f"#{m.id}",
            m.format,
            m.model or "—",
            f"{m.gpu_count} x {m.gpu_id}",
            shape_text(m.kind, m.shape),
            headline(m.kind, m.figures),
            (m.measured_at or m.imported_at.isoformat())[:10],
            m.sha256[:12],
        )
        t.add_row(*(Text(shown(c)) for c in cells))  # stored text is data: no markup, no escapes
    console.print(t)


def register(app: typer.Typer) -> None:
    app.add_typer(calibrate_app)


__all__ = ["calibrate_app", "register"]
