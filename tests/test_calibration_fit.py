"""--calibrated: the team's imported measurements move gpuwise's estimates onto them.

The fit is checked against a ground truth made by the model itself (a run predicted with known
rate factors is fitted back to those factors), the matching rules by hand, and the whole loop at
the command line: import a vLLM result and an nccl-tests output, see them in `matrix`, and
`estimate --calibrated` lands on the measurement.
"""

import datetime as dt
import json
import math
import statistics
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpuwise.calibration import parse
from gpuwise.calibration.fit import NEAR, distance, fit, for_workload, measured_spread
from gpuwise.calibration.predict import predict
from gpuwise.calibration.resolve import resolve, row
from gpuwise.estimate.rates import Calibration
from gpuwise.store.results import ImportedMeasurement
from gpuwise.workload import build_workload

from .conftest import run_main
from .test_calibration_parsers import NCCL_NEW, TITAN, VLLM_NEW

T0 = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def record(catalog, path, fmt, ident=1, **flags):
    """A parsed, resolved file as the store hands it back."""
    (parsed,) = parse(path.read_text(), fmt)
    r = row(resolve(parsed, catalog, **flags))
    return ImportedMeasurement(id=ident, sha256=f"{ident:02d}" * 32, part=0, source=path.name, imported_at=T0, **r)


@pytest.fixture(scope="module")
def vllm(catalog):
    return record(catalog, VLLM_NEW, "vllm-bench", 1, gpu="h100-sxm:1")


@pytest.fixture(scope="module")
def nccl(catalog):
    return record(catalog, NCCL_NEW, "nccl-tests", 2)


def serving(catalog, concurrency=32, input_tokens=1024, output_tokens=256):
    opts = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": input_tokens,
            "output_tokens": output_tokens, "concurrency": concurrency}  # fmt: skip
    return build_workload(opts, catalog)


# ----- the fit finds the factors a run was made with --------------------------------------------------
@settings(max_examples=8, deadline=None)
@given(st.floats(0.4, 1.6), st.floats(0.4, 1.6))
@example(0.6875, 1.3125)  # slow compute, fast memory: TPOT is weakly sensitive to bandwidth, the fit must go on
def test_the_fit_recovers_the_rate_factors_a_serving_run_was_made_with(catalog, vllm, compute, bandwidth):
    truth = Calibration(compute_factor=compute, bandwidth_factor=bandwidth)
    made = predict(vllm, catalog, truth).values  # what a GPU running at these factors would measure
    run = replace(vllm, figures={**vllm.figures, **made})
    found = fit(run, catalog)
    assert found is not None and found.residual < 0.005
    assert found.calibration.compute_factor == pytest.approx(compute, rel=0.02)
    assert found.calibration.bandwidth_factor == pytest.approx(bandwidth, rel=0.02)


def test_the_fit_of_a_training_log_is_one_factor_on_every_rate(catalog):
    titan = record(catalog, TITAN, "torchtitan-log", 4, model="llama-3.1-8b")
    made = predict(titan, catalog, Calibration(compute_factor=0.8, bandwidth_factor=0.8)).values
    found = fit(replace(titan, figures={**titan.figures, **made}), catalog)
    assert found.calibration.compute_factor == found.calibration.bandwidth_factor == pytest.approx(0.8, rel=0.01)


def test_the_link_reproduces_the_measured_bus_bandwidth(catalog, nccl):
    found = fit(nccl, catalog)
    measured, model, calibrated = found.figures["busbw"]
    assert measured == pytest.approx(473.5e9)
    assert model == pytest.approx(predict(nccl, catalog).values["busbw"])  # the catalog's NVLink model
    assert calibrated == pytest.approx(measured, rel=1e-6)
    assert found.calibration.intra_gpus == 8


# ----- which measurement a workload takes ----------------------------------------------------------------
def test_distance_ranks_by_every_size_and_refuses_other_lengths():
    measured = {"concurrency": 32, "input_tokens": 1024, "output_tokens": 256}
    keys = ("concurrency", "input_tokens", "output_tokens")
    assert distance(measured, measured, keys) == 0
    assert distance({**measured, "concurrency": 128}, measured, keys) == pytest.approx(2.0)  # log2(4)
    assert distance({**measured, "concurrency": 1024}, measured, keys) == pytest.approx(5.0)  # scaled, not refused
    assert distance({**measured, "input_tokens": 1024 * NEAR}, measured, keys) == pytest.approx(2.0)
    assert distance({**measured, "input_tokens": 1024 * NEAR * 1.01}, measured, keys) is None


