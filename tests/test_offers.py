"""Offers: the catalog's data, and which offer prices a cluster (hand-made offers, hand-computed)."""

from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema import FxRate
from gpuwise.errors import UsageError
from gpuwise.estimate.offers import Market, convert, fx_rate, instances_for, merge_offers, price_model_of
from gpuwise.report.as_json import candidate_json

from .conftest import run_main
from .hand_offers import TODAY
from .hand_offers import offer as _o

CAT = load_catalog()


# ----- the data --------------------------------------------------------------------------------
def test_every_offer_has_a_source_a_date_and_a_currency():
    assert len(CAT.offers) >= 120
    for o in CAT.offers:
        src = CAT.offer_sources[o.source]
        assert src.url, o
        # undated exactly when the source is an undated snapshot: never shown as the day it was read
        assert (o.date is None) == (src.date_basis == "accessed"), o
        assert o.date is None or (o.date[:4].isdigit() and o.date >= "2024"), o
        assert o.currency == "USD" or o.currency in CAT.fx, o
    for rate in CAT.fx.values():
        assert rate.source in CAT.offer_sources and rate.date


def test_every_offered_gpu_is_in_the_catalog_so_its_offers_are_plannable():
    # rtx-6000-ada, rtx-pro-6000, l20, gh200 and b300 once had offers but no gpus.yaml entry
    offered = {o.gpu for o in CAT.offers}
    assert offered <= set(CAT.gpus), sorted(offered - set(CAT.gpus))
    for gpu_id in ("rtx-6000-ada", "rtx-pro-6000", "l20", "gh200", "b300", "a10g"):
        gpu = CAT.gpus[gpu_id]
        assert gpu.peak_flops.get("bf16", 0) > 0, gpu_id  # a plan can time a bf16 job on it


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
    # one node per instance: 16 GPUs of 8-GPU instances are 2 nodes of 8, never 4 nodes of 4
    assert instances_for(_o(8, 24), 16, 4) is None
    assert instances_for(_o(8, 24), 8, 4) is None  # nor one instance split into two nodes


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
    # an undated offer never decides a price unless asked; asked, it counts as stale and loses to a dated one
    undated = [_o(8, 9.0, date=None, instance="snap"), _o(8, 30.0)]
    q4 = Market.build(undated, {}, TODAY).quote("h100-sxm", 8, 8, "on-demand")
    assert q4 is not None and q4.usd_per_hour == pytest.approx(30.0)
    alone = Market.build(undated[:1], {}, TODAY)
    assert alone.quote("h100-sxm", 8, 8, "on-demand") is None
    assert "--allow-indicative" in alone.why_none("h100-sxm", 8, 8, "on-demand")
    q5 = Market.build(undated[:1], {}, TODAY, allow_indicative=True).quote("h100-sxm", 8, 8, "on-demand")
    assert q5 is not None and q5.stale and q5.age_months is None and "UNDATED" in q5.describe()


def test_provider_filters_and_typos():
    offers = [_o(8, 24.0), _o(8, 20.0, provider="beta", instance="b8")]
    only = Market.build(offers, {}, TODAY, providers=["acme"])
    q = only.quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.offer.provider == "acme"
    drop = Market.build(offers, {}, TODAY, exclude=["acme,beta"])
    assert drop.quote("h100-sxm", 8, 8, "on-demand") is None
    assert "providers, regions and classes allowed" in drop.why_none("h100-sxm", 8, 8, "on-demand")
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


@pytest.mark.parametrize("price", ["5e-324", "0", "1e-9", "1e308", ".inf", ".nan"])
def test_a_price_outside_any_rental_is_refused_naming_the_bound(capsys, tmp_path, monkeypatch, price):
    """`price_per_hour: 5e-324` passed `> 0` and then divided into a ratio (ZeroDivisionError, exit 70):
    a price must lie within MIN/MAX_PRICE_PER_HOUR, checked where the offer is read."""
    from gpuwise.catalog.schema import MAX_PRICE_PER_HOUR, MIN_PRICE_PER_HOUR

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    code, _, err = run_main(capsys, "plan", "--model", "llama-2-7b", "--task", "inference", "--qps", "1",
                            "--prices", _own_file(tmp_path, "h100-sxm", price))  # fmt: skip
    assert code == 2, err
    assert "field 'price_per_hour': Input should be" in err and err.count("\n") == 1, err
    assert _o(1, MIN_PRICE_PER_HOUR).price_per_hour == MIN_PRICE_PER_HOUR  # the bounds themselves are prices
    assert _o(1, MAX_PRICE_PER_HOUR).price_per_hour == MAX_PRICE_PER_HOUR


# ----- a team's own rates change the plan ---------------------------------------------------------
JOB = {"model": "llama-2-7b", "method": "lora", "tokens": "5M", "micro_batch": 4}
PAIR = "a100-80gb-sxm,h100-sxm"


