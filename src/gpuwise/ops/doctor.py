"""Host checks: each one a pure function of a `HostSnapshot`, returning PASS/WARN/FAIL/SKIP results
with the evidence that decided it and the fix (the command or setting to change).

The checks follow the operations notes (docs/ops.md lists them). They never read the hardware
themselves: `gpuwise.ops.hw` does, so every check runs the same on a live host and on a recording.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from gpuwise.errors import shorten
from gpuwise.ops.hw import TOPOLOGY_LEVELS, GpuSnapshot, HostSnapshot

PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"

TEMPERATURE_MARGIN_C = 5.0  # warn this close to the slowdown threshold
FALLBACK_SLOWDOWN_C = 85.0  # when NVML gives no threshold
DEEP_CSTATE_US = 10  # an idle state whose exit latency exceeds this is "deep"
REPLAYS_PER_MINUTE_WARN = 100.0  # PCIe replays rising faster than this: warn
REPLAYS_TOTAL_WARN = 1000  # one reading only: this many since the driver loaded is worth a look

HW_THROTTLE = {
    "hw_slowdown": "HW slowdown (clocks cut by half or more: temperature, power brake or over-current)",
    "hw_thermal_slowdown": "HW thermal slowdown",
    "hw_power_brake_slowdown": "HW power brake slowdown (asserted by the system power supply)",
}

# XIDs with an operational meaning (NVIDIA's XID catalog); the action is the catalog's bucket.
XID_ACTIONS: dict[int, tuple[str, str, str]] = {
    48: (FAIL, "double-bit ECC error", "drain the GPU and reset it (nvidia-smi -r -i {gpu}); RMA if it recurs"),
    63: (WARN, "ECC page retirement or row remapping recorded", "reset the GPU at the next drain to activate it"),
    64: (
        FAIL,
        "ECC page retirement or row remapping failure",
        "drain; the card is an RMA candidate (gpuwise fleet evaluate)",
    ),
    74: (
        FAIL,
        "NVLink error",
        "check nvidia-smi nvlink -s -e -i {gpu}; reset; reseat or replace the board if it recurs",
    ),
    79: (
        FAIL,
        "GPU has fallen off the bus",
        "drain and reboot; check slot, power cables and cooling; RMA if it recurs",
    ),
    92: (WARN, "high single-bit ECC error rate", "watch the trend (gpuwise fleet inspect); schedule a reset"),
    94: (WARN, "contained ECC error", "restart the affected application; reset the GPU once drained"),
    95: (FAIL, "uncontained ECC error", "reset the GPU (or reboot) before running anything else on it"),
}
APPLICATION_XIDS = {13, 31, 43, 45, 69, 109}  # usually the application's fault, not the hardware's


@dataclass(frozen=True, slots=True)
class CheckResult:
    check: str
    status: str
    summary: str
    evidence: str = ""
    fix: str | None = None
    gpu: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class DoctorOptions:
    latency_sensitive: bool = True  # judge C-states (a serving or training host)
    previous: HostSnapshot | None = None  # an earlier reading, for rates (PCIe replays)
    temperature_margin: float = TEMPERATURE_MARGIN_C


@dataclass(frozen=True, slots=True)
class DoctorReport:
    hostname: str
    time: str
    has_nvidia: bool
    headline: str
    results: tuple[CheckResult, ...] = field(default_factory=tuple)

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(r.status for r in self.results)
        return {s: c.get(s, 0) for s in (PASS, WARN, FAIL, SKIP)}

    @property
    def failed(self) -> bool:
        return any(r.status == FAIL for r in self.results)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def by_check(self, check: str) -> list[CheckResult]:
        return [r for r in self.results if r.check == check]

    def as_dict(self) -> dict[str, Any]:
        return {
            "hostname": self.hostname,
            "time": self.time,
            "has_nvidia": self.has_nvidia,
            "headline": self.headline,
            "summary": self.counts,
            "results": [r.as_dict() for r in self.results],
        }


Check = Callable[[HostSnapshot, DoctorOptions], list[CheckResult]]


# ---------------------------------------------------------------------------------------------
def _gib(n: int | None) -> str:
    return "unknown" if n is None else f"{n / 2**30:.1f} GiB"


def _gpus(snap: HostSnapshot) -> list[GpuSnapshot]:
    return [g for g in snap.gpus if not g.lost]


def _ok(check: str, summary: str, evidence: str = "") -> list[CheckResult]:
    return [CheckResult(check, PASS, summary, evidence)]


def _skip(check: str, summary: str, evidence: str = "", fix: str | None = None) -> list[CheckResult]:
    return [CheckResult(check, SKIP, summary, evidence, fix)]


def _version(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    parts = []
    for p in text.split("."):
        digits = "".join(ch for ch in p if ch.isascii() and ch.isdigit())  # '²' is a digit int() refuses
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


# ----- driver and CUDA -------------------------------------------------------------------------
def _binding_missing(snap: HostSnapshot) -> bool:
    return "nvidia-ml-py" in (snap.nvml_error or "")


def check_driver(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if not snap.has_nvidia:
        if _binding_missing(snap):
            return _skip(
                "driver",
                "NVML cannot be read: nvidia-ml-py is not installed; GPU checks skipped",
                snap.nvml_error or "",
                "pip install 'gpuwise[ops]'",
            )
        return _skip(
            "driver",
            "No NVIDIA GPU or driver found on this host: GPU checks skipped",
            snap.nvml_error or "",
            "On a GPU host, install the NVIDIA driver (e.g. apt install nvidia-driver-550-server) and nvidia-ml-py",
        )
    count = len(snap.gpus)
    if count == 0:
        return [
            CheckResult(
                "driver",
                WARN,
                "The NVIDIA driver is loaded but reports no GPU",
                f"driver {snap.driver_version}; {snap.errors.get('gpu_count', 'nvmlDeviceGetCount returned 0')}",
                "Check `lspci | grep -i nvidia` and `dmesg | grep -i nvrm`; a GPU that fell off the bus needs a reboot",
            )
        ]
    cuda = f", CUDA {snap.cuda_driver_version} at most" if snap.cuda_driver_version else ""
    models = Counter(g.name or "unknown model" for g in snap.gpus)
    return _ok(
        "driver",
        f"NVIDIA driver {snap.driver_version}{cuda}; {count} GPU(s)",
        "; ".join(f"{n} x {m}" for m, n in models.items()),
    )


def check_cuda_runtime(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if snap.cuda_runtime_version is None:
        why = (
            "PyTorch is not installed" if snap.torch_version is None else f"PyTorch {snap.torch_version} is a CPU build"
        )
        return _skip("cuda-runtime", f"No CUDA runtime to compare: {why}")
    if not snap.has_nvidia or snap.cuda_driver_version is None:
        return _skip(
            "cuda-runtime",
            "The driver's CUDA version is unknown",
            f"PyTorch built for CUDA {snap.cuda_runtime_version}",
        )
    runtime, driver = _version(snap.cuda_runtime_version), _version(snap.cuda_driver_version)
    evidence = f"PyTorch {snap.torch_version} built for CUDA {snap.cuda_runtime_version}; driver {snap.driver_version} supports CUDA {snap.cuda_driver_version}"
    if runtime and driver and runtime[:2] > driver[:2]:
        return [
            CheckResult(
                "cuda-runtime",
                FAIL,
                f"CUDA runtime {snap.cuda_runtime_version} is newer than the driver supports ({snap.cuda_driver_version})",
                evidence,
                f"Install a driver that supports CUDA {snap.cuda_runtime_version} (a newer driver branch), or a PyTorch "
                f"build for CUDA {snap.cuda_driver_version} or older (pip install torch --index-url "
                "https://download.pytorch.org/whl/cuXYZ)",
            )
        ]
    return _ok("cuda-runtime", f"CUDA runtime {snap.cuda_runtime_version} runs on this driver", evidence)


def check_gpu_health(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out = []
    for g in snap.gpus:
        if g.lost:
            out.append(
                CheckResult(
                    "gpu-health",
                    FAIL,
                    f"GPU {g.index} stopped answering (lost)",
                    "; ".join(f"{k}: {v}" for k, v in g.errors.items()),
                    f"Look for XID 79 in `sudo dmesg | grep -i xid`; drain, then `sudo nvidia-smi -r -i {g.index}` or "
                    "reboot; reseat or RMA the card if it repeats",
                    g.index,
                )
            )
        elif g.errors:
            out.append(
                CheckResult(
                    "gpu-health",
                    WARN,
                    f"GPU {g.index}: {len(g.errors)} field(s) could not be read",
                    "; ".join(f"{k}: {v}" for k, v in sorted(g.errors.items())),
                    "Run as root if it says 'No permission'; otherwise check `nvidia-smi -q -i "
                    f"{g.index}` and the driver log",
                    g.index,
                )
            )
    return out or _ok("gpu-health", f"All {len(snap.gpus)} GPU(s) answered every query")


# ----- PCIe ------------------------------------------------------------------------------------
def check_pcie_link(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out, known = [], 0
    for g in _gpus(snap):
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
        return _skip("pcie-link", "PCIe link state unknown (not supported)")
    return out or _ok("pcie-link", f"All {known} GPU(s) run their PCIe link at the maximum generation and width")


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
    for g in _gpus(snap):
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
        return _skip("pcie-replays", "PCIe replay counters unknown (not supported)")
    how = f"over {seconds:.0f} s" if seconds else "(one reading)"
    return out or _ok("pcie-replays", f"PCIe replay counters quiet on {known} GPU(s) {how}")


# ----- NVLink and topology ---------------------------------------------------------------------
def check_nvlink(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    gpus = [g for g in _gpus(snap) if g.nvlinks is not None]
    if not gpus:
        return _skip("nvlink", "No NVLink on this host (not supported by these GPUs)")
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
            return _ok("nvlink", "NVLink-capable GPUs, but no link is active (no bridge or switch): PCIe only")
        per = ", ".join(f"{want} per {name}" for name, want in expected.items())
        return _ok("nvlink", f"All expected NVLink links are up ({per})", "error counters zero")
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
    gpus = _gpus(snap)
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
    gpus = _gpus(snap)
    if len(gpus) < 2:
        return _skip("topology", "Fewer than two GPUs: no order to choose")
    if snap.topology is None:
        return _skip("topology", "PCIe topology unknown (nvmlDeviceGetTopologyCommonAncestor not supported)")
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
    return _ok(
        "topology",
        f"Index order keeps pairs on one switch/NUMA node: CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES={visible}",
        evidence,
    )


def check_firmware(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out = []
    by_model: dict[str | None, list[GpuSnapshot]] = defaultdict(list)
    for g in _gpus(snap):
        by_model[g.name].append(g)
    compared = 0
    for model, gpus in by_model.items():
        if len(gpus) < 2:
            continue
        for attr, label in (("vbios", "VBIOS"), ("inforom", "InfoROM")):
            versions = Counter(getattr(g, attr) for g in gpus if getattr(g, attr))
            if len(versions) < 2:
                compared += 1
                continue
            common = versions.most_common(1)[0][0]
            for g in gpus:
                mine = getattr(g, attr)
                if not mine or mine == common:
                    continue
                link_down = attr == "vbios" and any(not n.active for n in g.nvlinks or ()) and bool(g.active_nvlinks)
                status = FAIL if link_down else WARN
                why = "; it also has an NVLink link down to its peers" if link_down else ""
                out.append(
                    CheckResult(
                        "firmware",
                        status,
                        f"GPU {g.index}: {label} {mine} differs from its {versions[common]} peer(s) ({common}){why}",
                        f"{model}: " + ", ".join(f"{v} on {n}" for v, n in versions.items()),
                        f"Flash all {model} GPUs in this node to one {label} with the server vendor's firmware bundle "
                        "(HGX: NVIDIA's firmware update tool), then reset the GPUs",
                        g.index,
                    )
                )
    if not out:
        if compared == 0:
            return _skip("firmware", "Nothing to compare (one GPU per model, or versions unknown)")
        return _ok("firmware", "VBIOS and InfoROM versions match across GPUs of the same model")
    return out


# ----- memory, ECC -------------------------------------------------------------------------------
def check_leaked_memory(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    gpus = [g for g in _gpus(snap) if g.processes is not None]
    if not gpus:
        return _skip("leaked-memory", "Compute processes unknown (not supported)")
    procs = [(g, p) for g in gpus for p in g.processes or ()]
    dead = [(g, p) for g, p in procs if p.state in ("gone", "zombie", "dead")]
    if not dead:
        return _ok("leaked-memory", f"{len(procs)} compute process(es), all alive")
    namespace = bool(snap.in_container) and all(p.state == "gone" for _, p in procs)
    out = []
    for g, p in dead:
        what = "no longer exists" if p.state == "gone" else f"is a {p.state} process"
        if namespace:
            out.append(
                CheckResult(
                    "leaked-memory",
                    WARN,
                    f"GPU {g.index}: PID {p.pid} is not visible here (holds {_gib(p.used_memory_bytes)})",
                    "running in a container: NVML reports host PIDs, which another PID namespace cannot see",
                    "Run `gpuwise doctor` on the host itself to judge leaked memory",
                    g.index,
                )
            )
            continue
        out.append(
            CheckResult(
                "leaked-memory",
                FAIL,
                f"GPU {g.index}: PID {p.pid} {what} but holds {_gib(p.used_memory_bytes)}",
                f"nvmlDeviceGetComputeRunningProcesses lists PID {p.pid}; /proc/{p.pid} "
                + ("is missing" if p.state == "gone" else f"says {p.state}"),
                f"Find what keeps the memory: `sudo fuser -v /dev/nvidia*`; for a zombie kill its parent "
                f"(`ps -o ppid= -p {p.pid}`); if nothing holds it, reset the idle GPU: `sudo nvidia-smi --gpu-reset -i {g.index}`",
                g.index,
            )
        )
    return out


def check_ecc(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out = []
    unknown, fine = [], []
    for g in _gpus(snap):
        counters = (
            g.ecc_uncorrected_volatile,
            g.ecc_uncorrected_aggregate,
            g.remap_pending,
            g.remap_failure,
            g.retired_pages_pending,
        )
        if g.ecc_enabled is None and all(c is None for c in counters):
            unknown.append(g)
            continue
        if g.ecc_enabled is False:
            out.append(
                CheckResult(
                    "ecc",
                    WARN,
                    f"GPU {g.index}: ECC is disabled",
                    f"nvmlDeviceGetEccMode: off on {g.name}",
                    f"Enable it (takes effect after a reboot): `sudo nvidia-smi -e 1 -i {g.index}`",
                    g.index,
                )
            )
            continue
        problems = []
        if g.remap_failure:
            problems.append(
                (
                    "row remapping failed (no spare rows left)",
                    "The card is an RMA candidate: drain it and open a hardware case",
                )
            )
        if g.remap_pending:
            problems.append(
                (
                    f"row remap pending ({g.remapped_rows_corrected or 0} correctable, {g.remapped_rows_uncorrected or 0} uncorrectable rows)",
                    f"Drain the GPU and reset it to activate the remap: `sudo nvidia-smi -r -i {g.index}` (or reboot)",
                )
            )
        if g.retired_pages_pending:
            problems.append(("retired pages pending", f"Drain and reset the GPU: `sudo nvidia-smi -r -i {g.index}`"))
        unc = max(g.ecc_uncorrected_volatile or 0, g.ecc_uncorrected_aggregate or 0)
        if unc:
            problems.append(
                (
                    f"{unc} uncorrectable ECC error(s) (volatile {g.ecc_uncorrected_volatile}, aggregate {g.ecc_uncorrected_aggregate})",
                    f"Drain and reset the GPU (`sudo nvidia-smi -r -i {g.index}`); if they recur, RMA (see XID 48/94/95)",
                )
            )
        for summary, fix in problems:
            out.append(
                CheckResult(
                    "ecc",
                    FAIL,
                    f"GPU {g.index}: {summary}",
                    f"ECC corrected aggregate {g.ecc_corrected_aggregate}, uncorrected aggregate {g.ecc_uncorrected_aggregate}; "
                    f"remapped rows {g.remapped_rows_corrected}/{g.remapped_rows_uncorrected}, pending {g.remap_pending}, "
                    f"failure {g.remap_failure}",
                    fix,
                    g.index,
                )
            )
        if not problems:
            fine.append(g)
    if unknown and not fine and not out:
        models = ", ".join(sorted({g.name or "?" for g in unknown}))
        return _skip("ecc", f"ECC not supported on {models}: unknown, not zero")
    if not out:
        note = f"; unknown (not supported) on GPU {', '.join(str(g.index) for g in unknown)}" if unknown else ""
        return _ok("ecc", f"No uncorrectable ECC error or pending remap on {len(fine)} GPU(s){note}")
    return out


# ----- clocks and temperature -----------------------------------------------------------------
def check_throttling(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out, known = [], 0
    for g in _gpus(snap):
        names = g.throttle_names
        if names is None:
            continue
        known += 1
        hw = [n for n in names if n in HW_THROTTLE]
        if hw:
            thermal = "hw_thermal_slowdown" in hw
            power = "hw_power_brake_slowdown" in hw
            fix = (
                "Check cooling: fans and airflow, inlet temperature, a blocked heatsink"
                if thermal
                else "Check the power supplies and the BMC/IPMI log for a power brake event"
                if power
                else "Check temperatures, power cables and the PSUs; HW slowdown also fires on over-current"
            )
            out.append(
                CheckResult(
                    "throttling",
                    FAIL,
                    f"GPU {g.index}: {', '.join(HW_THROTTLE[n] for n in hw)}",
                    f"clocks event reasons {hex(g.throttle_reasons or 0)} = {', '.join(names)}; SM clock "
                    f"{(g.clock_sm_hz or 0) / 1e6:.0f} of {(g.clock_sm_max_hz or 0) / 1e6:.0f} MHz; {g.temperature_celsius} °C",
                    f"{fix}; details: `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i {g.index}`",
                    g.index,
                )
            )
        elif "sw_thermal_slowdown" in names:
            out.append(
                CheckResult(
                    "throttling",
                    WARN,
                    f"GPU {g.index}: SW thermal slowdown (the driver lowers clocks to stay under the temperature limit)",
                    f"clocks event reasons {', '.join(names)}; {g.temperature_celsius} °C",
                    "Improve cooling (airflow, fan curve, inlet temperature)",
                    g.index,
                )
            )
    if not known:
        return _skip("throttling", "Clock event reasons unknown (not supported)")
    return out or _ok("throttling", f"No hardware slowdown on {known} GPU(s) (idle and SW power cap are normal)")


def check_temperature(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out, known = [], 0
    margin = opts.temperature_margin
    for g in _gpus(snap):
        if g.temperature_celsius is None:
            continue
        known += 1
        limit = g.temperature_slowdown_celsius or FALLBACK_SLOWDOWN_C
        if g.temperature_celsius >= limit - margin:
            out.append(
                CheckResult(
                    "temperature",
                    WARN,
                    f"GPU {g.index}: {g.temperature_celsius:.0f} °C, within {margin:.0f} °C of slowdown ({limit:.0f} °C)",
                    f"GPU temperature {g.temperature_celsius} °C; slowdown threshold {g.temperature_slowdown_celsius}",
                    "Improve cooling (airflow, fan speed, inlet temperature) or lower the power limit: "
                    f"`sudo nvidia-smi -pl <watts> -i {g.index}`",
                    g.index,
                )
            )
        mem_limit = g.memory_temperature_max_celsius
        if (
            g.memory_temperature_celsius is not None
            and mem_limit
            and g.memory_temperature_celsius >= mem_limit - margin
        ):
            out.append(
                CheckResult(
                    "temperature",
                    WARN,
                    f"GPU {g.index}: memory at {g.memory_temperature_celsius:.0f} °C, within {margin:.0f} °C of its maximum ({mem_limit:.0f} °C)",
                    f"memory temperature {g.memory_temperature_celsius} °C",
                    "Improve cooling; HBM throttles above its maximum operating temperature",
                    g.index,
                )
            )
    if not known:
        return _skip("temperature", "Temperatures unknown")
    return out or _ok("temperature", f"All {known} GPU(s) more than {margin:.0f} °C below their slowdown temperature")


# ----- kernel log -------------------------------------------------------------------------------
def check_xid(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if snap.xid_events is None:
        return _skip(
            "xid",
            "The kernel log is not readable: XID errors not checked",
            snap.kernel_log_error or "",
            "Run as root (or `sudo sysctl kernel.dmesg_restrict=0`), or read it yourself: `sudo dmesg | grep -i xid`",
        )
    if not snap.has_nvidia and not snap.xid_events:
        return _skip("xid", "No NVIDIA driver: no XID to look for")
    by_bus = {g.pci_bus_id: g.index for g in snap.gpus if g.pci_bus_id}
    groups: dict[tuple[int | None, int], list[str]] = defaultdict(list)
    for e in snap.xid_events:
        groups[(by_bus.get(e.bus_id or ""), e.xid)].append(e.message)
    out, benign = [], []
    for (gpu, xid), messages in sorted(
        groups.items(), key=lambda kv: (kv[0][0] if kv[0][0] is not None else -1, kv[0][1])
    ):
        where = f"GPU {gpu}" if gpu is not None else "an unknown GPU"
        if xid in XID_ACTIONS:
            status, meaning, fix = XID_ACTIONS[xid]
            out.append(
                CheckResult(
                    "xid",
                    status,
                    f"{where}: XID {xid} ({meaning}) x{len(messages)}",
                    messages[-1],
                    fix.format(gpu=gpu if gpu is not None else "<index>"),
                    gpu,
                )
            )
        elif xid in APPLICATION_XIDS:
            benign.append(f"XID {xid} x{len(messages)} on {where}")
        else:
            out.append(
                CheckResult(
                    "xid",
                    WARN,
                    f"{where}: XID {xid} x{len(messages)}",
                    messages[-1],
                    "Look the code up in NVIDIA's XID catalog (docs.nvidia.com/deploy/xid-errors) for its action",
                    gpu,
                )
            )
    if out:
        return out
    if benign:
        return _ok("xid", "Only application-level XIDs in the kernel log", "; ".join(benign))
    return _ok("xid", "No XID error in the kernel log")


# ----- CPU and environment ----------------------------------------------------------------------
def check_cpu_governor(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if not snap.cpu_governors:
        return _skip("cpu-governor", "No cpufreq governor in /sys (a VM, or the firmware controls CPU frequency)")
    counts = Counter(snap.cpu_governors.values())
    total = len(snap.cpu_governors)
    evidence = ", ".join(f"{gov} on {n} of {total} CPUs" for gov, n in counts.most_common())
    if set(counts) != {"performance"}:
        return [
            CheckResult(
                "cpu-governor",
                WARN,
                "CPU frequency governor is not `performance`",
                evidence,
                "sudo cpupower frequency-set -g performance  "
                "(or: echo performance | sudo tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)",
            )
        ]
    return _ok("cpu-governor", "All CPUs use the `performance` governor", evidence)


def check_cstates(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if not snap.cstates:
        return _skip("cstates", "No cpuidle states in /sys")
    cmd = snap.kernel_cmdline or ""
    limits = [w for w in cmd.split() if "max_cstate" in w or w.startswith("idle=")]
    deep = [c for c in snap.cstates if not c.disabled and c.latency_us is not None and c.latency_us > DEEP_CSTATE_US]
    evidence = f"{snap.cpuidle_driver or 'cpuidle'}: " + ", ".join(
        f"{c.name} {c.latency_us} µs{' (disabled)' if c.disabled else ''}" for c in snap.cstates
    )
    if limits:
        evidence += "; kernel command line: " + " ".join(limits)
    if not deep:
        return _ok("cstates", f"No idle state deeper than {DEEP_CSTATE_US} µs exit latency is enabled", evidence)
    if not opts.latency_sensitive:
        return _ok("cstates", "Deep C-states enabled; not judged (not a latency-sensitive host)", evidence)
    return [
        CheckResult(
            "cstates",
            WARN,
            "Deep C-states enabled: " + ", ".join(f"{c.name} ({c.latency_us} µs)" for c in deep),
            evidence,
            "On a latency-sensitive (serving) host add `processor.max_cstate=1 intel_idle.max_cstate=1` to the kernel "
            f"command line, or at run time: `sudo cpupower idle-set -D {DEEP_CSTATE_US}`",
        )
    ]


def check_persistence(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    gpus = [g for g in _gpus(snap) if g.persistence_mode is not None]
    if not gpus:
        return _skip("persistence-mode", "Persistence mode unknown (not supported)")
    off = [g.index for g in gpus if not g.persistence_mode]
    if off:
        return [
            CheckResult(
                "persistence-mode",
                WARN,
                f"Persistence mode is off on GPU {', '.join(map(str, off))}",
                "without it the driver tears the GPU state down when the last client exits, so the next start is slower",
                "sudo systemctl enable --now nvidia-persistenced  (or: sudo nvidia-smi -pm 1)",
            )
        ]
    return _ok("persistence-mode", f"Persistence mode on for all {len(gpus)} GPU(s)")


def _matches(spec: str, names: tuple[str, ...]) -> bool:
    """NCCL's list syntax: comma list, '^' excludes, '=' exact names, else prefixes; ':port' ignored."""
    spec = spec.strip()
    if not spec or spec.startswith("^"):
        return True  # an exclusion list never names a missing device
    exact = spec.startswith("=")
    for item in spec.lstrip("=").split(","):
        item = item.split(":")[0].strip()
        if any((n == item) if exact else n.startswith(item) for n in names):
            return True
    return False


