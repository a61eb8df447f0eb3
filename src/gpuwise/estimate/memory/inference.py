"""Serving memory: weights (quantized or not), resident LoRA adapters, the KV cache and the
prefill workspace."""

from __future__ import annotations

import math

from gpuwise.catalog import GPU, Catalog, GenericArch, TransformerArch
from gpuwise.catalog.arch import DESCRIBED_ELEMENT_BYTES
from gpuwise.catalog.schema import EngineProfile, MemoryReserve
from gpuwise.estimate.compute import kv_cache_width_per_gpu, kv_width_per_gpu
from gpuwise.estimate.memory.breakdown import MemoryBreakdown, MemoryEstimate, Notes, overheads
from gpuwise.estimate.memory.generate import generate_peak
from gpuwise.estimate.memory.states import StageParams, matmul_weight_params, quantized_linear_bytes, stage_params
from gpuwise.workload.specs import DTYPE_BYTES, Hardware, InferenceJob, stage_layers, unquantized


def kv_cache_bytes(model: TransformerArch, tokens: int, batch: int, kv_bytes: float, tp: int = 1, pp: int = 1) -> float:
    """2 * layers * kv_heads * head_dim * tokens * batch * bytes, on one GPU; for multi-head latent
    attention layers * (kv_lora_rank + qk_rope_head_dim) * tokens * batch * bytes.

    KV heads split over tensor-parallel ranks (replicated when tp > kv_heads; MLA's latent on every
    rank); sliding-window (and chunked-attention) layers hold at most `window` tokens.
    """
    if not model.decoder:
        return 0.0
    width = kv_cache_width_per_gpu(model, tp)
    layers = math.ceil(model.layers / pp)
    windowed = min(layers, math.ceil(model.sliding_window_layers / pp)) if model.sliding_window else 0
    full_tokens = (layers - windowed) * tokens
    win_tokens = windowed * min(tokens, model.sliding_window or tokens)
    return width * (full_tokens + win_tokens) * batch * kv_bytes


