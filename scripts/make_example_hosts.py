"""Write the synthetic example hosts in examples/hosts/ (the recorder's JSON format).

They are built from NVML's field semantics — what each query returns on such a board, "not
supported" as null — not read from a machine, so that the doctor, the exporter and the fleet code
have the same three hosts to work on everywhere. Each file says so: `"synthetic": true` and a
`"note"` at the top level (`gpuwise.hw.read_recording` reads both). The faults are planted,
not observed:

- healthy-8x-h100-nvlink.json: an HGX H100 node under load, NVSwitch fabric, everything fine.
- faulty-8x-a100.json: an HGX A100 node with six faults (a dead PID holding 20 GiB on GPU 1; GPU 5
  trained at Gen3 x8 under load; NVLink 7 of GPU 3 down and GPU 3's VBIOS unlike its peers; CPU
  governor powersave; a pending row remap on GPU 6; HW thermal slowdown on GPU 2).
- workstation-2x-rtx4090-pcie.json: two GeForce RTX 4090 on PCIe, no NVLink, no ECC (null).

    python scripts/make_example_hosts.py [OUT_DIR]
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from gpuwise.hw import (
    NVLINK_ERROR_COUNTERS,
    CState,
    GpuSnapshot,
    HostSnapshot,
    NvLinkSnapshot,
    ProcessSnapshot,
    XidEvent,
    record,
)

MiB = 2**20
GiB = 2**30
ZERO_LINK_ERRORS = dict.fromkeys(NVLINK_ERROR_COUNTERS, 0)


def _links(count: int, version: int, switches: list[str], down: tuple[int, ...] = ()) -> tuple[NvLinkSnapshot, ...]:
    per = -(-count // len(switches))
    return tuple(
        NvLinkSnapshot(
            link=i,
            active=i not in down,
            version=None if i in down else version,
            remote_bus_id=None if i in down else switches[i // per],
            errors=dict(ZERO_LINK_ERRORS),
        )
        for i in range(count)
    )


def _topology(n: int, numa: list[int], pair_level: int | None = None) -> tuple[tuple[int, ...], ...]:
    rows = []
    for i in range(n):
        row = []
        for j in range(n):
            if i == j:
                row.append(0)
            elif pair_level is not None and i // 2 == j // 2:
                row.append(pair_level)  # the two GPUs behind one PCIe switch
            else:
                row.append(40 if numa[i] == numa[j] else 50)  # TOPOLOGY_LEVELS: node / system
        rows.append(tuple(row))
    return tuple(rows)


def _h100_gpu(i: int, bus: list[str], switches: list[str]) -> GpuSnapshot:
    """One HGX H100 GPU of the healthy node under load."""
    return GpuSnapshot(
        index=i,
        uuid=f"GPU-5c1d3f0a-7b1e-4c2a-9e{i:02d}-8f3a1b2c4d{i:02d}",
        serial=f"165232300{4110 + i}",
        name="NVIDIA H100 80GB HBM3",
        catalog_id="h100-sxm",
        pci_bus_id=bus[i],
        vbios="96.00.99.00.01",
        inforom="G520.0200.00.05",
        memory_total_bytes=81559 * MiB,
        memory_used_bytes=(70 * 1024 + 113 * i) * MiB,
        utilization_gpu=0.97 - 0.01 * (i % 3),
        utilization_memory=0.41,
        temperature_celsius=61.0 + i % 4,
        temperature_slowdown_celsius=87.0,
        temperature_shutdown_celsius=92.0,
        memory_temperature_celsius=55.0 + i % 3,
        memory_temperature_max_celsius=95.0,
        power_watts=648.5 + 3 * i,
        power_limit_watts=700.0,
        clock_sm_hz=1980e6,
        clock_mem_hz=2619e6,
        clock_sm_max_hz=1980e6,
        clock_mem_max_hz=2619e6,
        throttle_reasons=0x4 if i in (2, 5) else 0x0,  # SW power cap near the limit: normal
        ecc_enabled=True,
        ecc_corrected_volatile=0,
        ecc_uncorrected_volatile=0,
        ecc_corrected_aggregate=2 if i == 4 else 0,
        ecc_uncorrected_aggregate=0,
        retired_pages_sbe=None,  # Hopper remaps rows instead of retiring pages: not supported
        retired_pages_dbe=None,
        retired_pages_pending=None,
        remapped_rows_corrected=0,
        remapped_rows_uncorrected=0,
        remap_pending=False,
        remap_failure=False,
        pcie_gen=5,
        pcie_width=16,
        pcie_gen_max=5,
        pcie_width_max=16,
        pcie_replay_count=0,
        pcie_tx_bytes_per_second=1.21e9,
        pcie_rx_bytes_per_second=3.05e9,
        nvlinks=_links(18, 4, switches),
        nvlink_tx_bytes=412_345_678_901_248 + i * 1024,
        nvlink_rx_bytes=412_300_011_223_040 + i * 1024,
        persistence_mode=True,
        mig_mode=False,
        processes=(
            ProcessSnapshot(
                pid=41230 + i,
                used_memory_bytes=(70 * 1024 + 113 * i - 600) * MiB,
                state="alive",
                name="python3",
            ),
        ),
        numa_node=0 if i < 4 else 1,
    )


def healthy_h100() -> HostSnapshot:
    switches = ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]
    bus = [
        "0000:18:00.0",
        "0000:2a:00.0",
        "0000:3a:00.0",
        "0000:5d:00.0",
        "0000:9a:00.0",
        "0000:ab:00.0",
        "0000:ba:00.0",
        "0000:db:00.0",
    ]
    gpus = []
    for i in range(8):
        gpus.append(_h100_gpu(i, bus, switches))
    numa = [g.numa_node or 0 for g in gpus]
    return HostSnapshot(
        hostname="hgx-h100-07",
        time="2026-11-02T09:14:05+00:00",
        driver_version="550.90.07",
        cuda_driver_version="12.4",
        cuda_runtime_version="12.1",
        torch_version="2.3.1+cu121",
        cpu_governors={c: "performance" for c in range(224)},
        cpuidle_driver="intel_idle",
        cstates=(
            CState("POLL", 0, False),
            CState("C1", 2, False),
            CState("C1E", 10, False),
            CState("C6", 170, True),
        ),
        kernel_cmdline="BOOT_IMAGE=/vmlinuz-5.15.0-105-generic root=/dev/mapper/vg0-root ro intel_iommu=on iommu=pt processor.max_cstate=1 intel_idle.max_cstate=1",
        nccl_env={"NCCL_DEBUG": "WARN", "NCCL_IB_HCA": "mlx5", "NCCL_SOCKET_IFNAME": "bond0"},
        infiniband_devices=tuple(f"mlx5_{k}" for k in range(8)),
        net_interfaces=("bond0", "eno1", "eno2", "ibp12s0", "ibp75s0", "ibp141s0", "ibp186s0", "lo"),
        xid_events=(),
        kernel_log_error=None,
        in_container=False,
        topology=_topology(8, numa),
        gpus=tuple(gpus),
    )


def _a100_gpu(i: int, bus: list[str], switches: list[str]) -> GpuSnapshot:
    """One HGX A100 GPU as it would be without the planted faults."""
    return GpuSnapshot(
        index=i,
        uuid=f"GPU-a1b2c3d4-0e0f-4a10-b1{i:02d}-c2d3e4f5a6{i:02d}",
        serial=f"132462001{2280 + i}",
        name="NVIDIA A100-SXM4-80GB",
        catalog_id="a100-80gb-sxm",
        pci_bus_id=bus[i],
        vbios="92.00.36.00.02",
        inforom="G506.0210.00.04",
        memory_total_bytes=81920 * MiB,
        memory_used_bytes=61 * GiB,
        utilization_gpu=0.88,
        utilization_memory=0.35,
        temperature_celsius=66.0 + i % 3,
        temperature_slowdown_celsius=89.0,
        temperature_shutdown_celsius=92.0,
        memory_temperature_celsius=71.0,
        memory_temperature_max_celsius=95.0,
        power_watts=355.0,
        power_limit_watts=400.0,
        clock_sm_hz=1410e6,
        clock_mem_hz=1593e6,
        clock_sm_max_hz=1410e6,
        clock_mem_max_hz=1593e6,
        throttle_reasons=0x0,
        ecc_enabled=True,
        ecc_corrected_volatile=0,
        ecc_uncorrected_volatile=0,
        ecc_corrected_aggregate=0,
        ecc_uncorrected_aggregate=0,
        retired_pages_sbe=None,  # Ampere remaps rows: page retirement not supported
        retired_pages_dbe=None,
        retired_pages_pending=None,
        remapped_rows_corrected=0,
        remapped_rows_uncorrected=0,
        remap_pending=False,
        remap_failure=False,
        pcie_gen=4,
        pcie_width=16,
        pcie_gen_max=4,
        pcie_width_max=16,
        pcie_replay_count=0,
        pcie_tx_bytes_per_second=0.82e9,
        pcie_rx_bytes_per_second=2.4e9,
        nvlinks=_links(12, 3, switches),
        nvlink_tx_bytes=98_765_432_101_248,
        nvlink_rx_bytes=98_700_001_234_944,
        persistence_mode=True,
        mig_mode=False,
        processes=(
            ProcessSnapshot(pid=51100 + i, used_memory_bytes=61 * GiB - 500 * MiB, state="alive", name="python"),
        ),
        numa_node=0 if i < 4 else 1,
    )


def faulty_a100() -> HostSnapshot:
    switches = [f"0000:{b}:00.0" for b in ("c1", "c2", "c3", "c4", "c5", "c6")]
    bus = [
        "0000:07:00.0",
        "0000:0f:00.0",
        "0000:47:00.0",
        "0000:4e:00.0",
        "0000:87:00.0",
        "0000:90:00.0",
        "0000:b7:00.0",
        "0000:bd:00.0",
    ]
    gpus = []
    for i in range(8):
        g = _a100_gpu(i, bus, switches)
        if i == 1:  # memory held by a process that no longer exists
            g = replace(
                g,
                memory_used_bytes=61 * GiB + 20 * GiB,
                processes=(
                    *g.processes,  # type: ignore[misc]
                    ProcessSnapshot(pid=48213, used_memory_bytes=20 * GiB, state="gone", name=None),
                ),
            )
        if i == 2:  # HW thermal slowdown: clocks cut, temperature at the edge
            g = replace(
                g,
                temperature_celsius=87.0,
                memory_temperature_celsius=88.0,
                throttle_reasons=0x40 | 0x20,
                clock_sm_hz=1005e6,
            )
        if i == 3:  # one NVLink down, and a VBIOS unlike its peers
            g = replace(g, vbios="92.00.45.00.03", nvlinks=_links(12, 3, switches, down=(7,)))
        if i == 5:  # PCIe trained at Gen3 x8 while busy (max Gen4 x16)
            g = replace(g, pcie_gen=3, pcie_width=8, utilization_gpu=0.93)
        if i == 6:  # a row remap waiting for a GPU reset
            g = replace(
                g, remapped_rows_corrected=1, remap_pending=True, ecc_corrected_aggregate=14, ecc_corrected_volatile=3
            )
        gpus.append(g)
    numa = [g.numa_node or 0 for g in gpus]
    return HostSnapshot(
        hostname="dgx-a100-12",
        time="2026-11-02T10:02:41+00:00",
        driver_version="535.161.08",
        cuda_driver_version="12.2",
        cuda_runtime_version="12.1",
        torch_version="2.3.1+cu121",
        cpu_governors={c: "powersave" for c in range(256)},
        cpuidle_driver="acpi_idle",
        cstates=(CState("POLL", 0, False), CState("C1", 1, False), CState("C2", 400, True)),
        kernel_cmdline="BOOT_IMAGE=/vmlinuz-5.15.0-91-generic root=/dev/md0 ro amd_iommu=on iommu=pt",
        nccl_env={"NCCL_IB_HCA": "mlx5", "NCCL_SOCKET_IFNAME": "enp226s0"},
        infiniband_devices=tuple(f"mlx5_{k}" for k in range(10)),
        net_interfaces=("enp225s0f0", "enp226s0", "ibp12s0", "ibp75s0", "lo"),
        xid_events=(
            XidEvent(
                xid=63,
                bus_id="0000:b7:00.0",
                message="pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, reset gpu to activate.",
                seq=88211,
            ),
        ),
        kernel_log_error=None,
        in_container=False,
        topology=_topology(8, numa, pair_level=20),
        gpus=tuple(gpus),
    )


def _rtx4090_gpu(i: int) -> GpuSnapshot:
    """One GeForce RTX 4090 of the workstation (GPU 0 idle, GPU 1 busy)."""
    return GpuSnapshot(
        index=i,
        uuid=f"GPU-0d9c8b7a-6f5e-4d3c-8b{i:02d}-1a2b3c4d5e{i:02d}",
        serial=None,  # GeForce boards: not supported
        name="NVIDIA GeForce RTX 4090",
        catalog_id="rtx-4090",
        pci_bus_id=["0000:01:00.0", "0000:4c:00.0"][i],
        vbios="95.02.3C.40.A3",
        inforom="G002.0000.00.03",
        memory_total_bytes=24564 * MiB,
        memory_used_bytes=[412 * MiB, 21 * GiB][i],
        utilization_gpu=[0.0, 0.99][i],
        utilization_memory=[0.0, 0.62][i],
        temperature_celsius=[34.0, 71.0][i],
        temperature_slowdown_celsius=90.0,
        temperature_shutdown_celsius=95.0,
        memory_temperature_celsius=None,  # GeForce: not supported
        memory_temperature_max_celsius=None,
        power_watts=[21.3, 437.9][i],
        power_limit_watts=450.0,
        clock_sm_hz=[210e6, 2715e6][i],
        clock_mem_hz=[405e6, 10501e6][i],
        clock_sm_max_hz=3120e6,
        clock_mem_max_hz=10501e6,
        throttle_reasons=[0x1, 0x4][i],  # idle / SW power cap: both normal
        ecc_enabled=None,  # ECC: not supported on this board
        ecc_corrected_volatile=None,
        ecc_uncorrected_volatile=None,
        ecc_corrected_aggregate=None,
        ecc_uncorrected_aggregate=None,
        retired_pages_sbe=None,
        retired_pages_dbe=None,
        retired_pages_pending=None,
        remapped_rows_corrected=None,
        remapped_rows_uncorrected=None,
        remap_pending=None,
        remap_failure=None,
        pcie_gen=[1, 4][i],  # GPU 0 idles: its link dropped to Gen1 to save power
        pcie_width=16,
        pcie_gen_max=4,
        pcie_width_max=16,
        pcie_replay_count=0,
        pcie_tx_bytes_per_second=[0.0, 0.41e9][i],
        pcie_rx_bytes_per_second=[0.0, 1.9e9][i],
        nvlinks=None,  # no NVLink on the RTX 4090
        nvlink_tx_bytes=None,
        nvlink_rx_bytes=None,
        persistence_mode=False,
        mig_mode=None,
        processes=(
            ()
            if i == 0
            else (ProcessSnapshot(pid=9921, used_memory_bytes=20 * GiB + 700 * MiB, state="alive", name="python"),)
        ),
        numa_node=None,
    )


def workstation_4090() -> HostSnapshot:
    gpus = []
    for i in range(2):
        gpus.append(_rtx4090_gpu(i))
    return HostSnapshot(
        hostname="ws-rtx",
        time="2026-11-02T18:40:12+00:00",
        driver_version="550.107.02",
        cuda_driver_version="12.4",
        cuda_runtime_version="12.1",
        torch_version="2.3.1+cu121",
        cpu_governors={c: "schedutil" for c in range(32)},
        cpuidle_driver="acpi_idle",
        cstates=(CState("POLL", 0, False), CState("C1", 1, False), CState("C2", 18, False), CState("C3", 350, False)),
        kernel_cmdline="BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic root=UUID=3f1c2b8e-1f7a-4a55-9d0e-2c4b6a8d0e11 ro quiet splash",
        nccl_env={},
        infiniband_devices=None,
        net_interfaces=("enp5s0", "lo", "wlp6s0"),
        xid_events=None,
        kernel_log_error="dmesg: read kernel buffer failed: Operation not permitted",
        in_container=False,
        topology=((0, 30), (30, 0)),
        gpus=tuple(gpus),
    )


NOTE = "Synthetic host: built by scripts/make_example_hosts.py from NVML's field semantics, not read from a machine. "


def main(out: Path) -> None:
    for name, snap, what in (
        ("healthy-8x-h100-nvlink.json", healthy_h100(), "Every value is one a healthy board under load reports."),
        ("faulty-8x-a100.json", faulty_a100(), "Its six faults are planted, not observed."),
        ("workstation-2x-rtx4090-pcie.json", workstation_4090(), "GeForce cards: unsupported queries are null."),
    ):
        print(record(snap, out / name, synthetic=True, note=NOTE + what))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "examples" / "hosts")
