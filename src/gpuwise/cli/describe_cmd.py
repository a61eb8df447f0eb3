"""`gpuwise describe FILE.py:Class --input-shape 3,224,224 [--json] [-o FILE.json]`: the per-operator
description of a PyTorch module of the user's own, which `estimate` and `plan` take as `--model FILE.json`.

The module is built and run on the meta device (nothing allocated); torch loads inside the command
(the `bench` extra). Loading FILE.py runs it, as `python FILE.py` would: it is the user's own code.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise.errors import UsageError

_DTYPES = ("fp32", "fp16", "bf16")
_INPUT_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32")


def parse_shape(text: str) -> tuple[int, ...]:
    """'3,224,224' -> (3, 224, 224): positive whole numbers, the batch left out."""
    try:
        dims = tuple(int(d) for d in text.replace("x", ",").split(",") if d.strip())
    except ValueError:
        raise UsageError(f"--input-shape takes whole numbers separated by commas (3,224,224); got {text!r}") from None
    if not dims or any(d < 1 or d > 1 << 24 for d in dims) or len(dims) > 8:
        raise UsageError(f"--input-shape needs 1-8 dimensions, each 1..16777216; got {text!r}")
    return dims


def load_class(target: str) -> tuple[Any, str]:
    """The class `Name` of FILE.py in 'FILE.py:Name', and its name."""
    path_text, sep, name = target.rpartition(":")
    if not sep or not name.isidentifier() or not path_text.endswith(".py"):
        raise UsageError(f"describe takes FILE.py:ClassName (e.g. mynet.py:MyNet); got {target!r}")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"{path_text}: no such file")
    spec = importlib.util.spec_from_file_location(f"gpuwise_user_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise UsageError(f"{path_text}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))  # the user's own imports next to the file
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's file failed to import: say so, no traceback
        raise UsageError(f"{path_text} failed to import: {type(exc).__name__}: {exc}") from None
    finally:
        sys.path.pop(0)
    cls = getattr(module, name, None)
    if cls is None:
        found = sorted(k for k, v in vars(module).items() if isinstance(v, type) and not k.startswith("_"))
        raise UsageError(f"{path_text} has no {name!r}; classes there: {', '.join(found) or 'none'}")
    return cls, name


def describe(target: str, shape: tuple[int, ...], dtype: str, batch: int, input_dtype: str | None) -> dict[str, Any]:
    """The describe document of the user's module (compute here, render apart)."""
    from gpuwise.bench.describe import _torch, describe_operators

    torch = _torch()
    cls, name = load_class(target)
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
        raise UsageError(f"{target}: {name} is not a torch.nn.Module subclass")
    try:
        return describe_operators(cls, shape, name=name, dtype=dtype, batch=batch, input_dtype=input_dtype)
    except UsageError:
        raise
    except Exception as exc:  # the module does not build without arguments or its forward fails on meta
        raise UsageError(
            f"{name} could not be built with no arguments and run on a {batch} x {shape} input on the meta "
            f"device: {type(exc).__name__}: {str(exc)[:300]}"
        ) from None


def _table(doc: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    totals: dict[str, list[float]] = {}
    for op in doc["operators"]:
        t = totals.setdefault(op["class"], [0, 0.0, 0.0, 0])
        t[0] += 1
        t[1] += op["flops"]
        t[2] += op["bytes_read"] + op["bytes_written"]
        t[3] += op["fused_into"] is not None
    table = Table(title=f"{doc['name']}: {len(doc['operators'])} operators at batch {doc['batch']} ({doc['dtype']})")
    for col in ("class", "operators", "GFLOP", "MB moved", "fused into conv/GEMM"):
        table.add_column(col, justify="left" if col == "class" else "right")
    for cls, (n, flops, moved, fused) in sorted(totals.items(), key=lambda kv: -kv[1][1]):
        table.add_row(cls, f"{n:d}", f"{flops / 1e9:,.3f}", f"{moved / 1e6:,.2f}", f"{fused:d}")
    console = Console(highlight=False)
    console.print(table)
    console.print(f"parameters {doc['params']:,d} · forward {doc['flops_per_sample'] / 1e9:,.3f} GFLOP per sample")
    console.print("write it with --json -o FILE.json; then: gpuwise estimate --model FILE.json ...")


def register(app: typer.Typer) -> None:
    @app.command("describe")
    def describe_cmd(
        target: Annotated[str, typer.Argument(help="FILE.py:ClassName of a torch.nn.Module built with no arguments.")],
        input_shape: Annotated[str, typer.Option("--input-shape", help="One sample's input, e.g. 3,224,224.")],
        json_out: Annotated[bool, typer.Option("--json", help="Print the JSON document.")] = False,
        output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the JSON document here.")] = None,
        dtype: Annotated[
            str, typer.Option("--dtype", help="Dtype of weights and activations: fp32|fp16|bf16.")
        ] = "bf16",
        batch: Annotated[int, typer.Option("--batch", help="Batch the module is traced at (1-4096).")] = 2,
        input_dtype: Annotated[
            str | None, typer.Option("--input-dtype", help="Input tensor dtype (int64 for ids).")
        ] = None,
    ) -> None:
        """Per-operator description of a PyTorch module (FLOPs, bytes, class, fusion), for estimate and plan."""
        from gpuwise.cli.output import print_json, to_json

        if dtype not in _DTYPES:
            raise UsageError(f"--dtype must be one of {', '.join(_DTYPES)}; got {dtype!r}")
        if input_dtype is not None and input_dtype not in _INPUT_DTYPES:
            raise UsageError(f"--input-dtype must be one of {', '.join(_INPUT_DTYPES)}; got {input_dtype!r}")
        if not 1 <= batch <= 4096:
            raise UsageError(f"--batch must be 1..4096; got {batch}")
        doc = describe(target, parse_shape(input_shape), dtype, batch, input_dtype)
        if output is not None:
            try:
                output.write_text(to_json(doc) + "\n", encoding="utf-8")
            except OSError as exc:
                raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
        if json_out:
            print_json(doc)
        elif output is None:
            _table(doc)
