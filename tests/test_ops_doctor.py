"""Every doctor check on the recorded hosts (healthy, faulty, workstation) and on edited copies of
them for the cases the recordings do not hold."""

from dataclasses import replace
from pathlib import Path

import pytest

from gpuwise.hw import CState, HostSnapshot, ProcessSnapshot, ReplaySource, XidEvent
from gpuwise.ops.doctor import (
    CHECK_IDS,
    FAIL,
    PASS,
    SKIP,
    WARN,
    DoctorOptions,
    run_checks,
    suggest_device_order,
)

HOSTS = Path(__file__).resolve().parent.parent / "examples" / "hosts"


def host(name: str) -> HostSnapshot:
    return ReplaySource(HOSTS / f"{name}.json").read()


@pytest.fixture(scope="module")
def healthy():
    return host("healthy-8x-h100-nvlink")


@pytest.fixture(scope="module")
def faulty():
    return host("faulty-8x-a100")


@pytest.fixture(scope="module")
def workstation():
    return host("workstation-2x-rtx4090-pcie")


def statuses(report, check):
    return [r.status for r in report.by_check(check)]


def only(report, check, status=None):
    found = [r for r in report.by_check(check) if status is None or r.status == status]
    assert len(found) == 1, report.by_check(check)
    return found[0]


def edit_gpu(snap, index, **changes):
    return replace(snap, gpus=tuple(replace(g, **changes) if g.index == index else g for g in snap.gpus))


# ----- the three recorded hosts -------------------------------------------------------------------
def test_healthy_host_passes_every_check(healthy):
    report = run_checks(healthy)
    assert not report.failed and report.exit_code == 0
    assert {r.status for r in report.results} == {PASS}
    assert {r.check for r in report.results} == set(CHECK_IDS)  # every check ran


def test_faulty_host_each_fault_is_found_and_named(faulty):
    report = run_checks(faulty)
    assert report.failed and report.exit_code == 1

    leak = only(report, "leaked-memory", FAIL)
    assert leak.gpu == 1 and "PID 48213" in leak.summary and "20.0 GiB" in leak.summary
    assert "fuser" in leak.fix and "--gpu-reset -i 1" in leak.fix

    pcie = only(report, "pcie-link", FAIL)
    assert pcie.gpu == 5 and "Gen3 x8" in pcie.summary and "Gen4 x16" in pcie.summary and "lspci" in pcie.fix

    link = only(report, "nvlink", FAIL)
    assert link.gpu == 3 and "NVLink 7" in link.summary

    fw = only(report, "firmware", FAIL)  # mismatch plus a link down: FAIL, not WARN
    assert fw.gpu == 3 and "92.00.45.00.03" in fw.summary and "NVLink" in fw.summary

    gov = only(report, "cpu-governor", WARN)
    assert "powersave on 256 of 256" in gov.evidence and "cpupower frequency-set -g performance" in gov.fix

    ecc = only(report, "ecc", FAIL)
    assert ecc.gpu == 6 and "remap pending" in ecc.summary and "nvidia-smi -r -i 6" in ecc.fix

    throttle = only(report, "throttling", FAIL)
    assert throttle.gpu == 2 and "HW thermal slowdown" in throttle.summary

    temp = only(report, "temperature", WARN)
    assert temp.gpu == 2

    xid = only(report, "xid", WARN)
    assert xid.gpu == 6 and "XID 63" in xid.summary

    fails = {(r.check, r.gpu) for r in report.results if r.status == FAIL}
    assert fails == {
        ("leaked-memory", 1),
        ("pcie-link", 5),
        ("nvlink", 3),
        ("firmware", 3),
        ("ecc", 6),
        ("throttling", 2),
    }


def test_workstation_unknown_ecc_is_skip_not_fail(workstation):
    report = run_checks(workstation)
    assert not report.failed
    ecc = only(report, "ecc")
    assert ecc.status == SKIP and "not supported" in ecc.summary and "unknown" in ecc.summary
    assert statuses(report, "nvlink") == [SKIP]
    idle = only(report, "pcie-link", WARN)  # GPU 0 idles at Gen1: not judged
    assert idle.gpu == 0 and "idle" in idle.summary
    assert statuses(report, "xid") == [SKIP] and "Operation not permitted" in only(report, "xid").evidence
    assert statuses(report, "persistence-mode") == [WARN] and "nvidia-smi -pm 1" in only(report, "persistence-mode").fix
    cst = only(report, "cstates", WARN)
    assert "C3 (350 µs)" in cst.summary and "max_cstate" in cst.fix


def test_every_result_carries_evidence_or_a_fix(faulty, workstation):
    for snap in (faulty, workstation):
        for r in run_checks(snap).results:
            assert r.status in (PASS, WARN, FAIL, SKIP)
            if r.status in (WARN, FAIL):
                assert r.fix, r


