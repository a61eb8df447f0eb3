"""Expert parallelism in the training time model: each rank holds, reduces and updates 1/ep of the
experts (as the memory model has always counted them), reduced over the ranks that hold the same
experts (strided across the nodes: Megatron's expert grid), and the sharded optimizer update stays
the same share of all states (the experts shard over that group only, ep times fewer ranks)."""

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.estimate.comm import collective, topology
from gpuwise.estimate.memory.states import expert_linear_params, stage_params
from gpuwise.estimate.sharding import expert_data_parallel, node_ranks

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
    topo = topology(hw, CAT)
    dense, experts_held = (model.params - experts) * 4, experts / ep * 4  # fp32 gradients
    # the dense part over the 64 data-parallel ranks (8 in a node); each expert's over the ranks that hold
    # it: with EP 8 filling a node, 8 ranks, one in each node, all of it across the network
    expected = collective("all_reduce", dense + (experts_held if ep == 1 else 0), 64, topo, True, node_ranks(job, hw))
    if ep > 1:
        assert expert_data_parallel(job, hw) == (8, 1)
        expected += collective("all_reduce", experts_held, 8, topo, True, 1)
    assert est.training.terms["data_parallel_comm"] == pytest.approx(expected, rel=1e-9)


def test_the_sharded_optimizer_update_is_the_same_share_of_all_states_whatever_ep():
    """ZeRO-1: dense states over 64 ranks, each rank's 1/8 of the experts over the 8 ranks that hold
    the same experts: every rank updates (dense + experts) / 64 parameters in both layouts."""
    one, eight = (make_estimate(WORK | {"zero": 1, "ep": ep}, HW) for ep in (1, 8))
    assert eight.training.terms["optimizer_step"] == pytest.approx(one.training.terms["optimizer_step"], rel=1e-9)
    # an eighth of the experts' bytes, but every byte across the network: about half the time here
    assert 0.3 < eight.training.terms["data_parallel_comm"] / one.training.terms["data_parallel_comm"] < 0.7


def test_zero3_gathers_and_reduces_the_experts_over_their_own_group():
    """ZeRO-3 (fully sharded): the dense part over the 64 data-parallel ranks, the experts' share over
    the 8 ranks, one a node, that hold the same experts."""
    from gpuwise.estimate.sharding import zero3_comm

    est = make_estimate(WORK | {"zero": 3, "ep": 8}, HW)
    job, hw = est.workload, est.hardware
    topo, g = topology(hw, CAT), node_ranks(job, hw)
    w, grads, share = 8e9, 16e9, 0.75
    z3 = zero3_comm(job, hw, topo, (w, 2), (grads, 4), 32, (share, (8, 1)))
    gather = collective("all_gather", w / 4, 64, topo, True, g) + collective("all_gather", w * 3 / 4, 8, topo, True, 1)
    scatter = collective("reduce_scatter", grads / 4, 64, topo, True, g)
    scatter += collective("reduce_scatter", grads * 3 / 4, 8, topo, True, 1)
    assert z3.terms["param_all_gather_forward"] == pytest.approx(gather, rel=1e-12)
    assert z3.terms["grad_reduce_scatter"] == pytest.approx(scatter, rel=1e-12)
    plain = zero3_comm(job, hw, topo, (w, 2), (grads, 4), 32)  # without the split: one group, as for a dense model
    assert plain.terms["param_all_gather_forward"] == pytest.approx(collective("all_gather", w, 64, topo, True, g))