def inference_memory(job: InferenceJob, hw: Hardware, catalog: Catalog) -> MemoryEstimate:
    """One GPU's serving memory; under attention data parallelism one rank's: attention and the
    dense layers whole, 1/ep of the experts, the KV cache of its own share of the requests."""
    n = Notes(catalog)
    sharded = job.parallel.model_parallel > 1 or job.parallel.ep > 1  # NCCL communicators exist
    replica = job  # the engine sizes its memory share for the whole replica
    if job.attention_ranks > 1:
        n.add(
            f"attention data parallelism over {job.attention_ranks} ranks: each holds attention and the dense "
            f"layers whole, 1/{job.parallel.ep} of the experts and the KV cache of its own "
            f"{math.ceil(job.concurrency / job.attention_ranks)} request(s) (TensorRT-LLM enable_attention_dp)"
        )
        job = job.attention_rank()
    model = job.model
    par = job.parallel
    stage = "first" if par.pp > 1 else "only"
    # a whole stage's layers with the embedding: the heaviest stage at most (the engine's KV room is
    # that of the stage with the most layers; kv_cache_bytes counts as many)
    whole = stage_layers(model.layers, par.pp, "middle") if isinstance(model, TransformerArch) else None
    sp_ = stage_params(model, par.tp, par.pp, stage, hw.count, par.ep, par.etp, layers=whole)
    wd = job.weights_dtype
    keep16 = unquantized(wd)  # a quantized checkpoint's other weights: 16-bit
    loaded = wd == "nf4" and job.bnb_4bit == "load-in-4bit"  # transformers' load_in_4bit defaults
    weights = quantized_linear_bytes(wd, sp_.block_linear, n, not loaded) + sp_.other * DTYPE_BYTES[keep16]
    if keep16 != wd:
        n.add(f"{wd} weights: block linears quantized; embeddings, norms and LM head stay 16-bit")
    if loaded:
        n.add(
            "bitsandbytes 4-bit loaded with load_in_4bit=True as transformers leaves it: FP4 codes with one fp32 "
            "absmax per 64 weights (no double quantization), compute dtype fp32 "
            f"[{n.cat.sources['transformers-bnb-config'].title.split(':')[0]}]"
        )
    detail: dict[str, float] = {}
    if job.autocast_dtype is not None:
        detail["autocast_weight_cache"] = autocast_weight_cache(job, sp_, n)
        weights += detail["autocast_weight_cache"]
    kv = 0.0
    if isinstance(model, TransformerArch) and job.lora_adapters:
        detail["lora_adapters"] = lora_adapter_bytes(model, job, DTYPE_BYTES[keep16])
        weights += detail["lora_adapters"]
        n.add(
            f"{job.lora_adapters} LoRA adapter slot(s) at rank {job.lora_adapter_rank} in {keep16} on every linear "
            "of every layer (vLLM preallocates A and B per wrapped layer for --max-loras at --max-lora-rank)"
        )
    if isinstance(model, TransformerArch):
        kv = kv_cache_bytes(model, job.context_tokens, job.concurrency, DTYPE_BYTES[job.kv_dtype], par.tp, par.pp)
        if model.decoder:
            n.add(f"KV cache for {job.concurrency} request(s) x {job.context_tokens} tokens in {job.kv_dtype}")
            if model.sliding_window:
                n.add(
                    f"sliding window of {model.sliding_window} tokens on {model.sliding_window_layers} of {model.layers} layers caps their KV cache"
                )
        profile = catalog.engine(job.engine) if job.engine in catalog.engines else None
        if profile is not None and profile.static_batching and model.decoder:
            kv, acts = _generate_memory(model, job, profile, n)
        else:
            acts = inference_workspace(model, job, n)
    else:
        acts = _described_working_set(model, job, n)
    detail["prefill_workspace"] = acts
    allocated = weights + kv + acts
    over = overheads(allocated, hw, sharded, n, fitted_slack=False)  # no serving peak fits the slack
    detail.update(over)
    bd = MemoryBreakdown(weights=weights, activations=acts, kv_cache=kv, overhead=sum(over.values()), detail=detail)
    reserved = _engine_reserved(job, bd, hw, n, replica)
    return MemoryEstimate(
        per_gpu=bd, capacity=hw.gpu.capacity_bytes, assumptions=tuple(n.items), engine_reserved=reserved
    )


def _described_working_set(model: GenericArch, job: InferenceJob, n: Notes) -> float:
    """A model described operator by operator: its largest working set per sample, for every request
    of the batch, at the activations' element size (and which diffusers release's, where eager
    attention's matrices depend on it)."""
    from gpuwise.catalog.diffusion_pipeline import is_whole_pipeline  # operator models only
    from gpuwise.catalog.unet_operators import EagerCode, diffusers_release

    scale = activation_element_bytes(job, n) / DESCRIBED_ELEMENT_BYTES
    live = model.forward_peak_bytes_per_sample
    acts = (live if live is not None else model.activation_bytes_per_sample or 0.0) * job.concurrency * scale
    if job.diffusers_version is not None:
        held = EagerCode(release=diffusers_release(job.diffusers_version)).input_held
        n.add(
            f"diffusers {job.diffusers_version}: "
            + (
                "get_attention_scores keeps baddbmm's input alive through the softmax, three score matrices "
                "per attention at once (0.13 to 0.16)"
                if held
                else "baddbmm's input is freed when it returns, two score matrices per attention at once"
            )
        )
    if is_whole_pipeline(model):
        n.add(
            f"{model.name}: forward working set of the pipeline's largest part per image (the VAE decoder's at full "
            "resolution, activations and workspace)"
        )
    elif live is not None:
        n.add(
            f"{model.name}: forward working set of the largest kernel per sample (its input and output, the input "
            "a residual block holds until its add, the model's input; no autograd graph holds the rest)"
        )
    else:
        n.add(f"{model.name}: forward working set bounded by the training activation size per sample")
    return acts


