"""Offers that can deliver the plan's shape: a multi-node cluster only from an offer the provider rents
as a cluster over a fabric, one node per instance, on that fabric; the newest price of an instance;
indicative and undated prices only when asked; one filter for every door. Hand-made offers with
hand-computed answers, then the catalog's and the CLI's."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema import Offer
from gpuwise.errors import UsageError
from gpuwise.estimate.offer_network import offer_network
from gpuwise.estimate.offers import Market, market_from_catalog, networks_of

from .conftest import run_main
from .hand_offers import IB, TODAY, offer

CAT = load_catalog()


def _o(provider: str, price: float, n: int = 8, **kw: Any) -> Offer:
    return offer(n, price, **{"provider": provider, "region": "us-east-1", "offer_class": "neocloud", **kw})


def _market(offers: list[Offer], **filters: Any) -> Market:
    return Market.build(offers, {}, TODAY, networks=networks_of(offers, CAT), **filters)


# ----- which offers deliver a cluster ------------------------------------------------------------
CLUSTERS = [
    _o("big", 40.0, fabric=IB, cluster={"max_gpus": 64}),  # a cluster of up to 64 GPUs over InfiniBand
    _o("small", 30.0, fabric=IB, cluster={"max_gpus": 16}),  # cheaper, but clusters of at most 16
    _o("hosts", 10.0, fabric={"kind": "none"}),  # single hosts: the provider joins no fabric
    _o("unknown", 12.0),  # nothing known about the network between instances
]


def test_a_multi_node_cluster_needs_a_fabric_and_a_cluster_size_that_fits():
    m = _market(CLUSTERS)
    one = m.quote("h100-sxm", 8, 8, "on-demand")  # one instance needs no fabric: the cheapest host
    assert one is not None and one.offer.provider == "hosts" and one.instances == 1 and one.spelling is None
    q16 = m.quote("h100-sxm", 16, 8, "on-demand")  # 2 x 30 = 60 USD/h: 'small' holds 16
    assert q16 is not None and q16.offer.provider == "small" and q16.usd_per_hour == pytest.approx(60.0)
    q32 = m.quote("h100-sxm", 32, 8, "on-demand")  # past 'small''s 16: 4 x 40 = 160 USD/h
    assert q32 is not None and q32.offer.provider == "big" and q32.usd_per_hour == pytest.approx(160.0)
    assert q32.instances == 4 and q32.gpus_per_node == 8 and q32.spelling == "8xib-ndr"
    assert m.quote("h100-sxm", 128, 8, "on-demand") is None
    why = m.why_none("h100-sxm", 128, 8, "on-demand")
    assert "clusters of up to 64 GPUs" in why and "joins no fabric" in why and "not known" in why
    assert m.largest("h100-sxm", "on-demand") == 64


def test_one_node_per_instance():
    m = _market(CLUSTERS)
    assert m.quote("h100-sxm", 16, 4, "on-demand") is None  # 8-GPU instances are never nodes of 4
    best = m.best("h100-sxm", 16, "on-demand")  # what a plan rents: the offer's nodes
    assert best is not None and (best.gpus_per_node, best.instances) == (8, 2)
    small = m.best("h100-sxm", 4, "on-demand")  # 4 GPUs: one (partly idle) 8-GPU instance, one node of 4
    assert small is not None and (small.gpus_per_node, small.instances, small.gpus_paid) == (4, 1, 8)


@pytest.mark.parametrize(
    ("fabric", "gpus", "spelling"),
    [
        ({"kind": "infiniband", "gbps_per_gpu": 400}, 8, "8xib-ndr"),  # one 400G port per GPU
        ({"kind": "efa", "gbps_per_gpu": 400}, 8, "8xroce-400g"),  # AWS P5: 3,200 Gbit/s a node, Ethernet-based
        ({"kind": "efa", "gbps_per_gpu": 50}, 8, "1xroce-400g"),  # AWS P4d: 4 x 100 G = one 400 G port's worth
        ({"kind": "ethernet", "gbps_per_gpu": 100}, 8, "8xroce-100g"),  # GCP A3 High's TCPX, 800 Gbit/s a node
        ({"kind": "infiniband", "gbps_per_gpu": None}, 8, "8xib-ndr"),  # rate unpublished: the Hopper reference
    ],
)
def test_an_offers_fabric_is_the_network_it_plans_on(fabric, gpus, spelling):
    net = offer_network(_o("x", 1.0, gpus, fabric=fabric), CAT)
    assert net.spelling == spelling
    assert net.text.startswith("network: ") and "x x-8x" in net.text
    if fabric["gbps_per_gpu"] is None:
        assert "rate not published" in net.text and "dgx-h100-guide" in net.text


def test_no_network_from_an_unknown_or_mismatched_fabric():
    assert offer_network(_o("x", 1.0), CAT).spelling is None
    assert offer_network(_o("x", 1.0, fabric={"kind": "none"}), CAT).spelling is None
    # RoCE of unpublished rate on a GPU whose reference node is InfiniBand: no rate to assume
    roce = offer_network(_o("x", 1.0, fabric={"kind": "roce"}), CAT)
    assert roce.spelling is None and "not published" in roce.text


# ----- which price of an instance --------------------------------------------------------------
def test_the_newest_price_of_an_instance_supersedes_an_older_cheaper_one():
    old, new = _o("acme", 20.0, date="2026-05-07"), _o("acme", 31.0, date="2026-09-20")
    m = _market([old, new])
    q = m.quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.usd_per_hour == pytest.approx(31.0) and m.superseded == (old,)
    # another region is another instance: both stay
    assert not _market([old, _o("acme", 31.0, region="eu-west-1")]).superseded


def test_the_catalogs_older_lambda_a10_price_no_longer_wins():
    """Lambda's 1x A10 was listed at 0.86 (2026-05) and 1.29 (2026-09): a plan priced it at 0.86."""
    m = market_from_catalog(CAT, TODAY)
    q = m.quote("a10", 1, 1, "on-demand")
    assert q is not None and q.offer.provider == "lambda" and q.usd_per_hour == pytest.approx(1.29)
    assert any(o.provider == "lambda" and o.price_per_hour == 0.86 for o in m.superseded)


