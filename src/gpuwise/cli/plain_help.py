"""The top-level command group, its help printed as plain text.

typer renders help with rich by importing `typer.rich_utils`, which loads rich.markdown,
markdown-it, pygments and rich.traceback: about 45 ms, more than the rest of `gpuwise --help`
takes. A list of commands needs no panels, so the group prints click's plain help; each command's
own help (`gpuwise estimate --help`, options in panels) is still rendered by rich.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup

_SUMMARY_LIMIT = 200  # characters of a command's first help line, far more than any has


class PlainHelpGroup(TyperGroup):
    """TyperGroup whose own help skips rich (its commands keep their markup mode)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        super(TyperGroup, self).format_help(ctx, formatter)  # click's plain help, as with TYPER_USE_RICH=0

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Each command's whole summary line, wrapped (click would cut it at the terminal width)."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=_SUMMARY_LIMIT)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


__all__ = ["PlainHelpGroup"]
