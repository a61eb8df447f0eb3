"""Serving engines' command lines from a plan, built once for every target (Kubernetes, Slurm,
SkyPilot): the program, and its flags with the reason for each.

The flags are the engines' own, as their documentation names them:
- vLLM's OpenAI-compatible server (`python3 -m vllm.entrypoints.openai.api_server`, engine
  arguments in vllm/engine/arg_utils.py, catalog source `vllm-arg-utils`);
- SGLang (`python3 -m sglang.launch_server`, server arguments in
  python/sglang/srt/server_args.py, catalog source `sglang-server-args`);
- TensorRT-LLM (`trtllm-serve MODEL`, https://nvidia.github.io/TensorRT-LLM/0.18.2/commands/trtllm-serve.html).
Each engine's memory share is the one the plan's serving model assumed (catalog engines.yaml),
so the deployed engine never gets less memory than the plan counted on. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from gpuwise.catalog import Catalog, TransformerArch
from gpuwise.deploy.common import DeployConventions, Why, why
from gpuwise.deploy.sharing import Sharing
from gpuwise.deploy.shell import ShellText
from gpuwise.errors import UsageError
from gpuwise.estimate.memory.inference import engine_profile, engine_share
from gpuwise.plan.results import Candidate
from gpuwise.units import fmt_gib
from gpuwise.workload import InferenceJob

PORT = 8000  # the HTTP port every server is told to listen on (vLLM's and Triton's default)
LLM_ENGINES = ("vllm", "sglang", "trtllm")  # the workload's `engine` choices (workload.specs.Engine)
HEALTH = {"vllm": "/health", "sglang": "/health", "trtllm": "/health", "triton": "/v2/health/ready"}
PROGRAMS: dict[str, tuple[str, ...]] = {
    "vllm": ("python3", "-m", "vllm.entrypoints.openai.api_server"),
    "sglang": ("python3", "-m", "sglang.launch_server"),
    "trtllm": ("trtllm-serve",),
    "triton": ("tritonserver",),
}
# pip packages a cloud task installs for each engine (SkyPilot `setup`)
PIP_PACKAGES = {"vllm": "vllm", "sglang": "sglang[all]", "trtllm": "tensorrt-llm"}
# CPU cores a replica's server needs beyond one per GPU worker: vLLM V1 runs an API server process
# and an engine-core process beside one worker process per GPU (vLLM docs, design/arch_overview.md,
# "Multi-process architecture"); SGLang likewise a tokenizer/HTTP process and a detokenizer beside
# one scheduler per tensor-parallel rank (SGLang docs, architecture). TensorRT-LLM: the same allowance.
SERVER_EXTRA_PROCESSES = 2
_DTYPE = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


@dataclass(frozen=True, slots=True)
class ServerCommand:
    """One replica's server: the program, its flags (plain strings or `why(...)`), its health
    endpoint, and what the plan leaves to the operator."""

    engine: str
    program: tuple[str, ...]
    args: tuple[Any, ...]
    health: str
    notes: tuple[str, ...] = ()


def hf_repo(model_name: str, catalog: Catalog) -> str | None:
    """The Hugging Face repository a catalog model's config comes from, if any."""
    entry = catalog.models.get(model_name)
    if entry is None:
        return None
    for sid in sorted(entry.source_ids()):
        url = catalog.sources[sid].url or ""
        m = re.match(r"https://huggingface\.co/([^/]+/[^/]+?)(?:/|$)", url)
        if m:
            return m.group(1)
    return None


def model_source(work: InferenceJob, given: str | None, catalog: Catalog) -> tuple[str, str]:
    """(what the engine loads, reason): --model-source, the catalog's Hugging Face repository, or a path."""
    source = given or hf_repo(work.model.name, catalog) or f"/models/{work.model.name}"
    if given:
        return source, "as given (--model-source)"
    if "/" in source and not source.startswith("/"):
        return source, "Hugging Face repository of the catalog's config"
    return source, "no known repository: mount the weights at this path or pass --model-source"


def is_llm(work: InferenceJob) -> bool:
    return isinstance(work.model, TransformerArch) and work.model.decoder


def vllm_memory(c: Candidate, share: Sharing, conv: DeployConventions, catalog: Catalog) -> tuple[float, str]:
    """(--gpu-memory-utilization, reason): the share the user gave the plan's engine where that engine counts
    it as vLLM does (of the whole device), else vLLM's default share, raised to what the plan needs, or split
    between time-sliced replicas."""
    need = c.est.memory.per_gpu.total
    capacity = c.est.memory.capacity
    work = c.est.workload
    given = work.memory_fraction if isinstance(work, InferenceJob) else None
    same_basis = (
        isinstance(work, InferenceJob)
        and catalog.engine(work.engine).memory_basis == catalog.engine("vllm").memory_basis
    )
    if given is not None and same_basis and share.mode != "time-slicing":
        return given, "as given (--memory-fraction): the share the plan's KV cache was sized with"
    util = conv.gpu_memory_utilization
    util_why = (
        f"vLLM pre-allocates this share of GPU memory for weights and KV cache; the plan needs "
        f"{fmt_gib(need)} of {fmt_gib(capacity)} per GPU ({need / capacity:.0%})"
    )
    if share.mode == "time-slicing":
        util = math.floor((1 / share.per_gpu - conv.memory_margin) * 100) / 100
        util_why += f"; {share.per_gpu} replicas share each GPU, so each takes at most {util:.2f}"
    else:
        memory = share.mig.memory_bytes if share.mig else capacity
        util = max(util, min(conv.memory_utilization_max, math.ceil((need / memory + conv.memory_margin) * 100) / 100))
        if share.mig:
            util_why += f"; on a MIG {share.mig.name} slice vLLM sees only the slice's memory"
    return util, util_why


