"""NVFP4 weights (--weights-dtype nvfp4): 4-bit E2M1 values with one FP8 scale per 16 (NVIDIA's NVFP4
blog), served as W4A4 GEMMs on Blackwell's FP4 tensor cores and as weight-only 4-bit elsewhere. MLPerf
Inference v6.0's Blackwell results run it (the thirty-eighth holdout's rows, scored before as int4)."""

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate.memory.states import weight_bytes_per_param
from gpuwise.estimate.serving import compute_dtype
from gpuwise.workload import InferenceJob, build_workload

CAT = load_catalog()
SERVE = {"model": "llama-3.1-8b", "task": "inference", "engine": "trtllm", "input_tokens": 1024, "output_tokens": 256}
# dense FP4 rates: B200 18 PF sparse (HGX table), B300 13 dense (NVIDIA's NVFP4 blog), RTX PRO 6000 4,000 AI TOPS sparse,
# RTX 5090 3,352 AI TOPS sparse
FP4_PEAKS = {"b200": 9.0e15, "b300": 1.3e16, "rtx-pro-6000": 2.0e15, "rtx-5090": 1.676e15}


def test_the_blackwell_gpus_carry_their_dense_fp4_rate_and_no_other_does():
    have = {g.id: g.peak_flops["fp4"] for g in CAT.gpus.values() if "fp4" in g.peak_flops}
    assert have == FP4_PEAKS
    for gid in FP4_PEAKS:  # FP4 runs at twice FP8 on the datacenter parts, at least twice on the RTX ones
        assert CAT.gpu(gid).peak_flops["fp4"] >= 2 * CAT.gpu(gid).peak_flops["fp8"]


def test_a_weight_takes_half_a_byte_and_a_sixteenth_of_its_scale():
    assert weight_bytes_per_param("nvfp4", lambda k: CAT.convention(k)) == pytest.approx(0.5 + 1 / 16)


def _job() -> InferenceJob:
    job = build_workload({**SERVE, "weights_dtype": "nvfp4"}, CAT)
    assert isinstance(job, InferenceJob)
    return job


def test_fp4_tensor_cores_where_the_gpu_has_them_else_16_bit():
    assert compute_dtype(_job(), dict(CAT.gpu("b200").peak_flops), CAT) == "fp4"
    assert compute_dtype(_job(), dict(CAT.gpu("h100-sxm").peak_flops), CAT) == "bf16"


def test_the_weights_shrink_by_the_format_and_the_rest_stays_16_bit():
    """llama-3.1-8b's block linears at 0.5625 bytes where fp8 keeps one: the weights' difference is the
    linears' 0.4375 bytes each; embeddings, norms and the LM head are the same in both."""
    fp4 = make_estimate({**SERVE, "weights_dtype": "nvfp4", "concurrency": 1}, {"gpu": "b200:1"})
    fp8 = make_estimate({**SERVE, "weights_dtype": "fp8", "concurrency": 1}, {"gpu": "b200:1"})
    model = CAT.model("llama-3.1-8b")
    linears = model.layers * sum(lin.count * lin.d_in * lin.d_out for lin in model.linears(True))
    saved = fp8.memory.per_gpu.weights - fp4.memory.per_gpu.weights
    assert saved == pytest.approx(linears * (1 - 0.5625), rel=1e-6)


def test_on_blackwell_a_compute_bound_batch_runs_faster_than_fp8_and_on_hopper_as_int4():
    big = {**SERVE, "concurrency": 256}
    on_b200 = {wd: make_estimate({**big, "weights_dtype": wd}, {"gpu": "b200:1"}) for wd in ("nvfp4", "fp8")}
    assert on_b200["nvfp4"].inference.tokens_per_second > 1.2 * on_b200["fp8"].inference.tokens_per_second
    said = " ".join(on_b200["nvfp4"].as_dict()["assumptions"])
    assert "W4A4 GEMMs on the FP4 tensor cores" in said and "b200 fp4 matmul" in said
    on_vllm = {**big, "engine": "vllm"}  # a weight-only NVFP4 kernel (FP4 Marlin) below Blackwell
    hopper = {wd: make_estimate({**on_vllm, "weights_dtype": wd}, {"gpu": "h100-sxm:1"}) for wd in ("nvfp4", "int4")}
    assert "no FP4 tensor cores" in " ".join(hopper["nvfp4"].as_dict()["assumptions"])
    # the same weight-only kernels as int4, the scales' bytes aside (1/16 of a byte a weight against 2.5/128)
    ratio = hopper["nvfp4"].inference.tokens_per_second / hopper["int4"].inference.tokens_per_second
    assert ratio == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize(
    ("work", "said"),
    [
        ({"model": "llama-3.1-8b", "task": "finetune", "method": "full"}, "serving format"),
        ({"model": "llama-3.1-8b", "task": "finetune", "method": "lora"}, "serving format"),
        ({"model": "resnet-50", "task": "inference"}, "not a decoder"),
    ],
)
def test_nvfp4_outside_llm_serving_is_refused_with_the_reason(work, said):
    with pytest.raises(UsageError, match=said):
        make_estimate({**work, "weights_dtype": "nvfp4"}, {"gpu": "b200:1"})


