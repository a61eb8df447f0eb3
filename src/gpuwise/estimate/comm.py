"""Collectives over the levels of a topology: NVLink/NVSwitch or PCIe inside a node, the network
between nodes. Alpha-beta costs with NCCL's ring algorithm factors (nccl-tests' busbw
convention): all-reduce moves 2(n-1)/n of the buffer per rank, all-gather and reduce-scatter
(n-1)/n, all-to-all (n-1)/n. The per-hop latency makes small messages inefficient.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuwise.catalog import GPU, Catalog, Interconnect
from gpuwise.catalog.network import default_network, parse_network
from gpuwise.catalog.schema import BusBandwidth
from gpuwise.estimate.rates import Calibration
from gpuwise.workload import Hardware


@dataclass(frozen=True, slots=True)
class Link:
    """One level: achieved bandwidth per GPU per direction and per-hop latency."""

    name: str
    bandwidth: float
    latency: float


@dataclass(frozen=True, slots=True)
class Topology:
    intra: Link
    inter: Link | None  # None on a single node
    gpus_per_node: int
    notes: tuple[str, ...]
    base_latency: float = 0.0  # fixed cost of launching one collective


def _achieved(ic: Interconnect, nominal: float) -> float:
    """Scale a nominal bandwidth by the catalog's achieved/nominal ratio for that link kind."""
    return nominal * ic.achieved_bandwidth / ic.nominal_bandwidth


DEFAULT_PCIE_GENERATION = 4  # a GPU entry that names no PCIe link is taken to have PCIe 4.0 x16


def pcie_generation(gpu: GPU) -> int:
    """The PCIe generation of the GPU's host link (DEFAULT_PCIE_GENERATION where the catalog names none)."""
    return gpu.pcie.generation if gpu.pcie else DEFAULT_PCIE_GENERATION


def pcie_link(gpu: GPU, catalog: Catalog) -> Interconnect:
    """The GPU's PCIe x16 link: host-device copies, and rings between PCIe cards."""
    return catalog.interconnect(f"pcie{pcie_generation(gpu)}-x16")


def _cite(catalog: Catalog, source_id: str) -> str:
    """The head of a source's title (up to its first comma, colon or quote), for notes."""
    title = catalog.sources[source_id].title
    cut = min((i for i in (title.find(c) for c in (",", ":", " '")) if i > 0), default=len(title))
    return title[:cut]


def _bridge_measured(hw: Hardware, catalog: Catalog) -> BusBandwidth | None:
    """A measured all-reduce busbw over this GPU's NVLink bridge (collectives.yaml), if one exists."""
    for m in catalog.busbw:
        if m.path == "nvlink-bridge" and hw.gpu.id in m.gpu_ids and hw.gpus_per_node <= m.gpus:
            return m
    return None


_PCIE_PATHS = {
    "host-staged": "staged through host memory",
    "pcie-switch": "through PCIe switches",
    "pcie-root-complex": "through one CPU's root complex",
    "pcie-cross-socket": "across the two CPU sockets",
}


def pcie_path(hw: Hardware, catalog: Catalog) -> str:
    """The path rings take between the PCIe cards of a node: through host memory where the driver
    gives the board no peer-to-peer, else the layout rule of collectives.yaml for this many GPUs
    per node (one socket's root complex up to 4 GPUs, across sockets beyond)."""
    if hw.gpu.id in catalog.no_p2p_gpus:
        return "host-staged"
    rules = catalog.pcie_layout
    for rule in rules:
        if hw.gpus_per_node <= rule.max_gpus:
            return rule.path
    return rules[-1].path if rules else "pcie-cross-socket"


