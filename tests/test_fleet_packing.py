"""A serving fleet's replicas packed into rented instances: replicas that fit in one instance share
it (hand-made offers, hand-computed), the plan ranks and bounds on that packed price, and its row's
`estimate` command gives the same fleet and cost."""

from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from gpuwise.catalog.schema import Offer
from gpuwise.cli.app import app
from gpuwise.estimate.offers import Market, instances_for
from gpuwise.plan.serving_search import Option, _cheaper_than

from .hand_offers import TODAY, offer


def _o(n: int, price: float, **kw: object) -> Offer:
    return offer(n, price, **{"gpu": "rtx-pro-6000", "link": "pcie" if n > 1 else "none", **kw})


def test_replicas_that_fit_an_instance_share_it():
    eight = _o(8, 20.0)
    assert instances_for(eight, 4, 4, replicas=28) == 14  # two 4-GPU replicas per 8-GPU instance
    assert instances_for(eight, 4, 4, replicas=27) == 14  # the last instance holds one
    assert instances_for(eight, 4, 4, replicas=1) == 1
    assert instances_for(eight, 1, 1, replicas=9) == 2  # eight 1-GPU replicas, then one more
    assert instances_for(eight, 3, 3, replicas=5) == 3  # two whole 3-GPU replicas fit; a replica never spans
    assert instances_for(eight, 4, 4, replicas=28, packed=False) == 28  # spread: one per instance
    assert instances_for(eight, 16, 8, replicas=3) == 6  # larger than an instance: two of its own each
    assert instances_for(eight, 8, 4, replicas=2) is None  # a replica's nodes still match the instance


def test_the_cheapest_offer_for_a_fleet_depends_on_its_size():
    """4-GPU replicas, a 4-GPU instance at 12/h against an 8-GPU one at 20/h: 1 replica 12 (4-GPU);
    2: 24 against 20 (8-GPU); 3: 36 against 40 (4-GPU); 4: 48 against 40 (8-GPU)."""
    m = Market.build([_o(4, 12.0), _o(8, 20.0)], {}, TODAY)
    for replicas, usd, gpus_per_instance, instances in ((1, 12, 4, 1), (2, 20, 8, 1), (3, 36, 4, 3), (4, 40, 8, 2)):
        q = m.quote("rtx-pro-6000", 4, 4, "on-demand", replicas)
        assert q is not None and q.usd_per_hour == pytest.approx(usd), replicas
        assert (q.offer.gpus_per_instance, q.instances, q.replicas) == (gpus_per_instance, instances, replicas)


def test_28_replicas_of_4_gpus_cost_half_what_one_instance_each_did():
    m = Market.build([_o(8, 20.0)], {}, TODAY)
    packed = m.quote("rtx-pro-6000", 4, 4, "on-demand", 28)
    spread = m.quote("rtx-pro-6000", 4, 4, "on-demand", 28, packed=False)
    odd = m.quote("rtx-pro-6000", 4, 4, "on-demand", 27)
    assert packed is not None and spread is not None and odd is not None
    assert (packed.instances, packed.usd_per_hour, packed.per_instance) == (14, pytest.approx(280.0), 2)
    assert (spread.instances, spread.usd_per_hour, spread.per_instance) == (28, pytest.approx(560.0), 1)
    assert (odd.instances, odd.usd_per_hour) == (14, pytest.approx(280.0))
    assert packed.describe().startswith("14 x acme-8x (8 GPU, 28 replicas, up to 2 per instance) from acme")
    assert packed.as_dict()["replicas_per_instance"] == 2 and packed.network is None


def test_the_most_replicas_cheaper_than_a_plan_on_packed_instances():
    """4-GPU replicas at 20/h per 8-GPU instance: n replicas cost 20 x ceil(n / 2). Below 100/h:
    at most 8 replicas (4 instances, 80); 9 and 10 are 5 instances (100, not cheaper)."""
    m = Market.build([_o(8, 20.0)], {}, TODAY)

    def fleet(n: int) -> float | None:
        q = m.quote("rtx-pro-6000", 4, 4, "on-demand", n)
        return None if q is None else q.usd_per_hour

    option = Option(4, 64, 1.0, 3, 20.0, fleet=fleet)
    assert _cheaper_than(100.0, option) == 8
    assert _cheaper_than(100.0001, option) == 10
    assert _cheaper_than(20.0, option) == 0
    assert option.floor_cost == pytest.approx(40.0)  # 3 replicas: 2 instances


def _json(args: list[str]) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