@pytest.mark.parametrize(
    ("gpu", "engine", "said"),
    [
        ("mi300x", "vllm", "NVFP4 kernels are NVIDIA's"),
        ("t4", "vllm", "has no FP4 tensor cores"),
        ("rtx-4090", "trtllm", r"only --engine vllm\|sglang dequantizes NVFP4 there"),
        ("b200", "lmdeploy", "--engine lmdeploy has no NVFP4 kernels"),
    ],
)
def test_nvfp4_where_no_engine_serves_it_is_refused_with_the_reason(gpu, engine, said):
    with pytest.raises(UsageError, match=said):
        make_estimate({**SERVE, "engine": engine, "weights_dtype": "nvfp4", "concurrency": 8}, {"gpu": f"{gpu}:1"})


@pytest.mark.parametrize("ttft_ms", [2000, 15])
def test_a_plan_for_nvfp4_serving_rules_out_the_gpus_that_cannot_serve_it_with_that_reason(ttft_ms):
    """Under TensorRT-LLM only a Blackwell serves NVFP4: every other GPU type is ruled out for that, before any
    timing, so a tight TTFT target (15 ms) does not hide it behind a latency reason; under vLLM an Ampere GPU
    is kept (FP4 Marlin) and an AMD or Turing one ruled out alike."""
    from gpuwise.api import make_plan
    from gpuwise.plan.results import Code

    def ruled(engine: str) -> dict[str, set[str]]:
        result = make_plan(
            {**SERVE, "engine": engine, "weights_dtype": "nvfp4"}, {"qps": 5, "ttft_ms": ttft_ms, "tpot_ms": 100}
        )
        out: dict[str, set[str]] = {}
        for r in result.rejected:
            out.setdefault(r.gpu, set()).add(str(r.reason.code))
        return out

    trt = ruled("trtllm")
    for gpu in ("h100-sxm", "a100-80gb-sxm", "rtx-4090", "t4", "mi300x"):
        assert str(Code.NO_NVFP4) in trt[gpu] or str(Code.NOT_ON_VENDOR) in trt[gpu], (gpu, trt[gpu])
    assert not any(str(Code.NO_NVFP4) in trt.get(g, set()) for g in FP4_PEAKS)
    vllm = ruled("vllm")
    assert vllm["t4"] == {str(Code.NO_NVFP4)} and vllm["mi300x"] == {str(Code.NO_NVFP4)}
    assert str(Code.NO_NVFP4) not in vllm.get("a100-80gb-sxm", set())
    sglang = ruled("sglang")  # its NVFP4 Marlin fallback reaches Turing
    assert str(Code.NO_NVFP4) not in sglang.get("t4", set()) and sglang["mi300x"] == {str(Code.NO_NVFP4)}


def test_attention_stays_at_the_fp8_rate_beside_fp4_gemms():
    """No engine runs FMHA in FP4: a long prompt's prefill on a B200 is not sped up past what FP8 attention gives
    (its attention rate is FP8's, its GEMMs FP4's)."""
    from gpuwise.estimate.rates import compute_rates

    r4, r8 = compute_rates(CAT.gpu("b200"), "fp4", CAT), compute_rates(CAT.gpu("b200"), "fp8", CAT)
    assert r4.matmul > 1.9 * r8.matmul  # twice the peak, each dtype at its own measured (or fallback) efficiency
    assert r4.attention == pytest.approx(r8.attention)


def test_the_engines_serving_nvfp4_are_catalog_data_on_known_architectures():
    """Which engine serves NVFP4 where is engines.yaml's, with its sources (vLLM's FP4 Marlin from 2025-05 on
    compute capability 8.0+, SGLang's from 2026-03 on 7.5+): a T4 (Turing) serves it under SGLang, not vLLM."""
    from gpuwise.estimate.platform import nvfp4_engines, nvfp4_refusal

    on_fp4, weight_only = nvfp4_engines(CAT)
    assert set(on_fp4) == {"trtllm", "vllm", "sglang"}
    assert weight_only["vllm"] == ("ampere", "ada", "hopper")
    assert "turing" in weight_only["sglang"] and "turing" not in weight_only["vllm"]
    known = {g.architecture for g in CAT.gpus.values()}
    assert {a for arches in weight_only.values() for a in arches} <= known
    # every Blackwell GPU of the catalog has FP4 tensor cores, so no weight-only list needs to name it
    assert all("fp4" in g.peak_flops for g in CAT.gpus.values() if g.architecture == "blackwell")
    for engine in on_fp4:
        assert "nvfp4_on_fp4" in CAT.engines[engine].field_sources, engine
    for engine in weight_only:
        assert "nvfp4_weight_only" in CAT.engines[engine].field_sources, engine
    t4 = CAT.gpu("t4")
    sglang = build_workload({**SERVE, "engine": "sglang", "weights_dtype": "nvfp4"}, CAT)
    assert nvfp4_refusal(sglang, t4, CAT) is None
    est = make_estimate({**SERVE, "engine": "sglang", "weights_dtype": "nvfp4", "concurrency": 8}, {"gpu": "t4:1"})
    assert "no FP4 tensor cores" in " ".join(est.as_dict()["assumptions"])
