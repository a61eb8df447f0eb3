"""The second dated holdout (corpus/data/holdout2.yaml), gathered apart from the first: its cases are
sourced and dated, its models are read at their published sizes, its scorer predicts them as
`gpuwise estimate` does, docs/accuracy-holdout2.md is current, and no case regresses past the bound
recorded from its first scoring (the state the frozen record shows, not a goal)."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpus import holdout
from gpuwise.catalog.hf_import import load_hf_config
from gpuwise.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
SET = holdout.SETS[2]
DOC = holdout.load(SET.data)
CASES = DOC["cases"]
BY_ID = {c["id"]: c for c in CASES}
RESULTS = {r.id: r for r in holdout.evaluate_all(SET.data)}
FROZEN = ROOT / str(DOC["frozen"])


def _date(text: object) -> datetime.date:
    return datetime.date.fromisoformat(str(text)[:10])


def test_second_holdout_is_dated_from_its_first_read():
    assert DOC["first_read"] == holdout.FIRST_READ
    assert FROZEN.name == f"accuracy-holdout2-{DOC['first_read']}.md"
    for case in CASES:
        assert _date(case["source"]["read"]) >= _date(DOC["first_read"]), case["id"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_case_has_a_source_and_a_figure(case):
    source = case["source"]
    for key in ("url", "title", "published", "read", "locator", "quote"):
        assert str(source.get(key) or "").strip(), f"{case['id']}: source.{key}"
    assert source["url"].startswith("https://")
    assert case["kind"] in holdout.KINDS
    assert case["metric"] in holdout.METRICS
    assert case["measured"]["unit"] in holdout.UNITS
    assert float(case["measured"]["value"]) > 0
    assert case["as_published"], "the run as the source describes it"
    assert "conversion:" in case["assumed"], "what the conversion assumed"
    assert {"model", "gpu"} <= set(case["gpuwise"])
    for need in case["needs"]:
        assert need["id"] in DOC["needs"], need
        assert need["as_run"].strip()


def test_the_set_is_the_gatherers():
    """42 cases (12 memory, 15 training, 15 inference) from 26 documents; 5 of a known family and 2
    further rows of a source, each marked, and an extra row shares its source's document."""
    assert Counter(c["kind"] for c in CASES) == {"memory": 12, "training": 15, "inference": 15}
    assert len({c["id"] for c in CASES}) == 42
    assert len({c["source"]["url"] for c in CASES}) == 26
    assert sum(bool(c.get("family")) for c in CASES) == 5
    extra = [c for c in CASES if c.get("extra_row_of_source")]
    assert len(extra) == 2
    others = {c["source"]["url"] for c in CASES if not c.get("extra_row_of_source")}
    assert all(c["source"]["url"] in others for c in extra)


def test_model_files_are_read_at_their_published_size():
    """Each model written for this set as a config file: described, and gpuwise's parameter count
    within 5 % of the size its source publishes (OLMo 3's '7B' is its name: 4 % off)."""
    files = {str(c["gpuwise"]["model"]) for c in CASES if str(c["gpuwise"]["model"]).endswith(".json")}
    assert files == set(DOC["models"])
    for f, about in DOC["models"].items():
        params = load_hf_config(ROOT / f).params
        assert params == pytest.approx(float(about["published_params"]), rel=0.05), f
        assert about["about"].strip()


def test_only_a_model_gpuwise_lacks_leaves_a_case_unscored():
    """ResNeXt-101 is not in the catalog and no nearest model stands for it: its two cases stay in the
    set, not estimated, with gpuwise's refusal as the reason and counted outside ±20 %."""
    unscored = {i for i, r in RESULTS.items() if r.predicted is None}
    assert unscored == {
        "dle-resnext101-32x4d-t4-amp-eager-bs1-latency",
        "dle-resnext101-32x4d-1xa100-80gb-amp-bs128-train",
    }
    for case_id in unscored:
        assert RESULTS[case_id].open == ("model-resnext",)
        assert "unknown model" in RESULTS[case_id].note
    s = holdout.summarize(RESULTS.values())
    assert (s.cases, s.scored) == (42, 40)


def test_the_scored_figure_is_the_one_gpuwise_estimate_prints(monkeypatch):
    """The end-to-end command of a row gives the figure the document reports (one case per kind and
    per figure new with this set), run from the repository root as the document says."""
    monkeypatch.chdir(ROOT)
    for case_id in (
        "axolotl-ministral-8b-qlora-r32-mb2-seq2048-packed-cce-mem",
        "msswift-deepspeed-zero2-8xa800-qwen2.5-14b-full-mb1-ga2-seq8192-tput",
        "dgxc-nemo2409-8xh100-llama3.1-8b-bf16-cp2-gbs128-seq8192-tput",
        "lmdeploy-w4a16-rtx4090-llama2-7b-awq-int4-bs1-decode",
    ):
        r = RESULTS[case_id]
        argv = holdout.command(r.options).split()[2:]
        result = CliRunner().invoke(app, ["estimate", *argv, "--json"])
        assert result.exit_code in (0, 1), result.output
        assert holdout.figure(r.metric, json.loads(result.output)) == pytest.approx(r.predicted, rel=1e-9)


