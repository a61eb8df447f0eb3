"""Build and validate specs from loose options (CLI flags, YAML files, web forms).

Every rule a person can break has a message here that names the rule and what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast, get_args

from gpuwise.catalog import Catalog, GenericArch, ModelArch, TransformerArch
from gpuwise.catalog.arch import (
    at_image_size,
    image_input_side,
    is_language_model,
    is_token_encoder,
    vit_at_image_size,
    vit_image_side,
    with_masked_lm_head,
)
from gpuwise.catalog.encoder_operators import expressible
from gpuwise.catalog.network import parse_network
from gpuwise.catalog.unet_operators import EagerCode, attention_written, diffusers_release
from gpuwise.errors import LayoutError, UsageError, check_unknown
from gpuwise.workload.schema import MAX_DEGREE, HardwareFields, WorkloadFields, applying, names, validate
from gpuwise.workload.specs import (
    AUTOCAST_RUNTIMES,
    DEFAULT_ADAPTER_RANK,
    DEFAULT_LLM_ENGINE,
    DEFAULT_RUNTIME,
    ENGINE_SETTINGS,
    LLM_ENGINES,
    PIPELINE_EDGE_CHUNKS,
    PYTORCH_RUNTIMES,
    RUNTIMES,
    TORCH_MATMUL_RUNTIMES,
    Attention,
    BatchBound,
    Batching,
    Bnb4bit,
    DataPipeline,
    Engine,
    HalfDtype,
    Hardware,
    InferenceJob,
    LengthDistribution,
    Parallelism,
    Precision,
    TrainingJob,
    WeightsDtype,
    Workload,
    full_recompute_allowed,
    integer_base,
    interleavable,
    interleaved_only,
    quantized_base,
    unquantized,
)

if TYPE_CHECKING:
    from gpuwise.catalog.diffusion_pipeline import PipelineCall
    from gpuwise.catalog.schema import Framework, LengthDataset

# Defaults a user can always override; each is echoed in the estimate's `workload` section.
DEFAULT_TRAIN_SEQ = 2048
DEFAULT_INPUT_TOKENS = 1024
DEFAULT_OUTPUT_TOKENS = 256
# Power limits below this share of the TDP are refused: boards' minimum power limits lie at about a
# third to a half of their TDP (nvidia-smi -q, Min Power Limit; A100 SXM 100 of 400 W), a sanity bound.
MIN_POWER_CAP_SHARE = 0.25
# the frozen bases adapters train on under --method qlora: bitsandbytes NF4, or a GPTQ/AWQ int4 checkpoint
QLORA_BASES = ("nf4", "int4")
# PEFT's LoraConfig defaults for Llama-family models: r=8 on q_proj and v_proj.
DEFAULT_LORA_RANK = 8
DEFAULT_LORA_TARGETS = ("q_proj", "v_proj")

PIPELINE_KEYS = ("read_bandwidth", "sample_bytes", "decode_ms", "loader_cores")
TRAINING_KEYS = applying("training", "workload")
INFERENCE_KEYS = applying("inference", "workload")
KNOWN_KEYS = names("workload")


def _flags(keys: list[str]) -> str:
    return ", ".join("--" + k.replace("_", "-") for k in keys)


def normalize(options: Mapping[str, Any]) -> dict[str, Any]:
    """Accept 'micro-batch' or 'micro_batch'; drop unset (None) values; reject unknown keys."""
    out = {str(k).replace("-", "_"): v for k, v in options.items() if v is not None}
    check_unknown(out, KNOWN_KEYS, "workload")
    return out


def infer_task(opts: Mapping[str, Any]) -> str:
    """No --task: a training option means fine-tuning, otherwise serving."""
    if opts.get("task") is not None:
        return str(opts["task"])
    return "finetune" if any(opts.get(k) is not None for k in TRAINING_KEYS) else "inference"


def build_workload(options: Mapping[str, Any], catalog: Catalog) -> Workload:
    """A typed training or serving job from loose options; every rule broken is a UsageError."""
    opts = normalize(options)
    raw_model = opts.pop("model", None)
    if raw_model is None:
        raise UsageError(
            "a workload needs a model: --model NAME or --model PATH/config.json (`gpuwise models` lists them)"
        )
    f = validate(WorkloadFields, opts)
    given = f.model_dump(exclude_none=True)
    model = raw_model if isinstance(raw_model, TransformerArch | GenericArch) else catalog.model(str(raw_model))
    if f.image_size is not None:
        model = _at_image_size(model, f.image_size, catalog)
    task = infer_task(given)
    if task != "inference" and isinstance(model, GenericArch):
        _check_trainable(model, catalog)
    call = _pipeline_call(f, model)
    if f.attention == "eager" and isinstance(model, GenericArch):
        amp = _autocast_dtype(f, task, catalog)
        model = _operator_attention(model, amp is not None, _eager_code(f, model, amp == "fp16"), catalog, call)
    elif f.diffusers_version is not None:
        raise UsageError(
            f"--diffusers-version applies to a diffusion pipeline under --attention eager; {model.name} is not one"
            if f.attention == "eager"
            else "--diffusers-version sizes the score matrices diffusers keeps under --attention eager; give "
            "--attention eager (with fused attention no score matrix is held)"
        )
    elif call is not None:
        model = catalog.model(model.name, call=call)
    # the training stack's defaults (distributed optimizer, sharding with pipelines)
    profile = (
        catalog.framework(f.framework or catalog.default_framework(task, language_model=is_language_model(model)))
        if task != "inference"
        else None
    )
    base = quantized_base(f.method or "full", f.weights_dtype or "")  # a training run's quantized frozen base
    parallel = Parallelism(
        tp=f.tp or 1,
        pp=f.pp or 1,
        zero=f.zero if f.zero is not None else _default_zero(f, profile, base, language_model=is_language_model(model)),
        sequence_parallel=True if f.sequence_parallel is None else f.sequence_parallel,
        cp=f.cp or 1,
        ep=f.ep or 1,
        etp=_expert_tp(f, task),
        vpp=(f.vpp or 1) if (f.pp or 1) > 1 else 1,  # virtual stages interleave a pipeline; none without one
        sharding=f.sharding or "full",
        zeropp=tuple(dict.fromkeys(f.zeropp or ())),
        attention_dp=bool(f.attention_dp),
    )
    _check_model_layout(model, parallel, profile.pipeline_max_zero if profile else 1)
    if profile is not None:
        offloaded = tuple(o for o in f.offload or () if o in ("optimizer", "params"))
        _check_kbit_layout(base, parallel, offloaded)
        _check_sharding(parallel, profile, offloaded)
    if profile is None:  # serving: no training stack
        _check_serving_layout(model, parallel)
        return _inference_job(f, given, model, parallel, catalog)
    return _training_job(f, given, model, parallel, task, profile, _batch_bound(f, model, catalog, task))


def _operator_attention(
    model: GenericArch, fp32_softmax: bool, code: EagerCode, catalog: Catalog, call: PipelineCall | None = None
) -> GenericArch:
    """--attention eager on a model written operator by operator: the catalog's diffusion models are
    rewritten with their score matrices materialized (softmaxed in fp32 under torch.autocast; what
    the diffusers release and the autocast dtype keep and run in `code`); a model without attention
    written out refuses the flag with the models that take it."""
    if model.name in catalog.models:
        model = cast(
            GenericArch,
            catalog.model(model.name, attention="eager", fp32_softmax=fp32_softmax, code=code, call=call),
        )
    if attention_written(model) == "eager":
        return model
    takers = [mid for mid, entry in catalog.models.items() if entry.kind == "generic" and entry.task == "diffusion"]
    raise UsageError(
        f"--attention eager: {model.name} has no attention written operator by operator whose score matrices "
        f"could be materialized; it applies to LLM training, generate loops and the diffusion models "
        f"({', '.join(takers)})"
    )


def _pipeline_call(f: WorkloadFields, model: ModelArch) -> PipelineCall | None:
    """--denoising-steps, --guidance-scale and --scheduler: how a whole diffusion pipeline is called (None: its
    defaults); a model that is not one refuses them, naming what it is."""
    given = {"--denoising-steps": f.denoising_steps, "--guidance-scale": f.guidance_scale, "--scheduler": f.scheduler}
    if all(v is None for v in given.values()):
        return None
    from gpuwise.catalog.diffusion_pipeline import PipelineCall, is_whole_pipeline

    if not (isinstance(model, GenericArch) and is_whole_pipeline(model)):
        flags = " and ".join(n for n, v in given.items() if v is not None)
        what = (
            "one UNet call (a denoising step): give the whole pipeline, --model stable-diffusion-v1-5"
            if isinstance(model, GenericArch) and model.task == "diffusion"
            else "not a diffusion pipeline"
        )
        raise UsageError(
            f"{flags}: how a whole diffusion pipeline (text encoder, UNet steps, VAE) is called; {model.name} is {what}"
        )
    return PipelineCall(steps=f.denoising_steps, guidance=f.guidance_scale, scheduler=f.scheduler)


def _check_trainable(model: GenericArch, catalog: Catalog) -> None:
    """A diffusion pipeline written whole is sampling: a text encoder, every denoising step's UNet call and
    the VAE decoder. Training runs one UNet call a sample with the text encoder and VAE frozen (diffusers'
    train_text_to_image.py), so timing the pipeline's backward would be the wrong job: refused, naming the UNet."""
    from gpuwise.catalog.diffusion_pipeline import is_whole_pipeline

    if not is_whole_pipeline(model):
        return
    diffusion = [mid for mid, entry in catalog.models.items() if entry.task == "diffusion"]
    unets = [m for m in diffusion if isinstance(arch := catalog.model(m), GenericArch) and not is_whole_pipeline(arch)]
    raise UsageError(
        f"{model.name} is a sampling pipeline (text encoder, every denoising step's UNet, VAE decoder): it is served, "
        "not trained; training runs one UNet step a sample with the text encoder and VAE frozen"
        + (f": --model {' or '.join(unets)}" if unets else "")
    )


