"""TCO against hand computation for two configurations, and buy-versus-rent."""

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.cost import HOURS_PER_YEAR, CostParams, cloud_rate, compare, owned_cost, usd_per_hour
from gpuwise.workload import build_hardware

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
    reserved_discount=0.3,
    spot_discount=0.6,
)


def test_owned_single_node_hand_computed():
    hw = build_hardware("h100-sxm:8", CAT)
    price = CAT.gpu("h100-sxm").price.list_usd
    own = owned_cost(hw, P)
    it_kw = (700 * 8 * 0.6 + 2000) / 1000  # 5.36 kW
    assert own.it_kw == pytest.approx(it_kw)
    assert own.capex == pytest.approx(8 * price + 80_000)  # one node: no inter-node network
    assert own.power_usd_per_year == pytest.approx(it_kw * 1.5 * HOURS_PER_YEAR * 0.10)
    assert own.facility_usd_per_year == pytest.approx(it_kw * 1_000)
    assert own.maintenance_usd_per_year == pytest.approx(0.10 * (8 * price + 80_000))
    assert own.total(3) == pytest.approx(own.capex + 3 * own.opex_per_year)
    assert own.usd_per_hour == pytest.approx((own.capex / 4 + own.opex_per_year) / HOURS_PER_YEAR)


def test_owned_two_nodes_pay_network_and_a_share_of_hosts():
    one, two = (
        owned_cost(build_hardware("a100-80gb-sxm:8", CAT), P),
        owned_cost(build_hardware("a100-80gb-sxm:16", CAT), P),
    )
    price = CAT.gpu("a100-80gb-sxm").price.list_usd
    assert two.capex == pytest.approx(16 * price + 2 * 80_000 + 2 * 20_000)
    assert one.network_usd == 0 and two.network_usd == 40_000
    small = owned_cost(build_hardware("rtx-4090", CAT), P)
    assert small.hosts_usd == pytest.approx(80_000 / 8)  # a one-GPU box pays an eighth of a server


def test_cloud_rates_and_fallback_discounts():
    gpu = CAT.gpu("a10")
    od = gpu.price.cloud_usd_per_gpu_hour
    assert cloud_rate(gpu, "on-demand", P) == od
    expected_spot = gpu.price.cloud_spot_usd_per_gpu_hour or od * (1 - 0.6)
    assert cloud_rate(gpu, "spot", P) == pytest.approx(expected_spot)
    assert usd_per_hour(build_hardware("a10:4", CAT), "on-demand", P) == pytest.approx(4 * od)
    with pytest.raises(UsageError):
        cloud_rate(gpu, "barter", P)


def test_buy_versus_rent_over_years():
    hw = build_hardware("h100-sxm:8", CAT)
    c = compare(hw, 3, P, busy_fraction=0.5).as_dict()
    od = CAT.gpu("h100-sxm").price.cloud_usd_per_gpu_hour
    assert c["rent_total_usd"]["on-demand"] == pytest.approx(od * 8 * 3 * HOURS_PER_YEAR * 0.5)
    assert c["owned"]["total_usd"] == pytest.approx(owned_cost(hw, P).total(3))
    assert c["cheapest"] in ("owned", "on-demand", "reserved", "spot")


def test_parameters_come_from_the_catalog_and_can_be_overridden():
    p = CostParams.from_catalog(CAT, {"electricity_usd_per_kwh": 0.2})
    assert p.electricity_usd_per_kwh == 0.2 and p.pue == CAT.costs["pue"].value
    for key in p.__dataclass_fields__:
        assert CAT.sources[CAT.costs[key].source].title
    with pytest.raises(UsageError, match="unknown cost parameter"):
        CostParams.from_catalog(CAT, {"electricty": 0.2})
    with pytest.raises(UsageError):
        CostParams.from_catalog(CAT, {"pue": -1})
