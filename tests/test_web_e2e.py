"""End to end in real headless Chromium (Debian's chromium, driven by Playwright): the planner form,
a rendered chart, and an answer that changes when a requirement changes. Screenshots go to
artifacts/ (ignored by git)."""

import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .conftest import chromium, free_port

pytest.importorskip("fastapi")
playwright = pytest.importorskip("playwright.sync_api")
CHROMIUM = chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


@pytest.fixture(scope="module")
def server():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpuwise.cli.app", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/gpus", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the server did not start")
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def page():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        yield pg
        browser.close()


def test_plan_form_chart_and_changing_a_requirement(server, page):
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(server + "/")
    page.select_option("#model", "llama-2-7b")
    page.select_option("#task", "finetune")
    page.select_option("#method", "qlora")
    page.fill("#tokens", "20M")
    page.fill("#deadline", "24h")
    page.select_option("#pricing", "on-demand")
    page.click("#submit")
    page.wait_for_selector("#chosen")
    rented = page.inner_text("#chosen")
    assert "x " in rented
    assert page.locator("#chart-memory svg rect").count() > 0  # the chart really rendered
    assert page.locator("#chart-memory svg").bounding_box()["width"] > 100
    page.screenshot(path=str(ARTIFACTS / "plan-on-demand.png"), full_page=True)
    # a deadline the cheapest card cannot meet (about 4 h of work on an RTX 3090): the answer changes
    page.fill("#deadline", "1h")
    page.click("#submit")
    page.wait_for_selector("#chosen")
    faster = page.inner_text("#chosen")
    assert faster != rented
    page.screenshot(path=str(ARTIFACTS / "plan-1h.png"), full_page=True)


def _fill_serving(page):
    """The serving fields both forms share: 512 in, 128 out, 16 at once, 5 QPS with P99 under 4 s."""
    page.fill("#input_tokens", "512")
    page.fill("#output_tokens", "128")
    page.fill("#concurrency", "16")
    page.fill("#qps", "5")
    page.select_option("#percentile", "99")
    page.fill("#target_ms", "4000")


def test_task_switch_shows_serving_fields_and_plans_a_service(server, page):
    page.goto(server + "/")
    page.select_option("#task", "inference")
    assert page.is_visible("#input_tokens") and not page.is_visible("#tokens")
    page.select_option("#model", "mistral-7b-v0.1")
    _fill_serving(page)
    assert not page.is_visible("#deadline")  # training-only: hidden, disabled, never sent
    page.click("#submit")
    page.wait_for_selector("#candidates")
    assert "replica" in page.inner_text("#why")


def test_estimate_page_estimates_a_serving_workload(server, page):
    page.goto(server + "/estimate")
    # on load the GPU type shown is the one the GPU spec (what is estimated) names
    assert page.input_value("#gpu_id") == page.input_value("#gpu").split(":")[0]
    page.select_option("#task", "inference")
    assert page.is_visible("#concurrency") and not page.is_visible("#method") and not page.is_visible("#tokens")
    page.select_option("#model", "mistral-7b-v0.1")
    page.select_option("#gpu_id", "a100-80gb-sxm")
    assert page.input_value("#gpu") == "a100-80gb-sxm"
    _fill_serving(page)
    page.click("#submit")
    page.wait_for_selector("#serving")
    url = page.url
    assert "method=" not in url and "task=inference" in url  # the training method is not sent
    assert "on 1 × a100-80gb-sxm" in page.inner_text("#verdict")
    serving = page.inner_text("#serving")
    assert "TTFT" in serving and "output tokens/s" in serving
    replicas = page.inner_text("#replicas")
    assert "5 QPS at P99" in replicas and "replica(s)" in replicas
    # the form shows what was estimated: the serving fields kept, the GPU type still the one used
    assert page.input_value("#input_tokens") == "512" and page.input_value("#gpu_id") == "a100-80gb-sxm"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "estimate-serving.png"), full_page=True)


def test_api_page_renders_offline(server, page):
    """Swagger UI from the package's files: the API page is not blank without a network."""
    page.goto(server + "/docs")
    page.wait_for_selector(".swagger-ui .info .title", timeout=15000)
    assert "gpuwise" in page.inner_text(".swagger-ui .info .title")
    assert page.locator(".opblock-summary-path", has_text="/api/estimate").count() == 1
    page.goto(server + "/redoc")
    page.wait_for_selector("redoc h1, [role=navigation]", timeout=15000)


def test_gpu_catalog_page_sorts(server, page):
    page.goto(server + "/gpus?sort=memory&desc=true")
    first = page.locator("#gpus tr").nth(1).inner_text()
    from gpuwise.catalog import load_catalog

    largest = max(load_catalog().gpus.values(), key=lambda g: g.memory_bytes)
    assert first.startswith(largest.id)  # b300 (288 GiB) since the market's GPUs joined the catalog


@pytest.mark.parametrize("path", ["/", "/estimate?model=llama-2-7b&gpu=a10&method=qlora", "/gpus", "/docs", "/redoc"])
def test_pages_work_under_the_content_security_policy(server, page, path):
    """The server's CSP allows only its own scripts (and, on the pages, its own styles): a page
    that still worked only with an inline script or style would log a violation here. ReDoc's
    footer asks for its logo from cdn.redoc.ly: that load is blocked, as the policy intends."""
    violations: list[str] = []

    def on_console(message):
        if "Content Security Policy" in message.text and not re.search(r"Loading the image 'https://", message.text):
            violations.append(message.text)

    page.on("console", on_console)
    try:
        response = page.goto(server + path)
        assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
        if path == "/docs":
            page.wait_for_selector(".swagger-ui .info .title", timeout=15000)
            assert page.locator(".opblock-summary-path", has_text="/api/plan").count() == 1
        elif path == "/redoc":
            page.wait_for_selector("redoc h1, [role=navigation]", timeout=15000)
        else:
            page.wait_for_load_state("load")
        page.wait_for_timeout(300)  # violations from styles a script adds late are logged too
    finally:
        page.remove_listener("console", on_console)
    assert not violations, violations