def test_a_workload_takes_the_nearest_run_of_its_model_on_its_gpu(catalog, vllm, nccl):
    near = replace(vllm, id=3, shape={**vllm.shape, "concurrency": 8})
    match = for_workload([vllm, near, nccl], serving(catalog, concurrency=12), "h100-sxm", 1, catalog)
    assert match.fitted.measurement.id == 3 and match.fitted.away == "measured at concurrency 8 (asked 12)"
    assert match.link is None  # one GPU: no link inside a node
    other = for_workload([vllm], serving(catalog), "a100-80gb-sxm", 1, catalog)
    assert other.fitted is None and other.why == "no imported serving measurement of llama-3.1-8b on a100-80gb-sxm"
    long = for_workload([vllm], serving(catalog, input_tokens=8192), "h100-sxm", 1, catalog)
    assert long.fitted is None and "within 4x of these lengths (#1 are farther)" in long.why


def test_repeats_at_one_workload_take_the_median_factors(catalog, vllm):
    slower = replace(vllm, id=5, figures={**vllm.figures, "tpot.median": vllm.figures["tpot.median"] * 1.1})
    faster = replace(vllm, id=6, figures={**vllm.figures, "tpot.median": vllm.figures["tpot.median"] * 0.95})
    match = for_workload([slower, vllm, faster], serving(catalog), "h100-sxm", 1, catalog)
    alone = [fit(m, catalog).calibration.bandwidth_factor for m in (slower, vllm, faster)]
    assert match.fitted.calibration.bandwidth_factor == pytest.approx(statistics.median(alone))
    assert [m.id for m in match.repeats] == [1, 6]


# ----- the measured spread --------------------------------------------------------------------------------
def test_measured_spread_of_log_lines_and_of_a_median_over_requests(vllm):
    lines = replace(vllm, samples={"tpot.median": [1, 2, 3, 4, 5]}, facts={})
    # 10th and 90th percentiles by linear interpolation: 1.4 and 4.6; half of 3.2 over the median 3
    assert measured_spread([lines], "tpot.median", 0.8) == pytest.approx(1.6 / 3)
    # 320 requests, std 31.03 ms around a median of 78.41 ms: z(0.8) x 1.2533 x std / sqrt(n) / median
    z = statistics.NormalDist().inv_cdf(0.9)
    want = z * 1.2533 * 31.02713182056956e-3 / math.sqrt(320) / 78.41149397422828e-3
    assert measured_spread([vllm], "ttft.median", 0.8) == pytest.approx(want)
    assert measured_spread([replace(vllm, facts={})], "ttft.median", 0.8) is None


# ----- the loop at the command line -------------------------------------------------------------------------
SERVE = ["--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm:1", "--input-tokens", "1024",
         "--output-tokens", "256", "--concurrency", "32", "--json"]  # fmt: skip
TRAIN = ["--model", "llama-3.1-8b", "--gpu", "h100-sxm:8", "--micro-batch", "1", "--global-batch", "8", "--seq",
         "8192", "--zero", "3", "--framework", "torchtitan", "--json"]  # fmt: skip