def _own_file(tmp_path, gpu: str, price: float) -> str:
    path = tmp_path / "my.yaml"
    path.write_text(
        "offers:\n"
        f"- {{gpu: {gpu}, provider: ourcloud, instance: team-1x, gpus_per_instance: 1, link: none,"
        f" region: any, price_model: on-demand, currency: USD, price_per_hour: {price},"
        " date: '2026-11-01', source: 'our 2026 contract', available: true}\n"
    )
    return str(path)


def test_prices_file_overriding_one_offer_changes_the_plan(tmp_path, monkeypatch):
    from gpuwise.api import make_plan

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    base = make_plan(JOB, {"gpus": PAIR})
    assert base.chosen is not None
    before = base.chosen.est.hardware.gpu.id
    other = next(g for g in PAIR.split(",") if g != before)
    # a negotiated rate of $0.05 per GPU-hour for the type that lost
    cheap = make_plan(JOB, {"gpus": PAIR, "prices": _own_file(tmp_path, other, 0.05)})
    assert cheap.chosen is not None
    assert cheap.chosen.est.hardware.gpu.id == other and cheap.chosen.est.hardware.count == 1
    d = candidate_json(cheap.chosen)
    assert d["offer"]["provider"] == "ourcloud" and d["offer"]["own"] is True
    assert cheap.chosen.usd_per_hour == pytest.approx(0.05)
    hours = cheap.chosen.hours
    assert hours is not None and cheap.chosen.cost == pytest.approx(0.05 * hours)
    # restricting to a provider that has no such offer puts the plan back on the catalog's prices
    only = make_plan(JOB, {"gpus": PAIR, "prices": _own_file(tmp_path, other, 0.05), "exclude_providers": "ourcloud"})
    assert only.chosen is not None and only.chosen.est.hardware.gpu.id == before


def test_a_bad_prices_file_is_a_clear_error(tmp_path, monkeypatch):
    from gpuwise.api import make_plan
    from gpuwise.errors import GpuwiseError

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("offers:\n- {gpu: h100-sxm, provider: us, instance: x, gpus_per_instance: 0}\n")
    with pytest.raises(GpuwiseError, match=r"bad\.yaml: offer 1"):
        make_plan(JOB, {"gpus": PAIR, "prices": str(bad)})
    with pytest.raises(GpuwiseError, match=r"cannot|not found|No such|does not exist"):
        make_plan(JOB, {"gpus": PAIR, "prices": str(tmp_path / "missing.yaml")})


def test_the_user_config_file_applies_to_every_plan(tmp_path, monkeypatch):
    from gpuwise.api import make_plan

    cfg = tmp_path / "cfg" / "gpuwise"
    cfg.mkdir(parents=True)
    (cfg / "prices.yaml").write_text(Path(_own_file(tmp_path, "a100-80gb-sxm", 0.05)).read_text())
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    r = make_plan(JOB, {"gpus": PAIR})
    assert r.chosen is not None and r.chosen.offer.offer.instance == "team-1x"


def test_currency_reads_the_budget_and_prints_the_rate(tmp_path, monkeypatch):
    from gpuwise.api import make_plan

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    r = make_plan(JOB, {"gpus": PAIR, "currency": "CNY", "budget": 1000})
    cny = CAT.fx["CNY"]
    assert r.requirements.budget_usd == pytest.approx(1000 / cny.per_usd)
    assert r.chosen is not None
    money = r.chosen.money()
    assert money["code"] == "CNY" and money["date"] == cny.date and money["per_usd"] == cny.per_usd
    cost = r.chosen.cost
    assert cost is not None and money["run"] == pytest.approx(cost * cny.per_usd)


# ----- the command line ------------------------------------------------------------------------
_cli = run_main


