"""Which offer prices a cluster, and what it costs: the one place rental prices are chosen.

An offer (catalog offers.yaml, or a team's own file) is one instance a provider rents, priced per
hour for the whole instance. A cluster is rented one node per instance: `count` GPUs of an offer
with K GPUs per instance are one instance when count <= K (the GPUs it leaves idle are paid for),
else count / K instances of K GPUs each, and then only from an offer the provider rents as a
multi-node cluster of at least `count` GPUs over a fabric between its instances (its network is
that fabric, gpuwise.estimate.offer_network). Eight 1-GPU rentals are not an 8-GPU node, and
hosts without a fabric are not a cluster. A serving fleet's replicas are independent copies: those
that fit within one instance are packed into it, as many as it holds whole (28 replicas of 4 GPUs
are 14 instances of 8), a replica never spanning instances unless it must; a replica larger than an
instance takes its own instances. Kept one per instance only when asked (spread for --redundancy).

Of the offers that fit, are available and pass the user's filters (gpuwise.estimate.offer_filter:
providers, region, age, offer class; indicative and undated prices only when asked), the newest
price of each instance counts, and the cheapest fresh one (dated within `stale_months`) wins; when
only stale ones fit, the cheapest stale one is used and the quote says it is stale. Offers listed
as unavailable at collection are never used. Spot capacity can be reclaimed: it prices work that
can be preempted (checkpointed training), never serving or a multi-year holding. Prices in other
currencies are compared in USD at the catalog's dated exchange rates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from gpuwise import clock
from gpuwise.catalog.schema import FxRate, Offer
from gpuwise.errors import UsageError
from gpuwise.estimate.offer_filter import DAYS_PER_MONTH, OfferFilter, age_months, offer_date, superseded
from gpuwise.estimate.offer_network import KIND_WORDS, OfferNetwork, offer_network

__all__ = [
    "DAYS_PER_MONTH",
    "PRICE_MODELS",
    "STALE_MONTHS",
    "Market",
    "Quote",
    "age_months",
    "convert",
    "fx_rate",
    "instances_for",
    "merge_offers",
    "price_model_of",
    "units_for",
]

PRICE_MODELS = ("on-demand", "spot", "1y", "3y")
STALE_MONTHS = 12  # an offer older than a year is stale


def price_model_of(pricing: str, years: float | None = None) -> str:
    """The offers' price model behind a plan's `--pricing`: reserved is a 1-year commitment, or a
    3-year one when the horizon is 3 years or more (one discount never serves both terms)."""
    if pricing in PRICE_MODELS:
        return pricing
    if pricing == "reserved":
        return "3y" if years is not None and years >= 3 else "1y"
    raise UsageError(f"pricing must be one of on-demand, reserved, spot, 1y, 3y; got {pricing!r}")


def units_for(unit_gpus: int, count: int, gpus_per_node: int, replicas: int = 1, packed: bool = True) -> int | None:
    """Machines of `unit_gpus` GPUs each (a rented instance, or a server as bought) that hold
    `replicas` copies of `count` GPUs in nodes of `gpus_per_node`, one node per machine: a copy that
    is one node within the machine shares it with as many other copies as fit whole (`packed`; else
    one copy per machine), a larger one takes count / K machines of all K GPUs (None: the shape does
    not match the machine). The one packing rule for renting and owning."""
    k = unit_gpus
    if count < 1 or gpus_per_node < 1 or replicas < 1 or k < 1:
        return None
    if count <= k:
        if gpus_per_node != count:
            return None
        return -(-replicas // (k // count if packed else 1))
    return count // k * replicas if gpus_per_node == k and count % k == 0 else None


def instances_for(offer: Offer, count: int, gpus_per_node: int, replicas: int = 1, packed: bool = True) -> int | None:
    """Instances of `offer` that hold `replicas` copies of `count` GPUs in nodes of `gpus_per_node`
    (units_for). Whether the provider joins the instances of one copy into a cluster is the
    market's question (Market.cluster_fits)."""
    return units_for(offer.gpus_per_instance, count, gpus_per_node, replicas, packed)


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


