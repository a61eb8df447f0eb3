"""The estimate's `workload` echoes every resolved input, so that a reader can reproduce it."""

from dataclasses import fields

import pytest

from gpuwise.estimate.run import describe_workload
from gpuwise.workload import build_workload
from gpuwise.workload.specs import Hardware, InferenceJob, TrainingJob

# fields echoed under another shape: the model by name and size, the layout as tp/pp/dp/zero...,
# the data pipeline by its four figures, the evaluation as eval_every and eval_batches, a dataset's
# request lengths by the dataset's name (`dataset`); the dtype defaults, whether the engine was named (the
# estimate's notes say which) and kind are how the spec is held
# plain_ddp: derived from the stack named (none) and the model, as engine_named is from the engine;
# autocast_dtype: echoed as `precision` (the 16-bit dtype fp32 weights compute at under torch.autocast)
NOT_ECHOED_AS_IS = {
    "model",
    "parallel",
    "data",
    "evaluation",
    "lengths",
    "dtype_defaults",
    "engine_named",
    "kind",
    "plain_ddp",
    "autocast_dtype",
}


@pytest.mark.parametrize(
    ("opts", "spec"),
    [
        ({"model": "llama-3.1-8b", "task": "finetune", "method": "lora", "gpu": "a100-80gb-sxm:8"}, TrainingJob),
        ({"model": "llama-3.1-8b", "task": "inference", "gpu": "h100-sxm:1"}, InferenceJob),
    ],
)
def test_every_input_of_the_workload_is_echoed(catalog, opts, spec):
    work = build_workload({k: v for k, v in opts.items() if k != "gpu"}, catalog)
    gpu, count = opts["gpu"].split(":")
    echo = describe_workload(work, Hardware(catalog.gpu(gpu), int(count), gpus_per_node=int(count)))
    missing = {f.name for f in fields(spec)} - NOT_ECHOED_AS_IS - set(echo)
    assert not missing, f"inputs the estimate does not echo: {sorted(missing)}"


def test_a_serving_layout_with_experts_split_is_echoed(catalog):
    """--ep and --attention-dp change a serving estimate: its echo carries them, so its command reproduces it."""
    opts = {"model": "deepseek-r1", "task": "inference", "weights_dtype": "fp8", "tp": 8, "ep": 8, "attention_dp": True}
    echo = describe_workload(build_workload(opts, catalog), Hardware(catalog.gpu("h200"), 8, gpus_per_node=8))
    assert (echo["tp"], echo["ep"], echo["attention_dp"]) == (8, 8, True)


@pytest.mark.parametrize(
    ("model", "given", "side"),
    [
        ("resnet-50", {}, 224),
        ("resnet-50", {"image_size": 160}, 160),
        ("vit-base-patch16-224", {}, 224),
        ("vit-base-patch16-224", {"image_size": 384}, 384),
    ],
)
def test_the_image_size_an_image_model_runs_at_is_echoed(catalog, model, given, side):
    """--image-size rescales a CNN's operators (a ViT's sequence) without naming itself anywhere else:
    the echo says the side the estimate used (the described 224 px when not given), so its command
    reproduces it; a model without an image input has none."""
    opts = {"model": model, "task": "finetune", "method": "full", **given}
    hw = Hardware(catalog.gpu("a100-80gb-sxm"), 1, gpus_per_node=1)
    assert describe_workload(build_workload(opts, catalog), hw)["image_size"] == side
    llm = build_workload({"model": "llama-3.1-8b", "task": "inference"}, catalog)
    assert "image_size" not in describe_workload(llm, hw)


def test_the_global_batch_bound_a_plan_sizes_under_is_echoed(catalog):
    """With no batch named, ResNet-50's training carries the catalog's largest converging global
    batch (Goyal et al. 2017: 8,192), which a plan sizes the batch per GPU under: the echo says it;
    a named micro-batch has none."""
    hw = Hardware(catalog.gpu("a100-80gb-sxm"), 1, gpus_per_node=1)
    opts = {"model": "resnet-50", "task": "pretrain", "samples": "20M"}
    assert describe_workload(build_workload(opts, catalog), hw)["batch_bound"] == 8192
    named = build_workload({**opts, "micro_batch": 256}, catalog)
    assert describe_workload(named, hw)["batch_bound"] is None


def test_fp32_weights_under_autocast_echo_the_precision_they_compute_at(catalog):
    """PyTorch AMP inference: the echo says fp16 beside the fp32 weights, so its command reproduces it."""
    opts = {"model": "resnet-50", "task": "inference", "engine": "eager", "precision": "fp16", "weights_dtype": "fp32"}
    echo = describe_workload(build_workload({**opts, "autocast": True}, catalog), Hardware(catalog.gpu("rtx-3090"), 1))
    assert (echo["weights_dtype"], echo["precision"], echo["autocast"]) == ("fp32", "fp16", True)
    plain = {**opts, "precision": "fp32"}
    assert "precision" not in describe_workload(build_workload(plain, catalog), Hardware(catalog.gpu("rtx-3090"), 1))
