"""The one message catalog: every key in every language with the same placeholders, every key the
code asks for exists, and numbers follow the locale (hand-checked values)."""

import json
import re
import shlex
import string
from pathlib import Path
from typing import Any

import pytest

from gpuwise.i18n import LANGS, MESSAGES, check_lang, fmt_count_l, fmt_duration, fmt_money, msg, unit_label
from gpuwise.i18n.reasons import FORMATS
from gpuwise.plan.explain import rate_unit
from gpuwise.plan.results import Code

SRC = Path(__file__).resolve().parent.parent / "src" / "gpuwise"


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_message_has_every_language_with_the_same_placeholders(key):
    entry = MESSAGES[key]
    assert set(entry) == set(LANGS), key
    assert all(entry[lang].strip() for lang in LANGS), key
    assert len({frozenset(_fields(entry[lang])) for lang in LANGS}) == 1, key


def test_every_key_the_code_asks_for_is_in_the_catalog():
    used = set()
    for path in SRC.rglob("*.py"):
        used |= set(re.findall(r"""\bmsg\(\s*["']([a-z_]+)["']""", path.read_text(encoding="utf-8")))
    assert used, "the summary and report take their words from the catalog"
    assert used <= set(MESSAGES), sorted(used - set(MESSAGES))


def test_the_chinese_text_is_chinese():
    cjk = re.compile(r"[\u4e00-\u9fff]")
    prose = {k: re.sub(r"\{[^}]*\}", "", v["en"]) for k, v in MESSAGES.items()}  # words, not placeholders
    words = [k for k, v in prose.items() if re.search(r"[a-z]{4,}", v) and not k.startswith("unit_")]
    untranslated = [k for k in words if not cjk.search(MESSAGES[k]["zh"]) and MESSAGES[k]["zh"] == MESSAGES[k]["en"]]
    assert not untranslated, untranslated


def test_numbers_and_units_follow_the_locale():
    assert fmt_count_l(1_234_567, "en") == "1,234,567"
    assert fmt_count_l(123_456, "zh") == "12.3万"  # 123,456 / 10^4
    assert fmt_count_l(250_000_000, "zh") == "2.5亿"  # / 10^8
    assert fmt_money(3344.8, "en") == "$3,345" and fmt_money(3344.8, "zh") == "3,345 美元"
    assert fmt_money(0.884, "en") == "$0.88"
    assert fmt_duration(2.3 * 86400, "zh") == "2.3 天" and fmt_duration(27.7 * 3600, "en") == "27.7 h"
    assert unit_label(rate_unit("generic", "vision")[1], "en") == "images/s"
    assert unit_label(rate_unit("generic", "recommender")[1], "en") == "samples/s"
    assert rate_unit("transformer", None) == ("tokens_per_second", "tokens")
    assert unit_label("tokens", "zh") == "tokens/秒"
    assert msg("misses", "zh", what="deadline") == "未满足 deadline"


@pytest.mark.parametrize("code", list(Code))
def test_every_reason_code_has_a_sentence_whose_placeholders_are_its_parameters(code):
    """The core names a code; the edge has its sentence in every language, and formats only parameters
    that the sentence shows."""
    assert code.value in MESSAGES and code.value in FORMATS, code
    assert set(FORMATS[code.value]) <= _fields(MESSAGES[code.value]["en"]), code


def test_every_sentence_of_a_reason_belongs_to_a_code():
    codes = {c.value for c in Code}
    assert set(FORMATS) == codes
    grouped = {k.removeprefix("ruled.") for k in MESSAGES if k.startswith("ruled.")}
    assert grouped <= codes, grouped - codes
    assert {k for k in MESSAGES if "." in k and not k.startswith("ruled.")} == codes


