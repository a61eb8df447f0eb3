"""The files the scripts generate (docs/accuracy*.md, the catalog's fitted values, the README's
accuracy block): each script writes them, or with `--check`, as the test suite runs it, compares and
names those out of date. One home for that, so every script answers `--check` alike."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # files are named relative to the repository


def write_or_check(texts: Mapping[Path, str], check: bool, command: str, also_stale: Iterable[str] = ()) -> int:
    """Write each file (saying so), or with `check` write nothing and exit 1 naming the files whose
    text differs (and `also_stale`, what the caller found out of date) with the command that fixes it."""
    if check:
        stale = [p.name for p, t in texts.items() if not p.exists() or p.read_text(encoding="utf-8") != t]
        stale += also_stale
        if stale:
            print(f"{', '.join(stale)} out of date: run {command}", file=sys.stderr)
            return 1
        return 0
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


def held_out_yaml(header: Iterable[str], held: Mapping[str, float]) -> str:
    """A fit's per-case out-of-sample errors as the YAML the accuracy scripts read: the comment
    `header` lines, then `held_out:` with each case's error rounded to 5 places."""
    lines = [*header, "held_out:", *(f"  {cid}: {round(e, 5)}" for cid, e in held.items())]
    return "\n".join(lines) + "\n"
