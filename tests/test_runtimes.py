"""`--engine` as the runtime of models described operator by operator (eager PyTorch, TorchScript,
ONNX Runtime, TensorRT, TensorRT under Triton) and LMDeploy beside the LLM engines: the kernels each
launches on hand-computed cases, the catalog's two lists kept equal to the schema's, the choices
refused for the other kind of model, and the project's own published eager table end to end."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest
import yaml

from corpus.operators_accuracy import with_values
from gpuwise.catalog import GenericArch, Operator, load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate import estimate
from gpuwise.estimate.operators import operator_seconds, operator_step, served_batch
from gpuwise.estimate.rates import Rates, compute_rates, power_capped
from gpuwise.workload import build_hardware, build_workload
from gpuwise.workload.specs import LLM_ENGINES, RUNTIMES

from .conftest import run_process

ROOT = Path(__file__).resolve().parents[1]
CAT = load_catalog()
_PLAIN_VALUES = {
    "operator_conv_efficiency_turing_tensor16": 0.5,
    "operator_memory_efficiency_normalization": 0.5,
    "operator_memory_efficiency_elementwise": 1.0,
    "operator_memory_efficiency_data_movement": 1.0,
    "operator_host_seconds_eager_turing": 0.0,
    "operator_kernel_floor_seconds": 0.0,
}
PLAIN = with_values(CAT, _PLAIN_VALUES)
T4 = CAT.gpu("t4")
RATES = Rates(gpu=T4, dtype="fp16", peak=100e12, matmul=80e12, attention=60e12, bandwidth=1e12, notes=())
# a conv with a folded batch norm, a residual add and relu fused into it (TensorRT, ONNX Runtime's
# FusedConv) and a SiLU that only TensorRT fuses
BLOCK = GenericArch(
    name="block",
    task="vision",
    params=1000,
    operators=(
        Operator("0.convolution", "convolution", flops=1e9, act_bytes=1e6, param_bytes=2e6),
        Operator("1.native_batch_norm", "normalization", flops=0.0, act_bytes=2e6, fused_into=0),
        Operator("1.add", "elementwise", flops=0.0, act_bytes=3e6, fused_into=0),
        Operator("2.relu", "elementwise", flops=0.0, act_bytes=2e6, fused_into=0),
        Operator("3.silu", "elementwise", flops=0.0, act_bytes=2e6, fused_into=0),
    ),
)


def test_the_schema_and_the_catalog_name_the_same_engines_and_runtimes():
    assert set(LLM_ENGINES) == set(CAT.engines)
    assert set(RUNTIMES) == set(CAT.runtimes)


def test_each_runtime_launches_its_kernels_hand_computed():
    """Batch 4: the conv is compute-bound at 4 GFLOP / (0.5 x the 80 TFLOP/s GEMM rate) = 100 us; each elementwise kernel
    moves 4 x its bytes at 1 TB/s, the norm at half that."""
    conv, bn, add, relu, silu = 100e-6, 8e6 / 0.5e12, 12e6 / 1e12, 8e6 / 1e12, 8e6 / 1e12
    graph = operator_seconds(BLOCK, 4, RATES, PLAIN, training=False, runtime="graph")
    assert graph.kernels == 5 and graph.total == pytest.approx(conv + bn + add + relu + silu)
    folded = operator_seconds(BLOCK, 4, RATES, PLAIN, training=False, runtime="folded")
    assert folded.kernels == 2 and folded.total == pytest.approx(conv + silu)  # only SiLU on its own
    compiled = operator_seconds(BLOCK, 4, RATES, PLAIN, training=False, runtime="compiled")
    assert compiled.kernels == 1 and compiled.total == pytest.approx(conv)


def test_eager_at_16_bit_casts_each_weight_on_every_call():
    """torch.autocast casts the conv's weight on each call: its 2 MB of 16-bit weights are read as
    fp32 (4 MB) and written as 16-bit (2 MB), 6 MB at 1 TB/s = 6 us more than without the casts."""
    with_casts = served_batch(BLOCK, 4, 1, RATES, PLAIN, "eager")
    plain = operator_seconds(BLOCK, 4, RATES, PLAIN, training=False, runtime="eager", autocast=False)
    assert with_casts.gpu_seconds == pytest.approx(plain.total + 2e6 * 3 / 1e12)
    assert with_casts.outside_seconds == 0.0 and set(with_casts.terms) == {"gpu"}


def test_only_triton_adds_the_servers_request_terms():
    triton = served_batch(BLOCK, 4, 1, RATES, PLAIN, "triton")
    tensorrt = served_batch(BLOCK, 4, 1, RATES, PLAIN, "tensorrt")
    assert tensorrt.terms == {"gpu": pytest.approx(100e-6)} and tensorrt.outside_seconds == 0
    assert triton.terms["gpu"] == tensorrt.terms["gpu"]
    assert triton.outside_seconds == pytest.approx(
        sum(v for k, v in triton.terms.items() if k not in ("gpu", "input_copy"))
    )
    assert triton.outside_seconds > 0 and "batching_delay" in triton.terms


def test_a_timed_loop_that_copies_each_batch_from_the_host_adds_the_copy_hand_computed():
    """FlagPerf's p_infer_core times `model([x])`, whose TensorRT wrapper calls `x.cuda()` on the pinned
    batch: 256 ImageNet images of 3 x 224 x 224 fp32 = 154,140,672 B over the A100's PCIe 4.0 x16 at
    its host-device copy rate (26.28 GB/s), about 5.87 ms, before the kernels."""
    opts = {
        "model": "resnet-50",
        "task": "inference",
        "weights_dtype": "fp16",
        "concurrency": 256,
        "engine": "tensorrt",
    }
    on_gpu = _estimate(**opts, gpu="a100-40gb-sxm")["inference"]
    copied = _estimate(**opts, input_from_host=True, gpu="a100-40gb-sxm")["inference"]
    nbytes = 256 * 3 * 224 * 224 * 4
    assert nbytes == 154_140_672
    copy = nbytes / CAT.interconnect("pcie4-x16").achieved_bandwidth
    assert copy == pytest.approx(5.87e-3, rel=0.01)
    assert copied["latency_seconds"] == pytest.approx(on_gpu["latency_seconds"] + copy)
    assert copied["samples_per_second"] == pytest.approx(256 / (on_gpu["latency_seconds"] + copy))


def test_input_from_host_is_refused_for_an_llm():
    with pytest.raises(UsageError, match="described operator by operator"):
        build_workload({"model": "llama-2-7b", "task": "inference", "input_from_host": True}, CAT)


def test_cuda_graphs_replace_each_kernels_launch_floor_with_the_graph_floor_hand_computed():
    """TensorRT folds BLOCK into one conv kernel of 100 us: launched on its own it adds the launch floor, replayed
    from a CUDA graph the graph floor (set to 12 us and 5 us here); the estimate names the graph and its floor."""
    floors = with_values(CAT, {"operator_kernel_floor_seconds": 12e-6, "operator_kernel_floor_seconds_graphs": 5e-6})
    floors = with_values(floors, {k: v for k, v in _PLAIN_VALUES.items() if k != "operator_kernel_floor_seconds"})
    launched = served_batch(BLOCK, 4, 1, RATES, floors, "tensorrt")
    graphed = served_batch(BLOCK, 4, 1, RATES, floors, "tensorrt", cuda_graphs=True)
    assert launched.gpu_seconds == pytest.approx(100e-6 + 12e-6)
    assert graphed.gpu_seconds == pytest.approx(100e-6 + 5e-6)
    assert any("replayed from one CUDA graph" in n and "(5 us" in n for n in graphed.notes)
    assert not any("CUDA graph" in n for n in launched.notes)


def test_resnet50_at_batch_1_under_cuda_graphs_saves_the_floor_difference_on_every_kernel():
    """End to end: the latency of an int8 TensorRT ResNet-50 at batch 1 falls by its kernel count times (launch floor -
    graph floor), the kernel count as the assumptions print it; the resolved workload says --cuda-graphs."""
    opts = {"model": "resnet-50", "task": "inference", "engine": "tensorrt", "weights_dtype": "int8", "concurrency": 1}
    plain = _estimate(**opts, gpu="l4")
    graphed = _estimate(**opts, cuda_graphs=True, gpu="l4")
    said = next(a for a in graphed["assumptions"] if "kernels per batch" in a)
    kernels = int(said.split(": ")[1].split(" kernels")[0])
    assert kernels == 56
    conv = CAT.conventions
    saved = kernels * (conv["operator_kernel_floor_seconds"].value - conv["operator_kernel_floor_seconds_graphs"].value)
    assert plain["inference"]["latency_seconds"] - graphed["inference"]["latency_seconds"] == pytest.approx(saved)
    assert graphed["workload"]["cuda_graphs"] is True and plain["workload"]["cuda_graphs"] is False


@pytest.mark.parametrize(
    ("opts", "says"),
    [
        ({"model": "resnet-50", "engine": "eager"}, "applies to --engine tensorrt or triton; here the engine is eager"),
        ({"model": "resnet-50", "engine": "onnxruntime"}, "here the engine is onnxruntime"),
        ({"model": "llama-2-7b", "engine": "vllm"}, "here the engine is vllm .it captures its decode steps"),
    ],
)
def test_cuda_graphs_is_refused_where_no_compiled_engine_times_the_model(opts: dict[str, str], says: str):
    with pytest.raises(UsageError, match=says):
        build_workload({**opts, "task": "inference", "cuda_graphs": True}, CAT)


def test_under_triton_graphs_change_the_kernels_not_the_servers_terms():
    """Triton's TensorRT backend replays the same graph: the GPU term falls by the kernel's floor difference, the
    request floor, RPC and queue terms around it stay."""
    floors = with_values(PLAIN, {"operator_kernel_floor_seconds": 12e-6, "operator_kernel_floor_seconds_graphs": 5e-6})
    launched = served_batch(BLOCK, 4, 1, RATES, floors, "triton")
    graphed = served_batch(BLOCK, 4, 1, RATES, floors, "triton", cuda_graphs=True)
    assert launched.terms["gpu"] - graphed.terms["gpu"] == pytest.approx(7e-6)
    assert {k: v for k, v in graphed.terms.items() if k != "gpu"} == {
        k: v for k, v in launched.terms.items() if k != "gpu"
    }


def test_an_encoder_under_tensorrt_takes_graphs_and_under_the_default_is_refused():
    """BERT under --engine tensorrt is written out operator by operator, so each of its kernels saves the floor
    difference; under the default engine it is timed by its layer totals, so --cuda-graphs has nothing to act on
    and is refused rather than ignored."""
    opts = {"model": "bert-base-uncased", "task": "inference", "concurrency": 1, "input_tokens": 128}
    plain = _estimate(**opts, engine="tensorrt", gpu="l4")
    graphed = _estimate(**opts, engine="tensorrt", cuda_graphs=True, gpu="l4")
    said = next(a for a in graphed["assumptions"] if "kernels per batch" in a)
    kernels = int(said.split(": ")[1].split(" kernels")[0])
    conv = CAT.conventions
    saved = kernels * (conv["operator_kernel_floor_seconds"].value - conv["operator_kernel_floor_seconds_graphs"].value)
    assert plain["inference"]["latency_seconds"] - graphed["inference"]["latency_seconds"] == pytest.approx(saved)
    with pytest.raises(UsageError, match="timed operator by operator"):
        build_workload({**opts, "cuda_graphs": True}, CAT)


GEMM = GenericArch(
    name="gemm", task="vision", params=1, operators=(Operator("0.gemm", "gemm", flops=1e12, act_bytes=0.0),)
)


@pytest.mark.parametrize(
    ("gpu", "share"),
    [
        ("rtx-4090", 0.6619),  # its own fp32 torch.mm row, not its bf16 tensor cores' 108.2 %
        ("l40", 0.6233),  # no row of its own: the Ada boards' median
        ("a100-80gb-sxm", 0.9836),  # GA100: one FP32 datapath, near its peak
        ("v100-32gb-sxm", 0.8955),  # no TF32: the Volta row it always had
    ],
)
def test_a_full_fp32_gemm_runs_at_the_measured_fp32_rate(gpu, share):
    """A GEMM in full fp32 (TF32 off) runs at the GPU's measured fp32 torch.mm rate (matmul_efficiency_<gpu>_fp32,
    else its architecture's): on a GeForce or workstation board the fp32 peak counts two FP32 datapaths an SM a
    GEMM does not keep busy; the tensor-core rates are unchanged."""
    board = CAT.gpu(gpu)
    assert compute_rates(board, "fp32", CAT).matmul == pytest.approx(board.peak_flops["fp32"] * share)
    if gpu == "rtx-4090":
        assert compute_rates(board, "bf16", CAT).matmul == pytest.approx(board.peak_flops["bf16"] * 1.082)


CONV = GenericArch(
    name="conv", task="vision", params=1, operators=(Operator("0.conv", "convolution", flops=1e12, act_bytes=0.0),)
)


@pytest.mark.parametrize(
    ("gpu", "on_tf32"),
    [
        ("a100-80gb-sxm", True),
        ("h100-sxm", True),
        ("rtx-4090", False),
        ("a10", False),
        ("v100-32gb-sxm", False),
        ("t4", False),
        ("mi300x", False),
    ],
)
def test_an_fp32_training_step_runs_its_convolutions_on_the_faster_of_tf32_and_fp32(gpu, on_tf32):
    """PyTorch's defaults in an fp32 training step (eager): cuDNN may run convolutions on TF32 tensor cores
    (torch.backends.cudnn.allow_tf32 is True) and takes its faster kernels; matmuls stay in full fp32 (TF32 off
    since 1.12). On an A100 or H100 a convolution takes what it takes at --precision tf32; on an RTX 4090 (TF32
    tensor rate = its fp32 rate), an A10 (TF32 convolutions at the fitted efficiency no faster), GPUs without TF32
    (V100, T4) and AMD's (MIOpen has no such default) the CUDA-core fp32 kernels stay. A GEMM runs at the measured
    fp32 GEMM rate either way (the kernel floors are microseconds against these 52 ms kernels)."""
    board = CAT.gpu(gpu)
    fp32 = compute_rates(board, "fp32", PLAIN)
    conv, gemm = (sum(operator_step(m, 1, fp32, PLAIN, 1.0, [])) for m in (CONV, GEMM))
    plain = operator_seconds(CONV, 1, fp32, PLAIN, training=True)
    if on_tf32:
        tf32 = compute_rates(board, "tf32", PLAIN)
        assert conv == pytest.approx(sum(operator_step(CONV, 1, tf32, PLAIN, 1.0, [])))
        assert conv < (plain.forward + plain.backward) / 2
    else:
        assert conv == pytest.approx(plain.forward + plain.backward)
    # three GEMMs of 1 TFLOP (forward, data and weight gradients) at the measured fp32 rate (A100: 19.5 x 98.36 %)
    assert gemm == pytest.approx(3e12 / fp32.matmul, rel=2e-3)


def test_a_power_cap_slows_the_tf32_convolutions_of_an_fp32_step_as_it_does_a_tf32_one():
    """The TF32 path keeps what the fp32 rates carry (a power cap's clock and its lower GEMM rate, a calibration's
    bandwidth): an A100 capped at 200 W takes as long for an fp32 step's convolutions as for a --precision tf32
    step's under the same cap, longer than uncapped; the MFU is taken against the TF32 peak (never above 100 %)."""
    a100 = CAT.gpu("a100-80gb-sxm")
    capped = {d: power_capped(compute_rates(a100, d, PLAIN), 200, PLAIN) for d in ("fp32", "tf32")}
    conv = sum(operator_step(CONV, 1, capped["fp32"], PLAIN, 1.0, []))
    assert conv == pytest.approx(sum(operator_step(CONV, 1, capped["tf32"], PLAIN, 1.0, [])))
    assert conv > sum(operator_step(CONV, 1, compute_rates(a100, "fp32", PLAIN), PLAIN, 1.0, []))
    run = _estimate(model="resnet-50", task="pretrain", micro_batch=64, precision="fp32", gpu="a100-80gb-sxm")
    t = run["training"]
    assert t["mfu"] == pytest.approx(t["flops_per_step"] / t["step_seconds"] / a100.peak_flops["tf32"])
    assert 0 < t["mfu"] < 1
    assert any("fp32 convolutions on TF32 tensor cores" in a for a in run["assumptions"])