def _eager_code(f: WorkloadFields, model: GenericArch, fp16_autocast: bool) -> EagerCode:
    """What the eager attention's code keeps and runs: the --diffusers-version release (a whole
    diffusion pipeline's; a UNet alone is timed, its peak not kept) and whether fp16 autocast
    softmaxes half to float (PyTorch's CUDA softmax; bf16 is cast up first)."""
    if f.diffusers_version is None:
        return EagerCode(half_to_float=fp16_autocast)
    from gpuwise.catalog.diffusion_pipeline import is_whole_pipeline

    if not is_whole_pipeline(model):
        raise UsageError(
            f"--diffusers-version applies to a whole diffusion pipeline (its memory is the pipeline's peak); "
            f"{model.name} is not one"
        )
    release = diffusers_release(f.diffusers_version)
    if release is None:
        raise UsageError(
            f"--diffusers-version takes a release such as 0.14, 0.16.1 or 0.14.0.dev0; got {f.diffusers_version!r}"
        )
    return EagerCode(release=release, half_to_float=fp16_autocast)


def _autocast_dtype(f: WorkloadFields, task: str, catalog: Catalog) -> str | None:
    """The 16-bit dtype PyTorch runs the model at under torch.autocast, as the operator timer decides
    it (None: no autocast): training at 16 bits (mixed precision), or eager inference with --autocast
    (the eager runtime's default) over 16-bit weights."""
    dtype: str
    if task != "inference":
        dtype = f.precision or "bf16"
    else:
        engine = f.engine or DEFAULT_RUNTIME
        if engine not in PYTORCH_RUNTIMES:
            return None  # refused with its reason once the engine is known
        held = f.weights_dtype or f.precision or "bf16"
        dtype = (_autocast_over_fp32(f, held, engine, catalog) or held) if _autocasts(f, engine, catalog) else "none"
    return dtype if dtype in ("fp16", "bf16") else None


VIT_FAMILY = "vision-transformer"  # the batch bounds every vision transformer shares (the ViT paper's recipes)


def _batch_bound(f: WorkloadFields, model: ModelArch, catalog: Catalog, task: str) -> BatchBound | None:
    """The catalog's largest converging global batch for the model, when the user named no batch
    (a plan then sizes the batch per GPU up to it), cited by its catalog source's address: a whole
    field of the data file, language-neutral in every plan (its title where it has no address).
    A vision transformer without a bound of its own (a ViT config.json) takes the ViT recipe's
    (`largest_global_batch.vision-transformer`). A fine-tune takes the model's fine-tuning recipe
    (`largest_global_batch.<model>.finetune`: BERT's 32, the ViT paper's 512), where the catalog has one, and no bound where it has none: a
    pretraining recipe's batch (RoBERTa's 8K) is far past what fine-tuning runs."""
    suffix = "" if task == "pretrain" else f".{task}"
    conv = catalog.conventions.get(f"largest_global_batch.{model.name}{suffix}")
    if conv is None and isinstance(model, TransformerArch) and vit_image_side(model) is not None:
        conv = catalog.conventions.get(f"largest_global_batch.{VIT_FAMILY}{suffix}")  # the ViT paper's, every ViT
    if conv is None or f.micro_batch is not None or f.global_batch is not None:
        return None
    src = catalog.source(conv.source)
    return BatchBound(int(conv.value), src.url or src.title, catalog.convention("batch_sizing_tolerance"))


def _at_image_size(model: ModelArch, side: int, catalog: Catalog) -> ModelArch:
    """The model at --image-size: an image model described operator by operator, or a vision
    transformer (its sequence follows the image: patches plus [CLS])."""
    described = image_input_side(model)
    if described is None:
        raise UsageError(
            f"--image-size applies to models with an image input: image models described operator by operator "
            f"and vision transformers ({', '.join(catalog.image_models())}, or a `gpuwise describe` document of a "
            f"CNN); {model.name} has no image input to resize"
        )
    if isinstance(model, TransformerArch):
        return model if side == described else vit_at_image_size(model, side)
    return model if side == described else at_image_size(model, side)


def _expert_tp(f: WorkloadFields, task: str) -> int | None:
    """Ranks each expert's matrices are split over: training's --etp (None: tp, Megatron's default);
    serving splits the experts over the tp ranks, ep ways and each over the other tp / ep (TensorRT-LLM's
    moe_tp_size = tp_size / moe_ep_size)."""
    if task != "inference" or (f.ep or 1) <= 1:
        return f.etp
    tp, ep = f.tp or 1, f.ep or 1
    if tp % ep:
        raise LayoutError(
            f"--ep {ep} splits the experts over the --tp {tp} ranks a serving replica has: it must divide {tp}"
        )
    return tp // ep


def _check_serving_layout(model: ModelArch, par: Parallelism) -> None:
    """Attention data parallelism runs attention on each tp rank's own requests and splits the MoE
    experts over all of them (--ep equal to --tp, the layout TensorRT-LLM and SGLang serve it in)."""
    if not par.attention_dp:
        return
    if not (isinstance(model, TransformerArch) and model.is_moe):
        raise LayoutError(
            f"--attention-dp shares a MoE model's experts between ranks that run attention on their own requests; "
            f"{model.name} has no experts: serve it as replicas (plan's --qps) or with --tp"
        )
    if par.tp < 2 or par.ep != par.tp or par.pp > 1:
        raise LayoutError(
            f"--attention-dp runs attention data-parallel over the --tp ranks with the experts split over all of "
            f"them: give --tp N --ep N with N >= 2 and no --pp (got --tp {par.tp} --ep {par.ep} --pp {par.pp})"
        )


def _check_sharding(par: Parallelism, profile: Framework, offloaded: tuple[str, ...] = ()) -> None:
    """Hybrid sharding (FSDP, torchtitan) shards ZeRO-2/3 states inside a node, Megatron's partial
    distributed optimizer its ZeRO-1 states; ZeRO++ (DeepSpeed) changes ZeRO-3's collectives: each
    only where the stack has it. A DeepSpeed-engine stack offloads (`offloaded`) the optimizer under ZeRO
    1-3 and the parameters under ZeRO-3 only (offload_param)."""
    if par.sharding == "hybrid":
        if par.zero == 0:
            raise UsageError("--sharding hybrid shards ZeRO states inside each node: give --zero 1, 2 or 3")
        if par.zero == 1 and not profile.hybrid_zero1:
            raise UsageError(
                f"--sharding hybrid --zero 1: {profile.name} has no ZeRO-1 sharded inside a node (Megatron Core's "
                "--num-distributed-optimizer-instances): use --framework megatron"
            )
        if par.zero >= 2 and not profile.hybrid_sharding:
            raise UsageError(
                f"--sharding hybrid: {profile.name} has no hybrid sharding (FSDP's HYBRID_SHARD, torchtitan's HSDP): "
                "use --framework fsdp or torchtitan"
            )
    split = {"--tp": par.tp, "--pp": par.pp, "--cp": par.cp, "--ep": par.ep}
    if not profile.model_parallel and (flag := next((k for k, v in split.items() if v > 1), None)):
        raise LayoutError(
            f"{flag} {split[flag]}: {profile.name} runs data parallelism only (frameworks.yaml model_parallel); "
            f"did you mean {flag} 1?"
        )
    if par.zero not in profile.zero_stages:
        near = min(profile.zero_stages, key=lambda z: (abs(z - par.zero), -z))
        raise LayoutError(
            f"--zero {par.zero}: {profile.name} runs ZeRO stages {', '.join(map(str, profile.zero_stages))} only "
            f"(frameworks.yaml zero_stages); did you mean --zero {near}?"
        )
    if par.zero == 0 and profile.zero_offload and offloaded:
        want = 3 if "params" in offloaded else 2
        raise LayoutError(
            f"--offload {','.join(offloaded)}: {profile.name} offloads through DeepSpeed's ZeRO (offload_optimizer "
            f"under stages 1-3, offload_param under stage 3); did you mean --zero {want}?"
        )
    if par.zero in (1, 2) and profile.zero_offload and "params" in offloaded:
        raise LayoutError(
            f"--offload params --zero {par.zero}: {profile.name} offloads parameters through DeepSpeed's "
            "offload_param, valid only with ZeRO stage 3 (DeepSpeed's configuration reference); did you mean --zero 3?"
        )
    if par.zeropp:
        if not profile.zeropp:
            raise UsageError(f"--zeropp is DeepSpeed's ZeRO++; {profile.name} has none: use --framework deepspeed")
        if par.zero != 3:
            raise UsageError("--zeropp changes ZeRO-3's collectives: give --zero 3")


