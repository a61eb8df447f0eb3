"""The team's own measurements: the files the field's tools write (vLLM's serving benchmark,
nccl-tests, torchtitan and Megatron-LM logs, PyTorch's memory counters) read into plain data,
and the calibration that moves gpuwise's estimates onto them.

Pure: no file, database or network access here. `gpuwise calibrate import` reads the file and
the store keeps what `parse` returns.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuwise.calibration import nccl_tests, torch_memory, train_logs, vllm_bench
from gpuwise.calibration.parsed import FORMATS, Parsed
from gpuwise.errors import UsageError, suggest

_PARSERS: dict[str, Callable[[str], tuple[Parsed, ...]]] = {
    "vllm-bench": vllm_bench.parse,
    "nccl-tests": nccl_tests.parse,
    "torchtitan-log": train_logs.parse_torchtitan,
    "megatron-log": train_logs.parse_megatron,
    "torch-memory": torch_memory.parse,
}
assert set(_PARSERS) == set(FORMATS)


def check_format(fmt: str) -> str:
    """`fmt` when gpuwise reads it; a usage error with the nearest names otherwise."""
    if fmt not in _PARSERS:
        near = suggest(fmt, _PARSERS)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise UsageError(f"--format {fmt!r} is not one gpuwise reads{hint}; choose from {', '.join(_PARSERS)}")
    return fmt


def parse(text: str, fmt: str) -> tuple[Parsed, ...]:
    """The measurements in `text`, a file in format `fmt`: one, or several where the tool
    appends them (vLLM's --append-result, nccl-tests run one after another). A file that does
    not read is a ConfigError naming the line or key."""
    return _PARSERS[check_format(fmt)](text)


__all__ = ["FORMATS", "Parsed", "check_format", "parse"]
