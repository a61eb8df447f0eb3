"""TCO against hand computation for two configurations, and buy-versus-rent."""

from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema import Offer, PriceModel
from gpuwise.errors import UsageError
from gpuwise.estimate.cost import HOURS_PER_YEAR, CostParams, OwnedCost, compare, rent_quote, usd_per_hour
from gpuwise.estimate.cost import owned_cost as _owned_cost
from gpuwise.estimate.offers import Market, networks_of
from gpuwise.workload import Hardware, build_hardware

from .hand_offers import IB, TODAY, offer

CAT = load_catalog()
P = CostParams(
    electricity_usd_per_kwh=0.10,
    pue=1.5,
    gpu_utilization=0.6,
    host_usd_per_node=80_000,
    host_power_watts_per_node=2_000,
    network_usd_per_node=20_000,
    facility_usd_per_kw_year=1_000,
    maintenance_fraction_per_year=0.10,
    depreciation_years=4,
)


def _offer(gpu: str, n: int, price: float, model: PriceModel = "on-demand", provider: str = "acme") -> Offer:
    cluster = n == 8 and gpu == "h100-sxm"  # the 8-GPU H100 instances are rented as clusters over InfiniBand
    kw = {"fabric": IB, "cluster": {"max_gpus": 64}} if cluster else {}
    return offer(
        n,
        price,
        gpu=gpu,
        provider=provider,
        instance=f"{provider}-{gpu}-{n}x-{model}",
        region="any",
        price_model=model,
        date="2026-11-01",
        offer_class="neocloud",
        **kw,
    )


# hand-made offers: an 8-GPU H100 node at $24/h, a 1-GPU one at $2/h, 1- and 3-year commitments
OFFERS = (
    _offer("h100-sxm", 8, 24.0),
    _offer("h100-sxm", 1, 2.0),
    _offer("h100-sxm", 8, 16.0, "1y"),
    _offer("h100-sxm", 8, 12.0, "3y"),
    _offer("a10", 1, 1.0),
    _offer("a10", 4, 5.0),
)


def owned_cost(hw: Hardware, p: CostParams) -> OwnedCost:
    """The owned cost of a GPU the catalog has a list price for."""
    own = _owned_cost(hw, p)
    assert own is not None
    return own


def list_price(gpu: str) -> float:
    price = CAT.gpu(gpu).price.list_usd
    assert price is not None
    return price


PM = P.with_market(Market.build(OFFERS, {}, TODAY, networks=networks_of(OFFERS, CAT)))


def test_owned_single_node_hand_computed():
    hw = build_hardware("h100-sxm:8", CAT)
    price = list_price("h100-sxm")
    own = owned_cost(hw, P)
    it_kw = (700 * 8 * 0.6 + 2000) / 1000  # 5.36 kW
    assert own.it_kw == pytest.approx(it_kw)
    assert own.capex == pytest.approx(8 * price + 80_000)  # one node: no inter-node network
    assert own.power_usd_per_year == pytest.approx(it_kw * 1.5 * HOURS_PER_YEAR * 0.10)
    contracted_kw = (700 * 8 + 2000) / 1000  # 7.6 kW: colocation is charged on peak, not average, power
    assert own.contracted_kw == pytest.approx(contracted_kw)
    assert own.facility_usd_per_year == pytest.approx(contracted_kw * 1_000)
    assert own.maintenance_usd_per_year == pytest.approx(0.10 * (8 * price + 80_000))
    assert own.total(3) == pytest.approx(own.capex + 3 * own.opex_per_year)
    assert own.usd_per_hour == pytest.approx((own.capex / 4 + own.opex_per_year) / HOURS_PER_YEAR)


def test_owned_two_nodes_pay_network_and_a_share_of_hosts():
    one, two = (
        owned_cost(build_hardware("a100-80gb-sxm:8", CAT), P),
        owned_cost(build_hardware("a100-80gb-sxm:16", CAT), P),
    )
    price = list_price("a100-80gb-sxm")
    assert two.capex == pytest.approx(16 * price + 2 * 80_000 + 2 * 20_000)
    assert one.network_usd == 0 and two.network_usd == 40_000
    small = owned_cost(build_hardware("rtx-4090", CAT), P)
    assert small.hosts_usd == pytest.approx(80_000 / 8)  # a one-GPU box pays an eighth of a server


