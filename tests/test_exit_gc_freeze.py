"""What `gc.freeze()` at exit (gpuwise.cli.entry.run) keeps and what it drops.

Frozen objects are never collected, so garbage in a reference cycle that is still uncollected at
exit is not finalized: no `__del__`, and a buffered file reachable only from it is never flushed.
A module's globals become such garbage when the module object dies before its dict is wiped (the
dict and its functions form a cycle): `__main__` does, so a file left open in a script's global
loses its buffer under `run`, where the plain `main` flushes it. atexit handlers, acyclic
finalizers and the standard streams are unaffected. gpuwise itself writes every file inside a
`with` block (or `write_text`), which the second test keeps true.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gpuwise"

SCRIPT = """
import atexit, sys
import gpuwise.cli.app as app

def fake_main():
    atexit.register(lambda: print("atexit ran"))
    fh = open(sys.argv[1], "w")
    fh.write("buffered")
    globals()["fh"] = fh  # left open, held by a global of __main__ (a dict in a cycle with fake_main)
    sys.exit(3)

app.main = fake_main
if sys.argv[2] == "run":
    from gpuwise.cli.entry import run

    run()
else:
    app.main()
"""


@pytest.mark.parametrize(("door", "flushed"), [("main", "buffered"), ("run", "")])
def test_a_file_left_open_in_uncollected_garbage_is_not_flushed_under_run(tmp_path, door, flushed):
    out = tmp_path / "out.txt"
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(out), door], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3 and proc.stdout == "atexit ran\n"  # exit code and atexit as usual
    assert out.read_text() == flushed


def _unmanaged_opens(tree: ast.AST) -> list[int]:
    """Lines of `open(...)` / `x.open(...)` / `os.fdopen(...)` calls that are not a `with` item."""
    managed = {id(item.context_expr) for node in ast.walk(tree) if isinstance(node, ast.With) for item in node.items}
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in managed:
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        is_os_open = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "os"
        if name == "fdopen" or (name == "open" and not is_os_open):  # os.open gives a bare fd, closed by hand
            lines.append(node.lineno)
    return lines


def test_gpuwise_leaves_no_file_object_to_finalization():
    found = {
        str(p.relative_to(SRC)): lines
        for p in sorted(SRC.rglob("*.py"))
        if (lines := _unmanaged_opens(ast.parse(p.read_text(encoding="utf-8"))))
    }
    assert found == {}


def test_the_guard_finds_an_unmanaged_open():
    code = "fh = open('x', 'w')\nwith open('y') as ok:\n    pass\nimport os\nfd = os.open('z', 0)\ng = p.open('w')\n"
    assert _unmanaged_opens(ast.parse(code)) == [1, 6]
