"""Offers: the catalog's data, and which offer prices a cluster (hand-made offers, hand-computed)."""

from datetime import date

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema import FxRate, Offer
from gpuwise.errors import UsageError
from gpuwise.estimate.offers import Market, convert, fx_rate, instances_for, merge_offers, price_model_of

CAT = load_catalog()
TODAY = date(2026, 12, 1)


def _o(n: int, price: float, **kw: object) -> Offer:
    base: dict[str, object] = {
        "gpu": "h100-sxm",
        "provider": "acme",
        "instance": f"acme-{n}x",
        "gpus_per_instance": n,
        "link": "nvswitch" if n > 1 else "none",
        "region": "us",
        "price_model": "on-demand",
        "currency": "USD",
        "price_per_hour": price,
        "date": "2026-10-01",
        "source": "test",
        "available": True,
    }
    return Offer.model_validate({**base, **kw})


# ----- the data --------------------------------------------------------------------------------
def test_every_offer_has_a_source_a_date_and_a_currency():
    assert len(CAT.offers) >= 120
    for o in CAT.offers:
        assert o.source in CAT.offer_sources and CAT.offer_sources[o.source].url, o
        assert o.date[:4].isdigit() and o.date >= "2024", o
        assert o.currency == "USD" or o.currency in CAT.fx, o
    for rate in CAT.fx.values():
        assert rate.source in CAT.offer_sources and rate.date


def test_offers_cover_the_market():
    gpus = {o.gpu for o in CAT.offers}
    providers = {o.provider for o in CAT.offers}
    assert len(gpus) >= 30
    assert {"aws", "gcp", "azure", "oracle", "lambda", "coreweave", "nebius", "runpod-secure", "vast"} <= providers
    assert {o.currency for o in CAT.offers} >= {"USD", "CNY"}
    assert {o.price_model for o in CAT.offers} == {"on-demand", "spot", "1y", "3y"}


# ----- fitting instances to nodes ---------------------------------------------------------------
def test_instances_hold_whole_nodes():
    assert instances_for(_o(8, 24), 16, 8) == 2
    assert instances_for(_o(8, 24), 4, 4) == 1  # half an 8-GPU instance is still the instance
    assert instances_for(_o(1, 2), 8, 8) is None  # a 1-GPU price never prices an 8-GPU node
    assert instances_for(_o(1, 2), 3, 1) == 3  # nodes of one GPU: one rental each
    assert instances_for(_o(8, 24), 12, 6) is None  # 8-GPU instances do not hold 6-GPU nodes


def test_cheapest_fitting_offer_wins_and_is_named():
    m = Market.build([_o(1, 2.0), _o(8, 24.0), _o(8, 20.0, provider="beta", instance="b8")], {}, TODAY)
    q = m.quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.offer.provider == "beta" and q.usd_per_hour == pytest.approx(20.0)
    assert (q.low_usd_per_gpu_hour, q.high_usd_per_gpu_hour) == pytest.approx((2.5, 3.0))
    assert "b8" in q.describe() and "beta" in q.describe()
    one = m.quote("h100-sxm", 1, 1, "on-demand")
    assert one is not None and one.usd_per_hour == pytest.approx(2.0)


def test_unavailable_offers_are_never_used_and_stale_ones_only_with_a_flag():
    m = Market.build([_o(8, 10.0, available=False), _o(8, 30.0)], {}, TODAY)
    q = m.quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.usd_per_hour == pytest.approx(30.0) and not q.stale
    only_off = Market.build([_o(8, 10.0, available=False)], {}, TODAY)
    assert only_off.quote("h100-sxm", 8, 8, "on-demand") is None
    assert "unavailable" in only_off.why_none("h100-sxm", 8, 8, "on-demand")
    # a cheap price from 2024 loses to a fresh one; alone, it is used and flagged
    old_cheap = _o(8, 8.0, date="2024-06", instance="old")
    m2 = Market.build([old_cheap, _o(8, 30.0)], {}, TODAY)
    q2 = m2.quote("h100-sxm", 8, 8, "on-demand")
    assert q2 is not None and q2.offer.instance == "acme-8x"
    q3 = Market.build([old_cheap], {}, TODAY).quote("h100-sxm", 8, 8, "on-demand")
    assert q3 is not None and q3.stale and "STALE" in q3.describe()
    # an undated snapshot's offer counts as stale
    snap = Market.build([_o(8, 9.0, source="snap"), _o(8, 30.0)], {}, TODAY, undated_sources=["snap"])
    q4 = snap.quote("h100-sxm", 8, 8, "on-demand")
    assert q4 is not None and q4.usd_per_hour == pytest.approx(30.0)


def test_provider_filters_and_typos():
    offers = [_o(8, 24.0), _o(8, 20.0, provider="beta", instance="b8")]
    only = Market.build(offers, {}, TODAY, providers=["acme"])
    q = only.quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.offer.provider == "acme"
    drop = Market.build(offers, {}, TODAY, exclude=["acme,beta"])
    assert drop.quote("h100-sxm", 8, 8, "on-demand") is None
    assert "allowed providers" in drop.why_none("h100-sxm", 8, 8, "on-demand")
    with pytest.raises(UsageError, match="unknown provider"):
        Market.build(offers, {}, TODAY, providers=["acmee"])


def test_currency_offers_compare_in_usd():
    fx = {"CNY": FxRate(currency="CNY", per_usd=7.0, date="2026-06", source="test")}
    m = Market.build([_o(1, 14.0, currency="CNY", instance="cn"), _o(1, 2.5)], fx, TODAY)
    q = m.quote("h100-sxm", 1, 1, "on-demand")
    assert q is not None and q.offer.instance == "cn" and q.usd_per_hour == pytest.approx(2.0)
    assert convert(2.0, fx_rate(fx, "cny")) == pytest.approx(14.0)
    assert fx_rate(fx, "USD") is None
    with pytest.raises(UsageError, match="no exchange rate"):
        fx_rate(fx, "JPY")


def test_own_offers_replace_the_catalogs_and_are_marked():
    base = [_o(8, 24.0)]
    mine = [_o(8, 18.0)]  # the same instance at a negotiated rate
    assert [o.price_per_hour for o in merge_offers(base, mine)] == [18.0]
    m = Market.build(base, {}, TODAY, own=mine)
    q = m.quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.own and q.usd_per_hour == pytest.approx(18.0)


def test_price_models():
    assert price_model_of("reserved") == "1y" and price_model_of("reserved", 3) == "3y"
    assert price_model_of("spot") == "spot"
    with pytest.raises(UsageError):
        price_model_of("barter")


def test_bad_offers_are_clear_errors():
    with pytest.raises(ValueError, match="date"):
        _o(8, 24.0, date="last week")
    with pytest.raises(ValueError, match="currency"):
        _o(8, 24.0, currency="usd")
    with pytest.raises(ValueError):
        _o(8, -1.0)
