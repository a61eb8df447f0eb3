"""An offer's fabric as the network a multi-node plan runs on, in the spelling gpuwise.catalog.network
reads (the one parser of inter-node networks), with the sentence that names it in `assumptions`.

The node's line rate is the offer's Gbit/s per GPU times its GPUs. It is written as ports of the
catalog link of the fabric's kind: InfiniBand as InfiniBand; RoCE, AWS EFA and plain Ethernet
(Google's GPUDirect-TCPX included) as RoCE ports of the same line rate: one port per GPU where the
catalog has a port of the per-GPU rate, else the largest catalog port that divides the node's total
(AWS p4d's 50 Gbit/s per GPU is one 400 Gbit/s port per 8-GPU node: the per-GPU share is what the
time model uses). Where the provider names the kind but not the rate, the rate of the GPU
family's reference node (interconnects.yaml `default_networks`) is assumed when it is of the same
kind, and the sentence says so; otherwise no network can be derived and the offer serves one node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuwise.catalog.network import MAX_NICS, inter_node_links, parse_network, port_gbps
from gpuwise.errors import UsageError

if TYPE_CHECKING:
    from gpuwise.catalog.loader import Catalog
    from gpuwise.catalog.schema import Offer

__all__ = ["OfferNetwork", "offer_network"]

# the catalog link kind each offered fabric is modelled as (interconnects.yaml has InfiniBand and RoCE)
MODELLED_AS = {"infiniband": "infiniband", "roce": "roce", "efa": "roce", "ethernet": "roce"}
KIND_WORDS = {"infiniband": "InfiniBand", "roce": "RoCE", "efa": "AWS EFA", "ethernet": "Ethernet"}


@dataclass(frozen=True, slots=True)
class OfferNetwork:
    """`spelling` for --network (None: the offer cannot join its instances), and why, in words."""

    spelling: str | None
    text: str


def _ports(per_gpu: float, gpus: int, kind: str, catalog: Catalog) -> str | None:
    """'8xroce-400g' for a node of `gpus` GPUs at `per_gpu` Gbit/s each: one port of `kind` per GPU
    where the catalog has that rate, else the largest catalog port that divides the node's total."""
    links = inter_node_links(catalog)
    ranked = sorted(((port_gbps(link), i) for i, link in links.items() if link.kind == kind), reverse=True)
    total_gbps = per_gpu * gpus
    for rate, link_id in sorted(ranked, key=lambda r: r[0] != per_gpu):
        nics = total_gbps / rate
        if nics >= 1 and nics.is_integer() and nics <= MAX_NICS:
            return f"{int(nics)}x{link_id}"
    return None


def offer_network(offer: Offer, catalog: Catalog) -> OfferNetwork:
    """The network between `offer`'s instances, or why there is none to plan on."""
    f = offer.fabric
    who = f"{offer.provider} {offer.instance}"
    if f is None:
        return OfferNetwork(None, f"{who}: the network between its instances is not known")
    if f.kind == "none":
        return OfferNetwork(None, f"{who}: the provider joins no fabric between its instances")
    kind = MODELLED_AS[f.kind]
    k = offer.gpus_per_instance
    named = f"{KIND_WORDS[f.kind]} between {offer.provider} {offer.instance} instances"
    cite = f" [{f.source}]" if f.source else ""
    if f.gbps_per_gpu is not None:
        spelling = _ports(f.gbps_per_gpu, k, kind, catalog)
        rate = f"{f.gbps_per_gpu:g} Gbit/s per GPU{cite}"
    else:
        gpu = catalog.gpus.get(offer.gpu)
        rule = catalog.default_network(gpu) if gpu is not None else None
        link = catalog.interconnects.get(rule.link) if rule is not None else None
        if rule is None or link is None or link.kind != kind:
            return OfferNetwork(None, f"{who}: {KIND_WORDS[f.kind]}, but its rate is not published{cite}")
        spelling = f"{rule.nics_per_node(k)}x{rule.link}"
        rate = f"rate not published{cite}: the {gpu.architecture if gpu else ''} reference node's {spelling} assumed [{rule.source}]"
    if spelling is None:
        return OfferNetwork(None, f"{who}: {KIND_WORDS[f.kind]} at {rate} matches no catalog port")
    try:
        parse_network(spelling, catalog)
    except UsageError:
        return OfferNetwork(None, f"{who}: {KIND_WORDS[f.kind]} at {rate} matches no catalog port")
    return OfferNetwork(spelling, f"network: {named}, {rate}, modelled as {spelling}")
