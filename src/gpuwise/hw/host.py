"""Host facts that are not NVML: sysfs, procfs, the kernel log (XID events), the environment and
the installed PyTorch, read under a `root` that tests lay out as a fake /sys and /proc."""

from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import re
import stat
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpuwise.hw.convert import as_int
from gpuwise.hw.snapshot import CState, XidEvent, normalize_bus_id


def read_host_facts(
    root: str | Path = "/", environ: Mapping[str, str] | None = None, *, kernel_log: bool = True
) -> dict[str, Any]:
    """Everything about the host that is not NVML, as HostSnapshot keyword arguments."""
    root = Path(root)
    env = os.environ if environ is None else environ
    cpu_dir = root / "sys/devices/system/cpu"
    governors: dict[int, str] = {}
    for gov in sorted(cpu_dir.glob("cpu[0-9]*/cpufreq/scaling_governor")):
        value = _read_text(gov)
        if value:
            governors[int(gov.parent.parent.name[3:])] = value
    cstates: list[CState] = []
    for state in sorted(cpu_dir.glob("cpu0/cpuidle/state[0-9]*"), key=lambda p: int(p.name[5:])):
        name = _read_text(state / "name") or state.name
        disabled = read_int(state / "disable")
        cstates.append(
            CState(
                name=name,
                latency_us=read_int(state / "latency"),
                disabled=None if disabled is None else bool(disabled),
            )
        )
    xids, log_error = read_xid_events(root) if kernel_log else (None, "not read (kernel_log=False)")
    torch_version, cuda_runtime = _torch_versions()
    return {
        "cuda_runtime_version": cuda_runtime,
        "torch_version": torch_version,
        "cpu_governors": governors or None,
        "cpuidle_driver": _read_text(cpu_dir / "cpuidle/current_driver"),
        "cstates": tuple(cstates) if cstates else None,
        "kernel_cmdline": _read_text(root / "proc/cmdline"),
        "nccl_env": {k: v for k, v in sorted(env.items()) if k.startswith("NCCL_")},
        "infiniband_devices": _list_dir(root / "sys/class/infiniband"),
        "net_interfaces": _list_dir(root / "sys/class/net"),
        "xid_events": xids,
        "kernel_log_error": log_error,
        "in_container": _in_container(root),
    }


_XID = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\): (\d+),\s*(.*)")


def parse_xid_lines(lines: list[tuple[int | None, str]]) -> tuple[XidEvent, ...]:
    """XID events from kernel log lines (seq may be None when the source has no sequence numbers)."""
    events = []
    for seq, line in lines:
        m = _XID.search(line)
        if m:
            events.append(
                XidEvent(xid=int(m.group(2)), bus_id=normalize_bus_id(m.group(1)), message=m.group(3).strip(), seq=seq)
            )
    return tuple(events)


def read_xid_events(root: str | Path = "/") -> tuple[tuple[XidEvent, ...] | None, str | None]:
    """XID events from /dev/kmsg (non-blocking, one record per read), else `dmesg`.

    Returns (events, None), or (None, why) when neither can be read (e.g. kernel.dmesg_restrict).
    """
    root = Path(root)
    kmsg = root / "dev/kmsg"
    why = []
    try:
        if kmsg.exists() and stat.S_ISCHR(kmsg.stat().st_mode):
            return parse_xid_lines(_read_kmsg_device(kmsg)), None
        if kmsg.is_file():  # a recorded log laid out by a test
            return parse_xid_lines(_kmsg_records(kmsg.read_text(encoding="utf-8", errors="replace").splitlines())), None
        why.append(f"{kmsg} does not exist")
    except OSError as exc:
        why.append(f"{kmsg}: {exc.strerror or exc}")
    if str(root) != "/":
        return None, "; ".join(why)
    try:
        out = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        why.append(f"dmesg: {exc}")
        return None, "; ".join(why)
    if out.returncode != 0:
        why.append(f"dmesg: {out.stderr.strip() or 'exit ' + str(out.returncode)}")
        return None, "; ".join(why)
    return parse_xid_lines([(None, line) for line in out.stdout.splitlines()]), None


def _kmsg_records(lines: list[str]) -> list[tuple[int | None, str]]:
    out: list[tuple[int | None, str]] = []
    for line in lines:
        head, sep, msg = line.partition(";")
        parts = head.split(",")
        if sep and len(parts) >= 2 and parts[1].isdigit():
            out.append((int(parts[1]), msg))
        else:
            out.append((None, line))
    return out