def test_prices_json_lists_every_offer_with_its_fields(capsys, tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, out, _ = _cli(capsys, "prices", "--json")
    assert code == 0
    offers = json.loads(out)["offers"]
    assert len(offers) >= 120 and len({o["gpu"] for o in offers}) >= 30
    keys = {"gpu", "provider", "instance", "gpus_per_instance", "price_model", "price", "currency", "date"}
    for o in offers:
        assert keys | {"source", "available"} <= o.keys()
        assert o["source"] and o["currency"] and (o["date"] is not None or o["undated"])
    code, out, _ = _cli(
        capsys, "prices", "--gpu", "h100-sxm", "--provider", "lambda", "--price-model", "on-demand", "--json"
    )
    rows = json.loads(out)["offers"]
    assert code == 0 and rows and all(r["provider"] == "lambda" and r["gpu"] == "h100-sxm" for r in rows)
    code, _, err = _cli(capsys, "prices", "--max-age", "soon")
    assert code == 2 and "--max-age" in err


def test_tco_names_offers_and_prints_the_rate_in_cny(capsys, tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, out, _ = _cli(capsys, "tco", "--gpu", "h100-sxm:8", "--gpu", "a100-80gb-sxm:8", "--years", "3", "--json")
    assert code == 0
    h100, a100 = json.loads(out)["configurations"]
    assert a100["rent_total_usd"]["on-demand"] < h100["rent_total_usd"]["on-demand"]
    assert h100["offers"]["on-demand"]["instance"] and h100["rent_total_usd"]["spot"] is None
    code, out, _ = _cli(capsys, "tco", "--gpu", "h100-sxm:8", "--currency", "CNY")
    cny = CAT.fx["CNY"]
    assert code == 0 and f"{cny.per_usd:g} CNY per USD on {cny.date}" in out
    code, _, err = _cli(capsys, "tco", "--gpu", "h100-sxm:8", "--currency", "JPY")
    assert code == 2 and "no exchange rate" in err


def test_spot_is_refused_for_serving(tmp_path, monkeypatch):
    from gpuwise.api import make_plan

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(UsageError, match="spot"):
        make_plan({"model": "llama-2-7b", "task": "inference"}, {"qps": 1, "pricing": "spot"})


def test_the_web_door_reads_no_file_outside_the_working_directory(tmp_path, monkeypatch):
    from gpuwise.api import make_plan

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    outside = _own_file(tmp_path, "h100-sxm", 0.05)  # an absolute path elsewhere
    for bad in (outside, "../secrets.yaml", "README.md"):
        with pytest.raises(UsageError, match="below the server's working directory"):
            make_plan(JOB, {"gpus": PAIR, "prices": bad}, confine_files=True)
    assert make_plan(JOB, {"gpus": PAIR, "prices": "examples/prices/team-rates.yaml"}, confine_files=True).chosen


def test_estimate_gives_its_cost_in_cny_with_the_rate(capsys, tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, out, _ = _cli(
        capsys, "estimate", "--model", "llama-2-7b", "--gpu", "h100-sxm:8", "--currency", "CNY", "--json"
    )
    d = json.loads(out)
    cny = CAT.fx["CNY"]
    assert code == 0 and d["currency"]["code"] == "CNY" and d["currency"]["date"] == cny.date
    assert d["currency"]["per_hour"] == pytest.approx(d["cost"]["usd_per_hour"] * cny.per_usd)


def test_the_methods_example_plans_the_cards_small_teams_rent(tmp_path, monkeypatch):
    """The cards small teams rent: RTX 4090 is a candidate; A10G is searched (it has compute figures now)
    and, when it loses, loses on cost, not on missing figures; no candidate is listed without a price."""
    from gpuwise.api import make_plan
    from gpuwise.planfile import read_plan_file

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    work, req, _ = read_plan_file(Path(__file__).parent.parent / "examples" / "finetune-7b-methods.yaml")
    r = make_plan(work, req)
    assert any(c.est.hardware.gpu.id == "rtx-4090" for c in r.candidates)
    assert all(c.usd_per_hour is not None for c in r.candidates)  # unpriced counts are skipped, not listed
    a10g = [c for c in r.candidates if c.est.hardware.gpu.id == "a10g"]
    reasons = [x.reason.code for x in r.rejected if x.gpu == "a10g"]
    assert a10g or reasons, "a10g was neither planned nor ruled out"
    assert "compute.no_figures" not in reasons, reasons
    # restricted to the A10G, the plan chooses it
    only = make_plan(work, {**req, "gpus": "a10g"})
    assert only.chosen is not None and only.chosen.est.hardware.gpu.id == "a10g"


def test_the_web_pages_show_the_offer_and_the_rate(tmp_path, monkeypatch):
    import re

    from fastapi.testclient import TestClient

    from gpuwise.web.app import create_app

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    client = TestClient(create_app(), base_url="http://127.0.0.1")
    cny = CAT.fx["CNY"]
    r = client.get(
        "/estimate", params={"model": "llama-2-7b", "task": "inference", "gpu": "h100-sxm", "currency": "CNY"}
    )
    assert r.status_code == 200
    offer = re.search(r'<p id="offer">Priced from: (.*?)</p>', r.text, re.S)
    assert offer is not None and " from " in offer.group(1) and "on-demand" in offer.group(1)
    assert f"{cny.per_usd:g} CNY per USD on {cny.date}" in r.text  # the rate used and its date
    plan = client.post(
        "/plan", data={"model": "llama-2-7b", "task": "finetune", "method": "qlora", "tokens": "20M", "currency": "CNY"}
    )
    assert plan.status_code == 200
    assert f"costs in CNY at {cny.per_usd:g} CNY per USD ({cny.date}" in plan.text
    cells = re.findall(r'<td class="offer">(.*?)</td>', plan.text, re.S)
    assert cells and all(" from " in c and "in CNY:" in c for c in cells)  # every row names its offer
