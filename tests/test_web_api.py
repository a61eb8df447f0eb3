"""The JSON API and pages through FastAPI's test client, and a fuzz of the OpenAPI schema."""

import os
import re

import pytest

from corpus import HF_CONFIGS

from .conftest import run_main

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from gpuwise.web import create_app

APP = create_app()
CLIENT = TestClient(APP, base_url="http://127.0.0.1")


def test_catalog_endpoints():
    gpus = CLIENT.get("/api/gpus", params={"min_memory": "80GB", "sort": "memory"}).json()
    assert gpus and all(g["memory_bytes"] >= 80e9 for g in gpus) and gpus[0]["sources"]
    models = CLIENT.get("/api/models").json()
    assert any(m["id"] == "llama-2-7b" and m["params"] == 6738415616 for m in models)


def test_estimate_and_plan_mirror_the_cli():
    e = CLIENT.post("/api/estimate", json={"workload": {"model": "llama-2-7b", "method": "qlora"}, "gpu": "a10"})
    assert e.status_code == 200 and e.json()["memory"]["fits"] and e.json()["training"]["tokens_per_second"] > 0
    p = CLIENT.post(
        "/api/plan",
        json={
            "workload": {"model": "llama-2-7b", "method": "qlora", "tokens": 2e7},
            "requirements": {"deadline": "24h", "pricing": "owned"},
            "top": 3,
        },
    )
    d = p.json()
    assert p.status_code == 200 and len(d["candidates"]) == 3 and d["chosen"]["meets"]["deadline"]["ok"]
    t = CLIENT.get("/api/tco", params={"gpu": ["h100-sxm:8", "a100-80gb-sxm:8"], "years": 3}).json()
    assert len(t["configurations"]) == 2


def test_tco_is_the_same_answer_from_both_doors(tmp_path, monkeypatch, capsys):
    """The web's buy-versus-rent is `gpuwise tco --json`'s, from the one API (parameters, currency,
    the offer behind each rent total), not an assembly of its own."""
    import json

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no user prices file on either door
    web = CLIENT.get("/api/tco", params={"gpu": ["h100-sxm:8", "a100-80gb-sxm:8"], "years": 2, "busy": 0.5})
    argv = ["tco", "--gpu", "h100-sxm:8", "--gpu", "a100-80gb-sxm:8", "--years", "2", "--busy", "0.5", "--json"]
    code, out, _ = run_main(capsys, *argv)
    assert code == 0 and web.status_code == 200
    assert web.json() == json.loads(out)
    assert web.json()["configurations"][0]["currency"]["code"] == "USD"


def test_bad_form_input_is_a_4xx_page_not_a_500():
    r = CLIENT.get("/estimate", params={"model": "llama-2-7b", "gpu": "a10", "seq": "abc"})
    assert r.status_code == 400 and "seq" in r.text
    r = CLIENT.post("/plan", data={"model": "llama-2-7b", "task": "finetune", "tokens": "20M", "max_gpus": "inf"})
    assert r.status_code == 400 and "max-gpus" in r.text


def test_unmet_requirements_are_422_or_an_empty_choice():
    r = CLIENT.post(
        "/api/plan",
        json={
            "workload": {"model": "llama-2-70b", "task": "pretrain", "tokens": 2e12},
            "requirements": {"deadline": "1h", "max_gpus": 8},
        },
    )
    assert r.status_code == 200 and r.json()["chosen"] is None


def test_pages_render():
    for path in (
        "/",
        "/gpus?sort=bf16&desc=true",
        "/estimate",
        "/estimate?model=llama-2-7b&gpu=a10&method=qlora",
        "/matrix",
        "/fleet",
        "/openapi.json",
        "/static/style.css",
        "/static/app.js",
    ):
        r = CLIENT.get(path)
        assert r.status_code == 200, path
    page = CLIENT.post(
        "/plan",
        data={
            "model": "mistral-7b-v0.1",
            "task": "inference",
            "input_tokens": "512",
            "output_tokens": "128",
            "concurrency": "16",
            "qps": "5",
            "percentile": "99",
            "target_ms": "4000",
        },
    )
    assert page.status_code == 200 and "Chosen" in page.text and "<svg" in page.text
    assert not re.search(r"""(src|href)=["']https?://""", page.text)  # nothing fetched from the network


