"""Start-up: what a fresh `gpuwise` process imports, and the catalog cache that keeps it small.

These tests check imports (deterministic), not seconds; scripts/bench_cli.py measures the time.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from gpuwise.cli.plain_help import PlainHelpGroup

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


@pytest.mark.parametrize(
    ("args", "absent"),
    [
        # the list of commands: no rich help renderer, no schema, no catalog, no pydantic model
        (
            ["--help"],
            {"typer.rich_utils", "rich.markdown", "pydantic.main", "gpuwise.catalog", "gpuwise.workload.schema"},
        ),
        # the values are validated by the schema's pydantic models; no I/O library, no rich for JSON
        (
            ["estimate", "--model", "llama-2-7b", "--gpu", "a10", "--micro-batch", "2", "--json"],
            {"rich.console", "sqlalchemy", "torch", "fastapi", "typer._adapters"},
        ),
        (
            ["estimate", "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm:1", "--method", "lora"],
            {"sqlalchemy", "torch", "fastapi", "typer._adapters", "typer.rich_utils"},
        ),
        (
            ["plan", "-f", str(EXAMPLES / "chat-7b-serving.yaml"), "--json"],
            {"rich.console", "sqlalchemy", "torch", "fastapi", "typer._adapters"},
        ),
        # an ops command builds neither the schema's models nor the other commands' options
        (["fleet", "--help"], {"pydantic.main", "gpuwise.workload.schema", "sqlalchemy", "torch"}),
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
    """main builds only the command (or group) it runs; that group prints what the whole group prints."""
    from gpuwise.cli import app as cli

    args = ["estimate", "--model", "llama-2-7b", "--gpu", "a10", "--task", "inference", "--json"]
    assert list(cli._command_for(args).commands) == ["estimate"]
    assert list(cli._command_for(["fleet", "list"]).commands) == ["fleet"]
    assert {"estimate", "plan", "fleet"} <= set(cli._command_for(["--help"]).commands)
    outs = []
    for command in (cli._command_for(args), typer.main.get_command(cli.app)):
        with contextlib.suppress(typer.Exit):  # exit 1 when a target is missed: the output still counts
            command.main(args=args, prog_name="gpuwise", standalone_mode=False)
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and json.loads(outs[0])["hardware"]["gpu"] == "a10"


def test_the_list_of_commands_leaves_the_schemas_options_out():
    """`gpuwise --help` lists `estimate` and `plan` by name and help only; running one (or typer's
    own whole group, as CliRunner builds it) gives it every option of the schema."""
    from gpuwise.cli import app as cli

    def options(group: typer.core.TyperGroup, name: str) -> set[str]:
        return {o for p in group.commands[name].params for o in p.opts}

    listed = cli._command_for(["--help"])
    assert "--micro-batch" not in options(listed, "estimate") and "--budget" not in options(listed, "plan")
    assert listed.commands["estimate"].help == cli.estimate.__doc__
    assert {"--micro-batch", "--gpu", "--qps", "--file"} <= options(cli._command_for(["estimate"]), "estimate")
    assert {"--micro-batch", "--budget", "--file"} <= options(typer.main.get_command(cli.app), "plan")


def _cold_then_warm(probe: str, cache_home: Path) -> list[Any]:
    """What `probe` prints as JSON on a cold start (an empty cache at `cache_home`), then a warm one."""
    env = {"XDG_CACHE_HOME": str(cache_home), "PATH": "/usr/bin:/bin"}
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env, check=False
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout))
    return runs


CATALOG_PROBE = """
import json, sys
from gpuwise.catalog import load_catalog
cat = load_catalog()
sys.stdout.write(json.dumps({"gpus": len(cat.gpus), "pydantic.main": "pydantic.main" in sys.modules}))
"""


def test_a_warm_catalog_load_imports_no_pydantic_model(tmp_path):
    """The cached catalog unpickles into frozen dataclasses (gpuwise.catalog.schema): pydantic
    validates the YAML, which the cold start does once, and a warm start builds no validator."""
    runs = _cold_then_warm(CATALOG_PROBE, tmp_path)
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
    runs = _cold_then_warm(WARM_KEY_PROBE, tmp_path)
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