def _inference_job(
    f: WorkloadFields, given: dict[str, Any], model: ModelArch, parallel: Parallelism, catalog: Catalog
) -> InferenceJob:
    stray = [k for k in TRAINING_KEYS if k in given]
    if stray == ["seq"]:
        raise UsageError(
            "--seq is the training sequence length; a serving request is sized by --input-tokens and "
            "--output-tokens (or set --task finetune)"
        )
    if stray:
        raise UsageError(f"{_flags(stray)} only apply to training; drop them or set --task finetune")
    precision = f.precision or "bf16"
    wd = f.weights_dtype or unquantized(precision)
    if wd == "nvfp4" and not (isinstance(model, TransformerArch) and model.decoder):
        raise UsageError(
            f"--weights-dtype nvfp4 is an LLM serving format (--task inference); {model.name} is not a "
            "decoder: use int8, fp8 or a 16/32-bit dtype"
        )
    kv_default = unquantized(wd)
    kv = f.kv_dtype or kv_default
    weights_defaulted = f.weights_dtype is None and f.precision is None
    engine = _engine(f, model, parallel)
    dataset = catalog.dataset(f.dataset) if f.dataset is not None else None
    # a dataset's own mean lengths stand in for the defaults
    inp = _fixed_length(f.input_tokens, "--input-tokens", model) or (
        round(dataset.prompt_mean) if dataset else _default_input(model)
    )
    out_default = DEFAULT_OUTPUT_TOKENS if model.decoder else 0
    out = f.output_tokens if f.output_tokens is not None else (round(dataset.output_mean) if dataset else out_default)
    job = InferenceJob(
        model=model,
        weights_dtype=wd,
        kv_dtype=kv,
        dtype_defaults=_bf16_defaults(
            weights_dtype=(wd, weights_defaulted),
            kv_dtype=(kv, f.kv_dtype is None and (weights_defaulted or wd not in ("fp16", "bf16", "fp32"))),
        ),
        input_tokens=inp,
        output_tokens=out,
        concurrency=f.concurrency or 1,
        parallel=parallel,
        engine=engine,
        engine_named=f.engine is not None,
        prefix_hit_rate=f.prefix_hit_rate or 0.0,
        **_finite_run(f, model, engine, catalog),
        length_spread=_length_spread(f, model, engine, catalog),
        lengths=_dataset_lengths(f, dataset, model, engine, catalog),
        items_per_request=f.items_per_request or 1,
        input_from_host=_input_from_host(f, model, engine),
        cuda_graphs=_cuda_graphs(f, model, engine, catalog),
        tf32_matmul=_tf32_matmul(f, wd, engine, catalog),
        autocast=_autocast(f, model, engine),
        autocast_dtype=_autocast_over_fp32(f, wd, engine, catalog),
        diffusers_version=f.diffusers_version,
        denoising_steps=f.denoising_steps,
        guidance_scale=f.guidance_scale,
        scheduler=f.scheduler,
        enforce_eager=_enforce_eager(f, model, engine, catalog),
        async_scheduling=_async_scheduling(f, engine, catalog),
        batching=_batching(f, model, engine, catalog),
        attention=_serving_attention(f, engine, model, catalog),
        bnb_4bit=_bnb_4bit(f, wd, engine, catalog),
        **_speculative(f),
        **_lora_adapters(f, model),
        **_engine_settings(f, model, engine, catalog),
    )
    _check_budget(job, catalog)
    return job


def _finite_run(f: WorkloadFields, model: ModelArch, engine: str, catalog: Catalog) -> dict[str, Any]:
    """--requests N: a finite run on a server engine's continuous batching (a generate loop's static batch
    is one run already); --concurrency names its clients (none: a burst)."""
    if not f.requests:
        if f.request_rate:
            raise UsageError("--request-rate paces a finite run: give --requests N (the run's requests) with it")
        return {}
    if not (isinstance(model, TransformerArch) and model.decoder):
        raise UsageError(f"--requests applies to LLM serving engines; {model.name} is not served by one")
    if catalog.engine(engine).static_batching or f.batching == "static":
        raise UsageError("--requests times a server's continuous batching; a static batch is timed by --concurrency")
    if f.request_rate and f.concurrency and f.concurrency < f.requests:
        raise UsageError(
            "--request-rate with --concurrency: a paced run whose clients also cap what is in flight is not "
            "modelled; give one of them"
        )
    return {"requests": f.requests, "clients": f.concurrency or 0, "request_rate": f.request_rate or 0.0}


def _length_spread(f: WorkloadFields, model: ModelArch, engine: str, catalog: Catalog) -> float:
    """--length-spread R: request lengths that vary, which only the load simulation of a server's continuous
    batching reads (a generate loop's static batch decodes to its longest request: not modelled)."""
    if not f.length_spread:
        return 0.0
    _lengths_vary("--length-spread", f, model, engine, catalog)
    return f.length_spread


def _lengths_vary(flag: str, f: WorkloadFields, model: ModelArch, engine: str, catalog: Catalog) -> None:
    """Refuses `flag` (lengths that vary) where nothing reads them: only a server's continuous batching is
    simulated request by request."""
    if not (isinstance(model, TransformerArch) and model.decoder):
        raise UsageError(f"{flag} applies to LLM serving engines; {model.name} is not served by one")
    if catalog.engine(engine).static_batching or f.batching == "static":
        raise UsageError(
            f"{flag}: a static batch decodes to its longest request, which is not modelled; "
            "use a serving engine's continuous batching"
        )


def _dataset_lengths(
    f: WorkloadFields, dataset: LengthDataset | None, model: ModelArch, engine: str, catalog: Catalog
) -> LengthDistribution | None:
    """--dataset NAME: request lengths drawn from a benchmark dataset's, scaled to the mean lengths given
    (none given: the dataset's own, unscaled); refused where --length-spread's are (what reads them is the
    same load simulation), beside it, and where the longest pair drawn would pass the model's context."""
    if dataset is None or f.dataset is None:
        return None
    _lengths_vary(f"--dataset {f.dataset}", f, model, engine, catalog)
    if f.length_spread:
        raise UsageError(
            f"--dataset {f.dataset} draws each request's lengths from the dataset's; --length-spread draws them "
            "uniformly: give one of them"
        )
    if f.output_tokens == 0:
        raise UsageError(f"--dataset {f.dataset}: requests of --output-tokens 0 have no output lengths to draw")
    means = (dataset.prompt_mean, dataset.output_mean)
    to = (float(f.input_tokens or means[0]), float(f.output_tokens or means[1]))
    dist = LengthDistribution.scaled(
        f.dataset, dataset.levels, (dataset.prompt, dataset.output), means, dataset.context_cap, to
    )
    if isinstance(model, TransformerArch) and dist.longest_context > model.max_seq:
        raise UsageError(
            f"--dataset {f.dataset} at means of {to[0]:,.0f} prompt and {to[1]:,.0f} output tokens draws requests "
            f"of up to {dist.longest_context:,} tokens, past {model.name}'s context of {model.max_seq:,}: lower "
            "--input-tokens or --output-tokens"
        )
    return dist


def _enforce_eager(f: WorkloadFields, model: ModelArch, engine: str, catalog: Catalog) -> bool:
    """--enforce-eager turns an LLM engine's CUDA graphs off: the engine must say how many kernels its
    decoder layer issues (engines.yaml eager_kernels_per_layer)."""
    if not f.enforce_eager:
        return False
    if not (isinstance(model, TransformerArch) and model.decoder):
        raise UsageError(f"--enforce-eager applies to LLM serving engines; {model.name} is not served by one")
    if not catalog.engine(engine).eager_kernels_per_layer:
        counted = ", ".join(e for e, p in catalog.engines.items() if p.eager_kernels_per_layer and p.cuda_graphs)
        raise UsageError(
            f"--enforce-eager: {engine}'s kernels per layer without CUDA graphs are not in the catalog; "
            f"it is modelled for {counted}"
        )
    return True


def _cuda_graphs(f: WorkloadFields, model: ModelArch, engine: str, catalog: Catalog) -> bool:
    """--cuda-graphs replays a compiled engine's kernels as one graph: an option of the runtimes that compile the
    model (engines.yaml runtimes with kernels `compiled`) for what they time operator by operator. LLM serving
    engines capture their decode steps already (--enforce-eager turns that off)."""
    if not f.cuda_graphs:
        return False
    compiled = [r for r in RUNTIMES if catalog.runtime(r).kernels == "compiled"]
    if engine not in compiled:
        graphs = " (it captures its decode steps in CUDA graphs already: --enforce-eager turns them off)"
        llm = engine in catalog.engines and bool(catalog.engine(engine).cuda_graphs)
        raise UsageError(
            f"--cuda-graphs applies to --engine {' or '.join(compiled)}; here the engine is {engine}{graphs if llm else ''}"
        )
    if not _timed_by_operator(model, engine):
        raise UsageError(
            f"--cuda-graphs applies to a model timed operator by operator (a CNN or recommender, or an encoder under "
            f"a named --engine other than the default {DEFAULT_RUNTIME}); {model.name} under {engine} is not"
        )
    return True


