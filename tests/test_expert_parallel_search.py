"""The training search tries expert parallelism for a mixture of experts on a stack that shards
experts (frameworks.yaml expert_parallel: Megatron Core, NeMo), and its choice is the fastest of
every layout `estimate` accepts at the same GPU type and count, --ep included."""

import itertools
from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.errors import GpuwiseError
from gpuwise.estimate import estimate, memory
from gpuwise.estimate.rates import compute_rates
from gpuwise.plan.layouts import best_layout, expert_degrees
from gpuwise.workload import Parallelism, TrainingJob, build_hardware, build_workload

CAT = load_catalog()
WORK = {"model": "qwen3-30b-a3b", "task": "pretrain", "framework": "megatron", "seq": 2048, "global_batch": 16}


def test_expert_degrees_divide_the_experts_and_a_stages_ranks():
    job = build_workload(WORK, CAT)
    assert job.model.experts == 128
    assert expert_degrees(job, 16, 1, 1, CAT) == (1, 2, 4, 8, 16)  # ep x tp divides 16 ranks
    assert expert_degrees(job, 16, 2, 2, CAT) == (1, 2, 4)  # 8 ranks a stage, etp = tp = 2
    assert expert_degrees(replace(job, framework="fsdp"), 16, 1, 1, CAT) == (1,)  # FSDP shards no experts
    dense = build_workload({**WORK, "model": "llama-2-7b"}, CAT)
    assert expert_degrees(dense, 16, 1, 1, CAT) == (1,)


def _every_layout(job: TrainingJob, count: int, per_node: int):
    micros = [m for m in (1, 2, 4, 8, 16) if job.global_batch % m == 0]
    for tp, pp, ep, zero, rc, micro in itertools.product(
        (1, 2, 4, 8), (1, 2, 4), (1, 2, 4, 8), (0, 1, 2, 3), ("none", "selective", "full"), micros
    ):
        if tp > per_node or count % (tp * pp):
            continue
        par = Parallelism(tp=tp, pp=pp, ep=ep, zero=zero, sequence_parallel=tp > 1)
        yield replace(job, parallel=par, recompute=rc, micro_batch=micro)


def test_the_search_finds_the_fastest_expert_parallel_layout_estimate_accepts():
    job = build_workload(WORK, CAT)
    hw = build_hardware("h100-sxm:8", CAT)
    choice = best_layout(job, hw, CAT, compute_rates(hw.gpu, "bf16", CAT))
    assert choice.job is not None and choice.job.parallel.ep > 1  # sharding the experts wins on one node
    best = 0.0
    for layout in _every_layout(job, hw.count, hw.gpus_per_node):
        try:
            if not memory(layout, hw, CAT).fits:
                continue
            rate = estimate(layout, hw, CAT, search_largest=False).training.samples_per_second
        except GpuwiseError:  # a layout estimate refuses (uneven batch, an expert grid that does not divide)
            continue
        best = max(best, rate)
    assert choice.samples_per_second == pytest.approx(best, rel=1e-9)


def test_a_plan_names_the_expert_parallel_degree_it_chose():
    """The row label and the layout reason say EP where the search sharded the experts, in both
    languages; the command repeats it."""
    from gpuwise.api import make_plan
    from gpuwise.i18n import reason_text

    work = {"model": "mixtral-8x7b-v0.1", "task": "pretrain", "tokens": "50B", "seq": 4096, "global_batch": 256}
    chosen = make_plan(work, {"deadline": "14d", "gpus": "h100-sxm"}).chosen
    ep = chosen.est.workload.parallel.ep
    assert ep > 1 and f" ep{ep} " in chosen.label and f"--ep {ep}" in chosen.command
    layout = next(w for w in chosen.why if w.code == "layout.fastest_fit")
    assert f"(EP{ep})" in reason_text(layout) and f"(EP{ep})" in reason_text(layout, "zh")
