"""TCO you can defend: a commitment column is a fresh commitment of the on-demand price's provider
class and no dearer than it, or says why there is none; owning is per hour over the same horizon as
renting; a team's server quote prices owning. Hand-computed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema import Offer, PriceModel
from gpuwise.estimate.cost import (
    HOURS_PER_YEAR,
    CostParams,
    compare,
    owned_cost,
    rent_quote,
    rented_hardware,
    why_no_price,
)
from gpuwise.estimate.offers import Market, Quote, networks_of
from gpuwise.workload import build_hardware

from .conftest import run_main
from .hand_offers import IB, TODAY, offer

CAT = load_catalog()


def _o(price: float, model: PriceModel = "on-demand", **kw: Any) -> Offer:
    cluster = {"offer_class": "neocloud", "fabric": IB, "cluster": {"max_gpus": 64}}
    return offer(8, price, **{"provider": "neo", "instance": f"neo-8x-{model}", "price_model": model, **cluster, **kw})


def _tco(offers: list[Offer], years: float = 3) -> dict[str, Any]:
    market = Market.build(offers, {}, TODAY, networks=networks_of(offers, CAT))
    return compare(build_hardware("h100-sxm:16", CAT), years, CostParams.from_catalog(CAT, market=market)).as_dict()


ON_DEMAND = _o(40.0)  # 5 USD per GPU-hour, two instances for 16 GPUs


def test_a_stale_commitment_dearer_than_on_demand_is_absent_with_the_reason():
    """tco --gpu h100-sxm:16 --years 3 priced the 1-year commitment at twice on-demand from a
    21-month-old offer."""
    stale = _o(80.0, "1y", provider="gcp", instance="a3", offer_class="hyperscaler", date="2025-03-06")
    t = _tco([ON_DEMAND, stale])
    assert t["rent_total_usd"]["1y"] is None and t["offers"]["1y"] is None
    assert "21 months old" in t["why_no_rent"]["1y"] and "gcp a3" in t["why_no_rent"]["1y"]


def test_a_commitment_of_another_provider_class_is_not_compared():
    other = _o(30.0, "1y", provider="cloud", instance="c8", offer_class="hyperscaler")
    t = _tco([ON_DEMAND, other])
    assert t["rent_total_usd"]["1y"] is None and "not comparable" in t["why_no_rent"]["1y"]


def test_a_commitment_dearer_than_on_demand_is_refused():
    t = _tco([ON_DEMAND, _o(44.0, "1y")])
    assert t["rent_total_usd"]["1y"] is None and "costs more than on-demand" in t["why_no_rent"]["1y"]


def test_a_fresh_commitment_of_the_same_class_is_priced_for_every_hour_of_its_terms():
    t = _tco([ON_DEMAND, _o(28.0, "1y"), _o(20.0, "3y")])
    # 16 GPUs = 2 instances; 3 one-year terms / 1 three-year term, every hour of them
    assert t["rent_total_usd"]["on-demand"] == pytest.approx(2 * 40.0 * 3 * HOURS_PER_YEAR)
    assert t["rent_total_usd"]["1y"] == pytest.approx(2 * 28.0 * 3 * HOURS_PER_YEAR)
    assert t["rent_total_usd"]["3y"] == pytest.approx(2 * 20.0 * 3 * HOURS_PER_YEAR)


def test_owning_per_hour_is_over_the_same_horizon_as_renting():
    t = _tco([ON_DEMAND], years=3)
    own = t["owned"]
    p = CostParams.from_catalog(CAT)
    o = owned_cost(build_hardware("h100-sxm:16", CAT), p)
    assert o is not None
    assert own["total_usd"] == pytest.approx(o.capex + o.opex_per_year * 3)
    assert own["horizon_usd_per_hour"] == pytest.approx(own["total_usd"] / (3 * HOURS_PER_YEAR))
    assert own["amortized_usd_per_hour"] == pytest.approx((o.capex / 5 + o.opex_per_year) / HOURS_PER_YEAR)


def test_the_catalogs_h100_commitments_are_at_or_below_on_demand_or_absent(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("GPUWISE_TODAY", "2026-12-01")
    code, out, _ = run_main(capsys, "tco", "--gpu", "h100-sxm:16", "--years", "3", "--json")
    row = json.loads(out)["configurations"][0]
    od = row["offers"]["on-demand"]
    assert code == 0 and od is not None
    for model in ("1y", "3y"):
        q = row["offers"][model]
        if q is None:
            assert row["rent_total_usd"][model] is None and row["why_no_rent"][model]
        else:
            per_gpu = q["usd_per_hour"] / (q["instances"] * q["gpus_per_instance"])
            assert per_gpu <= od["usd_per_hour"] / (od["instances"] * od["gpus_per_instance"])
            assert not q["stale"] and q["offer_class"] == od["offer_class"]
    code, out, _ = run_main(capsys, "tco", "--gpu", "h100-sxm:16", "--years", "3")
    # the cheapest on-demand price is a neocloud's, and no neocloud publishes a commitment price
    assert code == 0 and "no fresh 1y commitment from a neocloud provider" in out and "not comparable" in out


def test_the_catalogs_fresh_gcp_commitments_price_tco_hand_computed(capsys, tmp_path, monkeypatch):
    """GCP's committed-use prices read from the Cloud Billing catalog on 2026-07-30 (offers.yaml
    cyclenerd-gcp-2026-07): 8x L4 g2-standard-96 in us-central1 at 8.003330296 USD/h on demand,
    3680.73156336 / 730 = 5.042098 USD/h for 1 year, 2629.0938028 / 730 = 3.601498 for 3 years."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("GPUWISE_TODAY", "2026-12-01")
    code, out, _ = run_main(capsys, "tco", "--gpu", "l4:8", "--years", "3", "--json")
    row = json.loads(out)["configurations"][0]
    assert code == 0
    rent = row["rent_total_usd"]
    assert rent["on-demand"] == pytest.approx(8.00333 * 3 * 8766)  # 210,472
    assert rent["1y"] == pytest.approx(5.042098 * 3 * 8766)  # three 1-year terms: 132,597
    assert rent["3y"] == pytest.approx(3.601498 * 3 * 8766)  # one 3-year term: 94,712
    for model in ("on-demand", "1y", "3y"):
        q = row["offers"][model]
        assert q["instance"] == "g2-standard-96" and q["date"] == "2026-07-30" and not q["stale"]


