"""The one declaration of every workload, hardware and requirement field, and their one validator.

The CLI options, the YAML keys, the JSON API's request models and the web forms are all derived
from the pydantic models below: a field's type, bounds, choices, help text, unit and example are
written here once, and `validate` checks every door's values with them (flags, YAML, JSON, forms),
its errors said the way the CLI names fields. `build_workload`/`build_requirements` then apply the
rules that need several fields together (and the catalog).
"""

from __future__ import annotations

import functools
import math
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from gpuwise.errors import UsageError, check_unknown, shorten, suggest
from gpuwise.units import parse_bytes, parse_count
from gpuwise.workload.specs import (
    Attention,
    Batching,
    Bnb4bit,
    CheckpointImpl,
    Engine,
    FrameworkName,
    GradReduceDtype,
    KvDtype,
    LayoutMode,
    Loss,
    Method,
    MoeDispatcher,
    Objective,
    Offload,
    Optimizer,
    OptimizerImpl,
    Precision,
    Pricing,
    QuantizedLinear,
    Recompute,
    SchedulerName,
    Sharding,
    Task,
    WeightsDtype,
    ZeroPP,
)

Applies = Literal["any", "training", "inference"]
# Input bounds: far beyond any real job, small enough that no arithmetic overflows.
MAX_COUNT = 10**15  # tokens or samples in one training run
MAX_BATCH = 1 << 20
MAX_SEQ = 1 << 24
MAX_DEGREE = 1 << 16  # tp, pp, GPUs per node, GPU count
MAX_QPS = 1e7
MAX_MS = 1e9
# A sanity bound on --capacity-factor: published runs use 1 to 2 (GShard, Switch Transformer), and
# experts / top_k already holds every token.
MAX_CAPACITY_FACTOR = 64


# ----- how loose values (flag text, YAML scalars) are read, before the type check ---------------
def _lower(value: Any) -> Any:
    """Choices are matched without case or surrounding blanks ('LoRA ' is lora)."""
    return value.strip().lower() if isinstance(value, str) else value


def _upper(value: Any) -> Any:
    """Currency codes are upper case however they are typed."""
    return value.strip().upper() if isinstance(value, str) else value


def _names(value: Any) -> Any:
    """'a,b' or ['a', 'b'] -> ['a', 'b'] (lower-cased, blanks dropped); anything else for the type check."""
    if isinstance(value, str):
        value = value.split(",")
    if isinstance(value, list | tuple):
        return [str(x).strip().lower() for x in value if str(x).strip()]
    return value


def _count(value: Any) -> Any:
    """'2T', '300B', '1.5M' -> a number; numbers pass to the bound checks."""
    return parse_count(value) if isinstance(value, str) else value


def _bytes(value: Any) -> Any:
    """'2GB/s', '120KB', 2e9 -> bytes (per second for bandwidths)."""
    if isinstance(value, str):
        return float(parse_bytes(value.strip().removesuffix("/s").removesuffix("ps")))
    return value


def _number(value: Any) -> Any:
    """'$50,000', '2x', '1.5' -> a number (money and factors are typed by people)."""
    if isinstance(value, str):
        text = value.strip().lower().replace(",", "").replace("$", "").removesuffix("usd").removesuffix("x")
        try:
            return float(text.strip())
        except ValueError:
            raise ValueError(f"not a number: {value!r}") from None
    return value