def _async_scheduling(f: WorkloadFields, engine: str, catalog: Catalog) -> bool:
    """--async-scheduling is an engine's own option (vLLM V1's): an engine without it either overlaps its host
    work already or has no such mode, so asking for it elsewhere is a usage error."""
    if not f.async_scheduling:
        return False
    if engine not in catalog.engines or not catalog.engine(engine).async_scheduling:
        offered = ", ".join(e for e, p in catalog.engines.items() if p.async_scheduling)
        raise UsageError(f"--async-scheduling is an option of {offered}; --engine {engine} has no such mode")
    if f.speculative_tokens:
        raise UsageError(
            "--async-scheduling with --speculative-tokens: gpuwise's speculative decoding is n-gram lookup, which "
            "vLLM's async scheduling does not run (it takes EAGLE, MTP or draft-model proposals only)"
        )
    return True


def _batching(f: WorkloadFields, model: ModelArch, engine: str, catalog: Catalog) -> Batching | None:
    """--batching static times a server engine's static-batch benchmark; a generate loop has no other way
    to batch, and models without an LLM engine have no batching to choose."""
    if f.batching is None:
        return None
    if not (isinstance(model, TransformerArch) and model.decoder):
        raise UsageError(f"--batching applies to LLM serving engines; {model.name} is not served by one")
    if f.batching == "continuous" and catalog.engine(engine).static_batching:
        raise UsageError(
            f"--batching continuous: --engine {engine} is a generate loop, which runs static batches only; "
            "use a serving engine (vllm, sglang, trtllm, lmdeploy, tgi) for continuous batching"
        )
    return f.batching


def _serving_attention(f: WorkloadFields, engine: str, model: ModelArch, catalog: Catalog) -> Attention | None:
    """--attention in serving picks a generate loop's kernel, or how PyTorch runs a diffusion model's or
    an encoder's attention; serving engines run their own. A generate loop has none of a server's features: asking
    for one is a usage error."""
    loop = engine in catalog.engines and catalog.engine(engine).static_batching
    server_only = {
        "--prefix-hit-rate": f.prefix_hit_rate,
        "--lora-adapters": f.lora_adapters,
        "--attention-dp": f.attention_dp,
        "--enforce-eager": f.enforce_eager,
    }
    if loop and (asked := [flag for flag, value in server_only.items() if value]):
        raise UsageError(
            f"{', '.join(asked)}: --engine {engine} is a generate loop (no prefix cache, no served adapters, no "
            "attention data parallelism, never CUDA graphs); use a serving engine (vllm, sglang, trtllm)"
        )
    if f.attention is None:
        return None
    if isinstance(model, TransformerArch) and not model.decoder and expressible(model) is None:
        if engine not in PYTORCH_RUNTIMES:
            raise UsageError(
                f"--attention for an encoder is how PyTorch runs its attention (--engine "
                f"{' or '.join(PYTORCH_RUNTIMES)}); {engine} compiles its own fused attention: drop --attention"
            )
        return f.attention  # flash: scaled_dot_product_attention; eager: the score matrix in memory
    if isinstance(model, GenericArch) and attention_written(model) == f.attention:  # build_workload rewrote it
        if f.attention == "eager" and engine not in PYTORCH_RUNTIMES:
            raise UsageError(
                f"--attention eager is PyTorch running the model's own attention code (--engine "
                f"{' or '.join(PYTORCH_RUNTIMES)}); {engine} compiles its own fused attention: drop --attention"
            )
        return f.attention
    if engine not in catalog.engines or not catalog.engine(engine).static_batching:
        loops = ", ".join(e for e, p in catalog.engines.items() if p.static_batching)
        raise UsageError(
            f"--attention in serving applies to a generate loop (--engine {loops}); {engine} runs its own "
            "attention kernels: drop --attention"
        )
    return f.attention


def _bnb_4bit(f: WorkloadFields, wd: str, engine: str, catalog: Catalog) -> Bnb4bit:
    """--bnb-4bit says how bitsandbytes 4-bit weights were loaded: it means something for --weights-dtype nf4
    only, and load-in-4bit (transformers' own loading) only in a generate loop."""
    if f.bnb_4bit is None:
        return "qlora"
    if wd != "nf4":
        raise UsageError(f"--bnb-4bit applies to bitsandbytes 4-bit weights (--weights-dtype nf4); here they are {wd}")
    loop = engine in catalog.engines and catalog.engine(engine).static_batching
    if f.bnb_4bit == "load-in-4bit" and not loop:
        loops = ", ".join(e for e, p in catalog.engines.items() if p.static_batching)
        raise UsageError(
            f"--bnb-4bit load-in-4bit is how Hugging Face transformers loads a model: use a generate loop "
            f"(--engine {loops}); {engine} loads its own 4-bit kernels"
        )
    return f.bnb_4bit


def _autocast(f: WorkloadFields, model: ModelArch, engine: str) -> bool | None:
    """--[no-]autocast says whether eager PyTorch (or a torch.compile graph of it) casts the weights per call:
    it means something only for a model whose operators are timed under those runtimes."""
    if f.autocast is None:
        return None
    described = (isinstance(model, GenericArch) and bool(model.operators)) or (
        isinstance(model, TransformerArch) and expressible(model) is None
    )
    if engine == "torchscript" and f.autocast is False and described:
        return None  # a traced graph runs at its weights' dtype: --no-autocast restates TorchScript's own
    if engine not in AUTOCAST_RUNTIMES or not described:
        raise UsageError(
            "--autocast/--no-autocast applies to PyTorch inference (--engine eager or torch-compile) of a model described "
            f"operator by operator or an encoder written out from its architecture; here the engine is {engine} and the model {model.name}"
        )
    return f.autocast


def _autocasts(f: WorkloadFields, engine: str, catalog: Catalog) -> bool:
    """Whether a PyTorch runtime runs the model under torch.autocast: --[no-]autocast, or its own default."""
    if engine not in AUTOCAST_RUNTIMES:
        return False
    return catalog.runtime(engine).autocasts(f.autocast)


def _autocast_over_fp32(f: WorkloadFields, wd: str, engine: str, catalog: Catalog) -> HalfDtype | None:
    """PyTorch AMP inference, the model held in fp32 and each convolution and GEMM computed at --precision under
    torch.autocast (timm's --amp, a pipeline under autocast): the 16-bit dtype. Any other runtime, and PyTorch
    without autocast, computes at the weights' dtype, so a 16-bit --precision over fp32 weights is refused there
    rather than read as fp32 (a 16-bit engine holds 16-bit weights: --weights-dtype names them)."""
    if wd != "fp32" or f.precision not in get_args(HalfDtype):
        return None
    if _autocasts(f, engine, catalog):
        return cast(HalfDtype, f.precision)
    amp = f" or --autocast (fp32 weights cast to {f.precision} on every call)" if engine in AUTOCAST_RUNTIMES else ""
    raise UsageError(
        f"--precision {f.precision} over --weights-dtype fp32: {engine} computes at the weights' dtype; give "
        f"--weights-dtype {f.precision}{amp}"
    )


def _tf32_matmul(f: WorkloadFields, wd: str, engine: str, catalog: Catalog) -> bool | None:
    """--[no-]tf32-matmul is PyTorch's matmul precision switch: it applies where PyTorch runs fp32 weights at fp32
    (--precision tf32 or fp32, no autocast), on its own runtimes or an LLM engine that is a PyTorch generate loop."""
    if f.tf32_matmul is None:
        return None
    if catalog.runtime_of(engine) not in [catalog.runtime(r) for r in TORCH_MATMUL_RUNTIMES]:
        raise UsageError(
            f"--tf32-matmul is PyTorch's matmul precision (--engine {', '.join(TORCH_MATMUL_RUNTIMES)} or a "
            f"transformers generate loop); {engine} sets its own"
        )
    if wd != "fp32" or f.autocast or f.precision not in (None, "fp32", "tf32"):
        raise UsageError(
            "--tf32-matmul applies to fp32 weights computed in fp32 (--weights-dtype fp32 --precision tf32, no "
            f"--autocast); here --precision {f.precision or wd} over --weights-dtype {wd}"
        )
    return f.tf32_matmul


def _timed_by_operator(model: ModelArch, engine: str) -> bool:
    """Whether the runtime times the model kernel by kernel: a model described operator by operator, or an encoder
    (BERT, ViT) under a runtime other than the default (estimate.serving.timed_model writes its operators)."""
    described = isinstance(model, GenericArch) and bool(model.operators)
    encoder = isinstance(model, TransformerArch) and expressible(model) is None
    return described or (encoder and engine != DEFAULT_RUNTIME)


