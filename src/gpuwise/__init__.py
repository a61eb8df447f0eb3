"""gpuwise: which GPUs, how many, how connected, and what they cost for a workload.

The public Python API is re-exported here lazily so that importing the package (and so
`gpuwise --help`) stays cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
