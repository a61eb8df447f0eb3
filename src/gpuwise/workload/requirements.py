"""Requirements from the three questions, each quantified.

1. The worst acceptable failure becomes a hard constraint: a deadline, a latency percentile at a
   QPS, a budget, a GPU count limit.
2. Where the data pipeline is slow becomes measured rates (the workload's data pipeline fields).
3. Growth in six months becomes a second workload (another model, more data, more users) that the
   plan is checked against, with the upgrade path named when today's choice will not hold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gpuwise.catalog import Catalog, ModelArch
from gpuwise.errors import UsageError
from gpuwise.units import parse_duration

OBJECTIVES = ("cost", "time")
PRICINGS = ("on-demand", "reserved", "spot", "owned")


@dataclass(frozen=True)
class Growth:
    """The workload six months from now, relative to today's."""

    model: ModelArch | None = None
    data_factor: float = 1.0  # tokens/samples to train on
    users_factor: float = 1.0  # requests per second to serve

    def describe(self) -> str:
        parts = []
        if self.model is not None:
            parts.append(f"model {self.model.name}")
        if self.data_factor != 1:
            parts.append(f"{self.data_factor:g}x data")
        if self.users_factor != 1:
            parts.append(f"{self.users_factor:g}x users")
        return ", ".join(parts) or "no change"


@dataclass(frozen=True)
class Requirements:
    deadline_seconds: float | None = None
    qps: float | None = None
    percentile: float | None = None
    latency_seconds: float | None = None
    budget_usd: float | None = None  # training: the whole run; serving: per month
    max_gpus: int | None = None
    growth: Growth | None = None
    objective: Literal["cost", "time"] = "cost"
    pricing: str = "on-demand"
    years: float | None = None  # owned pricing: the horizon (default: the depreciation life)
    gpus: tuple[str, ...] | None = None  # restrict the search to these GPU ids
    methods: tuple[str, ...] | None = None  # training methods to compare (full, lora, qlora)

    @property
    def has_latency(self) -> bool:
        return self.latency_seconds is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "deadline_seconds": self.deadline_seconds,
            "qps": self.qps,
            "percentile": self.percentile,
            "latency_seconds": self.latency_seconds,
            "budget_usd": self.budget_usd,
            "max_gpus": self.max_gpus,
            "growth": None
            if self.growth is None
            else {
                "model": self.growth.model.name if self.growth.model else None,
                "data_factor": self.growth.data_factor,
                "users_factor": self.growth.users_factor,
            },
            "objective": self.objective,
            "pricing": self.pricing,
            "years": self.years,
            "gpus": list(self.gpus) if self.gpus else None,
            "methods": list(self.methods) if self.methods else None,
        }


REQUIREMENT_KEYS = (
    "deadline",
    "qps",
    "p95_ms",
    "p99_ms",
    "budget",
    "max_gpus",
    "growth_model",
    "growth_data",
    "growth_users",
    "objective",
    "pricing",
    "years",
    "gpus",
    "methods",
)


def _positive(opts: Mapping[str, Any], key: str) -> float | None:
    if opts.get(key) is None:
        return None
    raw = str(opts[key]).lower().rstrip("x").replace("$", "").replace(",", "").replace("usd", "").strip()
    try:
        value = float(raw)
        if not math.isfinite(value):  # 'inf'/'nan' would pass the check below or overflow int()
            raise ValueError
    except ValueError:
        raise UsageError(f"--{key.replace('_', '-')} must be a number; got {opts[key]!r}") from None
    if value <= 0:
        raise UsageError(f"--{key.replace('_', '-')} must be positive; got {opts[key]!r}")
    return value


def _names(raw: Any) -> tuple[str, ...] | None:
    if raw is None:
        return None
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    names = tuple(str(x).strip().lower() for x in items if str(x).strip())
    return names or None


def build_requirements(options: Mapping[str, Any], catalog: Catalog) -> Requirements:
    opts = {str(k).replace("-", "_"): v for k, v in options.items() if v is not None}
    growth_block = opts.pop("growth", None)
    if isinstance(growth_block, Mapping):
        for key in ("model", "data", "users"):
            if key in growth_block:
                opts[f"growth_{key}"] = growth_block[key]
    unknown = set(opts) - set(REQUIREMENT_KEYS)
    if unknown:
        raise UsageError(f"unknown requirement(s): {', '.join(sorted(unknown))}; known: {', '.join(REQUIREMENT_KEYS)}")
    deadline = None
    if "deadline" in opts:
        try:
            deadline = parse_duration(opts["deadline"])
        except ValueError as exc:
            raise UsageError(f"--deadline: {exc}") from None
        if deadline <= 0:
            raise UsageError("--deadline must be positive")
    p95, p99 = _positive(opts, "p95_ms"), _positive(opts, "p99_ms")
    if p95 and p99:
        raise UsageError("give one latency target: --p95-ms or --p99-ms")
    qps = _positive(opts, "qps")
    if (p95 or p99) and not qps:
        raise UsageError("a latency target needs --qps (the load at which it must hold)")
    max_gpus = _positive(opts, "max_gpus")
    objective = str(opts.get("objective", "cost")).lower()
    if objective not in OBJECTIVES:
        raise UsageError(f"--objective must be one of {', '.join(OBJECTIVES)}")
    pricing = str(opts.get("pricing", "on-demand")).lower()
    if pricing not in PRICINGS:
        raise UsageError(f"--pricing must be one of {', '.join(PRICINGS)}")
    gpus = _names(opts.get("gpus"))
    for gid in gpus or ():
        catalog.gpu(gid)  # unknown ids: a clear error with suggestions
    methods = _names(opts.get("methods"))
    if methods and set(methods) - {"full", "lora", "qlora"}:
        raise UsageError("--methods takes a list of full, lora, qlora")
    growth = None
    if any(k in opts for k in ("growth_model", "growth_data", "growth_users")):
        growth = Growth(
            model=catalog.model(str(opts["growth_model"])) if "growth_model" in opts else None,
            data_factor=_positive(opts, "growth_data") or 1.0,
            users_factor=_positive(opts, "growth_users") or 1.0,
        )
    return Requirements(
        deadline_seconds=deadline,
        qps=qps,
        percentile=95.0 if p95 else (99.0 if p99 else None),
        latency_seconds=(p95 or p99) / 1e3 if (p95 or p99) else None,
        budget_usd=_positive(opts, "budget"),
        max_gpus=int(max_gpus) if max_gpus else None,
        growth=growth,
        objective=objective,  # type: ignore[arg-type]
        pricing=pricing,
        years=_positive(opts, "years"),
        gpus=gpus,
        methods=methods,
    )
