"""vLLM V1's --async-scheduling (vLLM pull request #19970): the scheduler runs one step ahead, so the host work it
does for each sequence (0.0125 ms a step, vLLM pull request #23914, engines.yaml) runs beside the step's GPU work
instead of after it. Checked by hand against the step model without that host work."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.comm import topology
from gpuwise.estimate.engine import StepModel
from gpuwise.estimate.rates import compute_rates
from gpuwise.workload import build_hardware, build_workload

CAT = load_catalog()
JOB = {"model": "llama-3.1-8b", "task": "inference", "engine": "vllm", "input_tokens": 256, "output_tokens": 256}
PER = 1.25e-5


def _step(cat=CAT, **extra: object) -> StepModel:
    job = build_workload(JOB | extra, cat)
    hw = build_hardware("h100-sxm:1", cat)
    return StepModel(job, compute_rates(hw.gpu, "bf16", cat), topology(hw, cat), cat)


def test_the_host_work_adds_to_a_step_unless_overlapped():
    """Synchronous: a step of n sequences is the bare step + n x 12.5 us. Overlapped: the longer of the step's
    GEMM work and the host work, plus the engine's fixed step overhead."""
    bare_cat = replace(CAT, engines={**CAT.engines, "vllm": replace(CAT.engine("vllm"), host_seconds_per_sequence=0.0)})
    bare, sync, overlapped = _step(bare_cat), _step(), _step(async_scheduling=True)
    assert CAT.engine("vllm").host_seconds_per_sequence == PER and CAT.engine("vllm").async_scheduling
    for n in (1, 64, 256):
        assert sync.fixed(n, n) - bare.fixed(n, n) == pytest.approx(n * PER)
        # Llama 3.1 8B's weights (16 GB) take about 6 ms a step on an H100: far longer than 256 x 12.5 us = 3.2 ms
        assert overlapped.fixed(n, n) == pytest.approx(bare.fixed(n, n))
    gemms = bare.fixed(1024, 1024) - bare.overhead  # one step of 1,024 sequences: its GEMMs and logits
    host = 1024 * PER  # 12.8 ms of host work
    assert overlapped.fixed(1024, 1024) == pytest.approx(max(gemms, host) + bare.overhead)


def test_the_estimate_says_which_way_the_host_work_runs_and_is_faster_overlapped():
    busy = JOB | {"concurrency": 128, "input_tokens": 1024}
    sync = make_estimate(busy, {"gpu": "h100-sxm:1"}).as_dict()
    overlapped = make_estimate(busy | {"async_scheduling": True}, {"gpu": "h100-sxm:1"}).as_dict()
    assert any("while the GPU waits" in a for a in sync["assumptions"])
    assert any("with --async-scheduling" in a and "the longer of the two" in a for a in overlapped["assumptions"])
    tpot = sync["inference"]["decode_seconds_per_token"] - overlapped["inference"]["decode_seconds_per_token"]
    assert tpot == pytest.approx(128 * PER, rel=0.05)  # 128 sequences a step: 1.6 ms


@pytest.mark.parametrize("engine", ["sglang", "trtllm", "vllm-v0", "transformers"])
def test_an_engine_without_the_mode_refuses_it(engine):
    with pytest.raises(UsageError, match="--async-scheduling is an option of vllm"):
        build_workload(JOB | {"engine": engine, "async_scheduling": True}, CAT)


def test_a_plan_timed_with_scheduling_overlapped_deploys_vllm_with_it():
    from gpuwise.deploy.engines import vllm_args

    def flags(work) -> list[str]:
        return [str(getattr(a, "value", a)) for a in vllm_args(work, ("m", "the model"), 32, (0.9, "util"))]

    assert "--async-scheduling" in flags(build_workload(JOB | {"async_scheduling": True}, CAT))
    assert "--async-scheduling" not in flags(build_workload(JOB, CAT))


def test_a_small_models_step_is_host_bound_when_overlapped():
    """Qwen2.5-0.5B (24 layers, hidden 896) at 512 sequences on an H100: its GEMMs take less than the 512 x 12.5 us
    = 6.4 ms of host work, so the overlapped step is the host work plus the step overhead, longer than the bare step."""
    bare_cat = replace(CAT, engines={**CAT.engines, "vllm": replace(CAT.engine("vllm"), host_seconds_per_sequence=0.0)})
    small = {"model": "corpus/data/holdout_configs/qwen2.5-0.5b.json"}
    bare, overlapped = _step(bare_cat, **small), _step(async_scheduling=True, **small)
    n = 512
    gemms = bare.fixed(n, n) - bare.overhead
    assert gemms < n * PER
    assert overlapped.fixed(n, n) == pytest.approx(n * PER + bare.overhead)
    assert overlapped.fixed(n, n) > bare.fixed(n, n)


def test_pipeline_batches_in_flight_hide_the_host_work_as_async_scheduling_does():
    """V1 with --pp 2 keeps two batches in flight and schedules the next while one runs (its batch queue): the host
    work overlaps without the flag; vLLM V0 (--engine vllm-v0) has no such queue and keeps its 0.1 ms a sequence."""
    pp, flagged = _step(pp=2), _step(pp=2, async_scheduling=True)
    assert pp.overlapped and flagged.overlapped
    assert pp.fixed(64, 64) == pytest.approx(flagged.fixed(64, 64))
    v0 = _step(engine="vllm-v0", pp=2)
    assert not v0.overlapped


def test_n_gram_speculative_decoding_refuses_async_scheduling():
    with pytest.raises(UsageError, match="n-gram"):
        build_workload(JOB | {"async_scheduling": True, "speculative_tokens": 3, "speculative_acceptance": 0.7}, CAT)


def test_the_kubernetes_server_image_has_the_flag_it_is_given():
    """vllm/vllm-openai:v0.8.5 predates --async-scheduling (vLLM pull request #19970): a plan timed with it deploys
    an image that has it, and one timed without keeps the default image."""
    from gpuwise.deploy import inference
    from gpuwise.deploy.common import DeployOptions

    hw = build_hardware("h100-sxm:1", CAT)
    opts = DeployOptions()
    overlapped = build_workload(JOB | {"async_scheduling": True}, CAT)
    assert inference._image("vllm", hw.gpu, opts, overlapped)[0] == inference.VLLM_ASYNC_IMAGE
    assert inference._image("vllm", hw.gpu, opts, build_workload(JOB, CAT))[0] == inference.VLLM_IMAGE
