"""The hardware door: NVML through one helper (fake NVML per scenario), sysfs/procfs under a fake
root, the recorder and the replay source, and the NVML-name -> catalog mapping."""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from gpuwise.catalog.identity import identify
from gpuwise.errors import UsageError
from gpuwise.hw import (
    HostSnapshot,
    NvmlSource,
    ReplaySource,
    decode_throttle,
    load_recording,
    normalize_bus_id,
    nvml_call,
    parse_xid_lines,
    read_host_facts,
    read_recording,
    record,
)
from gpuwise.hw.nvml import gpu_clocks

from .ops_fakes import FakeGpu, FakeNvml, NVMLError_LibraryNotFound, fake_host

ROOT = Path(__file__).resolve().parent.parent
HOSTS = ROOT / "examples" / "hosts"
RECORDINGS = sorted(HOSTS.glob("*.json"))


def read(nvml, tmp_path, **kw):
    return NvmlSource(nvml, root=tmp_path, environ={}, hostname="node-1", **kw).read()


# ----- recordings ------------------------------------------------------------------------------
def test_the_three_example_hosts_load():
    names = {p.name for p in RECORDINGS}
    assert {"healthy-8x-h100-nvlink.json", "faulty-8x-a100.json", "workstation-2x-rtx4090-pcie.json"} <= names
    for path in RECORDINGS:
        snap = ReplaySource(path).read()
        assert snap.gpus and all(g.uuid and g.catalog_id for g in snap.gpus)


def test_record_then_replay_gives_back_the_same_snapshot(tmp_path):
    snap = ReplaySource(HOSTS / "faulty-8x-a100.json").read()
    out = record(snap, tmp_path / "copy.json")
    again = ReplaySource(out).read()
    assert again == snap
    assert json.loads(out.read_text())["snapshot"]["gpus"][0]["retired_pages_sbe"] is None  # unknown stays null


def test_a_recorded_sequence_plays_in_order_then_repeats_the_last(tmp_path):
    snap = ReplaySource(HOSTS / "workstation-2x-rtx4090-pcie.json").read()
    later = replace(snap, time="2026-11-02T18:41:12+00:00")
    src = ReplaySource(record([snap, later], tmp_path / "seq.json"))
    assert [src.read().time, src.read().time, src.read().time] == [snap.time, later.time, later.time]


def test_bad_recordings_are_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="no recording"):
        ReplaySource(tmp_path / "missing.json")
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(UsageError, match="not valid JSON"):
        load_recording(tmp_path / "x.json")
    (tmp_path / "y.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(UsageError, match="not a gpuwise host recording"):
        load_recording(tmp_path / "y.json")
    doc = json.loads((HOSTS / "healthy-8x-h100-nvlink.json").read_text())
    doc["snapshot"]["gpus"][0]["temprature_celsius"] = 50  # a typo in a hand-written file
    (tmp_path / "z.json").write_text(json.dumps(doc))
    with pytest.raises(UsageError, match="temprature_celsius"):
        load_recording(tmp_path / "z.json")


def test_example_hosts_say_they_are_synthetic():
    for path in RECORDINGS:
        rec = read_recording(path)
        assert rec.synthetic is True, path.name
        assert rec.note and "make_example_hosts.py" in rec.note and "not read from a machine" in rec.note
        src = ReplaySource(path)
        assert src.synthetic is True and src.note == rec.note


def test_synthetic_flag_and_note_round_trip_and_default_to_a_real_reading(tmp_path):
    snap = ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json").read()
    plain = read_recording(record(snap, tmp_path / "plain.json"))
    assert (plain.synthetic, plain.note) == (False, None)
    assert "synthetic" not in json.loads((tmp_path / "plain.json").read_text())
    built = read_recording(record([snap, snap], tmp_path / "built.json", synthetic=True, note="made by hand"))
    assert (built.synthetic, built.note, len(built.snapshots)) == (True, "made by hand", 2)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [("synthetic", "yes", "must be true or false"), ("note", 3, "must be text"), ("synthetc", True, "synthetc")],
)
def test_bad_top_level_fields_are_usage_errors(tmp_path, key, value, message):
    doc = json.loads((HOSTS / "workstation-2x-rtx4090-pcie.json").read_text())
    doc[key] = value
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(UsageError, match=message):
        load_recording(tmp_path / "bad.json")


