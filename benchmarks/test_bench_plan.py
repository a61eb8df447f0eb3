"""Whole-catalog search speed (`pytest benchmarks --benchmark-enable`). Target: under 200 ms."""

from gpuwise.api import make_plan


def test_whole_catalog_training_search(benchmark):
    result = benchmark(make_plan, {"model": "llama-2-7b", "method": "qlora", "tokens": "20M"}, {"deadline": "24h"})
    assert result.chosen is not None
    assert benchmark.stats.stats.median < 0.2


def test_whole_catalog_methods_search(benchmark):
    result = benchmark(
        make_plan, {"model": "llama-2-13b", "tokens": "1B"}, {"deadline": "3d", "methods": "full,lora,qlora"}
    )
    assert result.candidates
    assert benchmark.stats.stats.median < 0.2
