"""The `gpuwise` console script: the CLI's `main`, run as one short-lived process.

A command is a process of about 100 ms that loads the cached catalog and a few thousand small
objects and frees almost nothing before it exits. CPython's cyclic garbage collector still makes
a pass every 700 allocations while the modules import, and a last pass over every live object at
interpreter exit: together 15-25 ms of CPU per command (docs/performance.md, "A fast start"). So
the process raises the youngest generation's threshold (the collector still runs, as long-running
commands such as `gpuwise serve` need, just less often) and freezes what is alive before it exits
(`gc.freeze`: atexit handlers, objects freed by reference counting and the standard streams are
handled as usual; garbage in a reference cycle that is uncollected at exit is never finalized, so
no `__del__` runs for it and a file reachable only from it is not flushed: gpuwise closes every
file it opens, tests/test_exit_gc_freeze.py). `gpuwise.cli.app.main`, which tests and other programs
call in process, leaves the collector alone.
"""

from __future__ import annotations

import gc

# allocations between two collections of the youngest generation (CPython's default: 700)
YOUNG_THRESHOLD = 100_000


def run() -> None:
    """Run `gpuwise.cli.app.main` as the whole process."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    from gpuwise.cli.app import main

    try:
        main()
    finally:
        gc.freeze()
