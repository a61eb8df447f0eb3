"""Checks of how the GPUs are connected: PCIe link width and generation, PCIe replays, NVLink,
and the PCIe/NUMA topology (with the device order that keeps neighbours close)."""

from __future__ import annotations

from collections import defaultdict

from gpuwise.hw import TOPOLOGY_LEVELS, GpuSnapshot, HostSnapshot
from gpuwise.ops.doctor.check import (
    FAIL,
    WARN,
    CheckResult,
    DoctorOptions,
    live_gpus,
    passed,
    skipped,
)

REPLAYS_PER_MINUTE_WARN = 100.0  # PCIe replays rising faster than this: warn
REPLAYS_TOTAL_WARN = 1000  # one reading only: this many since the driver loaded is worth a look


def check_pcie_link(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out, known = [], 0
    for g in live_gpus(snap):
        if None in (g.pcie_gen, g.pcie_gen_max, g.pcie_width, g.pcie_width_max):
            continue
        known += 1
        assert g.pcie_gen is not None and g.pcie_gen_max is not None
        assert g.pcie_width is not None and g.pcie_width_max is not None
        if g.pcie_gen >= g.pcie_gen_max and g.pcie_width >= g.pcie_width_max:
            continue
        link = f"Gen{g.pcie_gen} x{g.pcie_width} (max Gen{g.pcie_gen_max} x{g.pcie_width_max})"
        busy = g.utilization_gpu is not None and g.utilization_gpu > 0
        bdf = g.pci_bus_id or "<bus id>"
        if busy:
            out.append(
                CheckResult(
                    "pcie-link",
                    FAIL,
                    f"GPU {g.index}: PCIe link trained at {link} under load",
                    f"utilization {g.utilization_gpu:.0%}; PCIe {link}; bus {g.pci_bus_id}",
                    f"Reseat the card or riser and check the slot's BIOS setting (PCIe speed Auto/Gen{g.pcie_gen_max}); "
                    f"confirm with `sudo lspci -vv -s {bdf} | grep -E 'LnkCap|LnkSta'` while a job runs",
                    g.index,
                )
            )
        else:
            out.append(
                CheckResult(
                    "pcie-link",
                    WARN,
                    f"GPU {g.index}: PCIe link at {link} while idle",
                    f"utilization {'unknown' if g.utilization_gpu is None else f'{g.utilization_gpu:.0%}'}: idle "
                    "links drop to a lower generation to save power, so this is not judged",
                    "Run `gpuwise doctor` again while the GPU is busy (or run a load, e.g. `gpuwise bench h2d`) to judge the link",
                    g.index,
                )
            )
    if not known:
        return skipped("pcie-link", "PCIe link state unknown (not supported)")
    return out or passed("pcie-link", f"All {known} GPU(s) run their PCIe link at the maximum generation and width")


def check_pcie_replays(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out, known = [], 0
    before = {g.uuid: g for g in (opts.previous.gpus if opts.previous else ()) if g.uuid}
    seconds = None
    if opts.previous is not None:
        seconds = (snap.datetime - opts.previous.datetime).total_seconds()
    fix = (
        "Replays are link-level retransmissions: reseat the card/riser, check the slot and cable; "
        "if they keep rising, lower the slot to the previous PCIe generation in the BIOS and open a hardware case"
    )
    for g in live_gpus(snap):
        if g.pcie_replay_count is None:
            continue
        known += 1
        prev = before.get(g.uuid or "")
        if prev is not None and prev.pcie_replay_count is not None and seconds and seconds > 0:
            rate = (g.pcie_replay_count - prev.pcie_replay_count) / seconds * 60
            if rate > REPLAYS_PER_MINUTE_WARN:
                out.append(
                    CheckResult(
                        "pcie-replays",
                        WARN,
                        f"GPU {g.index}: PCIe replays rising ({rate:.0f}/min)",
                        f"{prev.pcie_replay_count} -> {g.pcie_replay_count} in {seconds:.0f} s",
                        fix,
                        g.index,
                    )
                )
        elif g.pcie_replay_count > REPLAYS_TOTAL_WARN:
            out.append(
                CheckResult(
                    "pcie-replays",
                    WARN,
                    f"GPU {g.index}: {g.pcie_replay_count} PCIe replays since the driver loaded",
                    "one reading: the rate is unknown (gpuwise doctor --interval 10 measures it)",
                    fix,
                    g.index,
                )
            )
    if not known:
        return skipped("pcie-replays", "PCIe replay counters unknown (not supported)")
    how = f"over {seconds:.0f} s" if seconds else "(one reading)"
    return out or passed("pcie-replays", f"PCIe replay counters quiet on {known} GPU(s) {how}")


def check_nvlink(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    gpus = [g for g in live_gpus(snap) if g.nvlinks is not None]
    if not gpus:
        return skipped("nvlink", "No NVLink on this host (not supported by these GPUs)")
    expected: dict[str | None, int] = defaultdict(int)
    for g in gpus:
        expected[g.name] = max(expected[g.name], g.active_nvlinks or 0)
    out = []
    for g in gpus:
        want = expected[g.name]
        down = [n.link for n in g.nvlinks or () if not n.active]
        if want and (g.active_nvlinks or 0) < want and down:
            links = ", ".join(str(n) for n in down)
            out.append(
                CheckResult(
                    "nvlink",
                    FAIL,
                    f"GPU {g.index}: NVLink {links} down ({g.active_nvlinks} of {len(g.nvlinks or ())} active; peers have {want})",
                    f"nvmlDeviceGetNvLinkState: link(s) {links} inactive on {g.name} {g.pci_bus_id}",
                    f"Check `nvidia-smi nvlink -s -i {g.index}`; on NVSwitch systems `systemctl status nvidia-fabricmanager`; "
                    f"reset the GPU (`sudo nvidia-smi -r -i {g.index}`) or the node; if the link stays down, reseat or "
                    "replace the board (hardware case)",
                    g.index,
                )
            )
        noisy = {
            f"link {n.link} {k}={v}": v
            for n in g.nvlinks or ()
            for k, v in n.errors.items()
            if v and k in ("replay", "recovery", "crc_flit", "crc_data")
        }
        if noisy:
            out.append(
                CheckResult(
                    "nvlink",
                    WARN,
                    f"GPU {g.index}: NVLink error counters are not zero",
                    ", ".join(noisy),
                    f"Watch them (`nvidia-smi nvlink -e -i {g.index}`); rising recovery or CRC counts mean a marginal "
                    "link: reseat or open a hardware case",
                    g.index,
                )
            )
    if not out:
        if not any(expected.values()):
            return passed("nvlink", "NVLink-capable GPUs, but no link is active (no bridge or switch): PCIe only")
        per = ", ".join(f"{want} per {name}" for name, want in expected.items())
        return passed("nvlink", f"All expected NVLink links are up ({per})", "error counters zero")
    return out


def _numa_key(g: GpuSnapshot) -> int:
    return -1 if g.numa_node is None else g.numa_node


def _topo_level(snap: HostSnapshot, a: int, b: int) -> int | None:
    """The topology level between GPUs a and b (nvmlGpuTopologyLevel_t), None when unknown."""
    try:
        return (snap.topology or ())[a][b]
    except IndexError:
        return None


def _pair_level(snap: HostSnapshot, a: int, b: int) -> int:
    """`_topo_level` for ordering: unknown sorts after every known level."""
    level = _topo_level(snap, a, b)
    return 99 if level is None else level


def suggest_device_order(snap: HostSnapshot) -> list[int]:
    """GPU indices ordered so that neighbours (0-1, 2-3, ...) share a NUMA node and the closest PCIe ancestor."""
    gpus = live_gpus(snap)
    if snap.topology is None or len(gpus) < 2:
        return [g.index for g in gpus]
    groups: dict[int, list[int]] = defaultdict(list)
    for g in sorted(gpus, key=lambda g: g.index):
        groups[_numa_key(g)].append(g.index)
    order: list[int] = []
    for _node, members in sorted(groups.items(), key=lambda kv: min(kv[1])):
        rest = list(members)
        while rest:
            first = rest.pop(0)
            order.append(first)
            if rest:
                partner = min(rest, key=lambda b: (_pair_level(snap, first, b), b))
                rest.remove(partner)
                order.append(partner)
    return order


def _pair_cost(order: list[int], snap: HostSnapshot) -> int:
    return sum(_pair_level(snap, order[k], order[k + 1]) for k in range(0, len(order) - 1, 2))


def check_topology(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    gpus = live_gpus(snap)
    if len(gpus) < 2:
        return skipped("topology", "Fewer than two GPUs: no order to choose")
    if snap.topology is None:
        return skipped("topology", "PCIe topology unknown (nvmlDeviceGetTopologyCommonAncestor not supported)")
    natural = sorted(g.index for g in gpus)
    order = suggest_device_order(snap)
    pairs = []
    for k in range(0, len(order) - 1, 2):
        a, b = order[k], order[k + 1]
        level = _topo_level(snap, a, b)
        pairs.append(f"{a}-{b}: {'unknown' if level is None else TOPOLOGY_LEVELS.get(level, 'unknown')}")
    numa = ", ".join(f"GPU {g.index}: node {g.numa_node}" for g in gpus if g.numa_node is not None)
    nvswitch = all((g.active_nvlinks or 0) > 0 for g in gpus)
    evidence = "pairs " + "; ".join(pairs) + (f"; NUMA {numa}" if numa else "")
    if nvswitch:
        evidence += "; GPU-to-GPU traffic goes over NVLink, the order matters for CPU/NIC affinity"
    visible = ",".join(str(i) for i in order)
    if _pair_cost(order, snap) < _pair_cost(natural, snap):
        return [
            CheckResult(
                "topology",
                WARN,
                f"Neighbouring GPUs in index order cross PCIe switches or NUMA nodes; suggested order {visible}",
                evidence,
                f"export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES={visible}",
            )
        ]
    return passed(
        "topology",
        f"Index order keeps pairs on one switch/NUMA node: CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES={visible}",
        evidence,
    )