# ----- NVML through the one helper ------------------------------------------------------------------
def test_nvml_values_arrive_in_si_units(tmp_path):
    nvml = FakeNvml(fake_host(2, processes=[(123, 5 * 2**30)]), topology=[[0, 10], [10, 0]])
    snap = read(nvml, tmp_path)
    assert snap.driver_version == "550.90.07" and snap.cuda_driver_version == "12.4"
    g = snap.gpu(0)
    assert g.name == "NVIDIA H100 80GB HBM3" and g.catalog_id == "h100-sxm"
    assert g.pci_bus_id == "0000:18:00.0"
    assert g.power_watts == 500.0 and g.power_limit_watts == 700.0
    assert g.clock_sm_hz == 1980e6 and g.clock_mem_max_hz == 2619e6
    assert g.utilization_gpu == 0.5
    assert g.temperature_slowdown_celsius == 87 and g.memory_temperature_celsius == 55
    assert (g.ecc_corrected_volatile, g.ecc_corrected_aggregate) == (1, 7)
    assert g.pcie_tx_bytes_per_second == 1.2e9
    assert g.active_nvlinks == 18 and g.nvlinks[0].version == 4 and g.nvlinks[0].remote_bus_id == "0000:05:00.0"
    assert g.nvlink_tx_bytes == 18 * 1000 * 1024 and g.nvlink_rx_bytes == 18 * 2000 * 1024
    assert g.processes[0].pid == 123 and g.processes[0].state == "gone"  # no /proc/123 under the fake root
    assert snap.topology == ((0, 10), (10, 0))
    assert g.errors == {} and not g.lost


def test_not_supported_is_unknown_never_zero(tmp_path):
    faults = {(0, "nvmlDeviceGetPowerUsage"): "unsupported", (0, "nvmlDeviceGetTotalEccErrors"): "unsupported"}
    g = read(FakeNvml(fake_host(1), faults), tmp_path).gpu(0)
    assert g.power_watts is None and g.ecc_corrected_aggregate is None and g.ecc_uncorrected_volatile is None
    assert g.retired_pages_sbe is None  # the fake says Not Supported, like a Hopper board
    assert g.nvlinks[0].errors["ecc_data"] is None and g.nvlinks[0].errors["crc_flit"] == 0
    assert g.errors == {}  # not supported is no error


def test_no_nvlink_is_none_not_an_empty_fabric(tmp_path):
    g = read(FakeNvml(fake_host(1, nvlinks=0)), tmp_path).gpu(0)
    assert g.nvlinks is None and g.active_nvlinks is None and g.nvlink_tx_bytes is None


def test_a_down_link_is_read_as_inactive(tmp_path):
    g = read(FakeNvml([FakeGpu(nvlinks=12, down_links=(7,))]), tmp_path).gpu(0)
    assert len(g.nvlinks) == 12 and g.active_nvlinks == 11 and g.nvlinks[7].active is False


def test_one_failing_field_is_an_error_string_and_the_rest_is_read(tmp_path):
    nvml = FakeNvml(fake_host(2), {(1, "nvmlDeviceGetTemperature"): "error", (1, "nvmlDeviceGetSerial"): "crash"})
    snap = read(nvml, tmp_path)
    g = snap.gpu(1)
    assert g.temperature_celsius is None and not g.lost
    assert "Insufficient Permissions" in g.errors["temperature"]
    assert "RuntimeError" in g.errors["serial"]
    assert g.power_watts == 500.0 and snap.gpu(0).temperature_celsius == 60


def test_a_gpu_lost_mid_read_spoils_only_itself(tmp_path):
    nvml = FakeNvml(fake_host(3), {(1, "nvmlDeviceGetMemoryInfo"): "lost"})
    snap = read(nvml, tmp_path)
    lost = snap.gpu(1)
    assert lost.lost and lost.uuid == "GPU-1" and lost.memory_total_bytes is None and lost.power_watts is None
    assert "lost" in lost.errors["memory"]
    assert calls_after_loss(nvml) == 0  # it stops asking a lost GPU
    assert not snap.gpu(0).lost and not snap.gpu(2).lost and snap.gpu(2).power_watts == 500.0


