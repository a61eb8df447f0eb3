"""Event-driven simulation of one replica's continuous batching with chunked prefill.

Each engine step carries one token of every running request and, within the step's token
budget, chunks of admitted prompts (first come, first served); an engine that prefills apart
(SGLang, Text Generation Inference before 3.0) runs them in steps of their own, up to the token
budget, before the next decode step, the running requests waiting through them. A request is
admitted when the batch has room and the KV cache holds its whole context (no preemption: the admission vLLM and
TensorRT-LLM make with a guaranteed-no-evict policy). Between events (an arrival that can be
admitted, a request finishing) every step is the same pure-decode step, so the simulator jumps
over all of them at once; the running requests sit in a heap by the step they finish at. Requests
are alike, or each has its own prompt, output and KV sizes (RequestShapes: a run whose lengths
vary). A long prompt's chunks
are jumped over the same way: while the oldest prompt takes a step's whole token budget, the steps
until it finishes (or a running request does) differ only in the keys attended, which grow by the
same amount each step, so their times sum in closed form (StepModel.chunk_run). That keeps a
simulation at a few events per request, whatever the prompt and output lengths.

With `targets`, the simulation only has to say whether latency percentiles hold: it stops as soon
as more requests have missed a target than the percentile lets through (no later request can undo
that), so a replica count that cannot carry the load costs a fraction of a full run; a run judged to
its end says whether they hold (`SimResult.met`: no more requests over a limit than allowed is the
percentile within it), so its percentiles need not be read to judge it.

Returns each request's time to first token, time per output token (after the first) and
end-to-end latency, so any percentile of any of them can be read.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import random
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from heapq import heappop, heappush

from gpuwise.estimate.engine import EngineSetup, StepModel
from gpuwise.estimate.lengths import RequestShapes
from gpuwise.estimate.sharing import shared


@dataclass(frozen=True, slots=True)
class SimResult:
    ttft: list[float]
    tpot: list[float]
    e2e: list[float]
    busy: float  # fraction of time the replica ran steps
    end: float = 0.0  # when the last request finished
    missed: bool = False  # stopped early: a target of `Targets` is missed; the lists are incomplete
    # run with `Targets` and every request served: whether no limit was exceeded by more requests than
    # allowed, which is whether every percentile the targets judge meets its limit (None: not judged)
    met: bool | None = None

    def warm(self, skip: int) -> SimResult:
        """The result without the first `skip` requests (the queue filling from empty)."""
        return SimResult(
            self.ttft[skip:], self.tpot[skip:], self.e2e[skip:], self.busy, self.end, self.missed, self.met
        )


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


@functools.lru_cache(maxsize=4)
def _exponential_draws(n: int, seed: int) -> tuple[float, ...]:
    """`n` exponential draws of mean 1 from `seed`, drawn once: random.expovariate's own formula
    (-log(1 - U)), so that each draw over a rate is the float expovariate(rate) gives."""
    rng = random.Random(seed)
    return tuple(-math.log(1.0 - rng.random()) for _ in range(n))


def poisson_arrivals(rate: float, n: int, seed: int) -> list[float]:
    """Arrival times of `n` requests at `rate` per second (exponential gaps), reproducible by seed;
    the draws are made once per (n, seed) and scaled to each rate (a replica search simulates
    thousands of rates)."""
    return list(itertools.accumulate(map(operator.truediv, _exponential_draws(n, seed), itertools.repeat(rate))))


def simulate(
    model: StepModel,
    setup: EngineSetup,
    arrivals: list[float],
    prompt_tokens: int,
    closed_loop: bool = False,
    targets: Targets | None = None,
    shapes: RequestShapes | None = None,
) -> SimResult:
    """Run every arrival through one replica (`prompt_tokens`: the full prompt each request
    attends to); results are in arrival order. `closed_loop`: clients that send a request only
    when one of theirs finishes (a benchmark's --max-concurrency = the batch cap), so latencies
    count from admission, not from the queue. `targets`: stop once one is missed (`missed`).
    `shapes`: each request's own sizes, in arrival order (None: every request the setup's)."""
    return _simulated(model, setup, arrivals, prompt_tokens, closed_loop, targets, shapes)[0]


def _simulated(
    model: StepModel,
    setup: EngineSetup,
    arrivals: list[float],
    prompt_tokens: int,
    closed_loop: bool,
    targets: Targets | None,
    shapes: RequestShapes | None = None,
) -> tuple[SimResult, int]:
    """`simulate`'s result, and the batch cap at or below which the run could have gone otherwise
    (the largest count of requests it compared with the cap; the cap itself in a closed loop)."""
    n = len(arrivals)
    if shapes is None:
        shapes = alike(setup, n, prompt_tokens)
    elif len(shapes.prefill) != n:
        raise ValueError(f"{len(shapes.prefill)} request shapes for {n} arrivals")
    run = _Run(model, setup, list(arrivals), shapes, targets)
    now, busy, held, served = run.loop(closed_loop)
    # the loop recorded TTFT and latency with the engine's per-request overhead already added
    met = None  # not judged, or a request never served (its figures are NaN): the percentiles say
    if targets is not None and (run.missed or served == len(arrivals)):
        met = not run.missed
    return SimResult(
        run.ttft, run.tpot, run.e2e, busy / now if now else 0.0, now + setup.request_overhead, run.missed, met
    ), held


def alike(setup: EngineSetup, n: int, prompt_tokens: int) -> RequestShapes:
    """`n` requests of the setup's sizes, each attending to a prompt of `prompt_tokens`."""
    return RequestShapes(
        (setup.prefill_tokens,) * n,
        (prompt_tokens + 1,) * n,
        (setup.decode_steps,) * n,
        (setup.tokens_per_request,) * n,
        (0,) * n,  # the simulation does not read outputs
    )


