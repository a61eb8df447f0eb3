"""`--network` as clusters are described: a fabric id (one port per node), N of them, or NICs x
Gbit/s per node; one parser, each GPU's share of the node's NICs derived once (hand-computed from
interconnects.yaml's per-port all-reduce bus bandwidth)."""

from __future__ import annotations

import re

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.network import network_pattern, parse_network
from gpuwise.errors import UsageError
from gpuwise.estimate.comm import topology
from gpuwise.workload import build_hardware

CAT = load_catalog()
NDR = CAT.interconnect(
    "ib-ndr"
).achieved_bandwidth  # 47 GB/s per 400G port (https://github.com/NVIDIA/nccl-tests/issues/290)
HDR = CAT.interconnect(
    "ib-hdr"
).achieved_bandwidth  # 24 GB/s per 200G port (https://github.com/NVIDIA/nccl/issues/1576)


@pytest.mark.parametrize(
    ("text", "link", "nics", "per_gpu"),
    [
        ("4x400g", "ib-ndr", 4, 4 * NDR / 8),  # 23.5 GB/s per GPU on an 8-GPU node
        ("8x400g", "ib-ndr", 8, NDR),
        ("2x200g", "ib-hdr", 2, 2 * HDR / 8),  # 6 GB/s per GPU
        ("1x800g", "ib-xdr", 1, CAT.interconnect("ib-xdr").achieved_bandwidth / 8),
        ("1x100g", "roce-100g", 1, CAT.interconnect("roce-100g").achieved_bandwidth / 8),  # no 100G InfiniBand
        ("roce-400g", "roce-400g", 1, CAT.interconnect("roce-400g").achieved_bandwidth / 8),  # one port: as before
        ("8xROCE-400G", "roce-400g", 8, CAT.interconnect("roce-400g").achieved_bandwidth),
    ],
)
def test_each_spelling_gives_the_ports_and_each_gpus_share(text: str, link: str, nics: int, per_gpu: float):
    net = parse_network(text, CAT)
    assert (net.link_id, net.nics) == (link, nics)
    assert net.per_gpu_bandwidth(8) == pytest.approx(per_gpu)
    assert re.match(network_pattern(CAT), text.lower())  # the web API's schema allows what the parser takes


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("4x300g", "no port of 300 Gbit/s"),
        ("nvlink4", "a link inside a node"),
        ("0x400g", "between 1 and 64 NICs"),
        ("ib-nd", "unknown network 'ib-nd'"),
        ("4x", "unknown network"),
    ],
)
def test_a_spelling_it_cannot_read_is_refused_with_the_forms(text: str, says: str):
    with pytest.raises(UsageError, match=says) as err:
        parse_network(text, CAT)
    assert "4x400g" in str(err.value)
    assert not re.match(network_pattern(CAT), text)


def test_the_time_model_uses_the_nodes_nics():
    """16 H100 in two nodes: 4 NDR ports per node give each GPU 4 x 47 / 8 = 23.5 GB/s between nodes,
    a named fabric one port (5.9 GB/s), the DGX reference node one port per GPU (47 GB/s)."""
    rates = {}
    for net in ("4x400g", "ib-ndr", None):
        hw = build_hardware("h100-sxm:16", CAT, network=net)
        topo = topology(hw, CAT, hw.network)
        assert topo.inter is not None
        rates[net] = topo.inter.bandwidth
    assert rates == pytest.approx({"4x400g": 4 * NDR / 8, "ib-ndr": NDR / 8, None: NDR})
    note = " ".join(topology(build_hardware("h100-sxm:16", CAT, network="4x400g"), CAT, "4x400g").notes)
    assert "--network 4x400g), 4 NIC(s) per node" in note


def test_deploy_reads_the_same_spelling():
    from gpuwise.deploy.nccl import fabric

    hw = build_hardware("a100-80gb-sxm:16", CAT, network="8x200g")
    assert fabric(hw, CAT).network == "ib-hdr" and fabric(hw, CAT).inter == "infiniband"
