"""Reports: Markdown with SVG charts beside it, one self-contained HTML file; and the CLI."""

import json
import re
import subprocess
import sys
from pathlib import Path

from corpus import HF_CONFIGS
from gpuwise.api import make_plan
from gpuwise.i18n import fmt_duration
from gpuwise.report import write_report

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _plan():
    return make_plan(
        {"model": "llama-2-7b", "tokens": "50M", "micro_batch": 4},
        {"deadline": "24h", "methods": "full,lora,qlora", "growth_data": 2},
    )


def test_markdown_report_with_chart_files(tmp_path):
    out = tmp_path / "plan.md"
    written = write_report(_plan(), out)
    text = out.read_text()
    for section in (
        "Workload and requirements",
        "Chosen plan",
        "Alternatives",
        "Memory breakdown",
        "Cost comparison",
        "Risks",
        "Assumptions and sources",
    ):
        assert f"## {section}" in text
    charts = re.findall(r"!\[[^\]]*\]\(([^)]+\.svg)\)", text)
    assert charts and all((tmp_path / c).exists() for c in charts)
    assert all(p.exists() for p in written)
    assert "<svg" in (tmp_path / charts[0]).read_text()


def test_html_report_is_self_contained(tmp_path):
    out = tmp_path / "plan.html"
    write_report(_plan(), out)
    html = out.read_text()
    assert html.count("<svg") >= 2 and "<rect" in html
    assert not re.search(r"""(src|href)=["']https?://""", html)  # nothing fetched from the network
    assert "<script" not in html
    assert "Chosen plan" in html and "Risks" in html


