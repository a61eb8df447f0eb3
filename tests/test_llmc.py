"""llm.c (`--framework llmc`): its fused classifier's loss traffic, its kernels issued from C, its profile's
fit, by hand and against the corpus' third-party runs."""

from __future__ import annotations

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.errors import LayoutError
from gpuwise.estimate.compute import LOSS_BYTES_PER_LOGIT, Shape, head_ops
from gpuwise.estimate.dispatch import host_wait
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.training import _loss_bytes
from gpuwise.workload import TrainingJob

CAT = load_catalog()
GPT2 = CAT.model("gpt2")


def test_a_fused_loss_moves_a_fifth_of_an_unfused_ones_bytes():
    """The loss op of 4 x 1,024 tokens over GPT-2's 50,257 logits: 10 B a logit forward unfused (an fp32
    upcast written and re-read), 2 B fused (llm.c's classifier, `--loss fused`); the backward of each is
    twice its forward (backward_ratio_elementwise), 30 against 6 B a logit in all."""
    shape = Shape(tokens=4096, seqs=4, context=512.5, act_bytes=2, weight_bytes=2, eager_bytes=(), scores=None)
    unfused = next(o for o in head_ops(GPT2, shape, 1, 4096, loss=True) if o.name == "loss")
    fused = next(o for o in head_ops(GPT2, shape, 1, 4096, loss=True, loss_bytes=2) if o.name == "loss")
    assert unfused.bytes == 10 * 4096 * 50257 and fused.bytes == 2 * 4096 * 50257
    notes: list[str] = []
    assert _loss_bytes(TrainingJob(model=GPT2, framework="llmc"), CAT, notes) == 2
    assert "6 with its backward" in notes[0]
    assert _loss_bytes(TrainingJob(model=GPT2, framework="hf-trainer", loss="fused"), CAT, []) == 2
    assert _loss_bytes(TrainingJob(model=GPT2, framework="hf-trainer"), CAT, []) == LOSS_BYTES_PER_LOGIT == 10


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


def test_llmc_profile_defaults_and_fit():
    """train_gpt2.cu's defaults (fp32 master weights, ZeRO 0, of 0 and 1) and an efficiency fitted on its
    third-party runs (two source families, each predicted by the other within 10 %)."""
    prof = CAT.frameworks["llmc"]
    assert prof.master_weights and prof.default_zero == 0 and prof.zero_stages == [0, 1]
    assert prof.loss_kind == "fused" and not prof.python_launches and not prof.compile
    assert 0.85 < prof.efficiency < 1.0
    with pytest.raises(LayoutError, match="runs ZeRO stages 0, 1 only"):
        make_estimate({"model": "gpt2", "task": "pretrain", "framework": "llmc", "zero": 3}, {"gpu": "h100-sxm:8"})
