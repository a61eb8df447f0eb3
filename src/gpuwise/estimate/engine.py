"""A serving engine as the simulator sees it: how much KV cache it has, how many tokens one step
may carry, and how long a step takes.

The engine profile (catalog engines.yaml: vLLM, SGLang, TensorRT-LLM) gives the memory share the
engine takes, its KV block size, its per-step token budget (chunked prefill) and its cap on
running requests. A step of continuous batching carries the decode tokens of every running
request plus chunks of waiting prompts; its time is the sum of named terms:

- `linear`: the GEMMs, elementwise work, LM head and tensor-parallel all-reduces over all the
  step's tokens (the weights are read once per step, whatever mix of prefill and decode it holds);
- `decode_attention`: reading each running request's KV cache (sliding-window layers read at most
  the window; GQA reads the KV heads only);
- `prefill_attention`: the chunks' attention over the keys before them.

The two attention terms are linear in the tokens attended, so a step costs one cached lookup of
the linear term and two multiplications: the simulator asks for thousands of steps.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

from gpuwise.catalog import GPU, Catalog, TransformerArch
from gpuwise.catalog.schema import EngineProfile
from gpuwise.errors import UsageError
from gpuwise.estimate.bitsandbytes import bnb_linears
from gpuwise.estimate.comm import Topology, collective, p2p
from gpuwise.estimate.compute import EXPERT_OPS, Op, Shape, head_ops, kv_cache_width_per_gpu, layer_ops
from gpuwise.estimate.memory.breakdown import MemoryEstimate
from gpuwise.estimate.memory.generate import eager_score_bytes
from gpuwise.estimate.memory.inference import (
    amd_scaled,
    engine_profile,
    inference_memory,
    kv_cache_bytes,
    kv_pool_bytes,
    memory_fraction,
    reserved_mib,
)
from gpuwise.estimate.memory.states import weight_bytes_per_param
from gpuwise.estimate.rates import Rates, default_launch, host_launch, launch_hint
from gpuwise.estimate.sharing import shared
from gpuwise.workload import Hardware, InferenceJob
from gpuwise.workload.specs import DTYPE_BYTES, ENGINE_SETTINGS, unquantized


@dataclass(frozen=True, slots=True)
class EngineSetup:
    """One replica's engine: its scheduler limits and KV cache, as the simulator uses them."""

    engine: str  # profile id (vllm, sglang, trtllm)
    name: str
    token_budget: int  # tokens per step (decodes plus prefill chunks)
    max_batch: int  # running requests at most: the engine's cap, the KV cache, the user's concurrency
    kv_tokens: int  # tokens of KV cache per replica
    block_tokens: int
    memory_fraction: float
    tokens_per_request: int  # KV tokens one request holds at its end, rounded up to blocks
    prefill_tokens: int  # prompt tokens each request prefills (after prefix-cache hits)
    decode_steps: int  # steps after the first token (fewer with speculative decoding)
    tokens_per_step: float  # tokens a request gains per decode step (1, or more with speculation)
    notes: tuple[str, ...]
    request_overhead: float = 0.0  # seconds a request spends outside the engine steps (front end)
    pipelines: int = 1  # pipeline parallelism: pp batches in flight, each with its share of the KV cache
    # prompts in steps of their own, onboarded by a router's waiting rule (EngineProfile), or chunked
    chunked_prefill: bool = True
    max_waiting_steps: int = 0
    waiting_served_ratio: float = 0.0
    prefill_first: bool = False  # prompts in steps of their own as soon as one waits (no waiting rule)
    static_batching: bool = False  # a generate loop: the batch prefills together, decodes to its longest
    all_logits: bool = False  # its prefill computes logits at every prompt position

    @property
    def router_waits(self) -> bool:
        """Prompts prefill apart behind a router's waiting rule (TGI before 3.0), which the load
        simulation does not follow (it runs them as soon as they wait)."""
        return not self.chunked_prefill and not self.prefill_first

    def as_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "token_budget": self.token_budget,
            "max_batch": self.max_batch,
            "kv_cache_tokens": self.kv_tokens,
            "kv_block_tokens": self.block_tokens,
            "memory_fraction": self.memory_fraction,
        }


def prefill_tokens(input_tokens: int, hit_rate: float) -> int:
    """Prompt tokens a request prefills: those the prefix cache does not hold, at least one."""
    return max(1, math.ceil(input_tokens * (1 - hit_rate)))


def blocks_held(context: int, block: int) -> int:
    """KV tokens a request of `context` tokens holds: whole blocks."""
    return math.ceil(context / block) * block


def decode_steps(output_tokens: int, per_step: float) -> int:
    """Engine steps after a request's first token, at `per_step` tokens a step (speculation: more than one)."""
    return math.ceil(max(output_tokens - 1, 0) / per_step)


def tokens_per_decode_step(job: InferenceJob) -> float:
    """Expected tokens a request gains per step with k proposals accepted each with probability a:
    (1 - a^(k+1)) / (1 - a) (Leviathan et al., 2023, eq. 1); 1 without speculative decoding."""
    k, a = job.speculative_tokens, job.speculative_acceptance
    if k <= 0:
        return 1.0
    return (1 - a ** (k + 1)) / (1 - a)


class ShareTooSmall(UsageError):
    """A given --memory-fraction leaves no room for one request's KV cache on this layout: the engine does not
    start (a plan tries the next tensor-parallel degree; an estimate is a usage error)."""


