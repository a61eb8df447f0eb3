"""Operate GPU hosts: host checks, a Prometheus exporter, fleet life cycle, over the one hardware
interface (`gpuwise.hw`: typed snapshots, a recorder and a replay source; synthetic example hosts
in examples/hosts/).

- `gpuwise.ops.doctor`: host checks, each PASS/WARN/FAIL/SKIP with its evidence and fix.
- `gpuwise.ops.exporter`: a Prometheus collector that reads a fresh snapshot on every scrape.
- `gpuwise.ops.fleet`: card inventory, inspections and retirement rules over the store.

Nothing here is imported by the core, and this package imports no NVML or Prometheus library
until a function that needs one runs.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
# The exporter's default TCP port; here (not in exporter.py) so the CLI can show it without importing it.
EXPORTER_PORT = 9835


def data_file(name: str) -> Path:
    """A file shipped in gpuwise/ops/data (alert rules, their tests, dashboard, fleet rules)."""
    return DATA / name


__all__ = ["DATA", "EXPORTER_PORT", "data_file"]
