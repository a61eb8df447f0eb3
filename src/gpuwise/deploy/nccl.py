"""NCCL environment for a planned topology: which links NCCL should use, and why.

Only values that differ from NCCL's defaults are set, each with its reason. AMD GPUs run RCCL,
which reads the same NCCL_* variables. The path levels follow NCCL's documented scale
(LOC < NVL < PIX < PXB < PHB < SYS, NCCL user guide, "Environment Variables").
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog import Catalog
from gpuwise.catalog.network import default_network, parse_network
from gpuwise.workload import Hardware

RDMA_KINDS = ("infiniband", "roce")


@dataclass(frozen=True, slots=True)
class EnvVar:
    name: str
    value: str
    why: str


@dataclass(frozen=True, slots=True)
class Fabric:
    """What the plan's hardware communicates over."""

    intra: str  # nvlink | nvlink-bridge | pcie | infinity-fabric | none
    inter: str | None  # infiniband | roce | ethernet | None (one node)
    network: str | None  # catalog id of the inter-node link
    network_name: str | None

    @property
    def rdma(self) -> bool:
        return self.inter in RDMA_KINDS


def fabric(hw: Hardware, catalog: Catalog, network: str | None = None) -> Fabric:
    """The links of `hw`: the network named (argument, then `hw.network`), else the catalog's
    default for that GPU family's reference node (as the time model assumes)."""
    gpu = hw.gpu
    link = gpu.link_id
    if link.startswith("nvlink"):
        intra = "nvlink-bridge" if link.endswith("-bridge") else "nvlink"
    elif link == "infinity-fabric":
        intra = "infinity-fabric"
    elif link.startswith("pcie"):
        intra = "pcie"
    else:
        intra = "none"
    if hw.nodes <= 1:
        return Fabric(intra, None, None, None)
    given = network or hw.network
    net = parse_network(given, catalog) if given else default_network(hw.gpus_per_node, gpu, catalog)
    return Fabric(intra, net.link.kind, net.link_id, net.link.name)


def nccl_env(
    hw: Hardware,
    catalog: Catalog,
    network: str | None = None,
    socket_ifname: str = "eth0",
    ib_hca: str | None = None,
) -> tuple[Fabric, list[EnvVar]]:
    """The NCCL variables for `hw`, each with the reason it is set."""
    fab = fabric(hw, catalog, network)
    env: list[EnvVar] = []
    lib = "RCCL (reads the NCCL_* variables)" if hw.gpu.vendor.lower() == "amd" else "NCCL"
    per_node = hw.gpus_per_node
    if per_node > 1 and fab.intra in ("pcie", "nvlink-bridge"):
        env.append(
            EnvVar(
                "NCCL_P2P_LEVEL",
                "PXB",
                f"{hw.gpu.id} is a PCIe card{' (NVLink bridges join pairs only)' if fab.intra == 'nvlink-bridge' else ''}: "
                "peer-to-peer through PCIe switches (and bridges), staged through host memory across the CPU "
                "root complex, where PCIe P2P is slow or blocked by ACS/IOMMU on many servers",
            )
        )
    if fab.inter is None:
        if hw.count > 1:
            env.append(
                EnvVar(
                    "NCCL_IB_DISABLE",
                    "1",
                    f"one node ({per_node} GPUs over {fab.intra}): no network transport needed, so {lib} "
                    "skips probing InfiniBand/RoCE devices",
                )
            )
        return fab, env
    env.append(
        EnvVar(
            "NCCL_SOCKET_IFNAME",
            socket_ifname,
            f"bootstrap and socket traffic on the interface {socket_ifname!r}, not on an IPoIB or storage "
            "interface NCCL might pick first; set to the interface your CNI gives pods (Kubernetes) or the "
            "nodes' cluster network (Slurm, cloud VMs)",
        )
    )
    if fab.inter == "infiniband":
        env.append(
            EnvVar("NCCL_IB_DISABLE", "0", f"{fab.network_name} between nodes: {lib} uses the IB verbs transport")
        )
        env.append(
            EnvVar(
                "NCCL_IB_HCA",
                ib_hca or "mlx5",
                "prefix match on the HCAs NCCL may use; list the compute rails explicitly "
                "(e.g. =mlx5_0,mlx5_1,... from `ibv_devinfo`) to keep storage or front-end ports out",
            )
        )
        env.append(
            EnvVar(
                "NCCL_NET_GDR_LEVEL",
                "PHB",
                "GPUDirect RDMA (NIC reads and writes GPU memory directly) when NIC and GPU share a CPU's "
                "PCIe host bridge; lower to PXB if GDR across the host bridge is slow on your servers",
            )
        )
    elif fab.inter == "roce":
        env.append(EnvVar("NCCL_IB_DISABLE", "0", f"{fab.network_name} between nodes: RDMA over Converged Ethernet"))
        env.append(
            EnvVar(
                "NCCL_IB_GID_INDEX",
                "3",
                "RoCE v2 over IPv4 is GID index 3 on ConnectX NICs (0/1 are RoCE v1/v2 link-local); "
                "check with `show_gids` on the node",
            )
        )
        if ib_hca:
            env.append(EnvVar("NCCL_IB_HCA", ib_hca, "the RoCE NICs NCCL may use, as given"))
    else:
        env.append(
            EnvVar("NCCL_IB_DISABLE", "1", f"{fab.network_name} has no RDMA: {lib} uses TCP sockets between nodes")
        )
    return fab, env