def autocast_weight_cache(job: InferenceJob, sp_: StageParams, n: Notes) -> float:
    """PyTorch AMP inference over fp32 weights: torch.autocast keeps the 16-bit cast of every fp32 leaf tensor
    that requires grad in its cache until the autocast block exits, whatever the grad mode (a model put in
    eval mode keeps requires_grad), so a forward ends holding a 16-bit copy of every convolution and matmul
    weight beside the fp32 parameters (embeddings are looked up, not cast)."""
    model = job.model
    cast = (
        matmul_weight_params(model, sp_, job.parallel.tp) if isinstance(model, TransformerArch) else model.dense_params
    )
    n.add(
        f"torch.autocast's weight cache: a {job.autocast_dtype} copy of every convolution and matmul weight held "
        "beside the fp32 parameters until the autocast block exits [PyTorch aten/src/ATen/autocast_mode.cpp "
        "cached_cast: fp32 leaves with requires_grad]"
    )
    return cast * DTYPE_BYTES[str(job.autocast_dtype)]


def activation_element_bytes(job: InferenceJob, n: Notes) -> int:
    """Bytes of an activation in serving: 16 bits, or fp32 where the weights are fp32 and no
    torch.autocast computes them at 16 bits (InferenceJob.autocast_dtype: the operator timer runs them at 4)."""
    if job.weights_dtype != "fp32" or job.autocast_dtype is not None:
        return DESCRIBED_ELEMENT_BYTES
    n.add("fp32 weights: activations in fp32, 4 bytes a value")
    return int(DTYPE_BYTES["fp32"])


def engine_profile(catalog: Catalog, job: InferenceJob) -> EngineProfile:
    """The job's engine as it runs the job's model: prompts chunked where the engine turns chunked prefill
    on for long contexts (vLLM 0.5 above 32K positions), with the user's settings (--max-seqs,
    --max-batch-tokens) in place of its own, else its profile as the catalog gives it: the whole engine's,
    as its memory share is computed from them (a rank's share of split settings: estimate.engine.engine_limits)."""
    profile, model = catalog.engine(job.engine), job.model
    if not isinstance(model, TransformerArch):
        return profile
    profile = profile.for_model(model)
    return profile.with_settings(job.max_seqs, job.max_batch_tokens)


def memory_fraction(profile: EngineProfile, catalog: Catalog, gpu: GPU, job: InferenceJob) -> float:
    """The engine's memory share on `gpu` for the whole replica's `job`, as it runs: the share it is given
    (engine_share), which SGLang on AMD scales by aiter's 0.85 for long-context models, given or its own."""
    frac = engine_share(profile, catalog, gpu, job)
    rule = profile.memory_reserve
    return frac * rule.amd_scale if rule is not None and amd_scaled(rule, gpu, job) else frac


def engine_share(profile: EngineProfile, catalog: Catalog, gpu: GPU, job: InferenceJob) -> float:
    """The share the engine is given (what a deployment writes): the user's (--memory-fraction) for the
    job's own engine, on its basis; else computed from the device where the engine does (SGLang 0.5,
    `reserved_fraction`), else its fixed default; vLLM's is the serving_memory_utilization convention that
    gpuwise deploy passes as --gpu-memory-utilization, so a plan never needs more than the pod gets."""
    if job.memory_fraction is not None and profile.name == catalog.engine(job.engine).name:
        return job.memory_fraction
    if (rule := profile.memory_reserve) is not None:
        return reserved_fraction(rule, profile.budget(gpu.capacity_bytes)[0], gpu.capacity_bytes, job)
    if profile.memory_fraction is not None:
        return profile.memory_fraction
    return catalog.convention("serving_memory_utilization")


