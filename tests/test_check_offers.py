"""scripts/check_offers.py, the stdlib-and-PyYAML check of offers.yaml that the README tells an
editor to run: it passes the shipped file and names what is wrong in a bad one."""

from __future__ import annotations

from .conftest import load_script

check_offers = load_script("check_offers")


def test_the_shipped_offers_pass(capsys):
    assert check_offers.main(["check_offers.py"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("offers: ") and out.rstrip().endswith("offers.yaml: no problems")


def test_a_bad_offer_is_named():
    gpus = check_offers.catalog_gpu_ids(check_offers.load_yaml(check_offers.GPUS))
    doc = check_offers.load_yaml(check_offers.OFFERS)
    first = dict(doc["offers"][0])
    bad = {**first, "gpu": "no-such-gpu", "price_per_hour": 0, "date": "2026-13"}
    problems = check_offers.check_document({**doc, "offers": [first, bad, first]}, gpus)
    assert "offers[1]: gpu 'no-such-gpu' is neither in gpus.yaml nor in the allowed new ids" in problems
    assert "offers[1]: price_per_hour 0 must be a positive number" in problems
    assert "offers[1]: date '2026-13' is not a quoted YYYY-MM[-DD]" in problems
    assert "offers[2]: repeats offers[0]" in problems


def test_the_new_offer_fields_are_checked():
    """fabric, cluster, offer_class, indicative and a null date exactly for an undated source."""
    gpus = check_offers.catalog_gpu_ids(check_offers.load_yaml(check_offers.GPUS))
    doc = check_offers.load_yaml(check_offers.OFFERS)
    first = dict(doc["offers"][0])  # AWS p5.48xlarge: EFA, UltraClusters, dated
    undated = next(o for o in doc["offers"] if o["date"] is None)
    bad = [
        {**first, "region": "r1", "fabric": {"kind": "nvlink", "gbps_per_gpu": -1, "source": "nowhere"}},
        {**first, "region": "r2", "fabric": None, "cluster": {"max_gpus": 1, "source": first["source"]}},
        {**first, "region": "r3", "offer_class": "cloud", "indicative": "yes"},
        {**first, "region": "r4", "date": None},
        {**undated, "region": "r5", "date": "2026-12-01"},
    ]
    problems = check_offers.check_document({**doc, "offers": [*doc["offers"], *bad]}, gpus)
    n = len(doc["offers"])
    expected = [
        f"offers[{n}]: fabric: kind 'nvlink' not one of",
        f"offers[{n}]: fabric: gbps_per_gpu -1 must be a positive number",
        f"offers[{n}]: fabric: source 'nowhere' is not in 'sources'",
        f"offers[{n + 1}]: cluster: max_gpus 1 must be a whole number of at least 2",
        f"offers[{n + 1}]: cluster: a cluster needs a fabric between its instances",
        f"offers[{n + 2}]: offer_class 'cloud' not one of",
        f"offers[{n + 2}]: indicative must be true or false",
        f"offers[{n + 3}]: date is null but its source is dated",
        f"offers[{n + 4}]: its source is undated (date_basis accessed): date must be null",
    ]
    for text in expected:
        assert any(p.startswith(text) for p in problems), (text, problems)
    # one instance states one fabric everywhere
    assert any("p5.48xlarge' from aws states other" in p for p in problems)
    missing = {k: v for k, v in first.items() if k != "fabric"}
    assert f"offers[{n}]: missing 'fabric'" in check_offers.check_document(
        {**doc, "offers": [*doc["offers"], missing]}, gpus
    )