def fabric_dict(o: Offer) -> dict[str, Any] | None:
    """{kind, gbps_per_gpu} between the offer's instances, or None when unknown."""
    return None if o.fabric is None else {"kind": o.fabric.kind, "gbps_per_gpu": o.fabric.gbps_per_gpu}


@dataclass(frozen=True, slots=True)
class Quote:
    """The offer behind a price: what is rented, how many, and how far the market spreads."""

    offer: Offer
    instances: int
    usd_per_hour: float  # the whole cluster
    age_months: float | None  # None: undated
    stale: bool
    low_usd_per_gpu_hour: float  # the spread of the fitting offers considered (USD per paid GPU-hour)
    high_usd_per_gpu_hour: float
    compared: int  # offers that fit and were compared
    own: bool = False  # from the team's own prices
    gpus_per_node: int = 1  # one node per instance
    network: OfferNetwork | None = None  # the offer's fabric, when the cluster spans instances
    replicas: int = 1  # the copies of the cluster the instances hold (a serving fleet's replicas)
    per_instance: int = 1  # the most copies one instance holds (1 also when a copy spans instances)

    @property
    def gpus_paid(self) -> int:
        return self.instances * self.offer.gpus_per_instance

    @property
    def spelling(self) -> str | None:
        """The --network the cluster runs on (None: one node, or no fabric named)."""
        return self.network.spelling if self.network is not None and self.instances > 1 else None

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
            "gpus_per_node": self.gpus_per_node,
            "fabric": fabric_dict(o),
            "cluster_max_gpus": None if o.cluster is None else o.cluster.max_gpus,
            "network": self.spelling,
            "network_text": None if self.spelling is None or self.network is None else self.network.text,
            "replicas": self.replicas,
            "replicas_per_instance": self.per_instance,
            "region": o.region,
            "offer_class": o.offer_class,
            "price_model": o.price_model,
            "price": o.price_per_hour,
            "currency": o.currency,
            "date": o.date,
            "undated": o.date is None,
            "indicative": o.indicative,
            "source": o.source,
            "own": self.own,
            "stale": self.stale,
            "age_months": None if self.age_months is None else round(self.age_months, 1),
            "usd_per_hour": self.usd_per_hour,
            "spread_usd_per_gpu_hour": [self.low_usd_per_gpu_hour, self.high_usd_per_gpu_hour],
            "offers_compared": self.compared,
        }


def describe_offer(q: Mapping[str, Any]) -> str:
    """'2 x p5.48xlarge (8 GPU) from aws, us-east-1, on-demand, 55.04 USD/h on 2026-11-09, source ...'
    from a quote's dict (what JSON, the CLI and reports share)."""
    tail = f" · STALE: no offer dated within {STALE_MONTHS} months fits, re-check" if q.get("stale") else ""
    if q.get("indicative"):
        tail += " · INDICATIVE ('starting at' or lowest listing), used because you asked (--allow-indicative)"
    who = "your prices" if q.get("own") else f"source {q['source']}"
    when = f"on {q['date']}" if q.get("date") else "UNDATED"
    kind = KIND_WORDS.get((q.get("fabric") or {}).get("kind", ""), "")
    over = f" over {kind} {q['network']}".replace("  ", " ") if q.get("network") else ""
    packed = q.get("replicas_per_instance", 1)
    shared = f", {q.get('replicas', 1)} replicas, up to {packed} per instance" if packed > 1 else ""
    return (
        f"{q['instances']} x {q['instance']} ({q['gpus_per_instance']} GPU{shared}) from {q['provider']}{over}, "
        f"{q['region']}, "
        f"{q['price_model']}, {q['price']:,.2f} {q['currency']}/h {when}, {who}{tail}"
    )


Key = tuple[str, str, str]  # (gpu, provider, instance): what a fabric and a cluster belong to


def instance_key(o: Offer) -> Key:
    return (o.gpu, o.provider, o.instance)