def _pcie_measured(hw: Hardware, catalog: Catalog) -> tuple[str, float, str] | None:
    """(path, busbw, how) for a node of PCIe cards: the nccl-tests busbw measured on that path,
    on the GPU's PCIe generation where one exists, then at the nearest published GPU count; a run
    on another generation is scaled by the ratio of the two generations' host-device copy rates."""
    if hw.gpus_per_node < 2:
        return None
    path = pcie_path(hw, catalog)
    runs = [m for m in catalog.busbw if m.path == path]
    if not runs:
        return None
    gen = pcie_generation(hw.gpu)
    best = min(runs, key=lambda m: (m.pcie_generation != gen, abs(m.gpus - hw.gpus_per_node), -m.gpus))
    rate = best.busbw
    how = f"{best.gpus} GPUs measured on PCIe {best.pcie_generation} [{_cite(catalog, best.source)}]"
    if best.pcie_generation and best.pcie_generation != gen:
        ratio = (
            catalog.interconnect(f"pcie{gen}-x16").achieved_bandwidth
            / catalog.interconnect(f"pcie{best.pcie_generation}-x16").achieved_bandwidth
        )
        rate *= ratio
        how += f", x{ratio:.2f} for PCIe {gen} (host-device copy rates)"
    return path, rate, how


def topology(
    hw: Hardware, catalog: Catalog, network: str | None = None, calibration: Calibration | None = None
) -> Topology:
    """The links a job's collectives run over: inside a node (the team's nccl-tests run of a node
    this size when `calibration` holds one, else the catalog's link), and between nodes."""
    topo = _catalog_topology(hw, catalog, network)
    if calibration is None or calibration.intra_busbw is None or hw.gpus_per_node < 2:
        return topo
    if calibration.intra_gpus != hw.gpus_per_node:
        return topo
    intra = Link(f"{topo.intra.name} (measured)", calibration.intra_busbw, topo.intra.latency)
    note = (
        f"inside a node: {intra.bandwidth / 1e9:.0f} GB/s per GPU, from the team's nccl-tests run on "
        f"{calibration.intra_gpus} {hw.gpu.id} ({calibration.intra_source}; the catalog's link: "
        f"{topo.intra.bandwidth / 1e9:.0f} GB/s)"
    )
    return replace(topo, intra=intra, notes=(note, *topo.notes[1:]))


def _catalog_topology(hw: Hardware, catalog: Catalog, network: str | None = None) -> Topology:
    gpu = hw.gpu
    notes: list[str] = []
    link = gpu.interconnect
    pcie = pcie_link(gpu, catalog)
    if link and (link.nvlink or link.fabric) and (gpu.form_factor in ("sxm", "oam") or hw.gpus_per_node <= 2):
        ic_id = f"nvlink{link.nvlink}" if link.nvlink else link.fabric or ""
        ic = catalog.interconnects.get(ic_id, pcie)
        bridge = _bridge_measured(hw, catalog) if gpu.form_factor not in ("sxm", "oam") else None
        if bridge:
            intra = Link(f"{ic.name} bridge", bridge.busbw, ic.latency_seconds)
            notes.append(
                f"inside a node: NVLink bridge, {bridge.busbw / 1e9:.0f} GB/s all-reduce busbw measured "
                f"(nccl-tests, {bridge.gpus} GPUs [{_cite(catalog, bridge.source)}])"
            )
        else:
            # the GPU's own link bandwidth (cut-down A800/H800) scaled by what this link kind achieves
            intra = Link(ic.name, _achieved(ic, link.bandwidth / 2), ic.latency_seconds)
            notes.append(
                f"inside a node: {ic.name}, {intra.bandwidth / 1e9:.0f} GB/s per GPU per direction achieved "
                f"({ic.achieved_bandwidth / ic.nominal_bandwidth:.0%} of {link.bandwidth / 2 / 1e9:.0f} nominal)"
            )
    elif (measured := _pcie_measured(hw, catalog)) is not None:
        path, rate, how = measured
        intra = Link(f"{pcie.name} {path}", rate, pcie.latency_seconds)
        why = (
            "the driver gives this board no peer-to-peer: collectives.yaml no_p2p_gpus"
            if path == "host-staged"
            else f"path for {hw.gpus_per_node} GPUs per node: collectives.yaml pcie_layout"
        )
        notes.append(
            f"inside a node: {pcie.name} {_PCIE_PATHS[path]} on {gpu.name}, "
            f"{rate / 1e9:.0f} GB/s all-reduce busbw ({how}; {why})"
        )
    else:
        intra = Link(pcie.name, pcie.achieved_bandwidth, pcie.latency_seconds)
        notes.append(
            f"inside a node: {pcie.name} between GPUs, {intra.bandwidth / 1e9:.0f} GB/s (host-device copy rate; "
            "no published nccl-tests run for this PCIe path in collectives.yaml)"
        )
    inter = None
    if hw.nodes > 1:
        # a fabric id is one NIC per node, NxRATEg or NxID says the node's NICs; the reference node
        # has its rule's NIC count (gpuwise.catalog.network: the one parser)
        net = parse_network(network, catalog) if network else default_network(hw.gpus_per_node, gpu, catalog)
        per_gpu = net.per_gpu_bandwidth(hw.gpus_per_node)
        link_ = net.link
        inter = Link(link_.name, per_gpu, link_.latency_seconds)
        if network:
            why = f"--network {net.given}"
        else:
            why = f"default for {gpu.architecture} nodes [{_cite(catalog, catalog.default_network(gpu).source)}]"
        notes.append(
            f"between nodes: {link_.name} ({why}), {net.nics} NIC(s) per node at "
            f"{link_.achieved_bandwidth / 1e9:.0f} GB/s all-reduce busbw each "
            f"[{_cite(catalog, link_.source_of('achieved_bandwidth'))}]: {per_gpu / 1e9:.1f} GB/s per GPU"
        )
    base = catalog.convention("collective_base_latency")
    notes.append(f"each collective costs {base * 1e6:.1f} us before its per-hop latencies [NCCL tuning model]")
    return Topology(intra=intra, inter=inter, gpus_per_node=hw.gpus_per_node, notes=tuple(notes), base_latency=base)