def test_a_horizon_of_one_year_is_one_year():
    """'$9,120 over 1 years' was the owned-pricing cost line at --years 1."""
    from gpuwise.i18n import cost_text, years_text

    owned = {"amortised_usd_per_month": 760.0, "horizon_years": 1.0, "horizon_total_usd": 9120.0}
    cost = {"usd_per_hour": 1.04, "usd_per_month": 760.0, "gpus": 1, "owned": owned}
    assert "$9,120 over 1 year (buy + run)" in cost_text(cost, "en")
    assert "1 年合计 9,120 美元" in cost_text(cost, "zh")
    assert "over 2.5 years" in cost_text({**cost, "owned": {**owned, "horizon_years": 2.5}}, "en")
    assert years_text(1, "en") == "1 year" and years_text(3, "en") == "3 years" and years_text(1, "zh") == "1 年"


def test_a_target_no_replica_count_meets_costs_one_replica_not_zero():
    """An estimate whose serving target no replica count meets priced '0 GPU(s): $0.00/hour'."""
    from gpuwise.i18n import cost_text

    cost = {"pricing": "on-demand", "replicas": 0, "gpus": 0, "usd_per_replica_hour": 2.69, "usd_per_hour": 0.0}
    assert cost_text(cost, "en") == "Cost (on-demand): no replica count meets the target; one replica costs $2.69/hour"
    assert "$0.00" not in cost_text(cost, "en") and "没有任何副本数能满足目标" in cost_text(cost, "zh")


def test_a_cost_in_another_currency_says_all_the_cost_line_says_in_the_readers_words():
    """The --currency line by hand, at 7 CNY per USD: on demand, an hour of $2, a month of $1,460 and a run
    of $10; owned, the same month amortised and the horizon's $60,000 over 3 years. A Chinese report printed
    the English line and owned pricing left out the run and the horizon."""
    from gpuwise.catalog.schema import FxRate
    from gpuwise.estimate.offers import money
    from gpuwise.i18n import money_text

    fx = FxRate(currency="CNY", per_usd=7.0, date="2026-06-26", source="fx-src")
    rented = money(fx, per_hour=2.0, per_month=1460.0, run=10.0)
    assert (
        money_text(rented, "en")
        == "in CNY: 14.00/hour, 10,220.00/month, 70.00 for the run (7 CNY per USD on 2026-06-26, source fx-src)"
    )
    assert (
        money_text(rented, "zh")
        == "折合 CNY：每小时 14.00, 每月 10,220.00, 整次训练 70.00（汇率 7 CNY 兑 1 美元，2026-06-26，来源 fx-src）"
    )
    owned = {**money(fx, per_hour=2.0, per_month=1460.0, run=10.0, horizon_total=60000.0), "horizon_years": 3.0}
    assert money_text(owned, "en") == (
        "in CNY: 14.00/hour, amortised 10,220.00/month, 70.00 for the run, 420,000.00 over 3 years (buy + run) "
        "(7 CNY per USD on 2026-06-26, source fx-src)"
    )
    assert "每月摊销 10,220.00" in money_text(owned, "zh") and "3 年合计 420,000.00（购买 + 运行）" in money_text(
        owned, "zh"
    )
    assert money_text(money(None, per_hour=2.0), "en") is None  # USD: the cost line says it already
    assert money_text(money(fx), "zh") == "折合 CNY：无价格（汇率 7 CNY 兑 1 美元，2026-06-26，来源 fx-src）"


OWNED_8B = {"model": "llama-3.1-8b", "task": "finetune", "method": "full", "tokens": 1e9}


def _owned_plan_in_cny() -> tuple[Any, dict[str, Any], float, float]:
    """(chosen candidate, its JSON cost, the run's USD as the cost line counts it, the CNY rate) of an
    owned 8B fine-tune priced in CNY."""
    from gpuwise.api import make_plan
    from gpuwise.catalog import load_catalog

    chosen = make_plan(OWNED_8B, {"deadline": "3d", "pricing": "owned", "currency": "CNY"}).chosen
    assert chosen is not None
    cost = chosen.cost_dict()
    return chosen, cost, cost["expected_total_usd"] or cost["total_usd"], load_catalog().fx["CNY"].per_usd