def test_tf32_matmul_runs_eager_fp32_gemms_on_tf32_tensor_cores_hand_computed():
    """1 TFLOP of fp32 GEMM on an A100 at a 100 TFLOP/s achievable TF32 rate: PyTorch's default (TF32 off for
    matmuls) scales it by the measured fp32 GEMM rate over the TF32 one, both at the catalog's efficiencies (19.5
    TFLOP/s x 97.85 %, matmul_efficiency_a100-40gb-sxm_fp32, over 156 x 87 %, matmul_efficiency_ampere): 0.0711 s;
    --tf32-matmul runs it at the TF32 rate, 0.01 s, and says so."""
    a100 = CAT.gpu("a100-40gb-sxm")
    rates = Rates(gpu=a100, dtype="tf32", peak=156e12, matmul=100e12, attention=60e12, bandwidth=1e12, notes=())
    quiet = with_values(PLAIN, {"operator_host_seconds_eager_ampere": 0.0})
    assert a100.peak_flops["fp32"] == pytest.approx(19.5e12)
    default = served_batch(GEMM, 1, 1, rates, quiet, "eager")
    on = served_batch(GEMM, 1, 1, rates, quiet, "eager", tf32_matmul=True)
    assert default.gpu_seconds == pytest.approx(1e12 / (100e12 * (19.5 * 0.9785) / (156 * 0.87)))
    assert on.gpu_seconds == pytest.approx(1e12 / 100e12)
    assert any("--tf32-matmul" in n for n in on.notes) and not any("--tf32-matmul" in n for n in default.notes)