def _ring(bytes_: float, n: int, link: Link, factor: float) -> float:
    """`factor`*(n-1)/n of the buffer over the link plus one latency per ring step."""
    if n <= 1 or bytes_ <= 0:
        return 0.0
    steps = factor * (n - 1)
    return steps / n * bytes_ / link.bandwidth + steps * link.latency


def collective(
    kind: str, bytes_: float, ranks: int, topo: Topology, spans_nodes: bool, per_node: int | None = None
) -> float:
    """Seconds for one collective over `ranks` GPUs holding a `bytes_` buffer each.

    Across nodes the hierarchical algorithm runs the intra-node part over NVLink/PCIe and only a
    1/g shard of the buffer over the network, g being the group's ranks in one node: `per_node`
    where other parallelism takes part of the node (a data-parallel group beside tensor
    parallelism has gpus_per_node / tp ranks in a node, one when tensor parallelism fills it),
    else the whole node.
    """
    factor = {"all_reduce": 2, "all_gather": 1, "reduce_scatter": 1, "all_to_all": 1}[kind]  # ring passes
    if ranks <= 1:
        return 0.0
    if not spans_nodes or topo.inter is None:
        return topo.base_latency + _ring(bytes_, ranks, topo.intra, factor)
    g = max(1, min(ranks, per_node or topo.gpus_per_node))
    nodes = max(1, ranks // g)
    if kind == "all_to_all":  # (ranks-g)/ranks of each buffer crosses the network, the rest NVLink meanwhile
        off_node = (ranks - g) / ranks * bytes_ / topo.inter.bandwidth + (nodes - 1) * topo.inter.latency
        return topo.base_latency + max(off_node, _ring(bytes_ * g / ranks, g, topo.intra, factor))
    local = _ring(bytes_, g, topo.intra, factor)
    return topo.base_latency + local + _ring(bytes_ / g, nodes, topo.inter, factor)


def collective_across_nodes(kind: str, bytes_: float, nodes: int, topo: Topology) -> float:
    """Seconds for one collective among `nodes` ranks, one per node (each GPU with its peers in the
    other nodes, every GPU of a node at once, over its share of the node's NICs): hybrid sharding's
    all-reduce of gradient shards across replicas, the table-row-wise embeddings' all-to-all across nodes."""
    factor = {"all_reduce": 2, "all_gather": 1, "reduce_scatter": 1, "all_to_all": 1}[kind]
    if nodes <= 1 or topo.inter is None:
        return 0.0
    return topo.base_latency + _ring(bytes_, nodes, topo.inter, factor)


def p2p(bytes_: float, link: Link) -> float:
    return bytes_ / link.bandwidth + link.latency if bytes_ > 0 else 0.0
