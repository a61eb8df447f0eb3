"""When a data-parallel rank reduces its gradients, as what it holds implies: ZeRO-2 keeps only its
shard, so with gradient accumulation it reduce-scatters every micro-batch (DeepSpeed's
stage_1_and_2.py reduces on every micro-step when it partitions gradients, only at the accumulation
boundary for stage 1; FSDP in every backward outside no_sync); ZeRO-1, deferred synchronisation and
torchtitan's pipeline stages (kept unsharded between micro-batches, reduced after the last) reduce
once a step. The layout search times ZeRO-1 beside ZeRO-2 where a step accumulates, and with
pipeline stages every stage the stack combines with them."""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate import memory
from gpuwise.estimate.comm import Link, Topology
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.training import training_time
from gpuwise.plan.layouts import zero_stages
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()
# two nodes of 8 over 1 GB/s a GPU between them, no latencies: a micro-batch's gradient
# reduce-scatter (13.5 GB of 7B fp32 gradients) takes far longer than its backward
SLOW = Topology(
    intra=Link("nvlink", 100e9, 0.0), inter=Link("net", 1e9, 0.0), gpus_per_node=8, notes=(), base_latency=0.0
)
HW16 = build_hardware("h100-sxm:16", CAT)


def _job(**opts: object) -> TrainingJob:
    base = {"model": "llama-2-7b", "task": "pretrain", "micro_batch": 1, "seq": 2048, "framework": "deepspeed"}
    job = build_workload({**base, **opts}, CAT)
    assert isinstance(job, TrainingJob)
    return job


def _dp_comm(job: TrainingJob, hw=HW16, topo: Topology = SLOW) -> float:
    est = training_time(job, hw, compute_rates(hw.gpu, "bf16", CAT), topo, CAT)
    return est.terms["data_parallel_comm"]


def test_one_micro_batch_a_step_moves_the_same_under_zero1_and_zero2():
    assert _dp_comm(_job(zero=2, global_batch=16)) == pytest.approx(_dp_comm(_job(zero=1, global_batch=16)))


def test_zero2_pays_each_micro_batch_reduction_zero1_once():
    """16 ranks, global batch 16 / 32 / 64: 1, 2 and 4 micro-batches a step. ZeRO-1's exposed time does
    not depend on them; ZeRO-2's grows by the same amount for each micro-batch added."""
    z1 = [_dp_comm(_job(zero=1, global_batch=16 * m)) for m in (1, 2, 4)]
    z2 = [_dp_comm(_job(zero=2, global_batch=16 * m)) for m in (1, 2, 4)]
    assert z1[0] == pytest.approx(z1[1]) == pytest.approx(z1[2])
    per_micro_batch = z2[1] - z2[0]
    assert per_micro_batch > 0.5 * z2[0]  # the slow network: each reduce-scatter mostly exposed
    assert z2[2] - z2[1] == pytest.approx(2 * per_micro_batch)


def test_deferred_synchronisation_makes_zero2_reduce_once():
    deferred = _job(zero=2, global_batch=64, defer_grad_sync=True)
    assert _dp_comm(deferred) == pytest.approx(_dp_comm(_job(zero=1, global_batch=64)))
    assert _dp_comm(deferred) < _dp_comm(_job(zero=2, global_batch=64)) / 2


def test_zero3_with_deferred_synchronisation_reduces_once():
    """FSDP no_sync over 4 micro-batches: the parameter gathers stay per micro-batch, the gradient
    reduce-scatter runs once: less exposed than synchronising each micro-batch."""
    each = _dp_comm(_job(zero=3, global_batch=64, framework="fsdp"))
    once = _dp_comm(_job(zero=3, global_batch=64, framework="fsdp", defer_grad_sync=True))
    assert 0 < once < each


def _titan(zero: int) -> TrainingJob:
    return _job(framework="torchtitan", zero=zero, pp=2, global_batch=32, recompute="full")


def test_torchtitan_pipeline_stages_hold_gradients_whole_at_zero2_as_at_zero3():
    """PyTorch's pipelining stage runs every micro-batch but the last without gradient synchronisation
    whatever the reshard setting: at ZeRO-2 as at ZeRO-3 a rank keeps its stage's gradients unsharded
    in fp32 (4 B x the stage's parameters) and reduces them once, and so has the same exposed time."""
    hw = build_hardware("h100-sxm:32", CAT)  # pp 2 x dp 16
    z2, z3 = memory(_titan(2), hw, CAT).per_gpu, memory(_titan(3), hw, CAT).per_gpu
    assert z2.detail["unsharded_gradients"] == pytest.approx(z3.detail["unsharded_gradients"])
    assert z2.gradients >= z2.detail["unsharded_gradients"]
    assert _dp_comm(_titan(2), hw) == pytest.approx(_dp_comm(_titan(3), hw))


