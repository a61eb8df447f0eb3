"""One GPU identity: which catalog entry a board is, from what the vendor tools report.

Benchmarks (torch device name), the fleet (NVML), and Kubernetes manifests (node labels derived
from NVML names) all ask `identify`, so one board gets one catalog id everywhere. The names and
PCI ids live in the catalog beside each entry (`identity` in gpus.yaml, with their sources); this
module only normalises and looks them up. Matching is exact: a board no entry lists is unknown
(None), never the nearest sibling, because a wrong id silently applies another board's
measurements and prices.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from gpuwise.catalog.loader import Catalog, load_catalog
from gpuwise.catalog.schema import GPU
from gpuwise.errors import ConfigError, UsageError

# Memory a tool reports may be below the catalog's nominal size (ECC and driver reservations:
# an A10G shows 23028 MiB of 24 GiB in nvidia-smi, NVIDIA/DCGM#232, 0.94) but never much above
# it; boards that share a name differ by more (H100 SXM5 64 GB vs 80 GB is 0.80, 94 GB is 1.18).
MEMORY_LOW_RATIO = 0.85
MEMORY_HIGH_RATIO = 1.02

_PCI = re.compile(r"^(?:0x)?([0-9a-f]{4})\s*[:/ ]\s*(?:0x)?([0-9a-f]{4})$")


def normalise(name: str) -> str:
    """The matching form of a name: lower case, punctuation as single spaces, no leading
    'NVIDIA' ('NVIDIA-A100-SXM4-80GB', 'nvidia a100 sxm4 80gb', 'A100_SXM4_80GB' agree)."""
    words = re.sub(r"[^a-z0-9.]+", " ", name.lower()).split()
    while words and words[0] == "nvidia":
        words = words[1:]
    return " ".join(words)


def pci_key(pci_id: str | int) -> str:
    """'vvvv:dddd' from '10de:2330', '0x10DE:0x2330', or NVML's combined pciDeviceId
    (device << 16 | vendor, e.g. 0x233010DE). Anything else is a UsageError."""
    if isinstance(pci_id, int) and not isinstance(pci_id, bool):
        if not 0 < pci_id <= 0xFFFFFFFF:
            raise UsageError(f"PCI id {pci_id:#x} is not a 32-bit device<<16|vendor value")
        return f"{pci_id & 0xFFFF:04x}:{pci_id >> 16:04x}"
    text = str(pci_id).strip().lower()
    m = _PCI.match(text)
    if m:
        return f"{m.group(1)}:{m.group(2)}"
    if re.fullmatch(r"(?:0x)?[0-9a-f]{8}", text):
        return pci_key(int(text, 16))
    raise UsageError(f"PCI id {pci_id!r} is not 'vendor:device' in hex (e.g. '10de:2330' for an H100 SXM5)")


@dataclass(frozen=True, slots=True)
class IdentityTable:
    """Normalised names and PCI ids -> catalog id, built from one catalog."""

    names: dict[str, str]
    pci: dict[str, str]
    shared: dict[str, tuple[str, ...]]  # a family name -> every entry that prints it


def _claims(catalog: Catalog) -> Iterator[tuple[str, str, str]]:
    for gpu in catalog.gpus.values():
        if gpu.identity is None:
            continue
        yield from (("name", normalise(n), gpu.id) for n in gpu.identity.names())
        yield from (("pci", p, gpu.id) for p in gpu.identity.pci)
        yield from (("shared", normalise(n), gpu.id) for n in gpu.identity.shared)


def identity_table(catalog: Catalog) -> IdentityTable:
    """The lookup table; a name or PCI id claimed by two entries is a ConfigError, because either
    answer would be a guess."""
    names: dict[str, str] = {}
    pci: dict[str, str] = {}
    shared: dict[str, list[str]] = {}
    for kind, key, gpu_id in _claims(catalog):
        if kind == "shared":
            shared.setdefault(key, []).append(gpu_id)
            continue
        table = names if kind == "name" else pci
        if table.setdefault(key, gpu_id) != gpu_id:
            raise ConfigError(f"gpus.yaml: {kind} {key!r} is listed for both {table[key]!r} and {gpu_id!r}")
    clash = sorted(set(shared) & set(names))
    if clash:
        raise ConfigError(f"gpus.yaml: {clash} are listed both as shared and as identifying names")
    return IdentityTable(names, pci, {k: tuple(v) for k, v in shared.items()})


def memory_agrees(gpu: GPU, memory_bytes: int | None) -> bool:
    """True when no size is known, or the reported size fits the entry's nominal memory."""
    if memory_bytes is None:
        return True
    return MEMORY_LOW_RATIO * gpu.memory_bytes <= memory_bytes <= MEMORY_HIGH_RATIO * gpu.memory_bytes


def identify(
    name: str | None = None,
    pci_id: str | int | None = None,
    catalog: Catalog | None = None,
    memory_bytes: int | None = None,
) -> str | None:
    """The catalog id of a board, or None when the catalog does not list it.

    `name`: what NVML, ROCm SMI, torch or a Jetson device tree prints; `pci_id`: 'vendor:device'
    (preferred when it is listed); `memory_bytes`: the size the tool reports, when known: an
    entry whose memory disagrees is not this board (a 32 GB Orin is not the 64 GB entry).
    """
    cat = catalog if catalog is not None else load_catalog()
    table = identity_table(cat)
    candidates: list[str] = []
    if pci_id is not None and pci_id != "":
        found = table.pci.get(pci_key(pci_id))
        candidates += [found] if found else []
    key = normalise(name) if name else ""
    if not candidates and key in table.names:
        candidates.append(table.names[key])
    if not candidates and memory_bytes is not None:
        candidates += table.shared.get(key, ())
    fits = [c for c in candidates if c in cat.gpus and memory_agrees(cat.gpus[c], memory_bytes)]
    return fits[0] if len(fits) == 1 else None


__all__ = ["IdentityTable", "identify", "identity_table", "memory_agrees", "normalise", "pci_key"]
