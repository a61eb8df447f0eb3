"""Which offer prices a cluster, and what it costs: the one place rental prices are chosen.

An offer (catalog offers.yaml, or a team's own file) is one instance a provider rents, priced per
hour for the whole instance. A cluster of N GPUs laid out in nodes of G GPUs is priced as
ceil(N / K) instances of an offer with K GPUs per instance, where K equals G or is a multiple of it
(a bigger instance holds whole nodes; the GPUs it leaves idle are paid for). A K-GPU price never
prices a node of more than K GPUs: eight 1-GPU rentals are not an 8-GPU node with NVLink, so a
provider that rents single GPUs prices only 1-GPU nodes (`--gpus-per-node 1` in `estimate`).

Of the offers that fit, are available and pass the user's provider and region filters, the
cheapest fresh one (dated within `stale_months`) wins; when only stale ones fit, the cheapest
stale one is used and the quote says it is stale. An offer read from an undated snapshot (its
source's date basis is `accessed`: the date is when it was read, not when the price held) has no
known age, so it counts as stale: a dated price beats it. Offers listed as unavailable at collection are
never used. Spot capacity can be reclaimed: it prices work that can be preempted (checkpointed
training), never serving or a multi-year holding. Prices in other currencies are compared in USD
at the catalog's dated exchange rates.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from gpuwise import clock
from gpuwise.catalog.schema import FxRate, Offer
from gpuwise.errors import UsageError, suggest
from gpuwise.units import DAYS_PER_YEAR, MONTHS_PER_YEAR

__all__ = [
    "PRICE_MODELS",
    "Market",
    "Quote",
    "age_months",
    "convert",
    "fx_rate",
    "instances_for",
    "merge_offers",
    "price_model_of",
]

PRICE_MODELS = ("on-demand", "spot", "1y", "3y")
STALE_MONTHS = 12  # an offer older than a year is stale
DAYS_PER_MONTH = DAYS_PER_YEAR / MONTHS_PER_YEAR


def price_model_of(pricing: str, years: float | None = None) -> str:
    """The offers' price model behind a plan's `--pricing`: reserved is a 1-year commitment, or a
    3-year one when the horizon is 3 years or more (one discount never serves both terms)."""
    if pricing in PRICE_MODELS:
        return pricing
    if pricing == "reserved":
        return "3y" if years is not None and years >= 3 else "1y"
    raise UsageError(f"pricing must be one of on-demand, reserved, spot, 1y, 3y; got {pricing!r}")


@functools.lru_cache(maxsize=4096)
def _as_date(text: str) -> date:
    """'2026-11' -> the first of the month (the oldest the price can be); '2026-11-09' as is."""
    parts = [int(p) for p in text.split("-")]
    return date(parts[0], parts[1], parts[2] if len(parts) > 2 else 1)


def age_months(offer: Offer, today: date) -> float:
    """Months between the offer's date and `today` (never negative)."""
    return max(0.0, (today - _as_date(offer.date)).days / DAYS_PER_MONTH)


def instances_for(offer: Offer, count: int, gpus_per_node: int) -> int | None:
    """Instances of `offer` a cluster of `count` GPUs in nodes of `gpus_per_node` needs; None when
    the instance is smaller than a node or does not hold whole nodes."""
    k = offer.gpus_per_instance
    if count < 1 or gpus_per_node < 1 or k < gpus_per_node or k % gpus_per_node:
        return None
    return math.ceil(count / k)


def fx_rate(fx: Mapping[str, FxRate], currency: str) -> FxRate | None:
    """The dated rate for `currency` (None for USD); an unknown code is a usage error."""
    code = currency.strip().upper()
    if code == "USD":
        return None
    if code not in fx:
        raise UsageError(f"no exchange rate for {currency!r}; known: USD, {', '.join(sorted(fx))}")
    return fx[code]


def convert(usd: float | None, rate: FxRate | None) -> float | None:
    """USD -> the rate's currency (None passes through; no rate: USD)."""
    if usd is None:
        return None
    return usd if rate is None else usd * rate.per_usd