def test_published_figures_in_si_by_hand():
    def si(case_id: str) -> float:
        return holdout.published_si(BY_ID[case_id])

    assert si("colossalai-32xa800-llama2-7b-gemini-mb16-seq4096-ckpt-mem") == pytest.approx(55491.10 * 2**20)
    assert si("torchao-lowbitoptim-4070tisuper-vit-h14-amp-bs8-compiled-mem") == pytest.approx(12.23e9)
    assert si("msswift-megatron-8xa800-qwen2.5-14b-full-tp4-sp-selrecomp-gbs16-seq8192-tput") == 9.04
    assert si("trt-demobert-t4-bert-base-fp16-seq128-bs1-latency") == pytest.approx(1.95e-3)


def test_new_figures_and_their_bands_by_hand():
    """A decode rate is 1 / the time per output token, its band the reciprocal of that time's band; a
    step time and a total token rate are read as printed, each banded by the other when it has none."""
    est = {
        "hardware": {"count": 8},
        "training": {"step_seconds": 2.0, "tokens_per_second": 16000.0},
        "inference": {"decode_seconds_per_token": 0.005},
        "uncertainty": {
            "inference.decode_seconds_per_token": {"low": 0.004, "high": 0.0064, "level": 0.8},
            "training.tokens_per_second": {"low": 12000.0, "high": 20000.0, "level": 0.8},
        },
    }
    rate = holdout.figure("inference.decode_tokens_per_second", est)
    assert rate == pytest.approx(200.0)
    # 200 tokens/s at 5 ms; the time's band 4..6.4 ms gives 156.25..250 tokens/s
    assert holdout.band("inference.decode_tokens_per_second", est, rate) == pytest.approx((156.25, 250.0))
    assert holdout.figure("training.tokens_per_second", est) == 16000.0
    step = holdout.figure("training.step_seconds", est)
    assert step == 2.0
    # no band on the step time: the token rate's 0.75..1.25 inverted, 2 s x (0.8 .. 1.333)
    assert holdout.band("training.step_seconds", est, step) == pytest.approx((1.6, 2.0 / 0.75))
    slow = holdout.Scored("s", "training", False, "training.step_seconds", 2.0, 1.5, {}, (), (), None, "")
    assert slow.error == pytest.approx(-0.25) and slow.signed == pytest.approx(0.25)  # predicted faster


def test_the_document_reports_the_apart_groups():
    text = (ROOT / "docs" / SET.doc).read_text(encoding="utf-8")
    assert "42 published measurements from 26 documents" in text
    assert "| without the 5 of a known family (NeMo, ms-swift) | memory |" in text
    assert "| without the 2 extra rows of a source | inference |" in text


def test_second_holdout_document_is_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "holdout.py"), "--set", "2", "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


def test_the_frozen_first_scoring_is_out_of_sample():
    text = FROZEN.read_text(encoding="utf-8")
    assert text.startswith("# Accuracy on the second dated holdout (out of sample)")
    assert "`python scripts/holdout.py --set 2 --freeze`" in text and "Never regenerated" in text


