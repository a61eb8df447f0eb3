"""Whole large training runs: the published GPU-hours of Llama 2 7B/13B/70B (A100) and Llama 3.1
8B/70B/405B (H100) against what `gpuwise plan` expects them to cost, judged leave-one-run-out
(corpus/data/published_large_runs.yaml, scripts/large_runs.py, docs/accuracy-large-runs.md); and the
planner's pieces the runs depend on, each hand-computed."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus import large_runs
from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.errors import LayoutError
from gpuwise.estimate.comm import Link, Topology, collective
from gpuwise.estimate.memory import memory
from gpuwise.estimate.memory.activations import (
    _in_flight,
    _layer_options,
    layer_activation_bytes,
    saving_linears,
    training_activations,
)
from gpuwise.estimate.memory.breakdown import Notes
from gpuwise.estimate.memory.states import framework_of
from gpuwise.estimate.memory.training import pipeline_ranks
from gpuwise.estimate.rates import compute_rates
from gpuwise.plan.layouts import best_layout, virtual_stages
from gpuwise.workload import Parallelism, TrainingJob, build_hardware, build_workload
from gpuwise.workload.specs import interleavable, stage_layers

from .conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
CAT = load_catalog()
SCRIPT = load_script("large_runs")
RESULTS = {run["id"]: (run, ins, oos) for run, ins, oos, _ in SCRIPT.evaluate(CAT)}


# runs outside the goal, each bounded at its error + 3 points with the cause (the goal stays 25 %); none since
# 2026-12-04, when Llama 3.1 405B's 4K and 8K stages took the recomputation Meta states (none) instead of the full
# recomputation gpuwise's memory model needs for them (+36 % -> +7 %)
MISSES: dict[str, float] = {}
# each run's out-of-sample error as of 2026-12-04, +/- 3 points: a regression bound beside the goal
ERRORS = {
    "llama2-7b": -0.156,
    "llama2-13b": -0.203,
    "llama2-70b": -0.128,
    "llama31-8b": -0.199,
    "llama31-70b": 0.074,
    "llama31-405b": 0.071,
}


def test_each_run_stays_near_its_recorded_error():
    assert set(ERRORS) == set(RESULTS)
    for run_id, (_, _, oos) in RESULTS.items():
        assert oos.error == pytest.approx(ERRORS[run_id], abs=0.03), f"{run_id}: {oos.error:+.1%}"


@pytest.mark.parametrize("run_id", sorted(RESULTS))
def test_each_large_run_within_25_percent_out_of_sample(run_id):
    run, _, oos = RESULTS[run_id]
    assert oos.sample == "out of sample"
    bound = MISSES.get(run_id, large_runs.BOUND)
    assert abs(oos.error) <= bound, f"{run_id}: {oos.error:+.1%} of {run['published_gpu_hours']:,} GPU-hours"


def test_a_run_outside_the_goal_is_named_as_such():
    """The bounds above are regression bounds, not the goal: a run beyond 25 % is one the goal misses."""
    assert all(bound > large_runs.BOUND for bound in MISSES.values())
    assert all(abs(RESULTS[r][2].error) > large_runs.BOUND for r in MISSES)


def test_the_losses_add_up_to_the_prediction():
    for run_id, (_, _, oos) in RESULTS.items():
        assert oos.failure_free + sum(oos.losses().values()) == pytest.approx(oos.predicted), run_id
        assert all(v >= 0 for v in oos.losses().values()), run_id


def test_the_405b_out_of_sample_prediction_uses_nothing_from_its_own_run():
    """The run gave the catalog its interruption count and restart time, three at-scale MFU rows and
    part of the Megatron fit: its out-of-sample catalog has none of them."""
    run = RESULTS["llama31-405b"][0]
    held = large_runs.out_of_sample_catalog(run, CAT, efficiency=0.5)
    assert not [r for r in held.at_scale if r.run == "llama3-405b"]
    assert [r for r in CAT.at_scale if r.run == "llama3-405b"]
    assert held.reliability["unexpected_interruptions"].value == 100  # MegaScale's restarts
    assert held.reliability["restart_seconds_per_interruption"].value == 600
    assert held.frameworks["megatron"].efficiency == 0.5
    ins, oos = RESULTS["llama31-405b"][1:]
    assert ins.sample == "in sample" and ins.predicted != oos.predicted


def test_the_405b_stages_recompute_what_meta_states_where_the_memory_model_would_not():
    """Section 3.3.2: 8K sequences pre-trained without activation checkpointing; the 4K and 8K stages run so
    (39.7 % modelled MFU against 41-43 % published), while gpuwise's memory model puts that layout over the
    H100's 80 GiB (the document says so) and the 128K stage keeps the recomputation the planner chooses."""
    run, _, oos = RESULTS["llama31-405b"]
    assert [st.get("recompute") for st in run["stages"]] == ["none", "none", "none", None]
    eight_k = [s for s in oos.stages if s.seq == 8192]
    assert all(s.layout.endswith("recompute none") for s in eight_k)
    assert all(0.38 < s.mfu < 0.43 for s in eight_k)
    assert oos.stages[-1].layout.endswith("recompute full")
    job, _ = large_runs.stage(run, run["stages"][2], CAT)
    hw = build_hardware("h100-sxm:16384", CAT)
    assert memory(job, hw, CAT).per_gpu.total > hw.gpu.capacity_bytes  # the planner alone would recompute