def test_the_search_times_the_stages_that_can_win():
    assert zero_stages(1, 1, accumulates=True) == (0,)
    # one GPU with the optimizer in CPU memory, on a stack that runs DeepSpeed's ZeRO-Offload: ZeRO-2 (DeepSpeed
    # offloads under stages 1-3 only); FSDP and torchtitan offload parameters, gradients and states together
    assert zero_stages(1, 1, accumulates=True, zero_offload=True) == (2,)
    assert CAT.frameworks["hf-trainer"].zero_offload and CAT.frameworks["deepspeed"].zero_offload
    assert not CAT.frameworks["fsdp"].zero_offload and not CAT.frameworks["torchtitan"].zero_offload
    assert zero_stages(8, 1, accumulates=False) == (2, 3)  # one micro-batch: ZeRO-2 dominates ZeRO-1
    assert zero_stages(8, 1, accumulates=True) == (2, 1, 3)  # ZeRO-1 reduces once: timed, after ZeRO-2
    assert zero_stages(8, 4, accumulates=True) == (1,)  # Megatron, DeepSpeed: the distributed optimizer
    torchtitan = CAT.frameworks["torchtitan"].pipeline_max_zero
    assert zero_stages(8, 4, accumulates=True, pipeline_max_zero=torchtitan) == (1, 2, 3)
    assert zero_stages(8, 1, accumulates=True, tables_sharded=True) == (0,)
    # one GPU under plain AMP over fp32 parameters: FSDP's 16-bit parameters (stages 2, 3) skip the fp32
    # residual stream, so they are timed beside stage 0
    assert zero_stages(1, 1, accumulates=True, fp32_stream=True) == (0, 2, 3)
    assert zero_stages(8, 1, accumulates=False, fp32_stream=True) == (2, 3)
    # ... within what the stack combines with pipeline stages (Megatron, DeepSpeed: stage 1 at most)
    assert zero_stages(1, 2, accumulates=True, fp32_stream=True) == (0,)
    assert zero_stages(1, 2, accumulates=True, pipeline_max_zero=torchtitan, fp32_stream=True) == (0, 2, 3)


def test_one_gpu_plain_amp_search_keeps_the_faster_fsdp_layout():
    """A Phi-3-mini fine-tune on one H100 under the PyTorch stack: the chosen layout is at least as fast as
    ZeRO-3 on that GPU, which the fp32 residual stream of plain AMP at stage 0 would lose to."""
    from dataclasses import replace

    from gpuwise.api import make_plan
    from gpuwise.estimate import estimate
    from gpuwise.workload import Parallelism

    work = {"model": "phi-3-mini-4k-instruct", "method": "full", "tokens": "100M", "seq": 1024, "global_batch": 256}
    chosen = make_plan(work, {"deadline": "2d", "gpus": "h100-sxm"}).chosen
    assert chosen is not None and chosen.est.hardware.count == 1
    fsdp = replace(chosen.est.workload, parallel=Parallelism(zero=3), recompute="none", micro_batch=1)
    other = estimate(fsdp, chosen.est.hardware, CAT, search_largest=False)
    assert other.memory.fits and other.training is not None and chosen.est.training is not None
    assert other.training.samples_per_second <= chosen.est.training.samples_per_second * (1 + 1e-9)


def test_a_sharding_layout_on_one_gpu_says_why_and_only_where_the_search_chose_it_for_that():
    """A BERT-base fine-tune on one RTX 4090 under the HF Trainer: the plan takes ZeRO-3 on one data-parallel
    rank (the wrapper's 16-bit parameters against plain AMP's fp32 stream) and says so in both languages;
    ZeRO-3 named on Megatron-LM (no plain AMP at stage 0) is the user's layout and carries no such reason."""
    from gpuwise.api import make_plan
    from gpuwise.i18n import reason_text

    work = {"model": "bert-base-uncased", "task": "finetune", "samples": 1_000_000}
    chosen = make_plan(work, {"gpus": "rtx-4090", "max_gpus": 1}).chosen
    assert chosen is not None and chosen.est.workload.parallel.zero >= 2
    said = [r for r in chosen.why if r.code == "layout.sharded_one_rank"]
    assert len(said) == 1 and said[0].params["zero"] == chosen.est.workload.parallel.zero
    assert "nothing is sharded, but the wrapper computes from 16-bit parameters" in reason_text(said[0], "en")
    assert "没有东西被切分" in reason_text(said[0], "zh")
    named = make_plan({**work, "framework": "megatron", "zero": 3}, {"gpus": "rtx-4090", "max_gpus": 1}).chosen
    assert named is not None and not any(r.code == "layout.sharded_one_rank" for r in named.why)


def test_a_step_in_backward_is_searched_at_its_ranks_whole_batch():
    """--optimizer-in-backward accumulates nothing: the search's only micro-batch is the rank's share of the
    global batch (global 4 over 2 ranks: 2), where it used to try 1, 2 and 4 and refuse each accumulation."""
    from gpuwise.plan.layouts import micro_batches
    from gpuwise.workload import build_workload

    opts = {"model": "llama-2-7b", "method": "full", "framework": "torchtune", "master_weights": False}
    work = build_workload({**opts, "optimizer_in_backward": True, "micro_batch": 1, "global_batch": 4}, CAT)
    assert micro_batches(work, 2) == [2]
    assert micro_batches(work, 3) == []  # 4 samples do not split over 3 ranks