def _input_from_host(f: WorkloadFields, model: ModelArch, engine: str) -> bool:
    """--input-from-host times the host-to-device copy of each batch's input: a term of the models
    described operator by operator (an LLM request's tokens are a few bytes), which an encoder (BERT,
    ViT) is under a runtime other than the default (estimate.serving.timed_model)."""
    if not f.input_from_host:
        return False
    if _timed_by_operator(model, engine):
        return True
    if isinstance(model, TransformerArch) and expressible(model) is None:
        raise UsageError(
            f"--input-from-host: {model.name} is timed operator by operator only under a named runtime "
            f"(--engine {', '.join(r for r in RUNTIMES if r not in (DEFAULT_RUNTIME, 'torch-compile'))}; torch-compile "
            "is modelled for CNNs and recommenders), not the default compiled engine"
        )
    raise UsageError(
        f"--input-from-host applies to models described operator by operator (CNNs, recommenders) and to "
        f"BERT- and ViT-style encoders under a named runtime; {model.name} is not one"
    )


def _engine(f: WorkloadFields, model: ModelArch, parallel: Parallelism) -> Engine:
    """The serving engine of a decoder LLM, or the runtime of any other model; one named for the
    other kind is refused with the choices that apply."""
    llm = isinstance(model, TransformerArch) and model.decoder
    if f.engine is None:
        return DEFAULT_LLM_ENGINE if llm else DEFAULT_RUNTIME
    if llm and f.engine not in LLM_ENGINES:
        raise UsageError(
            f"--engine {f.engine} is a runtime of models timed operator by operator; {model.name} is an LLM: "
            f"use one of {', '.join(LLM_ENGINES)}"
        )
    if not llm and f.engine in LLM_ENGINES:
        raise UsageError(
            f"--engine {f.engine} serves generative LLMs; {model.name} is not one: use one of {', '.join(RUNTIMES)}"
        )
    if not llm and f.engine != DEFAULT_RUNTIME:
        _check_runtime(f.engine, model, parallel)
    if f.engine == "lmdeploy" and f.lora_adapters:
        raise UsageError(
            "--lora-adapters: LMDeploy's TurboMind engine serves no LoRA adapters (its PyTorch engine does)"
        )
    return f.engine


COMPILE_TASKS = ("vision", "recommender")  # the described models whose pointwise chains torch-compile's rule reads


def _check_runtime(engine: str, model: ModelArch, parallel: Parallelism) -> None:
    """A runtime other than the default changes which kernels run: the model must be described
    operator by operator, or be an encoder whose operators follow from its architecture. torch-compile's
    fusion (operators._pointwise_fused) reads chains of pointwise operators, each counting its own reads and
    writes, after a CNN's or recommender's convolution or GEMM; an encoder's operators carry the GEMMs'
    reads and writes in their softmax and scale, and a diffusion model's groups are not one chain."""
    if engine == "torch-compile" and not (isinstance(model, GenericArch) and model.task in COMPILE_TASKS):
        raise UsageError(
            f"--engine torch-compile is modelled for CNNs and recommenders described operator by operator "
            f"(resnet-50, efficientnet-b0, resnext101-32x4d, dlrm-criteo-1tb, deepfm-ecommerce, a `gpuwise describe` "
            f"document of a CNN); {model.name} is not one: use --engine eager or torchscript"
        )
    if isinstance(model, GenericArch):
        if model.operators:
            return
        why = f"{model.name} is known by its totals only"
    else:
        why = expressible(model) or ""
        if not why and parallel.tp == 1:
            return
        why = why or f"{model.name}'s operators are written for one GPU, not split over tensor-parallel ranks (--tp)"
    raise UsageError(
        f"--engine {engine} changes which kernels run, which needs a model described operator by operator "
        f"(resnet-50, efficientnet-b0, stable-diffusion-v1-5-unet, stable-diffusion-v1-5, dlrm-criteo-1tb, deepfm-ecommerce, `gpuwise describe`) or a BERT- or "
        f"ViT-style encoder (bert-base-uncased, bert-large-uncased, vit-base-patch16-224); {why}: drop --engine (the default is {DEFAULT_RUNTIME})"
    )


def _bf16_defaults(**fields: tuple[str, bool]) -> frozenset[str]:
    """The dtype fields that hold bf16 only because the user named nothing (field -> (value,
    defaulted)): a GPU without bf16 runs those as fp16 (gpuwise.workload.precision)."""
    return frozenset(k for k, (value, defaulted) in fields.items() if defaulted and value == "bf16")


def _lora_adapters(f: WorkloadFields, model: ModelArch) -> dict[str, Any]:
    """Multi-LoRA serving: adapters on a transformer base; a rank alone is a mistake, not a default."""
    if not f.lora_adapters:
        if f.lora_adapter_rank is not None:
            raise UsageError("--lora-adapter-rank sizes served adapters: give --lora-adapters N (N > 0) as well")
        return {}
    if not isinstance(model, TransformerArch):
        raise UsageError(f"--lora-adapters needs a transformer base; {model.name} is described by totals only")
    return {"lora_adapters": f.lora_adapters, "lora_adapter_rank": f.lora_adapter_rank or DEFAULT_ADAPTER_RANK}


def _verb(named: list[str]) -> str:
    """The verb for one setting or several."""
    return "sets" if len(named) == 1 else "set"


def _engine_settings(f: WorkloadFields, model: ModelArch, engine: str, catalog: Catalog) -> dict[str, Any]:
    """A serving engine's own settings (--max-seqs, --max-batch-tokens, --memory-fraction): they size a
    server's continuous batching and its KV block pool, which a generate loop (static batches, a cache
    that grows with the tokens) and the runtimes of other models do not have."""
    given = {key: getattr(f, key) for key in ENGINE_SETTINGS}
    named = [key for key, value in given.items() if value is not None]
    if not named:
        return {}
    if not (isinstance(model, TransformerArch) and model.decoder):
        raise UsageError(f"{_flags(named)} {_verb(named)} an LLM serving engine; {model.name} is not served by one")
    if catalog.engine(engine).static_batching:
        raise UsageError(
            f"{_flags(named)} {_verb(named)} a serving engine's scheduler and KV block pool; --engine {engine} is a generate "
            "loop (static batches, a cache that grows with the tokens): drop them, or serve with vllm, sglang or trtllm"
        )
    return given


def _check_budget(job: InferenceJob, catalog: Catalog) -> None:
    """A --max-batch-tokens an engine refuses to start with: below a prompt an engine prefills whole in one step
    (TGI 1.x and 2.x: the longest prompt; vLLM 0.5 below its chunking threshold: the context, its
    max_model_len at least), or below the running requests' cap where the engine refuses that (vLLM)."""
    n, model = job.max_batch_tokens, job.model
    if n is None or not isinstance(model, TransformerArch):
        return
    profile = catalog.engine(job.engine).for_model(model)
    if profile.prefills_whole:
        need, what = (
            (job.longest_context, "the context (prompt and output; vLLM: --max-model-len at least)")
            if profile.budget_covers_context
            else (job.longest_prompt, "the longest prompt")
        )
        if n < need:
            raise UsageError(
                f"--max-batch-tokens {n}: {profile.name} prefills a prompt whole in one step, so a step must hold "
                f"{what}, {need} tokens; the engine refuses to start below that (raise it, or serve with an engine "
                "that chunks prompts: vllm, sglang, trtllm)"
            )
    # the running-request cap the engine checks against its budget: a given one (vLLM), or its own (vLLM 0.5)
    cap = job.max_seqs or (profile.max_seqs if profile.decodes_in_budget == "refused" else None)
    if profile.decodes_in_budget in ("lowered", "refused") and cap is not None and cap > n:
        flag = f"--max-seqs {cap}" if job.max_seqs else f"its {cap} running requests (--max-seqs not given)"
        raise UsageError(
            f"{flag} above --max-batch-tokens {n}: {profile.name} refuses to start (every running request puts a "
            "token in each step); lower --max-seqs or raise --max-batch-tokens"
        )
    verify = job.speculative_tokens + 1
    if profile.decodes_in_budget != "no" and verify > n:
        raise UsageError(
            f"--max-batch-tokens {n}: one request's step of {verify} tokens (--speculative-tokens "
            f"{job.speculative_tokens} and the token they verify) does not fit it; raise it"
        )


def _speculative(f: WorkloadFields) -> dict[str, Any]:
    """Speculative decoding needs both the proposal length and its acceptance rate."""
    if (f.speculative_tokens or 0) == 0 and f.speculative_acceptance is None:
        return {}
    if not f.speculative_tokens or f.speculative_acceptance is None:
        raise UsageError(
            "speculative decoding needs --speculative-tokens K (> 0) and --speculative-acceptance (0-1, "
            "measured on your traffic)"
        )
    return {"speculative_tokens": f.speculative_tokens, "speculative_acceptance": f.speculative_acceptance}


def _check_no_optimizer(f: WorkloadFields) -> None:
    """--optimizer none runs forward and backward only: the flags that place or fuse an optimizer have none."""
    if f.optimizer != "none":
        return
    asked = {
        "--optimizer-in-backward": f.optimizer_in_backward,
        "--paged-optimizer": f.paged_optimizer,
        "--offload optimizer": "optimizer" in (f.offload or ()),
        f"--zero {f.zero}": f.zero in (1, 2),  # stages that partition the optimizer's states and step
    }
    if given := [flag for flag, value in asked.items() if value]:
        raise UsageError(
            f"{', '.join(given)}: --optimizer none runs forward and backward only (no optimizer to place or fuse); "
            "drop them or name the optimizer"
        )


