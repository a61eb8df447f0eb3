"""vLLM's serving benchmark result: the JSON `benchmarks/benchmark_serving.py --save-result` and
`vllm bench serve --save-result` write (one object; `--append-result` adds one per line).

Keys as vLLM writes them (benchmark_serving.py from v0.4 to v0.10, vllm/benchmarks/serve.py
after): `model_id`, `date` (%Y%m%d-%H%M%S), `num_prompts`, `request_rate` (a number or "inf"),
`max_concurrency` (null when unlimited), `duration`, `completed`, `total_input_tokens`,
`total_output_tokens`, `request_throughput` (v0.4: `request_inthroughput`),
`output_throughput`, `total_token_throughput`, and per metric (ttft, tpot, itl, e2el, each only
when `--percentile-metrics` selects it) `mean_X_ms`, `median_X_ms`, `std_X_ms` and
`pNN_X_ms` for each `--metric-percentiles` value. Everything else is kept as a fact or ignored.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from gpuwise.calibration.parsed import Parsed, clean, number, whole
from gpuwise.errors import ConfigError
from gpuwise.files import parse_json

FORMAT = "vllm-bench"
_METRICS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2e"}  # vLLM's name -> gpuwise's
_PERCENTILE = re.compile(r"^p(\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$")
_REQUEST_RATE = ("request_throughput", "request_inthroughput")  # v0.4 spelled it with 'in'
_FACTS = ("backend", "endpoint_type", "label", "tokenizer_id", "num_prompts", "burstiness", "failed", "version")
MS = 1e-3


def parse(text: str) -> tuple[Parsed, ...]:
    """Every result in the file: one JSON object, or one per line (`--append-result`)."""
    stripped = text.strip()
    if not stripped:
        raise ConfigError("the file is empty: expected the JSON vLLM's benchmark writes with --save-result")
    if stripped.startswith("{") and "\n{" not in stripped:
        return (_one(parse_json(stripped, "the file"), ""),)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            out.append(_one(parse_json(line, f"line {n}"), f"line {n}: "))
    return tuple(out)


def _one(doc: Any, at: str) -> Parsed:
    if not isinstance(doc, dict):
        raise ConfigError(f"{at}expected a JSON object (vLLM's --save-result output), got {type(doc).__name__}")
    completed = whole(_need(doc, "completed", at), f"{at}key 'completed'", positive=False)
    inputs = whole(_need(doc, "total_input_tokens", at), f"{at}key 'total_input_tokens'", positive=False)
    outputs = whole(_need(doc, "total_output_tokens", at), f"{at}key 'total_output_tokens'", positive=False)
    duration = number(_need(doc, "duration", at), f"{at}key 'duration'", positive=True)
    rate_key = next((k for k in _REQUEST_RATE if k in doc), _REQUEST_RATE[0])
    figures = {
        "requests_per_second": number(_need(doc, rate_key, at), f"{at}key {rate_key!r}"),
        "output_tokens_per_second": number(_need(doc, "output_throughput", at), f"{at}key 'output_throughput'"),
    }
    if "total_token_throughput" in doc:
        figures["total_tokens_per_second"] = number(doc["total_token_throughput"], f"{at}key 'total_token_throughput'")
    stds = _latencies(doc, figures, at)
    if not any(k.split(".")[0] in ("ttft", "tpot", "e2e") for k in figures):
        raise ConfigError(f"{at}no latency keys (mean_ttft_ms, mean_tpot_ms, mean_e2el_ms): not a serving result")
    shape, notes = _shape(doc, figures, completed, inputs, outputs, at)
    model = doc.get("model_id")
    facts: dict[str, Any] = {k: doc[k] for k in _FACTS if isinstance(doc.get(k), str | int | float)}
    facts.update(requests=completed, duration_seconds=duration, std_seconds=stds, request_rate=_rate(doc, at))
    return Parsed(
        format=FORMAT,
        figures=figures,
        shape=shape,
        model=clean(model) if isinstance(model, str) and model.strip() else None,
        measured_at=_date(doc.get("date")),
        facts={k: clean(v) if isinstance(v, str) else v for k, v in facts.items()},
        notes=tuple(notes),
    )


def _need(doc: dict[str, Any], key: str, at: str) -> Any:
    if key not in doc or doc[key] is None:
        raise ConfigError(f"{at}key {key!r} is missing: not the JSON of vLLM's benchmark --save-result")
    return doc[key]


def _latencies(doc: dict[str, Any], figures: dict[str, float], at: str) -> dict[str, float]:
    """mean/median/percentiles of each latency metric into `figures` (seconds); their std apart."""
    stds: dict[str, float] = {}
    for theirs, ours in _METRICS.items():
        for stat in ("mean", "median"):
            key = f"{stat}_{theirs}_ms"
            if doc.get(key) is not None:
                figures[f"{ours}.{stat}"] = number(doc[key], f"{at}key {key!r}") * MS
        if doc.get(f"std_{theirs}_ms") is not None:
            stds[ours] = number(doc[f"std_{theirs}_ms"], f"{at}key 'std_{theirs}_ms'") * MS
    for key, value in doc.items():
        m = _PERCENTILE.match(key)
        if m and value is not None:
            figures[f"{_METRICS[m.group(2)]}.p{m.group(1)}"] = number(value, f"{at}key {key!r}") * MS
    return stds


def _shape(
    doc: dict[str, Any], figures: dict[str, float], completed: int, inputs: int, outputs: int, at: str
) -> tuple[dict[str, Any], list[str]]:
    """The workload the run served: mean prompt and output lengths from the totals, and the
    requests in flight: --max-concurrency when the run held one, else by Little's law (request
    throughput x mean end-to-end latency)."""
    if completed == 0:
        raise ConfigError(f"{at}key 'completed' is 0: every request failed, nothing was measured")
    shape: dict[str, Any] = {
        "input_tokens": max(1, round(inputs / completed)),
        "output_tokens": max(1, round(outputs / completed)),
    }
    notes: list[str] = []
    held = doc.get("max_concurrency")
    if held is not None:
        shape["concurrency"] = min(whole(held, f"{at}key 'max_concurrency'"), completed)
        return shape, notes
    e2e = figures.get("e2e.mean")
    if e2e is None and "ttft.mean" in figures and "tpot.mean" in figures:
        e2e = figures["ttft.mean"] + figures["tpot.mean"] * max(0, shape["output_tokens"] - 1)
    if e2e is None:
        raise ConfigError(f"{at}no 'max_concurrency' and no mean latency: cannot tell how many requests ran at once")
    shape["concurrency"] = max(1, min(completed, round(figures["requests_per_second"] * e2e)))
    notes.append(
        f"no --max-concurrency in the run: {shape['concurrency']} request(s) in flight on average "
        "(request throughput x mean end-to-end latency, Little's law)"
    )
    return shape, notes


def _rate(doc: dict[str, Any], at: str) -> float | str | None:
    rate = doc.get("request_rate")
    if rate is None or rate == "inf":
        return rate
    return number(rate, f"{at}key 'request_rate'")


def _date(text: Any) -> str | None:
    """vLLM's '%Y%m%d-%H%M%S' (local time of the benchmark host, no zone) as ISO 8601."""
    if not isinstance(text, str):
        return None
    try:
        return dt.datetime.strptime(text.strip(), "%Y%m%d-%H%M%S").isoformat()
    except ValueError:
        return None
