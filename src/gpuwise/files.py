"""Reading user files (workload/requirement YAML, JSON). An edge adapter: the core never reads files.

A user file is untrusted: it is read with limits on size, nesting depth and alias expansion, as
UTF-8 only, so that a malformed or hostile file is a clear error, never a hang or a traceback.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml

from gpuwise.errors import ConfigError, UsageError

MAX_FILE_BYTES = 4 * 2**20  # far beyond any workload, plan, price or replay file
MAX_DEPTH = 64  # nesting levels of mappings and lists
# scalars and collections that aliases add when expanded (a 397-byte bomb adds 10^9); what is written
# out in the file is not counted: MAX_FILE_BYTES bounds it (a 12,000-offer price export holds 300,000)
MAX_ALIAS_NODES = 200_000


def require_file(path: Path, what: str) -> None:
    """A usage error naming `what` when nothing is at `path`; a name the file system refuses (too
    long) passes, for the read to say so."""
    try:
        missing = not path.exists()
    except OSError:
        missing = False
    if missing:
        raise UsageError(f"no {what} at {str(path)[:200]!r}")


def read_text(path: str | Path, what: str = "file") -> str:
    """The text of a user file: at most MAX_FILE_BYTES, UTF-8."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(f"cannot read {str(p)[:200]!r}: {reason}") from None
    return decode_text(data, str(p), what)


def decode_text(data: bytes, where: str, what: str = "file", limit: int = MAX_FILE_BYTES) -> str:
    """Untrusted bytes (a file, an upload) as text: at most `limit` bytes, UTF-8."""
    if len(data) > limit:
        raise ConfigError(f"{where}: the {what} is larger than {limit // 2**20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 text (byte {exc.start}); save the {what} as UTF-8") from None


def _check_shape(text: str, where: str) -> None:
    """Depth and what aliases add when expanded, from the event stream, before anything is built (no
    recursion). Each alias adds its anchor's expanded size; their sum is the whole growth."""
    sizes: list[int] = []  # expanded node count of each open collection
    anchors: dict[str, int] = {}
    open_anchors: list[str | None] = []
    added = 0  # nodes the aliases so far add
    for event in yaml.parse(text, Loader=_loader()):
        if isinstance(event, yaml.CollectionStartEvent):
            sizes.append(1)
            open_anchors.append(event.anchor)
            if len(sizes) > MAX_DEPTH:
                raise ConfigError(f"{where}: nested more than {MAX_DEPTH} levels deep")
            continue
        if isinstance(event, yaml.CollectionEndEvent):
            size, anchor = sizes.pop(), open_anchors.pop()
        elif isinstance(event, yaml.ScalarEvent):
            size, anchor = 1, event.anchor
        elif isinstance(event, yaml.AliasEvent):
            size, anchor = anchors.get(event.anchor or "", 1), None
            added += size
            if added > MAX_ALIAS_NODES:
                raise ConfigError(
                    f"{where}: its aliases expand to more than {MAX_ALIAS_NODES:,} values (aliases repeated too often)"
                )
        else:
            continue
        if anchor:
            anchors[anchor] = size
        if sizes:
            sizes[-1] += size


def _loader() -> Any:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str, where: str) -> Any:
    """A YAML document from untrusted text: shape-checked, then loaded safely."""
    return _guarded_yaml(lambda: yaml.load(text, Loader=_loader()), text, where)  # a safe loader


def parse_yaml_all(text: str, where: str) -> list[Any]:
    """Every document of a multi-document YAML stream (e.g. CRD files), with the same limits."""
    return _guarded_yaml(lambda: list(yaml.load_all(text, Loader=_loader())), text, where)


def _guarded_yaml(load: Any, text: str, where: str) -> Any:
    """`load()` after the shape check; YAML's errors as one ConfigError with the line."""
    try:
        _check_shape(text, where)
        return load()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark else ""
        raise ConfigError(f"{where}: not valid YAML{line}: {getattr(exc, 'problem', None) or exc}") from None
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply") from None


def read_yaml(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    doc = parse_yaml(read_text(p, "YAML file"), str(p))
    if not isinstance(doc, dict):
        raise ConfigError(f"{p}: expected a mapping of field names to values at the top level")
    return doc


def parse_json(text: str, where: str) -> Any:
    """A JSON document from untrusted text: depth-limited, finite numbers only."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:  # a cheap pre-scan: json.loads recurses once per level
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    if deepest > MAX_DEPTH:
        raise ConfigError(f"{where}: nested more than {MAX_DEPTH} levels deep")

    seen: list[_NotFinite] = []  # found while parsing; their place is looked up after (none: no walk)

    def no_constant(name: str) -> Any:
        seen.append(_NotFinite(name))
        return seen[-1]

    def finite(number: str) -> Any:  # 1e400 would be read as infinity
        value = float(number)
        return value if math.isfinite(value) else no_constant(number[:40])

    try:
        doc = json.loads(text, parse_constant=no_constant, parse_float=finite)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise ConfigError(f"{where}: {str(exc)[:100]}") from None
    if seen and (found := _first_not_finite(doc)):
        path, bad = found
        raise ConfigError(f"{where}: {path}: {bad.text} is not a number JSON allows")
    return doc


class _NotFinite:
    """Stands in for NaN, Infinity or an overflowing number while parsing, so the error can name its key."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _first_not_finite(doc: Any) -> tuple[str, _NotFinite] | None:
    """The path ('key 'a.b[2]'', 'item 3') of the first non-finite value, depth first; None when all are finite."""
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:  # a loop, not recursion: keys come from the file, shown through repr and cut short
        path, value = stack.pop()
        if isinstance(value, _NotFinite):
            if not path:
                return "the whole document", value
            top = path[1:-1] if path.startswith("[") and path.endswith("]") and path[1:-1].isdigit() else None
            return (f"item {top}" if top is not None else f"key {path[:120]!r}"), value
        if isinstance(value, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    return None


def read_json(path: str | Path, what: str = "JSON file") -> Any:
    p = Path(path)
    return parse_json(read_text(p, what), str(p))