def calls_after_loss(nvml):
    idx = nvml.calls.index("nvmlDeviceGetMemoryInfo", nvml.calls.index("nvmlDeviceGetMemoryInfo") + 1)
    # calls between GPU 1's failing memory read and GPU 2's handle
    nxt = nvml.calls.index("nvmlDeviceGetHandleByIndex", idx)
    return len([c for c in nvml.calls[idx + 1 : nxt] if c != "nvmlDeviceGetHandleByIndex"])


def test_a_gpu_without_a_handle_is_marked_lost(tmp_path):
    snap = read(FakeNvml(fake_host(2), {(0, "nvmlDeviceGetHandleByIndex"): "lost"}), tmp_path)
    assert snap.gpu(0).lost and snap.gpu(0).uuid is None and not snap.gpu(1).lost
    assert snap.topology[0][1] is None  # no pair reading for a lost GPU


def test_no_driver_says_so_and_still_reads_the_host(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/cmdline").write_text("ro quiet\n")
    snap = NvmlSource(
        FakeNvml([], init_error=NVMLError_LibraryNotFound), root=tmp_path, environ={"NCCL_DEBUG": "WARN"}
    ).read()
    assert not snap.has_nvidia and "libnvidia-ml" in (snap.nvml_error or "") and snap.gpus == ()
    assert snap.kernel_cmdline == "ro quiet" and snap.nccl_env == {"NCCL_DEBUG": "WARN"}


def test_nvml_starts_once_and_shuts_down_on_close(tmp_path):
    nvml = FakeNvml(fake_host(1))
    with NvmlSource(nvml, root=tmp_path, environ={}) as src:
        src.read()
        src.read()
    assert nvml.initialized == 1 and nvml.shutdowns == 1


def test_nvml_call_statuses():
    nvml = FakeNvml(fake_host(1), {(0, "nvmlDeviceGetName"): "unsupported", (0, "nvmlDeviceGetUUID"): "lost"})
    errors: dict[str, str] = {}
    assert nvml_call(nvml, errors, "name", "nvmlDeviceGetName", 0) == (None, "unsupported")
    assert nvml_call(nvml, errors, "uuid", "nvmlDeviceGetUUID", 0) == (None, "lost")
    assert nvml_call(nvml, errors, "x", "nvmlDeviceGetNoSuchThing", 0) == (None, "unsupported")
    assert nvml_call(nvml, errors, "count", "nvmlDeviceGetCount") == (1, "ok")
    assert set(errors) == {"uuid"}


# ----- sysfs / procfs ------------------------------------------------------------------------------
def fake_root(tmp_path):
    cpu = tmp_path / "sys/devices/system/cpu"
    for i, gov in enumerate(["performance", "powersave", "powersave"]):
        d = cpu / f"cpu{i}/cpufreq"
        d.mkdir(parents=True)
        (d / "scaling_governor").write_text(gov + "\n")
    for n, (name, lat, off) in enumerate([("POLL", 0, 0), ("C1", 2, 0), ("C6", 170, 1)]):
        d = cpu / f"cpu0/cpuidle/state{n}"
        d.mkdir(parents=True)
        (d / "name").write_text(name)
        (d / "latency").write_text(str(lat))
        (d / "disable").write_text(str(off))
    (cpu / "cpuidle").mkdir(parents=True, exist_ok=True)
    (cpu / "cpuidle/current_driver").write_text("intel_idle\n")
    for dev in ("mlx5_0", "mlx5_1"):
        (tmp_path / "sys/class/infiniband" / dev).mkdir(parents=True)
    for dev in ("eth0", "lo"):
        (tmp_path / "sys/class/net" / dev).mkdir(parents=True)
    for pid, state in ((100, "S"), (200, "Z")):
        d = tmp_path / f"proc/{pid}"
        d.mkdir(parents=True)
        (d / "stat").write_text(f"{pid} (python (worker)) {state} 1 2 3\n")
        (d / "comm").write_text("python\n")
    (tmp_path / "proc/cmdline").write_text("ro intel_idle.max_cstate=1\n")
    (tmp_path / "proc/1").mkdir(exist_ok=True)
    (tmp_path / "proc/1/cgroup").write_text("0::/init.scope\n")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/kmsg").write_text(
        "6,88211,123456,-;NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
        "6,88212,123457,-;some other line\n"
    )
    return tmp_path


