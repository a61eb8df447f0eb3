"""Training logs: torchtitan's and Megatron-LM's, as they print them.

torchtitan (torchtitan/components/metrics.py, train.py; the `[titan] %(asctime)s - %(name)s -
%(levelname)s - %(message)s` logger, colours optional; v0.1 to v0.2):

    CUDA capacity: NVIDIA H100 80GB HBM3 with 79.19GiB memory
    Building 1-D device mesh with ['dp_shard'], [8]
    Model llama3 8B size: 8,030,261,248 total parameters
    Applied selective activation checkpointing to the model
    Applied FSDP to the model
    Trainer is initialized with local batch size 2, global batch size 16, gradient accumulation steps 1,
        sequence length 8192, total steps 1000 (warmup 200)
    step: 10  loss:  9.8254  grad_norm:  1.2101  memory: 51.40GiB(64.91%)  tps: 6,321  tflops: 366.07  mfu: 37.01%

`tps` is tokens per second per GPU, `memory` the peak reserved since the last line. Megatron-LM
(megatron/training/training.py training_log, arguments.py _print_args, report_memory):

    ------------------------ arguments ------------------------
      global_batch_size ............................... 128
    -------------------- end of arguments ---------------------
     [2025-06-01 10:11:12.123456] iteration       20/    1000 | consumed samples:  2560 |
        elapsed time per iteration (ms): 6012.3 | throughput per GPU (TFLOP/s/GPU): 398.2 | ...
    [Rank 0] (after 10 iterations) memory (MB) | allocated: 30123.45 | max allocated: 52345.67 | ...

The first metrics line of a run carries its start-up (compilation, warm-up): figures are the
median of the lines after it, their samples kept as the measured spread.
"""

from __future__ import annotations

import math
import re
import statistics
from typing import Any

from gpuwise.calibration.parsed import Parsed, clean, number, strip_escapes
from gpuwise.errors import ConfigError
from gpuwise.units import GiB, MiB

TORCHTITAN, MEGATRON = "torchtitan-log", "megatron-log"
TFLOP = 1e12

