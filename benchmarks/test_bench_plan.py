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


def _example(name):
    from pathlib import Path

    from gpuwise.files import read_plan_file

    return read_plan_file(Path(__file__).parent.parent / "examples" / name)


def test_whole_catalog_finetune_methods_example(benchmark):
    """examples/finetune-7b-methods.yaml: full, LoRA and QLoRA over every GPU type, every layout."""
    work, reqs, costs = _example("finetune-7b-methods.yaml")
    result = benchmark(make_plan, work, reqs, costs)
    assert result.chosen is not None
    assert benchmark.stats.stats.median < 0.2


def test_whole_catalog_13b_pretrain_example(benchmark):
    """examples/train-13b-multi-gpu-plan.yaml: up to 256 GPUs, ZeRO 0-3 x TP x PP x recomputation."""
    work, reqs, costs = _example("train-13b-multi-gpu-plan.yaml")
    result = benchmark(make_plan, work, reqs, costs)
    assert result.chosen is not None
    assert benchmark.stats.stats.median < 0.2