def test_every_example_plans_from_the_cli(tmp_path):
    for f in sorted(EXAMPLES.glob("*.yaml")):
        text = f.read_text()
        if "team:" in text or text.startswith("offers:") or "\noffers:" in text:
            continue  # a pool file (gpuwise deploy) or a prices file (--prices), not a plan
        proc = subprocess.run(
            [sys.executable, "-m", "gpuwise.cli.app", "plan", "-f", str(f), "--json"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert "Traceback" not in proc.stderr, f.name
        assert proc.returncode in (0, 1), (f.name, proc.stderr)
        d = json.loads(proc.stdout)
        assert d["candidates"] or d["rejected"], f.name


def test_plan_table_and_report_from_the_cli(tmp_path):
    out = tmp_path / "r.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuwise.cli.app",
            "plan",
            "-f",
            str(EXAMPLES / "finetune-7b-methods.yaml"),
            "--report",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Chosen:" in proc.stdout and out.exists()


def test_tco_cli(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuwise.cli.app",
            "tco",
            "--gpu",
            "h100-sxm:8",
            "--gpu",
            "a100-80gb-sxm:8",
            "--years",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert len(d["configurations"]) == 2 and d["configurations"][0]["owned"]["capex_usd"] > 0
    proc = subprocess.run(
        [sys.executable, "-m", "gpuwise.cli.app", "tco", "--gpu", "h100-sxm:8"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "Buy vs rent" in proc.stdout


def _hostile_plan(name_or_path: str):
    """A plan of GPT-2 under a hostile name, named as the importer names an uploaded config."""
    from gpuwise.catalog.hf_import import _model_name, arch_from_hf_config

    cfg = json.loads((HF_CONFIGS / "gpt2.json").read_text())
    cfg["_name_or_path"] = name_or_path
    arch = arch_from_hf_config(cfg, name=_model_name(cfg, Path("uploaded.json")))
    return make_plan({"model": arch, "task": "finetune", "method": "full", "tokens": "10M"}, {"deadline": "24h"})


def test_a_model_name_never_becomes_html_or_markdown_in_a_report():
    from gpuwise.report import render_html, render_markdown

    # `<script>alert(1)</script>` is named after its last path part, `script>`; an <img> has no "/"
    for given, name, shown in (
        ("<script>alert(1)</script>", "script>", "script&gt;"),
        ("<img src=x onerror=alert(1)>", "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ):
        result = _hostile_plan(given)
        assert result.workload.model.name == name
        md = render_markdown(result, {})
        assert f"# GPU plan: {shown}" in md
        assert "<img" not in md and "<script" not in md and "script>" not in md
        html = render_html(result)
        assert f"<h1>GPU plan: {shown}</h1>" in html
        assert "<img" not in html and "<script" not in html


def test_markdown_text_escapes_html_and_markdown_controls():
    from gpuwise.report.document import md_text

    assert md_text("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"
    assert md_text("a|b") == "a\\|b"  # a table cell stays one cell
    assert md_text("[click](javascript:alert(1))") == "\\[click\\](javascript:alert(1))"  # no link
    assert md_text("*x* _y_ `z` # w") == "\\*x\\* \\_y\\_ \\`z\\` \\# w"
    assert md_text("- a") == "\\- a" and md_text("1. a") == "1\\. a" and md_text("3 - a") == "3 - a"
    assert md_text("line\nbreak") == "line break"  # no new block from inside a cell


def test_the_requirements_table_lists_ttft_and_tpot_targets():
    """A TTFT or TPOT target is a stated requirement: the report lists it as it lists an end-to-end one."""
    from gpuwise.report.document import _requirements_table

    work = {"model": "llama-2-7b", "task": "inference", "input_tokens": 512, "output_tokens": 128}
    rows = dict(_requirements_table(make_plan(work, {"qps": 2, "ttft_ms": 800, "tpot_ms": 90, "gpus": "a10g,l4"})))
    assert rows["P99 TTFT"] == "≤ 800 ms" and rows["P99 TPOT"] == "≤ 90 ms"


def test_the_memory_chart_marks_each_gpu_types_own_capacity():
    """The chart's bars are GPUs of different sizes (mi300x 192 GiB, rtx-3090 24 GiB, ...): each bar
    gets its own capacity mark and figure, not one line at the first GPU's capacity."""
    from gpuwise.report.document import charts
    from gpuwise.units import GiB

    result = _plan()
    shown = result.candidates[:6]
    caps = {c.est.memory.capacity / GiB for c in shown}
    assert len(caps) > 1, "the plan's top candidates are on GPUs of one size"
    svg = charts(result)["memory"]
    marks = re.findall(r'<line x1="([\d.]+)"[^>]*stroke="#c53030"', svg)
    assert len(marks) == len(shown) and len(set(marks)) == len(caps)
    for cap in caps:
        assert f"(capacity {cap:.1f} GiB)" in svg


def test_one_capacity_is_one_line_across_the_bars():
    from gpuwise.report.svg import stacked

    rows = [("a", {"weights": 10.0}), ("b", {"weights": 20.0})]
    svg = stacked(rows, ["weights"], "t", lambda v: f"{v:.1f} GiB", limit=[24.0, 24.0])
    assert svg == stacked(rows, ["weights"], "t", lambda v: f"{v:.1f} GiB", limit=24.0)
    assert len(re.findall(r"<line ", svg)) == 1 and "capacity 24.0 GiB" in svg


def test_the_chosen_plan_shows_ttft_and_tpot_beside_their_targets():
    """A TTFT/TPOT plan's report shows the simulated TTFT and TPOT with the targets, not end-to-end
    latency alone (which no target of this plan bounds)."""
    from gpuwise.report.document import _chosen_section

    work = {"model": "llama-2-7b", "task": "inference", "input_tokens": 512, "output_tokens": 128}
    result = make_plan(work, {"qps": 2, "ttft_ms": 800, "tpot_ms": 90, "gpus": "a10g,l4"})
    sim = result.chosen.serving.simulated
    rows = dict(_chosen_section(result.chosen).table)
    assert rows["TTFT"].endswith("(target P99 ≤ 800 ms)") and rows["TPOT"].endswith("(target P99 ≤ 90 ms)")
    assert f"P99 {fmt_duration(sim.percentiles['ttft']['p99'])}" in rows["TTFT"]
    assert f"P99 {fmt_duration(sim.percentiles['tpot']['p99'])}" in rows["TPOT"]
    assert "target" not in rows["end-to-end"]  # shown, but no target of this plan bounds it
    zh = dict(_chosen_section(result.chosen, "zh").table)
    assert zh["TTFT"].endswith("（目标 P99 ≤ 800 ms）")


def _hours(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def test_every_headline_figure_of_the_chosen_plan_shows_its_range(tmp_path):
    """The rate, the step, the whole run and its GPU-hours each with the 80 % band around it, in the
    terminal's bullet and in every report (Markdown, HTML, Chinese)."""
    from gpuwise.i18n import reason_text
    from gpuwise.report.document import _chosen_section

    result = _plan()
    est = result.chosen.est
    bands, figures = est.bands(), est.figures()

    def around(path, fmt):
        b, v = bands[path], figures[path]
        return f"({b.level:.0%}: {fmt(v * b.low)}–{fmt(v * b.high)})"

    hours = around("training.gpu_hours", _hours)
    rate = f"{around('training.tokens_per_second', lambda x: f'{x:,.0f}')} tokens/s"
    section = _chosen_section(result.chosen)
    rows = dict(section.table)
    assert rows["whole run"].endswith(f"GPU-hours {hours}")
    assert any(p.startswith(f"{figures['training.tokens_per_second']:,.0f} {rate}, MFU") for p in section.paragraphs)
    assert any(rate in reason_text(r) for r in result.chosen.why)  # the terminal prints these
    zh = dict(_chosen_section(result.chosen, "zh").table)
    assert zh["整次训练"].endswith(f"GPU 小时 {hours}")
    for name in ("plan.md", "plan.html"):
        write_report(result, tmp_path / name)
        text = (tmp_path / name).read_text()
        assert f"GPU-hours {hours}" in text and rate in text, name