def test_hyperscaler_h100_commitments_older_than_the_on_demand_price_are_none_fresh(capsys, tmp_path, monkeypatch):
    """16 H100 from hyperscalers: on demand 2 x AWS p5.48xlarge at 55.04 USD/h (6.88 per GPU-hour),
    read 2026-11-09; GCP's 1- and 3-year a3-highgpu-8g commitments were read 2026-07-30, before it (a
    price change between the two reads would not show): neither is used, each column says so."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("GPUWISE_TODAY", "2026-12-01")
    args = ("tco", "--gpu", "h100-sxm:16", "--years", "3", "--offer-class", "hyperscaler", "--json")
    code, out, _ = run_main(capsys, *args)
    row = json.loads(out)["configurations"][0]
    assert code == 0
    assert row["rent_total_usd"]["on-demand"] == pytest.approx(2 * 55.04 * 3 * 8766)
    for term in ("1y", "3y"):
        assert row["rent_total_usd"][term] is None and row["offers"][term] is None
        why = row["why_no_rent"][term]
        assert why.startswith("none fresh") and "2026-07-30" in why and "aws p5.48xlarge, 2026-11-09" in why


def test_gcp_h100_commitments_read_with_its_on_demand_price_hand_computed(capsys, tmp_path, monkeypatch):
    """16 H100 from GCP alone, every price read 2026-07-30: on demand 2 x a3-highgpu-8g at 88.49 USD/h
    (11.06 per GPU-hour); the 1-year commitment 44810.08066464 / 730 = 61.383672 USD/h (7.67) and the
    3-year one 28370.99821392 / 730 = 38.864381 USD/h (4.86) are at or below it, each paying every hour
    of its terms: 1y 3 terms x 2 x 61.383672 x 8766 = 3,228,536 USD; 3y 2 x 38.864381 x 3 x 8766 =
    2,044,111 USD."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("GPUWISE_TODAY", "2026-12-01")
    code, out, _ = run_main(capsys, "tco", "--gpu", "h100-sxm:16", "--years", "3", "--providers", "gcp", "--json")
    row = json.loads(out)["configurations"][0]
    assert code == 0
    rent = row["rent_total_usd"]
    assert rent["1y"] == pytest.approx(2 * 61.383672 * 3 * 8766) and rent["1y"] == pytest.approx(3_228_536, abs=1)
    assert rent["3y"] == pytest.approx(2 * 38.864381 * 3 * 8766) and rent["3y"] == pytest.approx(2_044_111, abs=1)
    assert rent["3y"] <= rent["1y"] <= rent["on-demand"]
    for term in ("on-demand", "1y", "3y"):
        q = row["offers"][term]
        assert (q["provider"], q["instance"], q["instances"], q["date"]) == ("gcp", "a3-highgpu-8g", 2, "2026-07-30")