def test_an_owned_plans_currency_line_carries_its_run_and_horizon_in_the_report():
    """End to end: a Chinese report of an owned plan priced in CNY shows the converted run and horizon,
    each the USD figure of the cost line times the dated rate."""
    from gpuwise.report.document import _price_rows

    chosen, cost, run, rate = _owned_plan_in_cny()
    row = dict(_price_rows(chosen, "zh"))[msg("row_currency", "zh")]
    assert f"整次训练 {run * rate:,.2f}" in row
    assert f"合计 {cost['owned']['horizon_total_usd'] * rate:,.2f}（购买 + 运行）" in row
    assert row.startswith("折合 CNY：") and "in CNY" not in row


def test_estimate_and_plan_convert_the_same_cost_line():
    """`estimate --currency CNY` converted the failure-free run and no horizon where its own cost line and
    `plan` show the run with what it loses and the owned horizon: both now convert the JSON cost alike."""
    from gpuwise.api import make_estimate, money_block

    chosen, cost, run, rate = _owned_plan_in_cny()
    from_plan = chosen.money()
    assert (
        from_plan["run"] == pytest.approx(run * rate) and from_plan["horizon_years"] == cost["owned"]["horizon_years"]
    )
    assert money_block("CNY", cost) == from_plan
    est = make_estimate(OWNED_8B, {"gpu": chosen.est.hardware.gpu.id + ":1", "pricing": "owned"}).as_dict()
    block = money_block("CNY", est["cost"])
    assert block is not None and block["horizon_total"] == pytest.approx(
        est["cost"]["owned"]["horizon_total_usd"] * rate
    )
    assert block["run"] == pytest.approx((est["cost"]["expected_total_usd"] or est["cost"]["total_usd"]) * rate)


def test_a_chinese_web_plan_shows_its_cost_in_chinese():
    """The web plan page printed the --currency line in English whatever the plan's language."""
    from fastapi.testclient import TestClient

    from gpuwise.web.app import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    r = client.post(
        "/plan",
        data={
            "model": "llama-2-7b",
            "task": "finetune",
            "method": "qlora",
            "tokens": "20M",
            "currency": "CNY",
            "lang": "zh",
        },
    )
    assert r.status_code == 200
    assert "折合 CNY：" in r.text and "in CNY:" not in r.text


def test_an_unknown_language_is_refused():
    assert check_lang(None) == "en" and check_lang(" ZH ") == "zh"
    with pytest.raises(ValueError, match="--lang"):
        check_lang("fr")


# ----- the whole `plan` output path in Chinese: no English sentence outside the allow-list ---------
EXAMPLES = SRC.parent.parent / "examples"
PLAN_EXAMPLES = sorted(
    f
    for f in EXAMPLES.glob("*.yaml")
    if "team:" not in f.read_text() and "offers:" not in f.read_text()  # pools (deploy) and --prices files
)
# A word: letters only (with - or ' or a plural "(s)"), perhaps in brackets or before punctuation. Ids
# and units carry digits, dots or underscores (h100-sxm, zero2, 24GB, g5.xlarge, gpu_1x_a100) and break
# a run; a bare number ("needs 9 replicas"), an acronym (TTFT, GPU) or a unit (ms, s) neither counts
# nor breaks it.
_WORD = re.compile(r"""[("'“]?[A-Za-z][A-Za-z'’-]*(\(s\))?[)"'”,.;:!?]*""")
_NEUTRAL = re.compile(r"""\(?(\$?\d[\d.,]*%?|[A-Z][A-Z0-9+/-]+|ms|s|us|min|h|d|[KMGT]i?B)[)"'”,.;:!?]*""")
# The allow-list, each with its reason; everything else on the path must be in the reader's language.
_ALLOWED_LINES = (
    re.compile(r"^\s*\|?\s*(价格来源|复现命令)\s*[:：|]"),  # the offer is a source citation (provider,
    # instance, date, source id) and the command is code: both stay as they are written
)


