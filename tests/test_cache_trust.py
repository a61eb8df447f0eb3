"""The cache holds pickles, and unpickling runs code: a cache file or folder that someone else owns
or can write is never read (the value is rebuilt instead), and `--debug` says why."""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gpuwise import cache

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="file ownership is POSIX")


class _Touch:
    """Unpickled, it creates `path`: what a planted cache file could do."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return (Path.touch, (self.path,))


def _plant(folder: Path, marker: Path, file_mode: int, folder_mode: int = 0o700) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "value.pickle"
    path.write_bytes(b"key\n" + pickle.dumps(_Touch(marker)))
    path.chmod(file_mode)
    folder.chmod(folder_mode)
    return path


def _cached(path: Path) -> str:
    return cache.cached(path, lambda: "key", lambda: "rebuilt", lambda v: True)


def test_a_cache_that_others_can_write_is_rebuilt_not_unpickled(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    marker = tmp_path / "ran"
    for n, (file_mode, folder_mode) in enumerate(((0o666, 0o700), (0o620, 0o700), (0o600, 0o777), (0o600, 0o770))):
        path = _plant(tmp_path / f"c{n}", marker, file_mode, folder_mode)
        assert _cached(path) == "rebuilt" and not marker.exists(), (oct(file_mode), oct(folder_mode))
    trusted = _plant(tmp_path / "mine", marker, 0o600)  # the control: the user's own file is read
    assert cache.read(trusted, "key") is None and marker.exists()  # (Path.touch returns None)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
def test_a_cache_file_or_folder_owned_by_someone_else_is_not_read(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    marker = tmp_path / "ran"
    path = _plant(tmp_path / "theirs", marker, 0o644, 0o755)
    os.chown(path, 65534, 65534)  # nobody
    assert _cached(path) == "rebuilt" and not marker.exists()
    path = _plant(tmp_path / "their-folder", marker, 0o644, 0o755)
    os.chown(path.parent, 65534, 65534)
    assert _cached(path) == "rebuilt" and not marker.exists()


def test_the_cache_folder_is_made_private_and_debug_says_why_a_cache_is_refused(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop(cache.NO_CACHE_ENV, None)
    env.pop("GPUWISE_DEBUG", None)
    gpus = [sys.executable, "-m", "gpuwise.cli.app", "gpus", "--json"]
    first = subprocess.run(gpus, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "gpuwise"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and (folder / "catalog.pickle").is_file()
    (folder / "catalog.pickle").chmod(0o666)
    quiet = subprocess.run(gpus, env=env, capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert stat.S_IMODE((folder / "catalog.pickle").stat().st_mode) == 0o600  # rebuilt: a file of the user's own
    (folder / "catalog.pickle").chmod(0o666)
    told = subprocess.run([*gpus, "--debug"], env=env, capture_output=True, text=True, timeout=120)
    assert told.returncode == 0, told.stderr
    assert f"not reading the cache {folder / 'catalog.pickle'}" in told.stderr and "writable by others" in told.stderr