def check_nccl(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    env = snap.nccl_env
    if not env:
        return _ok("nccl", "No NCCL_* variable set (NCCL detects the hardware itself)")
    out = []
    ib = bool(snap.infiniband_devices)
    nvlink = any((g.active_nvlinks or 0) > 0 for g in _gpus(snap))
    if env.get("NCCL_IB_DISABLE") == "1" and ib:
        out.append(
            CheckResult(
                "nccl",
                WARN,
                "NCCL_IB_DISABLE=1 on a host with InfiniBand/RoCE devices",
                "devices: " + ", ".join(snap.infiniband_devices or ()),
                "unset NCCL_IB_DISABLE (NCCL then sends inter-node traffic over InfiniBand instead of TCP sockets)",
            )
        )
    if env.get("NCCL_P2P_DISABLE") == "1" and nvlink:
        out.append(
            CheckResult(
                "nccl",
                WARN,
                "NCCL_P2P_DISABLE=1 on a host whose GPUs have active NVLink",
                "NVLink active on " + ", ".join(f"GPU {g.index}" for g in _gpus(snap) if g.active_nvlinks),
                "unset NCCL_P2P_DISABLE (it forces GPU-to-GPU traffic through host memory)",
            )
        )
    ifname = env.get("NCCL_SOCKET_IFNAME")
    if ifname and snap.net_interfaces is not None and not _matches(ifname, snap.net_interfaces):
        out.append(
            CheckResult(
                "nccl",
                WARN,
                f"NCCL_SOCKET_IFNAME={ifname} matches no network interface",
                "interfaces: " + ", ".join(snap.net_interfaces),
                "Set NCCL_SOCKET_IFNAME to an existing interface (prefix, or '=name' for an exact one), or unset it",
            )
        )
    hca = env.get("NCCL_IB_HCA")
    if hca and snap.infiniband_devices is not None and not _matches(hca, snap.infiniband_devices):
        out.append(
            CheckResult(
                "nccl",
                WARN,
                f"NCCL_IB_HCA={hca} matches no InfiniBand device",
                "devices: " + ", ".join(snap.infiniband_devices),
                "Set NCCL_IB_HCA to existing devices (see `ibv_devices`), or unset it",
            )
        )
    if hca and snap.infiniband_devices is None:
        out.append(
            CheckResult(
                "nccl",
                WARN,
                f"NCCL_IB_HCA={hca} but this host has no InfiniBand device (/sys/class/infiniband)",
                "",
                "Unset NCCL_IB_HCA, or install the RDMA driver (e.g. MLNX_OFED / rdma-core)",
            )
        )
    if env.get("NCCL_DEBUG", "").upper() == "TRACE":
        out.append(
            CheckResult(
                "nccl",
                WARN,
                "NCCL_DEBUG=TRACE slows every collective",
                "",
                "Use NCCL_DEBUG=WARN (or INFO while debugging)",
            )
        )
    set_vars = ", ".join(f"{k}={v}" for k, v in env.items())
    return out or _ok("nccl", "NCCL settings agree with the hardware", set_vars)


# ---------------------------------------------------------------------------------------------
GPU_CHECKS: tuple[tuple[str, Check], ...] = (
    ("cuda-runtime", check_cuda_runtime),
    ("gpu-health", check_gpu_health),
    ("pcie-link", check_pcie_link),
    ("pcie-replays", check_pcie_replays),
    ("nvlink", check_nvlink),
    ("topology", check_topology),
    ("firmware", check_firmware),
    ("leaked-memory", check_leaked_memory),
    ("ecc", check_ecc),
    ("throttling", check_throttling),
    ("temperature", check_temperature),
    ("xid", check_xid),
    ("persistence-mode", check_persistence),
)
HOST_CHECKS: tuple[tuple[str, Check], ...] = (
    ("cpu-governor", check_cpu_governor),
    ("cstates", check_cstates),
    ("nccl", check_nccl),
)
CHECK_IDS = ("driver", *(c for c, _ in GPU_CHECKS), *(c for c, _ in HOST_CHECKS))


def _crashed(check_id: str, exc: Exception) -> CheckResult:
    """A check that raised: a FAIL naming the exception (exit 1), since nothing was checked."""
    shown = shorten(str(exc), 200)
    return CheckResult(
        check_id,
        FAIL,
        f"The check crashed ({type(exc).__name__}: {shown}); nothing was checked.",
        "",
        "This is a bug in gpuwise: report it with the host's recording (`gpuwise doctor --record FILE`).",
    )


def run_checks(snap: HostSnapshot, opts: DoctorOptions | None = None) -> DoctorReport:
    """Every check on one snapshot. Without NVIDIA hardware, only the host checks run."""
    opts = opts or DoctorOptions()
    results: list[CheckResult] = list(check_driver(snap, opts))
    checks = (*GPU_CHECKS, *HOST_CHECKS) if snap.has_nvidia and snap.gpus else HOST_CHECKS
    for check_id, fn in checks:
        try:
            results.extend(fn(snap, opts))
        except Exception as exc:  # a check's own bug must not hide the others, nor pass as a SKIP
            results.append(_crashed(check_id, exc))
    if not snap.has_nvidia:
        what = "NVIDIA GPUs not readable here" if _binding_missing(snap) else "No NVIDIA GPU or driver on this host"
        headline = (
            what
            + (f" ({snap.nvml_error})" if snap.nvml_error else "")
            + ": checked the CPU governor, C-states and NCCL settings only."
        )
    else:
        c = Counter(r.status for r in results)
        worst = FAIL if c[FAIL] else WARN if c[WARN] else PASS
        headline = f"{snap.hostname}: {len(snap.gpus)} GPU(s); {c[FAIL]} FAIL, {c[WARN]} WARN, {c[PASS]} PASS, {c[SKIP]} SKIP — {worst}"
    return DoctorReport(snap.hostname, snap.time, snap.has_nvidia, headline, tuple(results))


__all__ = [
    "CHECK_IDS",
    "FAIL",
    "PASS",
    "SKIP",
    "WARN",
    "CheckResult",
    "DoctorOptions",
    "DoctorReport",
    "run_checks",
    "suggest_device_order",
]