def test_a_packed_serving_row_and_its_command_price_the_same_instances():
    """The 70B at 20 QPS on RTX PRO 6000 (the catalog rents it in 8-GPU instances only): the fleet is
    ceil(replicas x GPUs per replica / 8) instances, and `estimate` with the row's command names
    the same instances and cost."""
    plan = ["plan", "--model", "llama-3.1-70b", "--task", "inference", "--qps", "20", "--ttft-ms", "1000"]
    d = _json([*plan, "--tpot-ms", "100", "--gpus", "rtx-pro-6000", "--top", "1"])
    c = d["candidates"][0]
    offer, per_replica = c["offer"], c["hardware"]["count"]
    assert offer["gpus_per_instance"] == 8 and per_replica < 8
    instances = -(-c["replicas"] * per_replica // 8)
    assert offer["instances"] == instances and offer["replicas"] == c["replicas"]
    assert c["cost"]["usd_per_hour"] == pytest.approx(instances * offer["usd_per_hour"] / offer["instances"])
    est = _json(shlex.split(c["command"])[1:])
    assert est["inference"]["serving"]["replicas"] == c["replicas"]
    assert est["cost"]["usd_per_hour"] == pytest.approx(c["cost"]["usd_per_hour"], rel=1e-9)
    assert any(a.startswith(f"cost: on demand, {instances} x ") for a in est["assumptions"])


def test_redundancy_keeps_one_replica_per_instance():
    """--redundancy N spreads replicas one per node, so that losing a node loses one replica: its fleet
    is never packed (each replica pays its own instance)."""
    plan = ["plan", "--model", "llama-3.1-8b", "--task", "inference", "--qps", "20", "--ttft-ms", "1000"]
    d = _json([*plan, "--tpot-ms", "100", "--gpus", "rtx-pro-6000", "--top", "1", "--redundancy", "1"])
    c = d["candidates"][0]
    assert c["offer"]["instances"] == c["replicas"] and c["offer"]["replicas_per_instance"] == 1
    assert c["cost"]["usd_per_hour"] == pytest.approx(c["replicas"] * c["offer"]["price"])


def test_no_layout_on_eight_gpu_instances_is_cheaper_than_the_packed_choice():
    """RTX PRO 6000, rented in 8-GPU instances only: every (tp, concurrency) `estimate` says meets the
    70B's targets costs at least the plan's chosen fleet (the bound on the packed floor stays sound)."""
    from gpuwise.api import make_estimate, make_plan

    req = {"qps": 20, "ttft_ms": 1000, "tpot_ms": 100, "gpus": "rtx-pro-6000"}
    work = {"model": "llama-3.1-70b", "task": "inference"}
    c = make_plan(work, req).chosen
    assert c is not None and c.hourly is not None
    for tp in (2, 4, 8):
        for batch in (64, 256):
            e = make_estimate({**work, "tp": tp, "concurrency": batch}, {"gpu": f"rtx-pro-6000:{tp}", **req})
            cost = e.cost()
            if e.serving is not None and e.serving.meets and cost is not None:
                assert c.hourly <= cost["usd_per_hour"] * (1 + 1e-9), (tp, batch, cost["usd_per_hour"], c.hourly)


def test_deploying_a_packed_fleet_states_its_cost_and_what_skyserve_does_with_it():
    """2 replicas of 4 x H100 share one 8-GPU instance: Kubernetes (pods of 4 GPUs, scheduled onto
    shared nodes) states the fleet's packed month; SkyServe, which gives each replica a cluster of its
    own, says that it does not pack them."""
    from gpuwise.api import make_plan
    from gpuwise.catalog import load_catalog
    from gpuwise.deploy.common import DeployOptions
    from gpuwise.deploy.inference import inference_manifests
    from gpuwise.deploy.skypilot import skypilot_files
    from gpuwise.estimate.cost import HOURS_PER_MONTH
    from gpuwise.plan.results import Code

    work = {"model": "llama-3.1-70b", "task": "inference", "input_tokens": 1024, "output_tokens": 256}
    r = make_plan(work, {"qps": 8, "ttft_ms": 2000, "tpot_ms": 60, "gpus": "h100-sxm"})
    c = r.chosen
    assert c is not None and c.offer is not None and c.hourly is not None
    assert c.offer.per_instance == 2 and c.replicas == 2 and c.offer.instances == 1
    packed = [r for r in c.why if r.code == Code.PACKED]  # the risk of sharing is said beside the plan
    assert [r.params for r in packed] == [{"replicas": 2, "instances": 1, "per_instance": 2}]
    cat = load_catalog()
    k8s = inference_manifests(c, DeployOptions(), cat, r.requirements)
    assert k8s.summary["usd_per_month"] == pytest.approx(c.offer.usd_per_hour * HOURS_PER_MONTH)
    sky = skypilot_files(c, DeployOptions(), cat)
    assert any("SkyServe launches every replica on its own cluster of 4 GPU(s)" in n for n in sky.notes)


def test_an_owned_serving_fleet_buys_whole_servers_its_replicas_packed_hand_computed():
    """Owned pricing packs replicas into the catalog's servers as renting packs them into instances:
    8B at 50 QPS on H200 (an HGX H200 server of 8 GPUs at 312,667 USD in costs.yaml) was 4 x 1 H200
    replicas, one server, when this was written: capex 312,667; power 4 x 700 W x 0.75 + half of a
    4.6 kW host = 4.4 kW x PUE 1.58 x 8766 h x 0.0806 = 4,912 USD/year; colocation on the 5.1 kW peak
    x 2,208.72 = 11,264; maintenance 10 % of capex = 31,267; over 3 years 454,996 USD."""
    from gpuwise.api import make_plan
    from gpuwise.plan.results import Code

    work = {"model": "llama-3.1-8b", "task": "inference"}
    req = {"qps": 50, "ttft_ms": 500, "tpot_ms": 50, "gpus": "h200", "pricing": "owned", "years": 3}
    c = make_plan(work, req).chosen
    assert c is not None and c.serving is not None
    n, k = c.replicas, c.est.hardware.count
    servers = -(-n // (8 // k))  # replicas packed into 8-GPU servers
    gpus = n * k
    it_kw = (700 * gpus * 0.75 + 4600 * gpus / 8) / 1000
    peak_kw = (700 * gpus + 4600 * gpus / 8) / 1000
    capex = 312_667 * servers
    opex = it_kw * 1.58 * 8766 * 0.0806 + peak_kw * 2208.72 + 0.10 * capex
    total = c.cost_dict()["owned"]["horizon_total_usd"]
    assert total == pytest.approx(capex + 3 * opex, rel=1e-4)
    assert c.hourly == pytest.approx((capex / 5 + opex) / 8766, rel=1e-4)
    if servers < n:  # replicas share a server: the risk is said beside the plan
        (shared,) = [r for r in c.why if r.code == Code.PACKED_OWNED]
        assert shared.params == {"replicas": n, "servers": servers, "per_server": min(n, 8 // k)}