def test_the_document_is_up_to_date():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "large_runs.py"), "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr


def test_interleaved_warm_up_holds_megatrons_count_of_chunks():
    """Megatron's interleaved schedule: the first rank runs 2(pp - 1) + (vpp - 1)pp warm-up chunks
    before its first backward, each 1/vpp of the stage's layers."""
    notes = Notes(CAT)
    assert _in_flight(16, 1, 32, notes) == 16  # 1F1B: pp micro-batches
    assert _in_flight(16, 1, 4, notes) == 4  # fewer micro-batches than stages
    assert _in_flight(16, 4, 32, notes) == (2 * 15 + 3 * 16 + 1) / 4  # 79 chunks of a quarter stage
    assert _in_flight(16, 4, 16, notes) == 64 / 4  # at most every chunk of every micro-batch
    assert _in_flight(1, 4, 8, notes) == 1  # no pipeline


def _job(**kw: object) -> TrainingJob:
    base = {"model": "llama-3.1-405b", "task": "pretrain", "seq": 8192, "global_batch": 2048, "micro_batch": 1}
    job = build_workload(base | kw, CAT)
    assert isinstance(job, TrainingJob)
    return job


def test_the_search_interleaves_a_long_pipeline_where_the_stack_can():
    """405B on Table 4's 16,384-GPU layout (TP 8, PP 16): 16 micro-batches per rank, 8 layers per
    stage; virtual stages 2, 4 and 8 divide the stage and 16 micro-batches divide by 16, and the
    search picks one, which divides the 1F1B bubble. DeepSpeed has no interleaved schedule."""
    hw = build_hardware("h100-sxm:16384", CAT)
    par = Parallelism(tp=8, pp=16, zero=1)
    assert virtual_stages(_job(), hw, par, 1, CAT) == (1, 2, 4, 8)
    assert virtual_stages(_job(global_batch=2040), hw, par, 1, CAT) == (1,)  # 15.9 micro-batches per rank
    assert virtual_stages(_job(framework="deepspeed"), hw, par, 1, CAT) == (1,)
    choice = best_layout(_job(), hw, CAT, compute_rates(hw.gpu, "bf16", CAT), (8, 16, 1))
    assert choice.job is not None and choice.job.parallel.vpp > 1