@dataclass(frozen=True, slots=True)
class Market:
    """The offers a plan may rent, with the user's restrictions; passed in, never global."""

    offers: tuple[Offer, ...]  # the newest price of each instance
    fx: Mapping[str, FxRate]
    today: date
    filter: OfferFilter = field(default_factory=OfferFilter)
    stale_months: float = STALE_MONTHS
    own_keys: frozenset[Key] = frozenset()
    networks: Mapping[Key, OfferNetwork] = field(default_factory=dict)  # each fabric as a --network
    superseded: tuple[Offer, ...] = ()  # older prices of the same instances (listed, never used)
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
        max_age_months: float | None = None,
        offer_classes: Iterable[str] = (),
        allow_indicative: bool = False,
        networks: Mapping[Key, OfferNetwork] | None = None,
    ) -> Market:
        """The offers with the team's own on top, older prices of an instance set aside, and the
        user's filters (checked against the offers, so a typo is an error, not an empty plan)."""
        for o in own:
            if o.currency != "USD" and o.currency not in fx:
                raise UsageError(f"your prices: no exchange rate for {o.currency}; use USD or {', '.join(sorted(fx))}")
        mine = tuple(o if o.offer_class else replace(o, offer_class="own") for o in own)
        merged = merge_offers(offers, mine)
        old = superseded(merged)
        flt = OfferFilter.of(merged, providers, exclude, regions, max_age_months, offer_classes, allow_indicative)
        current = tuple(o for i, o in enumerate(merged) if i not in old)
        past = tuple(o for i, o in enumerate(merged) if i in old)
        own_keys = frozenset(instance_key(o) for o in mine)
        return cls(current, fx, today, flt, own_keys=own_keys, networks=dict(networks or {}), superseded=past)

    @property
    def undated_sources(self) -> frozenset[str]:
        """Sources whose offers carry no date (kept for the listing's 'undated' flag)."""
        return frozenset(o.source for o in self.offers if o.date is None)

    def fresh(self, offer: Offer) -> bool:
        """Dated within `stale_months` of today (an undated offer never is)."""
        age = age_months(offer, self.today)
        return age is not None and age <= self.stale_months

    def usd(self, offer: Offer) -> float:
        """The instance's hourly price in USD."""
        rate = fx_rate(self.fx, offer.currency)
        return offer.price_per_hour if rate is None else offer.price_per_hour / rate.per_usd

    def allowed(self, offer: Offer) -> bool:
        """Passes the provider, region and class filters (age, availability and indicative prices
        are judged apart)."""
        return self.filter.place(offer)

    def admits(self, offer: Offer) -> bool:
        """May price a cluster: available, and admitted by the user's filters."""
        return offer.available and self.filter.admits(offer, self.today, own=instance_key(offer) in self.own_keys)

    def restricted(self, **changes: Any) -> Market:
        return replace(self, _memo={}, **changes)

    def network_of(self, offer: Offer) -> OfferNetwork | None:
        return self.networks.get(instance_key(offer))

    def cluster_fits(self, offer: Offer, count: int) -> bool:
        """The provider rents `count` GPUs of this offer as one cluster over a fabric we can model."""
        net = self.network_of(offer)
        size = None if offer.cluster is None else offer.cluster.max_gpus
        return net is not None and net.spelling is not None and size is not None and size >= count

    def _fits(self, offer: Offer, count: int, gpus_per_node: int, replicas: int = 1, packed: bool = True) -> int | None:
        """Instances of `offer` for `replicas` copies of the cluster (None: it does not deliver one)."""
        one = instances_for(offer, count, gpus_per_node)
        if one is None or (one > 1 and not self.cluster_fits(offer, count)):
            return None
        return instances_for(offer, count, gpus_per_node, replicas, packed)

    def quote(
        self, gpu: str, count: int, gpus_per_node: int, price_model: str, replicas: int = 1, packed: bool = True
    ) -> Quote | None:
        """The cheapest offer that delivers `count` GPUs of `gpu` in nodes of `gpus_per_node`;
        `replicas` > 1: that many copies (a serving fleet), packed into instances unless `packed` is
        False. The cheapest offer for one copy need not be the cheapest for many."""
        return self._cheapest(gpu, count, gpus_per_node, price_model, replicas, packed)

    def commitment(
        self, gpu: str, count: int, gpus_per_node: int, model: str, replicas: int = 1, packed: bool = True
    ) -> tuple[Quote | None, str | None]:
        """The 1y/3y commitment that prices `count` GPUs in nodes of `gpus_per_node` (`replicas`
        copies of them, as Market.quote; tco's columns, a plan at --pricing reserved), or why there is
        none: fresh, of the on-demand price's provider class and not dearer than it
        (gpuwise.estimate.offers._commitment)."""
        on_demand = self.quote(gpu, count, gpus_per_node, "on-demand", replicas, packed)
        return _commitment(self, gpu, count, gpus_per_node, model, on_demand, replicas, packed)

    def best(self, gpu: str, count: int, price_model: str) -> Quote | None:
        """The cheapest offer that delivers `count` GPUs of `gpu` in whatever nodes it rents (one per
        instance): what a plan rents, the hardware following the offer (Quote.gpus_per_node, .spelling)."""
        return self._cheapest(gpu, count, None, price_model)

    def _cheapest(
        self, gpu: str, count: int, gpus_per_node: int | None, price_model: str, replicas: int = 1, packed: bool = True
    ) -> Quote | None:
        """quote and best, remembered: nodes of `gpus_per_node`, or (None) each offer's own."""
        key = (gpu, count, gpus_per_node, price_model, replicas, packed)
        if key not in self._memo:
            admitted = self._admitted(gpu, price_model)
            nodes = [min(count, o.gpus_per_instance) if gpus_per_node is None else gpus_per_node for o in admitted]
            fits = [
                (o, n)
                for o, g in zip(admitted, nodes, strict=True)
                if (n := self._fits(o, count, g, replicas, packed)) is not None
            ]
            self._memo[key] = self._pick(fits, count, replicas, packed)
        return self._memo[key]

    def _admitted(self, gpu: str, price_model: str) -> list[Offer]:
        return [o for o in self.offers if o.gpu == gpu and o.price_model == price_model and self.admits(o)]

    def _pick(self, fits: list[tuple[Offer, int]], count: int, replicas: int = 1, packed: bool = True) -> Quote | None:
        if not fits:
            return None
        fresh = [(o, n) for o, n in fits if self.fresh(o)]
        pool = fresh or fits
        per_gpu = [self.usd(o) / o.gpus_per_instance for o, _ in pool]
        best, n = min(pool, key=lambda on: (self.usd(on[0]) * on[1], -_newness(on[0]), on[0].provider, on[0].instance))
        spans = count > best.gpus_per_instance  # one copy spans instances: they are a cluster on its fabric
        return Quote(
            offer=best,
            instances=n,
            usd_per_hour=self.usd(best) * n,
            age_months=age_months(best, self.today),
            stale=not fresh,
            low_usd_per_gpu_hour=min(per_gpu),
            high_usd_per_gpu_hour=max(per_gpu),
            compared=len(pool),
            own=instance_key(best) in self.own_keys,
            gpus_per_node=min(count, best.gpus_per_instance),
            network=self.network_of(best) if spans else None,
            replicas=replicas,
            per_instance=min(replicas, best.gpus_per_instance // count) if packed and not spans else 1,
        )

    def largest(self, gpu: str, price_model: str) -> int:
        """The most GPUs of `gpu` one admitted offer delivers: one instance, or its cluster's size."""
        sizes = [o.gpus_per_instance for o in self._admitted(gpu, price_model)]
        sizes += [
            o.cluster.max_gpus
            for o in self._admitted(gpu, price_model)
            if self.cluster_fits(o, 2) and o.cluster and o.cluster.max_gpus
        ]
        return max(sizes, default=0)

    def set_aside(self, gpu: str, price_model: str) -> int:
        """Offers of `gpu` that pass every filter but are indicative or undated, when none other does
        (so only --allow-indicative would price it); 0 otherwise."""
        placed = [
            o
            for o in self.offers
            if o.gpu == gpu and o.price_model == price_model and o.available and self.filter.place(o)
            if self.filter.recent(o, self.today)
        ]
        if not placed or any(self.admits(o) for o in placed):
            return 0
        return len(placed)

    def why_none(self, gpu: str, count: int, gpus_per_node: int | None, price_model: str) -> str:
        """Why no offer prices this cluster (`gpus_per_node` None: in any nodes), in words a user can act on."""
        mine = [o for o in self.offers if o.gpu == gpu]
        if not mine:
            return "no rental offer in the catalog (add one with --prices FILE)"
        of_model = [o for o in mine if o.price_model == price_model]
        if not of_model:
            have = ", ".join(sorted({o.price_model for o in mine}))
            return f"no {price_model} offer (offers: {have})"
        placed = [o for o in of_model if self.allowed(o)]
        if not placed:
            return f"no {price_model} offer from the providers, regions and classes allowed (offered by {', '.join(sorted({o.provider for o in of_model}))})"
        if not any(o.available for o in placed):
            return f"the {price_model} offers are listed as unavailable at collection"
        recent = [o for o in placed if o.available and self.filter.recent(o, self.today)]
        if not recent:
            return f"no {price_model} offer dated within --max-age"
        usable = [o for o in recent if self.admits(o)]
        if not usable:
            return (
                f"only indicative ('starting at') or undated {price_model} prices ({len(recent)}): "
                "--allow-indicative uses them"
            )
        return self._why_no_shape(usable, count, gpus_per_node)

    def _why_no_shape(self, usable: list[Offer], count: int, gpus_per_node: int | None) -> str:
        sizes = sorted({o.gpus_per_instance for o in usable})
        if gpus_per_node is not None and count <= max(sizes) and gpus_per_node != count:
            return f"{count} GPUs fit one instance: they are one node of {count}, not nodes of {gpus_per_node}"
        if gpus_per_node is not None and gpus_per_node not in sizes and count > gpus_per_node:
            return (
                f"no instance of {gpus_per_node} GPUs (instances offered: {', '.join(map(str, sizes))} GPU); "
                "one node is one instance"
            )
        multi = [o for o in usable if o.gpus_per_instance < count and count % o.gpus_per_instance == 0]
        return (
            "no offer rents "
            + f"{count} GPUs as a cluster: "
            + "; ".join(
                sorted({self._why_not_cluster(o, count) for o in multi}) or ["no instance size divides the count"]
            )
        )

    def _why_not_cluster(self, o: Offer, count: int) -> str:
        net = self.network_of(o)
        if net is None or net.spelling is None:
            return (
                net.text
                if net is not None
                else f"{o.provider} {o.instance}: the network between its instances is not known"
            )
        if o.cluster is None or o.cluster.max_gpus is None:
            return f"{o.provider} {o.instance}: not rented as a multi-node cluster of a published size"
        return f"{o.provider} {o.instance}: clusters of up to {o.cluster.max_gpus} GPUs"


def _newness(o: Offer) -> int:
    return -1 if o.date is None else offer_date(o.date).toordinal()


def _older(o: Offer, than: Offer) -> bool:
    """`o` is dated before `than` (an undated side is judged by the freshness rule, not here)."""
    return o.date is not None and than.date is not None and _newness(o) < _newness(than)


TERM_YEARS = {"1y": 1, "3y": 3}
SPOT_HOLDING = "spot capacity can be reclaimed at any time: it prices preemptible work, not a multi-year holding"


def _commitment(
    market: Market,
    gpu: str,
    count: int,
    gpn: int,
    model: str,
    on_demand: Quote | None,
    replicas: int = 1,
    packed: bool = True,
) -> tuple[Quote | None, str | None]:
    """A 1y/3y commitment's quote, or why there is none: it must be dated within a year, of the same
    offer class as the on-demand price it is compared with, no older than that price, and not dearer
    than it per GPU-hour. The
    team's own rate (--prices) is its contract: neither its date nor its class is held against it."""
    q = market.quote(gpu, count, gpn, model, replicas, packed)
    if q is None:
        return None, market.why_none(gpu, count, gpn, model)
    if not q.own and (q.stale or q.age_months is None):
        when = "undated" if q.age_months is None else f"{q.age_months:.0f} months old"
        return None, (
            f"no {model} commitment dated within {STALE_MONTHS} months (the only one that fits, "
            f"{q.offer.provider} {q.offer.instance}, is {when}: re-check it with the provider)"
        )
    if on_demand is None:
        return q, None
    if not q.own and q.offer.offer_class != on_demand.offer.offer_class:
        same = market.restricted(
            filter=replace(market.filter, offer_classes=frozenset({on_demand.offer.offer_class or ""}))
        )
        q2 = same.quote(gpu, count, gpn, model, replicas, packed)
        if q2 is None or q2.stale:
            return None, (
                f"no fresh {model} commitment from a {on_demand.offer.offer_class} provider like the on-demand "
                f"price's ({on_demand.offer.provider}); the {q.offer.offer_class} one ({q.offer.provider}) is "
                "not comparable"
            )
        q = q2
    if not q.own and _older(q.offer, on_demand.offer):
        return None, (
            f"none fresh: the {model} commitment ({q.offer.provider} {q.offer.instance}, {q.offer.date}) is older than "
            f"the on-demand price it is compared with ({on_demand.offer.provider} {on_demand.offer.instance}, "
            f"{on_demand.offer.date}): a commitment read before the on-demand price may predate a price change"
        )
    if q.usd_per_hour / q.gpus_paid > on_demand.usd_per_hour / on_demand.gpus_paid:
        return None, (
            f"the {model} offer ({q.offer.provider} {q.offer.instance}, {q.usd_per_hour / q.gpus_paid:.2f} USD/GPU-h) "
            f"costs more than on-demand ({on_demand.usd_per_hour / on_demand.gpus_paid:.2f}): not a commitment worth taking"
        )
    return q, None


def holding_totals(
    market: Market, gpu: str, count: int, gpus_per_node: int, years: float, busy: float, hours_per_year: float
) -> tuple[dict[str, float | None], dict[str, Quote | None], dict[str, str]]:
    """Renting for `years` (TCO): on-demand pays the busy hours; a 1- or 3-year commitment pays every
    hour of each whole term the horizon needs; spot is no holding. Returns (USD totals, quotes, why
    a price model has no total)."""
    totals: dict[str, float | None] = {}
    quotes: dict[str, Quote | None] = {}
    why: dict[str, str] = {}
    on_demand = market.quote(gpu, count, gpus_per_node, "on-demand")
    for model in ("on-demand", "1y", "3y"):
        if model == "on-demand":
            q, reason = on_demand, None if on_demand else market.why_none(gpu, count, gpus_per_node, model)
        else:
            q, reason = market.commitment(gpu, count, gpus_per_node, model)
        quotes[model] = q
        if q is None:
            totals[model] = None
            why[model] = reason or f"no {model} price"
            continue
        term = TERM_YEARS.get(model)
        hours = (
            years * hours_per_year * busy if term is None else math.ceil(round(years / term, 9)) * term * hours_per_year
        )
        totals[model] = q.usd_per_hour * hours
    totals["spot"] = None
    why["spot"] = SPOT_HOLDING
    return totals, quotes, why


def networks_of(offers: Iterable[Offer], catalog: Any) -> dict[Key, OfferNetwork]:
    """Each offered fabric as the network a multi-node plan runs on (gpuwise.estimate.offer_network)."""
    return {instance_key(o): offer_network(o, catalog) for o in offers if o.fabric is not None}


def market_from_catalog(catalog: Any, today: date, own: Sequence[Offer] = (), **filters: Any) -> Market:
    """The catalog's offers (with a team's own), its exchange rates and each fabric as a network;
    `filters` as Market.build takes them (providers, exclude, regions, max_age_months,
    offer_classes, allow_indicative)."""
    networks = networks_of((*catalog.offers, *own), catalog)
    return Market.build(catalog.offers, catalog.fx, today, own, networks=networks, **filters)


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


def money_of_cost(fx: FxRate | None, cost: Mapping[str, Any] | None) -> dict[str, Any]:
    """A cost as the JSON `cost` gives it, in the rate's currency: the hour, the month (amortised when
    owned), the run as the cost line counts it (with what a run loses, where priced: expected_total_usd,
    else total_usd) and, owned, the horizon's total and its years. What `plan` and `estimate` both show."""
    c = cost or {}
    owned = c.get("owned")
    amounts: dict[str, float | None] = {
        "per_hour": c.get("usd_per_hour"),
        "per_month": c.get("usd_per_month"),
        "run": c.get("expected_total_usd") or c.get("total_usd"),
    }
    if owned:
        amounts["horizon_total"] = owned.get("horizon_total_usd")
    out = money(fx, **amounts)
    return {**out, "horizon_years": owned.get("horizon_years")} if owned else out


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
