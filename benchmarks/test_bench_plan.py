"""Whole-catalog search speed (`pytest -n 0 benchmarks --benchmark-enable`). Target: under 200 ms."""

import pytest
from speed_bounds import bound

from gpuwise.api import make_plan


def test_whole_catalog_training_search(benchmark):
    result = benchmark(make_plan, {"model": "llama-2-7b", "method": "qlora", "tokens": "20M"}, {"deadline": "24h"})
    assert result.chosen is not None
    assert benchmark.stats.stats.median < bound(0.2)


def test_whole_catalog_methods_search(benchmark):
    result = benchmark(
        make_plan, {"model": "llama-2-13b", "tokens": "1B"}, {"deadline": "3d", "methods": "full,lora,qlora"}
    )
    assert result.candidates
    # 0.3 s: three methods' complete searches with their bands take 0.28 s on the reference machine since
    # the bands were calibrated (CI medians 278 and 371 ms at machine factors near 1 and 1.35), not 0.2 s
    assert benchmark.stats.stats.median < bound(0.3)


def _example(name):
    from pathlib import Path

    from gpuwise.planfile import read_plan_file

    return read_plan_file(Path(__file__).parent.parent / "examples" / name)


def test_whole_catalog_finetune_methods_example(benchmark):
    """examples/finetune-7b-methods.yaml: full, LoRA and QLoRA over every GPU type, every layout."""
    work, reqs, costs = _example("finetune-7b-methods.yaml")
    result = benchmark(make_plan, work, reqs, costs)
    assert result.chosen is not None
    assert benchmark.stats.stats.median < bound(0.2)


def test_whole_catalog_13b_pretrain_example(benchmark):
    """examples/train-13b-multi-gpu-plan.yaml: up to 256 GPUs, ZeRO 0-3 x TP x PP x recomputation."""
    work, reqs, costs = _example("train-13b-multi-gpu-plan.yaml")
    result = benchmark(make_plan, work, reqs, costs)
    assert result.chosen is not None
    assert benchmark.stats.stats.median < bound(0.2)


def test_one_simulated_serving_configuration(benchmark):
    """One replica layout simulated at load (2,000 requests, continuous batching): under 50 ms."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.comm import topology
    from gpuwise.estimate.engine import StepModel, engine_setup
    from gpuwise.estimate.rates import compute_rates
    from gpuwise.estimate.simulate import poisson_arrivals, simulate
    from gpuwise.workload import build_hardware, build_workload

    cat = load_catalog()
    w = build_workload({"model": "mistral-7b-v0.1", "input_tokens": 1024, "output_tokens": 256}, cat)
    hw = build_hardware("h100-sxm", cat)
    step = StepModel(w, compute_rates(hw.gpu, "bf16", cat), topology(hw, cat), cat)
    setup = engine_setup(w, hw, cat)
    arrivals = poisson_arrivals(20.0, 2000, 0)
    result = benchmark(simulate, step, setup, arrivals, w.input_tokens)
    assert len(result.e2e) == 2000
    assert benchmark.stats.stats.median < bound(0.05)


def test_whole_catalog_serving_plan_at_15000_qps(benchmark):
    """examples/chat-7b-p99.yaml at 15,000 QPS (P99 TTFT and TPOT), every GPU type: under 0.5 s (about
    0.37 s of CPU, 0.7 s of wall time, on a loaded 2-core machine since the complete replica search;
    every row shown confirmed by simulation at the band's pessimistic end)."""
    work, reqs, costs = _example("chat-7b-p99.yaml")
    reqs = {k: v for k, v in reqs.items() if k != "growth"}
    result = benchmark(make_plan, work, {**reqs, "qps": 15000}, costs)
    assert result.chosen is not None
    assert benchmark.stats.stats.median < bound(0.5)


def _long_prompt_plan(input_tokens):
    """`plan --model llama-3.1-8b --task inference --input-tokens N --output-tokens 512 --qps 20 --ttft-ms 2000
    --tpot-ms 50`: every GPU type, each prompt in several budget-sized chunks."""
    work = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": input_tokens, "output_tokens": 512}
    return make_plan(work, {"qps": 20, "ttft_ms": 2000, "tpot_ms": 50})


def test_whole_catalog_serving_plan_for_16k_token_prompts(benchmark):
    """16,000-token prompts at 20 QPS (P99 TTFT and TPOT), every GPU type: under 1.5 s (1.0-1.5 s of wall
    time on a loaded 2-core machine since the complete replica search, 22 simulations)."""
    result = benchmark(_long_prompt_plan, 16000)
    assert result.chosen is not None
    assert benchmark.stats.stats.median < bound(1.5)


def test_whole_catalog_serving_plan_for_32k_token_prompts(benchmark):
    """32,000-token prompts at 20 QPS (P99 TTFT and TPOT), every GPU type: under 1.5 s (about 1.2-1.3 s
    on a loaded 2-core machine)."""
    result = benchmark(_long_prompt_plan, 32000)
    assert result.chosen is not None
    assert benchmark.stats.stats.median < bound(1.5)


def _installed_env(scratch) -> dict[str, str]:
    """The caller's environment with gpuwise's bytecode kept in `scratch`, as scripts/bench_cli.py
    runs it: an installed package runs from compiled bytecode, while PYTHONDONTWRITEBYTECODE (set in
    some sandboxes) would make every measured process compile gpuwise's modules again (about 0.1 s of
    `plan --help`'s CPU, 0.1-0.4 s of a serving plan's). The warm-up round writes the bytecode."""
    import os

    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(scratch / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _cpu_seconds_of(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of one whole process, which a loaded machine stretches far less
    than its wall time (scripts/bench_cli.py measures the same way)."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@pytest.mark.parametrize("input_tokens", [16000, 32000])
def test_long_prompt_serving_plan_as_a_whole_process(benchmark, input_tokens, tmp_path):
    """`gpuwise plan --model llama-3.1-8b --task inference --input-tokens N --output-tokens 512 --qps 20
    --ttft-ms 2000 --tpot-ms 50` as a user runs it: the `gpuwise` console script's entry point (its
    collector settings, gpuwise.cli.entry), the terminal report, imports from compiled bytecode. Target
    1.5 s of CPU on the reference machine, asserted for both: about 0.8-1.1 s (16k) and 0.7-0.8 s (32k)
    on a loaded 2-core machine since the complete replica search (docs/performance.md). The warm-up
    round (it compiles the bytecode) is not counted."""
    import statistics
    import sys

    argv = [sys.executable, "-c", "from gpuwise.cli.entry import run; run()", "plan", "--model", "llama-3.1-8b"]
    argv += ["--task", "inference", "--input-tokens", str(input_tokens), "--output-tokens", "512", "--qps", "20"]
    argv += ["--ttft-ms", "2000", "--tpot-ms", "50"]
    cpu: list[float] = []
    env = _installed_env(tmp_path)
    benchmark.pedantic(lambda: cpu.append(_cpu_seconds_of(argv, env)), rounds=3, iterations=1, warmup_rounds=1)
    measured = cpu[-3:]  # the warm-up round appended first
    benchmark.extra_info["cpu_seconds"] = measured
    assert statistics.median(measured) < bound(1.5)
