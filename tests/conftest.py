from __future__ import annotations

import importlib.util
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from corpus import HF_CONFIGS
from gpuwise.catalog import Catalog, load_catalog

if TYPE_CHECKING:
    from .slurm_cluster import SlurmCluster
from gpuwise.catalog.hf_import import load_hf_config

ROOT = Path(__file__).resolve().parent.parent
SETUP = "bash scripts/setup_dev.sh installs it"
# Tests that run a whole fitting script take minutes each (fit_serving.py and fit_operators.py about 3.5 on
# a CI-class core): collected first, so that under `--dist worksteal` the other workers share out the rest
# while they run, instead of waiting on them at the end (the suite took 16.5 min with them last, on 2 cores).
LONG_FIRST = ("tests/test_fits.py::test_fit_is_current_and_never_reads_the_holdout",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(LONG_FIRST))  # stable: the rest keep their order


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


def hf(name: str):
    """A real Hugging Face config.json from corpus/data/hf_configs."""
    return load_hf_config(HF_CONFIGS / f"{name}.json")


def chromium() -> str | None:
    """Debian's chromium for the browser tests: None skips them, except in CI, which must run them."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if os.environ.get("CI") and not found:
        raise RuntimeError("CI must run the browser tests: install Debian's chromium")
    return found


def run_process(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`gpuwise ARGS` in a fresh interpreter, as a user runs it; no traceback on either stream."""
    proc = subprocess.run(
        [sys.executable, "-m", "gpuwise.cli.app", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd
    )
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return proc


def load_script(name: str) -> ModuleType:
    """scripts/NAME.py imported as the module NAME (registered in sys.modules, as dataclasses need)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# CI explores the same examples every run (no flaky property tests); locally hypothesis varies them.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


# ----- a throw-away PostgreSQL server for the store tests ----------------------------------------
def missing(what: str) -> None:
    """A tool the tests need is absent: a failure in CI (a green run must have run everything),
    a skip that says how to install it elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing in CI ({SETUP})")
    pytest.skip(f"{what} is not installed ({SETUP})")


def _pg_bindir() -> Path | None:
    """Debian's newest /usr/lib/postgresql/N/bin, else the directory of an initdb on PATH."""
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if debian:
        return debian[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _ephemeral_low() -> int:
    """The lowest port the kernel hands out for outgoing connections (Linux: ip_local_port_range)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def free_port() -> int:
    """A TCP port free when asked, for a daemon that binds it a moment later. Below the kernel's
    ephemeral range where there is one: a port bind(0) returns is in that range, and there any process's
    outgoing connection may take it first (slurmctld exited 'Address already in use' in the fresh-clone
    CI twice on 2026-12-04, the other test worker's Slurm clients connecting meanwhile)."""
    low = _ephemeral_low()
    rng = random.SystemRandom()
    for _ in range(200 if low > 20000 else 0):
        port = rng.randrange(10000, low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg(bindir: Path, tool: str, *args: str, as_postgres: bool) -> subprocess.CompletedProcess[str]:
    """Run a server tool, as the `postgres` user when we are root (the server refuses root)."""
    cmd = [str(bindir / tool), *args]
    if as_postgres:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """GPUWISE_TEST_POSTGRES when set; else a server of our own: initdb into a temporary directory,
    started on a free loopback port (fsync off: nothing here needs to survive a crash), stopped at
    the end of the session."""
    if os.environ.get("GPUWISE_TEST_POSTGRES"):
        yield os.environ["GPUWISE_TEST_POSTGRES"]
        return
    bindir = _pg_bindir()
    if bindir is None:
        missing("PostgreSQL (initdb)")
    assert bindir is not None
    root = os.geteuid() == 0
    if root and subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
        missing("the postgres user (Debian's postgresql package creates it)")
    tmp = Path(tempfile.mkdtemp(prefix="gpuwise-pg-"))
    if root:
        shutil.chown(tmp, "postgres")
    data = tmp / "data"
    init = _pg(bindir, "initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync", as_postgres=root)
    if init.returncode:
        pytest.fail(f"initdb failed: {init.stderr.strip()}")
    port = 0
    for _ in range(3):  # a free port can be taken between asking and binding: try another
        port = free_port()
        opts = f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        log = str(tmp / "server.log")
        start = _pg(
            bindir, "pg_ctl", "-D", str(data), "-o", opts, "-l", log, "-w", "-t", "60", "start", as_postgres=root
        )
        if start.returncode == 0:
            break
    else:
        pytest.fail(f"PostgreSQL did not start: {(tmp / 'server.log').read_text()[-2000:]}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        _pg(bindir, "pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop", as_postgres=root)
        shutil.rmtree(tmp, ignore_errors=True)


def _empty_public_schema(url: str) -> None:
    import sqlalchemy

    engine = sqlalchemy.create_engine("postgresql+psycopg://" + url.split("://", 1)[1])
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP SCHEMA IF EXISTS public CASCADE")
            conn.exec_driver_sql("CREATE SCHEMA public")
            conn.exec_driver_sql("DROP SCHEMA IF EXISTS live CASCADE")
    finally:
        engine.dispose()


@pytest.fixture
def clean_postgres(postgres_url: str) -> Iterator[str]:
    """The test server's URL with an empty database, before and after the test: the tests share
    one server, and a test may leave a schema of any version (even one newer than the code)."""
    _empty_public_schema(postgres_url)
    yield postgres_url
    _empty_public_schema(postgres_url)


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    """The real entry point (gpuwise.cli.app:main) in process: exit code, stdout, stderr."""
    import sys

    from gpuwise.cli.app import main

    argv = sys.argv
    sys.argv = ["gpuwise", *args]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    finally:
        sys.argv = argv
    out = capsys.readouterr()
    return code, out.out, out.err


# ----- a throw-away Slurm cluster for the deploy tests (tests/slurm_cluster.py) -----------------
@pytest.fixture(scope="session")
def munge_socket() -> Iterator[str]:
    """munged with a generated key in a temporary directory: the socket Slurm authenticates with."""
    from .slurm_cluster import missing_tools, start_munge, stop_munge

    gone = missing_tools()
    if gone:
        missing(f"Slurm and munge ({', '.join(gone)}; Debian's slurm-wlm and munge)")
    if os.geteuid() != 0:
        pytest.skip("the throw-away Slurm runs its daemons as root (as CI does)")
    root = Path(tempfile.mkdtemp(prefix="gpuwise-munge-"))
    try:
        yield start_munge(root)
    finally:
        stop_munge(root)
        shutil.rmtree(root, ignore_errors=True)


def slurm_gres_types() -> list[str]:
    """The GRES type of every catalog GPU, as `gpuwise deploy --target slurm` writes it."""
    from gpuwise.deploy.slurm import gres_type

    return sorted({gres_type(g)[0] for g in load_catalog().gpus.values()})


SLURM_NODES = 4


@pytest.fixture(scope="session")
def slurm_cluster(munge_socket: str) -> Iterator[SlurmCluster]:
    """Four Slurm nodes on this machine (slurmctld and four slurmd: the README's training plan runs on
    up to four nodes of 8), with 8 GPUs of every catalog type each, until the end of the session."""
    from .slurm_cluster import SlurmCluster

    root = Path(tempfile.mkdtemp(prefix="gpuwise-slurm-"))
    names = [f"gpuwise-node{i}" for i in range(1, SLURM_NODES + 1)]
    ports = [free_port() for _ in range(len(names) + 1)]
    cluster = SlurmCluster(root, munge_socket, names, slurm_gres_types(), ports)
    try:
        cluster.start()
        cluster.wait_idle(cluster.nodes)
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


VIT_G = {  # a ViT config.json at ViT-g/14's shapes (Zhai et al. 2022: width 1,664, depth 48, MLP 8,192): 1.8B parameters
    "model_type": "vit",
    "hidden_size": 1664,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "intermediate_size": 8192,
    "image_size": 224,
    "patch_size": 14,
}
