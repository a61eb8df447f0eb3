"""The training search's chosen layout is the optimum among every layout `estimate` accepts at the
same GPU type and count (exhaustive), and its pruning is only a shortcut to that optimum."""

import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from gpuwise.api import make_plan
from gpuwise.catalog import load_catalog
from gpuwise.errors import GpuwiseError
from gpuwise.estimate import estimate, memory
from gpuwise.planfile import read_plan_file
from gpuwise.workload import Parallelism, TrainingJob

CAT = load_catalog()
EXAMPLES = Path(__file__).parent.parent / "examples"


def _every_layout(job: TrainingJob, count: int, per_node: int):
    """tp x pp x ZeRO x recomputation x sequence parallelism x micro-batch: all that estimate takes."""
    gb = job.global_batch
    micros = [job.micro_batch] if gb is None else [m for m in (2**i for i in range(10)) if gb % m == 0]
    for tp, pp, zero, rc, sp, micro in itertools.product(
        (1, 2, 4, 8), (1, 2, 4, 8, 16), (0, 1, 2, 3), ("none", "selective", "full"), (True, False), micros
    ):
        if tp > per_node or count % (tp * pp) or (sp and tp == 1):
            continue
        yield replace(
            job, parallel=Parallelism(tp=tp, pp=pp, zero=zero, sequence_parallel=sp), recompute=rc, micro_batch=micro
        )


def _best_rate(job: TrainingJob, hw) -> float:
    best = 0.0
    for layout in _every_layout(job, hw.count, hw.gpus_per_node):
        try:
            if not memory(layout, hw, CAT).fits:
                continue
            t = estimate(layout, hw, CAT, search_largest=False).training
        except GpuwiseError:  # a layout estimate refuses (uneven global batch, heads not divisible)
            continue
        assert t is not None
        best = max(best, t.samples_per_second)
    return best


@pytest.mark.parametrize(
    ("example", "reqs"),
    [
        ("train-13b-multi-gpu-plan.yaml", {"gpus": "h100-sxm"}),
        ("finetune-7b-methods.yaml", {"methods": "full", "gpus": "a100-80gb-sxm,h100-sxm"}),
        ("resnet50-training.yaml", {}),
    ],
)
def test_the_chosen_layout_is_the_fastest_estimate_accepts_at_its_gpu_type_and_count(example, reqs):
    work, base_reqs, costs = read_plan_file(EXAMPLES / example)
    for key in ("gpu", "gpus_per_node", "network"):
        base_reqs.pop(key, None)
    result = make_plan(work, {**base_reqs, **reqs}, costs)
    checked = [c for c in result.candidates[:3] if c.est.training is not None]
    assert checked
    for c in checked:
        job, rate = c.est.workload, c.est.training
        assert isinstance(job, TrainingJob) and rate is not None
        best = _best_rate(job, c.est.hardware)
        assert best > 0, c.label  # the candidate's own layout is among them
        # at a fixed GPU type and count the cost is proportional to the time: fastest is cheapest
        assert rate.samples_per_second >= best * (1 - 1e-9), (c.label, rate.samples_per_second, best)


def test_the_13b_example_on_h100_shards_gradients_without_recomputation_not_zero1_with_full():
    work, reqs, _ = read_plan_file(EXAMPLES / "train-13b-multi-gpu-plan.yaml")
    chosen = make_plan(work, {**reqs, "gpus": "h100-sxm"}).chosen
    assert chosen is not None
    w = chosen.est.workload
    assert isinstance(w, TrainingJob)
    # ZeRO-1 needs 110 GiB a GPU at micro-batch 1; ZeRO-2 fits micro-batch 1 (61 GiB) and reduce-scatters each of
    # its 16 micro-batches (22.8 ms exposed a step), ZeRO-3 fits micro-batch 2 (64 GiB, 8 micro-batches, 2.9 ms):
    # 0.2 % apart in a 10.6 s step, and the search keeps the faster
    assert w.parallel.zero >= 2 and w.recompute == "none", chosen.label
    # about $5,615 on four CoreWeave HGX H100 instances over InfiniBand (4 x 49.24 USD/h for 28.5 h, 2.0 d at the
    # pessimistic end of the 80 % band: within the 3-day deadline). Two instances ($4,777 for 2.0 d) chose it until
    # 2026-12-03, when the refitted DeepSpeed band put their pessimistic end past 3 days; it was $3,345 when
    # Lambda's on-demand 8x H100 instances, which Lambda does not join into a cluster, priced it
    assert chosen.cost is not None and chosen.cost < 6000
    assert chosen.offer is not None and chosen.offer.instances == chosen.est.hardware.nodes == 4
