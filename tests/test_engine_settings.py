"""A serving engine's own settings (--max-seqs, --max-batch-tokens, --memory-fraction): what real
deployments set (vLLM --max-num-seqs, --max-num-batched-tokens, --gpu-memory-utilization; SGLang
--max-running-requests, --chunked-prefill-size, --mem-fraction-static; TensorRT-LLM max_batch_size,
max_num_tokens, free_gpu_memory_fraction) replace the engine's defaults in the scheduler and the KV
block pool as each engine reads them, are refused where the engine refuses them, and reach the server
command gpuwise deploy writes."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.api import make_plan
from gpuwise.catalog import load_catalog
from gpuwise.deploy.engines import server_command
from gpuwise.errors import UsageError
from gpuwise.estimate.engine import engine_setup
from gpuwise.estimate.run import estimate
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
BASE = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 1000, "output_tokens": 500, "concurrency": 64}
# Llama 3.1 8B's KV cache: 32 layers x K and V x 8 KV heads of 128 x 2 bytes (bf16)
KV_BYTES_PER_TOKEN = 32 * 2 * 8 * 128 * 2


def _setup(gpu: str = "h100-sxm:1", **options: Any):
    job = build_workload({k: v for k, v in (BASE | options).items() if v is not None}, CAT)
    return engine_setup(job, build_hardware(gpu, CAT), CAT, notes=False)


def test_max_seqs_caps_the_running_batch_on_any_gpu():
    """vLLM's own cap is 1024 running requests on an 80 GB GPU and 256 below 70 GiB; --max-seqs 16 is
    the cap on both, so a load of 64 runs 16 at a time."""
    for gpu in ("h100-sxm:1", "l40s:1"):
        assert _setup(gpu).max_batch == 64  # the load, below the engine's cap and the KV cache
        assert _setup(gpu, max_seqs=16).max_batch == 16


def test_max_batch_tokens_is_the_step_budget_on_any_gpu():
    """vLLM V1 carries 8192 tokens a step on GPUs of 70 GiB and more and 2048 below; the setting
    replaces both."""
    assert _setup("h100-sxm:1").token_budget == 8192
    assert _setup("l40s:1").token_budget == 2048
    assert _setup("h100-sxm:1", max_batch_tokens=4096).token_budget == 4096
    assert _setup("l40s:1", max_batch_tokens=16384).token_budget == 16384


def test_a_budget_that_holds_the_decodes_caps_the_running_requests():
    """vLLM and TensorRT-LLM count each running request's decode tokens against the step's budget (vLLM V1
    caps max_num_seqs at max_num_batched_tokens when only that is given): 200 clients under a budget of 64
    run 64 at a time; with 3 speculative tokens a request puts 4 in a step, so 16. SGLang's
    chunked_prefill_size bounds prompt tokens only: its 64 clients all run."""
    assert _setup(concurrency=200, max_batch_tokens=64).max_batch == 64
    assert _setup(engine="trtllm", concurrency=200, max_batch_tokens=64).max_batch == 64
    spec = {"speculative_tokens": 3, "speculative_acceptance": 0.7}
    assert _setup(concurrency=200, max_batch_tokens=64, **spec).max_batch == 16
    assert _setup(engine="sglang", max_batch_tokens=512).max_batch == 64


def test_memory_fraction_sizes_the_kv_pool_by_hand():
    """vLLM, SGLang and TGI count the share of the whole device (TGI's warmup: free memory less (1 - f) x
    the device), so raising it from 0.5 to 0.7 of an 80 GiB H100 adds 0.2 x 80 GiB of KV cache, whatever
    the weights take: 16 GiB / 131,072 bytes a token = 131,072 tokens (one token either way for the
    flooring). TensorRT-LLM counts a share of what the weights leave: its pool scales with the fraction."""
    for engine in ("vllm", "sglang", "tgi"):
        low = _setup(engine=engine, memory_fraction=0.5).kv_tokens
        high = _setup(engine=engine, memory_fraction=0.7).kv_tokens
        assert abs((high - low) - 0.2 * 80 * 2**30 / KV_BYTES_PER_TOKEN) <= 1, engine
    low = _setup(engine="trtllm", memory_fraction=0.3).kv_tokens
    high = _setup(engine="trtllm", memory_fraction=0.6).kv_tokens
    assert abs(high / low - 2.0) < 1e-4


def test_a_given_share_replaces_sglangs_own_and_is_scaled_on_amd_as_its_own():
    """SGLang 0.5 computes mem_fraction_static from the device when none is given; given, it is the user's.
    On AMD its default attention backend (aiter) scales the share by 0.85 for models of more than 8,192
    positions, a given one included: 0.8 -> 0.68 for Llama 3.1 8B (131,072 positions) on an MI300X."""
    own = _setup(engine="sglang")
    assert own.memory_fraction != 0.6
    assert _setup(engine="sglang", memory_fraction=0.6).memory_fraction == 0.6
    assert _setup("mi300x:1", engine="sglang", memory_fraction=0.8).memory_fraction == pytest.approx(0.68)


def test_sglang_splits_the_settings_over_attention_data_parallel_ranks():
    """Under --enable-dp-attention SGLang divides max_running_requests and chunked_prefill_size by the dp
    size: --max-seqs 64 on 8 attention ranks holds 8 requests on each; vLLM keeps each rank's whole."""
    opts = {"model": "qwen3-30b-a3b", "tp": 8, "ep": 8, "attention_dp": True, "concurrency": 256}
    split = _setup("h100-sxm:8", engine="sglang", max_seqs=64, max_batch_tokens=4096, **opts)
    assert (split.max_batch, split.token_budget) == (8, 512)
    assert _setup("h100-sxm:8", engine="sglang", **opts).max_batch == 32  # 256 clients over 8 ranks


