"""Values derived from gpuwise's own files, kept across processes in the user cache directory.

Some start-up work costs more than the commands themselves: reading and validating the catalog
YAML. Its result is pickled to
$XDG_CACHE_HOME/gpuwise/NAME.pickle (~/.cache/gpuwise without XDG_CACHE_HOME) under a key: a
BLAKE2b digest of every source file it was built from and of the gpuwise and Python versions (and of
any library whose objects it holds). A different key, or any trouble reading the file, means the
value is built again and the file rewritten (atomically: a temporary file renamed over it);
trouble writing is ignored, the cache being only a saving. GPUWISE_NO_CACHE=1 turns it off.
Unpickling runs code, so a file or folder that another user owns or can write is never read (the
value is rebuilt; `--debug` says why), and the folder is made readable by its owner only.
Standard library only: the core uses it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import gpuwise

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

NO_CACHE_ENV = "GPUWISE_NO_CACHE"
DEBUG_ENV = "GPUWISE_DEBUG"
_T = TypeVar("_T")


def enabled() -> bool:
    """False when GPUWISE_NO_CACHE is set to anything but '' or '0'."""
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


def cache_file(name: str) -> Path:
    """Where the value called `name` is kept."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpuwise" / f"{name}.pickle"


def source_key(files: Iterable[tuple[str, Traversable]], *versions: str) -> str:
    """A 256-bit BLAKE2b digest over gpuwise's and Python's versions, `versions` (other libraries
    whose objects the value holds) and each (label, file)'s label, size and bytes, in the order given."""
    try:  # hashlib's own blake2b, without the OpenSSL bindings `import hashlib` loads (2 ms a start)
        from _blake2 import blake2b
    except ImportError:  # an interpreter without the builtin module
        from hashlib import blake2b

    h = blake2b(digest_size=32)
    h.update("; ".join([f"gpuwise {gpuwise.__version__}", f"python {sys.version}", *versions]).encode())
    h.update(f"; pickle {pickle.HIGHEST_PROTOCOL}\n".encode())
    for label, path in files:
        blob = path.read_bytes()
        h.update(f"{label} {len(blob)}\n".encode())
        h.update(blob)
    return h.hexdigest()


def python_files(folder: Traversable, label: str) -> list[tuple[str, Traversable]]:
    """The .py files of a package folder, sorted, labelled `label/NAME`."""
    return [(f"{label}/{p.name}", p) for p in sorted(folder.iterdir(), key=lambda p: p.name) if p.name.endswith(".py")]


def version_file(package: str) -> list[tuple[str, Path]]:
    """A library's version.py as a source (its bytes change with every release), found without
    importing the library: `import pydantic` for its VERSION would cost every warm start ~15 ms."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        return []
    return [(f"{package}/version.py", Path(spec.origin).parent / "version.py")]


def debugging() -> bool:
    """`--debug` on the command line or GPUWISE_DEBUG set (read from argv: a cache may be read
    before the command line is parsed, and the Python API has no command line to parse)."""
    return bool(os.environ.get(DEBUG_ENV)) or "--debug" in sys.argv[1:]


def _distrusted(path: Path, fh: Any) -> str | None:
    """Why the open cache file `fh` (at `path`) or its folder may hold someone else's pickle, or None."""
    if not hasattr(os, "getuid"):  # no POSIX owners (Windows): the user's profile folder is private
        return None
    me = os.getuid()
    for what, st in (("file", os.fstat(fh.fileno())), ("folder", os.stat(path.parent))):
        if st.st_uid != me:
            return f"the cache {what} belongs to user id {st.st_uid}, not to you ({me})"
        if st.st_mode & 0o022:
            return f"the cache {what} is writable by others than you (mode {st.st_mode & 0o777:o})"
    return None


def read(path: Path, key: str) -> Any | None:
    """The value stored under exactly `key`, or None (missing, stale, truncated, corrupt, unreadable,
    or a file someone else could have written)."""
    try:
        with path.open("rb") as fh:
            distrust = _distrusted(path, fh)
            if distrust is not None:
                if debugging():
                    sys.stderr.write(f"debug: not reading the cache {path}: {distrust}; rebuilding the value\n")
                return None
            if fh.readline().rstrip(b"\n") != key.encode():
                return None  # stale: not even unpickled, the classes it names may have changed
            return pickle.load(fh)  # the user's own file, in a folder only the user can write
    except Exception:
        return None


def write(path: Path, key: str, value: Any) -> None:
    """Store `value` under `key`: a temporary file renamed over `path`, so no reader sees half a file."""
    import tempfile

    tmp: str | None = None
    try:
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        path.parent.mkdir(mode=0o700, exist_ok=True)  # the user's own: `read` refuses a folder others can write
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(key.encode() + b"\n")
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        tmp = None
    except Exception:  # read-only home, full disk, an unpicklable value: only the saving is lost
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def cached(path: Path, key: Callable[[], str], build: Callable[[], _T], valid: Callable[[Any], bool]) -> _T:
    """The value in `path` when its key matches and `valid` accepts it; else `build()`, stored.

    Errors from `build` propagate (a broken data file is reported as without the cache)."""
    if not enabled():
        return build()
    try:
        k = key()
    except OSError:  # a source file vanished or is unreadable: build (and let build report it)
        return build()
    value = read(path, k)
    if value is not None and valid(value):
        return value
    fresh = build()
    write(path, k, fresh)
    return fresh


__all__ = [
    "DEBUG_ENV",
    "NO_CACHE_ENV",
    "cache_file",
    "cached",
    "debugging",
    "enabled",
    "python_files",
    "read",
    "source_key",
    "version_file",
    "write",
]