def simulate_once(
    key: Hashable,
    model: StepModel,
    setup: EngineSetup,
    arrivals: list[float],
    prompt_tokens: int,
    targets: Targets | None,
    shapes: RequestShapes | None = None,
) -> SimResult:
    """`simulate(model, setup, arrivals, prompt_tokens, targets=targets, shapes=shapes)`, or within
    gpuwise.estimate.sharing.shared_runs (one plan's search: it asks for the same run under several
    batch caps where none binds, for a layout's run again to show its row) the result of the same
    run made before: `key` names the step model, the arrivals and the request shapes (the caller's),
    and the setup, prompt and targets are compared here. A run under another batch cap is the same run when both caps are above every count of requests it held against its cap."""
    store = shared()
    if store is None:
        return simulate(model, setup, arrivals, prompt_tokens, targets=targets, shapes=shapes)
    cap = setup.max_batch
    # [(batch cap, the cap at or below which the run could differ, result)]
    runs: list[tuple[int, int, SimResult]] = store.setdefault(
        ("run", key, replace(setup, max_batch=0), prompt_tokens, targets), []
    )
    for their_cap, held, result in runs:
        if their_cap == cap or held < min(cap, their_cap):
            return result
    result, held = _simulated(model, setup, arrivals, prompt_tokens, False, targets, shapes)
    runs.append((cap, held, result))
    return result