def test_indicative_and_undated_prices_decide_only_when_asked():
    starting_at = _o("mkt", 5.0, indicative=True)
    undated = _o("snap", 6.0, date=None)
    dated = _o("acme", 30.0)
    q = _market([starting_at, undated, dated]).quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.offer.provider == "acme"
    alone = _market([starting_at, undated])
    assert alone.quote("h100-sxm", 8, 8, "on-demand") is None and alone.set_aside("h100-sxm", "on-demand") == 2
    asked = _market([starting_at, undated], allow_indicative=True).quote("h100-sxm", 8, 8, "on-demand")
    assert asked is not None and asked.offer.provider == "mkt" and "INDICATIVE" in asked.describe()


def test_the_catalogs_starting_at_rtx_3090_no_longer_prices_a_plan():
    """Akash's 'starting at' 0.16 USD/h decided the README's serving plan."""
    m = market_from_catalog(CAT, TODAY)
    assert m.quote("rtx-3090", 1, 1, "on-demand") is None
    asked = market_from_catalog(CAT, TODAY, allow_indicative=True).quote("rtx-3090", 1, 1, "on-demand")
    assert asked is not None and asked.offer.indicative


def test_an_undated_offer_is_shown_undated_not_dated_today(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, out, _ = run_main(capsys, "prices", "--gpu", "a100-40gb-pcie", "--json")
    rows = json.loads(out)["offers"]
    assert code == 0 and rows
    for r in rows:  # only an undated SkyPilot snapshot lists it
        assert r["date"] is None and r["undated"] and r["age_months"] is None and not r["usable"]
    q = _market([_o("snap", 6.0, date=None)], allow_indicative=True).quote("h100-sxm", 8, 8, "on-demand")
    assert q is not None and q.as_dict()["date"] is None and q.as_dict()["age_months"] is None


# ----- the user's filters ---------------------------------------------------------------------
def test_filters_by_region_age_and_class():
    offers = [
        _o("east", 30.0),
        _o("anywhere", 20.0, region="any"),
        _o("old", 10.0, date="2026-01"),
        _o("cloud", 50.0, offer_class="hyperscaler", region="us-west1"),
    ]
    us = _market(offers, regions=["us"]).quote("h100-sxm", 8, 8, "on-demand")
    assert us is not None and us.offer.provider == "old"  # 'any' names no region: never 'us'
    recent = _market(offers, max_age_months=6).quote("h100-sxm", 8, 8, "on-demand")
    assert recent is not None and recent.offer.provider == "anywhere"  # 'old' is 11 months old
    hyper = _market(offers, offer_classes=["hyperscaler"]).quote("h100-sxm", 8, 8, "on-demand")
    assert hyper is not None and hyper.offer.provider == "cloud"
    with pytest.raises(UsageError, match="did you mean 'hyperscaler'"):
        _market(offers, offer_classes=["hyperscalar"])
    with pytest.raises(UsageError, match="--region 'mars'"):
        _market(offers, regions=["mars"])


def test_plan_takes_the_price_filters(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    args = ("plan", "--model", "llama-2-7b", "--method", "qlora", "--tokens", "20M", "--deadline", "1d", "--json")
    code, out, _ = run_main(capsys, *args, "--offer-class", "hyperscaler", "--region", "us", "--max-age", "12m")
    assert code == 0, out
    for c in json.loads(out)["candidates"]:
        o = c["offer"]
        assert o["offer_class"] == "hyperscaler" and "us" in o["region"] and o["age_months"] <= 12
    code, _, err = run_main(capsys, *args, "--offer-class", "hyperscalar")
    assert code == 2 and "hyperscaler" in err
    code, _, err = run_main(capsys, *args, "--max-age", "soon")
    assert code == 2 and "--max-age" in err


def test_tco_takes_the_price_filters(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    args = ("tco", "--gpu", "h100-sxm:16", "--json")
    filters = ("--offer-class", "hyperscaler", "--region", "us", "--max-age", "24m", "--exclude-providers", "gcp")
    code, out, _ = run_main(capsys, *args, *filters)
    row = json.loads(out)["configurations"][0]
    o = row["offers"]["on-demand"]
    assert code == 0 and o is not None
    assert (
        o["offer_class"] == "hyperscaler" and "us" in o["region"] and o["age_months"] <= 24 and o["provider"] != "gcp"
    )
    for model in ("1y", "3y"):  # every commitment left is gcp's (or vultr's): none passes, and each says so
        assert row["offers"][model] is None and "allowed" in row["why_no_rent"][model]
    code, out, _ = run_main(capsys, *args, "--providers", "coreweave")
    assert code == 0 and json.loads(out)["configurations"][0]["offers"]["on-demand"]["provider"] == "coreweave"
    for bad, says in (("--providers", "corewave"), ("--offer-class", "neoclod"), ("--max-age", "soon")):
        code, _, err = run_main(capsys, *args, bad, says)
        assert code == 2 and (bad in err or "did you mean" in err), err


# ----- plans ------------------------------------------------------------------------------------
def _plan(capsys, *args: str) -> dict[str, Any]:
    code, out, err = run_main(capsys, "plan", *args, "--json")
    assert code in (0, 1), err
    return json.loads(out)


def _delivers(c: dict[str, Any]) -> None:
    """A candidate's offer delivers its shape: one node per instance; across nodes, a fabric and a
    cluster of its size, named in the assumptions and carried into its command."""
    hw, o = c["hardware"], c["offer"]
    assert hw["nodes"] == o["instances"] and hw["gpus_per_node"] == min(hw["count"], o["gpus_per_instance"])
    assert o["provider"] and o["instance"] and o["offer_class"] and o["date"]
    if hw["nodes"] == 1 and hw["count"] > 1:  # one instance: it says no network between instances is paid for
        assert any(a.startswith("network: none rented between instances") for a in c["assumptions"])
    if hw["nodes"] > 1:
        assert o["fabric"] is not None and o["fabric"]["kind"] not in (None, "none")
        assert o["cluster_max_gpus"] >= hw["count"]
        assert f"--network {o['network']}" in c["command"]
        named = [a for a in c["assumptions"] if a.startswith("network: ")]
        assert len(named) == 1 and o["provider"] in named[0] and o["instance"] in named[0]


def test_the_13b_example_builds_no_cluster_from_hosts_without_a_fabric(capsys, tmp_path, monkeypatch):
    """It built 128 x RTX 4090 from 16 Vast.ai hosts over an assumed RoCE fabric, laid out as 32 nodes
    of 4 while buying 16 instances of 8."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    d = _plan(capsys, "-f", "examples/train-13b-multi-gpu-plan.yaml")
    assert d["chosen"] is not None
    for c in d["candidates"]:
        _delivers(c)
        assert c["hardware"]["gpu"] != "rtx-4090" or c["hardware"]["count"] == 1  # no 4090 host has a fabric
    # on H100 the plan needs two nodes: it names the fabric it pays for
    h100 = _plan(capsys, "-f", "examples/train-13b-multi-gpu-plan.yaml", "--gpus", "h100-sxm")["chosen"]
    _delivers(h100)
    assert h100["hardware"]["nodes"] > 1 and h100["offer"]["fabric"]["kind"] == "infiniband"


def test_a_multi_node_candidates_command_reproduces_its_price(capsys, tmp_path, monkeypatch):
    """The command carries the offer's nodes and fabric, so `estimate` rents the same offer."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    c = _plan(capsys, "-f", "examples/train-13b-multi-gpu-plan.yaml", "--gpus", "h100-sxm")["chosen"]
    code, out, err = run_main(capsys, *shlex.split(c["command"])[1:], "--json")
    est = json.loads(out)
    assert code in (0, 1), err
    assert est["hardware"] == c["hardware"]
    assert est["cost"]["usd_per_hour"] == pytest.approx(c["offer"]["usd_per_hour"])
    assert est["training"]["step_seconds"] == pytest.approx(c["training"]["step_seconds"])


def test_a_serving_type_no_offer_rents_in_its_replicas_node_size_says_so(capsys, tmp_path, monkeypatch):
    """A 70B model needs at least two H100 PCIe in one node; the catalog rents H100 PCIe one GPU per
    instance. The type was ruled out as 'misses price', which names no offer and no size."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    args = ("--model", "llama-3.1-70b", "--task", "inference", "--qps", "20", "--ttft-ms", "1000", "--tpot-ms", "100")
    d = _plan(capsys, *args, "--gpus", "h100-pcie")
    assert d["chosen"] is None and all(c["offer"] is None for c in d["candidates"])
    (r,) = [r for r in d["rejected"] if r["gpu"] == "h100-pcie"]
    largest = market_from_catalog(CAT, TODAY).largest("h100-pcie", "on-demand")
    assert largest == 1 and r["code"] == "price.no_node_size", r
    assert r["params"]["largest"] == largest and r["params"]["limit"] >= 2
    assert "no on-demand offer rents h100-pcie in the sizes that fit" in r["text"]


# ----- the GPU catalog's prices are the offers' -----------------------------------------------
def test_gpus_json_the_api_and_the_web_page_show_the_offers_prices(capsys, tmp_path, monkeypatch):
    """The web GPUs page and /api/gpus showed gpus.yaml's older price set, the CLI table the offers'."""
    from fastapi.testclient import TestClient

    from gpuwise.api import price_rows
    from gpuwise.web import create_app

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    cheapest = price_rows()[1]
    code, out, _ = run_main(capsys, "gpus", "--json")
    cli = {g["id"]: g["price"] for g in json.loads(out)}
    client = TestClient(create_app(), base_url="http://127.0.0.1")
    api = {g["id"]: g["price"] for g in client.get("/api/gpus").json()}
    assert code == 0 and cli == api
    for gid, price in cli.items():
        offer = cheapest.get(gid)
        assert price["cloud_usd_per_gpu_hour"] == (None if offer is None else offer["usd_per_gpu_hour"]), gid
        assert price["cloud"] is None or (price["cloud"]["source"] and price["cloud"]["provider"])
    page = client.get("/gpus").text
    h100 = cheapest["h100-sxm"]["usd_per_gpu_hour"]
    assert f"{h100:,.2f}" in page and cheapest["h100-sxm"]["provider"] in page
    assert "cloud_usd_per_gpu_hour" not in (CAT.gpus["h100-sxm"].price.__dataclass_fields__)
