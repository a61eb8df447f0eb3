"""Request latency under open-loop load: requests arrive at a fixed rate (Poisson or evenly
spaced) and are issued on schedule whether or not earlier ones have finished (a thread pool
serves them), so a slow server shows up as queueing in the latency rather than as a lower request
rate. Latency is measured from each request's scheduled arrival time (no coordinated omission).

Targets: an HTTP endpoint (`url`: POST of a small JSON body, stdlib urllib, with a timeout), or a
model run in this process ("mlp", or an nn.Module with `input_shape=`). Results: 'p50', 'p95',
'p99' in seconds (samples: every successful request's latency) and 'achieved-rate' in 1/s
(completed requests over the time from the first arrival to the last completion).
"""

from __future__ import annotations

import http.client
import json
import math
import os
import random
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from gpuwise.bench._common import Progress, ProgressFn, check_positive, is_cuda, on_device, resolve_device, torch_module
from gpuwise.errors import GpuwiseError, UsageError
from gpuwise.stats import percentile
from gpuwise.store.results import Measurement

MAX_REQUESTS = 100_000
MAX_THREADS = 256


def arrival_offsets(rate: float, count: int, arrival: str = "poisson", seed: int = 0) -> list[float]:
    """Seconds from the start at which each of `count` requests arrives: exponential gaps of mean
    1/rate (Poisson process) or exactly 1/rate apart ('fixed'); the first arrives at 0."""
    if arrival not in ("poisson", "fixed"):
        raise UsageError(f"arrival must be 'poisson' or 'fixed'; got {arrival!r}")
    rng = random.Random(seed)
    out, t = [], 0.0
    for i in range(count):
        if i:
            t += rng.expovariate(rate) if arrival == "poisson" else 1.0 / rate
        out.append(t)
    return out


def _http_target(url: str, timeout: float, body: dict[str, Any] | None) -> Callable[[], None]:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"url must be an http:// or https:// address; got {url!r}")
    data = json.dumps(body if body is not None else {"inputs": [[0.0] * 8]}).encode()

    def call() -> None:
        req = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()

    return call


def _model_target(
    device: str, model: Any, batch: int, input_shape: Sequence[int] | None, quick: bool
) -> tuple[Callable[[], None], str]:
    torch = torch_module()
    if isinstance(model, str):
        if model != "mlp":
            raise UsageError(f"in-process model must be 'mlp' or an nn.Module; got {model!r}")
        d_in, width = (256, 512) if quick else (1024, 4096)
        net = torch.nn.Sequential(
            torch.nn.Linear(d_in, width), torch.nn.GELU(), torch.nn.Linear(width, width), torch.nn.GELU(),
            torch.nn.Linear(width, 10),
        )  # fmt: skip
        shape: Sequence[int] = (d_in,)
        name = "mlp"
    else:
        if input_shape is None:
            raise UsageError("an nn.Module as model needs input_shape= (one sample, without the batch)")
        net, shape, name = model, input_shape, type(model).__name__
    net = net.to(device).eval()
    x = torch.randn(batch, *shape, generator=torch.Generator().manual_seed(0)).to(device)
    gpu = is_cuda(device)

    def call() -> None:
        with on_device(device), torch.inference_mode():
            net(x)
            if gpu:
                torch.cuda.current_stream().synchronize()

    return call, name


@dataclass(slots=True)
class _Outcome:
    """What an open-loop run recorded: per-request latency (None: failed), errors, completion times."""

    latencies: list[float | None]
    errors: list[str] = field(default_factory=list)
    finished: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def request(self, call: Callable[[], None], i: int, scheduled: float) -> None:
        """Issue request `i`; its latency counts from its scheduled arrival (no coordinated omission)."""
        try:
            call()
        except (OSError, http.client.HTTPException, ValueError, GpuwiseError) as exc:  # URLError is an OSError
            with self.lock:
                self.errors.append(f"{type(exc).__name__}: {exc}")
            return
        now = time.perf_counter()
        with self.lock:
            self.latencies[i] = now - scheduled
            self.finished.append(now)


