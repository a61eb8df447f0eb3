"""Option values that need no conversion skip typer's per-option pydantic adapter.

typer 0.29 passes every option's value, given or not, through a pydantic TypeAdapter that it builds
for that option on first use (about 1 ms each; `estimate` has 53 options) from a module that costs
about 40 ms to import. For an option left out (None), or a value that already has the option's plain
type (text for a `str` option, an `int` default), that adapter returns the value unchanged. So each
option gets a coercion that returns those directly and hands anything else (a path, a number typed
as text, a list) to typer's own, built only then. The schema-generated options of `estimate` and
`plan` take text (see `cli.app._option`): gpuwise.workload.schema converts and bounds them.
Before typer 0.29 click's types convert values cheaply and nothing is installed.
"""

from __future__ import annotations

from typing import Any

_PLAIN = (str, int, float, bool)


class DirectCoercion:
    """typer's RuntimeParam contract (`coerce`) for one option, pydantic only when a value needs it."""

    __slots__ = ("_full",)

    def __init__(self) -> None:
        self._full: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """The value as typer's adapter would return it; the adapter itself only for a real conversion."""
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        desc = param.type_descriptor
        plain = type(value) in _PLAIN and type(value) is desc.annotation
        if plain and desc.parameter_info.parser is None and not desc.is_ranged:
            return value
        if self._full is None:
            from typer._coercion import build_runtime_param

            self._full = build_runtime_param(desc)
        return self._full.coerce(value, param=param, ctx=ctx)


def _give(param: Any) -> None:
    if getattr(param, "_runtime_param", False) is None and hasattr(param, "type_descriptor"):
        param._runtime_param = DirectCoercion()


def install(command: Any) -> None:
    """Give every typer option of `command` and its sub-commands a DirectCoercion (typer 0.29 and later)."""
    for param in getattr(command, "params", ()):
        _give(param)
    for sub in getattr(command, "commands", {}).values():
        install(sub)


def cover_help(command: Any, ctx: Any) -> None:
    """The same for `command`'s --help option, which click makes (and keeps) when it first parses.

    `ctx` is the command's own context or its parent's: a command without its own help names in
    `context_settings` inherits its parent's, so both make the same option."""
    if "help_option_names" in (getattr(command, "context_settings", None) or {}):
        return
    get = getattr(command, "get_help_option", None)
    if callable(get):
        option = get(ctx)
        if option is not None:
            _give(option)


__all__ = ["DirectCoercion", "cover_help", "install"]
