"""gpuwise: which GPUs, how many, how connected, and what they cost for a workload.

The package holds the planner (catalog, workload, estimate, plan, report: no I/O library), the
operating side (hw, bench, store, ops, deploy) and three front doors over them: the Python API
(`gpuwise.api`), the command line (`gpuwise.cli`) and the web UI (`gpuwise.web`). Nothing is
imported here, so that `import gpuwise` (and `gpuwise --help`) stays cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