def _training_job(
    f: WorkloadFields,
    given: dict[str, Any],
    model: ModelArch,
    parallel: Parallelism,
    task: str,
    profile: Framework,
    bound: BatchBound | None = None,
) -> TrainingJob:
    if stray := [k for k in INFERENCE_KEYS if k in given]:
        raise UsageError(f"{_flags(stray)} only apply to inference; drop them or set --task inference")
    method = f.method or "full"
    if method != "full" and not profile.adapters:
        raise UsageError(
            f"--method {method}: {profile.name} trains every weight, it has no adapters (frameworks.yaml adapters); "
            "use --method full or another --framework"
        )
    precision = f.precision or "bf16"
    wd = _training_weights(f, method, precision, task, model)
    _check_fp8_params(f, wd, precision, profile)
    _check_grad_reduce(f, precision, profile)
    _check_no_optimizer(f)
    seq = _fixed_length(f.seq, "--seq", model) or _default_seq(model)
    recompute = f.recompute or profile.default_recompute
    _check_checkpoint_impl(f, recompute)
    if parallel.cp > 1 and seq % (2 * parallel.cp):
        raise LayoutError(
            f"--cp {parallel.cp} needs a sequence length divisible by 2 x cp = {2 * parallel.cp}; got --seq {seq}"
        )
    _check_moe_comm(f, parallel, recompute, profile)
    return TrainingJob(
        model=_masked_lm(f, model, task, seq),
        task=task,  # type: ignore[arg-type]
        method=method,
        precision=precision,
        weights_dtype=wd,
        dtype_defaults=_bf16_defaults(
            precision=(precision, f.precision is None),
            weights_dtype=(wd, f.weights_dtype is None and f.precision is None),
        ),
        optimizer=f.optimizer or "adamw",
        master_weights=profile.master_weights if f.master_weights is None else f.master_weights,
        micro_batch=_micro_batch(f),
        global_batch=f.global_batch,
        batch_bound=bound,
        seq=seq,
        parallel=parallel,
        recompute=recompute,
        checkpoint_impl=f.checkpoint_impl,
        optimizer_impl=f.optimizer_impl,
        attention=f.attention or "flash",
        lora_rank=f.lora_rank or DEFAULT_LORA_RANK,
        lora_targets=_targets(f.lora_targets, model) if method != "full" else DEFAULT_LORA_TARGETS,
        tokens=f.tokens,
        samples=f.samples,
        data=_pipeline(f),
        evaluation=_evaluation(f),
        framework=profile.id,  # type: ignore[arg-type]  # a FrameworkName: the schema checked it
        plain_ddp=parallel.zero == 0 and _runs_ddp(f, language_model=is_language_model(model)),
        offload=tuple(dict.fromkeys(f.offload or ())),
        compile=profile.compile if f.compile is None else f.compile,
        overlap_grad_reduce=f.overlap_grad_reduce,
        grad_reduce_dtype=f.grad_reduce_dtype,
        param_transpose_cache=f.param_transpose_cache is not False,
        optimizer_in_backward=bool(f.optimizer_in_backward),
        paged_optimizer=bool(f.paged_optimizer),
        kbit_fp32_upcast=bool(f.kbit_fp32_upcast),
        loss=f.loss,
        quantized_linear=f.quantized_linear,
        defer_grad_sync=bool(f.defer_grad_sync),
        mixed_frozen_units=bool(f.mixed_frozen_units),
        momentum_encoder=bool(f.momentum_encoder),
        loss_parallel=f.loss_parallel is not False,
        tp_embedding=f.tp_embedding is not False,
        **_positions(f, model, seq),
        **_capacity(f),
    )


def _check_checkpoint_impl(f: WorkloadFields, recompute: str) -> None:
    """--checkpoint-impl names how full recomputation runs: it needs --recompute full (or none named: a plan picks it)."""
    if f.checkpoint_impl is not None and f.recompute is not None and f.recompute != "full":
        raise UsageError(
            f"--checkpoint-impl says how full recomputation is implemented; this run recomputes {recompute!r}: "
            "give --recompute full as well"
        )


def _masked_lm(f: WorkloadFields, model: ModelArch, task: str, seq: int) -> ModelArch:
    """An encoder trained on the masked-LM objective carries BERT's prediction head (the transform and
    the projection tied to the token embedding, in place of a classifier): pre-training does, a fine-tune
    when --mlm-positions names it."""
    n = f.mlm_positions
    if n is not None and not is_token_encoder(model):
        raise UsageError(
            f"--mlm-positions sizes an encoder's masked-LM head (BERT, RoBERTa); {model.name} is not an encoder "
            "over tokens: drop it"
        )
    if n is not None and n > seq:
        raise UsageError(f"--mlm-positions {n} is more than the {seq} positions of a sequence (--seq)")
    if n == 0 or (n is None and task != "pretrain") or not is_token_encoder(model):
        return model
    return with_masked_lm_head(model)


def _positions(f: WorkloadFields, model: ModelArch, seq: int) -> dict[str, Any]:
    """What the positions of a sequence hold: the masked ones a masked-LM head scores, and the mean
    length of the documents packed into it."""
    return {"mlm_positions": f.mlm_positions or None, "packed_doc_tokens": _packed_docs(f, model, seq)}


def _packed_docs(f: WorkloadFields, model: ModelArch, seq: int) -> int | None:
    """The mean document length of sequences packed with attention kept inside each document: a
    language model's tokens only, and no longer than the sequence that holds them."""
    n = f.packed_doc_tokens
    if n is None:
        return None
    if not is_language_model(model):
        raise UsageError(
            f"--packed-doc-tokens packs documents of tokens into a language model's sequences; {model.name} does "
            "not read tokens: drop it"
        )
    if n > seq:
        raise UsageError(
            f"--packed-doc-tokens {n} is longer than the {seq}-token sequence (--seq) that holds the documents: "
            "a longer document is cut at the sequence, so give at most --seq"
        )
    return n


def _micro_batch(f: WorkloadFields) -> int:
    """The micro-batch, checked against the global batch; a run's length is tokens or samples, not both."""
    micro = f.micro_batch or 1
    if f.global_batch is not None and f.global_batch < micro:
        raise UsageError(f"--global-batch ({f.global_batch}) is smaller than --micro-batch ({micro})")
    if f.tokens is not None and f.samples is not None:
        raise UsageError("give --tokens or --samples, not both")
    return micro


def _check_moe_comm(f: WorkloadFields, parallel: Parallelism, recompute: str, profile: Framework) -> None:
    """The MoE dispatcher and expert-parallel overlap are Megatron Core's (frameworks.yaml expert_parallel);
    they act on expert parallelism only (a layout search may choose it; without it they change nothing).
    Megatron-Bridge refuses the overlap under full recomputation (comm_overlap.py: recompute_granularity
    must not be full) and Megatron Core without virtual stages in a pipeline (transformer_config.py)."""
    if f.moe_dispatcher in (None, "alltoall") and not f.overlap_ep_comm:
        return
    flag = "--overlap-ep-comm" if f.overlap_ep_comm else f"--moe-dispatcher {f.moe_dispatcher}"
    if not profile.expert_parallel:
        raise UsageError(f"{flag} is Megatron Core's ({profile.name} shards no experts)")
    if recompute == "full" and not full_recompute_allowed(bool(f.overlap_ep_comm)):
        raise UsageError("--overlap-ep-comm cannot run with full recomputation (Megatron-Bridge refuses it)")
    if interleaved_only(bool(f.overlap_ep_comm), parallel.pp) and parallel.vpp < 2:
        raise UsageError(
            f"--overlap-ep-comm with --pp {parallel.pp} needs virtual pipeline stages (--vpp 2 or more): Megatron Core "
            "overlaps expert-parallel communication only in the interleaved schedule (TransformerConfig asserts it)"
        )
    if f.moe_dispatcher == "hybridep" and f.pad_to_capacity:
        raise UsageError(
            "--moe-dispatcher hybridep with --pad-to-capacity: Megatron Core's flex dispatcher does not pad expert "
            "inputs to capacity (TransformerConfig refuses it)"
        )


def _capacity(f: WorkloadFields) -> dict[str, Any]:
    """MoE expert capacity: padding to it needs a factor (Megatron rejects one without the other)."""
    if f.pad_to_capacity and f.capacity_factor is None:
        raise UsageError("--pad-to-capacity pads each expert's input to its capacity: give --capacity-factor F as well")
    return {
        "capacity_factor": f.capacity_factor,
        "pad_to_capacity": bool(f.pad_to_capacity),
        "moe_dispatcher": f.moe_dispatcher or "alltoall",
        "overlap_ep_comm": bool(f.overlap_ep_comm),
    }