# ----- no NVIDIA hardware (this machine, CI) ----------------------------------------------------------
def test_without_nvidia_it_says_so_and_checks_the_host():
    snap = HostSnapshot(
        hostname="ci",
        time="2026-11-02T00:00:00+00:00",
        nvml_error="the NVML library (libnvidia-ml.so) was not found",
        cpu_governors={0: "powersave", 1: "powersave"},
        cstates=(CState("POLL", 0, False), CState("C6", 133, False)),
        nccl_env={"NCCL_IB_DISABLE": "1"},
        infiniband_devices=("mlx5_0",),
    )
    report = run_checks(snap)
    assert not report.has_nvidia and not report.failed
    assert "No NVIDIA GPU or driver" in report.headline
    assert [r.check for r in report.results] == ["driver", "cpu-governor", "cstates", "nccl"]
    assert only(report, "driver").status == SKIP
    assert statuses(report, "cpu-governor") == [WARN]
    assert statuses(report, "cstates") == [WARN]
    assert only(report, "nccl", WARN).summary.startswith("NCCL_IB_DISABLE=1")


# ----- single checks on edited hosts -----------------------------------------------------------------
def test_a_missing_binding_is_not_called_a_missing_gpu():
    snap = HostSnapshot(
        hostname="h",
        time="2026-11-02T00:00:00+00:00",
        nvml_error="nvidia-ml-py is not installed (pip install 'gpuwise[ops]')",
    )
    report = run_checks(snap)
    assert report.headline.startswith("NVIDIA GPUs not readable here") and "gpuwise[ops]" in only(report, "driver").fix


def test_cuda_runtime_newer_than_the_driver_fails(healthy):
    report = run_checks(replace(healthy, cuda_runtime_version="12.6", torch_version="2.6.0+cu126"))
    r = only(report, "cuda-runtime", FAIL)
    assert "12.6" in r.summary and "12.4" in r.summary
    cpu_torch = run_checks(replace(healthy, cuda_runtime_version=None, torch_version="2.6.0+cpu"))
    assert "CPU build" in only(cpu_torch, "cuda-runtime", SKIP).summary


def test_a_version_with_a_non_ascii_digit_does_not_crash_the_check(healthy):
    """'12.²' (a replayed recording): '²' passed isdigit() and int() raised, so the check crashed;
    only ASCII digits are read, so the runtime reads as 12, not newer than the driver's 12.4."""
    report = run_checks(replace(healthy, cuda_runtime_version="12.\u00b2", torch_version="2.6.0+cu124"))
    assert "12.\u00b2 runs on this driver" in only(report, "cuda-runtime", PASS).summary


def test_pcie_link_below_max_under_load_fails_and_idle_warns(healthy):
    busy = edit_gpu(healthy, 4, pcie_gen=4)
    assert only(run_checks(busy), "pcie-link").status == FAIL
    idle = edit_gpu(healthy, 4, pcie_gen=1, utilization_gpu=0.0)
    assert only(run_checks(idle), "pcie-link").status == WARN


def test_pcie_replays_rising_warn_with_two_readings(healthy):
    later = replace(edit_gpu(healthy, 2, pcie_replay_count=900), time="2026-11-02T09:14:15+00:00")
    report = run_checks(later, DoctorOptions(previous=healthy))
    r = only(report, "pcie-replays", WARN)
    assert r.gpu == 2 and "5400/min" in r.summary
    quiet = replace(healthy, time="2026-11-02T09:14:15+00:00")
    assert statuses(run_checks(quiet, DoctorOptions(previous=healthy)), "pcie-replays") == [PASS]
    many = edit_gpu(healthy, 1, pcie_replay_count=50_000)
    assert only(run_checks(many), "pcie-replays").status == WARN


def test_nvlink_error_counters_warn(healthy):
    g = healthy.gpu(0)
    links = (replace(g.nvlinks[0], errors={**g.nvlinks[0].errors, "recovery": 3}), *g.nvlinks[1:])
    r = only(run_checks(edit_gpu(healthy, 0, nvlinks=links)), "nvlink", WARN)
    assert "link 0 recovery=3" in r.evidence


def test_firmware_mismatch_without_a_link_down_warns(healthy):
    r = only(run_checks(edit_gpu(healthy, 5, vbios="96.00.30.00.01")), "firmware")
    assert r.status == WARN and r.gpu == 5


def test_topology_suggests_an_order_keeping_pairs_together(healthy):
    # GPUs 0 and 2 share a PCIe switch, as do 1 and 3; index order pairs 0-1 across switches.
    topo = [[0, 40, 10, 40], [40, 0, 40, 10], [10, 40, 0, 40], [40, 10, 40, 0]]
    snap = replace(
        healthy, gpus=tuple(replace(g, numa_node=0) for g in healthy.gpus[:4]), topology=tuple(map(tuple, topo))
    )
    assert suggest_device_order(snap) == [0, 2, 1, 3]
    r = only(run_checks(snap), "topology", WARN)
    assert "CUDA_VISIBLE_DEVICES=0,2,1,3" in r.fix and "CUDA_DEVICE_ORDER=PCI_BUS_ID" in r.fix


