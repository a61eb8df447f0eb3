"""nccl-tests' standard output: all_reduce_perf and its siblings (all_gather_perf,
reduce_scatter_perf, alltoall_perf, broadcast_perf, reduce_perf, sendrecv_perf ...).

The layout as nccl-tests prints it (src/common.cu, src/util.cu, v2.13 to v2.19):

    # nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703     (v2.17 and later)
    # Collective test starting: all_reduce_perf                            (v2.16.7 and later)
    # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...
    # Using devices
    #  Rank  0 Group  0 Pid  41021 on   node-017 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
    #       size         count      type   redop    root     time   algbw   busbw #wrong     time ...
       134217728      33554432     float     sum      -1   706.83  189.89  332.31      0   705.95 ...
    # Out of bounds values : 0 OK
    # Avg bus bandwidth    : 89.3409

Each row: size (bytes), count (elements per rank), type, redop, root, then time (us), algbw and
busbw (GB/s, 1e9 bytes/s) and #wrong (N/A with -c 0) out of place, then the same in place;
`-R`/per-iteration timing adds i_min, i_max, i_p99, i_cv% to each half. Lines that are neither
a comment nor a row (NCCL's own INFO/WARN lines, mpirun's) are skipped; a row that does not
read is an error naming its line.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from gpuwise.calibration.parsed import Parsed, clean, number
from gpuwise.errors import ConfigError

FORMAT = "nccl-tests"
GB = 1e9  # nccl-tests' GB/s are decimal: bytes / 1e9 / seconds
US = 1e-6
TYPE_BYTES = {
    "int8": 1, "uint8": 1, "char": 1, "f8e4m3": 1, "f8e5m2": 1, "half": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "int": 4, "float": 4, "int64": 8, "uint64": 8, "double": 8,
}  # fmt: skip
_PROGRAMS = {
    "all_reduce": "all_reduce", "all_gather": "all_gather", "reduce_scatter": "reduce_scatter",
    "alltoall": "all_to_all", "alltoallv": "all_to_all_v", "broadcast": "broadcast", "reduce": "reduce",
    "sendrecv": "sendrecv", "gather": "gather", "scatter": "scatter", "hypercube": "hypercube",
}  # fmt: skip
_HEADER = re.compile(r"#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)")
_ITERS = re.compile(r"warmup iters:\s*(\d+)\s+iters:\s*(\d+)")
_RANK = re.compile(
    r"#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s*(.*)$"
)
_PROGRAM = re.compile(r"#\s*Collective test starting:\s*(\S+)")
_VERSION = re.compile(r"#\s*nccl-tests version\s+(\S+)")
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*(\S+)")
_ROW_START = re.compile(r"^\s*\d+\s+\d+\s+\S")


def parse(text: str) -> tuple[Parsed, ...]:
    """One measurement per test in the output (several tests may be printed one after another)."""
    runs: list[list[tuple[int, str]]] = [[]]
    for n, line in enumerate(text.splitlines(), 1):
        runs[-1].append((n, line))
        if _AVG.match(line.strip()):  # a test ends with its average; the next one's header follows
            runs.append([])
    tests = [r for r in runs if any(_ROW_START.match(line) for _, line in r)]
    if not tests:
        raise ConfigError("no result rows (size, count, type, ... busbw): not the output of an nccl-tests program")
    return tuple(_one(r) for r in tests)


def _one(lines: list[tuple[int, str]]) -> Parsed:
    head: dict[str, Any] = {}
    ranks: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    per_iteration = False
    avg: float | None = None
    for n, raw in lines:
        line = raw.rstrip()
        if line.lstrip().startswith("#"):
            per_iteration |= "i_min" in line
            avg = _header_line(line.strip(), n, head, ranks, avg)
        elif _ROW_START.match(line):
            rows.append(_row(line, n, 8 if per_iteration else 4))
    if avg is None:
        last = lines[-1][0]
        raise ConfigError(f"line {last}: the output ends before '# Avg bus bandwidth': the test did not finish")
    return _measurement(head, ranks, rows, avg)


def _header_line(
    line: str, n: int, head: dict[str, Any], ranks: list[dict[str, Any]], avg: float | None
) -> float | None:
    """Read one '#' line into `head`/`ranks`; the average bus bandwidth when this is its line."""
    if m := _HEADER.match(line):
        head.update(threads=int(m.group(1)), gpus_per_thread=int(m.group(2)))
        head.update(min_bytes=int(m.group(3)), max_bytes=int(m.group(4)))
        if it := _ITERS.search(line):
            head.update(warmup_iterations=int(it.group(1)), iterations=int(it.group(2)))
    elif m := _RANK.match(line):
        ranks.append({"rank": int(m.group(1)), "host": clean(m.group(2)), "device": int(m.group(3)),
                      "name": clean(m.group(4))})  # fmt: skip
    elif m := _PROGRAM.match(line):
        head["program"] = clean(PurePosixPath(m.group(1)).name)
    elif m := _VERSION.match(line):
        head["version"] = clean(m.group(1))
    elif m := _AVG.match(line):
        try:
            return number(float(m.group(1)), f"line {n}: the average bus bandwidth") * GB
        except ValueError:
            raise ConfigError(
                f"line {n}: the average bus bandwidth {clean(m.group(1), 40)!r} is not a number"
            ) from None
    return avg


def _row(line: str, n: int, group: int) -> dict[str, Any]:
    """One table row: the preamble, then out-of-place and in-place groups of `group` columns."""
    tokens = line.split()
    try:
        size, count = int(tokens[0]), int(tokens[1])
        dtype, redop, root = tokens[2], tokens[3], int(tokens[4])
        body = tokens[5:]
        halves = [body[i : i + group] for i in range(0, 2 * group, group) if len(body) >= i + group]
        if not halves or len(body) < 3:
            raise ValueError("too few columns")
        measured = [{"seconds": float(h[0]) * US, "algbw": float(h[1]) * GB, "busbw": float(h[2]) * GB} for h in halves]
    except (ValueError, IndexError) as exc:
        raise ConfigError(f"line {n}: not a result row of nccl-tests ({exc}): {clean(line, 80)!r}") from None
    for half in measured:
        for key, value in half.items():
            number(value, f"line {n}: {key}")
    out: dict[str, Any] = {"bytes": size, "count": count, "type": clean(dtype, 16), "redop": clean(redop, 16)}
    out.update(root=root, in_place=measured[-1], out_of_place=measured[0] if len(measured) == 2 else None)
    return out


def _collective(head: dict[str, Any], rows: list[dict[str, Any]], ranks: int) -> str:
    """The collective: the program name where the output has it, else what the table shows
    (redop and root; all-reduce and reduce-scatter told apart by size/count)."""
    program = str(head.get("program", "")).removesuffix("_perf")
    if program:
        return _PROGRAMS.get(program, clean(program, 32))
    r = rows[-1]
    size_per_rank = r["count"] * TYPE_BYTES.get(r["type"], 0)
    if r["root"] >= 0:
        return "broadcast" if r["redop"] == "none" else "reduce"
    if r["redop"] != "none":
        return "all_reduce" if r["bytes"] == size_per_rank or ranks == 1 else "reduce_scatter"
    raise ConfigError(
        "this output does not name its test (nccl-tests before 2.16.7 print no '# Collective test starting' line), "
        "and all_gather and alltoall tables look alike: add the line '# Collective test starting: all_gather_perf' "
        "(or alltoall_perf) at its top"
    )


def _measurement(head: dict[str, Any], ranks: list[dict[str, Any]], rows: list[dict[str, Any]], avg: float) -> Parsed:
    count = len(ranks) or None
    notes = []
    if count is None and head.get("threads"):
        notes.append("no '#  Rank' lines: the GPU count is not in the output")
    names = sorted({r["name"] for r in ranks if r["name"]})
    if len(names) > 1:
        notes.append(f"the ranks ran on different GPU models: {', '.join(names)}")
    op = _collective(head, rows, count or 1)
    top = max(rows, key=lambda r: r["bytes"])
    best = top["out_of_place"] or top["in_place"]
    figures = {
        "busbw": best["busbw"],
        "algbw": best["algbw"],
        "collective_seconds": best["seconds"],
        "busbw_in_place": top["in_place"]["busbw"],
        "avg_busbw": avg,
    }
    samples = {"busbw": tuple(h["busbw"] for h in (top["out_of_place"], top["in_place"]) if h)}
    hosts = sorted({r["host"] for r in ranks})
    facts = {**head, "dtype": top["type"], "redop": top["redop"], "hosts": hosts, "devices": ranks, "table": rows}
    return Parsed(
        format=FORMAT,
        figures=figures,
        shape={"collective": op, "bytes": top["bytes"], "ranks": count},
        gpu_name=names[0] if len(names) == 1 else None,
        gpu_count=count,
        hosts=len(hosts) or None,
        samples=samples,
        facts=facts,
        notes=tuple(notes),
    )
