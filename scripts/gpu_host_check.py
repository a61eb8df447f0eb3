"""Check the operate features on a real GPU host and print what they found.

Runs, in order: `doctor` (two readings, all checks), a recording of the host, one exporter scrape
over HTTP on loopback (plus a second one to show the derived rates), and a fleet scan + evaluate
into a throw-away SQLite store. Uses the Python API, so it works whether or not the `gpuwise`
command already has these subcommands.

    python scripts/gpu_host_check.py [--out DIR] [--db URL] [--replay FILE]

Exit status: 0 when every step ran (doctor FAILs are reported, not an error), 1 when a step broke.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
import urllib.request
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="folder for host.json, doctor.json, metrics.txt")
    ap.add_argument("--db", default=None, help="store URL for the fleet scan (default: a temporary SQLite file)")
    ap.add_argument("--replay", type=Path, default=None, help="use a recorded host instead of the hardware")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="gpuwise-host-check-"))
    out.mkdir(parents=True, exist_ok=True)
    broken = []

    from gpuwise.hw import NvmlSource, ReplaySource, close_source, record
    from gpuwise.ops.doctor import DoctorOptions, run_checks

    def source():
        return ReplaySource(args.replay) if args.replay else NvmlSource()

    # 1. doctor -------------------------------------------------------------------------------
    print("== doctor")
    snap = None
    try:
        src = source()
        try:
            first = src.read()
            if not args.replay and first.has_nvidia and first.gpus:
                time.sleep(2)
            snap = src.read()
        finally:
            close_source(src)
        record([first, snap] if snap is not first else snap, out / "host.json")
        report = run_checks(snap, DoctorOptions(previous=first if snap is not first else None))
        (out / "doctor.json").write_text(json.dumps(report.as_dict(), indent=2) + "\n")
        print(report.headline)
        for r in report.results:
            if r.status != "PASS":
                print(f"  {r.status:4} {r.check:16} {r.summary}")
        g = snap.gpus[0] if snap.gpus else None
        if g is not None:
            print(
                f"  GPU 0: {g.name} ({g.catalog_id}), driver {snap.driver_version}, CUDA {snap.cuda_driver_version}, "
                f"VBIOS {g.vbios}, PCIe Gen{g.pcie_gen} x{g.pcie_width}, NVLink active {g.active_nvlinks}, "
                f"{g.temperature_celsius} °C, {g.power_watts} W, errors {g.errors or 'none'}"
            )
    except Exception:
        broken.append("doctor")
        traceback.print_exc()

    # 2. exporter -----------------------------------------------------------------------------
    print("== exporter")
    try:
        from prometheus_client.parser import text_string_to_metric_families

        from gpuwise.ops.exporter import start

        running = start(0, "127.0.0.1", source())
        try:
            bodies = []
            for _ in range(2):
                with urllib.request.urlopen(running.url, timeout=30) as resp:
                    bodies.append(resp.read().decode())
                time.sleep(1)
        finally:
            running.stop()
        (out / "metrics.txt").write_text(bodies[-1])
        families = list(text_string_to_metric_families(bodies[-1]))
        samples = sum(len(f.samples) for f in families)
        print(f"  {running.url}: {len(families)} metrics, {samples} samples")
        for f in families:
            if f.name in (
                "gpuwise_gpu_up",
                "gpuwise_exporter_scrape_duration_seconds",
                "gpuwise_gpu_memory_growth_ratio_per_minute",
            ):
                for s in f.samples[:8]:
                    print(f"  {s.name}{{gpu={s.labels.get('gpu', '-')}}} {s.value:g}")
    except ImportError as exc:
        print(f"  skipped: {exc} (pip install 'gpuwise[ops]')")
    except Exception:
        broken.append("exporter")
        traceback.print_exc()

    # 3. fleet --------------------------------------------------------------------------------
    print("== fleet")
    try:
        if snap is not None and not snap.has_nvidia:
            print(f"  skipped: {snap.nvml_error}")
        else:
            from gpuwise.ops import fleet
            from gpuwise.store import open_store

            url = args.db or f"sqlite:///{out / 'fleet.db'}"
            with open_store(url) as store:
                result = fleet.scan(store, source(), samples=3, interval=0.5)
                print(
                    f"  scan into {url}: {len(result.added)} new, {len(result.updated)} known, {len(result.inspected)} inspected"
                )
                for line in result.skipped:
                    print(f"  skipped {line}")
                verdicts = fleet.evaluate(store, fleet.load_rules())
                for v in verdicts:
                    print(
                        f"  {v.verdict.upper()} {v.card.uuid}: "
                        + "; ".join(f"{r.rule}: {r.evidence}" for r in v.reasons)
                    )
                if not verdicts:
                    print("  evaluate: no card needs attention")
    except Exception:
        broken.append("fleet")
        traceback.print_exc()

    print(f"== files in {out}")
    if broken:
        print("broken steps: " + ", ".join(broken))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
