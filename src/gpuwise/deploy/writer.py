"""Write manifests as YAML with the reason for each chosen value as a comment above it.

PyYAML drops comments, so the block structure is written here and only scalars go through
PyYAML (for correct quoting). `dump` round-trips: `yaml.safe_load(dump(m)) == m.body`.
An `Unsafe` text (a value from a host or the store, in an Ansible file) is written with the tag
`!unsafe`, which Ansible never renders as a template; `load_tree` reads such a file back.
"""

from __future__ import annotations

import json
import textwrap
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from gpuwise.deploy.common import Bundle, Manifest
from gpuwise.errors import UsageError

WIDTH = 110


def _comment(text: str, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for para in text.splitlines() or [""]:
        if para.startswith("  "):  # indented: a command to copy, kept on one line
            lines.append(f"{pad}# {para}".rstrip())
            continue
        wrapped = textwrap.wrap(para, WIDTH - indent - 2, break_long_words=False, break_on_hyphens=False) or [""]
        lines += [f"{pad}# {w}".rstrip() for w in wrapped]
    return lines


class Unsafe(str):
    """Text Ansible must take as data, never as a Jinja template (a host name, a version from the
    store): written `!unsafe '...'`, on one line whatever it holds."""

    __slots__ = ()


UNSAFE_TAG = "!unsafe"


def _scalar(value: Any) -> str:
    if isinstance(value, Unsafe):
        return f"{UNSAFE_TAG} {_scalar(str(value))}"
    # a line break inside a flow scalar: double quotes with escapes keep it on one line
    style = '"' if isinstance(value, str) and any(c in value for c in "\n\r\x85\u2028\u2029") else None
    text = yaml.safe_dump(value, default_flow_style=True, default_style=style, width=10**9, allow_unicode=True)
    text = text.strip()
    # a plain scalar is followed by the document end marker; a string's own trailing "..." stays
    if text.endswith("\n..."):
        text = text[: -len("\n...")]
    return text


def _key(k: Any) -> str:
    return _scalar(k if isinstance(k, str) else str(k))


def _is_block(value: Any) -> bool:
    """Our own multi-line texts (Jinja expressions, scripts) are literal blocks; an Unsafe one is a scalar."""
    return isinstance(value, str) and not isinstance(value, Unsafe) and "\n" in value


def _block(value: str, indent: int) -> list[str]:
    pad = " " * indent
    chomp = "" if value.endswith("\n") else "-"
    body = value[:-1] if value.endswith("\n") else value
    return [f"|{chomp}"] + [f"{pad}{line}" if line else "" for line in body.split("\n")]


def _emit(value: Any, path: tuple[Any, ...], indent: int, notes: dict[tuple[Any, ...], str], seq: int = 0) -> list[str]:
    """Lines for a mapping or list body at `indent` (the caller wrote the key); a list under a key
    is indented by `seq` more (0: the kubectl style; 2: the yamllint default Ansible files follow)."""
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            p = (*path, k)
            if p in notes:
                out += _comment(notes[p], indent)
            out += _entry(f"{pad}{_key(k)}:", v, p, indent, notes, seq)
        return out
    assert isinstance(value, list)
    for i, v in enumerate(value):
        p = (*path, i)
        if p in notes:
            out += _comment(notes[p], indent)
        if isinstance(v, dict) and v:
            inner = _emit(v, p, indent + 2, notes, seq)
            # the first key goes on the dash line (its comment, if any, stays above the dash)
            first = next(j for j, line in enumerate(inner) if not line.lstrip().startswith("#"))
            out += inner[:first]
            out.append(f"{pad}- {inner[first].lstrip()}")
            out += inner[first + 1 :]
        elif isinstance(v, list) and v:
            out.append(f"{pad}-")
            out += _emit(v, p, indent + 2, notes, seq)
        elif _is_block(v):
            block = _block(v, indent + 2)
            out.append(f"{pad}- {block[0]}")
            out += block[1:]
        else:
            out.append(f"{pad}- {_scalar(v)}")
    return out


def _entry(
    prefix: str, v: Any, p: tuple[Any, ...], indent: int, notes: dict[tuple[Any, ...], str], seq: int = 0
) -> list[str]:
    if isinstance(v, dict) and v:
        return [prefix, *_emit(v, p, indent + 2, notes, seq)]
    if isinstance(v, list) and v:
        return [prefix, *_emit(v, p, indent + seq, notes, seq)]
    if _is_block(v):
        block = _block(v, indent + 2)
        return [f"{prefix} {block[0]}", *block[1:]]
    return [f"{prefix} {_scalar(v)}"]


def dump(m: Manifest) -> str:
    """One YAML document: the header comments, then the body with its reasons."""
    lines: list[str] = []
    for h in m.header:
        lines += _comment(h, 0)
    lines += _comment(f"{m.kind} {m.name}: {m.why}", 0)
    lines += _emit(m.body, (), 0, m.comments)
    return "\n".join(lines) + "\n"


def dump_tree(tree: Any, header: list[str] | None = None) -> str:
    """YAML text of any tree (a mapping or a list, values may be `why(...)`), the reasons as comments,
    lists indented under their key: for files that are not Kubernetes objects (Ansible files)."""
    from gpuwise.deploy.common import split_reasons

    body, notes = split_reasons(tree)
    lines = ["---"]
    for h in header or []:
        lines += _comment(h, 0)
    lines += _emit(body, (), 0, notes, seq=2)
    return "\n".join(lines) + "\n"


class _TreeLoader(yaml.SafeLoader):
    """PyYAML's safe loader that reads `!unsafe` scalars as the text they hold."""


def _unsafe_text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


_TreeLoader.add_constructor(UNSAFE_TAG, _unsafe_text)


def load_tree(text: str) -> Any:
    """What `dump_tree` wrote, read back (its `!unsafe` values as plain text)."""
    return yaml.load(text, Loader=_TreeLoader)  # a SafeLoader with one scalar tag added


def files(bundle: Bundle) -> dict[str, str]:
    """Relative path -> text of every file `write` would create."""
    grouped: dict[str, list[Manifest]] = defaultdict(list)
    for m in bundle.manifests:
        grouped[m.file].append(m)
    out = {path: "---\n".join(dump(m) for m in ms) for path, ms in sorted(grouped.items())}
    if bundle.node_labels:
        lines = [
            "#!/bin/sh",
            "# Node labels the GPU operator acts on (kubectl apply cannot set them).",
            "# usage: sh label-nodes.sh NODE [NODE...]   (node names: kubectl get nodes -L nvidia.com/gpu.product)",
            "set -eu",
            '[ "$#" -gt 0 ] || { echo "usage: $0 NODE [NODE...]" >&2; exit 2; }',
            'for node in "$@"; do',
        ]
        for n in bundle.node_labels:
            lines += _comment(f"{n.nodes}: {n.why}", 2)
            lines.append(f'  kubectl label node "$node" {n.key}={n.value} --overwrite')
        lines.append("done")
        out["label-nodes.sh"] = "\n".join(lines) + "\n"
    summary = dict(bundle.summary)
    summary["notes"] = bundle.notes
    summary["objects"] = [{"kind": m.kind, "name": m.name, "file": m.file, "why": m.why} for m in bundle.manifests]
    out["gpuwise-deploy.json"] = json.dumps(summary, indent=2, default=str) + "\n"
    return out


def write(bundle: Bundle, directory: str | Path) -> list[Path]:
    """Write every file under `directory` (created if missing); returns the paths written."""
    return write_texts(files(bundle), directory)


LEDGER = ".gpuwise-written"  # in an output folder: the files gpuwise wrote there, one relative path a line


def _ledger(root: Path) -> set[str]:
    try:
        return set((root / LEDGER).read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return set()


def check_free(names: Iterable[str], directory: str | Path) -> None:
    """A UsageError when writing `names` under `directory` would replace a file gpuwise did not write
    there (its ledger names what it did: those it rewrites, so a second run into a folder works)."""
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise UsageError(f"-o {str(root)!r} exists and is not a directory")
    ours = _ledger(root)
    theirs = sorted(n for n in names if n not in ours and (root / n).exists())
    if theirs:
        shown = ", ".join(theirs[:5]) + (f" and {len(theirs) - 5} more" if len(theirs) > 5 else "")
        raise UsageError(
            f"-o {str(root)!r}: {shown} exist(s) there, not written by gpuwise: move them away or choose another "
            "folder (nothing was written)"
        )


def write_texts(texts: dict[str, str], directory: str | Path) -> list[Path]:
    """Write `relative path -> text` under `directory` (created if missing), with clear errors; files
    gpuwise did not write are never replaced (`check_free`)."""
    root = Path(directory)
    check_free(texts, root)
    written = []
    for rel, text in texts.items():
        target = root / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from None
        written.append(target)
    try:
        (root / LEDGER).write_text("".join(f"{n}\n" for n in sorted(_ledger(root) | set(texts))), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {str(root / LEDGER)!r}: {exc.strerror or exc}") from None
    return written