# Regression bounds recorded from the first scoring (the frozen record): each scored case's |error|
# may not grow by more than 3 points, each kind's median |error| by more than 2. They record the
# state on that date (memory 17.4%, training 16.8%, inference 38.4%), not the goals: work that improves a case should lower its bound.
FIRST_ERRORS: dict[str, float] = {
    "axolotl-devstral-small-24b-qlora-r32-mb2-seq2048-packed-cce-mem": +0.7639,
    "axolotl-gptoss-20b-fft-fsdp2-4x80gb-mb1-seq4096-packed-mem": -0.1994,
    "axolotl-ministral-8b-qlora-r32-mb2-seq2048-packed-cce-mem": +0.7991,
    "axolotl-olmo3-7b-qlora-r32-mb2-seq2048-packed-cce-mem": +0.2011,
    "axolotl-seed-oss-36b-qlora-r32-mb2-seq2048-packed-cce-mem": +0.8397,
    "colossalai-32xa800-llama2-7b-gemini-mb16-seq4096-ckpt-mem": +0.0189,
    "colossalai-32xa800-llama2-7b-gemini-mb16-seq4096-ckpt-tput": -0.1068,
    "dgxc-maxtext-512xh100-llama2-70b-bf16-fsdp128-dp4-mbs2-seq4096-tput": +0.0384,
    "dgxc-nemo2409-256xh100-llama3.1-70b-bf16-tp4pp4cp2vp5-gbs512-tput": -0.1462,
    "dgxc-nemo2409-8xh100-llama3.1-8b-bf16-cp2-gbs128-seq8192-tput": -0.1324,
    "internlm-1024xa100-internlm-7b-tp2-zero1-4-noac-mb4x4-tput": +0.2632,
    "internlm-1024xa100-internlm-7b-zero1-global-noac-mb2x4-tput": +1.0110,
    "internlm-512xa100-internlm-7b-zero1-node-ac-mb8-tput": +0.1695,
    "internlm-8xa100-internlm-7b-zero1-node-noac-mb2x4-tput": +0.1884,
    "lmdeploy-w4a16-rtx4090-llama2-13b-awq-int4-bs1-decode": -0.2262,
    "lmdeploy-w4a16-rtx4090-llama2-7b-awq-int4-bs1-decode": -0.3114,
    "lmdeploy0123-pytorch-h200-qwen3-30b-a3b-sharegpt-c64-output-tput": +0.5020,
    "mlperf-inf31-l4-resnet50-trt-int8-offline-tput": -0.4509,
    "mlperf-inf31-l4-resnet50-trt-int8-singlestream-latency": +1.6499,
    "msswift-deepspeed-zero2-8xa800-qwen2.5-14b-full-mb1-ga2-seq8192-tput": +0.3007,
    "msswift-megatron-8xa800-qwen2.5-14b-full-tp4-sp-selrecomp-gbs16-seq8192-tput": +0.0543,
    "msswift-megatron-8xa800-qwen2.5-14b-full-tp4-sp-selrecomp-mem": +0.0235,
    "sglang030-a100-80gb-llama3.1-8b-sharegpt-offline-5000-tput": +0.1375,
    "sglang030-a100-80gb-llama3.1-8b-sharegpt-rps4-median-tpot": -0.0390,
    "tinyllama-16xa100-40gb-tinyllama-1.1b-fsdp-mb8-seq2048-tput": -0.0099,
    "torchao-cpuoffload-4070tisuper-vit-g14-dinov2-fullbf16-ac-bs32-mem": +0.0736,
    "torchao-lowbitoptim-4070tisuper-vit-h14-amp-bs8-compiled-mem": +0.1489,
    "torchao-lowbitoptim-4070tisuper-vit-h14-amp-bs8-compiled-tput": -0.1670,
    "torchao-qt-4070tisuper-llama-1b-custom-bf16-eager-bs4-seq2048-ac-mem": +0.1283,
    "torchao-qt-4070tisuper-llama-1b-custom-bf16-eager-bs4-seq2048-ac-tput": -0.1695,
    "trt-demobert-a100-40gb-bert-large-fp16-seq384-bs8-latency": -0.0358,
    "trt-demobert-l40s-bert-large-fp16-seq128-bs32-latency": +0.5270,
    "trt-demobert-t4-bert-base-fp16-seq128-bs1-latency": -0.4419,
    "trt-demobert-t4-bert-large-fp16-seq384-bs1-latency": -0.4338,
    "trtllm-h200launch-h200-llama2-70b-fp8-tp1-bs64-in2048-out128-tput": +0.1678,
    "ulltrainer-a100-phi3-mini-full-bs2-seq8192-gc-mem": +0.0360,
    "ulltrainer-h100-llama3.1-8b-full-bs2-seq8192-gc-tput": -0.3522,
    "ulltrainer-h100-llama3.1-8b-lora-r8-bs2-seq8192-gc-mem": +0.3245,
    "vllm060-4xh100-llama3.1-70b-tp4-sharegpt-rps8-median-tpot": -0.3348,
    "vllm066-4xa100-llama3.3-70b-tp4-sharegpt200-offline-msteps10-tput": +1.8406,
}
MEDIAN_BOUNDS = {"memory": 0.195, "training": 0.189, "inference": 0.405}


@pytest.mark.parametrize("case_id", sorted(FIRST_ERRORS))
def test_no_case_regresses_past_its_first_scoring(case_id):
    r = RESULTS[case_id]
    assert r.error is not None and abs(r.error) <= abs(FIRST_ERRORS[case_id]) + 0.03, (case_id, r.error)


def test_every_scored_case_carries_a_bound():
    assert set(FIRST_ERRORS) == {i for i, r in RESULTS.items() if r.error is not None}


@pytest.mark.parametrize("kind", holdout.KINDS)
def test_the_median_does_not_regress(kind):
    s = holdout.summarize(r for r in RESULTS.values() if r.kind == kind)
    assert s.median_abs is not None and s.median_abs <= MEDIAN_BOUNDS[kind], (kind, s)


def test_readme_quotes_the_frozen_first_scoring():
    """The README's line on the second holdout gives the frozen record's medians, bias and share,
    labelled out of sample with its date and the command."""
    frozen = FROZEN.read_text(encoding="utf-8")
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    line = readme[readme.index("Out of sample, on the second dated holdout") :][:900]
    rows = {r.split("|")[2].strip(): r.split("|") for r in frozen.splitlines() if r.startswith("| all | ")}
    for kind in holdout.KINDS:
        assert f"{kind} {rows[kind][4].strip()} (bias {rows[kind][5].strip()})" in line, kind
    assert f"{rows['all'][6].split('(')[0].strip()} of cases within ±20%" in line
    assert "python scripts/holdout.py --set 2" in line and FROZEN.name in line