def port_arg(port: int | str) -> str:
    """`--port=N`; a shell expression (a port per replica) stays one."""
    text = f"--port={port}"
    return ShellText(text) if isinstance(port, ShellText) else text


def _plan_args(work: InferenceJob, batch: int, tp_flag: str, batch_flag: str, context_flag: str) -> list[Any]:
    """The plan's tensor parallelism, batch and context, under the engine's own flag names."""
    tp = work.parallel.tp
    return [
        why(f"{tp_flag}={tp}", f"the plan's tensor parallelism: one replica spans {tp} GPU(s)"),
        why(f"{batch_flag}={batch}", "the plan's batch: the cheapest the serving search found"),
        why(
            f"{context_flag}={work.longest_context}",
            f"{work.input_tokens} prompt + {work.output_tokens} generated tokens, the context the KV cache was sized for"
            if work.longest_context == work.context_tokens
            else f"the longest request {work.lengths_flag} draws (means {work.input_tokens} prompt + "
            f"{work.output_tokens} generated tokens): the engine refuses a longer one",
        ),
    ]


def _budget_args(work: InferenceJob, flag: str, at_least: int = 0) -> list[Any]:
    """The step's token budget under the engine's own flag name, where the user set it (--max-batch-tokens);
    raised to `at_least` where the engine refuses a smaller one (vLLM: not below --max-num-seqs)."""
    n = work.max_batch_tokens
    if not n:
        return []
    if n < at_least:
        return [
            why(
                f"{flag}={at_least}",
                f"--max-batch-tokens {n} raised to the batch: vLLM refuses fewer tokens a step than running requests",
            )
        ]
    return [why(f"{flag}={n}", "as given (--max-batch-tokens): the token budget the plan simulated")]


def _named(work: InferenceJob) -> Why:
    """`--served-model-name`: the name clients ask for."""
    return why(f"--served-model-name={work.model.name}", "clients ask for the model by its gpuwise id")


def _dtype_args(work: InferenceJob) -> list[Any]:
    """`--dtype` for a weights dtype the engine loads as such (none for a quantized one)."""
    dtype = _DTYPE.get(work.weights_dtype)
    return [why(f"--dtype={dtype}", f"the plan's weights dtype ({work.weights_dtype})")] if dtype else []


def _kv_args(work: InferenceJob, fp8: str) -> list[Any]:
    """`--kv-cache-dtype` (the engine's spelling of fp8) for an fp8 KV cache."""
    return [why(f"--kv-cache-dtype={fp8}", "the plan's KV-cache dtype (fp8)")] if work.kv_dtype == "fp8" else []


def vllm_args(
    work: InferenceJob, source: tuple[str, str], batch: int, util: tuple[float, str], port: int | str = PORT
) -> list[Any]:
    """The vLLM server's flags, each from the plan."""
    return [
        why(f"--model={source[0]}", source[1]),
        _named(work),
        *_dtype_args(work),
        *_plan_args(work, batch, "--tensor-parallel-size", "--max-num-seqs", "--max-model-len"),
        *_budget_args(work, "--max-num-batched-tokens", at_least=batch),
        why(f"--gpu-memory-utilization={util[0]:.2f}", util[1]),
        port_arg(port),
        *_kv_args(work, "fp8"),
        *(
            [why("--enforce-eager", "the plan was timed without CUDA graphs (enforce_eager)")]
            if work.enforce_eager
            else []
        ),
        *(
            [why("--async-scheduling", "the plan was timed with scheduling overlapped (async_scheduling)")]
            if work.async_scheduling
            else []
        ),
    ]


def _sglang_args(
    work: InferenceJob, source: tuple[str, str], batch: int, share: tuple[float, bool], port: int | str
) -> list[Any]:
    fraction, given = share
    return [
        why(f"--model-path={source[0]}", source[1]),
        _named(work),
        *_dtype_args(work),
        *_plan_args(work, batch, "--tp-size", "--max-running-requests", "--context-length"),
        *_budget_args(work, "--chunked-prefill-size"),
        why(
            f"--mem-fraction-static={fraction:.3f}",
            "as given (--memory-fraction): the share the plan's KV cache was sized with"
            if given
            else "the share of GPU memory for weights and KV cache the plan's serving model assumed for SGLang, as "
            "SGLang 0.5 computes it from the device when none is given (catalog engines.yaml memory_reserve)",
        ),
        why("--host=0.0.0.0", "SGLang listens on 127.0.0.1 by default: serve other hosts"),
        port_arg(port),
        *_kv_args(work, "fp8_e4m3"),
        *(
            [why("--disable-cuda-graph", "the plan was timed without CUDA graphs (enforce_eager)")]
            if work.enforce_eager
            else []
        ),
    ]


