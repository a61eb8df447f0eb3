"""Requirements met at a confidence: hand-computed meets at the pessimistic end of a band, the risk
named when only the estimate meets a target, a serving floor that is never said to meet, and a
serving estimate sized so that its percentiles times their bands meet the targets."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuwise.cli.app import app
from gpuwise.cli.render import band_line
from gpuwise.i18n import reason_text
from gpuwise.plan.limits import at_least, at_most
from gpuwise.plan.results import Code, Meet, Meets, Reason
from gpuwise.plan.serving_search import settle_floor
from gpuwise.workload.requirements import LatencyGoals


def test_a_latency_met_at_the_estimate_only_misses_at_the_confidence_and_says_so():
    m = at_most(0.0495, 0.050, factor=1.23, level=0.8)
    assert not m.ok
    assert m.high == pytest.approx(0.0495 * 1.23) and m.margin == pytest.approx(0.050 - 0.0495 * 1.23)
    assert m.why is not None and m.why.code == Code.AT_CONFIDENCE
    assert reason_text(m.why) == "49.5 ms, up to 60.9 ms at 80%: does not meet 50.0 ms at 80%"


def test_a_deadline_met_at_the_high_end_of_its_band():
    m = at_most(2 * 86400, 3 * 86400, factor=1.4, level=0.8)
    assert m.ok and m.high == pytest.approx(2.8 * 86400) and m.why is None
    assert at_most(2 * 86400, 3 * 86400).high is None  # without a band: at the estimate, as before


def test_a_load_is_carried_at_the_low_end_of_the_throughput_band():
    m = at_least(60.0, 50.0, 0.8, 0.8)
    assert not m.ok and m.low == pytest.approx(48.0) and m.margin == pytest.approx(-2.0)
    assert reason_text(m.why) == "60.0 requests/s, down to 48.0 at 80%: does not carry 50.0 at 80%"
    assert at_least(70.0, 50.0, 0.8, 0.8).ok


def test_the_band_line_states_each_requirement_at_the_confidence():
    meets = Meets().put("p99_tpot", at_most(0.0133, 0.05, factor=1.63, level=0.8))
    meets = meets.put("qps", at_least(92.6, 50.0, 0.61, 0.8))
    assert band_line(meets, "en") == (
        "At 80% confidence: P99 TPOT 13.3 ms (up to 21.7 ms) ≤ 50.0 ms · qps 92.6/s (down to 56.5/s) ≥ 50.0/s"
    )


def test_a_floor_left_unconfirmed_meets_no_latency_target():
    floor = Meet(True, 0.02, 0.05, None, Reason.of(Code.ANALYTIC_FLOOR))
    meets = Meets().put("p99_tpot", floor).put("qps", Meet(True, 60.0, 50.0, 10.0))
    out = settle_floor(_candidate_with(meets, confirmed=False))
    assert not out.meets["p99_tpot"].ok and out.meets["qps"].ok and not out.ok
    assert reason_text(out.meets["p99_tpot"].why) == "analytic floor, not confirmed"
    assert settle_floor(_candidate_with(meets, confirmed=True)).ok  # a simulated row keeps its verdict


def _candidate_with(meets: Meets, confirmed: bool):
    from gpuwise.api import make_estimate
    from gpuwise.plan.results import Candidate

    est = make_estimate({"model": "llama-3.1-8b", "task": "inference"}, {"gpu": "h100-sxm"})
    return Candidate(est, 2.0, meets=meets, confirmed=confirmed)


def test_goals_tightened_by_the_margins():
    goals = LatencyGoals(99.0, e2e_seconds=10.0, ttft_seconds=0.5, tpot_seconds=0.05)
    tight = goals.tightened(ttft=1.25, tpot=2.0, e2e=1.0)
    assert (tight.ttft_seconds, tight.tpot_seconds, tight.e2e_seconds) == (0.4, 0.025, 10.0)


def test_a_serving_estimate_meets_its_targets_at_the_pessimistic_end():
    """`estimate --qps --tpot-ms` sizes replicas as a plan does: each simulated percentile times
    its band's high end within its target, the capacity at the low end above the load."""
    args = ["estimate", "--model", "llama-3.1-8b", "--task", "inference", "--gpu", "mi300x"]
    result = CliRunner().invoke(app, [*args, "--qps", "50", "--ttft-ms", "500", "--tpot-ms", "50", "--json"])
    assert result.exit_code == 0, result.output
    s = json.loads(result.output)["inference"]["serving"]
    conf = s["confidence"]
    assert s["meets"] and conf["level"] == 0.8
    # MI300X's decode band holds the central 80 % of the published rows (one source), which ran up to 58 % slower
    assert conf["multipliers"]["tpot"] > 1.4
    assert conf["high_seconds"]["tpot"] <= 0.050 and conf["high_seconds"]["ttft"] <= 0.500
    assert conf["capacity_rps_low"] >= 50