def _threads(url: str | None, rate: float, timeout: float) -> int:
    """HTTP: enough threads for every request that can be outstanding; in-process: two a core
    (an in-process "server"; later requests queue, and that counts)."""
    if url is not None:
        return max(4, min(MAX_THREADS, math.ceil(rate * min(timeout, 5.0))))
    return max(4, min(MAX_THREADS, 2 * (os.cpu_count() or 1)))


def _open_loop(
    call: Callable[[], None], offsets: list[float], threads: int, deadline_after: float, bar: Progress
) -> tuple[_Outcome, float]:
    """Submit each request at its offset from the start, whatever is still running; (outcome, start)."""
    outcome = _Outcome([None] * len(offsets))
    futures: list[Future[None]] = []
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="gpuwise-latency") as pool:
        for i, offset in enumerate(offsets):
            scheduled = start + offset
            delay = scheduled - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            futures.append(pool.submit(outcome.request, call, i, scheduled))
            bar.advance()
        # bounded in time: requests not started by the deadline are cancelled and counted as errors
        deadline = start + offsets[-1] + deadline_after
        _done, pending = wait(futures, timeout=max(0.0, deadline - time.perf_counter()))
        dropped = sum(1 for f in pending if f.cancel())
        outcome.errors.extend(["not started before the deadline"] * dropped)
        for f in futures:
            if not f.cancelled():
                f.result()  # request() records its own errors; anything else is a bug worth raising
    return outcome, start


def _results(ok: list[float], span: float, params: dict[str, Any]) -> list[Measurement]:
    """p50, p95, p99 (every successful latency as samples) and the achieved request rate."""
    samples = tuple(ok)
    out = [Measurement("latency", f"p{q}", percentile(ok, q), "seconds", dict(params), samples) for q in (50, 95, 99)]
    rate = len(ok) / span if span > 0 else float(len(ok))
    out.append(Measurement("latency", "achieved-rate", rate, "1/s", dict(params)))
    return out


def latency(
    device: str = "cpu",
    quick: bool = False,
    progress: ProgressFn | None = None,
    rate: float | None = None,
    duration: float | None = None,
    url: str | None = None,
    model: Any = "mlp",
    batch: int = 1,
    *,
    arrival: str = "poisson",
    timeout: float = 10.0,
    body: dict[str, Any] | None = None,
    input_shape: Sequence[int] | None = None,
    max_requests: int = MAX_REQUESTS,
    seed: int = 0,
) -> list[Measurement]:
    """Open-loop latency percentiles at `rate` requests/s for `duration` seconds (defaults: 50/s
    for 1 s quick, 100/s for 10 s otherwise); round(rate*duration) requests, at most `max_requests`.

    With `url`, each request is an HTTP POST of `body` (JSON; default {"inputs": [[0.0]*8]}) with
    `timeout` seconds; failed requests (errors, timeouts, non-2xx) are counted in params['errors']
    and left out of the percentiles. Without `url`, each request is a forward pass of `model`
    ("mlp" or an nn.Module) on a batch of `batch` in this process.
    """
    rate = float(rate if rate is not None else 50.0 if quick else 100.0)
    duration = float(duration if duration is not None else 1.0 if quick else 10.0)
    check_positive(rate=rate, duration=duration, timeout=timeout, batch=batch)
    count = min(int(max_requests), max(1, round(rate * duration)))
    if url is not None:
        call, target = _http_target(url, timeout, body), url
    else:
        call, name = _model_target(resolve_device(device), model, int(batch), input_shape, quick)
        target = f"in-process {name}"
        for _ in range(3):  # warm-up: allocations, kernel selection
            call()
    offsets = arrival_offsets(rate, count, arrival, seed)
    threads = _threads(url, rate, timeout)
    bar = Progress(progress, "latency", count)
    outcome, start = _open_loop(call, offsets, threads, duration + timeout, bar)
    ok = [x for x in outcome.latencies if x is not None]
    if not ok:
        first = outcome.errors[0] if outcome.errors else "no response"
        raise UsageError(f"all {count} requests to {target} failed; first error: {first}")
    params = {
        "rate": rate, "duration": duration, "arrival": arrival, "requests": count, "completed": len(ok),
        "errors": len(outcome.errors), "target": target, "batch": int(batch), "threads": threads,
    }  # fmt: skip
    if url is not None:
        params["timeout"] = timeout
    bar.finish()
    return _results(ok, max(outcome.finished) - start, params)
