"""Hybrid sharding (HSDP) and ZeRO++ in memory (what each rank holds) and time (which collective
goes over which link, with how many bytes), hand-computed on round numbers; the flags refused
where the stack has no such layout; the plan search trying them across nodes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate import memory
from gpuwise.estimate.comm import Link, Topology, collective_across_nodes
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.sharding import node_ranks, shard_ranks, sharded_optimizer_comm, zero3_comm
from gpuwise.plan.layouts import best_layout, shardings
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()
# 100 GB/s inside a node, 10 GB/s per GPU between nodes, no latencies: every time below by hand
TOPO = Topology(
    intra=Link("nvlink", 100e9, 0.0), inter=Link("net", 10e9, 0.0), gpus_per_node=8, notes=(), base_latency=0.0
)
HW16 = build_hardware("h100-sxm:16", CAT)  # two nodes of 8


def _job(**opts: object) -> TrainingJob:
    base = {"model": "llama-2-7b", "task": "pretrain", "micro_batch": 1, "seq": 2048, "zero": 3}
    job = build_workload({**base, **opts}, CAT)
    assert isinstance(job, TrainingJob)
    return job


def test_hybrid_shards_inside_the_node():
    full, hybrid = _job(framework="fsdp"), _job(framework="fsdp", sharding="hybrid")
    assert (shard_ranks(full, HW16), shard_ranks(hybrid, HW16), node_ranks(hybrid, HW16)) == (16, 8, 8)
    # tensor parallelism takes GPUs of the node: tp 2 leaves 4 data-parallel ranks per node
    assert shard_ranks(_job(framework="fsdp", sharding="hybrid", tp=2), HW16) == 4


def test_hybrid_optimizer_states_are_split_over_the_node_only():
    """FSDP keeps fp32 parameters with AdamW's two fp32 moments: 8 B per parameter of optimizer
    state, split 16 ways under full sharding and 8 ways (one node) under hybrid sharding."""
    params = CAT.model("llama-2-7b").params
    full = memory(_job(framework="fsdp"), HW16, CAT).per_gpu.optimizer
    hybrid = memory(_job(framework="fsdp", sharding="hybrid"), HW16, CAT).per_gpu.optimizer
    assert full == pytest.approx(params * 8 / 16)
    assert hybrid == pytest.approx(params * 8 / 8)


def test_zero3_collectives_by_layout_hand_computed():
    """16e9 B of 16-bit weights and 16e9 B of 16-bit gradients per micro-batch, 16 ranks in two nodes.
    Full: each all-gather or reduce-scatter is 7/8 x 16e9 over NVLink (0.14 s) + 1/2 x 2e9 over the
    network (0.1 s). Hybrid: the three inside the node (0.14 s each) + an all-reduce of the 2e9 B
    gradient shard across the two nodes, 2 x 1/2 x 2e9 / 10e9 = 0.2 s. ZeRO++: forward all-gather in
    int8 (half: 0.07 + 0.05), backward inside the node (0.14), reduce-scatter in int4 (a quarter of
    16-bit: 0.035 + 0.025)."""
    w, g = (16e9, 2.0), (16e9, 2.0)
    full = zero3_comm(_job(framework="fsdp"), HW16, TOPO, w, g, 32)
    assert full.terms == pytest.approx(
        {"param_all_gather_forward": 0.24, "param_all_gather_backward": 0.24, "grad_reduce_scatter": 0.24}
    )
    hybrid = zero3_comm(_job(framework="fsdp", sharding="hybrid"), HW16, TOPO, w, g, 32)
    assert hybrid.terms == pytest.approx(
        {
            "param_all_gather_forward": 0.14,
            "param_all_gather_backward": 0.14,
            "grad_reduce_scatter": 0.14,
            "grad_all_reduce_across_nodes": 0.2,
        }
    )
    zpp = zero3_comm(_job(framework="deepspeed", zeropp="hpz,qwz,qgz"), HW16, TOPO, w, g, 32)
    assert zpp.terms == pytest.approx(
        {"param_all_gather_forward": 0.12, "param_all_gather_backward": 0.14, "grad_reduce_scatter": 0.06}
    )
    only_qwz = zero3_comm(_job(framework="deepspeed", zeropp="qwz"), HW16, TOPO, w, g, 32)
    assert only_qwz.terms["param_all_gather_backward"] == pytest.approx(0.12)  # no hpZ: int8 across nodes


def test_hybrid_zero2_reduces_inside_the_node_then_across():
    """ZeRO-2 (FSDP _HYBRID_SHARD_ZERO2): reduce-scatter 16e9 inside the node (0.14 s) + all-reduce of
    the 2e9 B shard across two nodes (0.2 s); the updated parameters all-gathered inside (0.14 s)."""
    job = _job(framework="fsdp", sharding="hybrid", zero=2)
    assert sharded_optimizer_comm(job, HW16, TOPO, 16e9, 16e9) == pytest.approx((0.34, 0.14))


def test_megatron_partial_distributed_optimizer_shards_zero1_inside_the_node():
    """Megatron Core's --num-distributed-optimizer-instances (core 0.10): the distributed optimizer's
    fp32 main parameters and two Adam moments (12 B per parameter) split over the node's 8 ranks, not
    all 16; each bucket reduce-scattered inside the node (0.14 s) and its 2e9 B shard all-reduced
    across the two nodes (0.2 s), the updated parameters all-gathered inside the node (0.14 s), where
    ZeRO-1 over all 16 ranks moves each collective across nodes too (0.24 s each)."""
    params = CAT.model("llama-2-7b").params
    full = _job(framework="megatron", zero=1)
    hybrid = _job(framework="megatron", zero=1, sharding="hybrid")
    assert (shard_ranks(full, HW16), shard_ranks(hybrid, HW16)) == (16, 8)
    assert memory(full, HW16, CAT).per_gpu.optimizer == pytest.approx(params * 12 / 16)
    assert memory(hybrid, HW16, CAT).per_gpu.optimizer == pytest.approx(params * 12 / 8)
    assert sharded_optimizer_comm(full, HW16, TOPO, 16e9, 16e9) == pytest.approx((0.24, 0.24))
    assert sharded_optimizer_comm(hybrid, HW16, TOPO, 16e9, 16e9) == pytest.approx((0.34, 0.14))


def test_across_nodes_is_a_ring_of_the_nodes_on_each_gpus_nic_share():
    assert collective_across_nodes("all_reduce", 4e9, 4, TOPO) == pytest.approx(2 * 3 / 4 * 4e9 / 10e9)
    assert collective_across_nodes("all_reduce", 4e9, 1, TOPO) == 0.0


def test_hpz_adds_the_secondary_weight_shard():
    """hpZ: 2 B per parameter over the node's 8 ranks, beside the primary ZeRO-3 shard."""
    params = CAT.model("llama-2-7b").params
    plain = memory(_job(framework="deepspeed"), HW16, CAT).per_gpu
    hpz = memory(_job(framework="deepspeed", zeropp="hpz"), HW16, CAT).per_gpu
    assert hpz.detail["zeropp_secondary_weights"] == pytest.approx(params * 2 / 8)
    assert hpz.weights - plain.weights == pytest.approx(params * 2 / 8)