def amd_scaled(rule: MemoryReserve, gpu: GPU, job: InferenceJob) -> bool:
    """Whether SGLang's share is scaled on this GPU: an AMD GPU, whose default attention backend for models
    without latent attention (aiter) takes `amd_scale` of it for models of more than its positions."""
    model = job.model
    long = isinstance(model, TransformerArch) and not model.mla and model.max_seq > rule.amd_scale_above_positions
    return gpu.vendor == "amd" and long


def reserved_fraction(rule: MemoryReserve, chunk: int, capacity: float, job: InferenceJob) -> float:
    """SGLang 0.5's mem_fraction_static: the device less `reserved_mib`, in MiB of the device as the
    engine reads it, to three places (engines.yaml sglang-mem-fraction-056)."""
    mib = capacity / 2**20
    return round((mib - reserved_mib(rule, chunk, capacity, job)[0]) / mib, 3)


def reserved_mib(rule: MemoryReserve, chunk: int, capacity: float, job: InferenceJob) -> tuple[float, int]:
    """(MiB, the largest CUDA-graph batch): what SGLang 0.5 keeps out of its static share on a device of
    `capacity` bytes for prefill chunks of `chunk` tokens, its CUDA graphs, the ranks' communicators and
    attention data parallelism's padding."""
    par = job.parallel
    graphs = rule.graph_max_batch(capacity, par.tp)
    reserve = rule.base_mib + rule.per_prefill_token_mib * max(chunk, rule.min_prefill_tokens)
    reserve += rule.per_graph_request_mib * graphs + rule.per_rank_mib * par.tp * par.pp
    if job.attention_ranks > 1:
        dp = rule.per_dp_request_mib + (rule.per_dp_request_large_mib if graphs > rule.large_graph_batch else 0)
        reserve += dp * graphs * job.attention_ranks
    if capacity > rule.floor_above_bytes:
        reserve = max(reserve, rule.floor_mib)
    return reserve, graphs  # gpuwise's speculation is n-gram lookup: SGLang reserves nothing for NGRAM


def kv_pool_bytes(profile: EngineProfile, frac: float, capacity: float, fixed: float) -> float:
    """The KV block pool an engine allocates beside `fixed` bytes (weights, workspace, context) from
    its share `frac`: of the device less `fixed` (vLLM, SGLang), or of what `fixed` leaves."""
    if profile.memory_basis == "total":
        return frac * capacity - fixed
    return frac * max(0.0, capacity - fixed)


def _engine_reserved(
    job: InferenceJob, bd: MemoryBreakdown, hw: Hardware, n: Notes, replica: InferenceJob
) -> float | None:
    """What a serving engine holds on each GPU from its start, whatever its load: it sizes its KV
    block pool once, from its memory share, and keeps it (vLLM and SGLang a share of the device
    with the weights, workspace and CUDA context inside it; TensorRT-LLM, LMDeploy and TGI a share
    of what is free after them). nvidia-smi shows this, not the load's need. None for a generate
    loop (its cache grows with the tokens) and for models without a KV cache."""
    model = job.model
    if not (isinstance(model, TransformerArch) and model.decoder) or job.engine not in n.cat.engines:
        return None
    profile = engine_profile(n.cat, job)
    if profile.static_batching:
        return None
    fixed = bd.total - bd.kv_cache
    frac = memory_fraction(profile, n.cat, hw.gpu, replica)
    reserved = fixed + kv_pool_bytes(profile, frac, hw.gpu.capacity_bytes, fixed)
    if reserved <= bd.total:
        return None
    if not job.engine_named:
        n.add(
            f"no engine named: the memory figures are this load's need under any runtime; {profile.name} (the "
            f"default of the time figures) would hold {reserved / 2**30:.1f} GiB per GPU from its start, its KV "
            "block pool included (name it with --engine to count that)"
        )
        return None
    n.add(
        f"{profile.name} allocates its KV block pool at start: "
        + (f"{frac:.1%}" if profile.memory_reserve else f"{frac:.0%}")
        + " of "
        + ("the device" if profile.memory_basis == "total" else "what the weights leave")
        + f", {reserved / 2**30:.1f} GiB per GPU whatever the load (memory.as_reported.device_used, what "
        "nvidia-smi shows; per_gpu.total is this load's need); CUDA graphs captured after it are not counted "
        f"[{n.cat.sources[profile.source].title.split(':')[0]}]"
    )
    return reserved