def _percentile(value: Any) -> Any:
    """99, 99.0, 'p99', 'P99' -> '99' (a percentile is one of a few names, typed many ways)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value.strip().lower().removeprefix("p").removesuffix(".0")
    return value


Choice = BeforeValidator(_lower)
Upper = BeforeValidator(_upper)
PercentileIn = BeforeValidator(_percentile)
Percentile = Literal["50", "90", "95", "99"]
OfferClassName = Literal["hyperscaler", "neocloud", "marketplace", "own"]  # as catalog.schema.OfferClass
Names = BeforeValidator(_names)
CountIn = BeforeValidator(_count)
BytesIn = BeforeValidator(_bytes)
NumberIn = BeforeValidator(_number)


def _f(
    help: str,
    *,
    example: Any,
    applies: Applies = "any",
    metavar: str | None = None,
    default: str | None = None,
    layout: bool = False,
    **bounds: Any,
) -> Any:
    """A field with its help, the example a test feeds every door, and where it applies.

    `layout` marks the parallel layout that `plan` chooses itself (a plan ignores the user's value)."""
    extra = {
        "applies": applies,
        "example": example,
        "metavar": metavar,
        "default_doc": default,
        "layout": layout or None,
    }
    return Field(
        default=None, description=help, json_schema_extra={k: v for k, v in extra.items() if v is not None}, **bounds
    )


class StrictFields(BaseModel):
    # defer_build: a model's validator is built when it first validates, so `estimate` builds the
    # three it uses and never the plan's (pydantic's own switch; the fields are collected at once).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_max_length=4096, defer_build=True)


class WorkloadFields(StrictFields):
    """What runs: the model, training or serving, the layout, the data pipeline."""

    model: str | None = _f(
        "Catalog id (`gpuwise models`) or path to a Hugging Face config.json.",
        example="llama-2-7b",
        metavar="NAME|config.json",
        min_length=1,
        max_length=1024,
    )
    task: Annotated[Task | None, Choice] = _f(
        "What the job is.",
        example="finetune",
        default="finetune if a training option is given, else inference",
    )
    method: Annotated[Method | None, Choice] = _f(
        "Training method: all weights, LoRA adapters, or adapters on a 4-bit base.",
        example="lora",
        applies="training",
        default="full",
    )
    precision: Annotated[Precision | None, Choice] = _f("Compute precision.", example="bf16", default="bf16")
    weights_dtype: Annotated[WeightsDtype | None, Choice] = _f(
        "Storage dtype of the weights (fp8 in full training: Transformer Engine FP8 parameters, Megatron Core's "
        "--fp8-param-gather; nvfp4 in serving: NVFP4, 4-bit floats with an FP8 scale per 16, on FP4 tensor "
        "cores where the GPU has them).",
        example="bf16",
        default="the precision (nf4 for QLoRA)",
    )
    kv_dtype: Annotated[KvDtype | None, Choice] = _f(
        "Storage dtype of the KV cache.", example="fp8", applies="inference", default="the weights' 16-bit dtype"
    )
    optimizer: Annotated[Optimizer | None, Choice] = _f(
        "Optimizer; none: forward and backward only, as a training benchmark without an optimizer runs them "
        "(model.zero_grad, forward, loss.backward: gradients, but no optimizer states, master copy or update).",
        example="adamw",
        applies="training",
        default="adamw",
    )
    master_weights: bool | None = _f(
        "fp32 master copy of the weights (--no-master-weights: pure 16-bit).",
        example=False,
        applies="training",
        default="on",
    )
    micro_batch: int | None = _f(
        "Samples per GPU per forward pass.", example=2, applies="training", metavar="N", default="1", ge=1, le=MAX_BATCH
    )
    global_batch: int | None = _f(
        "Samples per optimizer step, all GPUs.", example=16, applies="training", metavar="N", ge=1, le=MAX_BATCH * 1024
    )
    seq: int | None = _f(
        "Training sequence length (tokens).",
        example=1024,
        applies="training",
        metavar="N",
        default="min(model max, 2048)",
        ge=1,
        le=MAX_SEQ,
    )
    zero: int | None = _f(
        "ZeRO/FSDP stage 0-3.",
        example=1,
        applies="training",
        metavar="0-3",
        default="the framework's: 0; nemo 1 (distributed optimizer); torchtitan, torchtune, fsdp 3",
        layout=True,
        ge=0,
        le=3,
    )
    tp: int | None = _f(
        "Tensor-parallel degree.", example=2, metavar="N", default="1", layout=True, ge=1, le=MAX_DEGREE
    )
    pp: int | None = _f(
        "Pipeline-parallel degree (under a generate loop, --engine transformers: the layers in sequence over N "
        "GPUs, one busy at a time, as Accelerate's device_map='auto').",
        example=1,
        metavar="N",
        default="1",
        layout=True,
        ge=1,
        le=MAX_DEGREE,
    )
    sequence_parallel: bool | None = _f(
        "Sequence parallelism with tensor parallelism (Megatron).", example=True, default="on"
    )
    sharding: Annotated[Sharding | None, Choice] = _f(
        "ZeRO sharding group: every data-parallel rank (full), or the ranks of one node, replicated across "
        "nodes (hybrid: FSDP HYBRID_SHARD and torchtitan HSDP at ZeRO-2/3, Megatron's partial distributed "
        "optimizer at ZeRO-1).",
        example="hybrid",
        applies="training",
        default="full",
        layout=True,
    )
    zeropp: Annotated[list[ZeroPP] | None, Names] = _f(
        "DeepSpeed ZeRO++ on ZeRO-3: hpz (a secondary weight shard per node), qwz (int8 weight all-gather), "
        "qgz (int4 gradient reduce-scatter); a comma list.",
        example="hpz,qwz,qgz",
        applies="training",
        metavar="LIST",
        default="none",
        max_length=3,
        layout=True,
    )
    recompute: Annotated[Recompute | None, Choice] = _f(
        "Activation recomputation.", example="selective", applies="training", default="none", layout=True
    )
    layout: Annotated[LayoutMode | None, Choice] = _f(
        "auto: time the layout a plan would choose on exactly these GPUs (tensor, pipeline and context "
        "degrees, ZeRO stage and sharding, micro-batch, recomputation: the fastest that fits), named with the "
        "command that reproduces it; given: the layout options as written.",
        example="auto",
        applies="training",
        default="given",
        layout=True,
    )
    checkpoint_impl: Annotated[CheckpointImpl | None, Choice] = _f(
        "How --recompute full is implemented: non-reentrant (the checkpointed forward builds the graph under "
        "saved-tensor hooks) or reentrant (it runs without a graph: HF Transformers, Megatron, DeepSpeed).",
        example="reentrant",
        applies="training",
        default="the framework's (frameworks.yaml checkpoint_impl)",
    )
    optimizer_impl: Annotated[OptimizerImpl | None, Choice] = _f(
        "How an AdamW step runs: foreach (PyTorch's default torch.optim.AdamW: the step allocates a tensor of "
        "every parameter's size in the moments' dtype, freed after it) or fused (one in-place kernel: "
        "fused=True, apex, Transformer Engine and DeepSpeed FusedAdam, transformers' adamw_torch_fused).",
        example="foreach",
        applies="training",
        default="the framework's (frameworks.yaml optimizer_impl)",
    )
    attention: Annotated[Attention | None, Choice] = _f(
        "Attention kernel: in training; in serving, that of a generate loop (--engine transformers) or of a "
        "diffusion model or an encoder (BERT, ViT) under --engine eager/torchscript: eager materialises the score "
        "matrix, flash (SDPA, xFormers or FlashAttention-2) does not.",
        example="flash",
        default="flash (transformers-v4.35: eager; an encoder under eager/torchscript: eager)",
    )
    lora_rank: int | None = _f("LoRA rank r.", example=16, applies="training", metavar="R", default="8", ge=1, le=65536)
    lora_targets: Annotated[list[str] | None, Names] = _f(
        "Modules LoRA adapts: a comma list (q_proj,v_proj) or all-linear.",
        example="q_proj,k_proj,v_proj,o_proj",
        applies="training",
        metavar="LIST",
        default="q_proj,v_proj",
        max_length=64,
    )
    tokens: Annotated[float | None, CountIn] = _f(
        "Training tokens in total, e.g. 2T, 300B.",
        example="20M",
        applies="training",
        metavar="COUNT",
        gt=0,
        le=MAX_COUNT,
    )
    samples: Annotated[float | None, CountIn] = _f(
        "Training samples in total, e.g. 1.2M.", example="100k", applies="training", metavar="COUNT", gt=0, le=MAX_COUNT
    )
    input_tokens: int | None = _f(
        "Prompt tokens per request.",
        example=512,
        applies="inference",
        metavar="N",
        default="min(model max, 1024)",
        ge=1,
        le=MAX_SEQ,
    )
    output_tokens: int | None = _f(
        "Generated tokens per request.", example=128, applies="inference", metavar="N", default="256", ge=0, le=MAX_SEQ
    )
    concurrency: int | None = _f(
        "Requests served together (for non-LLM models: the batch); on GPUs holding several engine copies (more "
        "than tp x pp), each copy's; with --requests, the benchmark's clients in all (its --max-concurrency).",
        example=8,
        applies="inference",
        metavar="N",
        default="1",
        ge=1,
        le=MAX_BATCH,
    )
    requests: int | None = _f(
        "LLM serving: time a finite benchmark run of N requests, all sent at the start, instead of the steady "
        "state: a burst the engine admits as its batch cap and KV cache allow, or, with --concurrency C, C clients "
        "that each send their next request when one of theirs ends (vllm bench serve --max-concurrency C); the "
        "figures are the run's own (mean TTFT and TPOT, output tokens over the whole run).",
        example=1000,
        applies="inference",
        metavar="N",
        default="none (the steady state at --concurrency)",
        ge=1,
        le=100_000,
    )
    request_rate: float | None = _f(
        "LLM serving, with --requests N: send the run's requests at R a second (Poisson gaps from the start, "
        "vllm bench serve --request-rate R) instead of all at once; each is timed from its arrival.",
        example=10.0,
        applies="inference",
        metavar="R",
        default="none (all sent at the start)",
        gt=0,
        le=1_000_000,
    )
    length_spread: Annotated[float | None, NumberIn] = _f(
        "LLM serving, in a simulated run (--requests N, or a plan's load at --qps): each request's prompt and "
        "output lengths drawn uniformly from [L(1-R), L(1+R)] about --input-tokens and --output-tokens, "
        "independently (vllm bench serve --random-range-ratio R; SGLang's and older vLLM's range [L*r, L] is "
        "--length-spread (1-r)/(1+r) about the mean L(1+r)/2; r 0, a draw from 1 to L, is 1). A length is at least one "
        "token. The steady state and memory stay at the mean lengths.",
        example=0.5,
        applies="inference",
        metavar="R",
        default="0 (every request the same lengths)",
        ge=0,
        le=1,
    )
    dataset: Annotated[str | None, Choice] = _f(
        "LLM serving, in a simulated run (--requests N, or a plan's load at --qps): each request's prompt and "
        "output lengths drawn from a benchmark dataset's as its harness samples it (sharegpt: vllm bench serve's "
        "and SGLang bench_serving's default, ShareGPT's first turns and replies, prompts to 1,024 tokens, the "
        "pair to 2,048), scaled to --input-tokens and --output-tokens as the means (not given: the dataset's). "
        "The steady state and memory stay at the mean lengths.",
        example="sharegpt",
        applies="inference",
        metavar="NAME",
        default="none (--length-spread's uniform draw, or every request the same lengths)",
        max_length=64,
    )
    input_from_host: bool | None = _f(
        "Models described operator by operator on a runtime without a server: each batch's input is copied "
        "from host memory inside the timed loop (a benchmark that calls .cuda() per batch, FlagPerf's p_infer_core).",
        example=True,
        applies="inference",
        default="off: inputs already on the GPU (a server runtime always copies them)",
    )
    tf32_matmul: bool | None = _f(
        "PyTorch inference of fp32 weights (--precision tf32 over --weights-dtype fp32; an eager, torch.compile or "
        "TorchScript runtime, or a transformers generate loop) with TF32 matmuls turned on (torch.set_float32_matmul_precision"
        "('high'), torch.backends.cuda.matmul.allow_tf32 = True): fp32 GEMMs on TF32 tensor cores. --no-tf32-matmul: "
        "full fp32.",
        example=True,
        applies="inference",
        default="the runtime's own: PyTorch leaves TF32 off for matmuls since 1.12 (on for cuDNN convolutions); "
        "TensorRT and ONNX Runtime use it",
    )
    cuda_graphs: bool | None = _f(
        "Compiled engines (--engine tensorrt, triton) on a model timed kernel by kernel (a CNN, a recommender; an "
        "encoder under --engine tensorrt): the batch's kernels replayed as one captured CUDA graph (trtexec "
        "--useCudaGraph, MLPerf's LWIS harness use_graphs), so each kernel adds the graph floor instead of a launch. "
        "The floor is fitted to batch-1 MLPerf SingleStream runs, whose per-pass harness work it spreads over the "
        "kernels (docs/accuracy-graph-floor.md).",
        example=True,
        applies="inference",
        default="off: each kernel launched on its own (the kernel floor fitted to Paddle-TRT latencies)",
    )
    enforce_eager: bool | None = _f(
        "LLM serving without CUDA graphs (vLLM's --enforce-eager, SGLang's --disable-cuda-graph): every kernel of a "
        "step is issued from Python, "
        "so a decode step is never shorter than its host dispatches.",
        example=True,
        applies="inference",
        default="off: the engine's CUDA graphs (TGI before 2.0 has none: --engine tgi-v1)",
    )
    async_scheduling: bool | None = _f(
        "vLLM V1's --async-scheduling: the scheduler prepares the next step while the GPU runs this one, so its "
        "host work for each sequence (engines.yaml host_seconds_per_sequence) hides behind the step's GPU work instead "
        "of adding to it.",
        example=True,
        applies="inference",
        default="off: synchronous scheduling, as vLLM V1 ran until async scheduling became its default (vLLM pull request "
        "#27614, around the turn of 2025/2026): give it for runs of later releases",
    )
    batching: Annotated[Batching | None, Choice] = _f(
        "How the LLM engine batches the --concurrency requests: continuous (a server: a request joins the running "
        "batch as another leaves) or static (one batch prefilled together, then decoded together until its last "
        "request ends: vLLM's benchmark_latency and LLM.generate over a list, TGI's text-generation-benchmark, "
        "TensorRT-LLM's gptSessionBenchmark). A static batch's TTFT is the whole batch's prefill.",
        example="static",
        applies="inference",
        default="the engine's: continuous for servers, static for generate loops (transformers)",
    )
    bnb_4bit: Annotated[Bnb4bit | None, Choice] = _f(
        "How bitsandbytes 4-bit weights (--weights-dtype nf4) were loaded for a generate loop: qlora (NF4 with "
        "double quantization, 16-bit compute: the QLoRA recipe) or load-in-4bit (BitsAndBytesConfig(load_in_4bit="
        "True) as transformers leaves it: FP4 with one fp32 absmax per 64 weights, compute dtype fp32, so a "
        "forward over more than one token dequantizes each weight to 16 bits and copies it to fp32).",
        example="load-in-4bit",
        applies="inference",
        default="qlora",
    )
    autocast: bool | None = _f(
        "Eager PyTorch inference of a model described operator by operator or of an encoder (BERT, ViT) written "
        "out from its architecture: under torch.autocast each "
        "convolution and GEMM weight is cast to 16 bits on every call (AMP, as DeepLearningExamples' benchmarks "
        "run); --no-autocast: the model is held in 16 bits (.half(), diffusers' torch_dtype=torch.float16). With "
        "--weights-dtype fp32 and a 16-bit --precision: PyTorch AMP, the fp32 model computed at that precision (without "
        "autocast that spelling is refused: PyTorch computes at the weights' dtype).",
        example=False,
        applies="inference",
        default="the runtime's (engines.yaml runtimes: autocast)",
    )
    diffusers_version: str | None = _f(
        "The diffusers release a diffusion pipeline ran under --attention eager, for the memory its attention "
        "holds: 0.13 to 0.16 keep baddbmm's scores-sized input alive through the softmax (three score matrices "
        "at once); earlier and later releases free it (two).",
        example="0.14",
        applies="inference",
        metavar="X.Y",
        default="a release that frees it (0.17 and later, as 0.11 and 0.12)",
        max_length=32,
    )
    denoising_steps: int | None = _f(
        "A whole diffusion pipeline (--model stable-diffusion-v1-5): the num_inference_steps it is called with, run "
        "by the checkpoint's scheduler (Stable Diffusion 1.5's PNDM with skip_prk_steps repeats one timestep: one "
        "UNet call more than the steps; other schedulers, Euler or DPM-Solver, run one a step).",
        example=25,
        applies="inference",
        metavar="N",
        default="the pipeline's call default (50)",
        ge=1,
        le=1000,
    )
    scheduler: SchedulerName | None = _f(
        "A whole diffusion pipeline: the diffusers scheduler it is called with. PNDM (Stable Diffusion 1.5's default, "
        "skip_prk_steps) repeats one timestep, a UNet call more than --denoising-steps; DDIM, Euler, Euler "
        "Ancestral, DPM-Solver (multistep) and LCM evaluate the UNet once a step.",
        example="dpm-solver",
        applies="inference",
        default="the checkpoint's own (PNDM for Stable Diffusion 1.5)",
    )
    guidance_scale: float | None = _f(
        "A whole diffusion pipeline: the classifier-free guidance scale it is called with. Above 1 each step runs "
        "the UNet on the prompt's and the negative prompt's latents and the text encoder runs twice; 1 or less (a "
        "distilled one-step model's guidance_scale=0) one latent a step, one text encoding, no guidance kernels.",
        example=0.0,
        applies="inference",
        metavar="G",
        default="the pipeline's call default (7.5)",
        ge=0,
        le=100,
    )
    items_per_request: int | None = _f(
        "Ranking models: candidates scored per request (each one sample through the model).",
        example=200,
        applies="inference",
        metavar="N",
        default="1",
        ge=1,
        le=MAX_BATCH,
    )
    image_size: int | None = _f(
        "Image models described operator by operator (CNNs) and vision transformers: the square image side in "
        "pixels the model is trained or run at, when not the size it was described at (e.g. 160 for "
        "low-resolution training, 384 for a ViT fine-tuned at higher resolution); a CNN operator's work scales "
        "with the pixels, a ViT's sequence is its patches plus [CLS] (577 tokens for ViT-B/16 at 384). "
        "Progressive resizing: give the side whose square is the epoch-weighted mean of the sides' squares.",
        example=160,
        metavar="PX",
        default="the model's own (its input shape, 224 for the ImageNet CNNs and ViT-B/16)",
        ge=16,
        le=8192,
    )
    engine: Annotated[Engine | None, Choice] = _f(
        "Serving engine: for LLMs vllm|vllm-v0|sglang|trtllm|lmdeploy|tgi|tgi-v2|tgi-v1|transformers|transformers-v4.36|"
        "transformers-v4.35 (scheduler and "
        "memory rules; transformers: a generate loop, static batches); for models "
        "described operator by operator and BERT-style encoders eager|torchscript|onnxruntime|tensorrt|triton, "
        "and torch-compile for CNNs and recommenders (the runtime; an encoder under the default is timed by its "
        "layer totals).",
        example="sglang",
        applies="inference",
        default="vllm for LLMs, triton (TensorRT under Triton) for other models",
    )
    prefix_hit_rate: Annotated[float | None, NumberIn] = _f(
        "Serving: share of prompt tokens found in the prefix cache (not prefilled again).",
        example=0.5,
        applies="inference",
        metavar="0-1",
        default="0",
        ge=0,
        lt=1,
    )
    speculative_tokens: int | None = _f(
        "Serving: tokens proposed per step by speculative decoding (n-gram lookup; needs --speculative-acceptance).",
        example=4,
        applies="inference",
        metavar="K",
        default="0 (off)",
        ge=0,
        le=64,
    )
    speculative_acceptance: Annotated[float | None, NumberIn] = _f(
        "Serving: probability that a proposed token is accepted (measured on your traffic).",
        example=0.6,
        applies="inference",
        metavar="0-1",
        ge=0,
        lt=1,
    )
    lora_adapters: int | None = _f(
        "Serving: LoRA adapters resident on one base model (vLLM --enable-lora --max-loras N).",
        example=4,
        applies="inference",
        metavar="N",
        default="0 (off)",
        ge=0,
        le=1024,
    )
    lora_adapter_rank: int | None = _f(
        "Serving: the largest rank of those adapters (vLLM --max-lora-rank); memory is reserved at this rank.",
        example=16,
        applies="inference",
        metavar="R",
        default="16",
        ge=1,
        le=512,
    )
    max_seqs: int | None = _f(
        "Serving engine setting: requests one replica runs at once at most (vLLM --max-num-seqs, SGLang "
        "--max-running-requests, TensorRT-LLM max_batch_size, LMDeploy --max-batch-size).",
        example=64,
        applies="inference",
        metavar="N",
        default="the engine's own (vLLM 1024 on GPUs of 70 GiB and more, 256 below)",
        ge=1,
        le=65536,
    )
    max_batch_tokens: int | None = _f(
        "Serving engine setting: tokens one engine step carries at most, decodes and prompt chunks together "
        "(vLLM --max-num-batched-tokens, SGLang --chunked-prefill-size, TensorRT-LLM max_num_tokens, TGI "
        "--max-batch-prefill-tokens).",
        example=4096,
        applies="inference",
        metavar="N",
        default="the engine's own (vLLM 8192 on GPUs of 70 GiB and more, 2048 below)",
        ge=16,
        le=4194304,
    )
    memory_fraction: Annotated[float | None, NumberIn] = _f(
        "Serving engine setting: the share of memory the engine takes for weights and KV cache, as the engine "
        "counts it (vLLM --gpu-memory-utilization, SGLang --mem-fraction-static and TGI --cuda-memory-fraction: "
        "of the device; TensorRT-LLM kv_cache free_gpu_memory_fraction and LMDeploy --cache-max-entry-count: of "
        "what the weights leave free).",
        example=0.8,
        applies="inference",
        metavar="0-1",
        default="the engine's own",
        gt=0,
        le=1,
    )
    read_bandwidth: Annotated[float | None, BytesIn] = _f(
        "Data pipeline: storage read per node, e.g. 2GB/s.",
        example="2GB/s",
        applies="training",
        metavar="BYTES/s",
        gt=0,
        le=1e15,
    )
    sample_bytes: Annotated[float | None, BytesIn] = _f(
        "Data pipeline: bytes per sample, e.g. 120KB.",
        example="120KB",
        applies="training",
        metavar="BYTES",
        gt=0,
        le=1e12,
    )
    decode_ms: Annotated[float | None, NumberIn] = _f(
        "Data pipeline: CPU ms to decode one sample on one core.",
        example=1.5,
        applies="training",
        metavar="MS",
        default="0",
        ge=0,
        le=MAX_MS,
    )
    eval_every: int | None = _f(
        "Evaluation inside the run: every N optimizer steps each rank runs --eval-batches forward passes of one "
        "micro-batch (nanoGPT's eval_interval, the Hugging Face Trainer's eval_steps); the total time counts them "
        "beside the training steps. Give both.",
        example=250,
        applies="training",
        metavar="N",
        default="no evaluation counted",
        ge=1,
        le=10**9,
    )
    eval_batches: int | None = _f(
        "Evaluation inside the run: forward passes of one micro-batch each rank runs per evaluation (nanoGPT: "
        "eval_iters for each of its two splits, 2 x 200 = 400). Give with --eval-every.",
        example=400,
        applies="training",
        metavar="N",
        default="no evaluation counted",
        ge=1,
        le=10**9,
    )
    loader_cores: int | None = _f(
        "Data pipeline: CPU cores loading data per node.",
        example=16,
        applies="training",
        metavar="N",
        default="1",
        ge=1,
        le=MAX_DEGREE,
    )
    framework: Annotated[FrameworkName | None, Choice] = _f(
        "Training stack whose conventions apply (gradient dtype, fused kernels, loss, defaults).",
        example="torchtune",
        applies="training",
        default="megatron for pretraining, hf-trainer for fine-tuning; fsdp (PyTorch DDP/FSDP with AMP) for models that are not language models",
    )
    offload: Annotated[list[Offload] | None, Names] = _f(
        "Kept in CPU memory: optimizer (ZeRO-Offload), params (ZeRO-Infinity / FSDP cpu_offload), activations.",
        example="optimizer",
        applies="training",
        metavar="LIST",
        default="none",
        max_length=3,
    )
    compile: bool | None = _f(
        "torch.compile: fused norms and activations save fewer intermediates for backward.",
        example=True,
        applies="training",
        default="the framework's (torchtitan, torchtune: on)",
    )
    overlap_grad_reduce: bool | None = _f(
        "Data-parallel gradient reduction (and a sharded optimizer's parameter all-gather) overlapped with compute; "
        "off: after the backward, exposed (Megatron Core's --overlap-grad-reduce and --overlap-param-gather are off "
        "by default).",
        example=False,
        applies="training",
        default="the framework's (frameworks.yaml overlap_grad_reduce)",
    )
    grad_reduce_dtype: Annotated[GradReduceDtype | None, Choice] = _f(
        "Dtype gradients accumulate and reduce in: bf16 is Megatron Core's --grad-reduce-in-bf16 "
        "(Megatron-Bridge grad_reduce_in_fp32=False, its performance recipes' setting), or PyTorch FSDP's "
        "reduce_dtype (reduced in bf16, kept in the fp32 parameters' dtype).",
        example="bf16",
        applies="training",
        default="the framework's (Megatron Core: fp32 under bf16 and fp8)",
    )
    param_transpose_cache: bool | None = _f(
        "FP8 training: Transformer Engine keeps each linear's FP8 weight copy and transpose across micro-batches; "
        "off (with FP8 parameters only): Megatron Core's disable_parameter_transpose_cache, transposed again in "
        "each backward.",
        example=True,
        applies="training",
        default="on",
    )
    optimizer_in_backward: bool | None = _f(
        "Optimizer step fused into backward (torchtune optimizer_in_bwd): no full gradient buffer.",
        example=False,
        applies="training",
        default="off",
    )
    paged_optimizer: bool | None = _f(
        "bitsandbytes paged optimizer: states in CUDA unified memory, paged to the host under pressure.",
        example=False,
        applies="training",
        default="off",
    )
    kbit_fp32_upcast: bool | None = _f(
        "A k-bit base (QLoRA, or LoRA on an int8 base) through PEFT's prepare_model_for_kbit_training: "
        "embeddings, norms and head in fp32, activations fp32.",
        example=False,
        applies="training",
        default="off",
    )
    loss: Annotated[Loss | None, Choice] = _f(
        "Cross-entropy: eager (fp32 upcast), eager_16bit (on the 16-bit logits, no upcast), compiled (the eager "
        "loss under torch.compile: fused, no fp32 copy; the Hugging Face Trainer's and axolotl's default under "
        "--compile), vocab_parallel "
        "(Megatron's), vocab_parallel_copy (Megatron Core before 0.8: an extra fp32 copy), chunked (torchtune's), "
        "fused (Liger, Unsloth), cce (Cut Cross-Entropy: no logits tensor).",
        example="chunked",
        applies="training",
        default="the framework's",
    )
    defer_grad_sync: bool | None = _f(
        "FSDP gradient accumulation without synchronisation (FSDP1 no_sync(), FSDP2 "
        "set_requires_gradient_sync(False)): each rank accumulates its unsharded gradients, in the reduce dtype, "
        "until the last micro-batch's reduce-scatter.",
        example=True,
        applies="training",
        default="off (a reduce-scatter every micro-batch, as torchtitan runs)",
    )
    mixed_frozen_units: bool | None = _f(
        "LoRA under FSDP with use_orig_params=True and each transformer block one unit: a unit holding an "
        "adapter beside frozen weights keeps one flat gradient over all of them (PyTorch warns the gradient "
        "memory is the unit's total numel), so the frozen block weights get gradients too (Lightning Fabric's "
        "FSDPStrategy wrapping a LoRA model by its Block class).",
        example=True,
        applies="training",
        default="off (frozen weights wrapped apart, or use_orig_params=False: only the adapters have gradients)",
    )
    momentum_encoder: bool | None = _f(
        "A momentum encoder beside the trained model: a second copy of it, updated as a moving average of "
        "its weights and never back-propagated, encodes every micro-batch once more (MoCo's key encoder, "
        "He et al. 2020; BYOL's target network): a forward pass per micro-batch and a copy of the weights.",
        example=True,
        applies="training",
        default="off",
    )
    loss_parallel: bool | None = _f(
        "Under tensor parallelism the loss runs on vocabulary-sharded logits (torchtitan's loss_parallel, "
        "Megatron's vocab-parallel cross-entropy); off: the LM head's output is all-gathered, so every rank "
        "holds the full-vocabulary logits.",
        example=False,
        applies="training",
        default="on",
    )
    tp_embedding: bool | None = _f(
        "Under tensor parallelism the token embedding is sharded over the TP ranks (Megatron's "
        "VocabParallelEmbedding, torchtitan's RowwiseParallel); off: replicated on every TP rank, with its "
        "gradient and optimizer states.",
        example=False,
        applies="training",
        default="on",
    )
    mlm_positions: int | None = _f(
        "Encoders (BERT, RoBERTa): the positions of a sequence the masked-LM head scores. Pre-training an "
        "encoder trains that head; transformers' BertForMaskedLM scores every position, NVIDIA's and Google's "
        "BERT only the masked ones (max_predictions_per_seq: 20 at 128 tokens, 80 at 512). A fine-tune that "
        "keeps the head (continued masked-LM training) names it; 0: no masked-LM head.",
        example=20,
        applies="training",
        metavar="N",
        default="every position when pre-training an encoder, else no head",
        ge=0,
        le=MAX_SEQ,
    )
    packed_doc_tokens: int | None = _f(
        "Sequences packed from several documents with attention kept inside each document (FlashAttention's "
        "variable-length kernels, Transformer Engine's THD layout, NeMo's packed SFT, TRL's padding_free, "
        "torchtune's packed datasets, Llama 3's document mask): the documents' mean length in tokens. Each "
        "query then attends over its own document's keys, not the whole --seq. Eager attention still computes "
        "the masked scores of the whole sequence.",
        example=512,
        applies="training",
        metavar="N",
        default="one document per sequence (attention over the whole --seq)",
        ge=1,
        le=MAX_SEQ,
    )
    quantized_linear: Annotated[QuantizedLinear | None, Choice] = _f(
        "QLoRA's 4-bit linear layers: bitsandbytes (0.43.2 on: keeps no input for backward), bitsandbytes-legacy "
        "(up to 0.43.1: each layer's input kept on autograd ctx), torchao (LinearNF4).",
        example="bitsandbytes-legacy",
        applies="training",
        default="the framework's (frameworks.yaml quantized_linear)",
    )
    cp: int | None = _f(
        "Context-parallel degree (ring attention over sequence shards).",
        example=2,
        applies="training",
        metavar="N",
        default="1",
        ge=1,
        le=MAX_DEGREE,
        layout=True,
    )
    vpp: int | None = _f(
        "Interleaved pipeline: virtual stages per GPU (shrinks the bubble by this factor).",
        example=2,
        applies="training",
        metavar="N",
        default="1",
        ge=1,
        le=MAX_DEGREE,
        layout=True,
    )
    ep: int | None = _f(
        "Expert-parallel degree (MoE experts split over data-parallel ranks; serving: over the --tp ranks, "
        "which it must divide, as TensorRT-LLM's --ep and vLLM's --enable-expert-parallel).",
        example=1,
        applies="any",
        metavar="N",
        default="1",
        ge=1,
        le=MAX_DEGREE,
        layout=True,
    )
    attention_dp: bool | None = _f(
        "Serving a MoE model: attention data parallelism over the --tp ranks (each runs attention, the dense "
        "layers and its own requests' KV cache; the experts split --ep ways), as TensorRT-LLM's "
        "enable_attention_dp and SGLang's --enable-dp-attention.",
        example=False,
        applies="inference",
        default="off",
        layout=True,
    )
    etp: int | None = _f(
        "Expert-tensor-parallel degree: ranks each MoE expert's matrices are split over "
        "(Megatron --expert-tensor-parallel-size; ep x etp must divide tp x cp x dp).",
        example=1,
        applies="training",
        metavar="N",
        default="tp",
        ge=1,
        le=MAX_DEGREE,
    )
    capacity_factor: Annotated[float | None, NumberIn] = _f(
        "MoE expert capacity as a multiple of an even share of the routed tokens; tokens over it are "
        "dropped (Megatron --moe-expert-capacity-factor).",
        example=1.25,
        applies="training",
        metavar="F",
        default="none (dropless)",
        gt=0,
        le=MAX_CAPACITY_FACTOR,
    )
    pad_to_capacity: bool | None = _f(
        "Pad each expert's input to its capacity (Megatron --moe-pad-expert-input-to-capacity; needs --capacity-factor).",
        example=False,
        applies="training",
        default="off",
    )
    moe_dispatcher: Annotated[MoeDispatcher | None, Choice] = _f(
        "MoE token dispatcher under expert parallelism: alltoall is Megatron Core's NCCL all-to-all (every routed "
        "copy crosses), hybridep its flex dispatcher with DeepEP's HybridEP backend (one copy a token per node, "
        "at HybridEP's measured H100 rate).",
        example="hybridep",
        applies="training",
        default="alltoall",
    )
    overlap_ep_comm: bool | None = _f(
        "MoE expert-parallel dispatch and combine overlapped with the adjacent micro-batch's compute "
        "(Megatron Core --overlap-moe-expert-parallel-comm); needs --ep above 1 and no full recomputation.",
        example=True,
        applies="training",
        default="off",
    )


class HardwareFields(StrictFields):
    """The GPUs an estimate runs on (a plan chooses them itself)."""

    gpu: str | None = _f(
        "GPU id and total count, e.g. h100-sxm:8 (the count defaults to tp x pp).",
        example="a100-80gb-sxm:2",
        metavar="ID[:N]",
        min_length=1,
        max_length=128,
    )
    gpus_per_node: int | None = _f(
        "GPUs per node.", example=2, metavar="N", default="the usual node for that GPU", ge=1, le=MAX_DEGREE
    )
    network: Annotated[str | None, Choice] = _f(
        "Inter-node network: a fabric (ib-hdr|ib-ndr|ib-xdr|roce-100g|roce-200g|roce-400g, one port per node), "
        "N of them per node (8xib-ndr), or NICs x Gbit/s per node as clusters are described (4x400g).",
        example="ib-ndr",
        metavar="ID|NxID|NxRATEg",
        default="the GPU family's usual network",
        max_length=64,
    )
    power_cap: Annotated[float | None, NumberIn] = _f(
        "GPU power limit in watts (nvidia-smi -pl) below the board's TDP: compute runs at lower clocks.",
        example=300,
        metavar="WATTS",
        default="the board's TDP (no cap)",
        gt=0,
        le=10000,
    )


class TargetFields(StrictFields):
    """A serving target: the load, and the latency it must meet."""

    qps: Annotated[float | None, NumberIn] = _f(
        "Serving: requests per second to carry.", example=5, applies="inference", metavar="QPS", gt=0, le=MAX_QPS
    )
    ttft_ms: Annotated[float | None, NumberIn] = _f(
        "Serving: time to first token target in ms, at --percentile.",
        example=800,
        applies="inference",
        metavar="MS",
        gt=0,
        le=MAX_MS,
    )
    tpot_ms: Annotated[float | None, NumberIn] = _f(
        "Serving: time per output token (inter-token latency while streaming) target in ms, at --percentile.",
        example=100,
        applies="inference",
        metavar="MS",
        gt=0,
        le=MAX_MS,
    )
    e2e_ms: Annotated[float | None, NumberIn] = _f(
        "Serving: end-to-end request latency target in ms, at --percentile.",
        example=30000,
        applies="inference",
        metavar="MS",
        gt=0,
        le=MAX_MS,
    )
    percentile: Annotated[Percentile | None, PercentileIn] = _f(
        "Serving: the percentile the latency targets hold at.",
        example="95",
        applies="inference",
        default="99",
    )
    p95_ms: Annotated[float | None, NumberIn] = _f(
        "Serving: P95 end-to-end latency target in ms.",
        example=20000,
        applies="inference",
        metavar="MS",
        gt=0,
        le=MAX_MS,
    )
    p99_ms: Annotated[float | None, NumberIn] = _f(
        "Serving: P99 end-to-end latency target in ms.",
        example=30000,
        applies="inference",
        metavar="MS",
        gt=0,
        le=MAX_MS,
    )
    confidence: Annotated[float | None, NumberIn] = _f(
        "The level of every figure's uncertainty band (0.5-0.95); a plan meets its targets at the band's "
        "pessimistic end.",
        example=0.9,
        metavar="LEVEL",
        default="0.8",
        ge=0.5,
        le=0.95,
    )


class PlanFields(StrictFields):
    """What a plan must meet and how it ranks: the three questions, quantified."""

    deadline: str | None = _f(
        "Training must finish within, e.g. 2h, 3d.",
        example="30d",
        applies="training",
        metavar="DURATION",
        max_length=64,
    )
    budget: Annotated[float | None, NumberIn] = _f(
        "In --currency (default USD): the whole training run, or a month of serving.",
        example=1e6,
        metavar="AMOUNT",
        gt=0,
        le=1e13,
    )
    max_gpus: int | None = _f("At most this many GPUs in total.", example=64, metavar="N", ge=1, le=MAX_DEGREE)
    growth_model: str | None = _f(
        "The model six months from now.", example="llama-2-13b", metavar="NAME", max_length=256
    )
    growth_data: Annotated[float | None, NumberIn] = _f(
        "Training data six months from now, as a factor (e.g. 2).",
        example=2,
        applies="training",
        metavar="X",
        gt=0,
        le=1e6,
    )
    growth_users: Annotated[float | None, NumberIn] = _f(
        "Requests per second six months from now, as a factor (e.g. 3).",
        example=3,
        applies="inference",
        metavar="X",
        gt=0,
        le=1e6,
    )
    objective: Annotated[Objective | None, Choice] = _f("Rank by cost or time.", example="time", default="cost")
    gpus: Annotated[list[str] | None, Names] = _f(
        "Only these GPU ids, comma separated.", example="a100-80gb-sxm,h100-sxm", metavar="LIST", max_length=256
    )
    methods: Annotated[list[Method] | None, Names] = _f(
        "Compare training methods, e.g. full,lora,qlora.",
        example="full,lora",
        applies="training",
        metavar="LIST",
        max_length=3,
    )
    redundancy: int | None = _f(
        "Keep meeting the target after losing N replicas or nodes (N+1 sizing, replicas spread over nodes).",
        example=1,
        metavar="N",
        default="0",
        ge=0,
        le=64,
    )
    lang: Annotated[Literal["en", "zh"] | None, Choice] = _f(
        "Language of the plan summary and the report.", example="zh", default="en"
    )
    currency: Annotated[str | None, Upper] = _f(
        "Show costs and read --budget in this currency (USD, or one with a dated rate in offers.yaml: CNY, EUR).",
        example="CNY",
        metavar="CODE",
        default="USD",
        pattern=r"^[A-Z]{3}$",
    )
    vendor: Annotated[Literal["nvidia", "amd"] | None, Choice] = _f("Only GPUs of this vendor.", example="nvidia")


class PriceFields(StrictFields):
    """How the hardware is paid for and which offers price it: a plan's and an estimate's alike, so
    that a candidate's `gpuwise estimate` line reproduces its cost."""

    pricing: Annotated[Pricing | None, Choice] = _f(
        "Pay per use (on-demand, reserved, spot) or buy (owned: total cost over --years).",
        example="reserved",
        default="on-demand",
    )
    years: Annotated[float | None, NumberIn] = _f(
        "Owned pricing: horizon in years.", example=3, metavar="YEARS", default="the depreciation life", gt=0, le=30
    )
    prices: str | None = _f(
        "A team's own offers (YAML `offers:` list, as in offers.yaml): they add to or replace the catalog's.",
        example="examples/prices/team-rates.yaml",
        metavar="FILE",
        max_length=1024,
    )
    providers: Annotated[list[str] | None, Names] = _f(
        "Rent only from these providers, comma separated (see gpuwise prices).",
        example="aws,lambda",
        metavar="LIST",
        max_length=64,
    )
    exclude_providers: Annotated[list[str] | None, Names] = _f(
        "Never rent from these providers, comma separated.", example="vast", metavar="LIST", max_length=64
    )
    region: Annotated[list[str] | None, Names] = _f(
        "Rent only in these regions, comma separated: a part of the provider's region id (us matches us-east-1); "
        "offers whose source names no region match none.",
        example="us",
        metavar="LIST",
        max_length=16,
    )
    max_age: str | None = _f(
        "Rent only at prices dated within this, e.g. 12m, 1y, 90d (an undated price never is).",
        example="12m",
        metavar="AGE",
        max_length=16,
    )
    offer_class: Annotated[list[OfferClassName] | None, Names] = _f(
        "Rent only from these kinds of provider, comma separated.",
        example="hyperscaler,neocloud",
        metavar="LIST",
        max_length=4,
    )
    allow_indicative: bool | None = _f(
        "Let indicative prices ('starting at', lowest marketplace listings) and undated ones decide the price.",
        example=True,
        default="false: they are listed by gpuwise prices, never used",
    )


class RequirementFields(TargetFields, PlanFields, PriceFields):
    """Every requirement a plan takes: the serving target, the plan's own fields and the prices."""


SECTIONS: dict[str, type[StrictFields]] = {
    "workload": WorkloadFields,
    "hardware": HardwareFields,
    "target": TargetFields,
    "plan": PlanFields,
    "prices": PriceFields,
}


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """One field as every door sees it (an option, a YAML key, a form input)."""

    name: str
    section: str  # workload | hardware | target | plan | prices
    kind: type  # what a flag parses: str, int, float or bool
    help: str
    applies: Applies
    example: Any
    choices: tuple[str, ...] | None
    metavar: str | None
    default_doc: str | None
    layout: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def negatable(self) -> bool:
        """A workload or hardware switch has a --no- form (it overrides the stack's default); a
        requirement's or price switch is off unless given, and has none."""
        return self.kind is bool and self.section not in ("plan", "prices")


def _kind_and_choices(annotation: Any) -> tuple[type, tuple[str, ...] | None]:
    """The scalar a flag parses, and the Literal choices if any, from a field's annotation."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    inner = args[0]
    while typing.get_origin(inner) is Annotated:
        inner = typing.get_args(inner)[0]
    if typing.get_origin(inner) is Literal:
        return str, tuple(str(c) for c in typing.get_args(inner))
    if typing.get_origin(inner) is list:
        item = typing.get_args(inner)[0]
        choices = tuple(str(c) for c in typing.get_args(item)) if typing.get_origin(item) is Literal else None
        return str, choices
    if inner in (int, bool):
        return inner, None
    if inner is float:
        # counts and sizes with suffixes (2T, 120KB, $50k) arrive as text and are parsed by the schema
        return str, None
    return str, None


@functools.cache
def fields(section: str) -> tuple[FieldInfo, ...]:
    """The fields of one section, in declaration order (static: computed once per process; a
    plan calls it for every candidate's command line)."""
    out = []
    for name, info in SECTIONS[section].model_fields.items():
        if section == "target" and name not in TargetFields.model_fields:
            continue
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        kind, choices = _kind_and_choices(info.annotation)
        out.append(
            FieldInfo(
                name=name,
                section=section,
                kind=kind,
                help=info.description or "",
                applies=extra.get("applies", "any"),  # type: ignore[arg-type]
                example=extra.get("example"),
                choices=choices,
                metavar=extra.get("metavar"),  # type: ignore[arg-type]
                default_doc=extra.get("default_doc"),  # type: ignore[arg-type]
                layout=bool(extra.get("layout")),
            )
        )
    return tuple(out)


def all_fields() -> Iterator[FieldInfo]:
    for section in SECTIONS:
        yield from fields(section)


def names(*sections: str) -> frozenset[str]:
    return frozenset(f.name for s in sections for f in fields(s))


def layout_names() -> frozenset[str]:
    """The parallel-layout fields a plan chooses itself."""
    return frozenset(f.name for f in fields("workload") if f.layout)


def applying(applies: Applies, *sections: str) -> tuple[str, ...]:
    """Names of the fields that apply only to training (or only to inference)."""
    return tuple(f.name for s in sections for f in fields(s) if f.applies == applies)


_T = TypeVar("_T", bound=BaseModel)


def validate(model: type[_T], opts: Mapping[str, Any]) -> _T:
    """Typed, bounded values from loose ones (flags, YAML, JSON, forms), or a UsageError naming the field."""
    try:
        return model.model_validate(dict(opts))
    except ValidationError as exc:
        raise UsageError(describe_error(exc, model)) from None


def describe_error(exc: ValidationError, model: type[BaseModel]) -> str:
    """The first problem of a validation, said the way the CLI names fields."""
    err = exc.errors(include_url=False)[0]
    loc = [str(p) for p in err["loc"] if not isinstance(p, int)]
    name = loc[0] if loc else "input"
    flag = "--" + name.replace("_", "-")
    raw = err.get("input")
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "extra_forbidden":
        check_unknown({name: raw}, frozenset(model.model_fields), "workload" if model is WorkloadFields else "input")
    if kind == "literal_error":
        info = model.model_fields.get(name)
        _, choices = _kind_and_choices(info.annotation) if info else (str, None)
        near = suggest(str(raw), choices or ())
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return f"{flag} must be one of {', '.join(choices or ())}; got {raw!r}{hint}"
    rules = {
        "int_parsing": "must be a whole number",
        "int_from_float": "must be a whole number",
        "int_type": "must be a whole number",
        "bool_parsing": "must be true or false",
        "bool_type": "must be true or false",
        "finite_number": "must be a finite number",
        "float_parsing": "must be a number",
        "float_type": "must be a number",
        "string_type": "must be text",
        "list_type": "must be a list (or comma-separated text)",
        "greater_than_equal": f"must be at least {ctx.get('ge')}",
        "greater_than": f"must be greater than {ctx.get('gt')}",
        "less_than_equal": f"must be at most {ctx.get('le')}",
        "string_too_long": f"must be at most {ctx.get('max_length')} characters",
        "string_too_short": "must not be empty",
        "too_long": f"takes at most {ctx.get('max_length')} items",
        "value_error": str(ctx.get("error", err["msg"])),
    }
    rule = rules.get(kind, err["msg"])
    if kind == "value_error":  # the parser's own message already shows the value
        return f"{flag}: {rule}"
    shown = repr(str(raw) if isinstance(raw, float) and not math.isfinite(raw) else raw)
    if kind == "string_type" and isinstance(raw, int | float) and not isinstance(raw, bool):
        # YAML reads an unquoted 0.14 as a number (and 0.10 as 0.1): text must be quoted there
        return f"{flag} {rule}; got the number {shorten(shown)} (in a YAML file, quote it: '{raw}')"
    return f"{flag} {rule}; got {shorten(shown)}"


__all__ = [
    "SECTIONS",
    "FieldInfo",
    "HardwareFields",
    "PlanFields",
    "RequirementFields",
    "StrictFields",
    "TargetFields",
    "WorkloadFields",
    "all_fields",
    "applying",
    "describe_error",
    "fields",
    "layout_names",
    "names",
    "validate",
]