@pytest.mark.parametrize(
    ("opts", "says"),
    [
        ({"framework": "megatron", "sharding": "hybrid"}, "has no hybrid sharding"),
        ({"framework": "fsdp", "sharding": "hybrid", "zero": 1}, "no ZeRO-1 sharded inside a node"),
        ({"framework": "megatron", "sharding": "hybrid", "zero": 0}, "give --zero 1, 2 or 3"),
        ({"framework": "fsdp", "zeropp": "hpz"}, "DeepSpeed's ZeRO\\+\\+"),
        ({"framework": "deepspeed", "zeropp": "qgz", "zero": 2}, "give --zero 3"),
        ({"framework": "torchtitan", "zero": 1}, "runs ZeRO stages 0, 2, 3 only .*did you mean --zero 2"),
        ({"framework": "torchtune", "zero": 1}, "runs ZeRO stages 0, 2, 3 only"),
    ],
)
def test_a_layout_the_stack_lacks_is_refused(opts: dict[str, object], says: str):
    with pytest.raises(UsageError, match=says):
        _job(**opts)


def test_the_plan_tries_the_stacks_layouts_across_nodes_only():
    one_node = build_hardware("h100-sxm:8", CAT)
    assert shardings(_job(framework="fsdp"), one_node, 3, CAT) == [("full", ())]
    assert shardings(_job(framework="fsdp"), HW16, 3, CAT) == [("full", ()), ("hybrid", ())]
    assert shardings(_job(framework="deepspeed"), HW16, 3, CAT) == [("full", ()), ("full", ("hpz", "qwz", "qgz"))]
    assert shardings(_job(framework="deepspeed"), HW16, 2, CAT) == [("full", ())]