def english_runs(text: str) -> list[str]:
    """Every run of 4+ consecutive ASCII words: an English sentence (or its rest) left untranslated."""
    runs, run, words = [], [], 0
    for tok in [*text.split(), ""]:
        if tok and _NEUTRAL.fullmatch(tok):
            run += [tok] if run else []
            continue
        if tok and _WORD.fullmatch(tok):
            run, words = [*run, tok], words + 1
            continue
        if words >= 4:
            runs.append(" ".join(run))
        run, words = [], 0
    return runs


def _without_allowed(text: str) -> str:
    """The text less what stays in its original language: code spans, the estimate command and the
    offer lines (see _ALLOWED_LINES), and the estimators' assumptions: English data, each with its
    source citation, listed under a translated heading after a translated framing sentence."""
    text = re.sub(r"\\(.)", r"\1", text)  # Markdown escapes
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"(?ms)^## 假设与来源\n\n- [^\n]*\n(.*?)(?=^## |\Z)", "", text)
    return "\n".join(line for line in text.splitlines() if not any(p.search(line) for p in _ALLOWED_LINES))


def test_the_english_run_check_finds_sentences_and_passes_ids():
    assert english_runs("推荐方案： Single point of failure: one GPU carries it") == [
        "Single point of failure: one GPU carries it"
    ]
    assert english_runs("增长：growth (3x users) needs 9 replica(s) of 1x h100") == ["users) needs 9 replica(s) of"]
    assert english_runs("8x h100-sxm full zero2 rc-full，TP1 x PP1 x DP8，ZeRO-2，重计算 none") == []
    assert english_runs("存储 object-store，样本格式 gpu-decode，计价 on-demand") == []
    assert _without_allowed("a\n  价格来源：1 x H100 from lambda, any, on-demand, source x\nb") == "a\nb"


# Beyond the examples, the paths they do not take: spares, spot and owned pricing, latency targets
# with runners-up left unsimulated, growth that breaks, several methods, and no plan at all.
VARIANTS = {
    "redundancy": ["-f", str(EXAMPLES / "ecommerce-recsys-serving.yaml"), "--redundancy", "1"],
    "spot": ["-f", str(EXAMPLES / "train-13b-multi-gpu-plan.yaml"), "--pricing", "spot"],
    "owned": ["-f", str(EXAMPLES / "train-13b-multi-gpu-plan.yaml"), "--gpus", "h100-sxm", "--pricing", "owned"],
    "ttft-tpot": [
        "--model",
        "llama-3.1-70b",
        "--task",
        "inference",
        "--qps",
        "5",
        "--ttft-ms",
        "800",
        "--tpot-ms",
        "100",
        "--gpus",
        "h100-sxm,a100-80gb-sxm,l40s",
    ],
    "methods-growth": [
        "--model",
        "llama-2-7b",
        "--tokens",
        "50M",
        "--deadline",
        "24h",
        "--methods",
        "full,lora,qlora",
        "--growth-data",
        "2",
    ],
    "serving-budget": [
        "--model",
        "llama-2-7b",
        "--task",
        "inference",
        "--qps",
        "10",
        "--growth-users",
        "3",
        "--budget",
        "5000",
    ],
    "no-plan": ["--model", "llama-2-7b", "--tokens", "50M", "--deadline", "10m", "--max-gpus", "2"],
}


