"""Requests drawn from a benchmark dataset's lengths (--dataset sharegpt): the catalog's quantile table,
the draws by hand, the options' rules, and what a finite run and a plan report with them."""

from __future__ import annotations

import json
import statistics

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.errors import UnknownNameError, UsageError
from gpuwise.estimate.lengths import dataset_lengths, drawn_lengths
from gpuwise.workload import build_workload
from gpuwise.workload.specs import LengthDistribution, whole_tokens

from .conftest import run_main

CAT = load_catalog()
SHAREGPT = CAT.dataset("sharegpt")
TOY = LengthDistribution("toy", (0.0, 0.5, 1.0), (10.0, 20.0, 40.0), (2.0, 6.0, 30.0), (1.0, 1.0), 60)


def test_the_quantile_function_and_its_draws_by_hand():
    """Linear between levels: at 0.25 halfway from 10 to 20, at 0.75 from 20 to 40; n draws at the middles of
    n slices (2 draws: 0.25 and 0.75; 5 draws: 0.1, 0.3, 0.5, 0.7, 0.9), so a longer run reaches further."""
    assert TOY.at("prompt", 0.25) == 15.0
    assert TOY.at("prompt", 0.75) == 30.0
    assert TOY.at("output", 1.0) == 30.0
    assert TOY.draws("prompt", 2) == [15, 30]
    assert TOY.draws("prompt", 5) == [12, 16, 20, 28, 36]  # 10 + 0.2 x 10, 10 + 0.6 x 10, 20, 20 + 0.4 x 20, ...
    # 2 + 0.2 x 4 = 2.8, 4.4, 6, 6 + 0.4 x 24 = 15.6, 25.2: 54 tokens in all, the floors' 52 and the two largest
    # remainders (2.8 and 15.6) rounded up
    assert TOY.draws("output", 5) == [3, 4, 6, 16, 25]
    assert max(TOY.draws("output", 10)) == 28 < max(TOY.draws("output", 100)) == 30  # 6 + 0.9 x 24 = 27.6
    assert TOY.longest_prompt == 40 and TOY.longest_context == 60  # 40 + 20 or 30 + 30: the cap's line
    assert TOY.output_room(40) == 20 and TOY.output_room(59) == 1 and TOY.output_room(70) == 1


def test_whole_tokens_keep_the_total():
    """Each length rounded alone moves the mean of short ones (ten of 1.4 are ten 1s); apportioned by largest
    remainder they keep the rounded total where a floor of one token allows."""
    assert whole_tokens([1.4] * 10) == [2, 2, 2, 2, 1, 1, 1, 1, 1, 1]
    assert sum(whole_tokens([0.3, 0.3, 2.6, 5.8])) == 9  # the floor of one lifts the first two: 2.6 gives one back
    assert whole_tokens([0.2, 0.2]) == [1, 1]  # nothing below one token


def test_scaled_to_the_means_given_by_hand():
    """Each part's quantiles times (mean given / dataset mean); the context cap times the ratio of the sums."""
    d = LengthDistribution.scaled("toy", TOY.levels, (TOY.prompt, TOY.output), (20.0, 10.0), 100, (40, 5))
    assert d.prompt == (20.0, 40.0, 80.0)
    assert d.output == (1.0, 3.0, 15.0)
    assert d.scale == (2.0, 0.5) and d.cap == 100  # the cap in the dataset's own tokens
    assert d.output_room(80) == 30  # 80 / 2 = 40 of the cap's 100 used: 60 x 0.5 left for the output


def test_a_long_output_mean_keeps_the_tail():
    """Prompts at their mean and outputs ten times theirs: the cap is read in the dataset's own tokens, so a
    short prompt leaves its reply the whole tail (about nine times the mean), not the sum of the means' share."""
    d = LengthDistribution.scaled(
        "sharegpt",
        SHAREGPT.levels,
        (SHAREGPT.prompt, SHAREGPT.output),
        (SHAREGPT.prompt_mean, SHAREGPT.output_mean),
        SHAREGPT.context_cap,
        (226.0, 2000.0),
    )
    _, outputs = dataset_lengths(d, 1000, 0)
    assert max(outputs) > 12_000
    assert statistics.fmean(outputs) == pytest.approx(2000, rel=0.03)


def test_a_pair_never_passes_the_context_the_dataset_keeps():
    """Prompts and outputs are shuffled apart; an output is cut where its pair would pass the cap (one token
    at least), as the benchmarks' sampling drops pairs over 2,048 tokens."""
    tight = LengthDistribution("toy", TOY.levels, TOY.prompt, TOY.output, (1.0, 1.0), 45)
    prompts, outputs = dataset_lengths(tight, 40, 3)
    assert all(p + o <= 45 or o == 1 for p, o in zip(prompts, outputs, strict=True))
    assert sorted(prompts) == sorted(TOY.draws("prompt", 40))
    assert dataset_lengths(tight, 40, 3) == dataset_lengths(tight, 40, 3) != dataset_lengths(tight, 40, 4)


