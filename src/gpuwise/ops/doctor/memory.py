"""Checks of GPU memory: memory held by processes that are gone (leaked), ECC mode and errors,
retired pages and remapped rows."""

from __future__ import annotations

from gpuwise.hw import HostSnapshot
from gpuwise.ops.doctor.check import (
    FAIL,
    WARN,
    CheckResult,
    DoctorOptions,
    gib,
    live_gpus,
    passed,
    skipped,
)


def check_leaked_memory(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    gpus = [g for g in live_gpus(snap) if g.processes is not None]
    if not gpus:
        return skipped("leaked-memory", "Compute processes unknown (not supported)")
    procs = [(g, p) for g in gpus for p in g.processes or ()]
    dead = [(g, p) for g, p in procs if p.state in ("gone", "zombie", "dead")]
    if not dead:
        return passed("leaked-memory", f"{len(procs)} compute process(es), all alive")
    namespace = bool(snap.in_container) and all(p.state == "gone" for _, p in procs)
    out = []
    for g, p in dead:
        what = "no longer exists" if p.state == "gone" else f"is a {p.state} process"
        if namespace:
            out.append(
                CheckResult(
                    "leaked-memory",
                    WARN,
                    f"GPU {g.index}: PID {p.pid} is not visible here (holds {gib(p.used_memory_bytes)})",
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
                f"GPU {g.index}: PID {p.pid} {what} but holds {gib(p.used_memory_bytes)}",
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
    for g in live_gpus(snap):
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
        return skipped("ecc", f"ECC not supported on {models}: unknown, not zero")
    if not out:
        note = f"; unknown (not supported) on GPU {', '.join(str(g.index) for g in unknown)}" if unknown else ""
        return passed("ecc", f"No uncorrectable ECC error or pending remap on {len(fine)} GPU(s){note}")
    return out
