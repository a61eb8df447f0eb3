"""llm.c (`--framework llmc`): its fused classifier's loss traffic, its kernels issued from C, its profile's
fit, by hand and against the corpus' third-party runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.errors import LayoutError, UsageError
from gpuwise.estimate.compute import Shape, head_ops
from gpuwise.estimate.dispatch import host_wait
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.training import _loss_bytes
from gpuwise.workload import TrainingJob

ROOT = Path(__file__).resolve().parent.parent
CAT = load_catalog()
GPT2 = CAT.model("gpt2")


def test_a_fused_loss_moves_a_fifth_of_an_unfused_ones_bytes():
    """The loss op of 4 x 1,024 tokens over GPT-2's 50,257 logits: 10 B a logit forward unfused (an fp32
    upcast written and re-read), 2 B fused (llm.c's classifier, `--loss fused`); the backward of each is
    twice its forward (backward_ratio_elementwise), 30 against 6 B a logit in all."""
    shape = Shape(tokens=4096, seqs=4, context=512.5, act_bytes=2, weight_bytes=2, eager_bytes=(), scores=None)
    unfused = next(o for o in head_ops(GPT2, shape, 1, 4096, loss_bytes=10) if o.name == "loss")
    fused = next(o for o in head_ops(GPT2, shape, 1, 4096, loss_bytes=2) if o.name == "loss")
    assert not any(o.name == "loss" for o in head_ops(GPT2, shape, 1, 4096))  # serving: no loss
    assert unfused.bytes == 10 * 4096 * 50257 and fused.bytes == 2 * 4096 * 50257
    notes: list[str] = []
    assert _loss_bytes(TrainingJob(model=GPT2, framework="llmc"), CAT, notes) == 2
    assert "6 with its backward" in notes[0]
    assert _loss_bytes(TrainingJob(model=GPT2, framework="hf-trainer", loss="fused"), CAT, []) == 2
    assert _loss_bytes(TrainingJob(model=GPT2, framework="hf-trainer"), CAT, []) == 10
    assert CAT.convention("loss_bytes_per_logit_unfused") == 10


def test_llmc_issues_its_kernels_from_c():
    """No Python host floor for llm.c, where the Trainer's eager loop at batch 1 waits on its host."""
    rates = compute_rates(CAT.gpu("h100-sxm"), "bf16", CAT)
    for framework, waits in (("llmc", False), ("hf-trainer", True)):
        job = TrainingJob(model=GPT2, framework=framework, micro_batch=1, seq=1024)
        assert (host_wait(job, 12, 1, 0.001, rates, CAT, []) > 0) is waits
    est = make_estimate(
        {"model": "gpt2", "task": "pretrain", "framework": "llmc", "micro_batch": 1}, {"gpu": "h100-sxm"}
    )
    assert "host_dispatch_wait" not in est.training.terms and est.training.bottleneck != "host"


def test_the_fused_loss_shortens_a_step_by_its_bytes_by_hand():
    """GPT-2 under llm.c, 8 x 1,024 tokens on an H100, its fused classifier against `--loss eager`: the step
    differs by the 24 B a logit the unfused loss moves more (30 against 6 with the backward: the elementwise
    backward ratio is 2), at the GPU's bandwidth, over the stack's efficiency; nothing else moves."""
    assert CAT.convention("backward_ratio_elementwise") == 2  # the 6 and 30 B a logit in all
    work = {"model": "gpt2", "task": "pretrain", "framework": "llmc", "micro_batch": 8, "seq": 1024}
    fused = make_estimate(work, {"gpu": "h100-sxm"}).training
    unfused = make_estimate(work | {"loss": "eager"}, {"gpu": "h100-sxm"}).training
    bandwidth = compute_rates(CAT.gpu("h100-sxm"), "bf16", CAT).bandwidth
    by_hand = (30 - 6) * 8 * 1024 * GPT2.vocab / bandwidth / CAT.frameworks["llmc"].efficiency
    assert unfused.step_seconds - fused.step_seconds == pytest.approx(by_hand, rel=1e-9)


def test_llmc_profile_defaults_and_fit():
    """train_gpt2.cu's defaults (fp32 master weights, ZeRO 0, of 0 and 1), and an efficiency fitted on its
    third-party runs: two source families, each predicted by the other within 10 % (framework_efficiency.yaml,
    written by scripts/fit_efficiency.py, leave one source out)."""
    prof = CAT.frameworks["llmc"]
    assert prof.master_weights and prof.default_zero == 0 and prof.zero_stages == [0, 1]
    assert prof.loss_kind == "fused" and not prof.python_launches and not prof.compile
    fit = yaml.safe_load((ROOT / "src/gpuwise/catalog/data/framework_efficiency.yaml").read_text())["efficiency"][
        "llmc"
    ]
    assert len(fit["sources"]) == 2 and not fit["pooled"] and fit["value"] == pytest.approx(prof.efficiency)
    assert fit["loso_median_abs_error"] <= 0.10 and abs(fit["loso_bias"]) <= 0.10
    with pytest.raises(LayoutError, match="runs ZeRO stages 0, 1 only"):
        make_estimate({"model": "gpt2", "task": "pretrain", "framework": "llmc", "zero": 3}, {"gpu": "h100-sxm:8"})


def test_a_corpus_run_of_llmc_within_its_bound():
    """llm.kittens' RTX 5090 baseline (GPT-2 124M, 8 micro-steps of 64 x 1,024 tokens: 2.680 s a step), estimated
    with the efficiency fitted on both sources, in sample: within 10 % (out of sample, with the other source's
    efficiency alone, docs/accuracy-time.md has it at -8 %)."""
    work = {"model": "gpt2", "task": "pretrain", "framework": "llmc", "micro_batch": 64, "global_batch": 512}
    est = make_estimate(work | {"seq": 1024}, {"gpu": "rtx-5090"}).training
    assert est.step_seconds == pytest.approx(2.67979, rel=0.10)


def test_llmc_refuses_what_it_cannot_run_and_the_search_keeps_to_data_parallelism():
    """llm.c splits no model over GPUs and trains no adapters: tensor or pipeline parallelism and LoRA are usage
    errors naming the profile's field; a layout search over 8 GPUs stays at TP1 x PP1."""
    base = {"model": "gpt2", "task": "pretrain", "framework": "llmc"}
    with pytest.raises(LayoutError, match=r"--tp 2: llm.c \(train_gpt2cu\) runs data parallelism only"):
        make_estimate(base | {"tp": 2}, {"gpu": "h100-sxm:8"})
    with pytest.raises(LayoutError, match="did you mean --pp 1"):
        make_estimate(base | {"pp": 2}, {"gpu": "h100-sxm:8"})
    with pytest.raises(UsageError, match=r"--method lora: llm\.c .* has no adapters"):
        make_estimate({**base, "task": "finetune", "method": "lora"}, {"gpu": "h100-sxm"})
    est = make_estimate(base | {"layout": "auto", "global_batch": 64}, {"gpu": "h100-sxm:8"})
    assert (est.workload.parallel.tp, est.workload.parallel.pp) == (1, 1)
