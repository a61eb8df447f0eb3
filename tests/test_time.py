"""The time model against hand computation: operations, rates, collectives, steps, serving."""

import dataclasses
import math
import statistics

import pytest

from gpuwise.catalog import TransformerArch, load_catalog
from gpuwise.catalog.hf_import import arch_from_hf_config
from gpuwise.errors import UsageError
from gpuwise.estimate import estimate
from gpuwise.estimate.comm import Link, Topology, collective, topology
from gpuwise.estimate.compute import Shape, forward_flops, gemm
from gpuwise.estimate.engine import StepModel, engine_setup
from gpuwise.estimate.rates import Calibration, compute_rates
from gpuwise.estimate.run import LatencyTarget
from gpuwise.estimate.serving import LLMTimer, simulate_batches
from gpuwise.estimate.simulate import poisson_arrivals, simulate
from gpuwise.stats import percentile
from gpuwise.workload import InferenceJob, build_hardware, build_workload

CAT = load_catalog()


def test_gemm_flops_and_bytes():
    op = gemm("x", 4, 8, 16, Shape(tokens=4, seqs=1, context=4, act_bytes=2, weight_bytes=0.5))
    assert op.flops == 2 * 4 * 8 * 16
    assert op.bytes == 2 * (4 * 8 + 4 * 16) + 0.5 * 8 * 16


def test_rates_from_cited_efficiencies():
    h100 = CAT.gpu("h100-sxm")
    r = compute_rates(h100, "bf16", CAT)
    assert r.matmul == pytest.approx(0.80 * 989.4e12, rel=0.001)
    assert r.bandwidth == pytest.approx(0.80 * 3.35e12)
    cal = compute_rates(h100, "bf16", CAT, Calibration(matmul_flops={"bf16": 700e12}, memory_bandwidth=3.0e12))
    assert cal.matmul == 700e12 and cal.bandwidth == 3.0e12
    assert compute_rates(CAT.gpu("a100-80gb-sxm"), "fp8", CAT).dtype == "bf16"  # no fp8 units: 16-bit math


def test_ring_all_reduce_hand_computed():
    link = Link("x", bandwidth=100e9, latency=1e-6)
    topo = Topology(intra=link, inter=None, gpus_per_node=8, notes=(), base_latency=5e-6)
    s = 1e9
    assert collective("all_reduce", s, 8, topo, False) == pytest.approx(5e-6 + 2 * 7 / 8 * s / 100e9 + 14 * 1e-6)
    assert collective("all_gather", s, 8, topo, False) == pytest.approx(5e-6 + 7 / 8 * s / 100e9 + 7e-6)
    assert collective("all_reduce", s, 1, topo, False) == 0


def test_hierarchical_all_reduce_sends_a_shard_over_the_network():
    fast, slow = Link("nv", 300e9, 1e-6), Link("ib", 40e9, 3e-6)
    topo = Topology(intra=fast, inter=slow, gpus_per_node=8, notes=())
    s = 8e9
    expected = (2 * 7 / 8 * s / 300e9 + 14e-6) + (2 * 3 / 4 * (s / 8) / 40e9 + 6 * 3e-6)
    assert collective("all_reduce", s, 32, topo, True) == pytest.approx(expected)


def test_model_flops_match_narayanan():
    """Narayanan et al. 2021: 24*B*s*L*h^2*(1 + s/(6h) + V/(12*L*h)) forward FLOPs (GPT, tied head)."""
    h, L, V, s, B = 12288, 96, 51200, 2048, 1
    gpt3 = arch_from_hf_config(
        {"model_type": "gpt2", "n_embd": h, "n_layer": L, "n_head": 96, "vocab_size": V, "n_positions": s}, name="gpt3"
    )
    expected = 24 * B * s * L * h**2 * (1 + s / (6 * h) + V / (12 * L * h))
    assert forward_flops(gpt3, B * s, s) == pytest.approx(expected, rel=0.01)  # biases and norms add < 1 %


def test_decode_at_batch_one_is_the_weight_read():
    w = build_workload({"model": "llama-2-7b", "input_tokens": 16, "output_tokens": 16}, CAT)
    assert isinstance(w, InferenceJob)
    hw = build_hardware("a100-80gb-sxm", CAT)
    r = compute_rates(hw.gpu, "bf16", CAT)
    timer = LLMTimer(w, r, topology(hw, CAT), CAT)
    weights = 2 * w.model.params
    assert timer.decode(1, 16) == pytest.approx(weights / r.bandwidth, rel=0.03)
    assert dict(timer.decode_terms(1, 16))["memory-bandwidth"] > 0.95 * timer.decode(1, 16)


def test_prefill_is_compute_bound():
    w = build_workload({"model": "llama-2-7b", "input_tokens": 2048, "concurrency": 8}, CAT)
    assert isinstance(w, InferenceJob)
    hw = build_hardware("h100-sxm", CAT)
    r = compute_rates(hw.gpu, "bf16", CAT)
    t = LLMTimer(w, r, topology(hw, CAT), CAT).prefill(8, 2048)
    ideal = forward_flops(w.model, 8 * 2048, 1024) / r.matmul
    assert ideal < t < 1.25 * ideal


def test_data_pipeline_flips_the_bottleneck():
    """Same model and GPUs: slow storage makes the job data-pipeline bound, fast storage compute bound."""
    base = {
        "model": "resnet-50",
        "task": "pretrain",
        "micro_batch": 256,
        "sample_bytes": "110KB",
        "decode_ms": 1.0,
        "loader_cores": 64,
        "samples": "1.28M",
    }
    hw = build_hardware("a100-80gb-sxm:8", CAT)
    slow = estimate(build_workload({**base, "read_bandwidth": "200MB/s"}, CAT), hw, CAT, search_largest=False)
    fast = estimate(build_workload({**base, "read_bandwidth": "20GB/s"}, CAT), hw, CAT, search_largest=False)
    assert slow.training is not None and fast.training is not None
    assert slow.bottleneck == "data-pipeline"
    assert fast.bottleneck == "compute"
    # the slow job runs exactly at the loader's rate: 200 MB/s / 110 KB per sample
    assert slow.training.samples_per_second == pytest.approx(200e6 / 110e3)
    slow_s, fast_s = slow.training.total_seconds, fast.training.total_seconds
    assert slow_s is not None and fast_s is not None and slow_s > fast_s