def test_host_facts_from_sysfs_and_procfs(tmp_path):
    facts = read_host_facts(fake_root(tmp_path), {"NCCL_IB_HCA": "mlx5", "HOME": "/root"})
    assert facts["cpu_governors"] == {0: "performance", 1: "powersave", 2: "powersave"}
    assert [c.name for c in facts["cstates"]] == ["POLL", "C1", "C6"] and facts["cstates"][2].disabled is True
    assert facts["cpuidle_driver"] == "intel_idle"
    assert facts["infiniband_devices"] == ("mlx5_0", "mlx5_1") and facts["net_interfaces"] == ("eth0", "lo")
    assert facts["nccl_env"] == {"NCCL_IB_HCA": "mlx5"}
    assert facts["kernel_cmdline"] == "ro intel_idle.max_cstate=1"
    assert facts["in_container"] is False
    (xid,) = facts["xid_events"]
    assert (xid.xid, xid.bus_id, xid.seq) == (79, "0000:18:00.0", 88211) and "fallen off the bus" in xid.message


def test_process_states_come_from_proc(tmp_path):
    root = fake_root(tmp_path)
    nvml = FakeNvml([FakeGpu(processes=[(100, 2**30), (200, 2**30), (300, 20 * 2**30)])])
    procs = NvmlSource(nvml, root=root, environ={}).read().gpu(0).processes
    assert procs is not None
    assert [(p.pid, p.state) for p in procs] == [(100, "alive"), (200, "zombie"), (300, "gone")]
    assert procs[0].name == "python"


def test_an_unreadable_kernel_log_is_none_with_the_reason(tmp_path):
    facts = read_host_facts(tmp_path, {})
    assert facts["xid_events"] is None and "kmsg" in facts["kernel_log_error"]
    assert facts["cpu_governors"] is None and facts["cstates"] is None and facts["infiniband_devices"] is None


def test_xid_lines_and_bus_ids():
    events = parse_xid_lines(
        [
            (None, "[ 12.3] NVRM: Xid (PCI:0000:b7:00): 63, pid='<unknown>', Row Remapper: New row marked"),
            (5, "nothing"),
        ]
    )
    assert [(e.xid, e.bus_id, e.seq) for e in events] == [(63, "0000:b7:00.0", None)]
    assert normalize_bus_id("00000000:17:00.0") == "0000:17:00.0"
    assert normalize_bus_id(b"00000000:AB:00.1") == "0000:ab:00.1"
    assert normalize_bus_id(None) is None


def test_throttle_bits_decode():
    assert decode_throttle(0) == ()
    assert decode_throttle(0x40 | 0x4) == ("sw_power_cap", "hw_thermal_slowdown")
    assert decode_throttle(0x1000) == ("0x1000",)
    assert decode_throttle(None) is None