def test_the_settings_change_the_figures_and_say_so():
    """A finite run of 200 requests from 64 clients on one H100: at 8 running requests at a time the run's
    output rate is bounded by 8 decode streams, under an eighth of the 64 the engine would hold (a step of 8
    is not an eighth of a step of 64: the weights are read once either way), and the estimate names it."""
    job = build_workload(BASE | {"requests": 200, "max_seqs": 8}, CAT)
    est = estimate(job, build_hardware("h100-sxm:1", CAT), CAT)
    free = estimate(build_workload(BASE | {"requests": 200}, CAT), build_hardware("h100-sxm:1", CAT), CAT)
    capped, full = est.as_dict()["inference"], free.as_dict()["inference"]
    decode = capped["decode_seconds_per_token"]
    assert capped["tokens_per_second"] <= 8 / decode * 1.001
    assert capped["tokens_per_second"] < full["tokens_per_second"] / 2
    assert any("at most 8 running requests; as set: --max-seqs 8" in str(x) for x in est.as_dict()["assumptions"])
    assert est.as_dict()["workload"]["max_seqs"] == 8


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"engine": "transformers", "max_seqs": 4}, "generate loop"),
        ({"model": "resnet-50", "max_seqs": 4, "input_tokens": None, "output_tokens": None}, "not served by one"),
        ({"engine": "tgi-v1", "max_batch_tokens": 512}, "longest prompt, 1000 tokens"),
        ({"model": "llama-2-7b", "engine": "vllm-v0", "max_batch_tokens": 1024}, r"the context \(prompt and output"),
        ({"engine": "vllm", "max_seqs": 1024, "max_batch_tokens": 64}, "vLLM refuses to start"),
        ({"engine": "vllm-v0", "max_batch_tokens": 128}, r"its 256 running requests \(--max-seqs not given\)"),
        ({"engine": "trtllm", "max_batch_tokens": 16, "speculative_tokens": 20, "speculative_acceptance": 0.5}, "21"),
    ],
)
def test_settings_an_engine_refuses_are_usage_errors(options: dict[str, Any], message: str):
    with pytest.raises(UsageError, match=message):
        build_workload({k: v for k, v in (BASE | options).items() if v is not None}, CAT)


def test_settings_an_engine_accepts_are_not_refused():
    """SGLang chunks its prompts at --chunked-prefill-size (it only keeps them apart from the decodes), and
    its running-request cap is not bounded by the chunk: neither is refused."""
    build_workload(BASE | {"engine": "sglang", "max_batch_tokens": 512, "max_seqs": 1024}, CAT)
    build_workload(BASE | {"engine": "trtllm", "max_batch_tokens": 512}, CAT)
    build_workload(BASE | {"engine": "vllm", "max_batch_tokens": 64}, CAT)  # V1 lowers its own cap to 64


def test_a_share_that_leaves_no_kv_cache_is_a_usage_error():
    """5 % of an 80 GiB H100 is 4 GiB, below Llama 3.1 8B's 15 GiB of weights: vLLM cannot start."""
    with pytest.raises(UsageError, match="no memory for KV cache blocks"):
        _setup(memory_fraction=0.05)


def test_bounds_are_usage_errors():
    for bad in ({"max_seqs": 0}, {"max_batch_tokens": 8}, {"memory_fraction": 0}, {"memory_fraction": 1.5}):
        with pytest.raises(UsageError):
            build_workload(BASE | bad, CAT)


def _command(plan_engine: str, target: str, **settings: Any) -> str:
    plan = make_plan(BASE | {"engine": plan_engine, **settings}, {"gpus": ["h100-sxm"]})
    assert plan.chosen is not None
    return " ".join(str(getattr(a, "value", a)) for a in server_command(target, plan.chosen, CAT, None, 32).args)