def merge_offers(base: Iterable[Offer], own: Iterable[Offer]) -> tuple[Offer, ...]:
    """The catalog's offers with a team's own on top: an own offer for the same GPU, provider,
    instance, region and price model replaces the catalog's; the rest are added."""

    def key(o: Offer) -> tuple[str, ...]:
        return (o.gpu, o.provider, o.instance, o.region, o.price_model)

    mine = list(own)
    replaced = {key(o) for o in mine}
    return (*(o for o in base if key(o) not in replaced), *mine)


@dataclass(frozen=True, slots=True)
class Quote:
    """The offer behind a price: what is rented, how many, and how far the market spreads."""

    offer: Offer
    instances: int
    usd_per_hour: float  # the whole cluster
    age_months: float
    stale: bool
    low_usd_per_gpu_hour: float  # the spread of the fitting offers considered (USD per paid GPU-hour)
    high_usd_per_gpu_hour: float
    compared: int  # offers that fit and were compared
    own: bool = False  # from the team's own prices

    @property
    def gpus_paid(self) -> int:
        return self.instances * self.offer.gpus_per_instance

    def describe(self) -> str:
        return describe_offer(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        o = self.offer
        return {
            "gpu": o.gpu,
            "provider": o.provider,
            "instance": o.instance,
            "gpus_per_instance": o.gpus_per_instance,
            "instances": self.instances,
            "region": o.region,
            "price_model": o.price_model,
            "price": o.price_per_hour,
            "currency": o.currency,
            "date": o.date,
            "source": o.source,
            "own": self.own,
            "stale": self.stale,
            "age_months": round(self.age_months, 1),
            "usd_per_hour": self.usd_per_hour,
            "spread_usd_per_gpu_hour": [self.low_usd_per_gpu_hour, self.high_usd_per_gpu_hour],
            "offers_compared": self.compared,
        }


def describe_offer(q: Mapping[str, Any]) -> str:
    """'2 x p5.48xlarge (8 GPU) from aws, us-east-1, on-demand, 55.04 USD/h on 2026-11-09, source ...'
    from a quote's dict (what JSON, the CLI and reports share)."""
    tail = f" · STALE or undated: no offer dated within {STALE_MONTHS} months fits, re-check" if q.get("stale") else ""
    who = "your prices" if q.get("own") else f"source {q['source']}"
    return (
        f"{q['instances']} x {q['instance']} ({q['gpus_per_instance']} GPU) from {q['provider']}, {q['region']}, "
        f"{q['price_model']}, {q['price']:,.2f} {q['currency']}/h on {q['date']}, {who}{tail}"
    )


def describe_money(m: Mapping[str, Any]) -> str | None:
    """'in CNY: 10.20/hour, 7,450.00/month, 8.69 for the run (6.7982 CNY per USD on 2026-06-26, source ...)'; None for USD."""
    if m.get("code", "USD") == "USD":
        return None
    parts = [
        f"{m[key]:,.2f}{label}"
        for key, label in (("per_hour", "/hour"), ("per_month", "/month"), ("run", " for the run"))
        if m.get(key) is not None
    ]
    shown = ", ".join(parts) or "no price"
    return f"in {m['code']}: {shown} ({m['per_usd']:g} {m['code']} per USD on {m['date']}, source {m['source']})"


@dataclass(frozen=True, slots=True)
class Market:
    """The offers a plan may rent, with the user's restrictions; passed in, never global."""

    offers: tuple[Offer, ...]
    fx: Mapping[str, FxRate]
    today: date
    providers: frozenset[str] = frozenset()
    exclude: frozenset[str] = frozenset()
    regions: frozenset[str] = frozenset()
    stale_months: float = STALE_MONTHS
    own_keys: frozenset[tuple[str, str, str]] = frozenset()  # (gpu, provider, instance) of own offers
    undated_sources: frozenset[str] = frozenset()  # sources whose date is not when the price held
    _memo: dict[tuple[Any, ...], Quote | None] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(
        cls,
        offers: Sequence[Offer],
        fx: Mapping[str, FxRate],
        today: date,
        own: Sequence[Offer] = (),
        providers: Iterable[str] = (),
        exclude: Iterable[str] = (),
        regions: Iterable[str] = (),
        undated_sources: Iterable[str] = (),
    ) -> Market:
        """Checks the provider names against the offers, so a typo is an error, not an empty plan."""
        for o in own:
            if o.currency != "USD" and o.currency not in fx:
                raise UsageError(f"your prices: no exchange rate for {o.currency}; use USD or {', '.join(sorted(fx))}")
        merged = merge_offers(offers, own)
        known = {o.provider for o in merged}
        want, drop = _names(providers), _names(exclude)
        unknown = sorted((want | drop) - known)
        if unknown:
            hints = [h for u in unknown for h in suggest(u, known)]
            hint = f"; did you mean {' or '.join(map(repr, hints))}?" if hints else ""
            raise UsageError(f"unknown provider(s) {unknown}{hint} (`gpuwise prices` lists them)")
        own_keys = frozenset((o.gpu, o.provider, o.instance) for o in own)
        regions_ = frozenset(r.strip().lower() for r in regions if r.strip())
        return cls(
            merged, fx, today, want, drop, regions_, own_keys=own_keys, undated_sources=frozenset(undated_sources)
        )

    def fresh(self, offer: Offer) -> bool:
        """Dated within `stale_months` of today (an undated snapshot's offer never is)."""
        return offer.source not in self.undated_sources and age_months(offer, self.today) <= self.stale_months

    def usd(self, offer: Offer) -> float:
        """The instance's hourly price in USD."""
        rate = fx_rate(self.fx, offer.currency)
        return offer.price_per_hour if rate is None else offer.price_per_hour / rate.per_usd

    def allowed(self, offer: Offer) -> bool:
        """Passes the provider and region filters (availability and staleness are judged apart)."""
        if self.providers and offer.provider not in self.providers:
            return False
        if offer.provider in self.exclude:
            return False
        return not self.regions or offer.region.lower() in self.regions

    def restricted(self, **changes: Any) -> Market:
        return replace(self, _memo={}, **changes)

    def quote(self, gpu: str, count: int, gpus_per_node: int, price_model: str) -> Quote | None:
        """The cheapest fitting offer for `count` GPUs of `gpu` in nodes of `gpus_per_node`."""
        key = (gpu, count, gpus_per_node, price_model)
        if key not in self._memo:
            self._memo[key] = self._quote(gpu, count, gpus_per_node, price_model)
        return self._memo[key]

    def _quote(self, gpu: str, count: int, gpus_per_node: int, price_model: str) -> Quote | None:
        fits = [
            (o, n)
            for o in self.offers
            if o.gpu == gpu and o.price_model == price_model and o.available and self.allowed(o)
            if (n := instances_for(o, count, gpus_per_node)) is not None
        ]
        if not fits:
            return None
        fresh = [(o, n) for o, n in fits if self.fresh(o)]
        pool = fresh or fits
        per_gpu = [self.usd(o) / o.gpus_per_instance for o, _ in pool]
        best, n = min(pool, key=lambda on: (self.usd(on[0]) * on[1], -_as_date(on[0].date).toordinal(), on[0].provider))
        return Quote(
            offer=best,
            instances=n,
            usd_per_hour=self.usd(best) * n,
            age_months=age_months(best, self.today),
            stale=not fresh,
            low_usd_per_gpu_hour=min(per_gpu),
            high_usd_per_gpu_hour=max(per_gpu),
            compared=len(pool),
            own=(best.gpu, best.provider, best.instance) in self.own_keys,
        )

    def why_none(self, gpu: str, count: int, gpus_per_node: int, price_model: str) -> str:
        """Why no offer prices this cluster, in the words a user can act on."""
        mine = [o for o in self.offers if o.gpu == gpu]
        if not mine:
            return "no rental offer in the catalog (add one with --prices FILE)"
        of_model = [o for o in mine if o.price_model == price_model]
        if not of_model:
            have = ", ".join(sorted({o.price_model for o in mine}))
            return f"no {price_model} offer (offers: {have})"
        allowed = [o for o in of_model if self.allowed(o)]
        if not allowed:
            return f"no {price_model} offer from the allowed providers (offered by {', '.join(sorted({o.provider for o in of_model}))})"
        if not any(o.available for o in allowed):
            return f"the {price_model} offers are listed as unavailable at collection"
        sizes = sorted({o.gpus_per_instance for o in allowed if o.available})
        return (
            f"no instance holds nodes of {gpus_per_node} GPUs (instances offered: {', '.join(map(str, sizes))} GPU); "
            "a smaller instance's price never prices a bigger node"
        )


def _names(values: Iterable[str]) -> frozenset[str]:
    """'aws,lambda' or ['aws', 'Lambda'] -> {'aws', 'lambda'}."""
    out: set[str] = set()
    for v in values:
        out |= {p.strip().lower() for p in str(v).split(",") if p.strip()}
    return frozenset(out)


TERM_YEARS = {"1y": 1, "3y": 3}
SPOT_HOLDING = "spot capacity can be reclaimed at any time: it prices preemptible work, not a multi-year holding"


def holding_totals(
    market: Market, gpu: str, count: int, gpus_per_node: int, years: float, busy: float, hours_per_year: float
) -> tuple[dict[str, float | None], dict[str, Quote | None], dict[str, str]]:
    """Renting for `years` (TCO): on-demand pays the busy hours; a 1- or 3-year commitment pays every
    hour of each whole term the horizon needs; spot is no holding. Returns (USD totals, quotes, why
    a price model has no total)."""
    totals: dict[str, float | None] = {}
    quotes: dict[str, Quote | None] = {}
    why: dict[str, str] = {}
    for model in ("on-demand", "1y", "3y"):
        q = market.quote(gpu, count, gpus_per_node, model)
        quotes[model] = q
        if q is None:
            totals[model] = None
            why[model] = market.why_none(gpu, count, gpus_per_node, model)
            continue
        term = TERM_YEARS.get(model)
        hours = (
            years * hours_per_year * busy if term is None else math.ceil(round(years / term, 9)) * term * hours_per_year
        )
        totals[model] = q.usd_per_hour * hours
    totals["spot"] = None
    why["spot"] = SPOT_HOLDING
    return totals, quotes, why


def market_from_catalog(
    catalog: Any,
    today: date,
    own: Sequence[Offer] = (),
    providers: Iterable[str] = (),
    exclude: Iterable[str] = (),
    regions: Iterable[str] = (),
) -> Market:
    """The catalog's offers (with a team's own), its exchange rates and the sources of unknown date."""
    undated = {sid for sid, src in catalog.offer_sources.items() if src.date_basis == "accessed"}
    return Market.build(catalog.offers, catalog.fx, today, own, providers, exclude, regions, undated)


def money(fx: FxRate | None, **usd: float | None) -> dict[str, Any]:
    """USD amounts in the rate's currency, with the rate, its date and source (USD: as is)."""
    out: dict[str, Any] = {
        "code": "USD" if fx is None else fx.currency,
        "per_usd": 1.0 if fx is None else fx.per_usd,
        "date": None if fx is None else fx.date,
        "source": None if fx is None else fx.source,
    }
    out.update({k: convert(v, fx) for k, v in usd.items()})
    return out


def rate_line(fx: FxRate | None) -> str | None:
    """'costs in CNY at 6.7982 CNY per USD (2026-06-26, source ...)' for every cost output."""
    if fx is None:
        return None
    return f"costs in {fx.currency} at {fx.per_usd:g} {fx.currency} per USD ({fx.date}, source {fx.source})"


_DEFAULT: dict[int, tuple[Any, Market]] = {}


def default_market(catalog: Any, today: date | None = None) -> Market:
    """Every catalog offer, unrestricted, as of today: what `estimate` prices with (one per catalog)."""
    key = id(catalog)
    held = _DEFAULT.get(key)
    if held is None or held[0] is not catalog or (today is not None and held[1].today != today):
        held = (catalog, market_from_catalog(catalog, today or clock.today()))
        _DEFAULT[key] = held
    return held[1]
