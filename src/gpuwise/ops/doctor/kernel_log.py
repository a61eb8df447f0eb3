"""XID events from the kernel log, judged by NVIDIA's XID catalog: hardware faults fail, the
application's own faults are named as such."""

from __future__ import annotations

from collections import defaultdict

from gpuwise.hw import HostSnapshot
from gpuwise.ops.doctor.check import (
    FAIL,
    WARN,
    CheckResult,
    DoctorOptions,
    passed,
    skipped,
)

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


def check_xid(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    if snap.xid_events is None:
        return skipped(
            "xid",
            "The kernel log is not readable: XID errors not checked",
            snap.kernel_log_error or "",
            "Run as root (or `sudo sysctl kernel.dmesg_restrict=0`), or read it yourself: `sudo dmesg | grep -i xid`",
        )
    if not snap.has_nvidia and not snap.xid_events:
        return skipped("xid", "No NVIDIA driver: no XID to look for")
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
        return passed("xid", "Only application-level XIDs in the kernel log", "; ".join(benign))
    return passed("xid", "No XID error in the kernel log")
