"""What a host name and a version may look like, checked where they enter the store and where they
leave it for Ansible.

A GPU host reports its own name and versions; anyone with root on it chooses them. The roll-out
writes them into inventories and playbooks, so a value that is not a plain name or version (a
Jinja expression, a newline, a terminal escape) is refused with a message, never stored or written.
"""

from __future__ import annotations

import re

from gpuwise.errors import UsageError

HOSTNAME_MAX = 253  # RFC 1035's 255 octets on the wire, written as text (RFC 1123 section 2.1)
_HOST_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")  # 1-63, no '-' at either end
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")  # 550.127.05, 96.00.A5.00.01, 12.8 (matched whole)
VERSION_RULE = "1-64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit"


def is_hostname(text: str) -> bool:
    """An RFC 1123 host name: dot-separated labels of letters, digits and '-', at most 253 characters."""
    return 0 < len(text) <= HOSTNAME_MAX and all(_HOST_LABEL.fullmatch(label) for label in text.split("."))


def is_version(text: str) -> bool:
    return VERSION.fullmatch(text) is not None


def check_hostname(text: str, what: str) -> str:
    """`text` when it is a host name; else a UsageError naming `what` it came from."""
    if not is_hostname(text):
        raise UsageError(
            f"{what}: the host name {text[:80]!r} is not an RFC 1123 host name (labels of 1-63 letters, digits"
            f" and '-', joined by '.', at most {HOSTNAME_MAX} characters)"
        )
    return text


def check_version(text: str, what: str) -> str:
    """`text` when it is a version; else a UsageError naming `what` it came from."""
    if not is_version(text):
        raise UsageError(f"{what}: {text[:80]!r} is not a version ({VERSION_RULE})")
    return text


__all__ = ["HOSTNAME_MAX", "VERSION", "VERSION_RULE", "check_hostname", "check_version", "is_hostname", "is_version"]
