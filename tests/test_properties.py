"""Invariants of the memory model, checked over generated workloads (hypothesis)."""

import math
from dataclasses import replace

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gpuwise.catalog import load_catalog
from gpuwise.estimate import memory
from gpuwise.estimate.memory.inference import kv_cache_bytes
from gpuwise.estimate.memory.training import training_memory
from gpuwise.workload import Hardware, InferenceJob, Parallelism, TrainingJob

CAT = load_catalog()
LLMS = [
    m
    for m in (
        "llama-2-7b",
        "llama-3.1-8b",
        "mistral-7b-v0.1",
        "qwen2.5-7b",
        "gemma-2-9b",
        "gpt2",
        "mixtral-8x7b-v0.1",
        "phi-3-mini-4k-instruct",
        "opt-13b",
    )
]
models = st.sampled_from(LLMS).map(CAT.model)
methods = st.sampled_from(["full", "lora", "qlora"])
optimizers = st.sampled_from(["adamw", "adamw-8bit", "sgd", "adafactor"])
recomputes = st.sampled_from(["none", "selective", "full"])
GPU = CAT.gpu("h100-sxm")


def train_job(model, method, optimizer, micro, seq, recompute, zero=0):
    return TrainingJob(
        model=model,
        method=method,
        weights_dtype="nf4" if method == "qlora" else "bf16",
        optimizer=optimizer,
        micro_batch=micro,
        seq=seq,
        recompute=recompute,
        parallel=Parallelism(zero=zero),
    )


@settings(max_examples=60, deadline=None)
@given(models, methods, optimizers, st.integers(1, 8), st.sampled_from([1, 2, 4, 8]))
def test_zero3_per_gpu_memory_never_grows_with_more_data_parallel_ranks(model, method, optimizer, micro, nodes):
    job = train_job(model, method, optimizer, micro, 1024, "full", zero=3)
    totals = [training_memory(job, Hardware(GPU, 8 * n, 8), CAT).per_gpu.total for n in (nodes, nodes * 2)]
    assert totals[1] <= totals[0]


@settings(max_examples=60, deadline=None)
@given(models, methods, optimizers, st.integers(1, 16), st.sampled_from([128, 512, 2048]), recomputes)
def test_memory_grows_with_batch_and_sequence(model, method, optimizer, micro, seq, recompute):
    job = train_job(model, method, optimizer, micro, seq, recompute)
    h = Hardware(GPU, 1, 1)
    base = training_memory(job, h, CAT).per_gpu.total
    assert training_memory(replace(job, micro_batch=micro + 1), h, CAT).per_gpu.total > base
    assert training_memory(replace(job, seq=seq * 2), h, CAT).per_gpu.total > base


@settings(max_examples=60, deadline=None)
@given(models, st.integers(1, 4096), st.integers(1, 64), st.sampled_from([1, 2]))
def test_kv_cache_is_linear_in_tokens_and_batch(model, tokens, batch, kv_bytes):
    one = kv_cache_bytes(model, tokens, 1, kv_bytes)
    assert kv_cache_bytes(model, tokens, batch, kv_bytes) == batch * one
    if not model.sliding_window or 2 * tokens <= model.sliding_window:
        assert kv_cache_bytes(model, 2 * tokens, 1, kv_bytes) == 2 * one


@settings(max_examples=40, deadline=None)
@given(models, optimizers, st.integers(1, 8), st.sampled_from([256, 1024]))
def test_recompute_and_stages_order(model, optimizer, micro, seq):
    h = Hardware(GPU, 8, 8)
    acts = [
        training_memory(train_job(model, "full", optimizer, micro, seq, r), h, CAT).per_gpu.activations
        for r in ("none", "selective", "full")
    ]
    assert acts[0] >= acts[1] >= acts[2]
    totals = [
        training_memory(train_job(model, "full", optimizer, micro, seq, "none", z), h, CAT).per_gpu.total
        for z in (0, 1, 2, 3)
    ]
    assert totals == sorted(totals, reverse=True)


@settings(max_examples=40, deadline=None)
@given(models, optimizers, st.integers(1, 8))
def test_adapters_need_less_than_full_and_qlora_weights_least(model, optimizer, micro):
    h = Hardware(GPU, 1, 1)
    full, lora, qlora = (
        training_memory(train_job(model, m, optimizer, micro, 512, "none"), h, CAT).per_gpu
        for m in ("full", "lora", "qlora")
    )
    assert lora.total < full.total and qlora.total < full.total
    assert qlora.weights < lora.weights
    # bitsandbytes 4-bit layers keep every input, frozen 16-bit ones do not: QLoRA saves more
    assert qlora.activations >= lora.activations


