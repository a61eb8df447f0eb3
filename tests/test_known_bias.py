"""A known bias named beside the figures it touches: a class whose published cases lie on one side of
its estimates (its flag) by a material median carries the words into the band, the JSON, the terminal
of `estimate` and `plan`, and the plan's report; a small or absent one stays in the basis only."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from gpuwise.catalog.schema import UncertaintyTable, validate
from gpuwise.cli.app import app
from gpuwise.estimate.bands import ANY, KNOWN_BIAS_MIN, LEVELS, Band, ClassKey, KnownBias, band_for, known_biases
from gpuwise.i18n import bias_text

FLAG = "biased: 11 of 11 cases measured slower than estimated (median -19%); the cause is not corrected in the model"
SMALL = "biased: 4 of 4 cases measured smaller than estimated (median -0%); the cause is not corrected in the model"


def _bands(low: float, high: float) -> dict[str, list[float]]:
    return {f"{lv:g}": [low, high] for lv in LEVELS}


def _table() -> UncertaintyTable:
    plain = {"sources": 4, "families": 4, "out_of_sample": 4, "bands": _bands(0.7, 1.2)}
    return validate(
        UncertaintyTable,
        {
            "levels": list(LEVELS),
            "min_families": {f"{lv:g}": 4 for lv in LEVELS},
            "classes": {
                "decode/llm/amd/vllm/*": {"cases": 11, **plain, "bias": -0.19, "flag": FLAG, "biased_cases": 11},
                "memory/llm/amd/vllm/*": {"cases": 4, **plain, "bias": -0.004, "flag": SMALL, "biased_cases": 4},
                "prefill/llm/amd/vllm/*": {"cases": 9, **plain, "bias": -0.3},  # not flagged: no known bias
            },
            "widest": {"decode": _bands(0.6, 1.4), "memory": _bands(0.6, 1.4), "prefill": _bands(0.6, 1.4)},
        },
    )


def test_a_flagged_class_with_a_material_median_names_its_bias_with_its_class():
    b = band_for(_table(), ClassKey("decode", "llm", "amd", "vllm", "cdna3"), 0.8)
    assert b.bias == KnownBias(ClassKey("decode", "llm", "amd", "vllm", ANY), 11, 11, -0.19)
    assert b.bias.text() == (
        "decode rate of LLMs (decoders) on AMD under vllm: 11 of 11 cases measured slower than estimated "
        "(median -19%), not corrected in the model"
    )
    assert b.bias.word == "slower"
    assert b.inverted().bias == b.bias  # the time per token carries its rate's bias
    assert b.around(100.0)["bias"] == b.bias.text()
    assert bias_text(b.bias, "en") == b.bias.text()
    assert bias_text(b.bias, "zh") == (
        "AMD 上 vllm 的大语言模型（解码器）解码速率：11 个已发表案例中有 11 个实测慢于估计（中位数 -19%），模型尚未校正"
    )


def test_a_small_median_or_no_flag_stays_in_the_basis():
    assert abs(-0.004) < KNOWN_BIAS_MIN
    memory = band_for(_table(), ClassKey("memory", "llm", "amd", "vllm", "cdna3"), 0.8)
    assert memory.bias is None and "median -0%" in memory.basis and "bias" not in memory.around(1.0)
    assert band_for(_table(), ClassKey("prefill", "llm", "amd", "vllm", "cdna3"), 0.8).bias is None


def test_each_known_bias_is_said_once():
    one = KnownBias(ClassKey("decode"), 3, 3, -0.2)
    two = KnownBias(ClassKey("memory"), 4, 5, 0.12)
    bands = [Band(0.7, 1.2, 0.8, 11, "", one), Band(0.9, 1.1, 0.8, 3, ""), Band(0.5, 2, 0.8, 1, "", two)]
    assert known_biases([*bands, bands[0].inverted()]) == [one, two]
    assert (one.word, two.word) == ("slower", "larger")


SERVE = ["--model", "llama-3.1-8b", "--task", "inference", "--concurrency", "32"]


def test_an_estimate_names_the_bias_of_its_gpu_and_engine_and_not_of_others():
    """vLLM on Hopper ran below the estimate on every published row (the catalog's flag): the JSON
    carries it on the decode figures and the terminal says it; the same model on an L4 (no flagged
    class) says nothing of it."""
    h100 = CliRunner().invoke(app, ["estimate", *SERVE, "--gpu", "h100-sxm", "--json"])
    u = json.loads(h100.output)["uncertainty"]
    said = u["inference.tokens_per_second"]["bias"]
    assert said.startswith("decode rate of LLMs (decoders) on Nvidia") and "measured slower than estimated" in said
    assert u["inference.decode_seconds_per_token"]["bias"] == said
    assert "bias" not in u["memory.per_gpu.total"]
    out = CliRunner().invoke(app, ["estimate", *SERVE, "--gpu", "h100-sxm"]).output
    assert out.count("Known bias: ") == 1 and "plan on the band's pessimistic end" in out
    l4 = CliRunner().invoke(app, ["estimate", *SERVE, "--gpu", "l4", "--json"])
    assert not any("bias" in b for b in json.loads(l4.output)["uncertainty"].values())
    assert "Known bias" not in CliRunner().invoke(app, ["estimate", *SERVE, "--gpu", "l4"]).output


PLAN = ["plan", "--model", "llama-3.1-8b", "--task", "inference", "--qps", "50", "--ttft-ms", "500", "--tpot-ms", "50"]


def test_a_plan_names_the_known_bias_of_its_chosen_row_in_the_terminal_and_the_report(tmp_path):
    result = CliRunner().invoke(app, [*PLAN, "--gpus", "h100-sxm"])
    assert result.exit_code == 0, result.output
    assert "Chosen: " in result.output and "Known bias: decode rate of LLMs (decoders) on Nvidia" in result.output
    report = tmp_path / "plan.md"
    assert CliRunner().invoke(app, [*PLAN, "--gpus", "h100-sxm", "--report", str(report)]).exit_code == 0
    text = report.read_text(encoding="utf-8")
    assert "known bias" in text and "measured slower than estimated" in text
    zh = CliRunner().invoke(app, [*PLAN, "--gpus", "h100-sxm", "--lang", "zh"]).output
    assert "已知偏差：Nvidia hopper 上 vllm 的大语言模型（解码器）解码速率：18 个已发表案例中有 18 个实测慢于估计" in zh


def test_the_estimate_page_names_the_known_bias_as_the_terminal_does():
    from fastapi.testclient import TestClient

    from gpuwise.web.app import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    q = {"model": "llama-3.1-8b", "task": "inference", "concurrency": "32"}
    page = client.get("/estimate", params={**q, "gpu": "h100-sxm"}).text
    said = re.findall(r'<p class="known-bias" id="known-bias-\d+">(.*?)</p>', page, re.S)
    assert len(said) == 1 and said[0].startswith("Known bias: decode rate of LLMs (decoders) on Nvidia")
    assert 'class="known-bias"' not in client.get("/estimate", params={**q, "gpu": "l4"}).text


def test_the_plan_page_names_the_chosen_rows_known_bias():
    from fastapi.testclient import TestClient

    from gpuwise.web.app import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    form = {
        "model": "llama-3.1-8b",
        "task": "inference",
        "qps": "50",
        "ttft_ms": "500",
        "tpot_ms": "50",
        "gpus": "h100-sxm",
    }
    page = client.post("/plan", data=form).text
    said = re.findall(r'<p class="known-bias" id="known-bias-\d+">(.*?)</p>', page, re.S)
    assert said and said[0].startswith("Known bias: decode rate of LLMs (decoders) on Nvidia"), page[-3000:]


def test_every_flag_in_the_catalog_says_the_side_it_stores():
    """scripts/fit_bands.py writes a biased class's flag (words, for the basis) and how many of its cases lie
    on that side (for KnownBias): the two agree, and the word is bias_word's."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.bands import bias_word

    table = load_catalog().uncertainty
    assert table is not None
    flagged = {k: c for k, c in table.classes.items() if c.flag}
    assert flagged and all(c.biased_cases for c in flagged.values())
    assert not any(c.biased_cases for c in table.classes.values() if not c.flag)
    for key, c in flagged.items():
        said = f"{c.biased_cases} of {c.cases} cases measured {bias_word(ClassKey.parse(key).figure, c.bias)} than"
        assert said in c.flag, (key, c.flag)