def _pipeline(f: WorkloadFields) -> DataPipeline | None:
    """--read-bandwidth 2GB/s --sample-bytes 120KB [--decode-ms 1.5 --loader-cores 32], per node."""
    if all(getattr(f, k) is None for k in PIPELINE_KEYS):
        return None
    if f.read_bandwidth is None or f.sample_bytes is None:
        raise UsageError(
            "a data pipeline needs --read-bandwidth (per node, e.g. 2GB/s) and --sample-bytes (e.g. 120KB)"
        )
    return DataPipeline(
        read_bandwidth=f.read_bandwidth,
        sample_bytes=f.sample_bytes,
        decode_seconds=(f.decode_ms or 0.0) / 1e3,
        cpu_cores=f.loader_cores or 1,
    )


def _check_kbit_layout(base: str | None, par: Parallelism, offloaded: tuple[str, ...]) -> None:
    """A quantized frozen base (bitsandbytes NF4 or LLM.int8, a GPTQ/AWQ int4 checkpoint) is loaded by
    Transformers and PEFT, whose stacks split no layer over GPUs: no tensor parallelism (a layer-wise
    device_map split stays, as --pp). Only bitsandbytes' 4-bit weights stored in a float dtype
    (bnb_4bit_quant_storage) flatten into FSDP's or ZeRO-3's shards
    (https://huggingface.co/docs/bitsandbytes/main/en/fsdp_qlora); FSDP refuses LLM.int8's integer parameters
    (https://github.com/huggingface/accelerate/issues/1415,
    https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1709) and LLaMA-Factory refuses ZeRO-3/FSDP
    for GPTQ/AWQ checkpoints (https://github.com/hiyouga/LlamaFactory/issues/6898), so those bases shard
    nothing of theirs."""
    if base is None:
        return
    if par.tp > 1:
        raise LayoutError(
            f"--tp {par.tp}: no training stack runs tensor parallelism over a quantized ({base}) base (Transformers/PEFT "
            "load it whole on each GPU; NeMo's QLoRA refuses it); did you mean --tp 1 (a layer-wise device_map split "
            "is --pp)?"
        )
    if integer_base(base) and "params" in offloaded:
        raise LayoutError(
            f"--offload params: ZeRO-3 and FSDP offload no {base} base (only bitsandbytes NF4 stored in a float dtype "
            "flattens into their shards); drop params from --offload (--offload optimizer, at ZeRO 1-2)"
        )
    if integer_base(base) and par.zero == 3:
        raise LayoutError(
            f"--zero 3: FSDP and ZeRO-3 shard no {base} base (only bitsandbytes NF4 stored in a float dtype flattens "
            "into their shards); did you mean --zero 2 (DeepSpeed: the adapters' states sharded) or --zero 0?"
        )


def _training_weights(
    f: WorkloadFields, method: str, precision: Precision, task: str, model: ModelArch
) -> WeightsDtype:
    """The weights' dtype of a training run (--weights-dtype, else the method's and precision's
    default), refused where the method contradicts the task, the model or that dtype."""
    if method != "full" and task == "pretrain":
        raise UsageError("LoRA/QLoRA adapt a pretrained model: use --task finetune (or --method full to pretrain)")
    if method != "full" and not isinstance(model, TransformerArch):
        raise UsageError(f"--method {method} needs a transformer; {model.name} is described by totals only")
    if f.mixed_frozen_units and method != "lora":
        raise UsageError("--mixed-frozen-units gives frozen weights beside LoRA adapters gradients: use --method lora")
    default_w = "nf4" if method == "qlora" else (precision if precision in ("fp32", "fp16", "bf16") else "bf16")
    if method == "full" and precision == "tf32":
        default_w = "fp32"
    wd = f.weights_dtype or default_w
    if method == "qlora" and wd not in QLORA_BASES:
        raise UsageError(
            f"QLoRA-style adapters train on a 4-bit frozen base: nf4 (bitsandbytes, the QLoRA paper) or int4 "
            f"(a GPTQ or AWQ checkpoint); --weights-dtype {wd} contradicts --method qlora"
        )
    if method == "full" and wd == "fp8" and precision != "fp8":
        raise UsageError(
            "full training keeps FP8 weights only as Transformer Engine FP8 parameters, which compute in FP8: "
            "give --precision fp8 (or a 16/32-bit --weights-dtype)"
        )
    if wd == "nvfp4":
        raise UsageError(
            "nvfp4 weights are a serving format (--task inference): training here keeps "
            "16/32-bit or fp8 weights, or a quantized frozen base (int8 under LoRA, nf4 or int4 under QLoRA)"
        )
    if method == "lora" and wd in ("int4", "nf4"):
        raise UsageError(f"adapters on a 4-bit ({wd}) base are QLoRA: did you mean --method qlora?")
    if method == "full" and wd in ("int8", "int4", "nf4"):
        raise UsageError(
            f"full training updates the weights and cannot keep them in {wd}; use --method qlora or a 16/32-bit dtype"
        )
    return wd


def _fp8_params_given(f: WorkloadFields) -> bool:
    """FP8 parameters asked for: --weights-dtype fp8 in full training."""
    return f.weights_dtype == "fp8" and (f.method or "full") == "full"


def _runs_ddp(f: WorkloadFields, *, language_model: bool) -> bool:
    """No stack named for a model that is not a language model, and no option that needs sharding (CPU
    offload, hybrid sharding, ZeRO++, FP8 parameters): its trainers run plain DistributedDataParallel."""
    sharded = f.offload or f.sharding is not None or f.zeropp or _fp8_params_given(f)
    return f.framework is None and not language_model and not sharded


def _default_zero(f: WorkloadFields, profile: Framework | None, base: str | None, *, language_model: bool) -> int:
    """The stack's sharding, or what an option needs: Megatron Core's distributed optimizer (ZeRO-1) for
    FP8 parameters, for a DeepSpeed-engine stack's CPU offload ZeRO-2 (ZeRO-Offload) or, with the
    parameters offloaded, ZeRO-3 (offload_param). A model that is not a language model, with no stack
    named, runs plain DistributedDataParallel (ZeRO-0): what torchvision's, timm's and
    DeepLearningExamples' trainers and TorchRec's dense part run; an option that needs sharding (CPU
    offload, hybrid sharding, ZeRO++, FP8 parameters) keeps the stack's. An int8 or GPTQ/AWQ int4 base,
    which FSDP does not wrap (`_check_kbit_layout`), runs a stack whose default is FSDP under plain DDP."""
    if profile is None or _runs_ddp(f, language_model=language_model):
        return 0
    if _fp8_params_given(f) and profile.fp8_params:
        return 1
    if profile.zero_offload and profile.default_zero == 0 and {"optimizer", "params"} & set(f.offload or ()):
        return 3 if "params" in (f.offload or ()) else 2  # DeepSpeed's offload_param: ZeRO-3 only
    if profile.default_zero == 3 and integer_base(base):
        return 0
    return profile.default_zero


def _check_fp8_params(f: WorkloadFields, wd: str, precision: str, profile: Framework) -> None:
    """FP8 parameters in full training (Transformer Engine's fp8_model_init, Megatron Core's
    --fp8-param-gather): the linears' weights live in FP8 and the update runs on the fp32 main copy
    the distributed optimizer keeps (Megatron asserts --use-distributed-optimizer for them), so they
    need FP8 compute, master weights, ZeRO-1 and a stack that has them. --no-param-transpose-cache is
    modelled with them only: without FP8 parameters each micro-batch's FP8 weight copy lives until its
    backward, which gpuwise does not count per micro-batch."""
    if f.param_transpose_cache is False and not _fp8_params_given(f):
        raise UsageError(
            "--no-param-transpose-cache is modelled with FP8 parameters only (--precision fp8 --weights-dtype fp8 "
            "on megatron or nemo): without them each micro-batch keeps its own FP8 weight copy for the backward"
        )
    if wd != "fp8" or (f.method or "full") != "full":
        return
    if not profile.fp8_params:
        raise UsageError(
            f"--weights-dtype fp8 in full training is Transformer Engine FP8 parameters (Megatron Core's "
            f"--fp8-param-gather); {profile.name} has none (frameworks.yaml fp8_params): use --framework megatron or nemo"
        )
    if f.master_weights is False:
        raise UsageError("FP8 parameters are updated through the fp32 main copy: drop --no-master-weights")
    if f.zero is not None and f.zero != 1:
        raise LayoutError(
            f"--zero {f.zero}: FP8 parameters (--fp8-param-gather) run with Megatron Core's distributed optimizer; "
            "did you mean --zero 1?"
        )


