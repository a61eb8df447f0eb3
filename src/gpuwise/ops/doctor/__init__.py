"""Host checks: each one a pure function of a `HostSnapshot`, returning PASS/WARN/FAIL/SKIP results
with the evidence that decided it and the fix (the command or setting to change).

The checks follow the operations notes (docs/ops.md lists them), one module per area: `gpu`
(driver, CUDA, health, firmware, persistence), `links` (PCIe, NVLink, topology), `memory` (leaked
memory, ECC), `thermal` (throttling, temperature), `kernel_log` (XID events) and `host` (CPU
governor, C-states, NCCL); `check` holds what a check returns and the helpers every check uses.
They never read the hardware themselves: `gpuwise.hw` does, so every check runs the same on a
live host and on a recording. `run_checks` runs them all.
"""

from __future__ import annotations

from collections import Counter

from gpuwise.errors import shorten
from gpuwise.hw import HostSnapshot
from gpuwise.ops.doctor.check import FAIL, PASS, SKIP, WARN, Check, CheckResult, DoctorOptions, DoctorReport
from gpuwise.ops.doctor.gpu import (
    binding_missing,
    check_cuda_runtime,
    check_driver,
    check_firmware,
    check_gpu_health,
    check_persistence,
)
from gpuwise.ops.doctor.host import check_cpu_governor, check_cstates, check_nccl
from gpuwise.ops.doctor.kernel_log import check_xid
from gpuwise.ops.doctor.links import (
    check_nvlink,
    check_pcie_link,
    check_pcie_replays,
    check_topology,
    suggest_device_order,
)
from gpuwise.ops.doctor.memory import check_ecc, check_leaked_memory
from gpuwise.ops.doctor.thermal import check_temperature, check_throttling

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
        what = "NVIDIA GPUs not readable here" if binding_missing(snap) else "No NVIDIA GPU or driver on this host"
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
