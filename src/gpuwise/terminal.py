"""Text from outside (the store, a host, a file) made safe to print on a terminal.

A host name or a roll-out detail can hold escape sequences that clear the screen, retitle the
window or rewrite what was printed before; a right-to-left override prints text backwards. Every
view that prints stored values passes them through `shown`. Standard library only.
"""

from __future__ import annotations


def shown(text: object) -> str:
    """`text` with each character a terminal acts on (C0 and C1 controls with ESC, DEL, line and
    paragraph separators, bidirectional overrides: all that `str.isprintable` refuses) written as its
    Python escape (`\\x1b`, `\\n`, `\\u202e`); printable text, any script's letters, unchanged."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in s)


__all__ = ["shown"]