class _Run:
    """One simulation's constants and per-request records (the loop keeps its clock, counters and
    target counts in local variables: it is the hot path of a plan's serving search, a few events
    per request and a few hundred thousand per plan)."""

    __slots__ = ("arrivals", "e2e", "first", "limits", "missed", "model", "setup", "shapes", "tpot", "ttft")

    def __init__(
        self,
        model: StepModel,
        setup: EngineSetup,
        arrivals: list[float],
        shapes: RequestShapes,
        targets: Targets | None,
    ) -> None:
        n = len(arrivals)
        self.model, self.setup, self.arrivals, self.shapes = model, setup, arrivals, shapes
        self.ttft, self.tpot, self.e2e = [math.nan] * n, [math.nan] * n, [math.nan] * n
        self.first = [0.0] * n  # when each request's first token came
        # (first request judged, the limits on TTFT, TPOT and latency, requests allowed over each)
        self.limits = (n, 0.0, 0.0, 0.0, 0)
        if targets is not None:
            self.limits = (targets.skip, targets.ttft, targets.tpot, targets.e2e, targets.allowed)
        self.missed = False

    def loop(self, closed_loop: bool) -> tuple[float, float, int, int]:
        """Events to the last request or a missed target: (end, busy, held, served); a cap above `held` runs alike."""
        ends, ceil = _Ends(self), math.ceil
        arrivals, ttft, tpot, e2e, first = self.arrivals, self.ttft, self.tpot, self.e2e, self.first
        n, max_batch, kv_free, budget, extra = ends.sizes  # kv_free: KV tokens no running request holds
        prompts, contexts, steps_of, kvs = ends.shapes
        verify, grow, layers, per_key, per_pair, fixed_of, plain, apart = ends.rates
        skip, lim_ttft, lim_tpot, lim_e2e, allowed = self.limits
        decode_fixed = [0.0] * (max_batch + 1)  # a decode step's time besides attention, by decodes (0: not yet)
        prefilling: deque[list[int]] = deque()  # [request, prompt tokens done]
        running: list[tuple[int, int, float]] = []  # a heap of (finish step, request, its term of key_base)
        chunk_run, missed = _chunk_runner(ends, running), False
        now = busy = key_base = 0.0  # key_base: sum over running requests of (context at admission - step it started)
        step_no = nxt = queued = done = held = over_ttft = over_tpot = over_e2e = 0  # queued: not admitted
        while done < n and not missed:
            while nxt < n and arrivals[nxt] <= now:
                nxt += 1
            if queued < nxt:  # requests wait (queued .. nxt - 1): admitted while the batch and KV cache have room
                while queued < nxt and len(prefilling) + len(running) < max_batch and kvs[queued] <= kv_free:
                    prefilling.append([queued, 0])
                    if closed_loop:
                        arrivals[queued] = now  # sent when a client's slot freed
                    queued, kv_free = queued + 1, kv_free - kvs[queued]
                held = count if (count := len(prefilling) + len(running)) > held else held  # each count against the cap
            decodes = len(running)
            ready, context = 0, key_base / decodes + step_no * grow if decodes else 0.0  # the running requests' mean
            if prefilling and apart:  # prompts in a step of their own, the running requests waiting
                now, busy, ready = ends.apart_step(prefilling, now, busy)
            elif prefilling:  # a closed loop admits its next request at the next step: no run of chunks
                head, chunk = prefilling[0], budget - decodes * verify  # what the oldest prompt may take
                start, prompt = head[1], prompts[head[0]]
                admits = closed_loop and nxt < n and len(prefilling) + decodes < max_batch
                if chunk > 0 and prompt - start > chunk and not (admits and kvs[queued] <= kv_free):
                    t, steps = chunk_run(head, chunk, step_no, context)
                elif plain and chunk > 0 and len(prefilling) == 1 and start < prompt:  # mixed_step's one prompt
                    take = chunk if chunk < prompt - start else prompt - start
                    head[1], ready = start + take, 1 if start + take >= prompt else 0
                    keys = layers * context * decodes if decodes else 0.0
                    fixed, steps = fixed_of(take + decodes * verify, decodes * verify + 1), 1
                    t = fixed + per_key * keys + per_pair * (take * (start + (take + 1) / 2)) * layers
                else:
                    (t, ready), steps = ends.mixed_step(prefilling, decodes, context), 1
                now, busy, step_no = now + t, busy + t, step_no + (steps if decodes else 0)
            elif decodes:  # identical decode steps until a request finishes or an arrival can be admitted
                steps = running[0][0] - step_no
                fixed = decode_fixed[decodes] or ends.decode_fixed(decode_fixed, decodes)
                t = ends.decode_step(fixed, context + steps * grow / 2, decodes)
                held = decodes if decodes > held else held
                if decodes < max_batch and nxt < n and kvs[queued] <= kv_free and t > 0:
                    k = ceil((arrivals[nxt] - now) / t)  # the steps up to the arrival, at least one
                    if (cut := max(k, 1)) < steps:  # cut short: each step at the mean context of those taken
                        steps, t = cut, ends.decode_step(fixed, context + cut * grow / 2, decodes)
                t *= steps
                now, busy, step_no = now + t, busy + t, step_no + steps
            elif nxt < n:  # idle until the next arrival
                now = arrivals[nxt]
            else:
                break  # nothing can ever be admitted (a request larger than the KV cache)
            while running and running[0][0] <= step_no:  # requests whose last decode step has run
                _, r, term = heappop(running)
                e2e[r] = latency = now - arrivals[r] + extra
                tpot[r] = per_token = (now - first[r]) / max(1.0, steps_of[r] * grow)  # output tokens after the first
                if r >= skip and (per_token > lim_tpot or latency > lim_e2e):
                    over_tpot, over_e2e = over_tpot + (per_token > lim_tpot), over_e2e + (latency > lim_e2e)
                    missed = over_tpot > allowed or over_e2e > allowed
                key_base, kv_free, done = key_base - term, kv_free + kvs[r], done + 1
            while ready:  # the oldest prompts are done: their first token is out, their decode starts
                ready, r = ready - 1, prefilling.popleft()[0]
                ttft[r] = latency = now - arrivals[r] + extra
                first[r] = now
                if r >= skip and latency > lim_ttft:
                    over_ttft, missed = over_ttft + 1, missed or over_ttft >= allowed  # the count before this one
                if steps_of[r]:
                    key_base += (term := contexts[r] - step_no * grow)
                    heappush(running, (step_no + steps_of[r], r, term))
                else:  # an output of one token: done
                    over_tpot, over_e2e, missed = ends.one_token(r, latency, over_tpot, over_e2e, missed)
                    kv_free, done = kv_free + kvs[r], done + 1
        self.missed = missed
        return now, busy, max_batch if closed_loop else held, done


