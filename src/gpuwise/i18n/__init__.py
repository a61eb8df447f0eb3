"""gpuwise in the reader's language (--lang): the message catalog, numbers as the locale writes them,
and the planner's reasons (codes with parameters) as sentences.

The edges' module: the CLI, the web, reports and deploy take their words from here; the core
(catalog, workload, estimate, plan) never imports it (tests/test_structure.py), and it needs nothing
but the standard library and gpuwise.units. Its home is beside the core rather than in `report/`
because the CLI's `estimate` and `tco` views use it too, without loading the report machinery.
"""

from gpuwise.i18n.messages import LANGS, MESSAGES, Lang
from gpuwise.i18n.reasons import (
    reason_json,
    reason_text,
    rejection_json,
    rejection_text,
    ruled_out,
    ruled_out_lines,
)
from gpuwise.i18n.words import (
    band_line,
    band_range,
    bias_line,
    bias_text,
    check_lang,
    cost_text,
    fmt_count_l,
    fmt_duration,
    fmt_gpu_hours,
    fmt_money,
    hours_number,
    localize,
    money_text,
    msg,
    pipeline_text,
    term,
    unit_label,
    years_text,
)

__all__ = [
    "LANGS",
    "MESSAGES",
    "Lang",
    "band_line",
    "band_range",
    "bias_line",
    "bias_text",
    "check_lang",
    "cost_text",
    "fmt_count_l",
    "fmt_duration",
    "fmt_gpu_hours",
    "fmt_money",
    "hours_number",
    "localize",
    "money_text",
    "msg",
    "pipeline_text",
    "reason_json",
    "reason_text",
    "rejection_json",
    "rejection_text",
    "ruled_out",
    "ruled_out_lines",
    "term",
    "unit_label",
    "years_text",
]
