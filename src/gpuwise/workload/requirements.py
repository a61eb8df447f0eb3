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
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from gpuwise.catalog import Catalog, ModelArch
from gpuwise.errors import UsageError, check_unknown
from gpuwise.units import parse_age, parse_duration
from gpuwise.workload.schema import PriceFields, RequirementFields, TargetFields, fields, validate
from gpuwise.workload.specs import Objective, Pricing

if TYPE_CHECKING:
    from gpuwise.catalog.schema import FxRate


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class LatencyGoals:
    """Serving targets at one percentile: end-to-end latency, time to first token and time per
    output token (seconds; None where not asked)."""

    percentile: float
    e2e_seconds: float | None = None
    ttft_seconds: float | None = None
    tpot_seconds: float | None = None

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.e2e_seconds, self.ttft_seconds, self.tpot_seconds))

    def tightened(self, ttft: float, tpot: float, e2e: float) -> LatencyGoals:
        """The limits a figure must meet for that figure times its multiplier to meet these."""
        return LatencyGoals(
            self.percentile,
            None if self.e2e_seconds is None else self.e2e_seconds / e2e,
            None if self.ttft_seconds is None else self.ttft_seconds / ttft,
            None if self.tpot_seconds is None else self.tpot_seconds / tpot,
        )


DEFAULT_PERCENTILE = 99.0
DEFAULT_CONFIDENCE = 0.8  # the level of every figure's band unless --confidence says otherwise


def latency_goals(t: TargetFields) -> LatencyGoals | None:
    """The targets engineers state (--ttft-ms, --tpot-ms, --e2e-ms at --percentile, default P99;
    --p95-ms/--p99-ms are end-to-end aliases), checked for contradictions; None when none is given.
    One function for plan and estimate, so both read a target the same way."""
    alias = [(p, ms) for p, ms in ((95.0, t.p95_ms), (99.0, t.p99_ms)) if ms is not None]
    if len(alias) > 1:
        raise UsageError("give one end-to-end latency target: --p95-ms or --p99-ms")
    if alias and t.e2e_ms is not None:
        raise UsageError("--e2e-ms and --p95-ms/--p99-ms are the same target: give one")
    asked = float(t.percentile) if t.percentile is not None else None
    if alias and asked is not None and asked != alias[0][0]:
        raise UsageError(f"--p{alias[0][0]:g}-ms is a P{alias[0][0]:g} target; --percentile {asked:g} contradicts it")
    pct = alias[0][0] if alias else (asked or DEFAULT_PERCENTILE)
    e2e = alias[0][1] if alias else t.e2e_ms
    goals = LatencyGoals(
        percentile=pct,
        e2e_seconds=None if e2e is None else e2e / 1e3,
        ttft_seconds=None if t.ttft_ms is None else t.ttft_ms / 1e3,
        tpot_seconds=None if t.tpot_ms is None else t.tpot_ms / 1e3,
    )
    if not goals.any:
        return None
    if t.qps is None:
        raise UsageError("a latency target needs --qps (the load at which it must hold)")
    return goals


@dataclass(frozen=True, slots=True)
class Requirements:
    deadline_seconds: float | None = None
    qps: float | None = None
    percentile: float | None = None
    latency_seconds: float | None = None  # end-to-end request latency at `percentile`
    ttft_seconds: float | None = None  # time to first token at `percentile`
    tpot_seconds: float | None = None  # time per output token at `percentile`
    budget_usd: float | None = None  # training: the whole run; serving: per month
    max_gpus: int | None = None
    growth: Growth | None = None
    objective: Objective = "cost"
    pricing: Pricing = "on-demand"
    years: float | None = None  # owned pricing: the horizon (default: the depreciation life)
    gpus: tuple[str, ...] | None = None  # restrict the search to these GPU ids
    methods: tuple[str, ...] | None = None  # training methods to compare (full, lora, qlora)
    redundancy: int = 0  # replicas or nodes that may be lost while the target still holds
    lang: str = "en"  # language of the summary and report
    currency: str = "USD"  # costs shown (and --budget read) in this currency
    fx: FxRate | None = None  # its dated rate (None: USD)
    prices: str | None = None  # a team's own offers file (read by gpuwise.api, not here)
    providers: tuple[str, ...] = ()  # rent only from these
    exclude_providers: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()  # rent only in regions containing one of these
    max_age_months: float | None = None  # rent only at prices dated within this
    offer_classes: tuple[str, ...] = ()  # rent only from these kinds of provider
    allow_indicative: bool = False  # let 'starting at' and undated prices decide
    vendor: str | None = None
    confidence: float = DEFAULT_CONFIDENCE  # targets are met at the pessimistic end of each figure's band at this level

    def price_filters(self) -> dict[str, Any]:
        """The restrictions on where prices come from, as gpuwise.estimate.offers.Market takes them."""
        return {
            "providers": self.providers,
            "exclude": self.exclude_providers,
            "regions": self.regions,
            "max_age_months": self.max_age_months,
            "offer_classes": self.offer_classes,
            "allow_indicative": self.allow_indicative,
        }

    @property
    def has_latency(self) -> bool:
        return any(v is not None for v in (self.latency_seconds, self.ttft_seconds, self.tpot_seconds))

    @property
    def goals(self) -> LatencyGoals | None:
        """The latency targets as the serving estimators take them."""
        if not self.has_latency:
            return None
        return LatencyGoals(
            self.percentile or DEFAULT_PERCENTILE, self.latency_seconds, self.ttft_seconds, self.tpot_seconds
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "deadline_seconds": self.deadline_seconds,
            "qps": self.qps,
            "percentile": self.percentile,
            "latency_seconds": self.latency_seconds,
            "ttft_seconds": self.ttft_seconds,
            "tpot_seconds": self.tpot_seconds,
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
            "redundancy": self.redundancy,
            "lang": self.lang,
            "currency": self.currency,
            "fx": None if self.fx is None else asdict(self.fx),
            "prices": self.prices,
            "providers": list(self.providers) or None,
            "exclude_providers": list(self.exclude_providers) or None,
            "regions": list(self.regions) or None,
            "max_age_months": self.max_age_months,
            "offer_classes": list(self.offer_classes) or None,
            "allow_indicative": self.allow_indicative,
            "vendor": self.vendor,
            "confidence": self.confidence,
        }


