"""Colours shared by the front doors, so that neither imports the other for them.

The memory components in the order every breakdown lists them, each with the terminal colour
(rich's colour names) of its bar.
"""

from __future__ import annotations

MEMORY_COLORS: dict[str, str] = {
    "weights": "cyan",
    "gradients": "magenta",
    "optimizer": "yellow",
    "activations": "green",
    "kv_cache": "blue",
    "overhead": "bright_black",
}

__all__ = ["MEMORY_COLORS"]