def _trtllm_args(
    work: InferenceJob, source: tuple[str, str], batch: int, share: tuple[float, bool], port: int | str
) -> list[Any]:
    fraction, given = share
    return [
        why(source[0], source[1] + " (trtllm-serve's MODEL argument)"),
        *_plan_args(work, batch, "--tp_size", "--max_batch_size", "--max_seq_len"),
        *_budget_args(work, "--max_num_tokens"),
        why(
            f"--kv_cache_free_gpu_memory_fraction={fraction:.2f}",
            "as given (--memory-fraction): the share the plan's KV cache was sized with"
            if given
            else "the share of the memory left after weights that the plan's serving model gave the KV cache "
            "(catalog engines.yaml)",
        ),
        why("--host=0.0.0.0", "trtllm-serve listens on localhost by default: serve other hosts"),
        port_arg(port),
    ]


def server_command(
    engine: str,
    c: Candidate,
    catalog: Catalog,
    model_given: str | None,
    batch: int,
    port: int | str = PORT,
    share: Sharing | None = None,
) -> ServerCommand:
    """The command one replica runs for `engine` (an LLM engine), with the plan's TP, batch and context."""
    work = c.est.workload
    assert isinstance(work, InferenceJob)
    if engine not in LLM_ENGINES:
        raise UsageError(f"engine must be one of {', '.join(LLM_ENGINES)} here; got {engine!r}")
    if not is_llm(work):
        raise UsageError(f"{engine} serves generative language models; {work.model.name} is not one")
    source = model_source(work, model_given, catalog)
    notes: list[str] = []
    if engine == "vllm":
        conv = DeployConventions.from_catalog(catalog)
        args = vllm_args(work, source, batch, vllm_memory(c, share or Sharing("none"), conv, catalog), port)
    else:
        build = _sglang_args if engine == "sglang" else _trtllm_args
        args = build(work, source, batch, _engine_share(engine, c, catalog), port)
        notes += _trtllm_notes(work) if engine == "trtllm" else []
    if work.weights_dtype not in _DTYPE:
        notes.append(
            f"weights in {work.weights_dtype}: serve a checkpoint quantized that way (and the engine's matching "
            "quantization flag)"
        )
    return ServerCommand(engine, PROGRAMS[engine], tuple(args), HEALTH[engine], tuple(notes))


def _engine_share(engine: str, c: Candidate, catalog: Catalog) -> tuple[float, bool]:
    """(the share to write, whether it is the user's): the share the estimate sized the KV cache with, for
    the plan's own engine as the plan ran it (the user's settings: SGLang's computed share depends on its chunk),
    another engine's at its defaults; SGLang's before its AMD scaling, which the server applies itself."""
    work = c.est.workload
    assert isinstance(work, InferenceJob)
    own = engine == work.engine
    profile = engine_profile(catalog, work) if own else catalog.engine(engine)
    return engine_share(profile, catalog, c.est.hardware.gpu, work), own and work.memory_fraction is not None


def _trtllm_notes(work: InferenceJob) -> list[str]:
    """What trtllm-serve needs beyond its flags for the plan: an fp8 KV cache, chunked prefill for prompts
    longer than the step budget (off by default, and such a prompt is then rejected)."""
    notes = []
    if work.kv_dtype == "fp8":
        notes.append("fp8 KV cache: set kv_cache_config.dtype: fp8 in a --extra_llm_api_options YAML file")
    longest = work.longest_prompt
    if work.max_batch_tokens and work.max_batch_tokens < longest:
        notes.append(
            f"prompts of up to {longest} tokens above --max_num_tokens={work.max_batch_tokens}: set "
            "enable_chunked_prefill: true in a --extra_llm_api_options YAML file (off by default, and a longer "
            "prompt is then rejected; the plan chunked them)"
        )
    return notes


def engine_for(work: InferenceJob, given: str | None) -> tuple[str, str]:
    """(engine, reason) on targets that run any of the LLM engines: --engine, else the plan's engine."""
    if given is not None:
        if given not in LLM_ENGINES:
            raise UsageError(
                f"--engine {given!r}: Slurm and SkyPilot run the LLM engines {', '.join(LLM_ENGINES)} "
                "(Triton needs a model repository: deploy it on Kubernetes)"
            )
        return given, "as given (--engine)"
    if not is_llm(work):
        raise UsageError(
            f"{work.model.name} is not a generative language model: Slurm and SkyPilot serving runs "
            f"{', '.join(LLM_ENGINES)}; deploy it on Kubernetes (Triton)"
        )
    return work.engine, f"the plan's engine ({work.engine}), whose scheduler and memory rules the plan simulated"