def test_training_totals_and_mfu_are_consistent():
    w = build_workload(
        {
            "model": "llama-3.1-8b",
            "task": "pretrain",
            "micro_batch": 1,
            "global_batch": 256,
            "seq": 8192,
            "zero": 1,
            "recompute": "full",
            "tokens": "1T",
        },
        CAT,
    )
    e = estimate(w, build_hardware("h100-sxm:64", CAT), CAT, search_largest=False).training
    assert e is not None
    assert e.tokens_per_second == pytest.approx(256 * 8192 / e.step_seconds)
    assert e.total_seconds == pytest.approx(1e12 / e.tokens_per_second)
    assert e.total_seconds is not None
    assert e.gpu_hours == pytest.approx(e.total_seconds * 64 / 3600)
    assert e.mfu == pytest.approx(e.flops_per_step / e.step_seconds / (64 * 989.4e12), rel=0.001)
    assert 0 < e.mfu < 0.8
    assert e.hardware_flops_per_step > e.flops_per_step  # full recomputation runs the forward twice


def test_tensor_parallel_costs_communication_and_more_gpus_more_throughput():
    base = {"model": "llama-2-13b", "task": "pretrain", "micro_batch": 1, "seq": 4096, "zero": 1}
    one = estimate(
        build_workload({**base, "global_batch": 64}, CAT),
        build_hardware("a100-80gb-sxm:8", CAT),
        CAT,
        search_largest=False,
    ).training
    tp = estimate(
        build_workload({**base, "global_batch": 64, "tp": 2}, CAT),
        build_hardware("a100-80gb-sxm:8", CAT),
        CAT,
        search_largest=False,
    ).training
    more = estimate(
        build_workload({**base, "global_batch": 128}, CAT),
        build_hardware("a100-80gb-sxm:16", CAT),
        CAT,
        search_largest=False,
    ).training
    assert one is not None and tp is not None and more is not None
    assert tp.terms["tensor_parallel_comm"] > 0 and "tensor_parallel_comm" not in one.terms
    assert more.tokens_per_second > 1.8 * one.tokens_per_second


def test_simulator_matches_md1_queue():
    """Batch size 1, constant service: the M/D/1 mean wait is rho / (2 mu (1 - rho))."""
    mu, rho = 100.0, 0.7
    lat, util, stopped = simulate_batches(lambda b: 1 / mu, rho * mu, 1, 40000, seed=1)
    assert not stopped
    mean = statistics.fmean(lat[4000:])
    assert mean == pytest.approx(1 / mu + rho / (2 * mu * (1 - rho)), rel=0.05)
    assert util == pytest.approx(rho, rel=0.05)


def test_serving_plan_meets_its_target_in_an_independent_simulation():
    # 5 s: the 80 % e2e band of an 8B model on an L40S (out-of-sample serving errors) reaches 1.28x the
    # estimate, so a 4 s P95 is out of reach at its pessimistic end whatever the replicas
    target = 5.0
    w = build_workload({"model": "llama-3.1-8b", "input_tokens": 512, "output_tokens": 128, "concurrency": 16}, CAT)
    assert isinstance(w, InferenceJob)
    hw = build_hardware("l40s", CAT)
    plan = estimate(w, hw, CAT, target=LatencyTarget(qps=6, percentile=95, seconds=target)).serving
    assert plan is not None
    m = plan.margins  # the target holds at the pessimistic end of the 80 % bands (the default confidence)
    assert m is not None and m.e2e > 1 and m.rate < 1
    assert plan.meets and plan.replicas >= 1 and plan.high("e2e") <= target
    r = compute_rates(hw.gpu, "bf16", CAT)
    step = StepModel(w, r, topology(hw, CAT), CAT)
    setup = dataclasses.replace(engine_setup(w, hw, CAT), max_batch=plan.max_batch)
    e2e = simulate(step, setup, poisson_arrivals(6 / plan.replicas, 4000, 7), w.input_tokens).e2e
    assert percentile(e2e[400:], 95) * m.e2e <= target * 1.1
    if plan.replicas > 1:  # one fewer replica misses the target at the band's end (or cannot carry the load there)
        load = 6 / (plan.replicas - 1)
        if load < plan.capacity_rps * m.rate:
            fewer = simulate(step, setup, poisson_arrivals(load, 4000, 7), w.input_tokens).e2e
            assert percentile(fewer[400:], 95) * m.e2e > target * 0.9


def test_impossible_latency_target_is_reported():
    w = build_workload({"model": "llama-2-70b", "input_tokens": 4000, "output_tokens": 500, "tp": 4}, CAT)
    plan = estimate(
        w, build_hardware("a100-80gb-sxm:4", CAT), CAT, target=LatencyTarget(qps=1, percentile=99, seconds=0.1)
    ).serving
    assert plan is not None
    assert not plan.meets and plan.replicas == 0 and any("alone takes" in n for n in plan.notes)


def test_vision_serving_uses_dynamic_batching():
    w = build_workload({"model": "resnet-50", "concurrency": 32}, CAT)
    e = estimate(w, build_hardware("t4", CAT), CAT, target=LatencyTarget(qps=500, percentile=95, seconds=0.05))
    assert e.serving is not None and e.inference is not None
    assert e.serving.meets and e.inference.samples_per_second > 0
    assert e.serving.utilization < 1


def test_unknown_peaks_give_memory_but_no_time():
    """A board whose vendor publishes no compute figures (every catalog GPU has some today)."""
    w = build_workload({"model": "llama-2-7b", "method": "qlora"}, CAT)
    hw = build_hardware("a10g", CAT)
    hw = dataclasses.replace(hw, gpu=dataclasses.replace(hw.gpu, peak_flops={}))
    e = estimate(w, hw, CAT, search_largest=False)
    assert e.training is None and any("no published compute" in n for n in e.as_dict()["assumptions"])


