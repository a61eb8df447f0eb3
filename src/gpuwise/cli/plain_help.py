"""The top-level command group, its help printed as plain text.

typer renders help with rich by importing `typer.rich_utils`, which loads rich.markdown,
markdown-it, pygments and rich.traceback: about 45 ms, more than the rest of `gpuwise --help`
takes. A list of commands needs no panels, so the group prints click's plain help; each command's
own help (`gpuwise estimate --help`, options in panels) is still rendered by rich.

The group also gives its commands' options gpuwise.cli.coercion's direct coercion, so that parsing
them builds no pydantic adapter for values that need no conversion.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup

_SUMMARY_LIMIT = 200  # characters of a command's first help line, far more than any has


class PlainHelpGroup(TyperGroup):
    """TyperGroup whose own help skips rich (its commands keep their markup mode)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from gpuwise.cli.coercion import install

        install(self)  # every way of building the command (main, CliRunner) parses the same way

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from gpuwise.cli.coercion import cover_help

        cover_help(self, ctx)
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        name, cmd, rest = super().resolve_command(ctx, args)
        if cmd is not None:
            from gpuwise.cli.coercion import cover_help

            cover_help(cmd, ctx)
        return name, cmd, rest

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