def test_topology_keeps_numa_nodes_together(faulty):
    mixed = replace(faulty, gpus=tuple(replace(g, numa_node=g.index % 2) for g in faulty.gpus))
    assert suggest_device_order(mixed)[:4] == [0, 2, 4, 6]


def test_zombie_and_container_pids(faulty):
    zombie = edit_gpu(faulty, 4, processes=(ProcessSnapshot(pid=777, used_memory_bytes=2**30, state="zombie"),))
    found = [r for r in run_checks(zombie).by_check("leaked-memory") if r.gpu == 4]
    assert found[0].status == FAIL and "PID 777 is a zombie" in found[0].summary
    hidden = replace(
        faulty,
        in_container=True,
        gpus=tuple(replace(g, processes=tuple(replace(p, state="gone") for p in g.processes)) for g in faulty.gpus),
    )
    assert set(statuses(run_checks(hidden), "leaked-memory")) == {WARN}


def test_uncorrectable_ecc_and_remap_failure_fail(healthy):
    report = run_checks(edit_gpu(healthy, 7, ecc_uncorrected_aggregate=2, remap_failure=True))
    summaries = [r.summary for r in report.by_check("ecc")]
    assert any("row remapping failed" in s for s in summaries) and any("2 uncorrectable" in s for s in summaries)
    assert all(r.status == FAIL and r.gpu == 7 for r in report.by_check("ecc"))


def test_throttle_reasons_idle_and_power_cap_are_normal(healthy):
    assert statuses(run_checks(edit_gpu(healthy, 0, throttle_reasons=0x1 | 0x4)), "throttling") == [PASS]
    assert only(run_checks(edit_gpu(healthy, 0, throttle_reasons=0x80)), "throttling").status == FAIL
    assert only(run_checks(edit_gpu(healthy, 0, throttle_reasons=0x20)), "throttling").status == WARN


def test_xid_fall_off_the_bus_fails_and_application_xids_pass(healthy):
    bus = healthy.gpu(4).pci_bus_id
    bad = replace(healthy, xid_events=(XidEvent(79, bus, "GPU has fallen off the bus.", 1),))
    r = only(run_checks(bad), "xid", FAIL)
    assert r.gpu == 4 and "XID 79" in r.summary
    app = replace(healthy, xid_events=(XidEvent(13, bus, "Graphics Exception", 2),))
    assert statuses(run_checks(app), "xid") == [PASS]


def test_lost_gpu_fails_gpu_health(healthy):
    lost = edit_gpu(
        healthy, 3, lost=True, errors={"memory": "nvmlDeviceGetMemoryInfo: GPU is lost (fell off the bus?)"}
    )
    r = only(run_checks(lost), "gpu-health", FAIL)
    assert r.gpu == 3 and "XID 79" in r.fix


def test_nccl_contradictions(healthy):
    env = {"NCCL_IB_DISABLE": "1", "NCCL_P2P_DISABLE": "1", "NCCL_SOCKET_IFNAME": "eth9", "NCCL_IB_HCA": "=mlx4_0"}
    summaries = [r.summary for r in run_checks(replace(healthy, nccl_env=env)).by_check("nccl")]
    assert len(summaries) == 4
    assert any("NCCL_P2P_DISABLE=1" in s for s in summaries) and any("eth9" in s for s in summaries)
    fine = {"NCCL_SOCKET_IFNAME": "^docker,lo", "NCCL_IB_HCA": "mlx5_0:1,mlx5_1:1"}
    assert statuses(run_checks(replace(healthy, nccl_env=fine)), "nccl") == [PASS]


def test_cstates_not_judged_off_latency_hosts(workstation):
    assert statuses(run_checks(workstation, DoctorOptions(latency_sensitive=False)), "cstates") == [PASS]


def test_a_broken_check_fails_naming_the_exception_and_the_others_still_run(healthy, monkeypatch):
    import gpuwise.ops.doctor as doctor

    def boom(snap, opts):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(doctor, "GPU_CHECKS", ((*doctor.GPU_CHECKS[:1], ("ecc", boom))))
    report = doctor.run_checks(healthy)
    crashed = only(report, "ecc", FAIL)
    assert "crashed (ZeroDivisionError: bug)" in crashed.summary and crashed.fix
    assert report.exit_code == 1 and report.counts["FAIL"] == 1  # the healthy host fails only by the crash
    assert statuses(report, doctor.GPU_CHECKS[0][0])  # the check before it still ran


def test_report_json_shape(faulty):
    d = run_checks(faulty).as_dict()
    assert d["summary"]["FAIL"] == 6 and d["has_nvidia"] is True
    assert {"check", "status", "summary", "evidence", "fix", "gpu"} == set(d["results"][0])
