"""The network between nodes as a user names it: the one parser of `--network`.

Clusters are described per node ("8x400G", "2x200G"), fabrics by their catalog id. Three spellings:

- `ID`: an inter-node link of interconnects.yaml (`ib-ndr`, `roce-400g`), one port per node;
- `NxID`: N such ports per node (`8xib-ndr`);
- `NxRATEg`: N NICs of RATE Gbit/s per node (`4x400g`): the catalog's port of that line rate, InfiniBand
  where the catalog has one at that rate (the two kinds reach the same all-reduce bus bandwidth per
  port in interconnects.yaml: NCCL's maintainers quote one figure per line rate), else RoCE.

Each GPU's share of the node's NICs is derived here once (`per_gpu_bandwidth`), for the time model
and for anything that reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuwise.errors import UsageError

if TYPE_CHECKING:
    from gpuwise.catalog.loader import Catalog
    from gpuwise.catalog.schema import GPU, Interconnect

MAX_NICS = 64  # ports per node a spelling may name (a sanity bound: nodes ship 1 to 16)
_COUNTED = re.compile(r"^([0-9]{1,3})x(.+)$")
_RATE = re.compile(r"^([0-9]{2,4})g$")
KIND_ORDER = ("infiniband", "roce")  # the fabric a bare line rate is read as, first match


@dataclass(frozen=True, slots=True)
class Network:
    """A node's inter-node network: `nics` ports of `link` (the catalog entry), as `given`."""

    link: Interconnect
    link_id: str
    nics: int
    given: str

    def per_gpu_bandwidth(self, gpus_per_node: int) -> float:
        """All-reduce bus bandwidth per GPU between nodes: the node's ports shared by its GPUs."""
        return self.link.achieved_bandwidth * self.nics / max(gpus_per_node, 1)

    @property
    def per_node_gbps(self) -> float:
        """The node's nominal line rate in Gbit/s (ports x rate per port)."""
        return self.nics * self.link.nominal_bandwidth * 8 / 1e9


def inter_node_links(catalog: Catalog) -> dict[str, Interconnect]:
    return {i: link for i, link in catalog.interconnects.items() if link.scope == "inter-node"}


def port_gbps(link: Interconnect) -> int:
    """A port's nominal line rate in whole Gbit/s (interconnects.yaml stores bytes/s per direction)."""
    return round(link.nominal_bandwidth * 8 / 1e9)


def _by_rate(gbps: int, catalog: Catalog) -> str | None:
    links = inter_node_links(catalog)
    matches = [i for i, link in links.items() if port_gbps(link) == gbps]
    ranked = sorted(matches, key=lambda i: (KIND_ORDER.index(links[i].kind) if links[i].kind in KIND_ORDER else 9, i))
    return ranked[0] if ranked else None


def default_network(gpus_per_node: int, gpu: GPU, catalog: Catalog) -> Network:
    """The network a GPU family's reference node ships with (interconnects.yaml default_networks)."""
    rule = catalog.default_network(gpu)
    return Network(catalog.interconnect(rule.link), rule.link, rule.nics_per_node(gpus_per_node), "default")


def parse_network(text: str, catalog: Catalog) -> Network:
    """`text` as one of the three spellings (see the module docstring), or a UsageError that lists them."""
    given = text.strip().lower()
    links = inter_node_links(catalog)
    m = _COUNTED.match(given)
    nics, port = (int(m.group(1)), m.group(2)) if m else (1, given)
    rate = _RATE.match(port)
    link_id = _by_rate(int(rate.group(1)), catalog) if rate else port
    if link_id is None or link_id not in links:
        rates = sorted({port_gbps(link) for link in links.values()})
        if link_id in catalog.interconnects:
            why = f"{link_id!r} is a link inside a node"
        elif rate:
            why = f"no port of {rate.group(1)} Gbit/s in the catalog"
        else:
            why = f"unknown network {port!r}"
        raise UsageError(
            f"--network {text!r}: {why}; name a fabric ({', '.join(sorted(links))}), N of them per node "
            f"(8xib-ndr), or NICs x Gbit/s per node ({', '.join(f'{r}g' for r in rates)}, e.g. 4x400g)"
        )
    if not 1 <= nics <= MAX_NICS:
        raise UsageError(f"--network {text!r}: a node has between 1 and {MAX_NICS} NICs (e.g. 4x400g)")
    return Network(links[link_id], link_id, nics, given)


def network_pattern(catalog: Catalog) -> str:
    """A regular expression every spelling parse_network accepts matches (for the web API schema)."""
    links = inter_node_links(catalog)
    ids = "|".join(re.escape(i) for i in sorted(links))
    rates = "|".join(str(r) for r in sorted({port_gbps(link) for link in links.values()}))
    count = "(?:[1-9]|[1-5][0-9]|6[0-4])x"  # 1..MAX_NICS
    return f"^(?:{count})?(?:{ids}|(?:{rates})g)$"
