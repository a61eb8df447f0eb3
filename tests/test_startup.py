"""Start-up: what a fresh `gpuwise` process imports, and the caches that keep it small.

These tests check imports (deterministic), not seconds; scripts/bench_cli.py measures the time.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from gpuwise.cli import options
from gpuwise.cli.plain_help import PlainHelpGroup
from gpuwise.workload import schema, table

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

PROBE = """
import json, sys
sys.argv = ["gpuwise", *json.loads(sys.argv[1])]
from gpuwise.cli.app import main
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 0
sys.__stdout__.write(f"\\nEXIT {code} MODULES " + json.dumps(sorted(sys.modules)))
"""


def modules_after(args: list[str], cache_home) -> set[str]:
    """The modules a fresh interpreter holds after running `gpuwise ARGS` (cache in `cache_home`) to an
    answer: exit 0 or 1 (not met), so that a usage error cannot pass by loading nothing."""
    env = {"XDG_CACHE_HOME": str(cache_home), "PATH": "/usr/bin:/bin", "COLUMNS": "100"}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, timeout=120, env=env
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    code, modules = proc.stdout.rsplit("\nEXIT ", 1)[1].split(" MODULES ", 1)
    assert code in ("0", "1"), (args, code, proc.stderr[-2000:])
    return set(json.loads(modules))


def test_cached_field_table_equals_the_schema(tmp_path, monkeypatch):
    """The CLI's options and the light validator read one cached table; it equals the live schema."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GPUWISE_NO_CACHE", raising=False)
    table._table.cache_clear()
    try:
        for section in schema.SECTIONS:
            assert options.fields(section) == schema.fields(section)
        assert (tmp_path / "gpuwise" / "workload-fields.pickle").is_file()
        table._table.cache_clear()  # a second read comes from the file, equal again
        for section in schema.SECTIONS:
            assert options.fields(section) == schema.fields(section)
            assert [f.flag for f in options.fields(section)] == [f.flag for f in schema.fields(section)]
    finally:
        table._table.cache_clear()


@pytest.mark.parametrize(
    ("args", "absent"),
    [
        (
            ["--help"],
            {"typer.rich_utils", "rich.markdown", "pydantic.main", "gpuwise.catalog", "gpuwise.workload.schema"},
        ),
        (
            ["estimate", "--model", "llama-2-7b", "--gpu", "a10", "--micro-batch", "2", "--json"],
            {"rich.console", "sqlalchemy", "torch", "typer._adapters", "pydantic.main", "gpuwise.workload.schema"},
        ),
        # issue 11's start-up case: neither the catalog's nor the workload's pydantic models are built
        (
            ["estimate", "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm:1", "--method", "lora"],
            {"pydantic.main", "gpuwise.workload.schema", "typer._adapters", "torch"},
        ),
        (
            ["plan", "-f", str(EXAMPLES / "chat-7b-serving.yaml"), "--json"],
            {"typer._adapters", "torch", "pydantic.main", "gpuwise.workload.schema"},
        ),
    ],
)
def test_a_warm_start_leaves_heavy_modules_unloaded(tmp_path, args, absent):
    modules_after(args, tmp_path)  # fills the caches
    loaded = modules_after(args, tmp_path)
    assert not absent & loaded, sorted(absent & loaded)


