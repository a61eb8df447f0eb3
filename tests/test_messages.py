"""The one message catalog: every key in every language with the same placeholders, every key the
code asks for exists, and numbers follow the locale (hand-checked values)."""

import re
import string
from pathlib import Path

import pytest

from gpuwise.plan.messages import LANGS, MESSAGES, check_lang, fmt_count_l, fmt_duration, fmt_money, msg, rate_unit

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
    words = [k for k, v in MESSAGES.items() if re.search(r"[a-z]{4,}", v["en"]) and not k.startswith("unit_")]
    untranslated = [k for k in words if not cjk.search(MESSAGES[k]["zh"]) and MESSAGES[k]["zh"] == MESSAGES[k]["en"]]
    assert not untranslated, untranslated


def test_numbers_and_units_follow_the_locale():
    assert fmt_count_l(1_234_567, "en") == "1,234,567"
    assert fmt_count_l(123_456, "zh") == "12.3万"  # 123,456 / 10^4
    assert fmt_count_l(250_000_000, "zh") == "2.5亿"  # / 10^8
    assert fmt_money(3344.8, "en") == "$3,345" and fmt_money(3344.8, "zh") == "3,345 美元"
    assert fmt_money(0.884, "en") == "$0.88"
    assert fmt_duration(2.3 * 86400, "zh") == "2.3 天" and fmt_duration(27.7 * 3600, "en") == "27.7 h"
    assert rate_unit("generic", "vision", "en")[1] == "images/s"
    assert rate_unit("generic", "recommender", "en")[1] == "samples/s"
    assert rate_unit("transformer", None, "zh") == ("tokens_per_second", "tokens/秒")
    assert msg("misses", "zh", what="deadline") == "未满足 deadline"


def test_an_unknown_language_is_refused():
    assert check_lang(None) == "en" and check_lang(" ZH ") == "zh"
    with pytest.raises(ValueError, match="--lang"):
        check_lang("fr")