def test_report_downloads():
    fields = {"model": "llama-2-7b", "task": "finetune", "method": "qlora", "tokens": "20M", "deadline": "24h"}
    html = CLIENT.post("/plan/report", data={**fields, "fmt": "html"})
    assert html.status_code == 200 and "<svg" in html.text and "attachment" in html.headers["content-disposition"]
    md = CLIENT.post("/plan/report", data={**fields, "fmt": "md"})
    assert md.status_code == 200 and "## Chosen plan" in md.text and "data:image/svg+xml;base64," in md.text


def test_uploaded_config_json():

    cfg = (HF_CONFIGS / "gpt2.json").read_bytes()
    r = CLIENT.post(
        "/plan",
        data={"task": "finetune", "method": "full", "tokens": "10M", "deadline": "24h"},
        files={"config": ("config.json", cfg, "application/json")},
    )
    assert r.status_code == 200 and "Chosen" in r.text
    bad = CLIENT.post(
        "/plan", data={"task": "finetune"}, files={"config": ("config.json", b"{not json", "application/json")}
    )
    assert bad.status_code == 400 and "not valid JSON" in bad.text


schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.config import PositiveDataAcceptanceConfig  # noqa: E402

from gpuwise.web.security import WebSettings  # noqa: E402

# schemathesis' ASGI client says "Host: testserver"; the app under fuzz answers to that name too
FUZZ_APP = create_app(WebSettings(allowed_hosts=frozenset({"testserver", "localhost", "127.0.0.1"})))
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", FUZZ_APP)
# the schema says what is refused (catalog ids as enums, formats as patterns, bounds): a request it
# allows is never a 400; values that break a rule together (a layout that cannot exist, options of
# the other task), or requirements nothing meets, are 422, as the schema documents
SCHEMA.config.checks.positive_data_acceptance = PositiveDataAcceptanceConfig(expected_statuses=["2xx", "422"])