# ----- a plan priced at --pricing reserved takes the same commitment, or none --------------------
def _reserved(offers: list[Offer], own: list[Offer] | None = None) -> tuple[Quote | None, str]:
    market = Market.build(offers, {}, TODAY, own=own or [], networks=networks_of([*offers, *(own or [])], CAT))
    p = CostParams.from_catalog(CAT, market=market)
    hw = build_hardware("h100-sxm:16", CAT)
    rented = rented_hardware(hw.gpu, 16, "reserved", p)
    assert (rented is None) == (rent_quote(hw, "reserved", p) is None)
    return rent_quote(hw, "reserved", p), why_no_price(hw, "reserved", p)


def test_a_reserved_plan_never_rents_a_stale_or_dearer_commitment():
    """plan --pricing reserved priced the 13B example from GCP's 21-month-old 1-year commitment,
    dearer per GPU-hour than the on-demand price the same plan rents at."""
    stale = _o(80.0, "1y", provider="gcp", instance="a3", offer_class="hyperscaler", date="2025-03-06")
    q, why = _reserved([ON_DEMAND, stale])
    assert q is None and "21 months old" in why and "gcp a3" in why
    q, why = _reserved([ON_DEMAND, _o(44.0, "1y")])
    assert q is None and "costs more than on-demand" in why
    q, _ = _reserved([ON_DEMAND, _o(28.0, "1y")])
    assert q is not None and q.usd_per_hour == pytest.approx(2 * 28.0)


def test_a_teams_own_undated_commitment_prices_a_reserved_plan():
    """The team's own rate is its contract: undated and of class 'own', it still prices the plan (and tco)."""
    mine = _o(26.0, "1y", provider="neo", instance="neo-8x-contract", date=None, offer_class=None)
    q, _ = _reserved([ON_DEMAND], own=[mine])
    assert q is not None and q.own and q.usd_per_hour == pytest.approx(2 * 26.0)
    market = Market.build([ON_DEMAND], {}, TODAY, own=[mine], networks=networks_of([ON_DEMAND, mine], CAT))
    t = compare(build_hardware("h100-sxm:16", CAT), 1, CostParams.from_catalog(CAT, market=market)).as_dict()
    assert t["rent_total_usd"]["1y"] == pytest.approx(2 * 26.0 * HOURS_PER_YEAR)