@pytest.mark.parametrize(
    ("opts", "says"),
    [
        ({"engine": "tensorrt", "weights_dtype": "fp32"}, "tensorrt sets its own"),
        ({"engine": "eager", "precision": "fp16"}, "applies to fp32 weights computed in fp32"),
        ({"engine": "eager", "weights_dtype": "fp32", "precision": "fp16"}, "here --precision fp16 over"),
        ({"engine": "torch-compile", "weights_dtype": "fp32", "precision": "bf16"}, "here --precision bf16 over"),
    ],
)
def test_tf32_matmul_is_refused_outside_pytorch_fp32(opts: dict[str, str], says: str):
    with pytest.raises(UsageError, match=says):
        build_workload({"model": "resnet-50", "task": "inference", "tf32_matmul": True, **opts}, CAT)


def test_tf32_matmul_reaches_a_generate_loop_and_is_refused_by_a_serving_engine():
    """A transformers generate loop is PyTorch eager: --tf32-matmul puts its fp32 GEMMs on TF32 (faster prefill than
    PyTorch's default full fp32); vLLM sets its own matmul precision, so the flag is refused there."""
    opts = {"model": "llama-3.1-8b", "task": "inference", "engine": "transformers", "weights_dtype": "fp32"}
    opts |= {"precision": "tf32", "input_tokens": 512, "output_tokens": 16, "concurrency": 1}
    default = _estimate(**opts, gpu="a100-80gb-sxm")["inference"]
    on = _estimate(**opts, tf32_matmul=True, gpu="a100-80gb-sxm")["inference"]
    assert on["time_to_first_token_seconds"] < default["time_to_first_token_seconds"] / 2
    with pytest.raises(UsageError, match="vllm sets its own"):
        build_workload({**opts, "engine": "vllm", "tf32_matmul": True}, CAT)