@settings(max_examples=40, deadline=None)
@given(models, st.sampled_from(["bf16", "fp8", "int8", "int4"]), st.integers(1, 32), st.sampled_from([1, 2, 4, 8]))
def test_inference_tensor_parallel_reduces_per_gpu_memory(model, wd, conc, tp):
    assume(not (model.heads % tp or model.ffn % tp or (model.kv_heads % tp and tp % model.kv_heads)))  # a valid split
    job = InferenceJob(model=model, weights_dtype=wd, concurrency=conc, input_tokens=512, output_tokens=128)
    one = memory(job, Hardware(GPU, 1, 1), CAT).per_gpu
    split = memory(replace(job, parallel=Parallelism(tp=tp)), Hardware(GPU, tp, tp), CAT).per_gpu
    assert split.weights <= one.weights and split.kv_cache <= one.kv_cache


# --- the planner -------------------------------------------------------------------------------
PLAN_MODELS = st.sampled_from(["llama-2-7b", "mistral-7b-v0.1", "phi-3-mini-4k-instruct", "gpt2"])


@settings(max_examples=12, deadline=None)
@given(PLAN_MODELS, st.sampled_from(["full", "lora", "qlora"]), st.sampled_from([6, 12, 24, 48]))
def test_relaxing_a_deadline_never_raises_the_cost(model, method, hours):
    from gpuwise.api import make_plan

    work = {"model": model, "method": method, "tokens": "100M"}
    tight = make_plan(work, {"deadline": f"{hours}h"}).chosen
    loose = make_plan(work, {"deadline": f"{2 * hours}h"}).chosen
    if tight is not None:  # whatever met the tight deadline also meets the loose one
        assert loose is not None and loose.cost <= tight.cost * 1.05  # the search's doubling tolerance


@settings(max_examples=10, deadline=None)
@given(PLAN_MODELS, st.sampled_from([1, 2, 4, 8]))
def test_allowing_more_gpus_never_raises_the_cost(model, max_gpus):
    from gpuwise.api import make_plan

    work = {"model": model, "method": "full", "tokens": "200M"}
    few = make_plan(work, {"deadline": "2d", "max_gpus": max_gpus}).chosen
    more = make_plan(work, {"deadline": "2d", "max_gpus": 2 * max_gpus}).chosen
    if few is not None:
        assert more is not None and more.cost <= few.cost * 1.05


# --- the training layout search -----------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["llama-2-7b", "mistral-7b-v0.1", "phi-3-mini-4k-instruct"]),
    st.sampled_from(["full", "lora"]),
    st.sampled_from([None, 64, 256]),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4]),
    st.sampled_from([0, 1, 2, 3]),
    st.sampled_from(["none", "selective", "full"]),
    st.sampled_from([1, 2, 4]),
)
def test_no_layout_estimate_accepts_beats_the_searched_one(model, method, gb, tp, pp, zero, rc, micro):
    """Any layout `estimate` accepts on the chosen GPU type and count is at most as fast (so at most
    as cheap) as the one the plan chose there."""
    from gpuwise.api import make_plan
    from gpuwise.errors import GpuwiseError
    from gpuwise.estimate import estimate

    work = {"model": model, "method": method, "tokens": "100M", "seq": 1024} | ({"global_batch": gb} if gb else {})
    chosen = make_plan(work, {"deadline": "2d", "gpus": "h100-sxm"}).chosen
    if chosen is None:
        return
    hw = chosen.est.hardware
    tp = math.gcd(tp, hw.gpus_per_node)  # a degree the hardware can take, so most draws are compared
    pp = math.gcd(pp, hw.count // tp)
    if gb is None:  # without a global batch the micro-batch is the batch per GPU: the job itself
        micro = chosen.est.workload.micro_batch
    other = replace(chosen.est.workload, parallel=Parallelism(tp=tp, pp=pp, zero=zero), recompute=rc, micro_batch=micro)
    try:
        est = estimate(other, hw, CAT, search_largest=False)
    except GpuwiseError:  # a layout estimate refuses on this hardware
        return
    if est.memory.fits:
        assert est.training.samples_per_second <= chosen.est.training.samples_per_second * (1 + 1e-9)
