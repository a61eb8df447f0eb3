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
