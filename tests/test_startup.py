"""Start-up: what a fresh `gpuwise` process imports, and the caches that keep it small.

These tests check imports (deterministic), not seconds; scripts/bench_cli.py measures the time.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from gpuwise.cli import options
from gpuwise.workload import schema

PROBE = """
import json, sys
sys.argv = ["gpuwise", *json.loads(sys.argv[1])]
from gpuwise.cli.app import main
try:
    main()
except SystemExit:
    pass
sys.__stdout__.write("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def modules_after(args: list[str], cache_home) -> set[str]:
    """The modules a fresh interpreter holds after running `gpuwise ARGS` (cache in `cache_home`)."""
    env = {"XDG_CACHE_HOME": str(cache_home), "PATH": "/usr/bin:/bin", "COLUMNS": "100"}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True, timeout=120, env=env
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return set(json.loads(proc.stdout.rsplit("MODULES ", 1)[1]))


def test_cached_option_table_equals_the_schema(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("GPUWISE_NO_CACHE", raising=False)
    options._table.cache_clear()
    try:
        for section in schema.SECTIONS:
            live = [{**dataclasses.asdict(f), "flag": f.flag} for f in schema.fields(section)]
            assert [vars(f) for f in options.fields(section)] == live
        assert (tmp_path / "gpuwise" / "cli-options.pickle").is_file()
        options._table.cache_clear()  # a second read comes from the file, equal again
        assert [vars(f)["name"] for f in options.fields("workload")] == [f.name for f in schema.fields("workload")]
    finally:
        options._table.cache_clear()


@pytest.mark.parametrize(
    ("args", "absent"),
    [
        (
            ["--help"],
            {"typer.rich_utils", "rich.markdown", "pydantic.main", "gpuwise.catalog", "gpuwise.workload.schema"},
        ),
        (["estimate", "--model", "llama-2-7b", "--gpu", "a10", "--json"], {"rich.console", "sqlalchemy", "torch"}),
    ],
)
def test_a_warm_start_leaves_heavy_modules_unloaded(tmp_path, args, absent):
    modules_after(args, tmp_path)  # fills the caches
    loaded = modules_after(args, tmp_path)
    assert not absent & loaded, sorted(absent & loaded)