# ----- torchtitan --------------------------------------------------------------------------------
_T_CAPACITY = re.compile(r"\b(?:CUDA|ROCM|XPU|NPU|HIP) capacity: (.+?) with ([\d.]+)GiB memory")
_T_MODEL = re.compile(r"\bModel (.+?) size: ([\d,]+) total parameters")
_T_MESH = re.compile(r"Building \d+-D device mesh with \[([^\]]*)\], \[([^\]]*)\]")
_T_AC = re.compile(r"Applied (\w+) activation checkpointing to the model")
_T_FSDP = re.compile(r"Applied (FSDP|HSDP) to the model")
_T_BATCH = re.compile(
    r"local batch size (\d+), global batch size (\d+), (?:gradient accumulation steps (\d+), )?sequence length (\d+)"
)
_T_STEP = re.compile(
    r"(?<!validate )step:\s*(\d+)\s+loss:\s*\S+\s+(?:grad_norm:\s*\S+\s+)?memory:\s*([\d.]+)GiB\(([\d.]+)%\)\s+"
    r"(?:tps|wps):\s*([\d,]+)\s+(?:tflops:\s*([\d,.]+)\s+)?mfu:\s*([\d.]+%|N/A)"
)
_T_TIME = re.compile(r"\[titan\] (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
_RANK_PREFIX = re.compile(r"^\[rank(\d+)\]:")


def parse_torchtitan(text: str) -> tuple[Parsed, ...]:
    found: dict[str, Any] = {}
    steps: list[tuple[int, dict[str, float]]] = []
    rank: int | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = strip_escapes(raw)
        prefix = _RANK_PREFIX.match(line)
        if prefix:  # several ranks' logs interleaved: read the first rank's
            rank = int(prefix.group(1)) if rank is None else rank
            if int(prefix.group(1)) != rank:
                continue
        if (m := _T_STEP.search(line)) is not None:
            steps.append((n, _titan_step(m, n)))
        else:
            _titan_fact(line, found)
    if not steps:
        raise ConfigError(
            "no 'step: ... tps: ... mfu: ...' lines: not a torchtitan training log (or no step was logged)"
        )
    figures, samples, notes = _steady(steps)
    shape = _titan_shape(found)
    return (
        Parsed(
            format=TORCHTITAN,
            figures=figures,
            shape=shape,
            model=found.get("model"),
            gpu_name=found.get("gpu_name"),
            gpu_memory_bytes=found.get("gpu_memory_bytes"),
            gpu_count=found.get("mesh_gpus"),
            measured_at=found.get("time"),
            samples=samples,
            facts={k: v for k, v in found.items() if k in ("params", "mesh", "time")},
            notes=tuple(notes),
        ),
    )


def _titan_step(m: re.Match[str], n: int) -> dict[str, float]:
    at = f"line {n}"
    out = {
        "peak_reserved_bytes": number(float(m.group(2)), at) * GiB,
        "tokens_per_second_per_gpu": number(float(m.group(4).replace(",", "")), f"{at}: tps"),
    }
    if m.group(5) is not None:
        out["flops_per_gpu"] = number(float(m.group(5).replace(",", "")), f"{at}: tflops") * TFLOP
    if m.group(6) != "N/A":
        out["mfu"] = number(float(m.group(6).rstrip("%")), f"{at}: mfu") / 100
    return out


def _titan_fact(line: str, found: dict[str, Any]) -> None:
    if (m := _T_CAPACITY.search(line)) is not None:
        found.update(gpu_name=clean(m.group(1)), gpu_memory_bytes=round(float(m.group(2)) * GiB))
    elif (m := _T_MODEL.search(line)) is not None:
        found.update(model=clean(m.group(1)), params=int(m.group(2).replace(",", "")))
    elif (m := _T_MESH.search(line)) is not None:
        names = [clean(x).strip("'\" ") for x in m.group(1).split(",")]
        dims = [int(x) for x in re.findall(r"\d+", m.group(2))]
        if len(names) == len(dims) and dims:
            found["mesh"] = dict(zip(names, dims, strict=True))
            found["mesh_gpus"] = math.prod(dims)
    elif (m := _T_AC.search(line)) is not None:
        found["recompute"] = m.group(1).lower()
    elif (m := _T_FSDP.search(line)) is not None:
        found["sharding"] = "hybrid" if m.group(1) == "HSDP" else "full"
    elif (m := _T_BATCH.search(line)) is not None:
        found.update(micro_batch=int(m.group(1)), global_batch=int(m.group(2)), seq=int(m.group(4)))
    if "time" not in found and (t := _T_TIME.search(line)) is not None:
        found["time"] = t.group(1).replace(" ", "T")


def _titan_shape(found: dict[str, Any]) -> dict[str, Any]:
    if "micro_batch" not in found:
        raise ConfigError(
            "no 'local batch size N, global batch size N, ... sequence length N' line: the log does not say the "
            "batch it ran (keep the log from the start of the run)"
        )
    mesh = found.get("mesh", {})
    shape: dict[str, Any] = {"task": "pretrain", "framework": "torchtitan", "precision": "bf16"}
    shape.update({k: found[k] for k in ("micro_batch", "global_batch", "seq")})
    shape.update({k: mesh[k] for k in ("tp", "pp", "cp") if mesh.get(k, 1) > 1})
    if "sharding" in found:
        shape.update(zero=3, sharding=found["sharding"])
    if found.get("recompute") in ("selective", "full"):
        shape["recompute"] = found["recompute"]
    return shape


# ----- Megatron-LM ---------------------------------------------------------------------------------
_M_ARG = re.compile(r"^\s+(\w+) \.*\s*(.*?)\s*$")
_M_ITER = re.compile(r"\biteration\s+(\d+)/\s*(\d+)\s*\|(.*)$")
_M_MEMORY = re.compile(
    r"\[Rank (\d+)\].*memory \(MB\)\s*\|\s*allocated:\s*([\d.]+)\s*\|\s*max allocated:\s*([\d.]+)\s*\|"
    r"\s*reserved:\s*([\d.]+)\s*\|\s*max reserved:\s*([\d.]+)"
)
_M_TIME = re.compile(r"^\s*\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
_M_ARGS = (
    "micro_batch_size", "global_batch_size", "seq_length", "tensor_model_parallel_size",
    "pipeline_model_parallel_size", "context_parallel_size", "world_size", "num_layers", "hidden_size",
    "num_attention_heads", "num_query_groups", "ffn_hidden_size", "bf16", "fp16", "recompute_granularity",
    "use_distributed_optimizer", "sequence_parallel", "virtual_pipeline_model_parallel_size", "train_iters",
)  # fmt: skip


def parse_megatron(text: str) -> tuple[Parsed, ...]:
    args: dict[str, str] = {}
    steps: list[tuple[int, dict[str, float]]] = []
    memory: list[tuple[float, float]] = []
    in_args = False
    when = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = strip_escapes(raw)
        if "-- arguments --" in line or "end of arguments" in line:
            in_args = "end of" not in line
        elif in_args and (a := _M_ARG.match(line)) is not None and a.group(1) in _M_ARGS:
            args[a.group(1)] = clean(a.group(2), 64)
        elif (m := _M_ITER.search(line)) is not None:
            steps.append((n, _megatron_step(m.group(3), n)))
            when = when or ((t := _M_TIME.match(line)) and t.group(1).replace(" ", "T"))
        elif (m := _M_MEMORY.search(line)) is not None:
            memory.append((float(m.group(3)) * MiB, float(m.group(5)) * MiB))
    if not steps:
        raise ConfigError(
            "no 'iteration N/ M | ... elapsed time per iteration (ms)' lines: not a Megatron-LM training log"
        )
    figures, samples, notes = _steady(steps)
    if memory:
        figures["peak_allocated_bytes"] = max(a for a, _ in memory)
        figures["peak_reserved_bytes"] = max(r for _, r in memory)
    shape, arch = _megatron_shape(args)
    world = _arg_int(args, "world_size")
    if world and "tokens_per_second_per_gpu" not in figures and {"global_batch", "seq"} <= set(shape):
        tokens = shape["global_batch"] * shape["seq"]
        figures["tokens_per_second_per_gpu"] = tokens / figures["step_seconds"] / world
        samples["tokens_per_second_per_gpu"] = tuple(tokens / s / world for s in samples["step_seconds"])
    if not args:
        notes.append("no arguments block (---- arguments ----): the batch, sequence and layout are not in the log")
    return (
        Parsed(
            format=MEGATRON,
            figures=figures,
            shape=shape,
            gpu_count=world,
            measured_at=when or None,
            samples=samples,
            facts={"arch": arch, "train_iters": _arg_int(args, "train_iters")},
            notes=tuple(notes),
        ),
    )


def _megatron_step(fields: str, n: int) -> dict[str, float]:
    """The '|'-separated 'key: value' fields of one iteration line."""
    values = {}
    for part in fields.split("|"):
        key, sep, value = part.partition(":")
        if sep:
            values[key.strip()] = value.strip()
    if "elapsed time per iteration (ms)" not in values:
        raise ConfigError(f"line {n}: an iteration line without 'elapsed time per iteration (ms)'")
    out = {"step_seconds": _float(values["elapsed time per iteration (ms)"], n, positive=True) / 1000}
    flops = values.get("throughput per GPU (TFLOP/s/GPU)")
    if flops is not None:
        out["flops_per_gpu"] = _float(flops, n) * TFLOP
    return out


def _megatron_shape(args: dict[str, str]) -> tuple[dict[str, Any], dict[str, int]]:
    shape: dict[str, Any] = {"task": "pretrain", "framework": "megatron"}
    for ours, theirs in (
        ("micro_batch", "micro_batch_size"),
        ("global_batch", "global_batch_size"),
        ("seq", "seq_length"),
    ):
        if (v := _arg_int(args, theirs)) is not None:
            shape[ours] = v
    for ours, theirs in (("tp", "tensor_model_parallel_size"), ("pp", "pipeline_model_parallel_size"),
                         ("cp", "context_parallel_size"), ("vpp", "virtual_pipeline_model_parallel_size")):  # fmt: skip
        if (v := _arg_int(args, theirs)) is not None and v > 1:
            shape[ours] = v
    shape["precision"] = "bf16" if args.get("bf16") == "True" else "fp16" if args.get("fp16") == "True" else "fp32"
    if args.get("use_distributed_optimizer") == "True":
        shape["zero"] = 1
    if args.get("recompute_granularity") in ("selective", "full"):
        shape["recompute"] = args["recompute_granularity"]
    arch_keys = {"layers": "num_layers", "hidden": "hidden_size", "heads": "num_attention_heads",
                 "kv_heads": "num_query_groups", "ffn": "ffn_hidden_size"}  # fmt: skip
    arch = {k: v for k, a in arch_keys.items() if (v := _arg_int(args, a)) is not None}
    if args.get("group_query_attention") != "True" and "heads" in arch:  # num_query_groups applies only with GQA
        arch["kv_heads"] = arch["heads"]
    return shape, arch


def _arg_int(args: dict[str, str], key: str) -> int | None:
    text = args.get(key)
    return int(text) if text is not None and text.isdigit() else None


def _float(text: str, n: int, positive: bool = False) -> float:
    try:
        return number(float(text), f"line {n}", positive=positive)
    except ValueError:
        raise ConfigError(f"line {n}: {clean(text, 40)!r} is not a number") from None


# ----- both --------------------------------------------------------------------------------------------
def _steady(
    steps: list[tuple[int, dict[str, float]]],
) -> tuple[dict[str, float], dict[str, tuple[float, ...]], list[str]]:
    """Figures as the median over the metrics lines after the first (which carries the start-up);
    their values kept as samples. Memory is the largest peak of any line."""
    notes = []
    steady = steps[1:] if len(steps) > 1 else steps
    if len(steps) == 1:
        notes.append(f"one metrics line only (line {steps[0][0]}): its figures include the run's start-up")
    samples: dict[str, tuple[float, ...]] = {}
    figures: dict[str, float] = {}
    for key in steady[0][1]:
        if key == "peak_reserved_bytes":
            figures[key] = max(v[key] for _, v in steps if key in v)
            continue
        values = tuple(v[key] for _, v in steady if key in v)
        figures[key], samples[key] = statistics.median(values), values
    return figures, samples, notes