def _received(group_cls: type, args: list[str]) -> dict:
    """What a command's function receives for `args` when its group is `group_cls`."""
    seen: dict = {}
    app = typer.Typer(cls=group_cls, add_completion=False)

    @app.command()
    def one(
        name: Annotated[str | None, typer.Option()] = None,
        count: Annotated[int, typer.Option()] = 3,
        ratio: Annotated[float | None, typer.Option()] = None,
        path: Annotated[Path | None, typer.Option()] = None,
        many: Annotated[list[str] | None, typer.Option()] = None,
        flag: Annotated[bool, typer.Option("--flag/--no-flag")] = False,
    ) -> None:
        seen.update(name=name, count=count, ratio=ratio, path=path, many=many, flag=flag)

    @app.command()
    def two() -> None:  # a second command keeps `app` a group
        pass

    result = CliRunner().invoke(app, ["one", *args])
    return {"exit": result.exit_code, **seen}


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--name", "x", "--count", "5", "--ratio", "0.5", "--path", "a/b.yaml", "--many", "p", "--many", "q", "--flag"],
        ["--count", "many"],  # typer's own error for a bad number
    ],
)
def test_direct_coercion_gives_what_typer_gives(args):
    """The plain-help group's shortcut (gpuwise.cli.coercion) changes no value, type or error."""
    direct, typers = _received(PlainHelpGroup, args), _received(TyperGroup, args)
    assert direct == typers
    assert [type(v) for v in direct.values()] == [type(v) for v in typers.values()]
    if args and args[-1] == "--flag":
        assert direct["count"] == 5 and direct["path"] == Path("a/b.yaml") and direct["many"] == ["p", "q"]
    if args[:2] == ["--count", "many"]:
        assert direct["exit"] == 2


def test_a_plain_command_runs_in_a_group_of_its_own(capsys):
    """main builds only the command it runs; that group prints what the whole group prints."""
    from gpuwise.cli import app as cli

    args = ["estimate", "--model", "llama-2-7b", "--gpu", "a10", "--task", "inference", "--json"]
    assert list(cli._command_for(args).commands) == ["estimate"]
    assert {"estimate", "plan", "fleet", "deploy"} <= set(cli._command_for(["fleet", "list"]).commands)
    assert {"estimate", "plan", "fleet"} <= set(cli._command_for(["--help"]).commands)
    outs = []
    for command in (cli._command_for(args), typer.main.get_command(cli.app)):
        with contextlib.suppress(typer.Exit):  # exit 1 when a target is missed: the output still counts
            command.main(args=args, prog_name="gpuwise", standalone_mode=False)
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and json.loads(outs[0])["hardware"]["gpu"] == "a10"


CATALOG_PROBE = """
import json, sys
from gpuwise.catalog import load_catalog
cat = load_catalog()
sys.stdout.write(json.dumps({"gpus": len(cat.gpus), "pydantic.main": "pydantic.main" in sys.modules}))
"""


def test_a_warm_catalog_load_imports_no_pydantic_model(tmp_path):
    """The cached catalog unpickles into plain records (gpuwise.catalog.record): pydantic's models
    are derived and imported only to validate the YAML, which the cold start does once."""
    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", CATALOG_PROBE], capture_output=True, text=True, timeout=120, env=env, check=False
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout))
    assert (tmp_path / "gpuwise" / "catalog.pickle").is_file()
    assert runs[0]["pydantic.main"]  # cold: the YAML was validated
    assert runs[1] == {"gpus": runs[0]["gpus"], "pydantic.main": False}


WARM_KEY_PROBE = """
import json, sys
from gpuwise.catalog import load_catalog
load_catalog()
sys.stdout.write(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core"))))
"""


def test_a_warm_catalog_key_reads_the_pydantic_version_without_importing_it(tmp_path):
    """The catalog's cache key covers pydantic's release through its version file: `import
    pydantic` for pydantic.VERSION cost every warm start ~15 ms (pydantic_core with it)."""
    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", WARM_KEY_PROBE], capture_output=True, text=True, timeout=120, env=env, check=False
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout))
    assert "pydantic" in runs[0]  # cold: the YAML was validated
    assert runs[1] == []


@pytest.mark.parametrize(("given", "kept"), [(None, "__all__"), ("", ""), ("logfire", "logfire")])
def test_main_turns_pydantic_plugins_off_unless_the_user_chose(capsys, monkeypatch, given, kept):
    """pydantic's plugin scan reads every installed distribution's entry points; gpuwise uses none."""
    import os

    from .conftest import run_main

    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", given or "")  # restored after the test, whatever main sets
    if given is None:
        monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS")
    code, out, _ = run_main(capsys, "--help")
    assert code == 0 and "estimate" in out
    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == kept