@pytest.mark.parametrize("gpu", ["t4", "l4", "a10", "a100-80gb-sxm", "h100-sxm", "h200", "mi300x"])
def test_faster_memory_decodes_faster(gpu):
    w = build_workload({"model": "llama-2-7b", "input_tokens": 128, "output_tokens": 128}, CAT)
    assert isinstance(w, InferenceJob)
    e = estimate(w, build_hardware(gpu, CAT), CAT, search_largest=False).inference
    assert e is not None
    g = CAT.gpu(gpu)
    # batch-1 decode reads ~13.5 GB of weights per token: time within 10 % of that over 80 % of bandwidth
    # (on CDNA3 the 55.7 % hipBLASLt's one-row GEMMs were measured to stream at), plus the engine's fixed
    # cost per layer of each step
    share = 0.557 if g.architecture == "cdna3" else 0.8
    step = CAT.engine("vllm").layer_overhead_seconds * w.model.layers
    assert e.decode_seconds_per_token == pytest.approx(
        2 * w.model.params / (share * g.memory_bandwidth) + step, rel=0.10
    )
    assert math.isfinite(e.latency_seconds)


def test_step_is_the_sum_of_its_named_terms():
    """13B on 16 H100s (two nodes), tp2 x pp2 x dp4, 16 micro-batches per step: every term is present,
    the step is their sum, and the 1F1B bubble is (pp - 1) = 1 micro-batch of compute + TP comm."""
    opts = {"model": "llama-2-13b", "task": "pretrain", "tp": 2, "pp": 2, "micro_batch": 1, "global_batch": 64}
    w = build_workload({**opts, "seq": 4096, "tokens": "1B"}, CAT)
    t = estimate(w, build_hardware("h100-sxm:16", CAT), CAT, search_largest=False).training
    assert t is not None
    named = {
        "compute",
        "tensor_parallel_comm",
        "pipeline_bubble",
        "pipeline_p2p",
        "data_parallel_comm",
        "optimizer_step",
    }
    assert set(t.terms) == named
    assert t.step_seconds == pytest.approx(sum(t.terms.values()), rel=1e-12)
    m = 64 // (1 * 4)  # global batch / (micro-batch x data-parallel ranks)
    per_micro_batch = (t.terms["compute"] + t.terms["tensor_parallel_comm"]) / m
    assert t.terms["pipeline_bubble"] == pytest.approx(per_micro_batch, rel=1e-12)


def test_a_slow_loader_sets_the_step_and_the_wait_is_a_named_term():
    """8 A100s, 8 x 256 samples per step; one node's loaders deliver min(1 GB/s / 100 kB,
    8 cores / 10 ms) = min(10,000, 800) = 800 samples/s: the step takes 2048 / 800 = 2.56 s."""
    opts = {"model": "resnet-50", "task": "pretrain", "micro_batch": 256, "samples": "1M"}
    data = {"read_bandwidth": "1GB/s", "sample_bytes": "100KB", "decode_ms": 10, "loader_cores": 8}
    w = build_workload({**opts, **data}, CAT)
    t = estimate(w, build_hardware("a100-80gb-sxm:8", CAT), CAT, search_largest=False).training
    assert t is not None
    assert t.step_seconds == pytest.approx(2.56, rel=1e-12)
    assert t.bottleneck == "data-pipeline" and t.terms["data_wait"] > 0
    assert sum(t.terms.values()) == pytest.approx(t.step_seconds, rel=1e-12)


def test_interconnects_as_measured_by_nccl_tests():
    """collectives.yaml: GeForce boards without peer-to-peer stage rings through host memory at the
    busbw published for 8x RTX 5090 (28 GB/s, PCIe 5), scaled for the 4090's PCIe 4 by the
    host-device copy rates (26.28 / 51 GB/s); an H100 NVLink bridge pair at its measured 116 GB/s."""
    from gpuwise.estimate.comm import topology as topo_of

    eight = topo_of(build_hardware("rtx-4090:8", CAT, gpus_per_node=8), CAT).intra.bandwidth
    assert eight == pytest.approx(28e9 * 26.28e9 / 51e9)
    assert topo_of(build_hardware("rtx-5090:8", CAT, gpus_per_node=8), CAT).intra.bandwidth == pytest.approx(28e9)
    assert topo_of(build_hardware("h100-pcie:2", CAT, gpus_per_node=2), CAT).intra.bandwidth == pytest.approx(116e9)