def _read_kmsg_device(path: Path) -> list[tuple[int | None, str]]:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    records: list[str] = []
    try:
        for _ in range(200_000):  # the ring buffer holds far fewer records; a bound, not a limit
            try:
                chunk = os.read(fd, 16384)
            except BlockingIOError:
                break
            except BrokenPipeError:  # a record was overwritten while reading: skip it
                continue
            if not chunk:
                break
            records.append(chunk.decode("utf-8", errors="replace").rstrip("\n"))
    finally:
        os.close(fd)
    return _kmsg_records(records)


def process_state(root: Path, pid: int) -> dict[str, Any]:
    proc = root / "proc" / str(pid)
    try:
        raw = (proc / "stat").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {"state": "gone", "name": None}
    except OSError:
        return {"state": None, "name": None}
    code = raw.rpartition(")")[2].split()[:1]
    state = {"Z": "zombie", "X": "dead", "x": "dead"}.get(code[0] if code else "", "alive")
    return {"state": state, "name": _read_text(proc / "comm")}


def _in_container(root: Path) -> bool | None:
    if (root / ".dockerenv").exists() or (root / "run/.containerenv").exists():
        return True
    cgroup = _read_text(root / "proc/1/cgroup")
    if cgroup is None:
        return None
    return any(word in cgroup for word in ("docker", "kubepods", "containerd", "libpod", "lxc"))


def _torch_versions() -> tuple[str | None, str | None]:
    """PyTorch's version and the CUDA it was built for, read from torch/version.py without importing torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None, None
    if spec is None or not spec.origin:
        return None, None
    text = _read_text(Path(spec.origin).parent / "version.py", strip=False) or ""
    version = re.search(r"^__version__\s*(?::[^=]+)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
    cuda = re.search(r"^cuda\s*(?::[^=]+)?=\s*['\"]([^'\"]+)['\"]", text, re.M)
    return (version.group(1) if version else None), (cuda.group(1) if cuda else None)


def _read_text(path: Path, strip: bool = True) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return text.strip() if strip else text


def read_int(path: Path) -> int | None:
    return as_int(_read_text(path))


def _list_dir(path: Path) -> tuple[str, ...] | None:
    try:
        return tuple(sorted(p.name for p in path.iterdir()))
    except OSError:
        return None


# ----- what a benchmark records about its host (gpuwise.bench.host) ------------------------------
def cpu_model(root: Path = Path("/")) -> str:
    """The CPU's marketing name from /proc/cpuinfo (Linux), else what `platform` knows."""
    text = _read_text(root / "proc/cpuinfo", strip=False) or ""
    for key in ("model name", "Hardware", "Processor", "cpu model", "cpu"):
        m = re.search(rf"^{key}\s*:\s*(.+)$", text, re.MULTILINE)
        if m and m.group(1).strip():
            return m.group(1).strip()
    return platform.processor() or platform.machine() or "unknown"


def device_tree_compatible(root: Path = Path("/")) -> list[str]:
    """Entries of /proc/device-tree/compatible (NUL-separated; Jetson module ids), or []."""
    try:
        raw = (root / "proc/device-tree/compatible").read_bytes()
    except OSError:
        return []
    return [part.decode("ascii", "replace") for part in raw.split(b"\0") if part]


def pci_vendor_device(bus_id: str, root: Path = Path("/")) -> str | None:
    """'vendor:device' of the PCI device at `bus_id` ('0000:17:00.0') from sysfs, None when unreadable."""
    dev = root / "sys/bus/pci/devices" / bus_id
    vendor, device = _read_text(dev / "vendor"), _read_text(dev / "device")
    if vendor is None or device is None:
        return None
    return f"{vendor.removeprefix('0x')}:{device.removeprefix('0x')}"


def nvidia_driver_version(root: Path = Path("/")) -> str | None:
    """The NVIDIA kernel module's version from /proc/driver/nvidia/version (no NVML needed)."""
    text = _read_text(root / "proc/driver/nvidia/version", strip=False) or ""
    m = re.search(r"Kernel Module(?:\s+for\s+\S+)?\s+([0-9][0-9.]*)", text)
    return m.group(1) if m else None