def test_the_server_command_carries_the_settings_of_its_own_engine():
    """gpuwise deploy writes each setting under the engine's own flag, and a given share only where the
    target engine counts it as the plan's did: a TensorRT-LLM share of the memory the weights leave is not
    vLLM's --gpu-memory-utilization."""
    vllm = _command("vllm", "vllm", max_seqs=48, max_batch_tokens=4096, memory_fraction=0.85)
    assert "--max-num-batched-tokens=4096" in vllm and "--gpu-memory-utilization=0.85" in vllm
    sglang = _command("sglang", "sglang", max_batch_tokens=4096, memory_fraction=0.85)
    assert "--chunked-prefill-size=4096" in sglang and "--mem-fraction-static=0.850" in sglang
    trt = _command("trtllm", "trtllm", max_batch_tokens=4096, memory_fraction=0.5)
    assert "--max_num_tokens=4096" in trt and "--kv_cache_free_gpu_memory_fraction=0.50" in trt
    assert "--gpu-memory-utilization=0.20" not in _command("trtllm", "vllm", memory_fraction=0.2)


def test_sglangs_computed_share_follows_the_chunk_the_plan_ran():
    """SGLang 0.5 keeps 1.5 MiB a chunk token out of its share: a plan at --max-batch-tokens 16384 deploys
    the smaller share it was sized with, not the default chunk's."""
    small = _command("sglang", "sglang", max_batch_tokens=2048)
    large = _command("sglang", "sglang", max_batch_tokens=16384)
    shares = [next(a for a in cmd.split() if a.startswith("--mem-fraction-static=")) for cmd in (small, large)]
    assert float(shares[0].split("=")[1]) > float(shares[1].split("=")[1])


def test_vllm_v1s_cap_spans_the_pipeline_batches_in_flight():
    """vLLM V1 keeps one running list for the engine (a request still in another pipeline stage is skipped):
    --max-seqs 8 under two pipeline stages runs 4 in each batch in flight; vLLM 0.5 schedules each batch
    apart, 8 in each."""
    opts = {"model": "llama-3.1-70b", "tp": 4, "pp": 2, "max_seqs": 8}
    assert _setup("h100-sxm:8", **opts).max_batch == 4
    assert _setup("h100-sxm:8", engine="vllm-v0", **opts).max_batch == 8


def test_sglangs_own_chunk_given_is_its_default_under_attention_data_parallelism():
    """SGLang computes its memory share from the whole engine's chunk, then divides the chunk (its own or a
    given one) by the dp size: giving it its own 8192 on an 80 GB GPU changes nothing, and each of 4 ranks
    prefills 2048 tokens a step."""
    opts = {"model": "qwen3-30b-a3b", "tp": 4, "ep": 4, "attention_dp": True, "concurrency": 512}
    own = _setup("h100-sxm:4", engine="sglang", input_tokens=4000, output_tokens=200, **opts)
    given = _setup("h100-sxm:4", engine="sglang", input_tokens=4000, output_tokens=200, max_batch_tokens=8192, **opts)
    assert (own.token_budget, own.memory_fraction, own.max_batch) == (2048, given.memory_fraction, given.max_batch)
    assert given.token_budget == 2048


def test_a_plan_tries_a_larger_tensor_parallel_layout_where_the_share_leaves_no_kv_cache():
    """30 % of a 48 GB L40S does not hold Llama 3.1 8B's weights and a request's KV cache; split over two it
    does: the plan serves it at tp 2, not ruled out."""
    plan = make_plan(
        {
            "model": "llama-3.1-8b",
            "task": "inference",
            "input_tokens": 1000,
            "output_tokens": 200,
            "memory_fraction": 0.3,
        },
        {"gpus": ["l40s"], "qps": 5},
    )
    assert plan.chosen is not None and plan.chosen.est.workload.parallel.tp == 2


def test_deploying_to_another_engine_writes_what_that_engine_accepts():
    """A vLLM plan's given share is not SGLang's or TensorRT-LLM's (neither is written as given); an SGLang
    plan's small chunk is raised to the batch for vLLM, which refuses fewer tokens a step than running requests;
    on AMD SGLang is given its share before the 0.85 it applies itself."""
    plan = make_plan(BASE | {"engine": "vllm", "memory_fraction": 0.6}, {"gpus": ["h100-sxm"]})
    assert plan.chosen is not None
    for target in ("sglang", "trtllm"):
        reasons = [getattr(a, "why", "") for a in server_command(target, plan.chosen, CAT, None, 32).args]
        assert not any("as given (--memory-fraction)" in r for r in reasons)
    vllm = _command("sglang", "vllm", max_batch_tokens=256)
    assert "--max-num-batched-tokens=256" in vllm  # at least the 32 requests the command runs: as given
    small = make_plan(BASE | {"engine": "sglang", "max_batch_tokens": 16}, {"gpus": ["h100-sxm"]})
    assert small.chosen is not None
    args = " ".join(str(getattr(a, "value", a)) for a in server_command("vllm", small.chosen, CAT, None, 48).args)
    assert "--max-num-batched-tokens=48" in args and "--max-num-seqs=48" in args
    amd = make_plan(BASE | {"engine": "sglang", "memory_fraction": 0.8}, {"gpus": ["mi300x"]})
    assert amd.chosen is not None
    assert "--mem-fraction-static=0.800" in " ".join(
        str(getattr(a, "value", a)) for a in server_command("sglang", amd.chosen, CAT, None, 32).args
    )