def engine_limits(profile: EngineProfile, replica: InferenceJob, gpu: GPU) -> tuple[int, int | None]:
    """(tokens a step carries, running requests at most in one pipeline batch) of one scheduler of the
    `replica` on `gpu`: the profile's; an engine that splits its settings over attention-data-parallel ranks
    (SGLang: chunked_prefill_size // dp and max_running_requests // dp, given or its own) gives each rank its
    share; where the user set the budget of an engine whose budget holds the decodes (vLLM, TensorRT-LLM), no
    more running requests than a step holds decode tokens (vLLM V1 caps max_num_seqs at it); an engine whose
    cap spans the pipeline (vLLM V1) shares it among the pp batches in flight."""
    model = replica.model
    assert isinstance(model, TransformerArch)
    budget, cap = profile.budget(gpu.capacity_bytes, gpu.id, model.max_seq)
    ranks, pp = replica.attention_ranks, replica.parallel.pp
    if ranks > 1 and profile.settings_split_over_dp:
        budget, cap = max(1, budget // ranks), (max(1, cap // ranks) if cap else cap)
    if replica.max_batch_tokens is not None and profile.decodes_in_budget != "no":
        held = max(1, budget // (replica.speculative_tokens + 1))
        cap = min(cap, held) if cap else held
    if cap and profile.cap_spans_pipeline and pp > 1:  # one cap over the batches in flight
        cap = max(1, cap // pp)
    return budget, cap


def engine_setup(
    job: InferenceJob,
    hw: Hardware,
    catalog: Catalog,
    alone: MemoryEstimate | None = None,
    notes: bool = True,
    launch: tuple[float, str] | None = None,
) -> EngineSetup:
    """KV capacity from the engine's memory share after weights, workspace and overheads; the
    batch the engine can run (its cap, the KV blocks of whole requests, the user's concurrency).
    `alone`: the job's memory at concurrency 1, when the caller has it already; `notes=False`: the
    numbers only (the serving search sizes every layout, and only the chosen one is explained);
    `launch`: the host's seconds a kernel and their basis (rates.host_launch) the notes name."""
    profile = engine_profile(catalog, job)
    model = job.model
    assert isinstance(model, TransformerArch)
    one = (alone or inference_memory(replace(job, concurrency=1), hw, catalog)).per_gpu
    lanes = job.attention_ranks  # attention data parallelism: each rank schedules its own requests
    cap = hw.gpu.capacity_bytes
    frac = memory_fraction(profile, catalog, hw.gpu, job)  # the whole replica's rule
    replica, job = job, job.attention_rank()
    par = job.parallel
    fixed = one.total - one.kv_cache  # weights, prefill workspace, CUDA context, fragmentation
    kv_bytes = kv_pool_bytes(profile, frac, cap, fixed)
    ctx = job.context_tokens
    per_request = kv_cache_bytes(model, ctx, 1, DTYPE_BYTES[job.kv_dtype], par.tp, par.pp)
    block = profile.kv_block_tokens
    rounded = blocks_held(ctx, block)
    per_token = per_request / ctx if ctx else 0.0
    kv_tokens = int(kv_bytes / per_token) if per_token > 0 and kv_bytes > 0 else 0
    budget, engine_cap = engine_limits(profile, replica, hw.gpu)
    pipes = job.parallel.pp  # each of the pp batches in flight gets its share of every stage's KV cache
    none_fits = kv_tokens // pipes < blocks_held(job.longest_context, block)  # lengths vary: the longest must fit
    if none_fits and job.memory_fraction is not None:
        raise ShareTooSmall(
            f"--memory-fraction {job.memory_fraction:g}: {profile.name}'s share leaves "
            f"{max(kv_bytes, 0) / 2**30:.1f} GiB for the KV cache after the weights, workspace and CUDA context "
            f"({fixed / 2**30:.1f} GiB a GPU on {hw.gpu.id}), not one request of {job.longest_context:,} tokens: the "
            "engine refuses to start (no memory for KV cache blocks); raise it, or split the model further (--tp)"
        )
    by_kv = kv_tokens // pipes // rounded if rounded else 0
    if none_fits:
        by_kv = 0
    limits = [by_kv] + ([engine_cap] if engine_cap else []) + ([job.concurrency] if job.concurrency > 1 else [])
    e = tokens_per_decode_step(job)
    return EngineSetup(
        engine=job.engine,
        name=profile.name,
        token_budget=budget,
        max_batch=max(0, min(limits)),
        kv_tokens=kv_tokens // pipes,
        block_tokens=block,
        memory_fraction=frac,
        tokens_per_request=rounded,
        prefill_tokens=prefill_tokens(job.input_tokens, job.prefix_hit_rate),
        decode_steps=decode_steps(job.output_tokens, e),
        tokens_per_step=e,
        notes=_setup_notes(replica, hw, catalog, (kv_tokens, by_kv), frac, launch) if notes else (),
        request_overhead=profile.request_overhead_seconds,
        pipelines=1 if static_batches(profile, job) else pipes * lanes,  # a batch's stages run one at a time
        chunked_prefill=profile.chunked_prefill,
        max_waiting_steps=profile.max_waiting_steps or 0,
        waiting_served_ratio=profile.waiting_served_ratio or 0.0,
        prefill_first=profile.prefill_first,
        static_batching=static_batches(profile, job),
        all_logits=profile.prefill_logits == "all",
    )


def _as_set(job: InferenceJob) -> str:
    """`; as set: --max-seqs N, ...` for the engine settings the user gave (nothing when none)."""
    given = ((key, getattr(job, key)) for key in ENGINE_SETTINGS)
    named = [f"--{key.replace('_', '-')} {value}" for key, value in given if value is not None]
    return f"; as set: {', '.join(named)}" if named else ""


def _share(profile: EngineProfile, replica: InferenceJob, hw: Hardware, catalog: Catalog, frac: float) -> str:
    """The engine's memory share in words: SGLang's computed from the device as the engine does (its
    mem_fraction_static when none is given, from the whole engine's chunk), else the fraction itself, with
    SGLang's AMD scaling named where it applies to a given one."""
    cap = hw.gpu.capacity_bytes
    plain = f"{frac:.0%} of {cap / 2**30:.0f} GiB"
    rule = profile.memory_reserve
    if rule is None:
        return plain
    on_amd = amd_scaled(rule, hw.gpu, replica)
    if replica.memory_fraction is not None:
        return plain + (
            f" (--memory-fraction {replica.memory_fraction:g} x {rule.amd_scale:g}: aiter on AMD)" if on_amd else ""
        )
    reserve, graphs = reserved_mib(rule, profile.budget(cap)[0], cap, replica)
    scaled = f", x {rule.amd_scale:g} (aiter on AMD)" if on_amd else ""
    return (
        f"{frac:.1%} of {cap / 2**30:.0f} GiB (mem_fraction_static: the device less {reserve:,.0f} MiB kept "
        f"for prefill chunks, CUDA graphs up to {graphs} requests and the ranks{scaled} "
        f"[{catalog.sources[profile.source_of('memory_reserve')].title.split(':')[0]}])"
    )


def _setup_notes(
    replica: InferenceJob,
    hw: Hardware,
    catalog: Catalog,
    kv: tuple[int, int],
    frac: float,
    launch: tuple[float, str] | None = None,
) -> tuple[str, ...]:
    """What `engine_setup` assumed for the `replica`, in words (`kv`: the tokens the KV cache holds, the
    replica's or, under attention data parallelism, one attention rank's, and the requests it holds in
    each pipeline batch; `frac`: the engine's memory share)."""
    lanes, job = replica.attention_ranks, replica.attention_rank()
    profile = engine_profile(catalog, replica)  # the replica's: a rank's share of split settings
    model = job.model
    assert isinstance(model, TransformerArch)
    kv_tokens, by_kv = kv
    block = profile.kv_block_tokens
    budget, engine_cap = engine_limits(profile, replica, hw.gpu)
    pipes = job.parallel.pp
    ctx = job.context_tokens
    e = tokens_per_decode_step(job)
    share = _share(profile, replica, hw, catalog, frac)
    notes = [
        f"{profile.name}: {share} "
        f"({'of device memory' if profile.memory_basis == 'total' else 'of the memory left after the weights'}) "
        f"for weights and KV cache, KV blocks of {block} tokens, {budget} tokens per step "
        + (
            "(chunked prefill)"
            if profile.chunked_prefill
            else "of prefill"
            if replica.max_batch_tokens is not None
            else "of prefill (max_num_batched_tokens: the model's context, at least)"
            if profile.budget_covers_context
            else "of prefill (chunked_prefill_size)"
            if profile.prefill_first
            else "of prefill (max_batch_prefill_tokens)"
        )
        + (f", at most {engine_cap} running requests" if engine_cap else "")
        + _as_set(replica)
        + f" [{catalog.sources[profile.source].title.split(':')[0]}]",
        f"KV cache holds {kv_tokens:,} tokens: {by_kv:,} requests of {ctx:,} tokens"
        + (f" in each of the {pipes} batches a {pipes}-stage pipeline keeps in flight" if pipes > 1 else "")
        + (
            f" on each of the {lanes} attention ranks, which schedule their own requests (token budget and "
            f"running-request cap per rank) and step together: every MoE layer dispatches each token to its "
            f"experts' ranks and combines the results (an all-to-all each way)"
            if lanes > 1
            else ""
        ),
    ]
    if replica.lengths_vary and not by_kv:
        notes.append(
            f"the longest request {replica.lengths_flag} draws ({replica.longest_context:,} tokens) "
            f"needs more KV cache than the {kv_tokens:,} tokens held: no run of these requests can be served"
        )
    if profile.static_batching:  # no memory share, blocks or token budget: a loop allocates as it goes
        notes = [f"{profile.name}: the memory left after the weights holds {by_kv:,} requests of {ctx:,} tokens"]
    notes.append(
        f"{profile.name} steps run GEMMs at {profile.matmul_efficiency:.0%} of the large-GEMM rate, plus "
        f"{profile.layer_overhead_seconds * 1e6:.3g} us per layer a step ({profile.layer_overhead_seconds * model.layers * 1e3:.3g} ms "
        f"over its {model.layers} layers) and {profile.request_overhead_seconds * 1e3:.3g} ms "
        f"per request: {profile.overheads_note} (docs/accuracy-serving.md)"
    )
    notes += _kernel_notes(job, hw, profile.static_batching)
    notes += _mechanism_notes(profile, job, hw, catalog, launch)
    if job.prefix_hit_rate:
        notes.append(f"prefix cache: {job.prefix_hit_rate:.0%} of prompt tokens are not prefilled again")
    if job.lora_adapters:
        notes.append(
            f"multi-LoRA: {job.lora_adapters} adapter(s) up to rank {job.lora_adapter_rank} resident (their memory "
            f"comes out of the KV cache); each step adds {profile.lora_step_overhead_seconds * 1e3:g} ms for the "
            f"adapters' matmuls [{catalog.sources[profile.source_of('lora_step_overhead_seconds')].title.split(':')[0]}]"
        )
    if job.speculative_tokens:
        notes.append(
            f"speculative decoding: {job.speculative_tokens} proposals at {job.speculative_acceptance:.0%} acceptance "
            f"= {e:.2f} tokens per step; the step verifies {job.speculative_tokens + 1} tokens per request "
            "(n-gram proposals: no draft model cost)"
        )
    return tuple(notes)


def _block_fp8_notes(profile: EngineProfile, job: InferenceJob, hw: Hardware, catalog: Catalog) -> list[str]:
    """The engine's floor for block-FP8 GEMM kernels, where it applies (the routed experts excepted where
    their fused-MoE call is timed on its own)."""
    model = job.model
    assert isinstance(model, TransformerArch)
    floor = block_fp8_floor(profile, job, hw.gpu.architecture)
    if not floor:
        return []
    fused = fused_moe_call(profile, model, hw.gpu.architecture)
    return [
        f"{profile.name} serves the block-scaled FP8 checkpoint (blocks of {model.fp8_weight_block}) with "
        f"block-FP8 GEMM kernels that take at least {floor * 1e6:.1f} us each at decode sizes, whatever the "
        f"rows (q_a and kv_a fused into one"
        + ("; the routed experts excepted: their fused-MoE call is timed on its own" if fused else "")
        + f") [{catalog.sources[profile.source_of('block_fp8_gemm_seconds')].title.split(':')[0]}]"
    ]


def _mechanism_notes(
    profile: EngineProfile, job: InferenceJob, hw: Hardware, catalog: Catalog, launch: tuple[float, str] | None
) -> list[str]:
    """The engine's kernel floors and batching rule that shape its step times, with their sources."""
    model = job.model
    assert isinstance(model, TransformerArch)
    notes: list[str] = []
    if profile.host_seconds_per_sequence:
        per, source = profile.host_seconds_per_sequence * 1e3, profile.source_of("host_seconds_per_sequence")
        said = f"[{catalog.sources[source].title.split(':')[0]}]"
        if host_work_overlapped(profile, job):
            pp = job.parallel.pp
            how = "with --async-scheduling" if job.async_scheduling else f"with {pp} pipeline batches in flight"
            notes.append(
                f"{profile.name} {how} does its host work for each sequence of a step ({per:.2g} ms) while the GPU "
                f"runs the step's GEMMs: a step is the longer of the two {said}"
            )
        else:
            notes.append(
                f"{profile.name} does host work for each sequence of a step while the GPU waits: each step takes "
                f"{per:.2g} ms longer per sequence it carries {said}"
            )
    notes += _block_fp8_notes(profile, job, hw, catalog)
    share = fp8_gemm_share(profile, job, hw.gpu)
    if share > FP8_BYTES_SHARE:
        notes.append(
            f"{profile.name}'s per-tensor FP8 GEMMs at decode sizes take {share:.2f} x the 16-bit GEMM's time on "
            f"{hw.gpu.name} (not {FP8_BYTES_SHARE:g}: their smaller weights stream at {FP8_BYTES_SHARE / share:.0%} "
            "of the 16-bit kernels' "
            f"rate) [{catalog.sources[profile.source_of('fp8_gemm_time_share')].title.split(':')[0]}]"
        )
    call = fused_moe_call(profile, model, hw.gpu.architecture)
    if call:
        notes.append(
            f"{profile.name} runs each MoE layer's routed experts in one fused Triton kernel that takes "
            f"{call * 1e6:.1f} us beyond streaming the experts' weights, at every step "
            f"[{catalog.sources[profile.source_of('fused_moe_call_seconds')].title.split(':')[0]}]"
        )
    if issued_eagerly(profile, job):
        per, basis = launch or default_launch(catalog)
        notes.append(
            f"{profile.name} issues every kernel of a step from Python, without CUDA graphs"
            + (" (--enforce-eager)" if profile.cuda_graphs else "")
            + ": a step takes at least "
            f"{eager_kernels(profile, model, job.parallel.tp)} host dispatches of "
            f"{per * 1e6:.0f} us{launch_hint(basis)} "
            f"[{catalog.sources[profile.source_of('eager_kernels_per_layer')].title.split(':')[0]}; {basis}]"
        )
    if profile.static_batching:
        notes.append(
            f"{profile.name} runs static batches: the whole batch prefills in one forward pass, then decodes "
            "until its longest request ends; no request joins a running batch; the cache is contiguous and "
            "grown by torch.cat, read and written whole at every step"
            f" [{catalog.sources[profile.source].title.split(':')[0]}]"
        )
    elif profile.prefill_first and job.batching != "static":
        notes.append(
            f"{profile.name} runs waiting prompts in prefill steps of their own, before the next decode step, "
            f"as soon as one waits (chunks of at most its token budget; mixed prefill and decode batches are off "
            f"by default): the running requests wait through each "
            f"[{catalog.sources[profile.source_of('prefill_first')].title.split(':')[0]}]"
        )
    elif not profile.chunked_prefill and job.batching != "static":
        notes.append(
            f"{profile.name} prefills new prompts in steps of their own while the running requests wait; its router "
            f"onboards waiting requests after {profile.max_waiting_steps} decode steps, or sooner when "
            f"{profile.waiting_served_ratio:g} x the running requests wait "
            f"[{catalog.sources[profile.source_of('max_waiting_steps')].title.split(':')[0]}]"
        )
    return notes


def _kernel_notes(job: InferenceJob, hw: Hardware, generate_loop: bool) -> list[str]:
    """What the quantized kernels are assumed to reach, and the evidence for it."""
    wd = job.weights_dtype
    if generate_loop and wd in ("int8", "nf4"):
        return [
            f"{wd} weights in a generate loop are bitsandbytes layers (gpuwise.estimate.bitsandbytes): "
            + (
                "LLM.int8() launches about 42 kernels a linear call where 16-bit launches one, each issued "
                "from Python (bitsandbytes 0.32-0.44 MatMul8bitLt)"
                if wd == "int8"
                else "one token runs the 4-bit GEMV kernel on the packed weights; more tokens dequantize every "
                "weight and multiply it in 16 bits (fp32 for load-in-4bit) (bitsandbytes 0.41 matmul_4bit)"
            )
        ]
    if wd in ("int4", "nf4"):
        note = (
            f"{wd} weights: weight-only kernels read the packed weights at the bandwidth roofline and multiply in "
            "16-bit (Marlin, Frantar et al. 2024: close to the ideal 4x over FP16 up to 16-32 tokens per step on "
            "Ampere/Ada, https://github.com/IST-DASLab/marlin)"
        )
        if hw.gpu.architecture not in ("ampere", "ada"):
            note += f"; Marlin is not tuned for {hw.gpu.architecture}, where the 4x may not hold"
        return [note]
    if wd in ("fp8", "int8"):
        return [
            f"{wd} weights: {wd} tensor cores where the GPU has them (checked against TensorRT-LLM's FP8 "
            "throughput tables, corpus/data/published_serving.yaml)"
        ]
    if wd == "nvfp4":
        if "fp4" in hw.gpu.peak_flops:
            return [
                "nvfp4 weights: W4A4 GEMMs on the FP4 tensor cores (the activations quantized to NVFP4 on the fly, "
                "the engines' Blackwell kernels), at the GPU's matmul efficiency of its other dtypes: "
                "no FP4 GEMM measurement in the catalog"
            ]
        return [
            f"nvfp4 weights on {hw.gpu.name}, which has no FP4 tensor cores: weight-only kernels read the packed "
            "weights and multiply in 16-bit (the engine's FP4 Marlin kernel), as int4"
        ]
    return []


def _time(ops: list[Op], rates: Rates, times: float = 1.0) -> dict[str, float]:
    out: dict[str, float] = {}
    for op in ops:
        t, side = rates.bound(op.flops, op.bytes, op.kind)
        out[side] = out.get(side, 0.0) + times * t
    return out


def moe_dispatch(model: TransformerArch, tokens: int, ep: int, topo: Topology) -> float:
    """Seconds of one attention rank's expert-parallel traffic in a serving forward pass: in every
    MoE layer its `tokens` go to the ranks of their top-k experts and come back weighted (dispatch
    and combine, an all-to-all each way over the ep ranks, 16-bit hidden states: DeepSeek-V3
    technical report, section 3.4; TensorRT-LLM's and SGLang's expert-parallel MoE), within a node."""
    if ep <= 1 or not model.is_moe:
        return 0.0
    routed = tokens * model.experts_per_token * model.hidden * DTYPE_BYTES["bf16"]
    return 2 * model.moe_layers * collective("all_to_all", routed, ep, topo, spans_nodes=False)


def static_batches(profile: EngineProfile, job: InferenceJob) -> bool:
    """Whether the requests run in static batches: a generate loop always does, a server when the run
    is its static-batch benchmark (--batching static)."""
    return profile.static_batching or job.batching == "static"


def host_work_overlapped(profile: EngineProfile, job: InferenceJob) -> bool:
    """Whether the engine's per-sequence host work runs beside the step's GPU work rather than after it: under
    --async-scheduling, and with pipeline parallelism where the engine has that mode (vLLM V1 keeps pp batches in
    flight and schedules the next while one runs)."""
    return job.async_scheduling or (job.parallel.pp > 1 and profile.async_scheduling)


def issued_eagerly(profile: EngineProfile, job: InferenceJob) -> bool:
    """Whether the engine issues a step's kernels from Python: it has no CUDA graphs, or the run
    turns them off (vLLM's --enforce-eager)."""
    return not profile.cuda_graphs or job.enforce_eager


# the GEMMs of a step that run as block-scaled FP8 kernels when the checkpoint is block FP8 (the router and
# the LM head stay 16-bit); MLA's kv_a projection runs inside q_a's kernel where queries have a latent
# (vLLM's fused_qkv_a_proj, vllm/model_executor/models/deepseek_v2.py)
BLOCK_FP8_GEMMS = frozenset(
    {"qkv", "attn_out", "q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj"}
    | {"mlp_up", "mlp_down", "shared_mlp_up", "shared_mlp_down", *EXPERT_OPS}
)
_MOE_BLOCK_OPS = frozenset({"shared_mlp_up", "shared_mlp_down", *EXPERT_OPS})  # in MoE blocks only


def serves_block_fp8(job: InferenceJob) -> bool:
    """A block-scaled FP8 checkpoint (a `weight_block_size`) served with its FP8 weights."""
    model = job.model
    return isinstance(model, TransformerArch) and bool(model.fp8_weight_block) and job.weights_dtype == "fp8"


def block_fp8_floor(profile: EngineProfile, job: InferenceJob, architecture: str) -> float:
    """Seconds one block-scaled FP8 GEMM kernel takes at least (0: none applies): the engine's published
    floor, measured on Hopper, for a block-FP8 checkpoint served in fp8 on a Hopper GPU."""
    if not serves_block_fp8(job) or architecture != "hopper":
        return 0.0
    return profile.block_fp8_gemm_seconds


# an FP8 weight's bytes over a 16-bit one's: the time share of a GEMM that streams its weights as fast
FP8_BYTES_SHARE = DTYPE_BYTES["fp8"] / DTYPE_BYTES["bf16"]


def fp8_gemm_share(profile: EngineProfile, job: InferenceJob, gpu: GPU) -> float:
    """A per-tensor FP8 GEMM's time at decode sizes over the 16-bit GEMM's, as the engine's measured
    linear layer takes it on this GPU (0: not measured or not applicable): FP8 weights computed on FP8
    tensor cores (serving.compute_dtype) in a dense model (MoE experts run the fused-MoE kernels, which
    the tables do not time)."""
    model = job.model
    if job.weights_dtype != "fp8" or "fp8" not in gpu.peak_flops:
        return 0.0
    if not isinstance(model, TransformerArch) or model.is_moe or model.fp8_weight_block:
        return 0.0  # MoE experts: fused-MoE kernels; block-scaled checkpoints: their own kernels (block_fp8_floor)
    table = profile.fp8_gemm_time_share
    return table.get(gpu.id, table.get(gpu.architecture, 0.0))


def fused_moe_call(profile: EngineProfile, model: TransformerArch, architecture: str) -> float:
    """Seconds one fused-MoE call takes beyond streaming its experts' weights (0: not modelled): the
    engine's published kernel times on this GPU architecture, else its default."""
    table = profile.fused_moe_call_seconds
    if not model.is_moe or not table:
        return 0.0
    return table.get(architecture, table.get("default", 0.0))


def block_fp8_shortfall(
    ops: list[Op], model: TransformerArch, rates: Rates, floor: float, layers: int, fused_experts: bool = False
) -> float:
    """Seconds a step's block-FP8 GEMMs take beyond their roofline when each kernel takes at least `floor`:
    `ops` are one layer's mean over the stack (a MoE block's ops weighted by the MoE blocks' share, a dense
    block's by theirs), so an op of a share s of the `layers` costs layers x max(s x floor, its time).
    `fused_experts`: the routed experts run in a fused-MoE call timed with its own floor (fused_moe_call),
    not in these GEMM kernels."""
    moe = model.moe_layers / model.layers if model.is_moe else 1.0
    fused_kv_a = model.mla and model.q_lora_rank > 0
    extra = 0.0
    for op in ops:
        if op.name not in BLOCK_FP8_GEMMS or (fused_kv_a and op.name == "kv_a_proj_with_mqa"):
            continue
        if fused_experts and op.name in EXPERT_OPS:
            continue
        share = moe if op.name in _MOE_BLOCK_OPS else (1 - moe if model.is_moe and op.name.startswith("mlp_") else 1.0)
        extra += max(0.0, share * floor - rates.time(op.flops, op.bytes, op.kind))
    return layers * extra


def eager_kernels(profile: EngineProfile, model: TransformerArch, tp: int) -> int:
    """Kernels a step issues from Python when issued eagerly: the engine's count per decoder layer
    (less its all-reduces without tensor parallelism, and its grouped-KV copies for a model whose
    every query head has its own KV head) times the layers, plus those of the step outside the layers."""
    per_layer = profile.eager_kernels_per_layer - (profile.eager_collectives_per_layer if tp <= 1 else 0)
    per_layer -= profile.eager_gqa_copies_per_layer if model.kv_heads >= model.heads else 0
    return per_layer * model.layers + profile.eager_kernels_head


def tp_all_reduces(model: TransformerArch, tokens: int, tp: int, topo: Topology) -> float:
    """Seconds of a serving forward pass's tensor-parallel all-reduces: two per layer over the
    `tokens`' 16-bit hidden states, within a node (0 without tensor parallelism)."""
    if tp <= 1:
        return 0.0
    return 2 * model.layers * collective("all_reduce", tokens * model.hidden * 2, tp, topo, spans_nodes=False)


_Coefficient = tuple[float, str, float, float, float, float, bool]
_Rated = tuple[float, bool, float | None, float, float, float, float, float]


def _step_ops(
    model: TransformerArch, tp: int, w_bytes: float, kv_bytes: float, layers: int, tokens: int, logits: int
) -> list[tuple[float, Op, bool]]:
    """(times, op, scales with logits) of a step's linear work (dense models: no experts to split)."""
    shape = Shape(tokens=tokens, seqs=1, context=0.0, weight_bytes=w_bytes, kv_bytes=kv_bytes)
    out = [(float(layers), op, False) for op in layer_ops(model, shape, tp, sp=False) if op.name != "attention"]
    return out + [(1.0, op, op.name == "lm_head") for op in head_ops(model, shape, tp, logits)]


@functools.lru_cache(maxsize=256)
def _op_coefficients(
    model: TransformerArch, tp: int, w_bytes: float, kv_bytes: float, layers: int
) -> tuple[_Coefficient, ...]:
    """Each operation's FLOPs and bytes as affine functions of the step's tokens (or logits). They
    depend on the model and its split, not on the GPU: a serving search computes them once for
    every GPU type it tries."""
    one = _step_ops(model, tp, w_bytes, kv_bytes, layers, 1, 1)
    two = _step_ops(model, tp, w_bytes, kv_bytes, layers, 2, 2)
    coef = []
    for (times, a, by_logits), (_, b, _) in zip(one, two, strict=True):
        df, db = b.flops - a.flops, b.bytes - a.bytes
        coef.append((times, a.kind, a.flops - df, df, a.bytes - db, db, by_logits))
    return tuple(coef)


class StepModel:
    """Seconds of one engine step of one replica, in named terms (see the module docstring)."""

    def __init__(self, job: InferenceJob, rates: Rates, topo: Topology, catalog: Catalog) -> None:
        lanes = job.attention_ranks
        job = job.attention_rank()  # attention data parallelism: one rank's step (they step together)
        model = job.model
        assert isinstance(model, TransformerArch)
        profile = catalog.engine(job.engine)
        eff = profile.matmul_efficiency  # what a serving step's GEMMs reach of the large-GEMM rate
        rates = replace(rates, matmul=rates.matmul * eff, attention=rates.attention * eff)
        # block-scaled FP8 GEMMs at decode sizes: each kernel at least the engine's measured floor
        self.fp8_floor = block_fp8_floor(profile, job, rates.gpu.architecture)
        # multi-LoRA: the adapters' gathered matmuls (SGMV/BGMV) add a sourced fixed time to every step
        # a step's fixed cost grows with its layers (each layer's chain of kernels), beside the adapters' matmuls
        self.overhead = profile.layer_overhead_seconds * model.layers + (
            profile.lora_step_overhead_seconds if job.lora_adapters else 0
        )
        # host work per sequence of a step (vLLM V0's output processing, V1's scheduling): per logit
        self.per_sequence = profile.host_seconds_per_sequence / (job.speculative_tokens + 1)
        self.overlapped = host_work_overlapped(profile, job)  # beside the step's GPU work, not after it
        # without CUDA graphs the host issues every kernel: a step is never shorter than its dispatches
        host = host_launch(rates, catalog)[0] if issued_eagerly(profile, job) else 0.0
        self.host_floor = eager_kernels(profile, model, job.parallel.tp) * host
        # a generate loop's int8/nf4 linears are bitsandbytes': more launches, 4-bit weights dequantized
        self.bnb = bnb_linears(job, profile, catalog, host) if host else None
        self.moe_call = fused_moe_call(profile, model, rates.gpu.architecture)
        self.pp_hops = job.parallel.pp - 1  # activations handed from stage to stage in every step
        self.lanes = lanes  # attention ranks stepping together (1: none)
        self.job, self.model, self.rates, self.topo = job, model, rates, topo
        self.w_bytes = weight_bytes_per_param(job.weights_dtype, catalog.convention, job.bnb_4bit == "qlora")
        share = fp8_gemm_share(profile, job, rates.gpu)
        if share > FP8_BYTES_SHARE:  # per-tensor FP8 GEMMs stream their weights below the 16-bit kernels' rate:
            self.w_bytes *= share / FP8_BYTES_SHARE  # as if wider (the 16-bit LM head is not one of them)
        self.kv_bytes = DTYPE_BYTES[job.kv_dtype]
        self.verify = job.speculative_tokens + 1  # tokens each running request puts in a step
        tp = job.parallel.tp
        self.layers = model.layers  # a request passes every stage in turn (pipelining not modelled)
        self.window = model.sliding_window if model.sliding_window else None
        self.win_layers = min(self.layers, model.sliding_window_layers) if self.window else 0
        q_n, o_n = model.q_dim / tp, model.o_dim / tp
        rate = rates.attention
        # decode: per key read, its cached K and V on this GPU (bandwidth) and the FLOPs of one
        # score and one weighted value per head (MLA, absorbed: against the latent itself)
        if model.mla:
            key_flops = 2 * model.heads / tp * (2 * model.kv_lora_rank + model.qk_rope_head_dim)
        else:
            key_flops = 2 * (q_n + o_n)
        # a cache grown by torch.cat (a generate loop) is also read and written whole every step
        copies = 1 if profile.kv_concat == "none" else 3
        kv_read = copies * kv_cache_width_per_gpu(model, tp) * self.kv_bytes / rates.bandwidth
        per_key = max(kv_read, key_flops / rate)
        self.decode_per_key = per_key * self.verify
        # prefill: per (query, key) pair 2 (q_n + o_n) FLOPs (FlashAttention keeps it compute-bound);
        # eager attention (a generate loop) computes every pair of the square, not the causal half,
        # and moves each score through memory between its kernels
        self.eager_scores = profile.static_batching and (job.attention or profile.attention) == "eager"
        self.prefill_per_pair = 2 * (q_n + o_n) / rate
        if self.eager_scores:
            act = unquantized(job.weights_dtype)
            self.prefill_per_pair += model.heads / tp * eager_score_bytes(act) / rates.bandwidth

        # dense models: each operation's FLOPs and bytes are affine in the step's tokens (or logits),
        # so the linear term is a sum of rooflines over fixed coefficients (MoE: expert counts are not)
        self._affine = None if model.is_moe or self.fp8_floor else self._coefficients()

    def _coefficients(self) -> tuple[tuple[_Rated, ...], float, float]:
        """Per operation (times, by logits, its FLOP/s (None: a memory operation), its bytes/s, FLOPs
        at 0 and per unit, bytes at 0 and per unit), and the TP all-reduces' seconds at 0 tokens and
        per token."""
        coef = _op_coefficients(self.model, self.job.parallel.tp, self.w_bytes, self.kv_bytes, self.layers)
        r = self.rates
        flops = {"memory": None, "attention": r.attention}
        rated = tuple(
            (times, by_logits, flops.get(kind, r.matmul), r.bandwidth_of(kind), f0, f1, b0, b1)
            for times, kind, f0, f1, b0, b1, by_logits in coef
        )
        c1, c2 = self._comm(1), self._comm(2)
        return rated, c1 - (c2 - c1), c2 - c1

    def _comm(self, tokens: int) -> float:
        par = self.job.parallel
        if par.attention_dp:  # an attention rank: its tokens to and from the experts' ranks
            return moe_dispatch(self.model, tokens, par.ep, self.topo)
        return tp_all_reduces(self.model, tokens, par.tp, self.topo)

    @functools.lru_cache(maxsize=16384)  # noqa: B019 - one model per replica layout, bounded
    def linear(self, tokens: int, logits: int, routed: int | None = None) -> float:
        """GEMMs, elementwise work, embedding and LM head over `tokens`, plus TP all-reduces (an
        attention rank: its experts on the `routed` tokens a rank sends on average, see linear_terms)."""
        if self._affine is None:
            return sum(self.linear_terms(tokens, logits, routed).values())
        coef, c0, c1 = self._affine
        t = c0 + c1 * tokens if tokens else 0.0
        for times, by_logits, flops_rate, bytes_rate, f0, f1, b0, b1 in coef:
            x = logits if by_logits else tokens
            if by_logits and not logits:
                continue  # no LM head in a step without logits
            compute = 0.0 if flops_rate is None else (f0 + f1 * x) / flops_rate
            memory = (b0 + b1 * x) / bytes_rate
            t += times * (compute if compute >= memory else memory)  # the roofline: the slower side
        return t

    def linear_terms(self, tokens: int, logits: int, routed: int | None = None) -> dict[str, float]:
        """Named terms of `linear`. An attention rank runs attention and the dense layers on its own
        `tokens` while its experts take the copies every rank routes to them: `routed` tokens' worth
        (the mean over the ranks at uniform routing; None: `tokens`, every rank alike)."""
        m, par = self.model, self.job.parallel
        shape = Shape(tokens=tokens, seqs=1, context=0.0, weight_bytes=self.w_bytes, kv_bytes=self.kv_bytes)
        ops = [op for op in layer_ops(m, shape, par.tp, sp=False, ep=par.ep, etp=par.etp) if op.name != "attention"]
        if routed is not None and routed != tokens and m.is_moe:
            mean = replace(shape, tokens=routed)
            experts = [
                op for op in layer_ops(m, mean, par.tp, sp=False, ep=par.ep, etp=par.etp) if op.name in EXPERT_OPS
            ]
            ops = [op for op in ops if op.name not in EXPERT_OPS] + (experts if routed else [])
        out = _time(ops, self.rates, self.layers)
        if self.fp8_floor:  # the kernels' floor is where their weights stream slower than the bandwidth
            extra = block_fp8_shortfall(
                ops, m, self.rates, self.fp8_floor, self.layers, fused_experts=bool(self.moe_call)
            )
            out["memory-bandwidth"] = out.get("memory-bandwidth", 0.0) + extra
        if self.moe_call and (routed is None or routed):  # each MoE layer's fused call, beyond its weight reads
            moe_layers = self.layers * m.moe_layers / m.layers
            out["memory-bandwidth"] = out.get("memory-bandwidth", 0.0) + moe_layers * self.moe_call
        for side, t in _time(head_ops(m, shape, par.tp, logits), self.rates).items():
            out[side] = out.get(side, 0.0) + t
        if par.attention_dp:
            out["expert_parallel_comm"] = self._comm(tokens)
        elif par.tp > 1:
            out["tensor_parallel_comm"] = self._comm(tokens)
        return out

    def keys(self, context: float) -> float:
        """Keys one decode token reads over all layers (windowed layers: at most the window)."""
        if self.window is None:
            return self.layers * context
        return (self.layers - self.win_layers) * context + self.win_layers * min(context, self.window)

    def step(
        self,
        prefill: int,
        decodes: int,
        decode_keys: float,
        prefill_pairs: float,
        routed: int | None = None,
        prompts: int = 1,
    ) -> float:
        """One step: `prefill` prompt tokens and `decodes` running requests, whose decode reads
        `decode_keys` keys in all (see `keys`) and whose chunks attend `prefill_pairs` pairs
        (`routed`: an attention rank's expert tokens when the ranks' loads differ, see linear_terms);
        `prompts` of its chunks end a prompt and take their first token's logits (at least one)."""
        tokens = prefill + decodes * self.verify
        if not tokens:
            return 0.0
        fixed = self.fixed(tokens, decodes * self.verify + (max(prompts, 1) if prefill else 0), routed)
        return fixed + self.decode_per_key * decode_keys + self.prefill_per_pair * prefill_pairs * self.layers

    @functools.lru_cache(maxsize=16384)  # noqa: B019 - one model per replica layout, bounded
    def fixed(self, tokens: int, logits: int, routed: int | None = None) -> float:
        """A step's time besides attention (`tokens` > 0): its linear work, the step overhead and
        the pipeline hops; a step carries few distinct token counts, and the simulator asks often."""
        linear, floor = self.linear(tokens, logits, routed), self.host_floor
        if self.bnb is not None:
            linear += self.bnb.dequant_bytes(tokens) / self.rates.bandwidth
            floor += self.bnb.host(tokens)
        host = self.per_sequence * logits
        # overlapped, one host thread still issues the kernels (--enforce-eager) and schedules: those two add
        t = (max(linear, floor + host) if self.overlapped else max(linear, floor) + host) + self.overhead
        if self.pp_hops:
            t += self.pp_hops * p2p(tokens * self.model.hidden * 2, self.topo.intra)
        return t

    def chunk_run(self, steps: int, chunk: int, decodes: int, context: float, growth: float, start: int) -> float:
        """Seconds of `steps` steps in a row, each carrying the next `chunk` (at least 1) tokens of one
        prompt (the first from token `start`) beside `decodes` running requests whose mean context is
        `context` at the first step and grows by `growth` a step: the sum of `step` over them, in
        closed form (the attention terms are arithmetic progressions, capped where a window caps them)."""
        fixed = self.fixed(chunk + decodes * self.verify, decodes * self.verify + 1)  # `step` less attention
        keys = _progression(context, growth, steps)  # a decode's context summed over the steps (see keys)
        if self.window is None:
            keys *= self.layers
        else:
            keys = (self.layers - self.win_layers) * keys
            keys += self.win_layers * _progression(context, growth, steps, self.window)
        mid = start + (chunk + 1) / 2  # a chunk's mean query position (see prefill_pairs)
        pairs = chunk * _progression(mid, chunk, steps)
        if self.window is not None:
            w = self.win_layers / self.layers
            pairs = (1 - w) * pairs + w * chunk * _progression(mid, chunk, steps, self.window)
        return steps * fixed + self.decode_per_key * keys * decodes + self.prefill_per_pair * pairs * self.layers

    def prefill_pairs(self, start: int, chunk: int) -> float:
        """(query, key) pairs of a chunk of `chunk` prompt tokens after `start` tokens (causal),
        per layer, windowed layers capped."""
        full = chunk * (start + (chunk + 1) / 2)
        if self.eager_scores:  # the whole square, masked afterwards
            return chunk * (start + chunk)
        if self.window is None:
            return full
        w = self.win_layers / self.layers
        return (1 - w) * full + w * chunk * min(start + (chunk + 1) / 2, self.window)

    def decode_terms(self, batch: int, context: int) -> dict[str, float]:
        """Named terms of a decode step of `batch` requests at `context` tokens (for the estimate)."""
        out = self.linear_terms(batch * self.verify, batch * self.verify)
        kv = self.decode_per_key * batch * self.keys(context)
        out["memory-bandwidth"] = out.get("memory-bandwidth", 0.0) + kv
        return out


def step_model(job: InferenceJob, rates: Rates, topo: Topology, catalog: Catalog) -> StepModel:
    """`StepModel(job, rates, topo, catalog)`; within one plan's search (gpuwise.estimate.sharing)
    the same one for the same inputs, the batch cap apart (a step model does not read it), so that
    its cached step times serve every batch cap and estimate of a layout."""
    store = shared()
    if store is None:
        return StepModel(job, rates, topo, catalog)
    key = ("step model", replace(job, concurrency=1), repr(rates), topo, id(catalog))
    model = store.get(key)
    if model is None:
        model = store[key] = StepModel(job, rates, topo, catalog)
    return model


def _progression(first: float, step: float, terms: int, cap: float = math.inf) -> float:
    """first + (first + step) + ... over `terms` terms, each at most `cap` (`step` >= 0)."""
    if first + (terms - 1) * step <= cap:
        return terms * first + step * terms * (terms - 1) / 2
    below = max(0, min(terms, math.ceil((cap - first) / step))) if step > 0 else 0  # terms under the cap
    return below * first + step * below * (below - 1) / 2 + (terms - below) * cap
