"""PEFT's LoRA modules as the time model runs them: per targeted layer, lora_A reads the input again,
lora_B writes a full-width output that is scaled and added to the frozen layer's (PEFT v0.10.0
lora/layer.py Linear.forward), and the backward mirrors them: 2 + 12 bytes per 16-bit input and output
element forward, 10 + 8 backward (conventions lora_adapter_*). Widths hand-computed for Llama 2 7B
(hidden 4,096, MLP 11,008, full multi-head attention)."""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.training import _adapter_seconds
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()
HW = build_hardware("a100-80gb-sxm:2", CAT)
RATES = compute_rates(HW.gpu, "bf16", CAT)
TOKENS = 4096


def _job(**opts: object) -> TrainingJob:
    base = {"model": "llama-2-7b", "task": "finetune", "method": "lora", "framework": "hf-trainer", "seq": 4096}
    job = build_workload({**base, **opts}, CAT)
    assert isinstance(job, TrainingJob)
    return job


def _expected(width_in: float, width_out: float) -> tuple[float, float]:
    forward = RATES.time(0.0, TOKENS * (2 * width_in + 12 * width_out), "memory")
    backward = RATES.time(0.0, TOKENS * (10 * width_in + 8 * width_out), "memory")
    return forward, backward


def test_the_default_targets_q_and_v():
    # q_proj and v_proj: 4,096 in and 4,096 out each
    got = _adapter_seconds(_job(), TOKENS, RATES, CAT, [])
    assert got == pytest.approx(_expected(2 * 4096, 2 * 4096))


def test_every_linear_and_tensor_parallel_slices():
    # q, k, v, gate, up read the 4,096-wide input, o 4,096, down 11,008: 35,584 in; out 4 x 4,096 + 2 x 11,008 + 4,096
    targets = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"
    got = _adapter_seconds(_job(lora_targets=targets), TOKENS, RATES, CAT, [])
    assert got == pytest.approx(_expected(5 * 4096 + 4096 + 11008, 4 * 4096 + 2 * 11008 + 4096))
    # TP 2: the row-parallel o and down take half their input, the rest half their output
    got = _adapter_seconds(_job(lora_targets=targets, tp=2), TOKENS, RATES, CAT, [])
    assert got == pytest.approx(_expected(5 * 4096 + 2048 + 5504, 3 * 2048 + 2 * 5504 + 2 * 4096))


def test_stacks_with_their_own_adapters_and_full_training_pay_nothing():
    assert _adapter_seconds(_job(framework="torchtune"), TOKENS, RATES, CAT, []) == (0.0, 0.0)
    assert _adapter_seconds(_job(framework="unsloth"), TOKENS, RATES, CAT, []) == (0.0, 0.0)
    assert _adapter_seconds(_job(method="full"), TOKENS, RATES, CAT, []) == (0.0, 0.0)


def test_the_estimate_names_them():
    from gpuwise.api import make_estimate

    work = {"model": "llama-2-7b", "task": "finetune", "method": "lora", "framework": "hf-trainer", "seq": 4096}
    est = make_estimate(work, {"gpu": "a100-80gb-sxm:1"})
    assert est.training is not None
    assert any("PEFT's eager modules" in n for n in est.training.notes)
