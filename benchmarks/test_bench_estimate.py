"""Speed of the pure estimators, in-process (`pytest -n 0 benchmarks --benchmark-enable`).

Targets: one estimate (memory plus the largest-fit searches) well under 50 ms; memory alone in
well under a millisecond, so that a search over the whole catalog stays interactive.
"""

from speed_bounds import bound

from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate, memory
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
TRAIN = build_workload({"model": "llama-3.1-8b", "method": "lora", "micro_batch": 4, "seq": 4096}, CAT)
SERVE = build_workload({"model": "llama-3.1-70b", "tp": 8, "concurrency": 64}, CAT)
H100x8 = build_hardware("h100-sxm:8", CAT)
L40S = build_hardware("l40s", CAT)


def test_memory_only(benchmark):
    est = benchmark(memory, TRAIN, L40S, CAT)
    assert est.per_gpu.total > 0
    assert benchmark.stats.stats.median < bound(1e-3)


def test_full_estimate_training(benchmark):
    est = benchmark(estimate, TRAIN, L40S, CAT)
    assert est.largest["micro_batch"] >= 1
    assert benchmark.stats.stats.median < bound(0.05)


def test_full_estimate_serving(benchmark):
    est = benchmark(estimate, SERVE, H100x8, CAT)
    assert est.largest["concurrency"] >= 64
    assert benchmark.stats.stats.median < bound(0.05)


def test_memory_over_whole_catalog(benchmark):
    def sweep():
        return [memory(TRAIN, build_hardware(g, CAT), CAT).fits for g in CAT.gpus]

    fits = benchmark(sweep)
    assert any(fits) and not all(fits)


def test_serving_plan(benchmark):
    from gpuwise.estimate.run import LatencyTarget

    work = build_workload({"model": "llama-3.1-8b", "concurrency": 32, "input_tokens": 1024, "output_tokens": 256}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    est = benchmark.pedantic(
        estimate, args=(work, hw, CAT), kwargs={"target": LatencyTarget(20, 99, 6.0)}, rounds=3, iterations=1
    )
    # One request alone takes about 2.1 s (up to 3.2 s at the band's pessimistic end), so a 6 s
    # P99 is met by a few replicas; the 3 s it once asked for is not met at that end.
    assert est.serving.meets


def test_one_training_estimate_under_2ms(benchmark):
    """One estimate (memory and step time under a framework profile, no largest-fit
    search) stays under 2 ms in-process."""
    work = build_workload(
        {"model": "llama-3.1-70b", "task": "pretrain", "framework": "nemo", "precision": "fp8", "tp": 4, "pp": 8},
        CAT,
    )
    hw = build_hardware("h100-sxm:64", CAT)
    est = benchmark(estimate, work, hw, CAT, search_largest=False)
    assert est.training is not None and est.memory.fits
    assert benchmark.stats.stats.median < bound(2e-3)
