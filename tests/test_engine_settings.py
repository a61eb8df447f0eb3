"""A serving engine's own settings (--max-seqs, --max-batch-tokens, --memory-fraction): what real
deployments set (vLLM --max-num-seqs, --max-num-batched-tokens, --gpu-memory-utilization; SGLang
--max-running-requests, --chunked-prefill-size, --mem-fraction-static; TensorRT-LLM max_batch_size,
max_num_tokens, free_gpu_memory_fraction) replace the engine's defaults in the scheduler and the KV
block pool, are refused where they mean nothing, and reach the server command gpuwise deploy writes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gpuwise.api import make_plan
from gpuwise.catalog import load_catalog
from gpuwise.deploy.engines import server_command
from gpuwise.errors import UsageError
from gpuwise.estimate.engine import engine_profile, engine_setup
from gpuwise.estimate.memory.inference import inference_memory
from gpuwise.estimate.run import estimate
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
BASE = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 1000, "output_tokens": 500, "concurrency": 64}


def _setup(gpu: str = "h100-sxm:1", **options: Any):
    job = build_workload(BASE | options, CAT)
    hw = build_hardware(gpu, CAT)
    return job, hw, engine_setup(job, hw, CAT, notes=False)


def test_max_seqs_caps_the_running_batch_on_any_gpu():
    """vLLM's own cap is 1024 running requests on an 80 GB GPU and 256 below 70 GiB; --max-seqs 16 is
    the cap on both, so a load of 64 runs 16 at a time."""
    for gpu in ("h100-sxm:1", "l40s:1"):
        _, _, own = _setup(gpu)
        assert own.max_batch == 64  # the load, below the engine's cap and the KV cache
        _, _, capped = _setup(gpu, max_seqs=16)
        assert capped.max_batch == 16


def test_max_batch_tokens_is_the_step_budget_on_any_gpu():
    """vLLM V1 carries 8192 tokens a step on GPUs of 70 GiB and more and 2048 below; the setting
    replaces both."""
    assert _setup("h100-sxm:1")[2].token_budget == 8192
    assert _setup("l40s:1")[2].token_budget == 2048
    assert _setup("h100-sxm:1", max_batch_tokens=512)[2].token_budget == 512
    assert _setup("l40s:1", max_batch_tokens=16384)[2].token_budget == 16384


def test_memory_fraction_sizes_the_kv_pool_by_hand():
    """vLLM counts its share of the whole device: the KV pool is fraction x capacity less what the
    weights, workspace, CUDA context and slack take (the load's memory without its KV cache).
    TensorRT-LLM counts its share of what those leave free: fraction x (capacity - fixed)."""
    for engine in ("vllm", "trtllm"):
        job, hw, setup = _setup(engine=engine, memory_fraction=0.5)
        one = inference_memory(replace(job, concurrency=1), hw, CAT).per_gpu
        fixed = one.total - one.kv_cache
        cap = hw.gpu.capacity_bytes
        pool = 0.5 * cap - fixed if engine == "vllm" else 0.5 * (cap - fixed)
        per_token = 32 * 2 * 8 * 128 * 2  # Llama 3.1 8B: 32 layers, K and V, 8 KV heads of 128, bf16
        assert setup.memory_fraction == 0.5
        assert setup.kv_tokens == int(pool / per_token)


def test_memory_fraction_replaces_sglangs_computed_share():
    """SGLang 0.5 computes mem_fraction_static from the device when none is given; given, it is the
    user's, and the KV pool follows it."""
    own = _setup(engine="sglang")[2]
    assert own.memory_fraction != 0.6
    given = _setup(engine="sglang", memory_fraction=0.6)[2]
    assert given.memory_fraction == 0.6
    assert given.kv_tokens < own.kv_tokens


def test_the_settings_change_the_figures_and_say_so():
    """A finite run of 200 requests from 64 clients on one H100: at 8 running requests at a time the
    run takes far longer than at the 64 the engine would hold, and the estimate names the setting."""
    job = build_workload(BASE | {"requests": 200, "max_seqs": 8}, CAT)
    est = estimate(job, build_hardware("h100-sxm:1", CAT), CAT)
    free = estimate(build_workload(BASE | {"requests": 200}, CAT), build_hardware("h100-sxm:1", CAT), CAT)
    a, b = est.as_dict()["inference"], free.as_dict()["inference"]
    assert a["tokens_per_second"] < b["tokens_per_second"] / 2  # 8 at a time against 64
    assert any("at most 8 running requests; as set: --max-seqs 8" in str(x) for x in est.as_dict()["assumptions"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"engine": "transformers", "max_seqs": 4}, "generate loop"),
        ({"model": "resnet-50", "max_seqs": 4, "input_tokens": None, "output_tokens": None}, "not served by one"),
        ({"engine": "tgi-v1", "max_batch_tokens": 512}, "longest prompt, 1000 tokens"),
        (
            {"model": "llama-2-7b", "engine": "vllm-v0", "max_batch_tokens": 1024},
            r"the context \(prompt and output\), 1500 tokens",
        ),
    ],
)
def test_settings_that_mean_nothing_are_refused(options: dict[str, Any], message: str):
    opts = {k: v for k, v in (BASE | options).items() if v is not None}
    with pytest.raises(UsageError, match=message):
        job = build_workload(opts, CAT)
        engine_profile(CAT, job)


def test_bounds_are_usage_errors():
    for bad in ({"max_seqs": 0}, {"max_batch_tokens": 8}, {"memory_fraction": 0}, {"memory_fraction": 1.5}):
        with pytest.raises(UsageError):
            build_workload(BASE | bad, CAT)


def test_the_server_command_carries_the_settings():
    """gpuwise deploy writes each setting under the engine's own flag."""
    work = BASE | {"max_seqs": 48, "max_batch_tokens": 4096, "memory_fraction": 0.85}
    plan = make_plan(work, {"gpus": ["h100-sxm"]})
    c = plan.chosen
    assert c is not None
    vllm = " ".join(str(a) for a in server_command("vllm", c, CAT, None, 32).args)
    assert "--max-num-batched-tokens=4096" in vllm and "--gpu-memory-utilization=0.85" in vllm
    sglang = " ".join(str(a) for a in server_command("sglang", c, CAT, None, 32).args)
    assert "--chunked-prefill-size=4096" in sglang and "--mem-fraction-static=0.850" in sglang
    trt = " ".join(str(a) for a in server_command("trtllm", c, CAT, None, 32).args)
    assert "--max_num_tokens=4096" in trt and "--kv_cache_free_gpu_memory_fraction=0.85" in trt