def test_tf32_matmul_on_a_gpu_without_tf32_says_it_changes_nothing():
    t4 = Rates(gpu=T4, dtype="fp32", peak=8e12, matmul=7e12, attention=6e12, bandwidth=0.3e12, notes=())
    on = served_batch(GEMM, 1, 1, t4, PLAIN, "eager", tf32_matmul=True)
    assert on.gpu_seconds == served_batch(GEMM, 1, 1, t4, PLAIN, "eager").gpu_seconds
    assert any("has no TF32 tensor cores" in n for n in on.notes)


def test_the_graph_floor_is_the_fit_scripts_and_below_the_launch_floor():
    """The convention is written by scripts/fit_graph_floor.py (its --check runs in test_fits) and says its
    out-of-sample error; a graph saves the launch, so its floor is below the launch floor."""
    graph = CAT.conventions["operator_kernel_floor_seconds_graphs"]
    assert graph.source == "gpuwise-fit-graph-floor" and "out of sample" in graph.why
    assert 0 < graph.value < CAT.conventions["operator_kernel_floor_seconds"].value


def _estimate(**opts: object) -> dict[str, typing.Any]:
    gpu = str(opts.pop("gpu"))
    work = build_workload(opts, CAT)
    return estimate(work, build_hardware(gpu, CAT, default_count=1), CAT).as_dict()