def test_a_pipeline_chunk_may_hold_only_the_embedding_or_the_output_layer():
    """Llama 3 405B's 126 layers on 16 ranks of 8 virtual stages: 128 chunks, the first holding only
    the embedding and the last only the output layer and loss (Llama 3 paper section 3.3.2; Megatron
    Core's --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split), and the
    interleaved bubble is the 1F1B one over 8. 129 chunks would leave one empty: `estimate` refuses
    them, and the search does not try them (30 layers on 4 ranks: 8 a stage, 32 chunks, tried at 8
    virtual stages; 29 layers: also 8 a stage, but 32 chunks for 29 layers, so 2 and 4 only)."""
    assert interleavable(126, 16, 8) and interleavable(126, 16, 1)
    assert not interleavable(126, 43, 3)  # 129 chunks
    assert interleavable(30, 4, 8) and not interleavable(29, 4, 8)
    base = {"model": "llama-3.1-405b", "task": "pretrain", "framework": "megatron", "precision": "bf16"}
    layout = {"tp": 8, "pp": 16, "micro_batch": 1, "global_batch": 2048, "seq": 8192}
    bubbles = [
        make_estimate(base | layout | {"vpp": v}, {"gpu": "h100-sxm:16384"}).training.terms["pipeline_bubble"]
        for v in (1, 8)
    ]
    assert bubbles[1] == pytest.approx(bubbles[0] / 8)
    with pytest.raises(LayoutError, match="need at least 127 layers"):
        build_workload(base | {"tp": 8, "pp": 43, "vpp": 3, "seq": 8192}, CAT)
    hw, par = build_hardware("h100-sxm:32", CAT), Parallelism(tp=8, pp=4, zero=1)
    job = _job(framework="megatron", global_batch=64)
    for layers, tried in ((30, (1, 2, 4, 8)), (29, (1, 2, 4))):
        shallow = replace(job, model=replace(job.model, layers=layers))
        assert virtual_stages(shallow, hw, par, 1, CAT) == tried, layers


def test_a_data_parallel_group_beside_tensor_parallelism_sends_its_whole_buffer_over_the_network():
    """16 ranks, one per node (tensor parallelism fills each node): the ring all-reduce moves
    2 x 15/16 of the buffer over each GPU's NIC, 30 hops; as one group of 8 per node it moved 1/8 of it."""
    intra, inter = Link("nvlink", 400e9, 1e-6), Link("net", 50e9, 3e-6)
    topo = Topology(intra=intra, inter=inter, gpus_per_node=8, notes=(), base_latency=5e-6)
    buf = 8e9
    one_per_node = collective("all_reduce", buf, 16, topo, spans_nodes=True, per_node=1)
    assert one_per_node == pytest.approx(5e-6 + 2 * 15 / 16 * buf / 50e9 + 2 * 15 * 3e-6)
    whole_node = collective("all_reduce", buf * 8 / 8, 128, topo, spans_nodes=True)  # 8 per node, 16 nodes
    assert whole_node == pytest.approx(
        5e-6 + (2 * 7 / 8 * buf / 400e9 + 14e-6) + (2 * 15 / 16 * buf / 8 / 50e9 + 90e-6)
    )


def test_a_lora_run_with_a_sharded_optimizer_gathers_its_adapters_not_the_base():
    """ZeRO-1 all-gathers the updated parameters after the step: under LoRA those are the adapters;
    the frozen 70B base is never updated, so it is never gathered (MLPerf's LoRA layout on 64 H100,
    TP 4 x CP 2: gathering the base was 0.14 s of a 0.65 s step)."""
    work = {"model": "llama-2-70b", "task": "finetune", "method": "lora", "lora_rank": 16, "seq": 8192}
    work |= {"tp": 4, "cp": 2, "zero": 1, "framework": "nemo", "precision": "fp8", "micro_batch": 1, "global_batch": 8}
    t = make_estimate(work, {"gpu": "h100-sxm:64"}).training
    assert t.terms["data_parallel_comm"] < 0.001 * t.step_seconds


