"""Interconnects as measured: PCIe rings cost the nccl-tests all-reduce busbw
published for their path (collectives.yaml), not a single GPU's host-device copy rate. Every
expected value below is read off the data file's cited run and computed by hand."""

from __future__ import annotations

import dataclasses

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema import PcieLayout
from gpuwise.estimate import estimate
from gpuwise.estimate.comm import collective, pcie_path, topology
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
GEN4_OVER_GEN5 = 26.28e9 / 51e9  # host-device copy rates of PCIe 4 and 5 (interconnects.yaml)


def _intra(spec: str, per_node: int, cat=CAT) -> float:
    return topology(build_hardware(spec, cat, gpus_per_node=per_node), cat).intra.bandwidth


def test_eight_pcie_cards_cross_the_sockets_at_the_measured_busbw():
    """8 GPUs span two sockets: 8 PCIe 5 cards at the 23.86 GB/s peak busbw measured on dual Turin
    (https://github.com/NVIDIA/nccl/pull/2036); 8 PCIe 4 cards at the 21 GB/s of 8x A100 PCIe on dual
    Milan (https://github.com/NVIDIA/nccl/issues/841, same generation, so unscaled); PCIe 3 cards at
    21 x 10/26.28 (host-device copy rates)."""
    assert _intra("h100-pcie:8", 8) == pytest.approx(23.86e9)
    assert _intra("a100-80gb-pcie:8", 8) == pytest.approx(21e9)
    assert _intra("l40s:8", 8) == pytest.approx(21e9)
    assert _intra("t4:8", 8) == pytest.approx(21e9 * 10e9 / 26.28e9)


def test_up_to_four_cards_stay_on_one_root_complex():
    """4 PCIe 4 cards: the 4x RTX 4090 P2P-driver run (25.9 GB/s, same generation); 4 PCIe 5 cards:
    the same generation's nearest count, 2 GPUs on one socket (43.92 GB/s)."""
    assert _intra("l40s:4", 4) == pytest.approx(25.9e9)
    assert _intra("h100-pcie:4", 4) == pytest.approx(43.92e9)
    hw = build_hardware("l40s:4", CAT, gpus_per_node=4)
    assert pcie_path(hw, CAT) == "pcie-root-complex"


def test_geforce_without_peer_to_peer_is_staged_through_host_memory():
    """No P2P on the 4090 driver: its ring goes through host memory whatever the layout rule says."""
    hw = build_hardware("rtx-4090:8", CAT, gpus_per_node=8)
    assert pcie_path(hw, CAT) == "host-staged"
    assert topology(hw, CAT).intra.bandwidth == pytest.approx(28e9 * GEN4_OVER_GEN5)


def test_the_layout_rule_is_data():
    """A catalog whose layout names PCIe switches for every node size gives 8 PCIe 5 cards the
    41.1 GB/s measured behind 3 switches on one CPU (rtx6kpro)."""
    switched = dataclasses.replace(CAT, pcie_layout=(PcieLayout(max_gpus=16, path="pcie-switch", source="x"),))
    assert _intra("h100-pcie:8", 8, switched) == pytest.approx(41.1e9)


def test_reduce_scatter_over_eight_pcie4_cards_by_hand():
    """ZeRO-3's gradient reduce-scatter of a 26 GB buffer over 8 A100 PCIe: NCCL base latency +
    7/8 of the buffer at the cross-socket busbw + 7 PCIe hops."""
    topo = topology(build_hardware("a100-80gb-pcie:8", CAT, gpus_per_node=8), CAT)
    bw = 21e9
    hop = CAT.interconnect("pcie4-x16").latency_seconds
    want = CAT.convention("collective_base_latency") + 7 / 8 * 26e9 / bw + 7 * hop
    assert collective("reduce_scatter", 26e9, 8, topo, spans_nodes=False) == pytest.approx(want)