class _Ends:
    """A run's constants as the loop reads them, and its less common events: a step with several
    prompts' chunks or sliding windows, an output of one token."""

    __slots__ = ("budget", "chunk_fixed", "grow", "model", "prompts", "rates", "run", "shapes", "sizes", "windowed")

    def __init__(self, run: _Run) -> None:
        self.run, self.model = run, run.model
        setup, model = run.setup, run.model
        self.budget, self.grow = setup.token_budget, setup.tokens_per_step
        shapes = run.shapes
        self.prompts = shapes.prefill
        self.windowed = model.win_layers / model.layers  # the share of layers a window caps (0 without one)
        self.chunk_fixed: dict[int, float] = {}  # a chunk run's step besides attention, by decodes
        # (requests, batch cap, KV tokens of the replica, step budget, a request's time outside the engine)
        self.sizes = (len(run.arrivals), setup.max_batch, setup.kv_tokens, self.budget, setup.request_overhead)
        # each request's (prompt tokens to prefill, context at its first decode, decode steps after its first
        # token, KV tokens held)
        self.shapes = (shapes.prefill, shapes.context, shapes.steps, shapes.kv)
        # (tokens a request puts in a step, its context's growth a step, layers, a decode's seconds per key
        # read, a prompt's per (query, key) pair, StepModel.fixed, no windows, prompts prefilled in steps of
        # their own)
        self.rates = (
            *(model.verify, self.grow, model.layers, model.decode_per_key),
            *(model.prefill_per_pair, model.fixed, model.window is None, not setup.chunked_prefill),
        )

    def mixed_step(self, prefilling: deque[list[int]], decodes: int, context: float) -> tuple[float, int]:
        """One step with prompt chunks: every running request's decode first, then prefill chunks in
        arrival order up to the token budget: StepModel.step, prefill_pairs and keys written out, the
        same arithmetic. Returns (its seconds, the prompts it completed)."""
        model, prompts, windowed = self.model, self.prompts, self.windowed
        window = model.window
        left = self.budget - decodes * model.verify
        chunk_tokens, pairs, ready = 0, 0.0, 0
        for item in prefilling:
            if left <= 0:
                break
            done, prompt = item[1], prompts[item[0]]
            take = left if left < prompt - done else prompt - done
            mid = done + (take + 1) / 2  # the chunk's mean query position
            if window is None:
                pairs += take * mid
            else:
                pairs += (1 - windowed) * (take * mid) + windowed * take * (mid if mid <= window else window)
            item[1] = done = done + take
            left -= take
            chunk_tokens += take
            ready += done >= prompt
        tokens = chunk_tokens + decodes * model.verify
        if not tokens:
            return 0.0, ready
        keys = 0.0
        if decodes:
            keys = model.layers * context if window is None else self.windowed_keys(context)
            keys *= decodes
        # each prompt the step completes takes its first token's logits (and its share of host work)
        fixed = model.fixed(tokens, decodes * model.verify + (max(ready, 1) if chunk_tokens else 0))
        return fixed + model.decode_per_key * keys + model.prefill_per_pair * pairs * model.layers, ready

    def apart_step(self, prefilling: deque[list[int]], now: float, busy: float) -> tuple[float, float, int]:
        """A step of prompts alone (an engine that prefills apart): (the clock and busy time after it, the
        prompts it completed); the running requests' decodes wait through it."""
        t, ready = self.mixed_step(prefilling, 0, 0.0)
        return now + t, busy + t, ready

    def one_token(self, r: int, latency: float, over_tpot: int, over_e2e: int, missed: bool) -> tuple[int, int, bool]:
        """A request whose output is its first token is done at it (`latency`): its records, and the
        counts over the TPOT and latency limits with whether one is missed."""
        run = self.run
        skip, _, lim_tpot, lim_e2e, allowed = run.limits
        run.e2e[r], run.tpot[r] = latency, 0.0
        if r >= skip:
            over_tpot, over_e2e = over_tpot + (lim_tpot < 0.0), over_e2e + (latency > lim_e2e)
        return over_tpot, over_e2e, missed or over_tpot > allowed or over_e2e > allowed

    def decode_fixed(self, known: list[float], decodes: int) -> float:
        """A decode step's time besides attention with `decodes` running requests, kept in `known`."""
        verify = self.model.verify
        known[decodes] = fixed = self.model.fixed(decodes * verify, decodes * verify)
        return fixed

    def decode_step(self, fixed: float, mid: float, decodes: int) -> float:
        """One pure-decode step of `decodes` requests at mean context `mid`: `fixed` (the step besides
        attention) and the keys every request reads."""
        model = self.model
        keys = model.layers * mid if model.window is None else self.windowed_keys(mid)
        return fixed + model.decode_per_key * (keys * decodes)

    def windowed_keys(self, context: float) -> float:
        """StepModel.keys for a model with sliding-window layers."""
        model, window = self.model, self.model.window
        capped = context if window is None or context <= window else window
        return (model.layers - model.win_layers) * context + model.win_layers * capped