def test_eager_resnet50_on_a_t4_at_batch_1_is_the_projects_published_table():
    """DeepLearningExamples' PyTorch ResNet-50 README, T4 mixed precision, batch 1: 12.96 ms average
    latency (corpus/data/operators_accuracy.yaml, case pt-infer-t4-fp16-b1). In sample: the eager
    host time and kernel floor were fitted with this table (scripts/fit_operators.py)."""
    d = _estimate(model="resnet-50", engine="eager", gpu="t4")
    assert d["workload"]["engine"] == "eager"
    assert d["inference"]["latency_seconds"] == pytest.approx(12.96e-3, rel=0.05)
    default = _estimate(model="resnet-50", gpu="t4")
    assert default["workload"]["engine"] == "triton"
    assert any("--engine triton, the default" in a for a in default["assumptions"])
    assert default["inference"]["latency_seconds"] < d["inference"]["latency_seconds"] / 3


@pytest.mark.parametrize(
    ("model", "engine", "says"),
    [
        ("llama-2-7b", "eager", "is an LLM"),
        ("resnet-50", "vllm", "serves generative LLMs"),
        ("bert-base-uncased", "lmdeploy", "serves generative LLMs"),
    ],
)
def test_an_engine_of_the_other_kind_is_refused_with_the_choices(model: str, engine: str, says: str):
    with pytest.raises(UsageError, match=says):
        build_workload({"model": model, "engine": engine}, CAT)