def test_zero3_13b_on_pcie_is_bound_by_its_ring():
    """ZeRO-3 13B on 8x A100 PCIe was once estimated only 6 % slower than on SXM. With the ring at the
    21 GB/s measured across two sockets (against NVSwitch's 232 GB/s) the PCIe node is 1.55x slower in
    this full fine-tune (1.24x at the 26 GB/s copy rate): 44.8 s of exposed ring a step. Since the
    card's measured GEMM rate (252.9 TFLOP/s, matmul_efficiency_a100-80gb-pcie) its compute is 94.1 s
    (95.5 s until the hf-trainer efficiency was refitted 0.722 -> 0.733 on 2026-12-03, with 43.3 s of ring
    exposed: a shorter micro-batch hides less of it), so the ring is 48 % of it, just under the
    communication_bottleneck_share (0.5) that names it the bottleneck (it was named so at the A100 SXM's rate)."""
    opts = {"model": "llama-2-13b", "task": "finetune", "zero": 3, "micro_batch": 1, "global_batch": 256}
    w = build_workload({**opts, "seq": 4096, "recompute": "full", "tokens": "20B"}, CAT)
    pcie = estimate(w, build_hardware("a100-80gb-pcie:8", CAT), CAT, search_largest=False).training
    sxm = estimate(w, build_hardware("a100-80gb-sxm:8", CAT), CAT, search_largest=False).training
    assert pcie is not None and sxm is not None
    assert sxm.bottleneck == "compute"
    assert pcie.comm_seconds_per_step == pytest.approx(0.476 * pcie.terms["compute"], abs=0.01 * pcie.terms["compute"])
    assert pcie.step_seconds >= 1.5 * sxm.step_seconds


def test_every_measured_path_cites_a_dated_source_and_a_generation():
    for m in CAT.busbw:
        src = CAT.sources[m.source]
        assert src.url and src.date, m.id
        if m.path != "nvlink-bridge":
            assert m.pcie_generation is not None, m.id
    assert [r.max_gpus for r in CAT.pcie_layout] == sorted(r.max_gpus for r in CAT.pcie_layout)


def test_each_gpu_gets_its_share_of_the_nodes_nics():
    """Between nodes each NIC carries the all-reduce busbw NCCL reaches per NIC (24 GB/s per HDR:
    DGX A100's 8 NICs give 192 GB/s). 8 NICs for 8 GPUs: 24 GB/s each; a rule of 4 NICs: 4 x 24 / 8
    = 12; a named network is one NIC per node: 24 / 8 = 3."""
    from gpuwise.catalog.schema import DefaultNetwork

    def inter(cat, network=None) -> float:
        link = topology(build_hardware("a100-80gb-sxm:16", cat, gpus_per_node=8), cat, network).inter
        assert link is not None
        return link.bandwidth

    assert CAT.interconnect("ib-hdr").achieved_bandwidth == pytest.approx(24e9)
    assert inter(CAT) == pytest.approx(24e9)
    four = DefaultNetwork(
        architecture="ampere", form_factor="sxm", link="ib-hdr", per="gpu", source="dgx-a100-guide", nics=4
    )
    assert inter(dataclasses.replace(CAT, default_networks=(four, *CAT.default_networks))) == pytest.approx(12e9)
    assert inter(CAT, "ib-hdr") == pytest.approx(3e9)


def test_networks_cite_nccl_tests_per_nic():
    """IB and RoCE NICs run at the per-NIC busbw NCCL's maintainers give or users measured, not at an
    ib_write_bw floor or a line-rate ratio (XDR keeps its stated assumption: nothing published)."""
    for link, gbps in {"ib-hdr": 24, "ib-ndr": 47, "roce-100g": 12, "roce-200g": 24, "roce-400g": 47}.items():
        ic = CAT.interconnect(link)
        assert ic.achieved_bandwidth == pytest.approx(gbps * 1e9), link
        assert "nccl" in ic.source_of("achieved_bandwidth"), link
