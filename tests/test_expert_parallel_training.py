"""Expert parallelism in the training time model: each rank holds, reduces and updates 1/ep of the
experts (as the memory model has always counted them), so the data-parallel gradient traffic shrinks
with ep, and the sharded optimizer update does not (the experts shard over the expert-data-parallel
group only, ep times fewer ranks: Megatron's expert grid)."""

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import collective, topology
from gpuwise.estimate.memory.states import expert_linear_params, stage_params
from gpuwise.estimate.sharding import node_ranks

CAT = load_catalog()
# Mixtral 8x7B on 64 H100 (8 nodes), plain data parallelism with the reduction after the backward, so the
# data-parallel term is exactly one all-reduce of the gradient buffer (Megatron keeps fp32 gradients)
WORK = {"model": "mixtral-8x7b-v0.1", "task": "pretrain", "framework": "megatron", "seq": 4096, "global_batch": 64}
WORK |= {"zero": 0, "overlap_grad_reduce": False, "tokens": "1B"}
HW = {"gpu": "h100-sxm:64"}


@pytest.mark.parametrize("ep", [1, 8])
def test_the_gradient_all_reduce_carries_the_ranks_own_experts_only(ep):
    est = make_estimate(WORK | {"ep": ep}, HW)
    job, hw = est.workload, est.hardware
    model = job.model
    held = stage_params(model, 1, 1, "only", 64, ep, None)
    # by hand: every layer's expert matrices (32 layers x 8 experts x 3 x 4096 x 14336) split over ep ranks
    experts = model.layers * expert_linear_params(model)
    assert experts == pytest.approx(32 * 8 * 3 * 4096 * 14336)
    assert held.total == pytest.approx(model.params - experts + experts / ep, rel=1e-9)
    grad_bytes = held.total * 4  # fp32 gradients
    topo = topology(hw, CAT)
    expected = collective("all_reduce", grad_bytes, 64, topo, True, node_ranks(job, hw))
    assert est.training.terms["data_parallel_comm"] == pytest.approx(expected, rel=1e-9)


def test_the_sharded_optimizer_update_is_the_same_share_of_all_states_whatever_ep():
    """ZeRO-1: dense states over 64 ranks, each rank's 1/8 of the experts over the 8 ranks that hold
    the same experts: every rank updates (dense + experts) / 64 parameters in both layouts."""
    one, eight = (make_estimate(WORK | {"zero": 1, "ep": ep}, HW) for ep in (1, 8))
    assert eight.training.terms["optimizer_step"] == pytest.approx(one.training.terms["optimizer_step"], rel=1e-9)
    assert eight.training.terms["data_parallel_comm"] < one.training.terms["data_parallel_comm"] / 3
