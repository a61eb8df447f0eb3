"""Shell text for the batch scripts and task files gpuwise writes (Slurm, SkyPilot): every value
is quoted for the shell, comments are wrapped, and only gpuwise's own `ShellText` may refer to
shell variables. Values from a plan file (a model path, a script name, a job name) therefore
never become shell code. Pure.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gpuwise.deploy.common import Why

WIDTH = 110
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ShellText(str):
    """Text gpuwise writes itself whose `${VAR}` references the shell expands (a rendezvous host, a
    port per replica). Never built from plan data."""

    __slots__ = ()


def word(value: Any) -> str:
    """One shell word: quoted as data; `${VAR}` references in a `ShellText` stay expandable."""
    if isinstance(value, ShellText):
        parts = []
        pos = 0
        for m in _VAR.finditer(value):
            if m.start() > pos:
                parts.append(shlex.quote(value[pos : m.start()]))
            parts.append(f'"${{{m.group(1)}}}"')
            pos = m.end()
        if pos < len(value):
            parts.append(shlex.quote(value[pos:]))
        return "".join(parts) or "''"
    return shlex.quote(str(value))


def comment(text: str, indent: int = 0) -> list[str]:
    """`# ...` lines for `text`, wrapped; control characters (from plan data) become spaces."""
    pad = " " * indent
    clean = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    lines = textwrap.wrap(clean, WIDTH - indent - 2, break_long_words=False, break_on_hyphens=False) or [""]
    return [f"{pad}# {line}".rstrip() for line in lines]


def array(name: str, items: Iterable[Any], indent: int = 0) -> list[str]:
    """A bash array assignment, each item on its own line with its reason as a comment above it."""
    pad = " " * indent
    out = [f"{pad}{name}=("]
    for item in items:
        value, reason = (item.value, item.why) if isinstance(item, Why) else (item, None)
        if reason:
            out += comment(reason, indent + 2)
        out.append(f"{pad}  {word(value)}")
    out.append(f"{pad})")
    return out


def export(name: str, value: Any, reason: str | None = None) -> list[str]:
    """`export NAME=value` (the value quoted), its reason above it."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not an environment variable name: {name!r}")
    return [*(comment(reason) if reason else []), f"export {name}={word(value)}"]


@dataclass(frozen=True, slots=True)
class Rendered:
    """What `gpuwise deploy --target slurm|skypilot` writes: file texts, a line on each, notes."""

    target: str
    files: dict[str, str]
    why: dict[str, str]
    summary: dict[str, Any]
    notes: tuple[str, ...] = ()
    commands: tuple[str, ...] = field(default=())  # how to use the files, e.g. `sbatch train.sbatch`

    def as_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "summary": self.summary,
            "files": [{"file": f, "why": self.why.get(f, "")} for f in self.files],
            "notes": list(self.notes),
            "commands": list(self.commands),
        }