def test_the_13b_example_at_reserved_pricing_rents_no_stale_commitment(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("GPUWISE_TODAY", "2026-12-01")
    args = ("plan", "-f", "examples/train-13b-multi-gpu-plan.yaml", "--gpus", "h100-sxm", "--pricing", "reserved")
    code, out, _ = run_main(capsys, *args, "--json")
    d = json.loads(out)
    assert code in (0, 1)
    for c in d["candidates"]:
        assert c["offer"] is None or not c["offer"]["stale"], c["offer"]
    if d["chosen"] is None:
        (r,) = [r for r in d["rejected"] if r["gpu"] == "h100-sxm"]
        assert "not comparable" in r["text"] or "re-check it with the provider" in r["text"], r["text"]


def test_a_reserved_serving_plan_rents_the_fresh_commitment_hand_computed(capsys, tmp_path, monkeypatch):
    """8B at 10 QPS, P99 TTFT 500 ms and TPOT 50 ms, reserved: L4 is the one GPU with a fresh 1-year
    commitment of the on-demand price's class, GCP's g2-standard-96 (8x L4) at 5.042098 USD/h; the
    replicas are packed into its instances (7 replicas of 4x L4 are 4 instances, 20.168392 USD/h)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("GPUWISE_TODAY", "2026-12-01")
    args = ("--model", "llama-3.1-8b", "--task", "inference", "--qps", "10", "--ttft-ms", "500", "--tpot-ms", "50")
    code, out, _ = run_main(capsys, "plan", *args, "--pricing", "reserved", "--json")
    chosen = json.loads(out)["chosen"]
    assert code == 0 and chosen is not None
    offer = chosen["offer"]
    assert (offer["instance"], offer["price_model"], offer["date"]) == ("g2-standard-96", "1y", "2026-07-30")
    assert chosen["cost"]["usd_per_hour"] == pytest.approx(offer["instances"] * 5.042098)
    # (on the model of this writing: 7 replicas of 4 GPUs, 4 instances, 20.17 USD/h)
    per_instance = 8 // chosen["hardware"]["count"]
    assert offer["instances"] == -(-chosen["replicas"] // per_instance)


QUOTE = """costs:
  electricity_usd_per_kwh: 0.12
servers:
  h100-sxm:
    usd: 296644
    gpus: 8
    platform: "HGX H100 8-GPU server"
    power_watts: 10200
    date: "2024-03"
    source: "a reseller's listing"
"""


def test_a_server_quote_prices_owning_hand_computed(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    f = tmp_path / "quote.yaml"
    f.write_text(QUOTE)
    code, out, err = run_main(capsys, "tco", "--gpu", "h100-sxm:16", "--years", "3", "--costs", str(f), "--json")
    assert code == 0, err
    own = json.loads(out)["configurations"][0]["owned"]
    net = CAT.costs["network_usd_per_node"].value
    assert own["servers_usd"] == 2 * 296_644 and own["servers"] == 2 and own["server_source"] == "a reseller's listing"
    assert own["capex_usd"] == pytest.approx(2 * 296_644 + 2 * net)
    # the quote's draw beyond its GPUs is the host's: 2 x (10,200 - 8 x 700) = 9,200 W
    host_kw = 2 * (10_200 - 8 * 700) / 1000
    assert own["contracted_kw"] == pytest.approx(16 * 0.7 + host_kw)
    util = CAT.costs["gpu_utilization"].value
    assert own["it_kw"] == pytest.approx(16 * 0.7 * util + host_kw)
    pue = CAT.costs["pue"].value
    assert own["power_usd_per_year"] == pytest.approx(own["it_kw"] * pue * HOURS_PER_YEAR * 0.12)


@pytest.mark.parametrize(
    ("servers", "says"),
    [
        ("  h100sxm: {usd: 1, gpus: 8, platform: x, source: y}", "did you mean 'h100-sxm'"),
        ("  h100-sxm: {usd: 100, gpus: 8, platform: x, source: y, power_watts: 100}", "below its 8 GPUs' TDP"),
        ("  h100-sxm: {usd: 100, gpus: 8, platform: x}", "'source'"),
        ("  h100-sxm: {usd: -5, gpus: 8, platform: x, source: y}", "'usd'"),
        ("  h100-sxm: {usd: 5, gpus: 8, platform: x, source: y, date: soon}", "date"),
    ],
)
def test_a_bad_server_quote_is_a_clear_error(servers: str, says: str, tmp_path: Path, capsys):
    f = tmp_path / "quote.yaml"
    f.write_text("servers:\n" + servers + "\n")
    code, _, err = run_main(capsys, "tco", "--gpu", "h100-sxm:8", "--costs", str(f))
    assert code == 2 and says in err and "Traceback" not in err
