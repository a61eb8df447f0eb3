"""Event-driven simulation of one replica's continuous batching with chunked prefill.

Each engine step carries one token of every running request and, within the step's token
budget, chunks of admitted prompts (first come, first served). A request is admitted when the
batch has room and the KV cache holds its whole context (no preemption: the admission vLLM and
TensorRT-LLM make with a guaranteed-no-evict policy). Between events (an arrival that can be
admitted, a request finishing) every step is the same pure-decode step, so the simulator jumps
over all of them at once; finish times sit in a heap keyed by step number. A long prompt's chunks
are jumped over the same way: while the oldest prompt takes a step's whole token budget, the steps
until it finishes (or a running request does) differ only in the keys attended, which grow by the
same amount each step, so their times sum in closed form (StepModel.chunk_run). That keeps a
simulation at a few events per request, whatever the prompt and output lengths.

With `targets`, the simulation only has to say whether latency percentiles hold: it stops as soon
as more requests have missed a target than the percentile lets through (no later request can undo
that), so a replica count that cannot carry the load costs a fraction of a full run.

Returns each request's time to first token, time per output token (after the first) and
end-to-end latency, so any percentile of any of them can be read.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from dataclasses import dataclass, field

from gpuwise.estimate.engine import EngineSetup, StepModel


@dataclass(frozen=True, slots=True)
class SimResult:
    ttft: list[float]
    tpot: list[float]
    e2e: list[float]
    busy: float  # fraction of time the replica ran steps
    end: float = 0.0  # when the last request finished
    missed: bool = False  # stopped early: a target of `Targets` is missed; the lists are incomplete

    def warm(self, skip: int) -> SimResult:
        """The result without the first `skip` requests (the queue filling from empty)."""
        return SimResult(self.ttft[skip:], self.tpot[skip:], self.e2e[skip:], self.busy, self.end, self.missed)


@dataclass(frozen=True, slots=True)
class Targets:
    """Latency limits in seconds (inf: none) that a simulation only has to judge: once more than
    `allowed` of the requests after the first `skip` exceed one of them, that limit's percentile is
    missed whatever the other requests do (gpuwise.stats.tolerated)."""

    skip: int
    allowed: int
    ttft: float = math.inf
    tpot: float = math.inf
    e2e: float = math.inf


def poisson_arrivals(rate: float, n: int, seed: int) -> list[float]:
    """Arrival times of `n` requests at `rate` per second (exponential gaps), reproducible by seed."""
    rng = random.Random(seed)
    out, t = [], 0.0
    for _ in range(n):
        t += rng.expovariate(rate)
        out.append(t)
    return out


@dataclass(slots=True)
class _State:
    start_context: int  # a request's context when its first token is out
    now: float = 0.0
    step_no: int = 0  # decode steps so far
    key_base: float = 0.0  # sum over running requests of (context at admission - step it started)
    kv_used: int = 0
    busy: float = 0.0


def simulate(
    model: StepModel,
    setup: EngineSetup,
    arrivals: list[float],
    prompt_tokens: int,
    closed_loop: bool = False,
    targets: Targets | None = None,
) -> SimResult:
    """Run every arrival through one replica (`prompt_tokens`: the full prompt each request
    attends to); results are in arrival order. `closed_loop`: clients that send a request only
    when one of theirs finishes (a benchmark's --max-concurrency = the batch cap), so latencies
    count from admission, not from the queue. `targets`: stop once one is missed (`missed`)."""
    n = len(arrivals)
    extra = setup.request_overhead  # the front end's share of every request's TTFT and latency
    res = _Out([math.nan] * n, [math.nan] * n, [math.nan] * n, [0.0] * n, list(arrivals), extra, targets)
    waiting: deque[int] = deque()
    prefilling: deque[list[int]] = deque()  # [request, prompt tokens done]
    running: list[tuple[int, int]] = []  # heap of (finish step, request)
    s = _State(start_context=prompt_tokens + 1)
    nxt, done = 0, 0
    while done < n and not res.missed:
        while nxt < n and arrivals[nxt] <= s.now:
            waiting.append(nxt)
            nxt += 1
        while (
            waiting
            and len(prefilling) + len(running) < setup.max_batch
            and s.kv_used + setup.tokens_per_request <= setup.kv_tokens
        ):
            prefilling.append([waiting.popleft(), 0])
            s.kv_used += setup.tokens_per_request
            if closed_loop:
                res.arrivals[prefilling[-1][0]] = s.now  # sent when a client's slot freed
        if not prefilling and not running:
            if nxt >= n:
                break  # nothing can ever be admitted (a request larger than the KV cache)
            s.now = arrivals[nxt]
            continue
        if prefilling:
            chunk = setup.token_budget - len(running) * model.verify  # what the oldest prompt may take
            room = len(prefilling) + len(running) < setup.max_batch
            room = room and s.kv_used + setup.tokens_per_request <= setup.kv_tokens
            admits = closed_loop and nxt < n and room  # a closed loop's admission time is its arrival
            if chunk > 0 and setup.prefill_tokens - prefilling[0][1] > chunk and not admits:
                done += _chunk_run(model, setup, s, prefilling[0], chunk, running, res)
            else:
                done += _mixed_step(model, setup, s, prefilling, running, res)
        else:
            can_admit = len(running) < setup.max_batch and s.kv_used + setup.tokens_per_request <= setup.kv_tokens
            next_arrival = arrivals[nxt] if can_admit and nxt < n else None
            done += _decode_run(model, setup, s, running, res, next_arrival)
    ttft = [v + extra for v in res.ttft] if extra else res.ttft
    e2e = [v + extra for v in res.e2e] if extra else res.e2e
    return SimResult(ttft, res.tpot, e2e, s.busy / s.now if s.now else 0.0, s.now + extra, res.missed)


@dataclass(slots=True)
class _Out:
    ttft: list[float]
    tpot: list[float]
    e2e: list[float]
    first: list[float]  # when each request's first token came
    arrivals: list[float]
    extra: float = 0.0  # seconds added to every TTFT and latency (the front end)
    targets: Targets | None = None
    over: list[int] = field(default_factory=lambda: [0, 0, 0])  # requests over each target (ttft, tpot, e2e)
    missed: bool = False

    def first_token(self, r: int, now: float) -> None:
        self.ttft[r] = now - self.arrivals[r]
        self.first[r] = now
        t = self.targets
        if t is not None and r >= t.skip:
            self.over[0] += self.ttft[r] + self.extra > t.ttft
            self.missed = self.missed or self.over[0] > t.allowed

    def finished(self, r: int, now: float, tokens_after_first: float) -> None:
        self.e2e[r] = now - self.arrivals[r]
        self.tpot[r] = (now - self.first[r]) / tokens_after_first if tokens_after_first else 0.0
        t = self.targets
        if t is not None and r >= t.skip:
            self.over[1] += self.tpot[r] > t.tpot
            self.over[2] += self.e2e[r] + self.extra > t.e2e
            self.missed = self.missed or self.over[1] > t.allowed or self.over[2] > t.allowed


def _mean_context(s: _State, setup: EngineSetup, running: int) -> float:
    """Average context of the running requests now (each grows by its tokens per step)."""
    return s.key_base / running + s.step_no * setup.tokens_per_step if running else 0.0


def _mixed_step(
    model: StepModel,
    setup: EngineSetup,
    s: _State,
    prefilling: deque[list[int]],
    running: list[tuple[int, int]],
    out: _Out,
) -> int:
    """One step with prompt chunks: every running request's decode first, then prefill chunks in
    arrival order up to the token budget. Returns the requests that finished."""
    decodes = len(running)
    budget = max(0, setup.token_budget - decodes * model.verify)
    prompt = setup.prefill_tokens
    chunk_tokens, pairs, ready = 0, 0.0, 0
    for item in prefilling:
        if budget <= 0:
            break
        take = min(budget, prompt - item[1])
        pairs += model.prefill_pairs(item[1], take)
        item[1] += take
        budget -= take
        chunk_tokens += take
        ready += item[1] >= prompt
    keys = model.keys(_mean_context(s, setup, decodes)) * decodes if decodes else 0.0
    t = model.step(chunk_tokens, decodes, keys, pairs)
    s.now += t
    s.busy += t
    count = 0
    if decodes:
        s.step_no += 1
        count += _pop(s, setup, running, out)
    for _ in range(ready):
        r = prefilling.popleft()[0]
        out.first_token(r, s.now)
        if setup.decode_steps == 0:
            out.finished(r, s.now, 0.0)
            s.kv_used -= setup.tokens_per_request
            count += 1
        else:
            heapq.heappush(running, (s.step_no + setup.decode_steps, r))
            s.key_base += s.start_context - s.step_no * setup.tokens_per_step
    return count


def _pop(s: _State, setup: EngineSetup, running: list[tuple[int, int]], out: _Out) -> int:
    """Retire the requests whose last decode step has run; returns how many (their KV cache freed
    at once, and the same key_base term off for each: they all started decode steps ago)."""
    step_no = s.step_no
    if not running or running[0][0] > step_no:
        return 0
    count, now = 0, s.now
    tokens_after_first = max(1.0, setup.decode_steps * setup.tokens_per_step)
    started = s.start_context - (step_no - setup.decode_steps) * setup.tokens_per_step
    while running and running[0][0] <= step_no:
        _, r = heapq.heappop(running)
        out.finished(r, now, tokens_after_first)
        s.key_base -= started
        count += 1
    s.kv_used -= count * setup.tokens_per_request
    return count


def _decode_run(
    model: StepModel,
    setup: EngineSetup,
    s: _State,
    running: list[tuple[int, int]],
    out: _Out,
    next_arrival: float | None,
) -> int:
    """Identical pure-decode steps until the next event: a request finishing, or an arrival that
    can be admitted (`next_arrival`, None when the batch or the KV cache is full)."""
    n = len(running)
    steps = running[0][0] - s.step_no
    mid = _mean_context(s, setup, n) + steps * setup.tokens_per_step / 2
    t = model.step(0, n, model.keys(mid) * n, 0.0)
    if next_arrival is not None and t > 0:
        steps = max(1, min(steps, math.ceil((next_arrival - s.now) / t)))
    s.now += steps * t
    s.busy += steps * t
    s.step_no += steps
    return _pop(s, setup, running, out)


def _chunk_run(
    model: StepModel,
    setup: EngineSetup,
    s: _State,
    head: list[int],
    chunk: int,
    running: list[tuple[int, int]],
    out: _Out,
) -> int:
    """Steps in which the oldest prompt (`head`: [request, prompt tokens done]) takes the whole
    budget of `chunk` tokens, up to the next event: the step before the one that finishes that
    prompt, or a running request's last step. Arrivals wait to the end of the run: the prompts
    queued behind `head` get no tokens in it anyway. Returns the requests that finished."""
    steps = math.ceil((setup.prefill_tokens - head[1]) / chunk) - 1
    decodes = len(running)
    if decodes:
        steps = min(steps, running[0][0] - s.step_no)
    t = model.chunk_run(steps, chunk, decodes, _mean_context(s, setup, decodes), setup.tokens_per_step, head[1])
    s.now += t
    s.busy += t
    head[1] += steps * chunk
    if not decodes:
        return 0
    s.step_no += steps
    return _pop(s, setup, running, out)
