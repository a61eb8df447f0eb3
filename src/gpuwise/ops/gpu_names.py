"""The names the NVIDIA driver gives its GPUs, mapped to catalog ids.

NVML reports marketing names such as "NVIDIA H100 80GB HBM3" (the SXM5 board) or
"NVIDIA A100-SXM4-40GB"; the catalog uses ids such as `h100-sxm`. The rules below are ordered:
the first pattern that matches wins, so more specific names come first. A name no rule knows
maps to None (unknown), never to a guess.
"""

from __future__ import annotations

import re

# (pattern on the lower-cased NVML name, catalog id). Memory-size variants carry their size in
# the name on every board NVML reports them for.
_RULES: tuple[tuple[str, str], ...] = (
    (r"\bh100\b.*\bnvl\b", "h100-nvl"),
    (r"\bh100\b.*\bpcie\b", "h100-pcie"),
    (r"\bh100\b.*(hbm3|sxm)", "h100-sxm"),
    (r"\bh800\b", "h800-sxm"),
    (r"\bh200\b", "h200"),
    (r"\bh20\b", "h20"),
    (r"\bb200\b", "b200"),
    (r"\ba800\b.*80gb", "a800-80gb-sxm"),
    (r"\ba100\b.*\bpcie\b.*80gb|\ba100\b.*80gb.*\bpcie\b", "a100-80gb-pcie"),
    (r"\ba100\b.*\bpcie\b|\ba100\b.*40gb.*\bpcie\b", "a100-40gb-pcie"),
    (r"\ba100\b.*sxm4?-?80gb|\ba100\b.*80gb", "a100-80gb-sxm"),
    (r"\ba100\b.*sxm4?-?40gb|\ba100\b.*sxm", "a100-40gb-sxm"),
    (r"\bv100\b.*sxm2?-?32gb", "v100-32gb-sxm"),
    (r"\bl40s\b", "l40s"),
    (r"\bl40\b", "l40"),
    (r"\bl4\b", "l4"),
    (r"\ba40\b", "a40"),
    (r"\ba10g\b", "a10g"),
    (r"\ba10\b", "a10"),
    (r"\bt4\b", "t4"),
    (r"\brtx 5090\b", "rtx-5090"),
    (r"\brtx 4090\b", "rtx-4090"),
    (r"\brtx 3090\b", "rtx-3090"),
    (r"\borin\b", "jetson-agx-orin-64gb"),
)


def catalog_id(nvml_name: str | None, known: object = None) -> str | None:
    """The catalog id for an NVML device name, or None when no rule knows it.

    `known` (optional) is a collection of catalog ids; a mapped id not in it becomes None, so a
    rule can never point outside the catalog that is in use.
    """
    if not nvml_name:
        return None
    low = nvml_name.strip().lower().replace("_", " ")
    for pattern, gpu_id in _RULES:
        if re.search(pattern, low):
            if known is not None and gpu_id not in known:  # type: ignore[operator]
                return None
            return gpu_id
    return None


__all__ = ["catalog_id"]