def test_import_show_in_matrix_and_calibrate_an_estimate(capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    imports = [(VLLM_NEW, "vllm-bench", "--gpu", "h100-sxm:1"), (NCCL_NEW, "nccl-tests")]
    for path, fmt, *flags in imports:
        code, _, err = run_main(capsys, "calibrate", "import", str(path), "--format", fmt, *flags, "--db", url)
        assert code == 0, err
    code, out, _ = run_main(capsys, "matrix", "--db", url, "--json")
    shown = {r["id"]: r for r in json.loads(out)["imported"]}
    assert shown[1]["figures"]["ttft.median"]["measured"] == pytest.approx(0.07841149397422828)
    assert shown[2]["figures"]["busbw"]["measured"] == pytest.approx(473.5e9)
    assert shown[1]["figures"]["ttft.median"]["ratio"] == pytest.approx(
        shown[1]["figures"]["ttft.median"]["measured"] / shown[1]["figures"]["ttft.median"]["predicted"]
    )
    code, table, _ = run_main(capsys, "matrix", "--db", url)
    assert code == 0 and "TTFT median" in table and "474 GB/s" in table

    model = json.loads(run_main(capsys, "estimate", *SERVE, "--db", url)[1])
    code, out, err = run_main(capsys, "estimate", *SERVE, "--calibrated", "--db", url)
    assert code == 0, err
    calibrated = json.loads(out)
    measured = {"time_to_first_token_seconds": 0.07841149397422828, "decode_seconds_per_token": 0.012927877911590628}
    # the model alone: TTFT far off; TPOT within 7 % of the made-up file since a step's prompt chunks are those of
    # the slots prefilling in it (13.69 ms against its 12.93 ms; 13.24 before V1's per-sequence scheduling time of
    # 2026-12-05; more than 15 % off before the chunks)
    assert abs(model["inference"]["time_to_first_token_seconds"] / measured["time_to_first_token_seconds"] - 1) > 0.15
    assert model["inference"]["decode_seconds_per_token"] == pytest.approx(
        measured["decode_seconds_per_token"], rel=0.07
    )
    for key, value in measured.items():
        assert calibrated["inference"][key] == pytest.approx(value, rel=0.01)  # calibrated: on the measurement
    block = calibrated["calibration"]
    assert block["used"]["id"] == 1 and block["used"]["measured_at"] == "2025-11-04T14:23:11"
    assert len(block["used"]["sha256"]) == 64 and block["unmatched"] is None
    prefix = block["used"]["sha256"][:12]
    assert any(
        f"measurement #1 (sha256 {prefix}, vllm-bench, measured 2025-11-04)" in a for a in calibrated["assumptions"]
    )

    trained = json.loads(run_main(capsys, "estimate", *TRAIN, "--calibrated", "--db", url)[1])
    assert trained["calibration"]["link"]["id"] == 2 and trained["calibration"]["used"] is None
    assert any("from the team's nccl-tests run on 8 h100-sxm" in a for a in trained["assumptions"])
    plain = json.loads(run_main(capsys, "estimate", *TRAIN, "--db", url)[1])
    faster = plain["training"]["comm_seconds_per_step"] / trained["training"]["comm_seconds_per_step"]
    assert faster == pytest.approx(474 / 370, rel=0.05)  # the measured link against the catalog's NVLink model


def test_without_a_matching_measurement_the_estimate_says_so_and_is_unchanged(capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    run_main(capsys, "calibrate", "import", str(VLLM_NEW), "--format", "vllm-bench", "--gpu", "h100-sxm:1", "--db", url)
    other = [a if a != "h100-sxm:1" else "a100-80gb-sxm:1" for a in SERVE]
    plain = json.loads(run_main(capsys, "estimate", *other, "--db", url)[1])
    code, out, err = run_main(capsys, "estimate", *other, "--calibrated", "--db", url)
    calibrated = json.loads(out)
    assert code == 0 and "the model's own figures" in err
    assert calibrated["inference"] == plain["inference"]
    assert calibrated["calibration"]["unmatched"] == "no imported serving measurement of llama-3.1-8b on a100-80gb-sxm"
    assert any(a.startswith("--calibrated: no imported serving measurement") for a in calibrated["assumptions"])


def test_a_calibrated_plan_names_its_runs_and_its_commands_reproduce_them(capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    run_main(capsys, "calibrate", "import", str(VLLM_NEW), "--format", "vllm-bench", "--gpu", "h100-sxm:1", "--db", url)
    args = ["plan", "--model", "llama-3.1-8b", "--task", "inference", "--input-tokens", "1024", "--output-tokens",
            "256", "--qps", "20", "--ttft-ms", "500", "--gpus", "h100-sxm", "--calibrated", "--db", url, "--json"]  # fmt: skip
    code, out, err = run_main(capsys, *args)
    assert code == 0, err
    plan = json.loads(out)
    assert plan["calibration"]["h100-sxm"]["used"]["id"] == 1
    chosen = plan["chosen"]
    assert chosen["command"].endswith("--calibrated")
    again = json.loads(run_main(capsys, *chosen["command"].split()[1:], "--db", url, "--json")[1])
    assert again["inference"]["time_to_first_token_seconds"] == chosen["inference"]["time_to_first_token_seconds"]
    assert again["cost"]["usd_per_hour"] == chosen["cost"]["usd_per_hour"]


# ----- the bands narrow to the measured spread ----------------------------------------------------------------
def _band(d, path):
    b, value = d["uncertainty"][path], json_value(d, path)
    return b["low"] / value, b["high"] / value


def json_value(d, path):
    node = d
    for part in path.split("."):
        node = node[part]
    return node


def test_the_band_narrows_to_the_measured_spread_and_widens_away_from_it(vllm):
    from gpuwise.api import calibrated_estimate, make_estimate

    work = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 1024, "output_tokens": 256}
    ttft = "inference.time_to_first_token_seconds"
    at = {}
    for c in (32, 64, 128):
        est, match = calibrated_estimate({**work, "concurrency": c}, {"gpu": "h100-sxm:1"}, None, [vllm])
        at[c] = (est.as_dict(), make_estimate({**work, "concurrency": c}, {"gpu": "h100-sxm:1"}).as_dict(), match)
    d, plain, match = at[32]
    measured, _, calibrated = match.fitted.figures["ttft.median"]
    w = measured_spread([vllm], "ttft.median", 0.8) + abs(calibrated / measured - 1)
    assert _band(d, ttft) == pytest.approx((1 - w, 1 + w))  # at the measured workload: its own spread
    assert w < 0.05 < _band(plain, ttft)[1] - 1  # far narrower than the published cases' band
    assert "the team's measurement #1 (sha256 0101010101" in d["uncertainty"][ttft]["basis"]
    # concurrency 128 is two doublings away = log2(NEAR): the published band, around the measured spread
    d, plain, _ = at[128]
    low, high = _band(plain, ttft)
    assert _band(d, ttft) == pytest.approx(((1 - w) * low, (1 + w) * high))
    # one doubling: halfway, in log terms
    d, plain, _ = at[64]
    low, high = _band(plain, ttft)
    assert _band(d, ttft) == pytest.approx(((1 - w) * low**0.5, (1 + w) * high**0.5))
    assert "widened 50% of the way" in d["uncertainty"][ttft]["basis"]