@pytest.mark.parametrize(
    ("engine", "said"),
    [
        ("trtllm", "fitted to {n} published TensorRT-LLM cases at load (scripts/fit_serving.py)"),
        ("vllm", "borrowed from the fit to {n} published TensorRT-LLM cases at load, not fitted to vLLM"),
        ("sglang", "borrowed from the fit to {n} published TensorRT-LLM cases at load, not fitted to SGLang"),
    ],
)
def test_each_engine_says_whether_its_serving_overheads_were_fitted_to_it(engine, said):
    """The overheads are fitted to TensorRT-LLM's tables only; every other engine's estimate says that
    it borrows them (the values are the fit's, from serving_fit.yaml)."""
    d = _estimate(model="llama-2-7b", engine=engine, gpu="h100-sxm")
    fit = yaml.safe_load((ROOT / "src" / "gpuwise" / "catalog" / "data" / "serving_fit.yaml").read_text())["fits"]
    assert said.format(n=fit["trtllm"]["cases"]) in " ".join(d["assumptions"])
    assert CAT.engine(engine).matmul_efficiency == fit["trtllm"]["matmul_efficiency"]


def test_lmdeploy_takes_its_own_scheduler_defaults_and_says_its_efficiencies_are_borrowed():
    """TurboMind: 0.8 of the memory free after the weights for the KV cache, blocks of 64 tokens,
    384 running requests at most on an A100 (LMDeploy's get_max_batch_size)."""
    d = _estimate(model="llama-2-7b", engine="lmdeploy", gpu="a100-80gb-sxm", concurrency=1000)
    text = " ".join(d["assumptions"])
    assert "LMDeploy (TurboMind): 80% of 80 GiB (of the memory left after the weights)" in text
    assert "KV blocks of 64 tokens" in text and "at most 384 running requests" in text
    assert "published TensorRT-LLM cases at load, not fitted to LMDeploy (TurboMind)" in text
    assert "borrowed from the fit to" in text
    with pytest.raises(UsageError, match="TurboMind engine serves no LoRA"):
        build_workload({"model": "llama-2-7b", "engine": "lmdeploy", "lora_adapters": 2}, CAT)


def test_lmdeploy_request_cap_follows_the_device_name():
    profile = CAT.engine("lmdeploy")
    assert profile.budget(80 * 2**30, "h100-sxm") == (8192, 1024)
    assert profile.budget(40 * 2**30, "a100-40gb-pcie") == (8192, 384)
    assert profile.budget(24 * 2**30, "rtx-4090") == (8192, 128)


def test_cli_engine_runtime_and_a_refusal_end_to_end():
    proc = run_process("estimate", "--model", "resnet-50", "--gpu", "t4", "--engine", "onnxruntime", "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["workload"]["engine"] == "onnxruntime"
    assert any("ONNX Runtime (CUDA execution provider)" in a for a in out["assumptions"])
    bad = run_process("estimate", "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm", "--engine", "tensorrt")
    assert bad.returncode == 2 and "is an LLM" in bad.stderr


def test_deploy_names_the_triton_backend_of_the_planned_runtime(tmp_path: Path):
    from gpuwise.deploy.common import DeployOptions
    from gpuwise.deploy.manifests import plan_manifests
    from gpuwise.deploy.pools import plan_from_file

    doc = yaml.safe_load((ROOT / "examples" / "ecommerce-recsys-serving.yaml").read_text())
    doc["workload"]["engine"] = "onnxruntime"
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(doc))
    result = plan_from_file(tmp_path / "plan.yaml", {"gpus": ["a10"]})[0]
    notes = [n for n in plan_manifests(result, DeployOptions()).notes if "the plan timed" in n]
    assert len(notes) == 1 and 'config.pbtxt backend: "onnxruntime"' in notes[0]
    assert "Triton adds its request floor" in notes[0]  # the plan timed ONNX Runtime without a server