def _generate_memory(
    model: TransformerArch, job: InferenceJob, profile: EngineProfile, n: Notes
) -> tuple[float, float]:
    """(final KV cache, transient) of a generate loop: the transient is what its peak moment holds
    beyond the final cache (gpuwise.estimate.memory.generate)."""
    par, kvb = job.parallel, DTYPE_BYTES[job.kv_dtype]

    def kv_at(tokens: int) -> float:
        return kv_cache_bytes(model, tokens, job.concurrency, kvb, par.tp, par.pp)

    wd = job.weights_dtype
    dtype = wd if wd in ("fp16", "bf16", "fp32") else (job.kv_dtype if job.kv_dtype in ("fp16", "bf16") else "bf16")
    p = generate_peak(model, job, profile, kv_at, dtype)
    attention = job.attention or profile.attention
    n.add(
        f"{profile.name}: a contiguous KV cache grown by torch.cat"
        + (" (the previous step's whole cache held until the step returns)" if profile.kv_concat == "cache" else "")
        + f"; the batch prefilled at once with {attention} attention"
        + (" (the score matrix in 16-bit and fp32)" if attention == "eager" else " (no score matrix)")
        + f", fp32 logits for {'every prompt position' if profile.prefill_logits == 'all' else 'the last position'}"
        + f"; the peak is at {p.moment} [{n.cat.sources[profile.source].title.split(':')[0]}]"
    )
    return p.final_kv, max(0.0, p.peak - p.final_kv)


ROW_PARALLEL = ("o_proj", "down_proj")  # input split over TP ranks; the other linears split their output


def lora_adapter_bytes(model: TransformerArch, job: InferenceJob, dtype_bytes: float) -> float:
    """Bytes of the resident adapters on one GPU: per adapter slot, per linear of a stage's layers,
    A (rank x in) and B (out x rank) at the reserved rank, as vLLM's create_lora_weights allocates
    them (vllm/lora/layers.py): a column-parallel layer's A is whole and its B split over TP, a
    row-parallel layer the other way round; MoE experts each carry their own pair."""
    tp = job.parallel.tp
    per_layer = 0.0
    for n_blocks, dense in model.block_kinds():
        for lin in model.linears(dense):
            if lin.name in ("router", "shared_expert_gate"):
                continue
            row = lin.name in ROW_PARALLEL or lin.name == "shared_down_proj"
            per_layer += (
                n_blocks / model.layers * lin.count * (lin.d_in / (tp if row else 1) + lin.d_out / (1 if row else tp))
            )
    layers = math.ceil(model.layers / job.parallel.pp)
    return job.lora_adapters * job.lora_adapter_rank * per_layer * layers * dtype_bytes


def inference_workspace(model: TransformerArch, job: InferenceJob, n: Notes) -> float:
    """Transient tensors of one layer while prefilling one chunk, plus fp32 logits of the last tokens."""
    tp = job.parallel.tp
    tokens: float = job.concurrency * job.input_tokens
    if model.decoder:  # serving engines prefill in chunks; encoders run the whole batch at once
        tokens = min(tokens, job.max_batch_tokens or n.conv("prefill_chunk_tokens"))
    e = activation_element_bytes(job, n)
    per_token = e * (
        2 * model.hidden
        + model.q_dim / tp
        + kv_width_per_gpu(model, tp)
        + (3 if model.gated_ffn else 2) * model.mlp_width() / tp
    )
    logits = job.concurrency * model.vocab / tp * 4 if model.lm_head else 0.0
    n.add(
        "prefill with FlashAttention/paged attention: one layer's transient tensors for one chunk plus fp32 logits of the last tokens"
    )
    return tokens * per_token + logits