def _check_grad_reduce(f: WorkloadFields, precision: str, profile: Framework) -> None:
    """A 16-bit gradient reduce where the stack offers it (Megatron Core's --grad-reduce-in-bf16, PyTorch
    FSDP's MixedPrecision reduce_dtype); the option sets the gradient reduce of full mixed-precision
    training and nothing else."""
    if f.grad_reduce_dtype is None:
        return
    if (f.method or "full") == "full" and f.master_weights is False and f.grad_reduce_dtype == precision:
        return  # pure 16-bit training's gradients are 16-bit and reduce so: the option restates it
    if (f.method or "full") != "full" or f.master_weights is False or precision in ("fp32", "tf32"):
        raise UsageError(
            "--grad-reduce-dtype sets the gradient buffer of full mixed-precision training (16-bit or FP8 compute "
            "with fp32 main weights): drop it with adapters, --no-master-weights or fp32 compute"
        )
    if f.grad_reduce_dtype == "fp32":
        if profile.gradient_bytes[precision] != 4:
            raise UsageError(
                f"--grad-reduce-dtype fp32: {profile.name} keeps {profile.gradient_bytes[precision]:g} B gradients under "
                f"--precision {precision} (frameworks.yaml gradient_bytes), and gpuwise has no fp32 setting for it"
            )
        return
    if not profile.bf16_grad_reduce:
        raise UsageError(
            f"--grad-reduce-dtype bf16: {profile.name} has no bf16 gradient reduce setting here "
            "(frameworks.yaml bf16_grad_reduce): use --framework megatron, nemo or fsdp"
        )
    zero = f.zero if f.zero is not None else profile.default_zero
    if profile.fp32_params and zero == 0:
        raise UsageError(
            "--grad-reduce-dtype bf16 is FSDP's reduce_dtype; plain data parallelism (--zero 0, DDP) all-reduces "
            "gradients in their own dtype (a bf16 all-reduce is a communication hook gpuwise does not model)"
        )


def _evaluation(f: WorkloadFields) -> tuple[int, int] | None:
    """(steps between evaluations, forward micro-batches per evaluation), or None: both or neither."""
    if f.eval_every is None and f.eval_batches is None:
        return None
    if f.eval_every is None or f.eval_batches is None:
        given, missing = (
            ("--eval-every", "--eval-batches") if f.eval_batches is None else ("--eval-batches", "--eval-every")
        )
        raise UsageError(f"{given} needs {missing}: an evaluation is counted as how often and how many forward batches")
    return f.eval_every, f.eval_batches


def _fixed_length(given: int | None, flag: str, model: ModelArch) -> int | None:
    """`given` (the sequence the user named, or None), refused where the model's sequence is fixed
    (a ViT: its patches and [CLS]): every path times it at that sequence, so another length would be
    said in the output and used by only part of it (the inference memory model)."""
    if given is None or not isinstance(model, TransformerArch) or model.fixed_seq in (None, given):
        return given
    what = " (an image's patches and [CLS])" if model.patch_inputs else ""
    raise UsageError(
        f"{model.name} takes a fixed sequence of {model.fixed_seq} tokens{what}; {flag} {given} cannot change it: "
        f"drop {flag} (the default is {model.fixed_seq})"
    )


def _default_seq(model: Any) -> int:
    if isinstance(model, TransformerArch):
        return model.fixed_seq or min(model.max_seq, DEFAULT_TRAIN_SEQ)
    return 1


def _default_input(model: Any) -> int:
    if isinstance(model, TransformerArch):
        return model.fixed_seq or min(model.max_seq, DEFAULT_INPUT_TOKENS)
    return 1


def _targets(raw: list[str] | None, model: ModelArch) -> tuple[str, ...]:
    assert isinstance(model, TransformerArch)  # LoRA on a totals-only model is refused before this
    linears = [lin.name for _, d in model.block_kinds() for lin in model.linears(d)]
    own = tuple(dict.fromkeys(n for n in linears if n not in ("router", "shared_expert_gate")))
    if raw is None:
        if set(DEFAULT_LORA_TARGETS) <= set(own):
            return DEFAULT_LORA_TARGETS
        raise UsageError(  # PEFT's q_proj/v_proj default would adapt nothing (multi-head latent attention)
            f"{model.name} has no {'/'.join(DEFAULT_LORA_TARGETS)}: name the LoRA targets with --lora-targets "
            f"(its linears: {', '.join(own)}) or 'all-linear'"
        )
    names = tuple(raw)
    if names in (("all-linear",), ("all",)):
        return own
    if not model.gated_ffn and "gate_proj" in names:
        raise UsageError(f"--lora-targets: {model.name} has no gate_proj (its MLP is not gated)")
    valid = set(own) | ({"lm_head"} if model.lm_head else set())
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise UsageError(f"--lora-targets: unknown module(s) {bad}; use names from {sorted(valid)} or 'all-linear'")
    return names


def _check_model_layout(model: Any, par: Parallelism, pipeline_max_zero: int = 1) -> None:
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
    if par.ep > 1 and (not model.is_moe or model.experts % par.ep):
        raise LayoutError(
            f"--ep {par.ep} splits MoE experts: {model.name} has {model.experts if model.is_moe else 'no'} experts"
            + (f", which {par.ep} does not divide" if model.is_moe else "")
        )
    etp = par.expert_tp
    if par.etp is not None and par.etp > 1 and (not model.is_moe or model.ffn % etp):
        raise LayoutError(
            f"--etp {etp} splits each MoE expert's matrices: "
            + (f"it must divide the expert FFN width {model.ffn}" if model.is_moe else f"{model.name} has no experts")
        )
    if not interleavable(model.layers, par.pp, par.vpp):
        raise LayoutError(
            f"--vpp {par.vpp} interleaves pipeline stages: pp x vpp = {par.pp * par.vpp} chunks need at least "
            f"{par.pp * par.vpp - PIPELINE_EDGE_CHUNKS} layers, the first and last chunks holding only the embedding "
            f"and the output layer ({model.name} has {model.layers})"
        )
    if par.zero > pipeline_max_zero and par.pp > 1:
        raise LayoutError(
            f"ZeRO stage {par.zero} cannot be combined with pipeline parallelism (--pp {par.pp}); DeepSpeed and "
            f"Megatron allow ZeRO-1 (the distributed optimizer) with pipelines, torchtitan FSDP (--framework torchtitan)"
        )


def build_hardware(
    spec: str,
    catalog: Catalog,
    gpus_per_node: int | None = None,
    network: str | None = None,
    default_count: int = 1,
    power_cap: float | None = None,
) -> Hardware:
    """'h100-sxm:8' -> 8 H100 SXM in total (SkyPilot convention), grouped per node.

    Without ':N' the count is `default_count` (the workload's tp x pp, so `--tp 2 --gpu h100-sxm` works).
    A board of several devices counts boards: 'mi250x:4' (and `gpus_per_node` 4) is 8 mi250x-gcd."""
    hw = validate(
        HardwareFields, {"gpu": spec, "gpus_per_node": gpus_per_node, "network": network, "power_cap": power_cap}
    )
    name, _, count_text = str(hw.gpu).partition(":")
    count_text = count_text.strip()
    # a multi-die board (mi250x) is planned as the devices software sees: N boards = N x k devices
    gpu, per_board = catalog.device(name)
    # ASCII digits only: int() would also read '1_6' and other scripts' digits ('١٦') as 16
    if count_text and not (count_text.isascii() and count_text.isdigit()):
        raise UsageError(f"--gpu {spec!r}: the count after ':' must be a whole number (e.g. h100-sxm:8)")
    boards = int(count_text) if count_text else -(-default_count // per_board)  # whole boards
    count = boards * per_board
    if not 1 <= count <= MAX_DEGREE:
        raise UsageError(f"--gpu {spec!r}: the GPU count must be between 1 and {MAX_DEGREE}")
    given_per_node = None if hw.gpus_per_node is None else hw.gpus_per_node * per_board
    per_node = given_per_node or min(count, gpu.node_gpus)
    if count > per_node and count % per_node:
        raise LayoutError(
            f"{count} GPUs do not fill nodes of {per_node}: use a multiple of {per_node} or set --gpus-per-node"
        )
    network = None if hw.network is None else parse_network(hw.network, catalog).given
    cap = hw.power_cap
    if cap is not None and cap < gpu.tdp_watts * MIN_POWER_CAP_SHARE:
        raise UsageError(
            f"--power-cap {cap:g} W is under {MIN_POWER_CAP_SHARE:.0%} of the {gpu.tdp_watts:g} W TDP of {gpu.name}; "
            "drivers refuse limits that low (nvidia-smi -q shows the Min Power Limit)"
        )
    return Hardware(gpu=gpu, count=count, gpus_per_node=min(per_node, count), network=network, power_cap=cap)


def check_layout(work: Workload, hw: Hardware) -> None:
    """Rules that need both the workload and the hardware."""
    par = work.parallel
    if hw.count % par.model_parallel:
        raise LayoutError(
            f"{hw.count} GPUs cannot hold tp={par.tp} x pp={par.pp}{f' x cp={par.cp}' if par.cp > 1 else ''} = {par.model_parallel}-way model parallelism evenly; use a multiple of {par.model_parallel} GPUs"
        )
    _check_expert_layout(par, hw)
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


def _check_expert_layout(par: Parallelism, hw: Hardware) -> None:
    """Megatron Core folds the tp x cp x dp ranks of a pipeline stage into etp x ep x expert-dp
    (parallel_state.initialize_model_parallel), so ep x etp must divide them."""
    if par.ep <= 1 and par.etp is None:
        return
    ranks = hw.count // par.pp
    grid = par.ep * par.expert_tp
    if ranks % grid:
        raise LayoutError(
            f"--ep {par.ep} x --etp {par.expert_tp} = {grid} must divide the tp x cp x dp = {ranks} ranks of a "
            "pipeline stage (Megatron splits them into etp x ep x expert-data-parallel groups)"
        )


def data_parallel(work: Workload, hw: Hardware) -> int:
    return max(1, hw.count // work.parallel.model_parallel)