def test_a_serving_plan_times_the_named_runtime_and_its_command_repeats_it():
    from gpuwise.api import make_plan

    reqs = {"qps": 200, "p99_ms": 100, "gpus": ["t4"]}
    eager = make_plan({"model": "resnet-50", "engine": "eager"}, reqs)
    default = make_plan({"model": "resnet-50"}, reqs)
    assert eager.chosen is not None and default.chosen is not None
    assert "--engine eager" in eager.chosen.command
    assert eager.chosen.est.workload.engine == "eager" and default.chosen.est.workload.engine == "triton"
    one = {c.est.hardware.count: c for c in eager.candidates}
    base = {c.est.hardware.count: c for c in default.candidates}
    same = sorted(set(one) & set(base))
    assert same  # eager PyTorch at 16 bits dispatches ~230 kernels per batch: more time per sample
    n = same[0]
    assert one[n].est.inference.samples_per_second < base[n].est.inference.samples_per_second


AMP = {"model": "resnet-50", "task": "inference", "engine": "eager", "precision": "fp16", "concurrency": 64}


def test_fp32_weights_under_autocast_compute_at_the_precision_and_hold_fp32_weights():
    """PyTorch AMP inference (timm's --amp: the model kept in fp32, torch.autocast(fp16) around the forward)
    computes each convolution and GEMM at fp16 from fp32 weights cast on every call: the kernels are the
    16-bit run's (the same casts), the activations 2 bytes a value; the weights are held at 4 bytes and
    autocast's cache keeps a 2-byte copy of each until the block exits: ResNet-50's 25,557,032 parameters
    at 6 bytes against 2, 102,228,128 B more."""
    amp = _estimate(**AMP, weights_dtype="fp32", autocast=True, gpu="rtx-3090")
    half = _estimate(**AMP, weights_dtype="fp16", autocast=True, gpu="rtx-3090")
    assert amp["inference"]["samples_per_second"] == pytest.approx(half["inference"]["samples_per_second"])
    assert any("fp16 under torch.autocast" in a for a in amp["assumptions"])
    assert not any("activations in fp32" in a for a in amp["assumptions"])
    amp_mem, half_mem = amp["memory"]["per_gpu"], half["memory"]["per_gpu"]
    assert amp_mem["weights"] - half_mem["weights"] == 25_557_032 * 4 == 102_228_128
    assert any("autocast's weight cache" in a for a in amp["assumptions"])
    assert amp_mem["activations"] == half_mem["activations"]


def test_fp32_weights_without_autocast_stay_fp32_and_a_16_bit_precision_over_them_is_refused():
    fp32 = _estimate(**{**AMP, "precision": "fp32"}, weights_dtype="fp32", gpu="rtx-3090")
    assert any("activations in fp32" in a for a in fp32["assumptions"])
    with pytest.raises(
        UsageError, match="eager computes at the weights' dtype; give --weights-dtype fp16 or --autocast"
    ):
        build_workload({**AMP, "weights_dtype": "fp32", "autocast": False}, CAT)
    for engine in ("tensorrt", "torchscript"):  # runtimes that compute at their weights' dtype: never read as fp32
        with pytest.raises(UsageError, match=f"{engine} computes at the weights' dtype; give --weights-dtype fp16$"):
            build_workload({**AMP, "weights_dtype": "fp32", "engine": engine}, CAT)
    with pytest.raises(UsageError, match="vllm computes at the weights' dtype"):
        build_workload(
            {"model": "llama-3.1-8b", "task": "inference", "precision": "fp16", "weights_dtype": "fp32"}, CAT
        )


def test_bf16_under_autocast_is_refused_on_a_gpu_without_bf16():
    """The one bf16 rule (workload.precision): --precision bf16 named over fp32 weights cannot run on a T4."""
    with pytest.raises(UsageError, match="has no bf16 tensor cores"):
        _estimate(**{**AMP, "precision": "bf16"}, weights_dtype="fp32", autocast=True, gpu="t4")
