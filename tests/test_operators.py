"""The per-operator roofline (estimate/operators.py) on hand-computed cases, the operator document
the catalog reads, recommender tables in the memory model, and the e-commerce serving example."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from corpus.operators_accuracy import with_values
from gpuwise.api import make_estimate
from gpuwise.catalog import GenericArch, Operator, load_catalog
from gpuwise.catalog.arch import arch_from_operators, at_image_size, image_side
from gpuwise.errors import ConfigError
from gpuwise.estimate import memory
from gpuwise.estimate.operators import (
    OperatorParams,
    fp16_accumulate_gain,
    operator_seconds,
    request_terms,
    served_batch,
)
from gpuwise.estimate.rates import Rates, compute_rates, power_capped
from gpuwise.workload import Hardware, TrainingJob, build_workload

from .conftest import run_main

CAT = load_catalog()
# round numbers so that every time below is computed by hand: a 100 TFLOP/s peak, 80 TFLOP/s GEMMs (a tensor-core
# convolution runs at its efficiency x the GEMM rate: 0.5 x 80 = 40 TFLOP/s), 1 TB/s, no floors
PLAIN = with_values(
    CAT,
    {
        "operator_conv_efficiency_turing_tensor16": 0.5,
        "operator_memory_efficiency_normalization": 0.5,
        "operator_memory_efficiency_elementwise": 1.0,
        "operator_backward_bytes_elementwise": 1.5,
        "operator_backward_bytes_normalization": 1.5,
        "operator_train_norm_reads": 1.5,
        "operator_host_seconds_eager_turing": 0.0,
        "operator_kernel_floor_seconds": 0.0,
    },
)
T4 = CAT.gpu("t4")


def generic(model_id: str) -> GenericArch:
    model = CAT.model(model_id)
    assert isinstance(model, GenericArch)
    return model


RATES = Rates(gpu=T4, dtype="fp16", peak=100e12, matmul=80e12, attention=60e12, bandwidth=1e12, notes=())
UNIT = GenericArch(
    name="unit",
    task="vision",
    params=1000,
    operators=(
        Operator("conv", "convolution", flops=1e9, act_bytes=1e6, param_bytes=2e6),
        Operator("bn", "normalization", flops=0.0, act_bytes=2e6, fused_into=0),
        Operator("relu", "elementwise", flops=0.0, act_bytes=2e6, fused_into=0),
    ),
)


def test_inference_eager_is_each_kernel_on_its_roofline():
    t = operator_seconds(UNIT, 4, RATES, PLAIN, training=False, runtime="eager")
    conv = max(4e9 / (80e12 * 0.5), (4e6 + 2e6) / 1e12)  # compute-bound: 100 us
    bn = 8e6 / (1e12 * 0.5)  # 16 us at half the bandwidth
    relu = 8e6 / 1e12  # 8 us
    assert t.by_class == pytest.approx({"convolution": conv, "normalization": bn, "elementwise": relu})
    assert t.forward == pytest.approx(conv + bn + relu) and t.backward == 0 and t.kernels == 3


def test_a_compiler_fuses_norm_and_activation_into_the_convolution():
    t = operator_seconds(UNIT, 4, RATES, PLAIN, training=False, runtime="compiled")
    assert t.kernels == 1 and t.total == pytest.approx(4e9 / 40e12)


def test_training_backward_by_class_and_autocast_casts():
    t = operator_seconds(UNIT, 4, RATES, PLAIN, training=True)
    conv = 4e9 / 40e12
    bn_fwd = 8e6 * 1.5 / 0.5e12  # batch statistics read the input once more
    relu = 8e6 / 1e12
    cast = 2e6 * 3 / 1e12  # fp32 master read (2x the 16-bit bytes) and a 16-bit copy written
    assert t.forward == pytest.approx(conv + bn_fwd + relu + cast)
    # backward: the conv's data and weight gradients (2 x its FLOPs); norm and activation 1.5 x bytes; the weight
    # gradient cast back to fp32 (a 16-bit read, an fp32 write: the forward cast's bytes)
    assert t.backward == pytest.approx(2 * conv + 1.5 * bn_fwd + 1.5 * relu + cast)
    assert t.kernels == 3 + 1 + 4 + 1


def test_a_tensor_core_convolution_runs_at_the_gpus_achievable_gemm_rate():
    """The Ampere convolution efficiency multiplies each GPU's achievable GEMM rate: the RTX 3090's
    measured 78.0 TFLOP/s bf16 matmul (1.099 x its 71 TFLOP/s FP32-accumulate peak, mag-/gpu_benchmark)
    against the A100's 0.87 x 312. So the 3090 runs convolutions at 1.099 / 0.87 = 1.263 times the
    share of its peak the A100 gets; a 175 W cap on its 350 W TDP slows them by (1/2)^(1/3) once; fp32
    on CUDA cores stays on the fp32 peak."""
    eff = CAT.convention("operator_conv_efficiency_ampere_tensor16")
    rtx = compute_rates(CAT.gpu("rtx-3090"), "fp16", CAT)
    a100 = compute_rates(CAT.gpu("a100-80gb-sxm"), "fp16", CAT)
    assert OperatorParams.of(rtx, CAT).conv_rate == pytest.approx(eff * 1.099 * 71e12)
    assert OperatorParams.of(a100, CAT).conv_rate == pytest.approx(eff * 0.87 * 312e12)
    capped = power_capped(rtx, 175, CAT)
    assert OperatorParams.of(capped, CAT).conv_rate == pytest.approx(eff * 1.099 * 71e12 * 0.5 ** (1 / 3))
    fp32 = compute_rates(CAT.gpu("v100-32gb-sxm"), "fp32", CAT)
    assert OperatorParams.of(fp32, CAT).conv_rate == pytest.approx(
        CAT.convention("operator_conv_efficiency_volta_fp32") * 15.7e12
    )


def test_the_floors_bound_small_batches():
    floors = with_values(PLAIN, {"operator_kernel_floor_seconds": 10e-6, "operator_host_seconds_eager_turing": 50e-6})
    tiny = GenericArch(
        "tiny", "vision", 1, operators=tuple(Operator(f"op{i}", "elementwise", 0.0, 1.0) for i in range(100))
    )
    eager = operator_seconds(tiny, 1, RATES, floors, training=False, runtime="eager")
    assert eager.total == pytest.approx(100 * 50e-6, rel=0.01)  # the host issues one kernel per 50 us
    compiled = operator_seconds(tiny, 1, RATES, floors, training=False, runtime="graph")
    assert compiled.total == pytest.approx(100 * 10e-6, rel=0.01)  # no Python: the kernel floor
    # a long kernel hides the host: one 1 ms kernel then a tiny one costs 1 ms + floor, not + host
    long = GenericArch("long", "vision", 1, operators=(Operator("big", "elementwise", 0.0, 1e9), tiny.operators[0]))
    t = operator_seconds(long, 1, RATES, floors, training=False, runtime="eager")
    assert t.total == pytest.approx(50e-6 + 1e-3 + 10e-6 + 10e-6)


def test_request_terms_hand_computed():
    model = generic("resnet-50")
    terms = request_terms(model, 8, T4, CAT)
    nbytes = 8 * 3 * 224 * 224 * 4  # fp32 images
    assert T4.pcie is not None
    link = CAT.interconnect(f"pcie{T4.pcie.generation}-x16")
    assert terms["input_copy"] == pytest.approx(nbytes / link.achieved_bandwidth)
    assert terms["rpc_transfer"] == pytest.approx(nbytes / CAT.convention("serving_rpc_bytes_per_second"))
    assert terms["batching_delay"] == CAT.convention("serving_max_queue_delay_seconds")
    assert "feature_fetch" not in terms  # a vision model reads no feature store
    assert "batching_delay" not in request_terms(model, 8, T4, CAT, dynamic_batching=False)
    recsys = request_terms(generic("deepfm-ecommerce"), 200, T4, CAT)
    assert recsys["feature_fetch"] == CAT.convention("serving_feature_fetch_seconds")
    assert recsys["input_copy"] == pytest.approx(200 * 5 * 8 / link.achieved_bandwidth)  # five int64 ids


def test_items_per_request_scale_the_gpu_batch_not_the_request_floor():
    model = generic("deepfm-ecommerce")
    one = served_batch(model, 4, 1, RATES, CAT)
    many = served_batch(model, 4, 200, RATES, CAT)
    assert many.terms["gpu"] > one.terms["gpu"]
    assert many.terms["framework_floor"] == one.terms["framework_floor"]
    assert many.outside_seconds == pytest.approx(
        sum(v for k, v in many.terms.items() if k not in ("gpu", "input_copy"))
    )


def test_packaged_descriptions_match_the_catalog_totals():
    for model_id in ("resnet-50", "efficientnet-b0", "dlrm-criteo-1tb", "deepfm-ecommerce"):
        arch = generic(model_id)
        entry = CAT.models[model_id]
        assert arch.operators, model_id
        traced = sum(op.flops for op in arch.operators)
        if model_id == "resnet-50":  # torchvision's 4.09 GMACs: convolutions and the classifier
            assert traced == pytest.approx(entry.flops_per_sample, rel=1e-3)
        elif model_id == "efficientnet-b0":  # torchvision rounds to 0.39 GMACs; the trace has 0.386
            assert traced == pytest.approx(entry.flops_per_sample, rel=0.02)
            assert arch.params == entry.published_params
        else:  # the catalog counts MLP FLOPs only; the trace adds the interaction's batched matmul
            assert entry.flops_per_sample is not None
            assert entry.flops_per_sample <= traced <= 1.1 * entry.flops_per_sample
    resnet = generic("resnet-50").operators
    assert sum(op.cls == "convolution" for op in resnet) == 53 and sum(op.cls == "normalization" for op in resnet) == 53
    kernels = [op for op in resnet if op.fused_into is None]
    assert len(kernels) == 53 + 1 + 2  # convolutions (BN, ReLU, residual add fused), the classifier, two pools


def test_resnext101_32x4d_is_read_at_its_published_size():
    """ResNeXt-101 32x4d: timm's model card gives 44.2M parameters and 8.0 GMACs at 224x224; the
    traced architecture has 44,177,704 and 7.97 GMACs. Its 104 convolutions (stem, 33 bottlenecks of
    three, 4 shortcut projections) include 33 grouped 3x3 ones, each a 32nd of the dense work: the
    first, 128 channels over 56x56 in groups of 4, is 2 x 56 x 56 x 128 x 4 x 9 FLOPs per image."""
    arch, entry = generic("resnext101-32x4d"), CAT.models["resnext101-32x4d"]
    assert arch.params == entry.published_params == pytest.approx(44.2e6, rel=0.001)
    traced = sum(op.flops for op in arch.operators)
    assert traced == pytest.approx(entry.flops_per_sample, rel=1e-3)
    assert traced / 2 == pytest.approx(8.0e9, rel=0.01)
    convs = [op for op in arch.operators if op.cls == "convolution"]
    assert len(convs) == 1 + 33 * 3 + 4
    grouped = convs[2]  # the stem, then the first bottleneck's 1x1 and its grouped 3x3
    assert grouped.flops == 2 * 56 * 56 * 128 * 4 * 9


def test_operator_documents_are_checked(tmp_path):
    good = {"params": 1, "batch": 2, "operators": [{"class": "gemm", "flops": 4, "bytes_read": 8, "bytes_written": 2}]}
    arch = arch_from_operators(good, "t")
    assert arch.flops_per_sample == 2 and arch.operators[0].act_bytes == 5
    for bad, words in (
        ({**good, "operators": []}, "non-empty list"),
        ({**good, "batch": 0}, "'batch'"),
        ({**good, "params": -1}, "'params'"),
        ({**good, "operators": [{"class": "gemm", "flops": float("nan")}]}, "finite number"),
        ({**good, "operators": [{"class": "gemm", "flops": 1, "fused_into": 0}]}, "earlier operator"),
        ({**good, "operators": ["conv"]}, "must be an object"),
        ({**good, "input_shape": [3, 0]}, "input_shape"),
    ):
        with pytest.raises(ConfigError, match=words):
            arch_from_operators(bad, "t")


def test_an_inference_forward_holds_one_kernel_and_what_the_code_still_references():
    """Hand-computed: a stem, then a residual block (its input held until the add reads it back),
    then a bias add that holds nothing; at batch 2, per sample."""

    def op(name: str, op_: str, read: int, written: int, params: int = 0) -> dict[str, object]:
        cls = "convolution" if op_ == "convolution" else "elementwise"
        return {
            "name": name,
            "class": cls,
            "op": op_,
            "flops": 0,
            "bytes_read": 2 * read + params,
            "bytes_written": 2 * written,
            "param_bytes": params,
        }

    doc = {
        "params": 1,
        "batch": 2,
        "operators": [
            op("0.convolution", "convolution", 100, 200, params=10),  # the model's input: 100 a sample
            op("1.body.convolution", "convolution", 200, 50),  # the block's input, 200, held from here
            op("1.body.bn", "native_batch_norm", 50, 200),
            op("1.skip.add", "add", 400, 200),  # branch + held input -> output; frees the input
            op("1.act.relu", "relu", 200, 200),
            op("2.fc", "add", 220, 200),  # a bias add: reads about what it writes, no block input held
        ],
    }
    arch = arch_from_operators(doc, "t")
    # stem 300; block's first kernel 250 + 100 input; bn 250 + 200 held + 100; add 600 + 100; relu 400 + 100
    assert arch.forward_peak_bytes_per_sample == 700
    assert arch.activation_bytes_per_sample is None  # a training figure is not made up from it


def test_cnn_inference_memory_is_the_forward_peak_not_the_training_activations():
    """ResNet-50 in eager PyTorch at batch 1,024: a 256-channel 56x56 map three times (the add's branch, the
    held block input, its output: 3 x 1.6 MB in 16 bits) plus the 224x224 input, per image, where a training
    step keeps 43.9 MB an image for its backward."""
    r50 = build_workload({"model": "resnet-50", "task": "pretrain", "micro_batch": 8}, CAT).model
    assert isinstance(r50, GenericArch) and r50.forward_peak_bytes_per_sample is not None
    assert r50.forward_peak_bytes_per_sample == pytest.approx(3 * 256 * 56 * 56 * 2 + 3 * 224 * 224 * 2, rel=1e-4)
    work = {"model": "resnet-50", "task": "inference", "engine": "eager", "weights_dtype": "fp16", "concurrency": 1024}
    est = make_estimate(work, {"gpu": "v100-32gb-sxm:1"}).as_dict()
    acts = est["memory"]["per_gpu"]["activations"]
    assert acts == pytest.approx(1024 * r50.forward_peak_bytes_per_sample)
    assert acts < 1024 * (r50.activation_bytes_per_sample or 0) / 8
    assert "largest kernel per sample" in " ".join(est["assumptions"])


def test_recommender_tables_train_with_rowwise_adagrad():
    model = generic("dlrm-criteo-1tb")
    hw = Hardware(CAT.gpu("a100-80gb-sxm"), 8, 1)
    est = memory(TrainingJob(model=model, precision="bf16", optimizer="adamw", micro_batch=1024), hw, CAT)
    detail = est.per_gpu.detail
    # the most loaded GPU holds the largest table whole (C20, 39,979,771 rows of 128), one fp32 accumulator a row
    assert detail["embedding_optimizer"] == pytest.approx(39_979_771 * 4)
    assert detail["embedding_tables"] == pytest.approx(39_979_771 * 128 * 2)
    # AdamW (12 bytes a parameter with master weights) covers the dense layers only: far below the
    # 24B table parameters' 290 GB it would be if it covered the tables
    assert est.per_gpu.optimizer < 1e9
    assert est.per_gpu.gradients < 1e8  # no table gradients are kept


def test_ecommerce_example_plausible_latency_capacity_and_keda():
    from gpuwise.deploy import DeployOptions, plan_manifests
    from gpuwise.deploy.pools import plan_from_file

    examples = Path(__file__).resolve().parent.parent / "examples"
    result = plan_from_file(examples / "ecommerce-recsys-serving.yaml", {"gpus": ["a10"]})[0]
    c = result.chosen
    assert c is not None and c.est.inference is not None and c.serving is not None
    inf = c.est.inference
    assert set(inf.terms) == {"gpu", "input_copy", "framework_floor", "rpc_transfer", "batching_delay", "feature_fetch"}
    assert 1e-3 < inf.latency_seconds < 0.3  # milliseconds: the GPU plus the stages around it
    assert inf.latency_seconds == pytest.approx(sum(inf.terms.values()))
    capacity = c.serving.capacity_rps_per_replica
    assert 1e3 < capacity < 1e6  # requests of 200 candidates each; not the 53M requests/s of a totals roofline
    so = plan_manifests(result, DeployOptions()).find("ScaledObject")[0].body["spec"]
    assert float(so["triggers"][0]["metadata"]["threshold"]) == pytest.approx(capacity, rel=1e-3)
    assert math.ceil(15000 / capacity) <= c.replicas


def test_image_decode_costs_are_sourced():
    from gpuwise.catalog.loader import image_decode_costs

    costs = image_decode_costs()
    assert costs["cpu_pillow_seconds_per_image"][0] == pytest.approx(1 / 577, rel=1e-2)
    assert all(0 < v < 0.1 and "JPEG" in title for v, title in costs.values())


def test_tables_too_large_for_the_gpus_live_in_host_memory_with_a_hot_row_cache():
    from gpuwise.estimate.operators import host_lookup_seconds, table_placement

    model = generic("dlrm-criteo-1tb")
    a10, a100 = CAT.gpu("a10"), CAT.gpu("a100-80gb-sxm")
    share = CAT.convention("embedding_gpu_table_share")
    fits = table_placement(model, 8, 1, a100.capacity_bytes, 2, CAT)
    # every table whole on one GPU; the largest (C20, 39,979,771 rows) alone on the most loaded one, above the
    # even share (24.04B / 8 parameters)
    assert fits.host_bytes == 0 and fits.hit_rate == 1 and fits.gpu_bytes == 39_979_771 * 128 * 2
    assert fits.gpu_bytes > model.embedding_params / 8 * 2
    one = table_placement(model, 1, 1, a10.capacity_bytes, 2, CAT)
    assert one.gpu_bytes == pytest.approx(a10.capacity_bytes * share)
    assert one.gpu_bytes + one.host_bytes == pytest.approx(model.embedding_params * 2)
    hit = CAT.convention("embedding_cache_hit_rate")
    assert one.hit_rate == hit
    assert a10.pcie is not None
    link = CAT.interconnect(f"pcie{a10.pcie.generation}-x16")
    rows = 1024 * 26 * 128 * 2  # 26 tables of dim 128 at 2 bytes, one id each
    assert host_lookup_seconds(model, 1024, one, a10, 2, CAT) == pytest.approx(
        rows * (1 - hit) / link.achieved_bandwidth
    )
    assert host_lookup_seconds(model, 1024, fits, a100, 2, CAT) == 0
    est = memory(TrainingJob(model=model, optimizer="sgd", micro_batch=1024), Hardware(a10, 1, 1), CAT)
    assert est.per_gpu.detail["embedding_tables"] == pytest.approx(one.gpu_bytes)
    assert any("host memory" in a for a in est.assumptions)


def test_the_host_dispatch_is_the_machines_not_one_number():
    """Eager PyTorch's host dispatch is a property of the machine: each GPU generation takes the value fitted
    on the machines its eager cases ran on (DGX-1 for Volta, DGX A100 for Ampere), and a GPU whose machines
    have no case (Hopper) the newest validated generation's. 100 tiny kernels with no kernel floor take
    100 host dispatches."""
    floors = with_values(CAT, {"operator_kernel_floor_seconds": 0.0})
    tiny = GenericArch(
        "tiny", "vision", 1, operators=tuple(Operator(f"op{i}", "elementwise", 0.0, 1.0) for i in range(100))
    )
    conv = CAT.conventions
    for gpu, key in (
        ("v100-32gb-sxm", "operator_host_seconds_eager_volta"),
        ("a100-80gb-sxm", "operator_host_seconds_eager_ampere"),
        ("h100-sxm", "operator_host_seconds_eager"),
    ):
        rates = dataclasses.replace(RATES, gpu=CAT.gpu(gpu))
        t = operator_seconds(tiny, 1, rates, floors, training=False, runtime="eager")
        assert t.total == pytest.approx(100 * conv[key].value, rel=0.01), gpu
    assert conv["operator_host_seconds_eager_ampere"].value < conv["operator_host_seconds_eager_volta"].value
    assert conv["operator_host_seconds_eager"].value == conv["operator_host_seconds_eager_ampere"].value


def test_a_remembered_batch_is_the_fresh_walk_and_other_rates_are_walked_again():
    """The memo a serving plan relies on answers only for the same model, catalog and equal rates."""
    from gpuwise.estimate.operators import _operator_seconds

    first = operator_seconds(UNIT, 4, RATES, PLAIN, training=False, runtime="eager")
    assert operator_seconds(UNIT, 4, RATES, PLAIN, training=False, runtime="eager") is first
    assert first == _operator_seconds(UNIT, 4, RATES, PLAIN, training=False, runtime="eager")
    slower = dataclasses.replace(RATES, bandwidth=0.5e12)
    again = operator_seconds(UNIT, 4, slower, PLAIN, training=False, runtime="eager")
    assert again is not first and again.forward > first.forward
    twin = dataclasses.replace(UNIT)  # an equal model, another object: walked afresh, same figures
    fresh = operator_seconds(twin, 4, RATES, PLAIN, training=False, runtime="eager")
    assert fresh is not first and fresh == first


def test_image_size_scales_the_work_per_pixel_and_leaves_the_head():
    """A CNN described at 8 x 8 run at 16 x 16: 4x the pixels. The convolution on an 8 x 8 plane does
    4x its FLOPs and moves 4x its activations (weights unchanged); the global pooling reads 4x the
    plane; the classifier on the pooled vector is unchanged; the activation memory per sample is 4x."""
    doc = {
        "name": "tiny",
        "task": "vision",
        "params": 100,
        "batch": 2,
        "input_shape": [3, 8, 8],
        "activation_bytes_per_sample": 1000,
        "operators": [
            {
                "name": "c",
                "class": "convolution",
                "flops": 800,
                "bytes_read": 300,
                "bytes_written": 100,
                "param_bytes": 200,
                "shape": [[2, 4, 8, 8]],
            },
            {
                "name": "p",
                "class": "pooling",
                "flops": 0,
                "bytes_read": 40,
                "bytes_written": 8,
                "shape": [[2, 4, 1, 1]],
            },
            {
                "name": "fc",
                "class": "gemm",
                "flops": 200,
                "bytes_read": 30,
                "bytes_written": 10,
                "param_bytes": 20,
                "shape": [[2, 10]],
            },
        ],
    }
    small = arch_from_operators(doc, where="test")
    assert image_side(small) == 8
    big = at_image_size(small, 16)
    c, p, fc = big.operators
    assert (c.flops, c.act_bytes, c.param_bytes, c.plane) == (4 * 400, 4 * 100, 200, 256)  # per sample: /2
    assert (p.flops, p.act_bytes) == (0, 4 * 24)
    assert fc == small.operators[2]
    assert big.input_shape == (3, 16, 16)
    assert big.activation_bytes_per_sample == 4000
    assert big.flops_per_sample == pytest.approx(4 * 400 + 100)


def test_image_size_is_refused_where_there_is_no_image(capsys):
    """--image-size on an LLM is a usage error (exit 2, no traceback); at the described size it is the model."""
    code, _, err = run_main(capsys, "estimate", "--model", "llama-2-7b", "--image-size", "160", "--gpu", "h100-sxm:1")
    assert code == 2 and "--image-size applies to models with an image input" in err and "Traceback" not in err
    listed = "(vit-base-patch16-224, resnet-50, resnext101-32x4d, efficientnet-b0, or a `gpuwise describe`"
    assert listed in " ".join(err.split())  # the catalog's image models, in catalog order
    same = build_workload({"model": "resnet-50", "task": "pretrain", "micro_batch": 8, "image_size": 224}, CAT)
    assert same.model == CAT.model("resnet-50")
    smaller = build_workload({"model": "resnet-50", "task": "pretrain", "micro_batch": 8, "image_size": 112}, CAT)
    rates = Rates(gpu=T4, dtype="fp16", peak=100e12, matmul=80e12, attention=60e12, bandwidth=1e12, notes=())
    full = operator_seconds(same.model, 8, rates, PLAIN, training=True)
    quarter = operator_seconds(smaller.model, 8, rates, PLAIN, training=True)
    # no floors in PLAIN: the convolutions and memory-bound kernels all take a quarter, the classifier not
    assert quarter.by_class["convolution"] == pytest.approx(full.by_class["convolution"] / 4, rel=0.02)
    assert quarter.by_class["gemm"] == pytest.approx(full.by_class["gemm"])


def test_the_image_models_are_those_that_take_image_size():
    """The catalog's models with an image input: three CNNs described operator by operator (224 px)
    and ViT-B/16 (224 px, 14 x 14 patches plus [CLS]); each takes --image-size, a language model none."""
    assert CAT.image_models() == ["vit-base-patch16-224", "resnet-50", "resnext101-32x4d", "efficientnet-b0"]
    for name in CAT.image_models():
        spec = {"model": name, "task": "inference", "image_size": 224}
        assert build_workload(spec, CAT).model == CAT.model(name)  # at the side it was described at
    assert "llama-2-7b" not in CAT.image_models() and "bert-base-uncased" not in CAT.image_models()


def test_tensorrt_fp16_on_a_geforce_card_accumulates_in_fp16():
    """The RTX 3090 runs FP16 tensor math at 142 TFLOP/s accumulating in fp16 and 71 in fp32 (GA102
    whitepaper); TensorRT's fp16 engines pick the fp16-accumulate kernels (110 TFLOP/s fp16 convolutions
    reported with TensorRT on a 3090, triton-lang/triton issue 319): their convolutions run at 2x the rate
    PyTorch's get (GEMMs keep fp32 accumulation: kernl's BERT TensorRT rows on a 3090 say so). ResNet-50 at batch 128 in fp16 under TensorRT (the Torch-TensorRT notebook
    measured 14.69 ms, https://github.com/pytorch/TensorRT/blob/6e51eef8649e5c155e824149eef13ff1ed5aa060/notebooks/Resnet50-example.ipynb)
    comes out within 5 % of it; bf16 weights, eager PyTorch and a card without the faster mode are unchanged."""
    rates = compute_rates(CAT.gpu("rtx-3090"), "bf16", CAT)
    plain, fast = OperatorParams.of(rates, CAT), OperatorParams.of(rates, CAT, fp16_accumulate_gain(rates))
    assert fast.conv_rate == pytest.approx(2 * plain.conv_rate) and fast.gemm_rate == plain.gemm_rate
    a100 = compute_rates(CAT.gpu("a100-80gb-sxm"), "bf16", CAT)
    assert fp16_accumulate_gain(a100) == 1.0
    assert OperatorParams.of(a100, CAT, fp16_accumulate_gain(a100)).conv_rate == OperatorParams.of(a100, CAT).conv_rate

    def ms(engine: str, dtype: str, gpu: str = "rtx-3090") -> tuple[float, list[str]]:
        est = make_estimate(
            {
                "model": "resnet-50",
                "task": "inference",
                "engine": engine,
                "precision": dtype,
                "weights_dtype": dtype,
                "concurrency": 128,
            },
            {"gpu": f"{gpu}:1"},
        ).as_dict()
        return est["inference"]["latency_seconds"] * 1e3, [a for a in est["assumptions"] if "accumulate in fp16" in a]

    trt, said = ms("tensorrt", "fp16")
    assert trt == pytest.approx(14.69, rel=0.05) and len(said) == 1
    assert ms("tensorrt", "bf16")[1] == [] and ms("tensorrt", "bf16")[0] > 1.5 * trt
    assert ms("eager", "fp16")[1] == [] and ms("tensorrt", "fp16", "a100-80gb-sxm")[1] == []


def test_torch_compile_fuses_what_follows_each_convolution_into_one_pointwise_kernel():
    """TorchInductor (--engine torch-compile): a convolution's batch norm, ReLU and residual add, each
    reading and writing the conv's output T bytes in eager PyTorch (2T, 2T, 3T: 7T), become one generated
    kernel reading T and the residual T and writing T (3T), after the convolution, which stays its own
    kernel; the batch norm's parameters are read by it once."""
    from gpuwise.estimate.operators import launched

    t = 1000.0
    ops = (
        Operator("0.conv", "convolution", 5e6, 2 * t, 4096),
        Operator("1.bn", "normalization", 0.0, 2 * t, 512, fused_into=0),
        Operator("2.relu", "elementwise", 0.0, 2 * t, 0, fused_into=0),
        Operator("3.add", "elementwise", 0.0, 3 * t, 0, fused_into=0),
        Operator("4.pool", "pooling", 0.0, 1.5 * t, 0),
    )
    kernels = launched(ops, "inductor")
    assert [k.name for k in kernels] == ["0.conv", "1.bn+2", "4.pool"]
    fused = kernels[1]
    assert (fused.cls, fused.act_bytes, fused.param_bytes, fused.fused_into) == ("elementwise", 3 * t, 512, None)
    assert launched(ops, "compiled") == (ops[0], ops[4])  # TensorRT: all three in the conv's epilogue


def test_torch_compile_sits_between_eager_and_a_compiled_engine():
    """ResNet-50 at batch 256 in bf16 on an A100: torch.compile launches fewer kernels and moves fewer bytes
    than eager PyTorch (faster), and more than TensorRT, whose convolutions carry their epilogues (slower);
    autocast is a PyTorch setting, so --autocast is taken by torch-compile and refused by TensorRT."""

    def rate(engine: str, **extra: object) -> float:
        spec = {"model": "resnet-50", "task": "inference", "engine": engine, "concurrency": 256} | extra
        est = make_estimate(spec, {"gpu": "a100-80gb-sxm:1"})
        assert est.inference is not None
        return est.inference.samples_per_second

    eager, compiled, trt = rate("eager"), rate("torch-compile"), rate("tensorrt")
    assert eager < compiled < trt
    assert rate("torch-compile", autocast=False) > rate("torch-compile", autocast=True)  # no per-call weight cast
    with pytest.raises(Exception, match="--autocast/--no-autocast applies"):
        rate("tensorrt", autocast=True)


def test_torch_compile_leaves_a_lone_operator_as_it_is():
    """A convolution followed by one batch norm (nothing to fuse it with) keeps that kernel, its class and
    its bytes: no fusion happens, so nothing changes."""
    from gpuwise.estimate.operators import launched

    ops = (Operator("0.conv", "convolution", 5e6, 2000.0, 4096), Operator("1.bn", "normalization", 0.0, 2000.0, 512, 0))
    assert launched(ops, "inductor") == ops


@pytest.mark.parametrize("model", ["bert-base-uncased", "vit-base-patch16-224", "stable-diffusion-v1-5-unet"])
def test_torch_compile_is_refused_where_its_fusion_rule_does_not_read_the_operators(model):
    """An encoder's scale and softmax carry its GEMMs' reads and writes, and a diffusion model's fused groups
    are not one chain: the rule would miscount them, so the runtime is refused with the reason."""
    with pytest.raises(Exception, match="--engine torch-compile is modelled for CNNs and recommenders"):
        make_estimate({"model": model, "task": "inference", "engine": "torch-compile"}, {"gpu": "a100-80gb-sxm:1"})