def _plan_zh(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, str]:
    """(CLI summary, Markdown report, chart titles) of `gpuwise plan ARGS --lang zh --report`."""
    import io

    from rich.console import Console
    from typer.testing import CliRunner

    from gpuwise.cli import render
    from gpuwise.cli.app import app

    buf = io.StringIO()
    monkeypatch.setattr(render, "console", Console(file=buf, width=100_000, color_system=None))  # no wrapping
    report = tmp_path / "plan.md"
    proc = CliRunner().invoke(app, ["plan", *args, "--lang", "zh", "--report", str(report)])
    assert proc.exit_code in (0, 1), (args, proc.output)
    svgs = tmp_path.glob("plan-*.svg")
    titles = " ".join(t for svg in svgs for t in re.findall(r"<text[^>]*>([^<]*)<", svg.read_text()))
    return buf.getvalue(), report.read_text(encoding="utf-8"), titles


CASES = {**{f.stem: ["-f", str(f)] for f in PLAN_EXAMPLES}, **VARIANTS}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_chinese_plan_has_no_english_sentence(case, tmp_path, monkeypatch):
    summary, markdown, titles = _plan_zh(CASES[case], tmp_path, monkeypatch)
    assert "推荐方案" in summary or "没有方案满足需求" in summary
    if "## 假设与来源" in markdown:  # the estimators' notes stay English: the framing sentence does not
        assert msg("assumptions_note", "zh") in markdown
    for where, text in (("summary", summary), ("report", markdown), ("charts", titles)):
        assert not english_runs(_without_allowed(text)), (case, where, english_runs(_without_allowed(text)))


def test_the_check_catches_an_untranslated_message(tmp_path, monkeypatch):
    """The check bites: one message left in English shows up in the Chinese summary."""
    monkeypatch.setitem(MESSAGES["plan.cheapest"], "zh", MESSAGES["plan.cheapest"]["en"])
    summary, _, _ = _plan_zh(CASES["chat-7b-serving"], tmp_path, monkeypatch)
    assert MESSAGES["plan.cheapest"]["en"] in english_runs(_without_allowed(summary))


def _readme_plans() -> list[list[str]]:
    """The `gpuwise plan ...` commands the README shows (the quick start's and each sample's)."""
    readme = (SRC.parent.parent / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"(?:^\$ |&& )gpuwise (plan [^`#\n]*)", readme, flags=re.M)
    return [[a for a in shlex.split(c) if a != "--lang" and a not in LANGS] for c in dict.fromkeys(found)]


README_PLANS = _readme_plans()


def _without_text(x: object) -> object:
    """A reason's JSON (or a list of them, nested reasons too) less its words."""
    if isinstance(x, dict):
        return {k: _without_text(v) for k, v in x.items() if k != "text"}
    return [_without_text(v) for v in x] if isinstance(x, list) else x


def test_the_readme_shows_plans():
    assert len(README_PLANS) >= 4, README_PLANS


@pytest.mark.parametrize("args", README_PLANS, ids=[" ".join(a) for a in README_PLANS])
def test_reason_codes_are_the_same_in_every_language(args):
    """`rejected[].code` and each candidate's `why[].code` (and their parameters) do not depend on
    --lang; only the text does, and it is translated."""
    from typer.testing import CliRunner

    from gpuwise.cli.app import app

    out = {}
    for lang in LANGS:
        proc = CliRunner().invoke(app, [*args, "--json", "--lang", lang], env={"GPUWISE_TODAY": "2026-12-01"})
        assert proc.exit_code in (0, 1), proc.output[-2000:]
        out[lang] = json.loads(proc.stdout)

    def data(d: dict) -> tuple:
        return [_without_text(c["why"]) for c in d["candidates"]], _without_text(d["rejected"])

    en, zh = data(out["en"]), data(out["zh"])
    assert en == zh
    assert any(en[0]), "the sample plans give reasons"
    assert out["en"]["candidates"][0]["why"][0]["text"] != out["zh"]["candidates"][0]["why"][0]["text"]
    if en[1]:
        assert out["en"]["rejected"][0]["text"] != out["zh"]["rejected"][0]["text"]
