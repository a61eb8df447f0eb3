"""Checks of the host around the GPUs: CPU frequency governor, deep C-states on latency-sensitive
hosts, and NCCL settings against the hardware."""

from __future__ import annotations

from collections import Counter

from gpuwise.hw import HostSnapshot
from gpuwise.ops.doctor.check import (
    WARN,
    CheckResult,
    DoctorOptions,
    live_gpus,
    passed,
    skipped,
)

DEEP_CSTATE_US = 10  # an idle state whose exit latency exceeds this is "deep"


def check_cpu_governor(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if not snap.cpu_governors:
        return skipped("cpu-governor", "No cpufreq governor in /sys (a VM, or the firmware controls CPU frequency)")
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
    return passed("cpu-governor", "All CPUs use the `performance` governor", evidence)


def check_cstates(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if not snap.cstates:
        return skipped("cstates", "No cpuidle states in /sys")
    cmd = snap.kernel_cmdline or ""
    limits = [w for w in cmd.split() if "max_cstate" in w or w.startswith("idle=")]
    deep = [c for c in snap.cstates if not c.disabled and c.latency_us is not None and c.latency_us > DEEP_CSTATE_US]
    evidence = f"{snap.cpuidle_driver or 'cpuidle'}: " + ", ".join(
        f"{c.name} {c.latency_us} µs{' (disabled)' if c.disabled else ''}" for c in snap.cstates
    )
    if limits:
        evidence += "; kernel command line: " + " ".join(limits)
    if not deep:
        return passed("cstates", f"No idle state deeper than {DEEP_CSTATE_US} µs exit latency is enabled", evidence)
    if not opts.latency_sensitive:
        return passed("cstates", "Deep C-states enabled; not judged (not a latency-sensitive host)", evidence)
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
        return passed("nccl", "No NCCL_* variable set (NCCL detects the hardware itself)")
    out = []
    ib = bool(snap.infiniband_devices)
    nvlink = any((g.active_nvlinks or 0) > 0 for g in live_gpus(snap))
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
                "NVLink active on " + ", ".join(f"GPU {g.index}" for g in live_gpus(snap) if g.active_nvlinks),
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
    return out or passed("nccl", "NCCL settings agree with the hardware", set_vars)