def test_rent_is_priced_in_instances_of_the_node_size_without_discount_fallbacks():
    # 4x A10 in one 4-GPU node: one $5 instance, never 4 x the $1 one-GPU price
    assert usd_per_hour(build_hardware("a10:4", CAT), "on-demand", PM) == pytest.approx(5.0)
    # 16x H100 in 8-GPU nodes: two $24 instances
    q = rent_quote(build_hardware("h100-sxm:16", CAT), "on-demand", PM)
    assert q is not None and q.instances == 2 and q.usd_per_hour == pytest.approx(48.0)
    assert q.spelling == "8xib-ndr"  # the offer's fabric: 400 Gbit/s InfiniBand per GPU, 8 ports a node
    # 128 GPUs: more than the provider rents as one cluster (64), and the 1-GPU offer has no fabric
    assert rent_quote(build_hardware("h100-sxm:128", CAT), "on-demand", PM) is None
    assert rent_quote(build_hardware("a10:8", CAT, 4), "on-demand", PM) is None  # 4-GPU hosts, no fabric
    # no spot offer: no spot price (no discount off on-demand)
    assert usd_per_hour(build_hardware("h100-sxm:8", CAT), "spot", PM) is None
    # reserved is the 1-year commitment
    assert usd_per_hour(build_hardware("h100-sxm:8", CAT), "reserved", PM) == pytest.approx(16.0)
    with pytest.raises(UsageError):
        usd_per_hour(build_hardware("a10", CAT), "barter", PM)


def test_buy_versus_rent_over_years():
    hw = build_hardware("h100-sxm:8", CAT)
    c = compare(hw, 3, PM, busy_fraction=0.5).as_dict()
    assert c["rent_total_usd"]["on-demand"] == pytest.approx(24.0 * 3 * HOURS_PER_YEAR * 0.5)
    # commitments are paid for every hour of the term, busy or not: 3 one-year terms, 1 three-year term
    assert c["rent_total_usd"]["1y"] == pytest.approx(16.0 * 3 * HOURS_PER_YEAR)
    assert c["rent_total_usd"]["3y"] == pytest.approx(12.0 * 3 * HOURS_PER_YEAR)
    assert c["rent_total_usd"]["spot"] is None and "preemptible" in c["why_no_rent"]["spot"]
    assert c["offers"]["3y"]["instance"] == "acme-h100-sxm-8x-3y"
    assert c["owned"]["total_usd"] == pytest.approx(owned_cost(hw, P).total(3))
    assert c["cheapest"] in ("owned", "on-demand", "1y", "3y")
    # a two-year horizon still pays one whole 3-year term
    two = compare(hw, 2, PM).as_dict()
    assert two["rent_total_usd"]["3y"] == pytest.approx(12.0 * 3 * HOURS_PER_YEAR)


def test_catalog_tco_8x_a100_rents_for_less_than_8x_h100():
    """After AWS's 2025 cut and with dated 8-GPU offers, A100 is cheaper."""
    p = CostParams.from_catalog(CAT)
    h100 = compare(build_hardware("h100-sxm:8", CAT), 3, p).as_dict()
    a100 = compare(build_hardware("a100-80gb-sxm:8", CAT), 3, p).as_dict()
    assert a100["rent_total_usd"]["on-demand"] < h100["rent_total_usd"]["on-demand"]
    assert a100["offers"]["on-demand"]["gpus_per_instance"] == 8


def test_parameters_come_from_the_catalog_and_can_be_overridden():
    p = CostParams.from_catalog(CAT, {"electricity_usd_per_kwh": 0.2})
    assert p.electricity_usd_per_kwh == 0.2 and p.pue == CAT.costs["pue"].value
    for key in p.__dataclass_fields__.keys() - {"market", "servers"}:
        assert CAT.sources[CAT.costs[key].source].title
    with pytest.raises(UsageError, match="unknown cost parameter"):
        CostParams.from_catalog(CAT, {"electricty": 0.2})
    with pytest.raises(UsageError):
        CostParams.from_catalog(CAT, {"pue": -1})


def test_a_gpu_priced_as_a_server_buys_whole_servers():
    from gpuwise.catalog.schema import ServerPrice

    srv = ServerPrice(usd=500_000, gpus=8, platform="test 8-GPU box", source="test", why="test")
    p = replace(P, servers={"b200": srv})
    own = owned_cost(build_hardware("b200:8", CAT), p)
    assert own.servers_usd == 500_000 and own.gpus_usd == 0 and own.hosts_usd == 0
    assert own.capex == pytest.approx(500_000)  # one node: no inter-node network
    assert own.maintenance_usd_per_year == pytest.approx(0.10 * 500_000)
    # 12 GPUs (in nodes of 4) need two whole 8-GPU servers
    twelve = owned_cost(build_hardware("b200:12", CAT, 4), p)
    assert twelve.servers_usd == 1_000_000
    # the catalog prices the B200 as a DGX B200 (costs.yaml servers), not chips plus a generic host
    catalog_b200 = owned_cost(build_hardware("b200:8", CAT), CostParams.from_catalog(CAT))
    assert catalog_b200.servers_usd == CAT.servers["b200"].usd