def test_the_edge_stages_hold_a_layer_fewer_where_the_pipeline_does_not_divide_the_layers():
    """126 layers on 16 stages: 7 on the first (beside the embedding), 8 on the fourteen between, 7 on
    the last (beside the output layer), as Llama 3 405B ran (section 3.3.2); 30 on 4: 7, 8, 8, 7;
    29 on 4: 7, 8, 7, 7 (a full stage remains); where pp divides the layers every stage holds the same."""
    assert [stage_layers(126, 16, s) for s in ("first", "middle", "last")] == [7, 8, 7]
    assert [stage_layers(30, 4, s) for s in ("first", "middle", "last")] == [7, 8, 7]
    assert [stage_layers(29, 4, s) for s in ("first", "middle", "last")] == [7, 8, 7]
    assert [stage_layers(31, 4, s) for s in ("first", "middle", "last")] == [7, 8, 8]
    assert [stage_layers(80, 8, s) for s in ("first", "middle", "last")] == [10, 10, 10]
    assert stage_layers(126, 1, "only") == stage_layers(126, 16, "only") == 126


@given(st.integers(2, 64), st.integers(0, 200))
def test_the_stages_hold_every_layer_once(pp, extra):
    """Every stage holds ceil or ceil - 1 layers, a full one remains, and the stages add up."""
    layers = pp + extra
    full = -(-layers // pp)
    first, last = stage_layers(layers, pp, "first"), stage_layers(layers, pp, "last")
    assert stage_layers(layers, pp, "middle") == full
    assert {first, last} <= {full - 1, full} and first >= 1 and first <= last
    short = pp * full - layers
    inner_short = short - (full - first) - (full - last)  # the middle stages' share of the shortfall
    assert 0 <= inner_short <= max(0, pp - 3)  # at least one full middle stage where there are any
    assert first + last + (pp - 2) * full - inner_short == layers


def test_at_table_4s_layout_the_second_rank_holds_the_most():
    """Table 4's 16,384-GPU layout (TP 8, PP 16, 8 virtual stages, 16 micro-batches a rank): the first
    rank holds all 16 micro-batches of its 7 layers (the first chunk is the embedding's), 112 layers'
    activations; the second rank, a full stage of 8 layers, runs 2 x 14 + 7 x 16 = 140 warm-up chunks,
    capped at all 128 of its 16 micro-batches: 128 layers' activations, the most of any rank, so the
    layout does not fit 80 GB without recomputation in the model."""
    spec = {"model": "llama-3.1-405b", "task": "pretrain", "framework": "megatron", "seq": 8192, "global_batch": 2048}
    layout = {"micro_batch": 1, "tp": 8, "pp": 16, "vpp": 8, "zero": 1, "recompute": "none"}
    est = make_estimate(spec | layout, {"gpu": "h100-sxm:16384"})
    job = _job(framework="megatron", tp=8, pp=16, vpp=8, zero=1, recompute="none")
    per_layer = layer_activation_bytes(
        job.model,
        8192,
        1,
        2,
        8,
        True,
        "flash",
        "none",
        Notes(CAT),
        saving_linears(job),
        **_layer_options(job, framework_of(job, CAT), 2, Notes(CAT)),
    )
    assert pipeline_ranks(job) == ("first", "second", "last")
    assert _in_flight(16, 8, 16, Notes(CAT), rank=1) == 16
    assert est.memory.per_gpu.detail["layer_activations"] == pytest.approx(8 * 16 * per_layer)
    assert not est.memory.fits
    first = training_activations(
        job, build_hardware("h100-sxm:16384", CAT), "first", framework_of(job, CAT), Notes(CAT)
    )
    assert first[1]["layer_activations"] == pytest.approx(7 * 16 * per_layer)
    # 1F1B at pipeline size 4 with 30 layers (7, 8, 8, 7) and 8 micro-batches: rank 0 holds 4 x 7, rank 1 3 x 8
    assert _in_flight(4, 1, 8, Notes(CAT), rank=1) == 3