# ----- NVML names -> catalog ids ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("nvml_name", "gpu_id"),
    [
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA H100 PCIe", "h100-pcie"),
        ("NVIDIA H100 NVL", "h100-nvl"),
        ("NVIDIA H200", "h200"),
        ("NVIDIA H20", "h20"),
        ("NVIDIA B200", "b200"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"),
        ("NVIDIA A100-SXM4-40GB", "a100-40gb-sxm"),
        ("NVIDIA A100-PCIE-40GB", "a100-40gb-pcie"),
        ("NVIDIA A100 80GB PCIe", "a100-80gb-pcie"),
        ("NVIDIA A800-SXM4-80GB", "a800-80gb-sxm"),
        ("NVIDIA H800", "h800-sxm"),
        ("Tesla V100-SXM2-32GB", "v100-32gb-sxm"),
        ("Tesla T4", "t4"),
        ("NVIDIA A10", "a10"),
        ("NVIDIA A10G", "a10g"),
        ("NVIDIA A40", "a40"),
        ("NVIDIA L4", "l4"),
        ("NVIDIA L40", "l40"),
        ("NVIDIA L40S", "l40s"),
        ("NVIDIA GeForce RTX 3090", "rtx-3090"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("NVIDIA GeForce RTX 5090", "rtx-5090"),
        ("NVIDIA Quadro RTX 8000", None),
        (None, None),
    ],
)
def test_nvml_names_map_to_catalog_ids(nvml_name, gpu_id, catalog):
    assert identify(nvml_name, catalog=catalog) == gpu_id
    if gpu_id:
        assert gpu_id in catalog.gpus


def test_a_mapped_id_outside_the_catalog_in_use_is_unknown(catalog):
    only_a10 = replace(catalog, gpus={"a10": catalog.gpus["a10"]})
    assert identify("NVIDIA H100 80GB HBM3", catalog=only_a10) is None


# ----- one door to the hardware ---------------------------------------------------------------------
def test_only_the_hw_package_imports_nvml_or_reads_sys_and_proc():
    """gpuwise.hw is the one door: no other module (ops, bench, cli, ...) names pynvml or a /sys, /proc path."""
    src = ROOT / "src" / "gpuwise"
    offenders = []
    for path in src.rglob("*.py"):
        if path.parent == src / "hw":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"\bpynvml\b", text) or re.search(r"[\"'](/sys/|/proc/|/dev/kmsg|sys/|proc/)", text):
            offenders.append(str(path.relative_to(src)))
    assert offenders == []


def test_a_benchmark_host_records_each_failed_nvml_read():
    """The GPU a benchmark ran on: its clocks through nvml_call, a failing read named in the errors, not dropped."""
    nvml = FakeNvml(fake_host(2), faults={(1, "nvmlDeviceGetMaxClockInfo"): "error"})
    driver, clocks, errors = gpu_clocks(1, None, nvml, environ={})
    assert driver == "550.90.07"
    assert clocks == {"sm_mhz": 1980, "mem_mhz": 2619, "power_limit_w": 700.0, "temperature_c": 60}
    assert set(errors) == {"sm_max_mhz", "mem_max_mhz"} and "nvmlDeviceGetMaxClockInfo" in errors["sm_max_mhz"]
    assert nvml.shutdowns == 1


def test_a_benchmark_host_says_why_nvml_did_not_start_or_found_no_gpu():
    _, clocks, errors = gpu_clocks(0, None, FakeNvml([], init_error=NVMLError_LibraryNotFound), environ={})
    assert clocks == {} and errors == {"init": "the NVML library (libnvidia-ml.so) was not found"}
    nvml = FakeNvml(fake_host(1), faults={(0, "nvmlDeviceGetHandleByIndex"): "error"})
    _, clocks, errors = gpu_clocks(0, "GPU-0", nvml, environ={})
    assert clocks == {} and "nvmlDeviceGetHandleByIndex" in errors["handle_by_index"]
    _, clocks, errors = gpu_clocks(0, None, FakeNvml(fake_host(1)), environ={"CUDA_VISIBLE_DEVICES": "3"})
    assert clocks == {} and errors == {}  # renumbered devices: index 0 is not NVML's GPU 0, so nothing is read


def test_live_read_here_never_raises():
    snap = NvmlSource().read()
    assert isinstance(snap, HostSnapshot)
    if not snap.has_nvidia:
        assert snap.gpus == () and snap.nvml_error


def test_an_unreadable_kernel_log_is_not_retried_on_every_read(tmp_path, monkeypatch):
    import gpuwise.hw.nvml as hw_nvml

    calls = []
    real = hw_nvml.read_host_facts

    def counting(root, environ, *, kernel_log=True):
        calls.append(kernel_log)
        return real(root, environ, kernel_log=kernel_log)

    monkeypatch.setattr(hw_nvml, "read_host_facts", counting)
    src = NvmlSource(FakeNvml(fake_host(1)), root=tmp_path, environ={})
    first, second = src.read(), src.read()
    assert calls == [True, False]
    assert first.xid_events is None and second.xid_events is None
    assert second.kernel_log_error == first.kernel_log_error and "kmsg" in (second.kernel_log_error or "")
