"""`gpuwise describe FILE.py:Class --input-shape 3,224,224 [--json] [-o FILE.json]`: the per-operator
description of a PyTorch module of the user's own, which `estimate` and `plan` take as `--model FILE.json`.

The module is built and run on the meta device (nothing allocated); torch loads inside the command
(the `bench` extra). Loading FILE.py runs it, as `python FILE.py` would: it is the user's own code,
so it runs in a child process that is ended after `--timeout` seconds (a file that loops, or calls
`sys.exit`, ends the command cleanly with a message); what it prints goes to stderr.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpuwise.errors import UsageError

if TYPE_CHECKING:
    import subprocess

_DTYPES = ("fp32", "fp16", "bf16")
_INPUT_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32")
DEFAULT_TIMEOUT = 60.0  # seconds to import the file, build the class and trace it (ResNet-50: ~5 s with torch's import)
MAX_TIMEOUT = 86_400.0  # a day: anything longer is a typo


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


def describe_here(
    target: str, shape: tuple[int, ...], dtype: str, batch: int, input_dtype: str | None
) -> dict[str, Any]:
    """The describe document of the user's module, built in this process (`describe` runs it in a child)."""
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


def _child() -> None:
    """The child process: argv is the request (JSON) and the file the answer goes to: the document,
    the user error, or the traceback of a gpuwise bug."""
    import traceback

    from gpuwise.cli.output import to_json

    request, answer = json.loads(sys.argv[1]), Path(sys.argv[2])
    try:
        request["shape"] = tuple(request["shape"])
        out: dict[str, Any] = {"doc": describe_here(**request)}
    except UsageError as exc:
        out = {"error": str(exc)}
    except SystemExit as exc:  # the user's file called sys.exit while it was imported or run
        out = {"error": f"{request['target']} called sys.exit({exc.code!r}) before it was described"}
    except BaseException:
        out = {"bug": traceback.format_exc()}
    answer.write_text(to_json(out), encoding="utf-8")


def _stderr_fd() -> int | None:
    """Where the child's prints go: this process's stderr (None: inherit, when it has no descriptor)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child and anything it started (its own process group)."""
    import contextlib
    import signal

    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL) if hasattr(os, "killpg") else proc.kill()
    proc.wait()


def describe(
    target: str,
    shape: tuple[int, ...],
    dtype: str,
    batch: int,
    input_dtype: str | None,
    timeout: float = DEFAULT_TIMEOUT,
) -> dict[str, Any]:
    """The describe document of the user's module, built in a child process ended after `timeout` s."""
    import subprocess
    import tempfile

    import gpuwise

    request = {"target": target, "shape": list(shape), "dtype": dtype, "batch": batch, "input_dtype": input_dtype}
    src = str(Path(gpuwise.__file__).resolve().parent.parent)  # this gpuwise, installed or not
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    code = "from gpuwise.cli.describe_cmd import _child; _child()"
    path_text = target.rpartition(":")[0] or target
    with tempfile.TemporaryDirectory(prefix="gpuwise-describe-") as tmp:
        answer = Path(tmp) / "answer.json"
        fd = _stderr_fd()
        proc = subprocess.Popen(
            [sys.executable, "-c", code, json.dumps(request), str(answer)],
            stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, env=env, start_new_session=True,
        )  # fmt: skip
        try:
            proc.wait(timeout=timeout)
        except BaseException as exc:  # the time limit, or Ctrl-C (the child's own session never sees it)
            _end(proc)
            if not isinstance(exc, subprocess.TimeoutExpired):
                raise
            raise UsageError(
                f"{path_text}: timed out after {timeout:g} s (--timeout) importing it, building the class and "
                "tracing it; a file that loops never ends: fix it, or raise --timeout if it needs longer"
            ) from None
        if not answer.is_file():
            raise UsageError(
                f"{path_text} ended its process (exit code {proc.returncode}) before it was described: "
                "does it call os._exit or end the interpreter when imported?"
            )
        out = json.loads(answer.read_text(encoding="utf-8"))
    if "error" in out:
        raise UsageError(out["error"])
    if "bug" in out:
        raise RuntimeError(f"describe failed in its child process:\n{out['bug']}")
    return dict(out["doc"])


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
        target: Annotated[
            str,
            typer.Argument(help="FILE.py:ClassName of a torch.nn.Module built with no arguments (FILE.py is run)."),
        ],
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
        timeout: Annotated[
            float, typer.Option("--timeout", help="Seconds FILE.py gets to import, build and trace (then exit 2).")
        ] = DEFAULT_TIMEOUT,
    ) -> None:
        """Per-operator description of a PyTorch module (FLOPs, bytes, class, fusion), for estimate and plan.

        This runs FILE.py, importing it as `python FILE.py` would: describe only code you trust.
        It runs in a child process ended after --timeout seconds; what it prints goes to stderr."""
        from gpuwise.cli.bounds import bounded
        from gpuwise.cli.output import print_json, to_json

        if dtype not in _DTYPES:
            raise UsageError(f"--dtype must be one of {', '.join(_DTYPES)}; got {dtype!r}")
        if input_dtype is not None and input_dtype not in _INPUT_DTYPES:
            raise UsageError(f"--input-dtype must be one of {', '.join(_INPUT_DTYPES)}; got {input_dtype!r}")
        if not 1 <= batch <= 4096:
            raise UsageError(f"--batch must be 1..4096; got {batch}")
        bounded(timeout, "--timeout", 0.1, MAX_TIMEOUT)
        doc = describe(target, parse_shape(input_shape), dtype, batch, input_dtype, timeout)
        if output is not None:
            try:
                output.write_text(to_json(doc) + "\n", encoding="utf-8")
            except OSError as exc:
                raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
        if json_out:
            print_json(doc)
        elif output is None:
            _table(doc)
