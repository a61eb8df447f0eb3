"""Serving a MoE model with expert parallelism (--ep) and attention data parallelism (--attention-dp):
the memory of one rank, the tokens its experts take, the dispatch and combine traffic, and the
lockstep of the ranks, each against a figure computed by hand."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.errors import GpuwiseError
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import StepModel, engine_setup, moe_dispatch
from gpuwise.estimate.memory.states import weight_bytes_per_param
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.serving import expected_busiest, steady_state
from gpuwise.workload import InferenceJob, build_hardware, build_workload

CAT = load_catalog()
# DeepSeek-R1 (its config.json): 61 layers, 58 of them MoE with 256 routed experts of width 2048
# (top-8), hidden 7168; MLA caches kv_lora_rank 512 + qk_rope_head_dim 64 per token and layer
R1 = {"model": "deepseek-r1", "task": "inference", "engine": "trtllm", "weights_dtype": "fp8", "kv_dtype": "bf16"}
RUN = {"input_tokens": 1024, "output_tokens": 2048, "concurrency": 1024}


def _job(**opts: Any) -> InferenceJob:
    job = build_workload({**R1, **RUN, **opts}, CAT)
    assert isinstance(job, InferenceJob)
    return job


def _memory(gpus: int, **opts: Any) -> Any:
    return make_estimate({**R1, **RUN, **opts}, {"gpu": f"h200:{gpus}"}).memory.per_gpu


def test_attention_dp_rank_holds_the_kv_cache_of_its_own_requests():
    """1024 requests over 8 attention ranks: 128 each, 3072 tokens, 61 x 576 bf16 elements a token:
    128 x 3072 x 70,272 B = 27,632,074,752 B; tensor parallelism keeps the latent on every rank for
    all 1024 requests, 8 times as much."""
    per_rank = 128 * 3072 * 61 * 576 * 2
    assert per_rank == 27_632_074_752
    assert _memory(8, tp=8, ep=8, attention_dp=True).kv_cache == per_rank
    assert _memory(8, tp=8).kv_cache == 8 * per_rank


def test_attention_dp_rank_holds_all_but_seven_eighths_of_the_routed_experts():
    """Each rank holds attention, the dense layers, the shared experts and the head whole and 1/8 of
    the 58 x 256 routed experts (3 x 7168 x 2048 fp8 weights each): one GPU's whole model less 7/8 of
    them. Expert parallelism without attention data parallelism splits the experts 8 ways as tensor
    parallelism does: the same bytes per GPU."""
    experts = 58 * 256 * 3 * 7168 * 2048
    fp8 = weight_bytes_per_param("fp8", CAT.convention)
    whole = _memory(1, tp=1).weights
    assert _memory(8, tp=8, ep=8, attention_dp=True).weights == pytest.approx(whole - 7 / 8 * experts * fp8, rel=1e-12)
    assert _memory(8, tp=8, ep=8).weights == pytest.approx(_memory(8, tp=8).weights, rel=1e-12)


def test_dispatch_and_combine_are_two_all_to_alls_per_moe_layer():
    """128 tokens, top-8 copies of 7168 16-bit values: 14,680,064 B per rank each way; an all-to-all
    over 8 NVLink ranks moves 7/8 of it, plus one latency per step and the collective's base cost;
    twice (dispatch, combine) in each of the 58 MoE layers."""
    job = _job(tp=8, ep=8, attention_dp=True)
    hw = build_hardware("h200:8", CAT)
    topo = topology(hw, CAT)
    routed = 128 * 8 * 7168 * 2
    assert routed == 14_680_064
    one = topo.base_latency + 7 / 8 * routed / topo.intra.bandwidth + 7 * topo.intra.latency
    assert moe_dispatch(job.model, 128, 8, topo) == pytest.approx(2 * 58 * one, rel=1e-12)
    dense = build_workload({"model": "llama-3.1-8b", "task": "inference"}, CAT).model
    assert moe_dispatch(dense, 128, 8, topo) == 0.0


def test_expected_busiest_rank_by_hand():
    """Two ranks, one slot prefilling with probability 1/2: the max is 1 unless both are idle, 3/4.
    Two slots each: counts 0, 1, 2 with 1/4, 1/2, 1/4; P(max >= 1) = 1 - 1/16, P(max >= 2) = 1 -
    (3/4)^2: E = 15/16 + 7/16 = 1.375. One rank: the mean, slots x p."""
    assert expected_busiest(1, 0.5, 2) == pytest.approx(0.75)
    assert expected_busiest(2, 0.5, 2) == pytest.approx(1.375)
    # a large batch: (1 - p) ** slots underflows, yet the busiest of 8 Binomial(1100, 0.5) counts is about
    # its mean plus 1.42 standard deviations (the expected largest of 8 normals): 550 + 1.42 x 16.6
    assert expected_busiest(1100, 0.5, 8) == pytest.approx(550 + 1.4236 * (1100 * 0.25) ** 0.5, rel=0.005)
    assert expected_busiest(400, 0.9, 8) == pytest.approx(360 + 1.4236 * (400 * 0.09) ** 0.5, rel=0.01)
    assert expected_busiest(128, 1 / 2048, 1) == pytest.approx(128 / 2048)
    assert expected_busiest(5, 1.0, 8) == 5.0
    assert expected_busiest(5, 0.0, 8) == 0.0


def test_ranks_in_lockstep_run_at_the_busiest_ranks_step():
    """Attention ranks step together: every running request waits for the busiest rank, so a token
    takes one whole step; that step carries the busiest rank's expected prompt chunks (one chunk of
    1024 tokens a request, 128 slots each prefilling 1 of 1 + 2047 steps, over 8 ranks) beside the
    rank's 128 x 2047/2048 decodes, its experts on the ranks' mean load."""
    job = _job(tp=8, ep=8, attention_dp=True)
    hw = build_hardware("h200:8", CAT)
    rates, topo = compute_rates(hw.gpu, "fp8", CAT), topology(hw, CAT)
    model, setup = StepModel(job, rates, topo, CAT), engine_setup(job, hw, CAT)
    assert (model.lanes, setup.pipelines, setup.max_batch) == (8, 8, 128)
    st = steady_state(model, setup, 128, 1024)
    busiest = expected_busiest(128, 1 / 2048, 8)
    assert 1 - math.exp(-0.5) < busiest < 0.42  # about 40 % of the steps carry a prompt somewhere
    dec = 128 * 2047 / 2048
    ctx = 1024 + 2047 / 2
    pairs = model.prefill_pairs(0, 1024) / 1024 * busiest * 1024
    routed = round(128 * 1024 / 2048 + dec)
    t = model.step(round(busiest * 1024), round(dec), model.keys(ctx) * dec, pairs, routed)
    assert st.step_seconds == pytest.approx(t, rel=1e-12)
    assert st.tpot_seconds == st.step_seconds
    assert st.requests_per_second == pytest.approx(128 / (2048 * t), rel=1e-12)


def test_sglang_attention_ranks_keep_the_lockstep_model():
    """SGLang prefills apart on one lane, but its attention ranks step together: the lockstep model
    (every rank's prompt chunks lengthen every rank's step) stays theirs, not the one-lane rule."""
    job = _job(tp=8, ep=8, attention_dp=True, engine="sglang")
    hw = build_hardware("h200:8", CAT)
    rates, topo = compute_rates(hw.gpu, "fp8", CAT), topology(hw, CAT)
    model, setup = StepModel(job, rates, topo, CAT), engine_setup(job, hw, CAT)
    assert model.lanes == 8 and not setup.chunked_prefill
    apart = steady_state(model, setup, 128, 1024)
    mixed = steady_state(model, replace(setup, chunked_prefill=True, prefill_first=False), 128, 1024)
    assert apart == mixed


def test_experts_on_the_mean_load_read_the_same_weights_for_fewer_tokens():
    """An attention rank with a 1024-token prompt: its experts take the ranks' mean (here 144 tokens),
    not its own 1152, so the step is shorter than if every rank were as busy."""
    job = _job(tp=8, ep=8, attention_dp=True)
    hw = build_hardware("h200:8", CAT)
    model = StepModel(job, compute_rates(hw.gpu, "fp8", CAT), topology(hw, CAT), CAT)
    assert model.linear(1152, 129, 144) < model.linear(1152, 129)
    assert model.linear(1152, 129, 1152) == model.linear(1152, 129)


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"model": "llama-3.1-8b", "tp": 2, "ep": 2}, "experts"),
        ({"tp": 8, "ep": 3}, "must divide 8"),
        ({"tp": 8, "ep": 4, "attention_dp": True}, "--tp N --ep N"),
        ({"model": "llama-3.1-70b", "tp": 8, "attention_dp": True}, "has no experts"),
    ],
)
def test_layouts_that_cannot_serve_are_usage_errors(opts, message):
    with pytest.raises(GpuwiseError, match=message):
        build_workload({**R1, **RUN, **opts}, CAT)


def test_serving_estimate_without_the_new_options_is_unchanged_by_them():
    """--ep alone keeps tensor-parallel attention: its KV cache and capacity limit stay those of TP8."""
    tp = make_estimate({**R1, **RUN, "tp": 8}, {"gpu": "h200:8"})
    ep = make_estimate({**R1, **RUN, "tp": 8, "ep": 8}, {"gpu": "h200:8"})
    assert ep.memory.per_gpu.kv_cache == tp.memory.per_gpu.kv_cache
    assert ep.inference is not None and tp.inference is not None
    assert ep.inference.requests_per_second == pytest.approx(tp.inference.requests_per_second, rel=0.1)


def test_a_serving_target_with_attention_dp_is_refused_with_the_reason():
    """The replica simulation runs each lane on its own: with ranks in lockstep it would be optimistic."""
    with pytest.raises(GpuwiseError, match="step together"):
        make_estimate(
            {**R1, **RUN, "tp": 8, "ep": 8, "attention_dp": True}, {"gpu": "h200:8", "qps": 2, "tpot_ms": 100}
        )


def test_plan_refuses_a_serving_layout_it_does_not_search():
    """plan chooses the layout; it does not search --ep / --attention-dp for serving, so it refuses them
    (a usage error) rather than plan a layout the user did not ask for."""
    from .conftest import run_process

    args = ["plan", "--model", "qwen3-30b-a3b", "--task", "inference", "--tp", "4", "--ep", "4", "--attention-dp"]
    r = run_process(*args, "--qps", "1", "--gpus", "h100-sxm")
    assert r.returncode == 2 and "does not search expert-parallel" in r.stderr
