"""Event-driven simulation of one replica's continuous batching with chunked prefill.

Each engine step carries one token of every running request and, within the step's token
budget, chunks of admitted prompts (first come, first served). A request is admitted when the
batch has room and the KV cache holds its whole context (no preemption: the admission vLLM and
TensorRT-LLM make with a guaranteed-no-evict policy). Between events (an arrival that can be
admitted, a request finishing) every step is the same pure-decode step, so the simulator jumps
over all of them at once; the running requests sit in a queue by the step they finish at (each
decodes the same number of steps, so they finish in the order they started). A long prompt's chunks
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

import math
import random
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, replace

from gpuwise.estimate.engine import EngineSetup, StepModel
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


def poisson_arrivals(rate: float, n: int, seed: int) -> list[float]:
    """Arrival times of `n` requests at `rate` per second (exponential gaps), reproducible by seed."""
    rng = random.Random(seed)
    out, t = [], 0.0
    for _ in range(n):
        t += rng.expovariate(rate)
        out.append(t)
    return out


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
    return _simulated(model, setup, arrivals, prompt_tokens, closed_loop, targets)[0]


def _simulated(
    model: StepModel,
    setup: EngineSetup,
    arrivals: list[float],
    prompt_tokens: int,
    closed_loop: bool,
    targets: Targets | None,
) -> tuple[SimResult, int]:
    """`simulate`'s result, and the batch cap at or below which the run could have gone otherwise
    (the largest count of requests it compared with the cap; the cap itself in a closed loop)."""
    run = _Run(model, setup, list(arrivals), prompt_tokens + 1, targets)
    now, busy, held, served = run.loop(closed_loop)
    # the loop recorded TTFT and latency with the engine's per-request overhead already added
    met = None  # not judged, or a request never served (its figures are NaN): the percentiles say
    if targets is not None and (run.missed or served == len(arrivals)):
        met = not run.missed
    return SimResult(
        run.ttft, run.tpot, run.e2e, busy / now if now else 0.0, now + setup.request_overhead, run.missed, met
    ), held


def simulate_once(
    key: Hashable,
    model: StepModel,
    setup: EngineSetup,
    arrivals: list[float],
    prompt_tokens: int,
    targets: Targets | None,
) -> SimResult:
    """`simulate(model, setup, arrivals, prompt_tokens, targets=targets)`, or within
    gpuwise.estimate.sharing.shared_runs (one plan's search: it asks for the same run under several
    batch caps where none binds, for a layout's run again to show its row) the result of the same
    run made before: `key` names the step model and the arrivals (the
    caller's), and the setup, prompt and targets are compared here. A run under another batch cap
    is the same run when both caps are above every count of requests it held against its cap."""
    store = shared()
    if store is None:
        return simulate(model, setup, arrivals, prompt_tokens, targets=targets)
    cap = setup.max_batch
    # [(batch cap, the cap at or below which the run could differ, result)]
    runs: list[tuple[int, int, SimResult]] = store.setdefault(
        ("run", key, replace(setup, max_batch=0), prompt_tokens, targets), []
    )
    for their_cap, held, result in runs:
        if their_cap == cap or held < min(cap, their_cap):
            return result
    result, held = _simulated(model, setup, arrivals, prompt_tokens, False, targets)
    runs.append((cap, held, result))
    return result


class _Run:
    """One simulation's constants and per-request records (the loop keeps its clock, counters and
    target counts in local variables: it is the hot path of a plan's serving search, a few events
    per request and a few hundred thousand per plan)."""

    __slots__ = (
        "after_first",
        "arrivals",
        "e2e",
        "first",
        "limits",
        "missed",
        "model",
        "over",
        "setup",
        "start_context",
        "tpot",
        "ttft",
    )

    def __init__(
        self, model: StepModel, setup: EngineSetup, arrivals: list[float], start_context: int, targets: Targets | None
    ) -> None:
        n = len(arrivals)
        self.model, self.setup, self.arrivals, self.start_context = model, setup, arrivals, start_context
        self.ttft, self.tpot, self.e2e = [math.nan] * n, [math.nan] * n, [math.nan] * n
        self.first = [0.0] * n  # when each request's first token came
        # (first request judged, the limits on TTFT, TPOT and latency, requests allowed over each)
        self.limits = (n, 0.0, 0.0, 0.0, 0)
        if targets is not None:
            self.limits = (targets.skip, targets.ttft, targets.tpot, targets.e2e, targets.allowed)
        self.over = [0, 0, 0]  # requests over each limit
        self.missed = False
        self.after_first = max(1.0, setup.decode_steps * setup.tokens_per_step)  # output tokens after the first

    def _retire(self, running: deque[tuple[int, int]], step_no: int, now: float, key_base: float) -> tuple[int, float]:
        """Retire the requests whose last decode step has run: (how many, key_base without them; the
        same term off for each, as they all started decode steps ago)."""
        setup, arrivals, first, tpot, e2e, over = self.setup, self.arrivals, self.first, self.tpot, self.e2e, self.over
        skip, _, lim_tpot, lim_e2e, allowed = self.limits
        after_first = self.after_first
        started = self.start_context - (step_no - setup.decode_steps) * setup.tokens_per_step
        count = 0
        while running and running[0][0] <= step_no:
            r = running.popleft()[1]
            e2e[r] = latency = now - arrivals[r] + setup.request_overhead
            tpot[r] = per_token = (now - first[r]) / after_first
            if r >= skip:
                over[1] += per_token > lim_tpot
                over[2] += latency > lim_e2e
                self.missed = self.missed or over[1] > allowed or over[2] > allowed
            key_base -= started
            count += 1
        return count, key_base

    def loop(self, closed_loop: bool) -> tuple[float, float, int, int]:
        """Events until every request is served (or a target is missed); returns (end, busy, held,
        served): `held` is at least every count of requests the loop compared with the batch cap, so
        the same run under any cap above it takes every step this one took."""
        model, setup, arrivals, ends, ceil = self.model, self.setup, self.arrivals, _Ends(self), math.ceil
        n, max_batch, per_request, kv_tokens = len(arrivals), setup.max_batch, setup.tokens_per_request, setup.kv_tokens
        verify, grow, budget, prompt = model.verify, setup.tokens_per_step, setup.token_budget, setup.prefill_tokens
        layers, per_key, plain = model.layers, model.decode_per_key, model.window is None
        decode_fixed: list[float | None] = [None] * (max_batch + 1)  # a decode step's time besides attention
        waiting: deque[int] = deque()
        prefilling: deque[list[int]] = deque()  # [request, prompt tokens done]
        running: deque[tuple[int, int]] = deque()  # (finish step, request): finish steps never decrease
        now = busy = key_base = 0.0  # key_base: sum over running requests of (context at admission - step it started)
        step_no = kv_used = nxt = done = held = 0
        while done < n and not self.missed:
            while nxt < n and arrivals[nxt] <= now:
                waiting.append(nxt)
                nxt += 1
            if waiting:
                while waiting and len(prefilling) + len(running) < max_batch and kv_used + per_request <= kv_tokens:
                    r = waiting.popleft()
                    prefilling.append([r, 0])
                    kv_used += per_request
                    if closed_loop:
                        arrivals[r] = now  # sent when a client's slot freed
                count = len(prefilling) + len(running)  # at least each count held against the cap
                held = count if count > held else held
            decodes = len(running)
            context = key_base / decodes + step_no * grow if decodes else 0.0  # the running requests' mean
            ready = 0
            if prefilling:  # a closed loop admits its next request at the next step: no run of chunks
                admits = closed_loop and nxt < n and len(prefilling) + decodes < max_batch
                chunk = budget - decodes * verify  # what the oldest prompt may take
                if (
                    chunk > 0
                    and prompt - prefilling[0][1] > chunk
                    and not (admits and kv_used + per_request <= kv_tokens)
                ):
                    t, steps = ends.chunk_run(prefilling[0], chunk, running, step_no, context)
                else:
                    t, ready = ends.mixed_step(prefilling, decodes, context)
                    steps = 1
                now, busy, step_no = now + t, busy + t, step_no + (steps if decodes else 0)
            elif decodes:  # identical decode steps until a request finishes or an arrival can be admitted
                steps = running[0][0] - step_no
                fixed = decode_fixed[decodes]
                if fixed is None:
                    fixed = decode_fixed[decodes] = model.fixed(decodes * verify, decodes * verify)
                mid = context + steps * grow / 2
                t = fixed + per_key * ((layers * mid if plain else ends.windowed_keys(mid)) * decodes)
                held = decodes if decodes > held else held
                if decodes < max_batch and kv_used + per_request <= kv_tokens and nxt < n and t > 0:
                    k = ceil((arrivals[nxt] - now) / t)
                    if k < steps:
                        steps = k if k > 1 else 1
                t *= steps
                now, busy, step_no = now + t, busy + t, step_no + steps
            elif nxt < n:
                now = arrivals[nxt]
                continue
            else:
                break  # nothing can ever be admitted (a request larger than the KV cache)
            if running and running[0][0] <= step_no:  # requests whose last decode step has run
                count, key_base = self._retire(running, step_no, now, key_base)
                kv_used -= count * per_request
                done += count
            if ready:
                count, key_base = ends.first_tokens(ready, prefilling, running, now, step_no, key_base)
                kv_used -= count * per_request
                done += count
        return now, busy, max_batch if closed_loop else held, done


class _Ends:
    """The events at a prompt's ends: its chunks (a run of whole-budget chunks, or one step that
    completes prompts) and its first token."""

    __slots__ = ("budget", "chunk_fixed", "decode_steps", "extra", "grow", "model", "prompt", "run", "windowed")

    def __init__(self, run: _Run) -> None:
        self.run, self.model = run, run.model
        setup = run.setup
        self.budget, self.prompt, self.grow = setup.token_budget, setup.prefill_tokens, setup.tokens_per_step
        self.decode_steps, self.extra = setup.decode_steps, setup.request_overhead
        self.windowed = run.model.win_layers / run.model.layers  # the share of layers a window caps (0 without one)
        self.chunk_fixed: dict[int, float] = {}  # a chunk run's step besides attention, by decodes

    def chunk_run(
        self, head: list[int], chunk: int, running: deque[tuple[int, int]], step_no: int, context: float
    ) -> tuple[float, int]:
        """Steps in which the oldest prompt (`head`: [request, prompt tokens done]) takes the whole
        budget of `chunk` tokens, up to the step before its last chunk or a running request's last
        step (arrivals wait to the end of the run: the prompts queued behind it get no tokens in it
        anyway): StepModel.chunk_run's closed form, written out for models without sliding windows.
        Returns (seconds, steps)."""
        model, decodes, start = self.model, len(running), head[1]
        steps = math.ceil((self.prompt - start) / chunk) - 1
        if decodes and running[0][0] - step_no < steps:
            steps = running[0][0] - step_no
        head[1] += steps * chunk
        if model.window is not None:
            return model.chunk_run(steps, chunk, decodes, context, self.grow, start), steps
        fixed = self.chunk_fixed.get(decodes)
        if fixed is None:
            fixed = self.chunk_fixed[decodes] = model.fixed(chunk + decodes * model.verify, decodes * model.verify + 1)
        keys = (steps * context + self.grow * steps * (steps - 1) / 2) * model.layers
        mid = start + (chunk + 1) / 2  # a chunk's mean query position (see prefill_pairs)
        pairs = chunk * (steps * mid + chunk * steps * (steps - 1) / 2)
        t = steps * fixed + model.decode_per_key * keys * decodes + model.prefill_per_pair * pairs * model.layers
        return t, steps

    def mixed_step(self, prefilling: deque[list[int]], decodes: int, context: float) -> tuple[float, int]:
        """One step with prompt chunks: every running request's decode first, then prefill chunks in
        arrival order up to the token budget: StepModel.step, prefill_pairs and keys written out, the
        same arithmetic. Returns (its seconds, the prompts it completed)."""
        model, prompt, windowed = self.model, self.prompt, self.windowed
        window = model.window
        left = self.budget - decodes * model.verify
        chunk_tokens, pairs, ready = 0, 0.0, 0
        for item in prefilling:
            if left <= 0:
                break
            done = item[1]
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
        fixed = model.fixed(tokens, decodes * model.verify + (1 if chunk_tokens else 0))
        return fixed + model.decode_per_key * keys + model.prefill_per_pair * pairs * model.layers, ready

    def windowed_keys(self, context: float) -> float:
        """StepModel.keys for a model with sliding-window layers."""
        model, window = self.model, self.model.window
        capped = context if window is None or context <= window else window
        return (model.layers - model.win_layers) * context + model.win_layers * capped

    def first_tokens(
        self,
        ready: int,
        prefilling: deque[list[int]],
        running: deque[tuple[int, int]],
        now: float,
        step_no: int,
        key_base: float,
    ) -> tuple[int, float]:
        """The `ready` oldest prompts are done: their first token is out, their decode steps start.
        Returns (how many finished already: outputs of one token, key_base with the others)."""
        run, decode_steps, extra = self.run, self.decode_steps, self.extra
        skip, lim_ttft, lim_tpot, lim_e2e, allowed = run.limits
        arrivals, over, finished = run.arrivals, run.over, 0
        for _ in range(ready):
            r = prefilling.popleft()[0]
            run.ttft[r] = ttft = now - arrivals[r] + extra
            run.first[r] = now
            if r >= skip:
                over[0] += ttft > lim_ttft
                run.missed = run.missed or over[0] > allowed
            if decode_steps:
                running.append((step_no + decode_steps, r))
                key_base += run.start_context - step_no * self.grow
                continue
            run.e2e[r] = latency = now - arrivals[r] + extra
            run.tpot[r] = 0.0
            if r >= skip:
                over[1] += lim_tpot < 0.0
                over[2] += latency > lim_e2e
                run.missed = run.missed or over[1] > allowed or over[2] > allowed
            finished += 1
        return finished, key_base