def test_catalog_servers_as_bought_hand_checked():
    """costs.yaml prices H100, H200 and GH200 as whole servers (Epoch AI's hardware price rows)."""
    p = CostParams.from_catalog(CAT)
    dgx = owned_cost(build_hardware("h100-sxm:16", CAT), p)
    assert dgx.servers_usd == 2 * 375_000 and dgx.gpus_usd == 0 and dgx.hosts_usd == 0  # two DGX H100
    assert dgx.network_usd == pytest.approx(2 * CAT.costs["network_usd_per_node"].value)  # two nodes: the fabric
    assert dgx.platform is not None and "DGX H100" in dgx.platform
    hgx = owned_cost(build_hardware("h200:8", CAT), p)
    assert hgx.servers_usd == pytest.approx(39_083.38 * 8, abs=1)  # 312,667 USD for one HGX H200 server
    # one superchip per server: 4 GH200 buy 4 servers of 46,675 USD, the CPU included (no host share)
    gh = owned_cost(build_hardware("gh200:4", CAT), p)
    assert gh.servers_usd == 4 * 46_675 and gh.hosts_usd == 0


def test_the_tco_table_says_one_year_not_one_years(tmp_path, capsys):
    """`gpuwise tco --years 1` titled its table 'Buy vs rent over 1 years'."""
    from .conftest import run_main

    costs = tmp_path / "costs.yaml"
    costs.write_text("costs:\n  depreciation_years: 1\n")
    code, out, _ = run_main(capsys, "tco", "--gpu", "h100-sxm:8", "--years", "1", "--costs", str(costs))
    assert code == 0 and "Buy vs rent over 1 year (USD)" in out and "depreciation 1 year," in out
    code, out, _ = run_main(capsys, "tco", "--gpu", "h100-sxm:8", "--years", "3")
    assert code == 0 and "over 3 years" in out and "1 years" not in out


def test_owned_serving_replicas_pack_into_whole_servers_hand_computed():
    """A replica needing 2 GPUs packs four to an 8-GPU server, as replicas pack into a rented
    8-GPU instance (gpuwise.estimate.offers.units_for): 4 replicas are one server, 5 are two;
    spread one per server (--redundancy) 5 are five. The fleet pays whole servers."""
    from gpuwise.catalog.schema import ServerPrice
    from gpuwise.estimate.cost import fleet_usd_per_hour

    srv = ServerPrice(usd=400_000, gpus=8, platform="test 8-GPU box", source="test", why="test")
    p = replace(P, servers={"h100-sxm": srv})
    pair = build_hardware("h100-sxm:2", CAT)
    four, five = _owned_cost(pair, p, 4), _owned_cost(pair, p, 5)
    spread = _owned_cost(pair, p, 5, packed=False)
    assert four is not None and five is not None and spread is not None
    assert (four.server_count, four.servers_usd) == (1, 400_000)
    assert (five.server_count, five.servers_usd) == (2, 800_000)
    assert (spread.server_count, spread.servers_usd) == (5, 2_000_000)
    # power is the GPUs that run: 5 replicas x 2 GPUs x 700 W x 0.6, plus 10/8 of a 2 kW host
    it_kw = (700 * 10 * 0.6 + 2000 * 10 / 8) / 1000  # 6.7 kW
    assert five.it_kw == pytest.approx(it_kw)
    assert five.maintenance_usd_per_year == pytest.approx(0.10 * 800_000)
    hourly = (800_000 / 4 + five.opex_per_year) / HOURS_PER_YEAR
    assert five.usd_per_hour == pytest.approx(hourly)
    assert fleet_usd_per_hour(pair, 5, "owned", p) == pytest.approx(hourly)
    # never cheaper than one replica's server, never falling as replicas are added
    costs = [fleet_usd_per_hour(pair, n, "owned", p) or 0.0 for n in range(1, 10)]
    assert costs == sorted(costs)
    # a replica larger than a server takes whole servers of its own: 3 replicas of 16 GPUs are 6
    big = _owned_cost(build_hardware("h100-sxm:16", CAT), p, 3)
    assert big is not None and big.server_count == 6


def test_units_for_is_one_packing_rule_for_instances_and_servers():
    from gpuwise.estimate.offers import units_for

    assert units_for(8, 2, 2, replicas=4) == 1
    assert units_for(8, 2, 2, replicas=5) == 2
    assert units_for(8, 2, 2, replicas=5, packed=False) == 5
    assert units_for(8, 3, 3, replicas=5) == 3  # two 3-GPU replicas per 8-GPU machine
    assert units_for(8, 16, 8, replicas=3) == 6
    assert units_for(8, 2, 1, replicas=1) is None  # 2 GPUs in nodes of 1 are not one machine's node
    assert units_for(8, 12, 4, replicas=1) is None  # nodes of 4 are not 8-GPU machines