def test_the_layout_search_picks_zeropp_on_a_slow_network():
    """DeepSpeed ZeRO-3 on 4 nodes with one 100G port each: the gathers and reduce-scatters of full
    sharding are exposed; ZeRO++ cuts what crosses the network, so the search takes it."""
    job = _job(framework="deepspeed", global_batch=64, seq=4096, recompute="full")
    hw = build_hardware("h100-sxm:32", CAT, network="1x100g")
    choice = best_layout(job, hw, CAT, compute_rates(hw.gpu, "bf16", CAT))
    assert choice.job is not None and choice.job.parallel.zeropp == ("hpz", "qwz", "qgz")


def test_the_search_never_picks_a_zero_stage_the_stack_lacks():
    """FSDP2 stacks (torchtitan, torchtune) shard gradients with the optimizer states or run unsharded:
    no ZeRO-1, which the search would otherwise time first where gradients accumulate (reducing once).
    DeepSpeed and plain PyTorch (ZeroRedundancyOptimizer) keep it; `estimate` refuses --zero 1 for the
    former with the nearest stage named (exit 2)."""
    hw = build_hardware("h100-sxm:16", CAT)
    rates = compute_rates(hw.gpu, "bf16", CAT)
    for stack in ("torchtitan", "torchtune"):
        job = _job(framework=stack, global_batch=256, zero=None)
        choice = best_layout(job, hw, CAT, rates)
        assert choice.job is not None and choice.job.parallel.zero in (2, 3), stack
    assert CAT.framework("deepspeed").zero_stages == [0, 1, 2, 3] == CAT.framework("fsdp").zero_stages
    flags = ("--model", "llama-2-7b", "--task", "pretrain", "--framework", "torchtitan", "--zero", "1")
    proc = subprocess.run(
        [sys.executable, "-m", "gpuwise.cli.app", "estimate", *flags, "--gpu", "h100-sxm:8"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "did you mean --zero 2" in proc.stderr, proc.stderr[-500:]


def test_deepspeed_zero3_under_the_trainer_holds_deepspeeds_states():
    """The HF Trainer (and Axolotl) run --zero 3 through DeepSpeed's engine: 16-bit parameters and an fp32
    master copy, as at ZeRO-1/2 and as the deepspeed stack holds them, not FSDP's fp32 parameters under
    autocast. On 16 ranks in bf16: 2/16 B of parameters, 12/16 B of master and AdamW moments a parameter."""
    params = CAT.model("llama-2-7b").params
    trainer, deepspeed, fsdp = (
        memory(_job(framework=fw, task="finetune"), HW16, CAT).per_gpu for fw in ("hf-trainer", "deepspeed", "fsdp")
    )
    assert trainer.optimizer == pytest.approx(params * 12 / 16)  # AdamW's moments with the master copy
    assert fsdp.optimizer == pytest.approx(params * 8 / 16)  # the moments: FSDP's fp32 parameters are the master
    # the 16-bit shard plus the gathered head and layer, as DeepSpeed's own stack holds them; FSDP's in fp32
    assert (trainer.weights, trainer.gradients) == (deepspeed.weights, deepspeed.gradients)
    assert fsdp.weights - trainer.weights == pytest.approx(params * (4 - 2) / 16)


def test_deepspeed_zero3_parameter_offload_leaves_no_weight_copies_on_one_gpu():
    """ZeRO-Infinity on one GPU (--zero 3 --offload optimizer,params): DeepSpeed keeps its 16-bit parameters
    in CPU memory and gathers them layer by layer, so a 13B full fine-tune needs only the gathered layers,
    activations and buffers on a 24 GB card, under the Trainer as under DeepSpeed itself (before: 26 GB of
    autocast copies of fp32 parameters the Trainer's ZeRO-3 was read as holding). The gathered layers count on
    one rank as on two: the head and a layer in 16 bits, as many bytes per GPU either way."""
    hw = build_hardware("rtx-4090:1", CAT)
    opts = {"model": "llama-2-13b", "task": "finetune", "offload": "optimizer,params", "recompute": "full"}
    peaks = [memory(_job(framework=fw, **opts), hw, CAT).per_gpu.total for fw in ("hf-trainer", "deepspeed")]
    assert peaks[0] == pytest.approx(peaks[1], rel=0.01)
    assert peaks[0] < 8 * 2**30
    one, two = (
        memory(_job(framework="deepspeed", **opts), build_hardware(f"rtx-4090:{n}", CAT), CAT).per_gpu.weights
        for n in (1, 2)
    )
    assert one == two > 0