def test_framework_efficiency_scales_compute_only():
    """The step's compute term is the roofline time divided by the profile's fitted efficiency:
    halving the efficiency doubles it (hand check of the one factor each profile carries)."""
    from dataclasses import replace as dc_replace

    w = build_workload({"model": "llama-2-7b", "task": "pretrain", "framework": "megatron"}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    base = estimate(w, hw, CAT, search_largest=False).training
    prof = CAT.frameworks["megatron"]
    slow = dc_replace(CAT, frameworks={**CAT.frameworks, "megatron": dc_replace(prof, efficiency=prof.efficiency / 2)})
    half = estimate(w, hw, slow, search_largest=False).training
    assert base is not None and half is not None
    assert half.terms["compute"] == pytest.approx(2 * base.terms["compute"])


def test_context_parallel_splits_tokens_and_sliding_window_shortens_context():
    """cp=2 halves the tokens a rank computes (the queries still see the whole sequence); Mistral's
    4,096-token window caps the keys each query attends to at 8,192 tokens: (w(w+1)/2 + (t-w)w)/t."""
    from gpuwise.estimate.compute import mean_context

    m = CAT.model("mistral-7b-v0.1")
    assert isinstance(m, TransformerArch)
    assert m.sliding_window == 4096
    t, w = 8192, 4096
    assert mean_context(m, t) == pytest.approx((w * (w + 1) / 2 + (t - w) * w) / t)
    one = build_workload({"model": "llama-2-7b", "task": "pretrain", "seq": 4096}, CAT)
    two = build_workload({"model": "llama-2-7b", "task": "pretrain", "seq": 4096, "cp": 2}, CAT)
    t1 = estimate(one, build_hardware("h100-sxm:2", CAT), CAT, search_largest=False).training
    t2 = estimate(two, build_hardware("h100-sxm:2", CAT), CAT, search_largest=False).training
    assert t1 is not None and t2 is not None
    assert t2.terms["compute"] < t1.terms["compute"] and "context_parallel_comm" not in t1.terms


def test_eager_elementwise_bytes_hand_computed():
    """Llama 3.1 8B block (h 4096, q 4096, kv 1024, ffn 14336, 2 norms), one token, 16-bit: fused
    kernels move 2 x (2*2h + 6h + 2(q+kv) + 3f) bytes; eager RMSNorm (36 B/element), rotary (20)
    and SwiGLU (10) move 2 x (2*18h + 6h + 10(q+kv) + 5f) (torchtitan's model code)."""
    from gpuwise.estimate.compute import layer_ops

    m = CAT.model("llama-3.1-8b")
    eager = tuple((op, CAT.convention(f"eager_{op}_bytes")) for op in ("norm", "rotary", "gated_act"))

    def elementwise(shape: Shape) -> float:
        return next(o.bytes for o in layer_ops(m, shape, 1, False) if o.name == "elementwise")

    fused = elementwise(Shape(tokens=1, seqs=1, context=1))
    assert fused == 2 * (2 * 2 * 4096 + 6 * 4096 + 2 * 5120 + 3 * 14336) == 188416
    assert elementwise(Shape(tokens=1, seqs=1, context=1, eager_bytes=eager)) == 2 * (
        2 * 18 * 4096 + 6 * 4096 + 10 * 5120 + 5 * 14336
    )


def test_autocast_fp32_stream_bytes_hand_computed():
    """ViT-B/16 block (h 768, q 768, kv 768, ffn 3072, 2 LayerNorms), one token, plain
    AMP over fp32 parameters: each LayerNorm reads and writes fp32 and its output is cast (14 B/element),
    each residual add reads 4 + 2 and writes 4 (10), the heads' output is copied back to tokens x hidden
    (4), GELU stays fused (2 + 2 per element of the ffn); against 2 x (2*2h + 6h + 2(q+kv) + 2f) fused."""
    from gpuwise.estimate.compute import layer_ops

    m = CAT.model("vit-base-patch16-224")
    assert isinstance(m, TransformerArch) and m.norm == "layernorm"
    names = (
        ("layout_copy", "eager_attention_layout_copy_bytes"),
        ("residual", "autocast_fp32_residual_bytes"),
        ("norm", "autocast_layernorm_bytes"),
    )
    amp = tuple((op, CAT.convention(name)) for op, name in names)
    assert dict(amp) == {"layout_copy": 4, "residual": 10, "norm": 14}

    def elementwise(shape: Shape) -> float:
        return next(o.bytes for o in layer_ops(m, shape, 1, False) if o.name == "elementwise")

    h, f = 768, 3072
    assert elementwise(Shape(tokens=1, seqs=1, context=1)) == 2 * (2 * 2 * h + 6 * h + 2 * 2 * h + 2 * f) == 33792
    assert elementwise(Shape(tokens=1, seqs=1, context=1, eager_bytes=amp)) == 2 * (
        2 * 7 * h + 2 * 5 * h + 2 * 2 * h + 2 * f + 2 * h
    )


def test_autocast_traffic_only_under_plain_amp():
    """The fp32 residual stream is plain AMP's (autocast over unsharded fp32 parameters): DDP under the
    PyTorch stack pays it, FSDP's 16-bit parameter copies (zero 3), Megatron's fused kernels and
    torch.compile do not; the estimate names it."""
    hw = build_hardware("a100-80gb-sxm:8", CAT)
    base = {"model": "vit-base-patch16-224", "task": "pretrain", "micro_batch": 128, "precision": "fp16"}

    def run(**extra: object) -> tuple[float, bool]:
        est = estimate(build_workload({**base, **extra}, CAT), hw, CAT, search_largest=False)
        assert est.training is not None
        return est.training.step_seconds, any("autocast over fp32 parameters" in a for a in est.notes)

    ddp, named = run(framework="fsdp", zero=0)
    assert named
    compiled, named_compiled = run(framework="fsdp", zero=0, compile=True)
    assert not named_compiled and compiled < ddp
    for other in ({"framework": "fsdp", "zero": 3}, {"framework": "megatron"}):
        assert not run(**other)[1]


def test_torch_compile_speeds_up_eager_stacks_only():
    """torchtitan without torch.compile pays the eager elementwise traffic; Megatron's hand-fused
    kernels do not depend on the flag."""
    hw = build_hardware("h100-sxm:8", CAT)

    def step(framework: str, compiled: bool) -> float:
        opts = {"model": "llama-3.1-8b", "task": "pretrain", "seq": 8192, "micro_batch": 2, "zero": 3}
        w = build_workload({**opts, "framework": framework, "compile": compiled}, CAT)
        t = estimate(w, hw, CAT, search_largest=False).training
        assert t is not None
        return t.step_seconds

    assert step("torchtitan", False) > 1.05 * step("torchtitan", True)
    assert step("megatron", False) == step("megatron", True)


def test_a_gpu_models_own_matmul_measurement_wins_over_its_architecture():
    """RTX 4090: 178.8 TFLOP/s measured bf16 matmul (mag-/gpu_benchmark) over the 165.2 datasheet
    peak, instead of the default for architectures without a measurement."""
    r = compute_rates(CAT.gpu("rtx-4090"), "bf16", CAT)
    assert r.matmul == pytest.approx(165.2e12 * 1.082)
    # the RTX 4080 has no published measurement of its own and Ada none of its architecture
    assert compute_rates(CAT.gpu("rtx-4080"), "bf16", CAT).matmul == pytest.approx(
        97.5e12 * CAT.convention("matmul_efficiency_default")
    )


@pytest.mark.parametrize(
    ("gpu", "dtype", "measured_tflops"),
    [
        # zzc0721/torch-performance-test-data database.md: the median of three cloud T4s (41.91, 42.71,
        # 41.93 TFLOP/s fp16), far below the 48.75 the 0.75 default gave: a 70 W card's clock is power-capped
        ("t4", "fp16", 41.93),
        # the same database: a 250 W A100 PCIe 40GB, not the 400 W SXM's 0.87 x 312 = 271.4 of matmul_efficiency_ampere
        ("a100-40gb-pcie", "bf16", 234.14),
        ("a100-40gb-pcie", "fp16", 241.49),
        # RTX PRO 6000: fp16 GEMMs measured a quarter below bf16 ones on two boards; each dtype keeps its own
        ("rtx-pro-6000", "bf16", 417.98),
        ("rtx-pro-6000", "fp16", 315.51),
        # mag-/gpu_benchmark (mamf-finder with Optuna): H100 PCIe at 350 W
        ("h100-pcie", "bf16", 499.5),
        # H100 PCIe has no fp16 measurement: its bf16 one applies to fp16 too
        ("h100-pcie", "fp16", 499.5),
        # Bekman's MAMF table: B200 bf16, and its fp8 measurement for fp8
        ("b200", "bf16", 1745.0),
        ("b200", "fp8", 3432.5),
    ],
)
def test_measured_matmul_rates_of_power_limited_and_newer_cards(gpu: str, dtype: str, measured_tflops: float):
    """Each GPU's large-GEMM rate is its published measurement (to the 4 digits its efficiency keeps)."""
    assert compute_rates(CAT.gpu(gpu), dtype, CAT).matmul / 1e12 == pytest.approx(measured_tflops, rel=2e-4)


def test_eager_attention_materializes_the_scores():
    """Without FlashAttention (Megatron 2021-22): QK^T and PV as batched GEMMs over all 2,048 keys
    (masked ones too), and 8 bytes per score element of softmax traffic forward (write, read and
    write in the fused softmax, read by PV) over 32 heads; fused attention counts the causal half."""
    from gpuwise.estimate.compute import layer_ops

    m = CAT.model("llama-3.1-8b")
    scores = (CAT.convention("eager_attention_score_bytes"), CAT.convention("eager_attention_dropout_bytes"))
    ops = {o.name: o for o in layer_ops(m, Shape(tokens=2048, seqs=1, context=1024.5, scores=scores), 1, False)}
    assert ops["attention_gemms"].flops == 4 * 2048 * 2048 * 4096
    assert ops["attention_scores"].bytes == 8 * 2048 * 2048 * 32  # no attention dropout in Llama
    fused = {o.name: o for o in layer_ops(m, Shape(tokens=2048, seqs=1, context=1024.5), 1, False)}
    assert fused["attention"].flops == 4 * 2048 * 1024.5 * 4096 and "attention_scores" not in fused


def test_attention_at_the_measured_rate_of_the_stacks_kernel():
    """FlashAttention-3 paper, H100 SXM, head dim 128, 16k tokens: cuDNN 539 TFLOP/s forward (causal)
    and 516 backward -> 3.5 / (989.5/539 + 2.5 * 989.5/516) = 0.53 of peak; FlashAttention-2 35 %;
    on A100 the FlashAttention-2 paper's 60 %."""
    from gpuwise.estimate.training import _attention_rate

    blend = 3.5 / (989.5 / 539 + 2.5 * 989.5 / 516)
    assert abs(blend - 0.53) < 0.005
    rates = compute_rates(CAT.gpu("h100-sxm"), "bf16", CAT)
    for framework, share in (("nemo", 0.53), ("torchtitan", 0.35)):
        w = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": framework}, CAT)
        assert _attention_rate(w, rates, CAT, []).attention == pytest.approx(share * rates.peak)
    a100 = compute_rates(CAT.gpu("a100-80gb-sxm"), "bf16", CAT)
    w = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": "nemo"}, CAT)
    assert _attention_rate(w, a100, CAT, []).attention == pytest.approx(0.60 * a100.peak)


def test_flashattention2_on_b200_at_its_measured_rate_not_on_consumer_blackwell():
    """cudnn-frontend's SDPA training benchmark on a B200 (causal, head dim 128, 32k tokens):
    FlashAttention-2 438.873 TFLOP/s forward, 363.713 backward -> 3.5 / (1/438.873 + 2.5/363.713)
    = 382.4 TFLOP/s, 0.170 of 2,250; cuDNN 1435.072 / 1132.387 -> 1,205, 0.536. The RTX 5090 (also
    Blackwell) runs FlashAttention-2's instructions at its own peak: the default 60 % stays."""
    from gpuwise.estimate.training import _attention_rate

    fa2, cudnn = 3.5 / (1 / 438.873 + 2.5 / 363.713), 3.5 / (1 / 1435.072 + 2.5 / 1132.387)
    assert abs(fa2 / 2250 - 0.170) < 5e-4 and abs(cudnn / 2250 - 0.536) < 5e-4
    b200 = compute_rates(CAT.gpu("b200"), "bf16", CAT)
    for framework, share in (("torchtitan", 0.170), ("nemo", 0.536)):
        w = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": framework}, CAT)
        notes: list[str] = []
        assert _attention_rate(w, b200, CAT, notes).attention == pytest.approx(share * 2.25e15)
        assert any("on b200 [attention_efficiency_" in n for n in notes), notes
    b300 = compute_rates(CAT.gpu("b300"), "bf16", CAT)
    for framework, share in (("torchtitan", 0.178), ("nemo", 0.634)):  # GB300's 401 and 1,427 TFLOP/s of 2,250
        w = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": framework}, CAT)
        assert _attention_rate(w, b300, CAT, []).attention == pytest.approx(share * 2.25e15)
    rtx = compute_rates(CAT.gpu("rtx-5090"), "bf16", CAT)
    w = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": "torchtitan"}, CAT)
    assert _attention_rate(w, rtx, CAT, []).attention == pytest.approx(min(rtx.matmul, 0.60 * rtx.peak))


def test_mi250x_matmul_at_its_measured_rate():
    """127 TFLOP/s on one MI250X GCD of 191.5 -> 0.6632 (CDNA2's share; the catalog source
    ml-engineering-mamf-mi250x, in place of the 147.0 of mamf-finder's v1 table, which its README says reads
    high); MI210 keeps its own 142.8 / 181 measurement."""
    assert compute_rates(CAT.gpu("mi250x-gcd"), "bf16", CAT).matmul == pytest.approx(127e12, rel=1e-3)
    assert compute_rates(CAT.gpu("mi210"), "bf16", CAT).matmul == pytest.approx(0.789 * 181e12, rel=1e-3)


def test_tp_comm_overlap_hides_what_the_gemms_cover():
    """With Transformer Engine's userbuffers overlap each block's TP all-gathers/reduce-scatters run
    under its GEMMs: exposed = layers x max(0, comm - GEMM seconds); without it all of it is exposed."""
    from gpuwise.estimate.training import _tensor_parallel_comm

    w = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": "nemo", "tp": 4}, CAT)
    topo = topology(build_hardware("h100-sxm:8", CAT), CAT)
    exposed = _tensor_parallel_comm(w, w.model, 8192, topo, 32, 0.0, CAT)
    per_layer = exposed / 32
    on = dataclasses.replace(
        CAT, frameworks={**CAT.frameworks, "nemo": dataclasses.replace(CAT.frameworks["nemo"], tp_comm_overlap=True)}
    )
    assert _tensor_parallel_comm(w, w.model, 8192, topo, 32, per_layer / 4, on) == pytest.approx(32 * 0.75 * per_layer)
    assert _tensor_parallel_comm(w, w.model, 8192, topo, 32, 2 * per_layer, on) == 0
    assert _tensor_parallel_comm(w, w.model, 8192, topo, 32, per_layer / 4, CAT) == exposed  # the profile's default


# ---- MoE: capacity factor and expert-tensor parallelism -----------------------------------------
def _moe_job(**opts):
    return build_workload({"model": "mixtral-8x7b-v0.1", "task": "pretrain", "seq": 4096, "ep": 4, **opts}, CAT)


def test_padded_capacity_factor_scales_expert_gemms_by_the_factor():
    """Mixtral (h 4096, ffn 14336, 8 experts, top-2), 4096 tokens, ep 4: 8192 token copies over the
    GPU's 2 experts. Dropless, experts_up = 2 x 8192 x 4096 x 2*14336 FLOPs; padded to a capacity of
    1.25 x the even share, 1.25 times that; without padding the factor only drops (0.5: half)."""
    from gpuwise.estimate.compute import layer_ops

    model = CAT.model("mixtral-8x7b-v0.1")
    s = Shape(tokens=4096, seqs=1, context=2048.5)

    def up(load: float) -> float:
        return next(o.flops for o in layer_ops(model, s, 1, False, 4, None, load) if o.name == "experts_up")

    assert up(1.0) == 2 * 8192 * 4096 * 2 * 14336
    assert up(1.25) == pytest.approx(1.25 * up(1.0))
    assert _moe_job().expert_load == 1.0
    assert _moe_job(capacity_factor=1.25, pad_to_capacity=True).expert_load == 1.25
    assert _moe_job(capacity_factor=1.25).expert_load == 1.0  # at uniform routing nothing is over capacity
    assert _moe_job(capacity_factor=0.5).expert_load == 0.5


def test_padded_capacity_factor_scales_the_all_to_all_bytes(monkeypatch):
    """Each all-to-all of a layer (dispatch, combine; forward, backward) moves the rank's token copies:
    4096 tokens x top-2 x h 4096 x 2 bytes = 67,108,864 dropless, 1.25 x that padded."""
    from gpuwise.estimate import training

    sent: list[tuple[str, float, int]] = []
    monkeypatch.setattr(
        training, "collective", lambda kind, b, ranks, topo, spans_nodes: sent.append((kind, b, ranks)) or 1.0
    )
    hw = build_hardware("h100-sxm:8", CAT)
    for job in (_moe_job(), _moe_job(capacity_factor=1.25, pad_to_capacity=True)):  # 1 s per collective
        assert training._expert_parallel_comm(job, hw, job.model, 4096, topology(hw, CAT), CAT, []) == 4
    assert sent == [("all_to_all", 4096 * 2 * 4096 * 2, 4), ("all_to_all", 1.25 * 4096 * 2 * 4096 * 2, 4)]


def test_expert_tensor_parallelism_keeps_flops_and_gathers_over_etp(monkeypatch):
    """tp 2, ep 2, etp 2 vs etp 1: each GPU runs the same expert FLOPs (etp/tp of the copies, ffn/etp
    wide); etp 2 adds an all-gather + reduce-scatter forward and backward (2 all-reduce volumes) of
    the etp ranks' copies: the rank's 2048-token shard x 2 x 4096 x 2 bytes x etp 2."""
    from gpuwise.estimate import training
    from gpuwise.estimate.compute import layer_ops

    model = CAT.model("mixtral-8x7b-v0.1")
    s = Shape(tokens=4096, seqs=1, context=2048.5)
    flops = [
        sum(o.flops for o in layer_ops(model, s, 2, True, 2, etp) if o.name.startswith("experts")) for etp in (1, 2)
    ]
    assert flops[0] == pytest.approx(flops[1]) and flops[0] == pytest.approx(2 * 8192 * 4096 * 3 * 14336 / 2)
    sent: list[tuple[str, float, int]] = []
    monkeypatch.setattr(
        training, "collective", lambda kind, b, ranks, topo, spans_nodes: sent.append((kind, b, ranks)) or 1.0
    )
    hw = build_hardware("h100-sxm:8", CAT)
    job = _moe_job(tp=2, ep=2, etp=2)
    assert training._expert_parallel_comm(job, hw, job.model, 4096, topology(hw, CAT), CAT, []) == 4 + 2  # 1 s each
    copies = 2048 * 2 * 4096 * 2
    assert sent == [("all_to_all", copies, 2), ("all_reduce", 2 * copies, 2)]


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        (("--ep", "4", "--etp", "4"), "must divide the tp x cp x dp = 8 ranks"),
        (("--ep", "2", "--etp", "3"), "must divide the expert FFN width 14336"),
        (("--pad-to-capacity",), "give --capacity-factor"),
    ],
)
def test_bad_expert_layout_is_a_usage_error(args, rule, capsys):
    """ep x etp must divide a pipeline stage's tp x cp x dp ranks (Megatron's expert grid)."""
    from .conftest import run_main

    code, _, err = run_main(capsys, "estimate", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100-sxm:8", *args)
    assert code == 2 and rule in err


def test_full_recomputation_reruns_the_forward_all_to_alls(monkeypatch):
    """Full recomputation runs each MoE layer's forward again in backward: dispatch and combine
    twice more, 6 all-to-alls a layer instead of 4 (1 s each here)."""
    from gpuwise.estimate import training

    monkeypatch.setattr(training, "collective", lambda kind, b, ranks, topo, spans_nodes: 1.0)
    hw = build_hardware("h100-sxm:8", CAT)
    job = _moe_job(recompute="full")
    assert training._expert_parallel_comm(job, hw, job.model, 4096, topology(hw, CAT), CAT, []) == 6


def test_cdna3_rates_are_the_published_kernel_measurements():
    """AMD's maximum-achievable hipBLASLt GEMMs (ROCm blog, Feb 2025: MI300X 708 TFLOP/s BF16, 1273 FP8;
    MI325X 843 BF16), Hugging Face's one-row FP8 GEMM timings of Llama 3.1 405B at TP8 on MI300X
    (14.938 + 77.636 + 31.066 us for 2304x16384 + 13312x16384 + 16384x6656 bytes) and ROCm
    FlashAttention-2 at H100's FlashAttention-2 rate (35 % of 989.5 TFLOP/s)."""
    mi300x, mi325x = CAT.gpu("mi300x"), CAT.gpu("mi325x")
    assert compute_rates(mi300x, "bf16", CAT).matmul == pytest.approx(708e12, rel=1e-3)
    assert compute_rates(mi300x, "fp8", CAT).matmul == pytest.approx(1273e12, rel=1e-3)
    assert compute_rates(mi325x, "bf16", CAT).matmul == pytest.approx(843e12, rel=1e-3)
    streamed = (2304 * 16384 + 13312 * 16384 + 16384 * 6656) / ((14.938 + 77.636 + 31.066) * 1e-6)
    fp8 = compute_rates(mi300x, "fp8", CAT)
    assert fp8.matmul_bandwidth == pytest.approx(streamed, rel=2e-3)  # 2.95 TB/s of the 5.3
    assert fp8.attention == pytest.approx(0.35 * 989.5e12 / 1307.4e12 * 2614.9e12, rel=0.01)
    # a one-row GEMM streams at the measured rate; an elementwise kernel still at the copy rate
    assert fp8.time(2 * 2304 * 16384, 2304 * 16384, "matmul") == pytest.approx(2304 * 16384 / streamed, rel=2e-3)
    assert fp8.time(0.0, 1e9, "memory") == pytest.approx(1e9 / (0.8 * 5.3e12))
    h100 = compute_rates(CAT.gpu("h100-sxm"), "bf16", CAT)
    assert h100.matmul_bandwidth is None and h100.bandwidth_of("matmul") == h100.bandwidth


def test_training_attention_on_cdna3_runs_at_rocm_flashattention_rate():
    """torchtitan (FlashAttention-2) on MI300X: attention at the CDNA3 rate, named in the assumptions."""
    w = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": "torchtitan", "seq": 8192}, CAT)
    e = estimate(w, build_hardware("mi300x:8", CAT), CAT, search_largest=False)
    assert any(
        "attention at 26% of peak on mi300x [attention_efficiency_cdna3]" in n for n in e.as_dict()["assumptions"]
    )


def test_pipeline_sends_a_tensor_parallel_ranks_share_with_or_without_sequence_parallelism():
    """13B (hidden 5120) on 16 H100s, tp2 x pp2 x dp4, micro-batch 1 x 4096 tokens in bf16, 16 micro-batches:
    each stage boundary carries 4096 x 5120 x 2 B = 41.9 MB, and each of the 2 tensor-parallel ranks sends
    half of it (Megatron's scatter/gather; DeepSpeed's partitioned pipe buffers) whether or not sequence
    parallelism shards the tensor already: 2 x (20.97 MB / link + latency) per micro-batch, (16 + 1) sends."""
    from gpuwise.estimate.comm import p2p

    opts = {"model": "llama-2-13b", "task": "pretrain", "tp": 2, "pp": 2, "micro_batch": 1, "global_batch": 64}
    hw = build_hardware("h100-sxm:16", CAT)
    link = topology(hw, CAT).intra  # tp x pp = 4 consecutive ranks stay inside a node of 8
    want = (16 + 2 - 1) * 2 * p2p(4096 * 5120 * 2 / 2, link)
    for sp in (True, False):
        w = build_workload({**opts, "seq": 4096, "tokens": "1B", "sequence_parallel": sp}, CAT)
        t = estimate(w, hw, CAT, search_largest=False).training
        assert t is not None
        assert t.terms["pipeline_p2p"] == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize(
    ("rate", "batch", "limit", "p"), [(80.0, 1, 0.02, 99), (95.0, 4, 0.03, 95), (30.0, 8, 0.5, 99)]
)
def test_dynamic_batching_stops_only_where_the_full_run_misses(rate, batch, limit, p):
    """Judged by `targets`, a run stops once more than the tolerated requests after the warm-up exceed
    the limit: then the full run's percentile misses it; a run that does not stop is the full run."""
    from gpuwise.estimate.simulate import Targets
    from gpuwise.stats import tolerated

    n, skip = 2000, 200

    def service(b: int) -> float:
        return 0.008 + 0.002 * b

    full, busy, stopped = simulate_batches(service, rate, batch, n, outside=0.001)
    assert not stopped
    judged = Targets(skip, tolerated(n - skip, p), e2e=limit)
    part, part_busy, missed = simulate_batches(service, rate, batch, n, outside=0.001, targets=judged)
    assert missed == (percentile(full[skip:], p) > limit)
    if missed:
        assert part == full[: len(part)] and len(part) < n
    else:
        assert (part, part_busy) == (full, busy)


@pytest.mark.parametrize("rate", [0.37, 1.0, 50.0, 15000 / 7, 1e6])
def test_arrivals_drawn_once_are_the_floats_expovariate_gives(rate):
    """poisson_arrivals scales one set of draws to each rate: the same floats as drawing
    random.expovariate(rate) afresh, gap by gap."""
    import random

    rng, t, fresh = random.Random(3), 0.0, []
    for _ in range(2000):
        t += rng.expovariate(rate)
        fresh.append(t)
    assert poisson_arrivals(rate, 2000, 3) == fresh


def test_evaluation_inside_the_run_adds_its_forward_passes():
    """nanoGPT's shakespeare-char config: 5,000 steps, an evaluation every 250 (eval_interval) of
    eval_iters = 200 batches on each of two splits: 20 x 400 = 8,000 forward passes of a micro-batch,
    each about a third of a training step (the backward is twice the forward); the steps are unchanged."""
    spec = {
        "model": "gpt2",
        "task": "pretrain",
        "micro_batch": 64,
        "global_batch": 64,
        "seq": 256,
        "tokens": 5_000 * 64 * 256,
        "framework": "fsdp",
        "zero": 0,
    }
    hw = build_hardware("a100-40gb-sxm:1", CAT)
    plain = estimate(build_workload(spec, CAT), hw, CAT).as_dict()["training"]
    timed = estimate(build_workload(spec | {"eval_every": 250, "eval_batches": 400}, CAT), hw, CAT).as_dict()
    t = timed["training"]
    assert t["step_seconds"] == plain["step_seconds"] and "eval_seconds" not in plain
    assert t["total_seconds"] == pytest.approx(plain["total_seconds"] + t["eval_seconds"])
    one_forward = t["eval_seconds"] / 8_000
    assert 0.25 * plain["step_seconds"] < one_forward < 0.4 * plain["step_seconds"]
    assert (timed["workload"]["eval_every"], timed["workload"]["eval_batches"]) == (250, 400)


def test_an_evaluation_needs_both_its_figures():
    with pytest.raises(UsageError, match="--eval-every needs --eval-batches"):
        build_workload({"model": "gpt2", "task": "pretrain", "eval_every": 250}, CAT)


def test_a_momentum_encoder_adds_a_forward_per_micro_batch_and_a_weight_copy():
    """MoCo (He et al. 2020): the key encoder, a moving-average copy of ResNet-50, encodes every
    micro-batch without a backward: a forward pass more per micro-batch (about a third of the
    forward + backward the query encoder does) and a second copy of the fp32 weights in memory."""
    spec = {"model": "resnet-50", "task": "pretrain", "precision": "fp32", "optimizer": "sgd", "micro_batch": 32}
    spec |= {"global_batch": 256, "samples": 1_000_000, "framework": "fsdp", "zero": 0}
    hw = build_hardware("v100-32gb-sxm:8", CAT)
    plain = estimate(build_workload(spec, CAT), hw, CAT).as_dict()
    moco = estimate(build_workload(spec | {"momentum_encoder": True}, CAT), hw, CAT).as_dict()
    forward = moco["training"]["step_terms"]["momentum_encoder_forward"]
    assert (
        0.25 * plain["training"]["step_terms"]["compute"] < forward < 0.45 * plain["training"]["step_terms"]["compute"]
    )
    assert moco["training"]["step_seconds"] == pytest.approx(plain["training"]["step_seconds"] + forward)
    copy = moco["memory"]["detail"]["momentum_encoder"]
    assert copy == pytest.approx(CAT.model("resnet-50").params * 4)
    assert moco["workload"]["momentum_encoder"] is True


@pytest.mark.parametrize(
    ("framework", "zero", "bucket"),
    [
        # DeepSpeed's reduce_bucket_size (and its engine's all-reduce without ZeRO) counts elements: 5e8 of them in
        # its 16-bit bucket buffer (stage_1_and_2 allocates ipg_buffer in the model dtype), 2 B each
        ("deepspeed", 2, 5e8 * 2),
        ("deepspeed", 0, 5e8 * 2),
        # the Trainer's DeepSpeed config leaves it 'auto': hidden_size^2 = 4096^2 elements for Llama 2 7B
        ("hf-trainer", 2, 4096 * 4096 * 2),
        # the Trainer without ZeRO is PyTorch DDP: 25 MiB buckets, in bytes
        ("hf-trainer", 0, 25 * 2**20),
        # Megatron's --ddp-bucket-size counts 40M elements of its gradient buffer: fp32 under bf16 (160 MB) ...
        ("megatron", 1, 40e6 * 4),
        # ... and bf16 under --grad-reduce-in-bf16 (80 MB)
        ("megatron+bf16-reduce", 1, 40e6 * 2),
    ],
)
def test_the_gradient_bucket_is_counted_in_each_stacks_unit(framework, zero, bucket):
    from gpuwise.estimate.memory.states import reduce_bucket_bytes, state_bytes, training_element_bytes

    spec = {"model": "llama-2-7b", "framework": framework.split("+")[0], "zero": zero, "method": "full"}
    if framework.endswith("+bf16-reduce"):
        spec["grad_reduce_dtype"] = "bf16"
    work = build_workload(spec, CAT)
    prof = CAT.framework(spec["framework"])
    grad = state_bytes(work, prof, CAT.convention).gradient
    assert reduce_bucket_bytes(work, prof, CAT.convention, training_element_bytes(work), grad) == pytest.approx(bucket)


def test_zero_offload_times_the_cpu_adam_step_of_each_host():
    """DeepSpeed's CPU-Adam runs after the backward on every rank's partition at once, sharing its host: at
    DeepSpeed's measured 1.41e9 parameters/s a host (PR #735: 11.6B in 8.2 s), 8 ranks of one node with ZeRO-2
    update 8 x 1/8 of Llama 2 7B's parameters, and 16 ranks on two nodes each host's half: n / 1.41e9 and
    n / 2 / 1.41e9 seconds. FSDP's CPU offload (torch's optimizer on the host) has no sourced rate."""
    opts = {"model": "llama-2-7b", "method": "full", "framework": "deepspeed", "zero": 2, "offload": "optimizer"}
    work = build_workload({**opts, "micro_batch": 1, "seq": 1024}, CAT)
    n = CAT.model("llama-2-7b").params
    for gpus, share in (("a100-80gb-sxm:8", 1.0), ("a100-80gb-sxm:16", 0.5)):
        est = estimate(work, build_hardware(gpus, CAT), CAT)
        assert est.training.terms["cpu_optimizer_step"] == pytest.approx(n * share / 1.41e9, rel=0.01)
    fsdp = build_workload({**opts, "framework": "fsdp", "zero": 3, "micro_batch": 1, "seq": 1024}, CAT)
    assert "cpu_optimizer_step" not in estimate(fsdp, build_hardware("a100-80gb-sxm:8", CAT), CAT).training.terms