@SCHEMA.parametrize()
@settings(
    max_examples=int(os.environ.get("GPUWISE_FUZZ_EXAMPLES", "15")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_fuzz_all_checks(case):
    """Generated inputs for every endpoint under every schemathesis check: never a 500, every
    status and body as the schema documents it, bad data rejected and good data not refused."""
    case.call_and_validate()


def test_the_schema_says_what_the_catalog_refuses():
    """The ids and formats gpuwise checks are in the schema (so schemathesis' valid data never hits
    a 400): each enum is the catalog's, a GPU spec is an id with an optional count, a size is
    what the size parser reads; the server still answers a value outside them with 400 or 422."""
    import re

    from gpuwise.catalog import load_catalog

    cat = load_catalog()
    spec = CLIENT.get("/openapi.json").json()
    body = spec["components"]["schemas"]
    model = body["WorkloadIn"]["properties"]["model"]["anyOf"][0]
    assert model["enum"] == sorted(cat.models)
    assert body["RequirementsIn"]["properties"]["gpus"]["anyOf"][0]["items"]["enum"] == sorted(cat.gpus)
    gpu = body["EstimateIn"]["properties"]["gpu"]["pattern"]
    assert all(re.search(gpu, s) for s in ("h100-sxm", "h100-sxm:8", "a10:"))
    assert not any(re.search(gpu, s) for s in ("h100-sxmx", "h100", "x:8", "h100-sxm:-1", "a10:1:2"))
    params = {p["name"]: p["schema"] for p in spec["paths"]["/api/gpus"]["get"]["parameters"]}
    size = params["min_memory"]["anyOf"][0]["pattern"]
    assert all(re.search(size, s) for s in ("80GB", "24 GiB", "1e3MiB", "40"))
    assert not any(re.search(size, s) for s in ("eighty", "80 GB!", "-1GB"))
    assert CLIENT.get("/api/gpus", params={"sort": "colour"}).status_code == 422  # outside the enum: refused
    unknown = CLIENT.post("/api/estimate", json={"workload": {"model": "llama-2-7"}, "gpu": "a10"})
    assert unknown.status_code == 400 and "did you mean 'llama-2-7b'" in unknown.json()["detail"]
    mixed = {"workload": {"model": "llama-2-7b", "task": "inference", "seq": 512}, "gpu": "a10"}
    conflict = CLIENT.post("/api/estimate", json=mixed)  # each value valid, together not: 422
    assert conflict.status_code == 422 and "--seq is the training sequence length" in conflict.json()["detail"]


def test_matrix_page_and_api_read_the_store(tmp_path, monkeypatch):
    from tests.test_matrix import _fill

    db = f"sqlite:///{tmp_path / 'w.db'}"
    _fill(db)
    monkeypatch.setenv("GPUWISE_DB", db)
    d = CLIENT.get("/api/matrix").json()
    assert d["rows"]["h100-sxm"]["matmul"]["ratio"] > 0
    page = CLIENT.get("/matrix").text
    assert 'id="matrix"' in page and 'id="chart-matrix"' in page


def test_fleet_page_after_a_scan_of_a_recorded_host(tmp_path, monkeypatch):
    from pathlib import Path

    from gpuwise.hw import ReplaySource
    from gpuwise.ops.fleet import scan
    from gpuwise.store import open_store

    db = f"sqlite:///{tmp_path / 'f.db'}"
    host = Path(__file__).resolve().parent.parent / "examples" / "hosts" / "faulty-8x-a100.json"
    with open_store(db) as s:
        scan(s, ReplaySource(host))
    monkeypatch.setenv("GPUWISE_DB", db)
    d = CLIENT.get("/api/fleet").json()
    assert len(d["cards"]) == 8 and len(d["inspections"]) == 8
    page = CLIENT.get("/fleet").text
    assert 'id="cards"' in page and d["cards"][0]["uuid"] in page


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_api_pages_load_nothing_from_the_network(path):
    """Swagger UI and ReDoc come from the package's files: the API page works offline."""
    html = CLIENT.get(path)
    assert html.status_code == 200
    assets = re.findall(r"""<(?:script|link)\b[^>]*?(?:src|href)=["']([^"']+)["']""", html.text)
    assert assets and not [a for a in assets if "//" in a], assets  # no http://, https:// or //host
    assert not re.search(r"https?://", re.sub(r"window\.location\.origin", "", html.text))
    for url in assets:
        r = CLIENT.get(url)
        # the bundles are large; the page's own starter script and stylesheet are small
        assert r.status_code == 200 and len(r.content) > (1000 if url.startswith("/static/docs/") else 50), url
    spec = re.search(r"""(?:data-openapi=|spec-url=)["']([^"']+)["']""", html.text)
    assert spec and CLIENT.get(spec.group(1)).json()["info"]["title"] == "gpuwise"


def test_numbers_are_written_as_the_cli_writes_them():
    from gpuwise.web.format import FILTERS

    assert FILTERS["num"](1234567.4) == "1,234,567"
    assert FILTERS["num"](None) == "—"
    assert FILTERS["flops"](0) == "—" and FILTERS["flops"](None) == "—"
    assert FILTERS["flops"](312e12) == "312.0 TFLOP/s"
    assert FILTERS["gib"](80 * 2**30, 0) == "80 GiB"
    assert FILTERS["seconds"](0.4672) == "467.2 ms"
    assert FILTERS["usd"](5.1207) == "$5.12" and FILTERS["usd"](12345.6) == "$12,346"
    assert FILTERS["measure"](2.039e12, "bytes/s") == "2.04 TB/s"
    # the A100 80GB row (catalog: 80 GiB, 2039 GB/s, 312 TFLOP/s bf16, no fp8 unit, $10,000 list, and the
    # cheapest usable on-demand offer's $/GPU-h, as `gpuwise prices --cheapest` and a plan price it)
    from gpuwise.api import price_rows

    cloud = price_rows()[1]["a100-80gb-sxm"]["usd_per_gpu_hour"]
    page = CLIENT.get("/gpus").text
    row = re.search(r"<tr><td>a100-80gb-sxm</td>.*?</tr>", page, re.S)
    assert row
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(0), re.S)]
    assert cells[2:] == ["80 GiB", "HBM2e", "2.04 TB/s", "312.0 TFLOP/s", "—", "400 W", "7", "$10,000", f"${cloud:.2f}"]


def test_the_estimate_page_states_the_run_cost_the_cli_states():
    """The page's run cost is the expected one (start-up and failures counted), as `gpuwise estimate`
    and a plan print it, at the pricing asked; the expected run is shown with its band."""
    q = {"model": "llama-2-7b", "task": "finetune", "method": "qlora", "tokens": "50M", "gpu": "a10"}
    page = CLIENT.get("/estimate", params=q).text
    cost = re.search(r'<p id="cost">(.*?)</p>', page, re.S).group(1)
    est = CLIENT.post(
        "/api/estimate", json={"workload": {k: v for k, v in q.items() if k != "gpu"}, "gpu": "a10"}
    ).json()
    assert est["cost"]["expected_total_usd"] > est["cost"]["total_usd"]
    assert f"${est['cost']['expected_total_usd']:,.2f} for the run" in cost and "/hour on demand" in cost
    expected = re.search(r'<p id="expected">(.*?)</p>', page, re.S).group(1)
    assert "Expected with what the run loses" in expected and "80%" in expected