def test_the_sharegpt_table_is_the_benchmarks_sampling():
    """The catalog's ShareGPT table: rising quantiles from 0 to 1, prompts within 4-1,024 tokens and pairs
    within 2,048 (the benchmarks' pruning), each mean that of its quantile function (trapezoids over the
    levels, within 3 %), the means within the published ones for Llama 3 tokenizers (vLLM's 1,000-prompt
    samples 215-231 prompt tokens; SGLang's dataset output mean 198.1), and a long tail: the longest output
    about nine times the mean, the median below the mean."""
    lv, p, o = SHAREGPT.levels, SHAREGPT.prompt, SHAREGPT.output
    assert lv[0] == 0.0 and lv[-1] == 1.0 and SHAREGPT.pairs > 10_000
    assert p[0] >= 4 and o[0] >= 4 and p[-1] <= 1024 and SHAREGPT.context_cap == 2048
    for q, mean in ((p, SHAREGPT.prompt_mean), (o, SHAREGPT.output_mean)):
        area = sum((lv[i] - lv[i - 1]) * (q[i] + q[i - 1]) / 2 for i in range(1, len(lv)))
        assert area == pytest.approx(mean, rel=0.03)
    assert 215 <= SHAREGPT.prompt_mean <= 231
    assert 190 <= SHAREGPT.output_mean <= 215
    assert o[-1] / SHAREGPT.output_mean > 8
    assert SHAREGPT.source in CAT.sources and SHAREGPT.sampling_source in CAT.sources


def _job(**spec):
    return build_workload({"model": "llama-3.1-8b", "task": "inference", **spec}, CAT)


def test_the_dataset_sets_the_mean_lengths_unless_given():
    """Without --input-tokens/--output-tokens a run on ShareGPT is at its means; given, the table scales to
    them; a large run's drawn means are the means asked."""
    w = _job(dataset="sharegpt")
    assert (w.input_tokens, w.output_tokens) == (round(SHAREGPT.prompt_mean), round(SHAREGPT.output_mean))
    assert w.lengths is not None and w.lengths_flag == "--dataset sharegpt"
    assert w.lengths.scale == (1.0, 1.0) and w.longest_context == SHAREGPT.context_cap  # the dataset's own
    w = _job(dataset="sharegpt", input_tokens=500, output_tokens=100)
    inputs, outputs = drawn_lengths(w, 2000, 0)
    assert statistics.fmean(inputs) == pytest.approx(500, rel=0.03)
    assert statistics.fmean(outputs) == pytest.approx(100, rel=0.03)
    assert statistics.median(outputs) < 80  # most replies are short: the mean sits in the tail
    # the longest prompt, 2,266 tokens, is 1,023 of the cap's 2,048 dataset tokens at x2.21: the 1,025 left are
    # 500 output tokens at x0.49; the longest output (917) leaves a shorter prompt
    assert (w.longest_prompt, w.longest_context) == (2266, 2266 + 500)


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ({"dataset": "sharegp"}, UnknownNameError, "did you mean 'sharegpt'"),
        ({"dataset": "sharegpt", "length_spread": 0.5}, UsageError, "give one of them"),
        ({"dataset": "sharegpt", "engine": "transformers"}, UsageError, "static batch"),
        ({"dataset": "sharegpt", "output_tokens": 0}, UsageError, "no output lengths"),
        ({"dataset": ""}, UnknownNameError, "known: sharegpt"),
        ({"dataset": "sharegpt", "input_tokens": 100_000}, UsageError, "past llama-3.1-8b's context of 131,072"),
    ],
)
def test_a_dataset_that_cannot_apply_is_a_usage_error(spec, error, message):
    with pytest.raises(error, match=message):
        _job(**spec)
    with pytest.raises(UsageError, match="LLM serving"):
        build_workload({"model": "resnet-50", "task": "inference", "dataset": "sharegpt"}, CAT)


def test_a_burst_on_sharegpt_ends_with_its_longest_outputs(capsys):
    """100 requests at once on one L40S: the same mean lengths drawn from ShareGPT's long tail take longer
    than equal requests (the longest outputs decode at a small batch after the rest have left), so the
    run's output rate is lower; its throughput is the drawn outputs over its span, and its note names the
    lengths drawn."""
    base = ["estimate", "--model", "llama-3.1-8b", "--task", "inference", "--input-tokens", "220"]
    base += ["--output-tokens", "200", "--requests", "100", "--gpu", "l40s:1", "--json"]
    code, out, _ = run_main(capsys, *base)
    code2, out2, _ = run_main(capsys, *base, "--dataset", "sharegpt")
    assert code == code2 == 0
    plain, drawn = json.loads(out)["inference"], json.loads(out2)
    inf = drawn["inference"]
    assert inf["tokens_per_second"] < 0.8 * plain["tokens_per_second"]
    w = _job(dataset="sharegpt", input_tokens=220, output_tokens=200)
    outputs = sum(drawn_lengths(w, 100, 0)[1])
    assert inf["tokens_per_second"] * 100 / inf["requests_per_second"] == pytest.approx(outputs, rel=1e-9)
    assert any(a.startswith("--dataset sharegpt: each request's lengths drawn") for a in drawn["assumptions"])


def test_a_plans_command_carries_the_dataset_and_reproduces_the_row(capsys):
    """A plan's load at --qps on ShareGPT: the chosen row's command names --dataset and gives the same
    figures through estimate."""
    args = ["plan", "--model", "llama-3.1-8b", "--task", "inference", "--qps", "8", "--ttft-ms", "2000"]
    args += ["--tpot-ms", "80", "--gpus", "l40s", "--dataset", "sharegpt", "--json"]
    code, out, _ = run_main(capsys, *args)
    assert code == 0
    chosen = json.loads(out)["chosen"]
    command = chosen["command"]
    assert "--dataset sharegpt" in command
    code, replay, _ = run_main(capsys, *command.split()[1:], "--json")
    assert code == 0
    again = json.loads(replay)
    assert again["inference"]["time_to_first_token_seconds"] == pytest.approx(
        chosen["inference"]["time_to_first_token_seconds"], rel=1e-9
    )