def _chunk_runner(
    ends: _Ends, running: list[tuple[int, int, float]]
) -> Callable[[list[int], int, int, float], tuple[float, int]]:
    """A run's chunk runs: steps in which the oldest prompt (`head`: [request, prompt tokens done])
    takes the whole budget of `chunk` tokens, up to the step before its last chunk or a running
    request's last step (arrivals wait to the end of the run: the prompts queued behind it get no
    tokens in it anyway): StepModel.chunk_run's closed form, written out for models without sliding
    windows. A closure over the run's constants: the loop calls it once a prompt. Returns (seconds, steps)."""
    model, prompts, grow, ceil, chunk_fixed = ends.model, ends.prompts, ends.grow, math.ceil, ends.chunk_fixed
    verify, layers, per_key, per_pair, fixed_of = (
        model.verify,
        model.layers,
        model.decode_per_key,
        model.prefill_per_pair,
        model.fixed,
    )

    def chunk_run(head: list[int], chunk: int, step_no: int, context: float) -> tuple[float, int]:
        decodes, start = len(running), head[1]
        steps = ceil((prompts[head[0]] - start) / chunk) - 1
        if decodes and running[0][0] - step_no < steps:
            steps = running[0][0] - step_no
        head[1] += steps * chunk
        if model.window is not None:
            return model.chunk_run(steps, chunk, decodes, context, grow, start), steps
        fixed = chunk_fixed.get(decodes)
        if fixed is None:
            fixed = chunk_fixed[decodes] = fixed_of(chunk + decodes * verify, decodes * verify + 1)
        keys = (steps * context + grow * steps * (steps - 1) / 2) * layers
        mid = start + (chunk + 1) / 2  # a chunk's mean query position (see prefill_pairs)
        pairs = chunk * (steps * mid + chunk * steps * (steps - 1) / 2)
        return steps * fixed + per_key * keys * decodes + per_pair * pairs * layers, steps

    return chunk_run
