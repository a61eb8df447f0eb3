"""Requests whose lengths vary: the draws of a simulated run and each request's sizes.

A benchmark rarely sends equal requests: `vllm bench serve --dataset-name random --random-range-ratio R`
draws each prompt and each output length uniformly from [L(1 - R), L(1 + R)] about the lengths asked
(vLLM's RandomDataset since https://github.com/vllm-project/vllm/pull/16126, April 2025; before it, and in
SGLang's bench_serving, [L R, L]: the same shape about its mean). Such spread changes what equal requests
hide: a burst's waves stop lining up, the longest outputs drain the run at a small batch, a long prompt
holds the prompts behind it. The workload's `length_spread` R spreads the requests of a simulated run
this way (the load simulator, gpuwise.estimate.simulate, reads each request's own sizes); the steady
state and the memory estimate stay at the mean lengths. A run on a dataset (`--dataset sharegpt`: vLLM's
and SGLang's default benchmark, gpuwise.workload.specs.LengthDistribution) draws from that dataset's
lengths instead, scaled to the mean lengths given: a long tail (ShareGPT's longest outputs are about
nine times its mean) that a uniform spread, at most twice the mean, does not reach.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from gpuwise.estimate.engine import EngineSetup, blocks_held, decode_steps, prefill_tokens
from gpuwise.workload import InferenceJob
from gpuwise.workload.specs import LengthDistribution, spread_bounds

__all__ = ["RequestShapes", "dataset_lengths", "drawn_lengths", "request_shapes", "spread_lengths", "varied_shapes"]


@dataclass(frozen=True, slots=True)
class RequestShapes:
    """Each request's own sizes in a run, in arrival order, as the simulator reads them."""

    prefill: tuple[int, ...]  # prompt tokens each prefills (after prefix-cache hits)
    context: tuple[int, ...]  # the context its first decode step attends to: the whole prompt and one
    steps: tuple[int, ...]  # its decode steps after the first token
    kv: tuple[int, ...]  # KV tokens it holds at its end, rounded up to blocks
    outputs: tuple[int, ...]  # its output tokens

    @property
    def output_tokens(self) -> int:
        return sum(self.outputs)


@functools.lru_cache(maxsize=16)
def spread_lengths(mean: int, spread: float, n: int, seed: int) -> tuple[int, ...]:
    """`n` lengths spread evenly over the integers of gpuwise.workload.specs.spread_bounds (each of n equal
    slices of the range gives one, at its middle) in an order shuffled by `seed`: the uniform draw of vLLM's
    RandomDataset without its sampling noise (the mean of n random draws wanders by the range / sqrt(12 n),
    2 % of a 800-token prompt at R 0.6 over 300 requests), so a run's figures move with R, not with a draw."""
    if not spread:
        return (mean,) * n
    low, high = spread_bounds(mean, spread)
    width = high - low + 1
    lengths = [low + (2 * i + 1) * width // (2 * n) for i in range(n)]
    random.Random(seed).shuffle(lengths)
    return tuple(lengths)


@functools.lru_cache(maxsize=16)
def dataset_lengths(dist: LengthDistribution, n: int, seed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The prompt and output lengths of `n` requests drawn from a dataset's: each part at the middles of n
    equal slices of its quantile levels, in orders shuffled by two streams of `seed` (prompts and outputs
    drawn independently), an output cut where the pair would pass the longest pair the dataset keeps."""
    prompts, outputs = dist.draws("prompt", n), dist.draws("output", n)
    random.Random(2 * seed).shuffle(prompts)
    random.Random(2 * seed + 1).shuffle(outputs)
    return tuple(prompts), tuple(min(o, dist.output_room(p)) for p, o in zip(prompts, outputs, strict=True))


def drawn_lengths(job: InferenceJob, n: int, seed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The prompt and output lengths of `n` requests of the job, drawn independently (two streams of `seed`)."""
    if job.lengths is not None:
        return dataset_lengths(job.lengths, n, seed)
    spread = job.length_spread
    return spread_lengths(job.input_tokens, spread, n, 2 * seed), spread_lengths(
        job.output_tokens, spread, n, 2 * seed + 1
    )


def request_shapes(
    job: InferenceJob, setup: EngineSetup, inputs: Sequence[int], outputs: Sequence[int]
) -> RequestShapes:
    """The simulator's sizes of requests of `inputs` prompt and `outputs` output tokens, by the formulas
    gpuwise.estimate.engine.engine_setup sizes the job's mean request with."""
    block, per_step, hit = setup.block_tokens, setup.tokens_per_step, job.prefix_hit_rate
    return RequestShapes(
        prefill=tuple(prefill_tokens(i, hit) for i in inputs),
        context=tuple(i + 1 for i in inputs),
        steps=tuple(decode_steps(o, per_step) for o in outputs),
        kv=tuple(blocks_held(i + o, block) for i, o in zip(inputs, outputs, strict=True)),
        outputs=tuple(outputs),
    )


def varied_shapes(job: InferenceJob, setup: EngineSetup, n: int, seed: int) -> RequestShapes | None:
    """The sizes of a simulated run's `n` requests when the job's lengths vary (None: all alike)."""
    if not job.lengths_vary:
        return None
    return request_shapes(job, setup, *drawn_lengths(job, n, seed))
