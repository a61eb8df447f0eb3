"""Build and validate specs from loose options (CLI flags, YAML files, web forms).

Every rule a person can break has a message here that names the rule and what to do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.catalog.arch import ATTENTION_LINEARS, MLP_LINEARS
from gpuwise.errors import LayoutError, UsageError
from gpuwise.units import parse_bytes, parse_count
from gpuwise.workload.specs import (
    ATTENTIONS,
    KV_DTYPES,
    METHODS,
    OPTIMIZERS,
    PRECISIONS,
    RECOMPUTES,
    TASKS,
    WEIGHTS_DTYPES,
    DataPipeline,
    Hardware,
    InferenceJob,
    Parallelism,
    TrainingJob,
    Workload,
)

# Defaults a user can always override; each is echoed in the estimate's `workload` section.
DEFAULT_TRAIN_SEQ = 2048
DEFAULT_INPUT_TOKENS = 1024
DEFAULT_OUTPUT_TOKENS = 256
# PEFT's LoraConfig defaults for Llama-family models: r=8 on q_proj and v_proj.
DEFAULT_LORA_RANK = 8
DEFAULT_LORA_TARGETS = ("q_proj", "v_proj")

PIPELINE_KEYS = ("read_bandwidth", "sample_bytes", "decode_ms", "loader_cores")
TRAINING_KEYS = (
    *PIPELINE_KEYS,
    "master_weights",
    "method",
    "optimizer",
    "micro_batch",
    "global_batch",
    "zero",
    "recompute",
    "lora_rank",
    "lora_targets",
    "tokens",
    "samples",
)
INFERENCE_KEYS = ("input_tokens", "output_tokens", "concurrency", "kv_dtype")
KNOWN_KEYS = {
    "model",
    "task",
    "precision",
    "weights_dtype",
    "seq",
    "tp",
    "pp",
    "attention",
    "sequence_parallel",
    *TRAINING_KEYS,
    *INFERENCE_KEYS,
}


def normalize(options: Mapping[str, Any]) -> dict[str, Any]:
    """Accept 'micro-batch' or 'micro_batch'; drop unset (None) values; reject unknown keys."""
    out = {str(k).replace("-", "_"): v for k, v in options.items() if v is not None}
    unknown = set(out) - KNOWN_KEYS
    if unknown:
        from gpuwise.errors import suggest

        hints = [
            f"{u!r}" + (f" (did you mean {suggest(u, KNOWN_KEYS)[0]!r}?)" if suggest(u, KNOWN_KEYS) else "")
            for u in sorted(unknown)
        ]
        raise UsageError(f"unknown workload field(s): {', '.join(hints)}")
    return out


def _choice(opts: dict[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = str(opts.get(key, default)).lower()
    if value not in allowed:
        raise UsageError(f"--{key.replace('_', '-')} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _int(opts: dict[str, Any], key: str, default: int | None, minimum: int = 1) -> int | None:
    if key not in opts:
        return default
    raw = opts[key]
    try:
        value = int(parse_count(raw)) if isinstance(raw, str) else int(raw)
        if isinstance(raw, float) and raw != int(raw):
            raise ValueError
    except (TypeError, ValueError, OverflowError):  # OverflowError: int() of an infinity (YAML .inf, 1e400)
        raise UsageError(f"--{key.replace('_', '-')} must be a whole number; got {raw!r}") from None
    if value < minimum:
        raise UsageError(f"--{key.replace('_', '-')} must be at least {minimum}; got {value}")
    return value


def _bool(opts: dict[str, Any], key: str, default: bool) -> bool:
    raw = opts.get(key, default)
    if isinstance(raw, bool):
        return raw
    if str(raw).lower() in ("true", "yes", "1", "on"):
        return True
    if str(raw).lower() in ("false", "no", "0", "off"):
        return False
    raise UsageError(f"--{key.replace('_', '-')} must be true or false; got {raw!r}")


def _count(opts: dict[str, Any], key: str) -> float | None:
    if key not in opts:
        return None
    try:
        value = parse_count(opts[key])
    except ValueError as exc:
        raise UsageError(f"--{key}: {exc}") from None
    if value <= 0:
        raise UsageError(f"--{key} must be positive; got {opts[key]!r}")
    return value


def infer_task(opts: Mapping[str, Any]) -> str:
    """No --task: a training option means fine-tuning, otherwise serving."""
    if "task" in opts:
        return str(opts["task"]).lower()
    return "finetune" if any(k in opts for k in TRAINING_KEYS) else "inference"


def build_workload(options: Mapping[str, Any], catalog: Catalog) -> Workload:
    opts = normalize(options)
    if "model" not in opts:
        raise UsageError(
            "a workload needs a model: --model NAME or --model PATH/config.json (`gpuwise models` lists them)"
        )
    raw_model = opts["model"]
    model = raw_model if isinstance(raw_model, TransformerArch | GenericArch) else catalog.model(str(raw_model))
    task = infer_task(opts)
    if task not in TASKS:
        raise UsageError(f"--task must be one of {', '.join(TASKS)}; got {task!r}")
    tp = _int(opts, "tp", 1) or 1
    pp = _int(opts, "pp", 1) or 1
    zero = _int(opts, "zero", 0, minimum=0) or 0
    if zero > 3:
        raise UsageError(f"--zero must be 0, 1, 2 or 3; got {zero}")
    parallel = Parallelism(tp=tp, pp=pp, zero=zero, sequence_parallel=bool(opts.get("sequence_parallel", True)))
    _check_model_layout(model, parallel)
    precision = _choice(opts, "precision", PRECISIONS, "bf16")
    if task == "inference":
        stray = [k for k in TRAINING_KEYS if k in opts]
        if stray:
            raise UsageError(
                f"{', '.join('--' + k.replace('_', '-') for k in stray)} only apply to training; drop them or set --task finetune"
            )
        if zero:
            raise UsageError("--zero applies to training only")
        if "seq" in opts:
            raise UsageError(
                "--seq is the training sequence length; a serving request is sized by --input-tokens and "
                "--output-tokens (or set --task finetune)"
            )
        default_w = precision if precision in ("fp16", "bf16", "fp32") else "bf16"
        wd = _choice(opts, "weights_dtype", WEIGHTS_DTYPES, default_w)
        kv_default = wd if wd in ("fp16", "bf16", "fp32") else "bf16"
        return InferenceJob(
            model=model,
            weights_dtype=wd,  # type: ignore[arg-type]
            kv_dtype=_choice(opts, "kv_dtype", KV_DTYPES, kv_default),  # type: ignore[arg-type]
            input_tokens=_int(opts, "input_tokens", _default_input(model)) or 1,
            output_tokens=_int(opts, "output_tokens", DEFAULT_OUTPUT_TOKENS if model.decoder else 0, 0) or 0,
            concurrency=_int(opts, "concurrency", 1) or 1,
            parallel=parallel,
        )
    stray = [k for k in INFERENCE_KEYS if k in opts]
    if stray:
        raise UsageError(
            f"{', '.join('--' + k.replace('_', '-') for k in stray)} only apply to inference; drop them or set --task inference"
        )
    method = _choice(opts, "method", METHODS, "full")
    if method != "full" and task == "pretrain":
        raise UsageError("LoRA/QLoRA adapt a pretrained model: use --task finetune (or --method full to pretrain)")
    if method != "full" and not isinstance(model, TransformerArch):
        raise UsageError(f"--method {method} needs a transformer; {model.name} is described by totals only")
    default_w = "nf4" if method == "qlora" else (precision if precision in ("fp32", "fp16", "bf16") else "bf16")
    if method == "full" and precision == "tf32":
        default_w = "fp32"
    wd = _choice(opts, "weights_dtype", WEIGHTS_DTYPES, default_w)
    if method == "qlora" and wd != "nf4":
        raise UsageError(f"QLoRA keeps the frozen base in nf4; --weights-dtype {wd} contradicts --method qlora")
    if method == "full" and wd in ("int8", "int4", "nf4", "fp8"):
        raise UsageError(
            f"full training updates the weights and cannot keep them in {wd}; use --method qlora or a 16/32-bit dtype"
        )
    targets = _targets(opts.get("lora_targets"), model) if method != "full" else DEFAULT_LORA_TARGETS
    micro = _int(opts, "micro_batch", 1) or 1
    global_batch = _int(opts, "global_batch", None)
    if global_batch is not None and global_batch < micro:
        raise UsageError(f"--global-batch ({global_batch}) is smaller than --micro-batch ({micro})")
    if "tokens" in opts and "samples" in opts:
        raise UsageError("give --tokens or --samples, not both")
    return TrainingJob(
        model=model,
        task=task,  # type: ignore[arg-type]
        method=method,  # type: ignore[arg-type]
        precision=precision,  # type: ignore[arg-type]
        weights_dtype=wd,  # type: ignore[arg-type]
        optimizer=_choice(opts, "optimizer", OPTIMIZERS, "adamw"),  # type: ignore[arg-type]
        master_weights=_bool(opts, "master_weights", True),
        micro_batch=micro,
        global_batch=global_batch,
        seq=_int(opts, "seq", _default_seq(model)) or 1,
        parallel=parallel,
        recompute=_choice(opts, "recompute", RECOMPUTES, "none"),  # type: ignore[arg-type]
        attention=_choice(opts, "attention", ATTENTIONS, "flash"),  # type: ignore[arg-type]
        lora_rank=_int(opts, "lora_rank", DEFAULT_LORA_RANK) or DEFAULT_LORA_RANK,
        lora_targets=targets,
        tokens=_count(opts, "tokens"),
        samples=_count(opts, "samples"),
        data=_pipeline(opts),
    )


def _pipeline(opts: dict[str, Any]) -> DataPipeline | None:
    """--read-bandwidth 2GB/s --sample-bytes 120KB [--decode-ms 1.5 --loader-cores 32], per node."""
    given = [k for k in PIPELINE_KEYS if k in opts]
    if not given:
        return None
    if "read_bandwidth" not in opts or "sample_bytes" not in opts:
        raise UsageError(
            "a data pipeline needs --read-bandwidth (per node, e.g. 2GB/s) and --sample-bytes (e.g. 120KB)"
        )
    try:
        bw = parse_bytes(str(opts["read_bandwidth"]).replace("/s", "").replace("ps", ""))
        size = parse_bytes(str(opts["sample_bytes"]))
        decode = float(opts.get("decode_ms", 0.0)) / 1e3
    except ValueError as exc:
        raise UsageError(f"data pipeline: {exc}") from None
    cores = _int(opts, "loader_cores", 1) or 1
    if bw <= 0 or size <= 0 or decode < 0:
        raise UsageError(
            "data pipeline: --read-bandwidth and --sample-bytes must be positive, --decode-ms not negative"
        )
    return DataPipeline(read_bandwidth=bw, sample_bytes=size, decode_seconds=decode, cpu_cores=cores)


def _default_seq(model: Any) -> int:
    if isinstance(model, TransformerArch):
        return model.fixed_seq or min(model.max_seq, DEFAULT_TRAIN_SEQ)
    return 1


def _default_input(model: Any) -> int:
    if isinstance(model, TransformerArch):
        return model.fixed_seq or min(model.max_seq, DEFAULT_INPUT_TOKENS)
    return 1


def _targets(raw: Any, model: TransformerArch) -> tuple[str, ...]:
    if raw is None:
        return DEFAULT_LORA_TARGETS
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    names = tuple(str(x).strip() for x in items if str(x).strip())
    if names in (("all-linear",), ("all",)):
        return tuple(lin.name for lin in model.linears() if lin.name != "router")
    valid = set(ATTENTION_LINEARS) | set(MLP_LINEARS)
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise UsageError(f"--lora-targets: unknown module(s) {bad}; use names from {sorted(valid)} or 'all-linear'")
    if not model.gated_ffn and "gate_proj" in names:
        raise UsageError(f"--lora-targets: {model.name} has no gate_proj (its MLP is not gated)")
    return names


def _check_model_layout(model: Any, par: Parallelism) -> None:
    if not isinstance(model, TransformerArch):
        if par.tp > 1 or par.pp > 1:
            raise LayoutError(
                f"{model.name} is described by totals only: tensor/pipeline parallelism (--tp/--pp) needs a transformer"
            )
        return
    if model.heads % par.tp:
        raise LayoutError(f"--tp {par.tp} must divide the {model.heads} attention heads of {model.name}")
    if model.kv_heads % par.tp and par.tp % model.kv_heads:
        raise LayoutError(
            f"--tp {par.tp} and the {model.kv_heads} key/value heads of {model.name} must divide one another"
        )
    if model.ffn % par.tp:
        raise LayoutError(f"--tp {par.tp} must divide the FFN width {model.ffn} of {model.name}")
    if par.pp > model.layers:
        raise LayoutError(
            f"--pp {par.pp} exceeds the {model.layers} layers of {model.name}: a pipeline stage needs at least one layer"
        )
    if par.zero >= 2 and par.pp > 1:
        raise LayoutError(
            f"ZeRO stage {par.zero} cannot be combined with pipeline parallelism (--pp {par.pp}); DeepSpeed allows ZeRO-1 with pipelines"
        )


def build_hardware(
    spec: str, catalog: Catalog, gpus_per_node: int | None = None, network: str | None = None
) -> Hardware:
    """'h100-sxm:8' -> 8 H100 SXM in total (SkyPilot convention), grouped per node."""
    name, _, count_text = spec.partition(":")
    gpu = catalog.gpu(name)
    try:
        count = int(count_text) if count_text else 1
    except ValueError:
        raise UsageError(f"--gpu {spec!r}: the count after ':' must be a whole number (e.g. h100-sxm:8)") from None
    if count < 1:
        raise UsageError(f"--gpu {spec!r}: the GPU count must be at least 1")
    per_node = gpus_per_node or min(count, gpu.node_gpus)
    if per_node < 1:
        raise UsageError("--gpus-per-node must be at least 1")
    if count > per_node and count % per_node:
        raise LayoutError(
            f"{count} GPUs do not fill nodes of {per_node}: use a multiple of {per_node} or set --gpus-per-node"
        )
    if network is not None:
        link = catalog.interconnect(network)
        if link.scope != "inter-node":
            nets = sorted(i for i, c in catalog.interconnects.items() if c.scope == "inter-node")
            raise UsageError(
                f"--network {network!r} is a link inside a node; between nodes use one of {', '.join(nets)}"
            )
    return Hardware(gpu=gpu, count=count, gpus_per_node=min(per_node, count), network=network)


def check_layout(work: Workload, hw: Hardware) -> None:
    """Rules that need both the workload and the hardware."""
    par = work.parallel
    if hw.count % par.model_parallel:
        raise LayoutError(
            f"{hw.count} GPUs cannot hold tp={par.tp} x pp={par.pp} = {par.model_parallel}-way model parallelism evenly; use a multiple of {par.model_parallel} GPUs"
        )
    if isinstance(work, TrainingJob) and work.global_batch is not None:
        dp = par.dp(hw.count)
        if work.global_batch % (work.micro_batch * dp):
            raise LayoutError(
                f"--global-batch {work.global_batch} is not a multiple of micro-batch {work.micro_batch} x "
                f"{dp} data-parallel ranks = {work.micro_batch * dp}"
            )
    peaks = hw.gpu.peak_flops  # empty: the vendor publishes no figures, so nothing to check against
    if isinstance(work, TrainingJob) and peaks and work.precision != "fp32" and work.precision not in peaks:
        raise UsageError(
            f"{hw.gpu.name} has no {work.precision} tensor cores: choose --precision "
            f"{'/'.join(p for p in ('bf16', 'fp16', 'tf32', 'fp32') if p in hw.gpu.peak_flops or p == 'fp32')}"
        )
    if par.tp > hw.gpus_per_node:
        raise LayoutError(
            f"--tp {par.tp} spans more than one node of {hw.gpus_per_node} GPUs; keep tensor parallelism inside a node"
        )


def data_parallel(work: Workload, hw: Hardware) -> int:
    return max(1, hw.count // work.parallel.model_parallel)


def layers_per_stage(model: TransformerArch, pp: int) -> int:
    return math.ceil(model.layers / pp)
