"""The Chinese report rendered in real headless Chromium (Debian's chromium, Playwright) with Debian's
fonts-noto-cjk: `gpuwise plan ... --report plan.html --lang zh`. The screenshot goes to artifacts/."""

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import chromium

playwright = pytest.importorskip("playwright.sync_api")
CHROMIUM = chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary")
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"


def _cjk_font() -> str:
    """The font fontconfig gives Chromium for Simplified Chinese (fonts-noto-cjk: Noto Sans CJK SC)."""
    out = subprocess.run(["fc-match", "-f", "%{family}", ":lang=zh-cn"], capture_output=True, text=True)
    return out.stdout


def test_chinese_report_renders_in_chromium_with_a_cjk_font(tmp_path):
    assert "Noto Sans CJK" in _cjk_font() or "Noto Sans SC" in _cjk_font(), "install fonts-noto-cjk"
    report = tmp_path / "plan.html"
    example = str(ROOT / "examples/train-13b-multi-gpu-plan.yaml")
    proc = subprocess.run(
        [sys.executable, "-m", "gpuwise.cli.app", "plan", "-f", example, "--report", str(report), "--lang", "zh"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "推荐方案" in proc.stdout  # the CLI summary speaks the same language
    ARTIFACTS.mkdir(exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1100, "height": 1400})
        page.goto(report.as_uri())
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        h1 = page.locator("h1").inner_text()
        assert h1.startswith("GPU 资源申请")
        headings = page.locator("h2").all_inner_texts()
        assert "推荐方案" in headings and "备选方案" in headings and "可用性" in headings
        # CJK glyphs take their full width: four characters at least four times a Latin 'i'
        widths = page.evaluate(
            """() => { const s = document.createElement('span'); document.body.appendChild(s);
            s.textContent = '推荐方案'; const cjk = s.getBoundingClientRect().width;
            s.textContent = 'iiii'; const latin = s.getBoundingClientRect().width; s.remove(); return [cjk, latin]; }"""
        )
        assert widths[0] > 2 * widths[1] > 0
        page.screenshot(path=str(ARTIFACTS / "plan-report-zh.png"), full_page=True)
        browser.close()
    assert (ARTIFACTS / "plan-report-zh.png").stat().st_size > 10_000
