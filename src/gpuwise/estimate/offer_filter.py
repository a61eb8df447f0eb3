"""Which offers a price may come from: the one filter `prices`, `plan`, `tco`, `estimate` and the web
share, and the rule that the newest price of an instance supersedes its older ones.

A user narrows the market by provider (`--providers`, `--exclude-providers`), region (`--region`, a
part of the provider's region id: `us` matches us-east-1; an offer whose source names no region,
`any`, matches no region asked for), age (`--max-age`: offers dated within it; an undated one never
is) and offer class (`--offer-class`). Whatever the user asks, an indicative price (a 'starting at'
or lowest-listing figure) or an undated one never decides a price unless the user asks for it
(`--allow-indicative`): neither says what a cluster rents at today. A team's own offers (`--prices`)
are the team's facts and pass that rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import get_args

from gpuwise.catalog.schema import Offer, OfferClass
from gpuwise.errors import UsageError, suggest
from gpuwise.units import DAYS_PER_MONTH

__all__ = [
    "OFFER_CLASSES",
    "OfferFilter",
    "age_months",
    "offer_date",
    "superseded",
]

OFFER_CLASSES: tuple[str, ...] = get_args(OfferClass)


def offer_date(text: str) -> date:
    """'2026-11' -> the first of the month (the oldest the price can be); '2026-11-09' as is."""
    parts = [int(p) for p in text.split("-")]
    return date(parts[0], parts[1], parts[2] if len(parts) > 2 else 1)


def age_months(offer: Offer, today: date) -> float | None:
    """Months between the offer's date and `today` (never negative); None for an undated offer."""
    if offer.date is None:
        return None
    return max(0.0, (today - offer_date(offer.date)).days / DAYS_PER_MONTH)


def _instance_key(o: Offer) -> tuple[str, ...]:
    return (o.gpu, o.provider, o.instance, o.region, o.price_model)


def _newness(o: Offer) -> int:
    return -1 if o.date is None else offer_date(o.date).toordinal()


def superseded(offers: Iterable[Offer]) -> frozenset[int]:
    """Indexes (in `offers`) of prices a newer price of the same instance (GPU, provider, instance,
    region, price model) replaces: a dated price supersedes an undated one, the newest date the rest
    (on one date, an available listing the unavailable one, and the later listing the earlier)."""
    listed = list(offers)
    newest: dict[tuple[str, ...], int] = {}
    for i, o in enumerate(listed):
        key = _instance_key(o)
        # the newest date; on one date an available listing, then the later one
        if key not in newest or (_newness(o), o.available) >= (
            _newness(listed[newest[key]]),
            listed[newest[key]].available,
        ):
            newest[key] = i
    return frozenset(i for i, o in enumerate(listed) if newest[_instance_key(o)] != i)


def names(values: Iterable[str]) -> frozenset[str]:
    """'aws,lambda' or ['aws', 'Lambda'] -> {'aws', 'lambda'}."""
    out: set[str] = set()
    for v in values:
        out |= {p.strip().lower() for p in str(v).split(",") if p.strip()}
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class OfferFilter:
    """The user's restrictions on where prices come from (empty: no restriction)."""

    providers: frozenset[str] = frozenset()
    exclude: frozenset[str] = frozenset()
    regions: frozenset[str] = frozenset()  # parts of region ids, lower case
    max_age_months: float | None = None
    offer_classes: frozenset[str] = frozenset()
    allow_indicative: bool = False

    @classmethod
    def of(
        cls,
        offers: Sequence[Offer],
        providers: Iterable[str] = (),
        exclude: Iterable[str] = (),
        regions: Iterable[str] = (),
        max_age_months: float | None = None,
        offer_classes: Iterable[str] = (),
        allow_indicative: bool = False,
    ) -> OfferFilter:
        """Checked against the offers, so a typo is an error with a suggestion, not an empty plan."""
        known = {o.provider for o in offers}
        want, drop = names(providers), names(exclude)
        _check_known(want | drop, known, "provider(s)", "`gpuwise prices` lists them")
        classes = names(offer_classes)
        _check_known(classes, set(OFFER_CLASSES), "offer class(es)", f"one of {', '.join(OFFER_CLASSES)}")
        where = names(regions)
        regions_known = {o.region.lower() for o in offers}
        for r in where:
            if not any(r in k for k in regions_known):
                hints = suggest(r, regions_known)
                hint = f"; did you mean {' or '.join(map(repr, hints))}?" if hints else ""
                raise UsageError(f"--region {r!r}: no offer is in such a region{hint} (`gpuwise prices` lists them)")
        if max_age_months is not None and not 0 < max_age_months < 10_000:
            raise UsageError(f"--max-age must be a positive age like 12m or 1y; got {max_age_months:g} months")
        return cls(want, drop, where, max_age_months, classes, allow_indicative)

    def place(self, o: Offer) -> bool:
        """Passes the provider, region and class filters."""
        if (self.providers and o.provider not in self.providers) or o.provider in self.exclude:
            return False
        if self.offer_classes and (o.offer_class or "") not in self.offer_classes:
            return False
        region = o.region.lower()
        return not self.regions or (region != "any" and any(r in region for r in self.regions))

    def recent(self, o: Offer, today: date) -> bool:
        """Dated within --max-age (no limit: any date, or none)."""
        if self.max_age_months is None:
            return True
        age = age_months(o, today)
        return age is not None and age <= self.max_age_months

    def admits(self, o: Offer, today: date, own: bool = False) -> bool:
        """May price a plan: passes every filter, and is neither indicative nor undated unless the
        user asked (--allow-indicative) or it is the team's own."""
        if not (self.place(o) and self.recent(o, today)):
            return False
        return own or self.allow_indicative or not (o.indicative or o.date is None)


def _check_known(asked: Iterable[str], known: set[str], what: str, where: str) -> None:
    unknown = sorted(set(asked) - known)
    if unknown:
        hints = [h for u in unknown for h in suggest(u, known)]
        hint = f"; did you mean {' or '.join(map(repr, hints))}?" if hints else ""
        raise UsageError(f"unknown {what} {unknown}{hint} ({where})")
