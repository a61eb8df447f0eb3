"""Engines that prefill apart behind a router's waiting rule, and engines that issue every kernel
from Python without CUDA graphs (Hugging Face Text Generation Inference by version)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import EngineSetup, eager_kernels, engine_setup, step_model
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.serving import router_steady_state, steady_state
from gpuwise.workload import build_hardware, build_workload

from .conftest import run_process

CAT = load_catalog()
LLAMA7B = CAT.model("llama-2-7b")


def test_tgi_v1_kernel_counts_follow_its_llama_layer():
    """TGI 1.0.3's flash Llama layer: 13 kernels, 2 of them all-reduces; about 20 per step outside
    the layers. Llama 2 7B has 32 layers."""
    tgi1 = CAT.engine("tgi-v1")
    assert (tgi1.eager_kernels_per_layer, tgi1.eager_collectives_per_layer, tgi1.eager_kernels_head) == (13, 2, 20)
    assert eager_kernels(tgi1, LLAMA7B, tp=4) == 13 * 32 + 20 == 436
    assert eager_kernels(tgi1, LLAMA7B, tp=1) == 11 * 32 + 20 == 372  # no all-reduces on one GPU
    for graphed in ("vllm", "tgi", "tgi-v2"):  # CUDA graphs: the host cost is in the step overhead
        assert CAT.engine(graphed).cuda_graphs and not CAT.engine("tgi-v1").cuda_graphs


def _job(engine: str, concurrency: int = 1, gpu: str = "a10g", tp: int = 4) -> tuple[Any, Any]:
    spec = {"model": "llama-2-7b", "task": "inference", "engine": engine, "tp": tp, "input_tokens": 246}
    spec |= {"output_tokens": 50, "concurrency": concurrency, "weights_dtype": "fp16", "kv_dtype": "fp16"}
    job = build_workload(spec, CAT)
    hw = build_hardware(f"{gpu}:{tp}", CAT)
    return job, hw


def test_a_step_without_cuda_graphs_is_never_shorter_than_its_host_dispatches():
    """Llama 2 7B over 4 A10Gs at one running request: the GPU work of a decode step (about 8 ms) is
    shorter than TGI 1.x's 436 dispatches at decode_host_seconds_eager, so the step is those plus
    the step overhead; TGI 2.x (CUDA graphs) runs the same step at its GPU time."""
    h = CAT.convention("decode_host_seconds_eager")
    steps = {}
    for engine in ("tgi-v1", "tgi-v2"):
        job, hw = _job(engine)
        rates = compute_rates(hw.gpu, "fp16", CAT)
        steps[engine] = step_model(job, rates, topology(hw, CAT), CAT)
    eager, graphed = steps["tgi-v1"], steps["tgi-v2"]
    assert eager.host_floor == pytest.approx(436 * h)
    assert graphed.linear(1, 1) < eager.host_floor
    assert eager.fixed(1, 1) == pytest.approx(436 * h + eager.overhead)
    assert graphed.fixed(1, 1) == pytest.approx(graphed.linear(1, 1) + graphed.overhead)
    # a large prefill step is GPU-bound either way: the floor does not apply
    assert eager.fixed(4096, 1) == pytest.approx(graphed.fixed(4096, 1))


class _FixedSteps:
    """A step model whose decode steps take 20 ms and whose prefill steps take 100 ms, whatever
    they carry (so the router's arithmetic is checked by hand)."""

    verify = 1
    lanes = 1  # one engine lane (no attention data parallelism)

    def step(self, prefill: int, decodes: int, decode_keys: float, prefill_pairs: float) -> float:
        return 0.1 if prefill else 0.02

    def keys(self, context: float) -> float:
        return context

    def prefill_pairs(self, start: int, chunk: int) -> float:
        return chunk * (start + (chunk + 1) / 2)


def _setup(**kw: object) -> EngineSetup:
    """TGI 2.x's setup for 20 users on 4 A10Gs, without the request overhead, with `kw` replaced."""
    job, hw = _job("tgi-v2", concurrency=20)
    return replace(engine_setup(job, hw, CAT), request_overhead=0.0, **kw)  # type: ignore[arg-type]


def test_router_steady_state_hand_computed():
    """20 closed-loop users, 50 output tokens (49 decode steps after the prefill's first token), a
    216-token prompt; TGI's defaults: max_waiting_tokens 20, waiting_served_ratio 1.2.
    The ratio would onboard once the waiting reach 1.2 x the running: after ceil(1.2 / 2.2 x 49) = 27
    steps, so the router waits P = 20 steps.
    A request waits P/2 = 10 decode steps, then its prefill (with 20 x 20 / 59 = 6.78 prompts,
    1,464 tokens: one step under the 4,096 budget), then 49 decode steps interrupted by 49 / 20
    other prefills."""
    setup = _setup(prefill_tokens=216, decode_steps=49)
    st = router_steady_state(_FixedSteps(), setup, 20, 216)  # type: ignore[arg-type]
    assert st.ttft_seconds == pytest.approx(10 * 0.02 + 0.1)  # 0.30 s
    assert st.tpot_seconds == pytest.approx((49 * 0.02 + 49 / 20 * 0.1) / 49)  # 25 ms
    assert st.latency_seconds == pytest.approx(0.3 + 49 * 0.025)  # 1.525 s
    assert st.requests_per_second == pytest.approx((20 * 20 / 59) / (20 * 0.02 + 0.1))  # 13.56/s
    # steady_state hands an engine that prefills apart to the router's model
    assert steady_state(_FixedSteps(), setup, 20, 216) == st  # type: ignore[arg-type]


def test_the_router_onboards_when_the_waiting_reach_the_ratio_of_those_still_running():
    """9 decode steps: requests finish evenly, so after P steps P x 20/9 wait and 20 - P x 20/9 run;
    v1.0.3's router takes a new batch once the waiting reach 1.2 x the running: P = ceil(1.2 / 2.2 x 9)
    = 5 (before max_waiting_tokens' 20). r = 20 x 9 / 11.5, k = 20 x 5 / 11.5 = 8.70 prompts onboard."""
    setup = _setup(prefill_tokens=216, decode_steps=9)
    st = router_steady_state(_FixedSteps(), setup, 20, 216)  # type: ignore[arg-type]
    assert st.ttft_seconds == pytest.approx(5 / 2 * 0.02 + 0.1)  # 0.15 s
    assert st.tpot_seconds == pytest.approx((9 * 0.02 + 9 / 5 * 0.1) / 9)  # 40 ms
    assert st.requests_per_second == pytest.approx((20 * 5 / 11.5) / (5 * 0.02 + 0.1))  # 43.5/s


def test_without_decodes_every_prompt_in_rotation_is_prefilled_together():
    """One output token (no decode step): 8 users' 216-token prompts, 1,728 tokens, go in one prefill
    step of 100 ms: 80 requests/s, where one user alone makes 10."""
    setup = _setup(prefill_tokens=216, decode_steps=0)
    many = router_steady_state(_FixedSteps(), setup, 8, 216)  # type: ignore[arg-type]
    one = router_steady_state(_FixedSteps(), setup, 1, 216)  # type: ignore[arg-type]
    assert many.requests_per_second == pytest.approx(80.0) and one.requests_per_second == pytest.approx(10.0)
    assert many.ttft_seconds == pytest.approx(0.1)


def test_one_user_waits_for_no_router():
    """Alone, a request's prompt runs at once: TTFT is its prefill, TPOT a decode step."""
    setup = _setup(prefill_tokens=216, decode_steps=49)
    st = router_steady_state(_FixedSteps(), setup, 1, 216)  # type: ignore[arg-type]
    assert st.ttft_seconds == pytest.approx(0.1) and st.tpot_seconds == pytest.approx(0.02)
    assert st.latency_seconds == pytest.approx(0.1 + 49 * 0.02)


def test_an_engine_that_prefills_first_runs_each_prompt_as_it_comes():
    """SGLang's scheduler (prefill_first): 20 closed-loop users, 49 decode steps: a request finishes every
    49 / 20 = 2.45 decode steps and its successor's prompt runs at once, alone: P = 2.45; a new prompt
    waits half a decode step (the step under way), then its prefill: r = 20 x 49 / 49.5 = 19.8 running,
    k = 20 x 2.45 / 49.5 = 0.990 prompts a prefill; the other 19 users' prompts interrupt a request's
    decodes (49 / 2.45 x 19/20)."""
    setup = _setup(prefill_tokens=216, decode_steps=49, chunked_prefill=False, prefill_first=True)
    st = router_steady_state(_FixedSteps(), setup, 20, 216)  # type: ignore[arg-type]
    assert st.ttft_seconds == pytest.approx(0.5 * 0.02 + 0.1)  # 0.11 s
    assert st.tpot_seconds == pytest.approx((49 * 0.02 + 19 * 0.1) / 49)  # 58.8 ms
    assert st.requests_per_second == pytest.approx((20 * 2.45 / 49.5) / (2.45 * 0.02 + 0.1))  # 6.64/s
    # the rotation closes: 20 users over a request's latency is within 1 % of the rate
    assert 20 / st.latency_seconds == pytest.approx(st.requests_per_second, rel=0.01)
    # more completions than decode steps: several prompts go in each prefill step, one a decode step apart
    fast = router_steady_state(_FixedSteps(), replace(setup, decode_steps=9), 20, 216)  # type: ignore[arg-type]
    assert fast.ttft_seconds == pytest.approx(0.5 * 0.02 + 0.1)
    assert fast.tpot_seconds == pytest.approx((9 * 0.02 + 9 * 19 / 20 * 0.1) / 9)


def test_sglang_is_profiled_to_prefill_first():
    sglang = CAT.engine("sglang")
    assert sglang.prefill_first and not sglang.chunked_prefill
    assert CAT.sources[sglang.source_of("prefill_first")].url.endswith("v0.5.6/python/sglang/srt/managers/scheduler.py")
    job, hw = _job("sglang", concurrency=20, gpu="a100-80gb-sxm", tp=1)
    setup = engine_setup(job, hw, CAT)
    assert setup.prefill_first and not setup.chunked_prefill and not setup.router_waits
    assert _setup().router_waits  # TGI 2.x: its router's waiting rule


def test_sglang_chunks_prompts_by_the_gpus_memory():
    """SGLang 0.5.6's chunked_prefill_size by total memory: 2048 under 35 GiB, 4096 under 60, 8192 under
    160, 16384 from 160 GiB (server_args.py); its running-request cap stays unset."""
    sglang = CAT.engine("sglang")
    gib = 2**30
    for memory, tokens in ((32 * gib, 2048), (48 * gib, 4096), (80 * gib, 8192), (141 * gib, 8192), (180 * gib, 16384)):
        assert sglang.budget(memory) == (tokens, None), memory
    assert sglang.budget(160 * gib - 1)[0] == 8192 and sglang.budget(160 * gib)[0] == 16384
    # an engine without tiers keeps its two: vLLM's 2048 / 256 under 70 GiB
    assert CAT.engine("vllm").budget(48 * gib) == (2048, 256)


def test_a_few_sglang_clients_serve_what_their_latency_allows():
    """Two closed-loop clients: the rate is the clients over a request's latency (the estimate agrees
    with itself), and the estimate names SGLang's rule."""
    spec = {"model": "llama-3.1-8b", "task": "inference", "engine": "sglang", "input_tokens": 1024}
    est = make_estimate(spec | {"output_tokens": 1000, "concurrency": 2}, {"gpu": "h100-sxm:1"}).as_dict()
    inf = est["inference"]
    assert inf["tokens_per_second"] == pytest.approx(2 * 1000 / inf["latency_seconds"], rel=0.02)
    assert any("runs waiting prompts in prefill steps of their own" in a for a in est["assumptions"])
    assert not any("max_batch_prefill_tokens" in a or "wait for the router" in a for a in est["assumptions"])


def test_a_prefill_over_the_budget_takes_several_steps():
    setup = _setup(prefill_tokens=1000, decode_steps=49, token_budget=4096)
    st = router_steady_state(_FixedSteps(), setup, 20, 1000)  # type: ignore[arg-type]
    # 6.78 prompts of 1,000 tokens = 6,780 tokens: two prefill steps of at most 4,096
    assert st.ttft_seconds == pytest.approx(10 * 0.02 + 2 * 0.1)


def _cli(engine: str, model: str, concurrency: int) -> dict[str, float]:
    r = run_process(
        "estimate", "--model", model, "--task", "inference", "--engine", engine, "--tp", "4", "--gpu", "a10g:4",
        "--input-tokens", "216", "--output-tokens", "50", "--concurrency", str(concurrency),
        "--weights-dtype", "fp16", "--kv-dtype", "fp16", "--json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["inference"]


def test_tgi_versions_end_to_end():
    """TGI 2.x's router makes 20 users' requests wait for their prefill (vLLM chunks them in); at one
    user, TGI 1.x's decode step waits on its host dispatches where 2.x replays a CUDA graph; 3.x
    schedules as vLLM does."""
    busy = {e: _cli(e, "llama-2-13b", 20) for e in ("vllm", "tgi", "tgi-v2")}
    assert busy["vllm"]["time_to_first_token_seconds"] < busy["tgi-v2"]["time_to_first_token_seconds"]
    assert busy["vllm"]["tokens_per_second"] > busy["tgi-v2"]["tokens_per_second"]
    assert busy["tgi"]["tokens_per_second"] > busy["tgi-v2"]["tokens_per_second"]
    alone = {e: _cli(e, "llama-2-7b", 1) for e in ("tgi-v2", "tgi-v1")}
    assert alone["tgi-v1"]["decode_seconds_per_token"] > alone["tgi-v2"]["decode_seconds_per_token"]


def test_vllm_enforce_eager_floors_its_steps_by_its_own_kernel_count():
    """vLLM's Llama layer launches 12 kernels (2 all-reduces) and about 20 per step besides; under
    --enforce-eager on 4 A10Gs that is 12 x 32 + 20 = 404 dispatches of decode_host_seconds_eager,
    above the GPU work of a one-request decode step; with its CUDA graphs there is no floor."""
    h = CAT.convention("decode_host_seconds_eager")
    job, hw = _job("vllm")
    rates = compute_rates(hw.gpu, "fp16", CAT)
    graphed = step_model(job, rates, topology(hw, CAT), CAT)
    eager = step_model(replace(job, enforce_eager=True), rates, topology(hw, CAT), CAT)
    assert eager_kernels(CAT.engine("vllm"), LLAMA7B, tp=4) == 404
    assert graphed.host_floor == 0.0 and eager.host_floor == pytest.approx(404 * h)
    assert eager.fixed(1, 1) == pytest.approx(404 * h + eager.overhead + eager.per_sequence)  # V1 schedules it
    assert eager.fixed(1, 1) > graphed.fixed(1, 1)


def test_enforce_eager_needs_an_engine_whose_kernels_are_counted():
    r = run_process("estimate", "--model", "llama-2-7b", "--task", "inference", "--engine", "trtllm", "--enforce-eager")
    assert r.returncode == 2 and "modelled for vllm" in r.stderr + r.stdout
    r = run_process("estimate", "--model", "resnet-50", "--task", "inference", "--enforce-eager")
    assert r.returncode == 2 and "LLM serving engines" in r.stderr + r.stdout