def price_filters(p: PriceFields) -> dict[str, Any]:
    """The price options (plan's and estimate's alike) as Requirements.price_filters gives them."""
    return {
        "providers": tuple(p.providers or ()),
        "exclude": tuple(p.exclude_providers or ()),
        "regions": tuple(p.region or ()),
        "max_age_months": None if p.max_age is None else parse_age(p.max_age),
        "offer_classes": tuple(p.offer_class or ()),
        "allow_indicative": bool(p.allow_indicative),
    }


REQUIREMENT_KEYS = tuple(f.name for s in ("target", "plan", "prices") for f in fields(s))


def build_requirements(options: Mapping[str, Any], catalog: Catalog) -> Requirements:
    """Typed requirements from loose options; the rules that need several fields or the catalog."""
    opts = {str(k).replace("-", "_"): v for k, v in options.items() if v is not None}
    growth_block = opts.pop("growth", None)
    if isinstance(growth_block, Mapping):
        for key in ("model", "data", "users"):
            if key in growth_block:
                opts[f"growth_{key}"] = growth_block[key]
    check_unknown(opts, frozenset(REQUIREMENT_KEYS), "requirement")
    r = validate(RequirementFields, opts)
    filters = price_filters(r)
    deadline = None
    if r.deadline is not None:
        try:
            deadline = parse_duration(r.deadline)
        except ValueError as exc:
            raise UsageError(f"--deadline: {exc}") from None
        if not 0 < deadline < math.inf:
            raise UsageError("--deadline must be positive and finite")
    goals = latency_goals(r)
    for gid in r.gpus or ():
        catalog.gpu(gid)  # unknown ids: a clear error with suggestions
    gpus = _vendor_gpus(r.gpus, r.vendor, catalog)
    fx = _fx(r.currency, catalog)
    growth = None
    if r.growth_model is not None or r.growth_data is not None or r.growth_users is not None:
        growth = Growth(
            model=catalog.model(r.growth_model) if r.growth_model is not None else None,
            data_factor=r.growth_data or 1.0,
            users_factor=r.growth_users or 1.0,
        )
    return Requirements(
        deadline_seconds=deadline,
        qps=r.qps,
        percentile=goals.percentile if goals else None,
        latency_seconds=goals.e2e_seconds if goals else None,
        ttft_seconds=goals.ttft_seconds if goals else None,
        tpot_seconds=goals.tpot_seconds if goals else None,
        budget_usd=None if r.budget is None else (r.budget if fx is None else r.budget / fx.per_usd),
        max_gpus=r.max_gpus,
        growth=growth,
        objective=r.objective or "cost",
        pricing=r.pricing or "on-demand",
        years=r.years,
        gpus=gpus,
        methods=tuple(r.methods) if r.methods else None,
        redundancy=r.redundancy or 0,
        lang=r.lang or "en",
        currency=r.currency or "USD",
        fx=fx,
        prices=r.prices,
        providers=tuple(r.providers or ()),
        exclude_providers=tuple(r.exclude_providers or ()),
        regions=filters["regions"],
        max_age_months=filters["max_age_months"],
        offer_classes=filters["offer_classes"],
        allow_indicative=filters["allow_indicative"],
        vendor=r.vendor,
        confidence=DEFAULT_CONFIDENCE if r.confidence is None else r.confidence,
    )


def _vendor_gpus(gpus: list[str] | None, vendor: str | None, catalog: Catalog) -> tuple[str, ...] | None:
    """--gpus narrowed to --vendor's cards (all of the vendor's when --gpus is not given)."""
    if vendor is None:
        return tuple(gpus) if gpus else None
    pool = gpus or list(catalog.gpus)
    mine = tuple(g for g in pool if catalog.gpu(g).vendor == vendor)
    if not mine:
        raise UsageError(f"--vendor {vendor}: none of the GPUs asked for is a {vendor} GPU")
    return mine


def _fx(currency: str | None, catalog: Catalog) -> FxRate | None:
    """The dated exchange rate of --currency (None for USD); an unknown code names the known ones."""
    if currency is None or currency == "USD":
        return None
    if currency not in catalog.fx:
        raise UsageError(
            f"--currency {currency}: no exchange rate in offers.yaml; known: USD, {', '.join(sorted(catalog.fx))}"
        )
    return catalog.fx[currency]
