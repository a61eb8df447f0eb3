"""Stable Diffusion's UNet written operator by operator from its diffusers config.json, so
`--engine` (eager, TorchScript, ONNX Runtime, TensorRT, Triton) applies to it."""

from __future__ import annotations

import json

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.unet_operators import unet_config, unet_operators
from gpuwise.estimate.operators import launched

from .conftest import run_process

CAT = load_catalog()
SD15 = "stable-diffusion-v1-5-unet"


def _ops() -> dict[str, object]:
    return {op.name: op for op in CAT.model(SD15).operators}


def test_sd15_unet_has_its_published_parameter_count_and_flops():
    """MLCommons' two UNet halves: 447,042,560 + 412,478,404 = 859,520,964 parameters, exactly;
    the convolutions and linear layers 338.6 GMACs and the attention matmuls 63.0 GMACs per
    512x512 image (the catalog's layer-by-layer count), about 7 % under MLCommons' 428.5 GMACs
    (its counter adds the normalisations and elementwise ops)."""
    ops = CAT.model(SD15).operators
    written = unet_operators(unet_config(json.loads(_config_text()), "sd15"), "sd15")
    assert written.params == 447_042_560 + 412_478_404
    attention = sum(op.flops for op in ops if op.cls == "attention")
    assert attention == pytest.approx(2 * 63.03e9, rel=1e-3)
    assert sum(op.flops for op in ops) - attention == pytest.approx(2 * 338.61e9, rel=1e-3)
    assert sum(op.flops for op in ops) == pytest.approx(2 * 428.495e9, rel=0.07)


def _config_text() -> str:
    from importlib.resources import files

    return files("gpuwise").joinpath("catalog", "data", "unet", f"{SD15}.json").read_text(encoding="utf-8")


def test_sd15_unet_operators_hand_computed():
    """Per 64x64 latent (4,096 pixels), 16-bit elements."""
    ops = _ops()
    conv_in = ops["conv_in"]  # 3x3, 4 -> 320 channels
    assert conv_in.flops == 2 * 4 * 320 * 9 * 4096 == 94_371_840
    assert conv_in.param_bytes == 2 * (4 * 320 * 9 + 320)
    assert conv_in.act_bytes == 2 * (4 + 320) * 4096
    self_attn = ops["down.0.attn.0.block.0.attn1.sdpa"]  # 4,096 tokens attend to 4,096, width 320
    assert self_attn.flops == 4 * 4096 * 4096 * 320 == 21_474_836_480
    assert self_attn.act_bytes == 2 * (2 * 4096 * 320 + 2 * 4096 * 320)  # read Q, K, V, write O
    cross = ops["down.0.attn.0.block.0.attn2.sdpa"]  # to the 77 text tokens
    assert cross.flops == 4 * 4096 * 77 * 320
    to_k = ops["down.0.attn.0.block.0.attn2.to_k"]  # the 77 x 768 CLIP context, no bias
    assert to_k.flops == 2 * 77 * 768 * 320 and to_k.param_bytes == 2 * 768 * 320
    geglu = ops["down.0.attn.0.block.0.ff.geglu.proj"]  # 320 -> 2 x 1280 (value and gate), bias
    assert geglu.flops == 2 * 4096 * 320 * 2560 and geglu.param_bytes == 2 * (320 * 2560 + 2560)
    shortcut = ops["down.1.resnet.0.conv_shortcut"]  # 1x1, 320 -> 640 at 32x32
    assert shortcut.flops == 2 * 320 * 640 * 1024
    down = ops["down.0.downsample"]  # stride 2: 64x64 -> 32x32, 320 channels
    assert down.flops == 2 * 320 * 320 * 9 * 1024
    cat = ops["up.0.cat.0"]  # 1280 from below + a 1280-wide skip at 8x8: read and written
    assert cat.act_bytes == 2 * 2 * 2560 * 64
    assert ops["conv_out"].flops == 2 * 320 * 4 * 9 * 4096


def test_sd15_unet_block_counts():
    """16 spatial transformers (2 in each of 3 cross-attention down blocks, 3 in each of 3 up
    blocks, 1 mid), 22 ResNet blocks (4 x 2 down, 2 mid, 4 x 3 up), 3 down- and 3 upsamplers."""
    names = [op.name for op in CAT.model(SD15).operators]
    assert sum(n.endswith("attn1.sdpa") for n in names) == 16
    assert sum(n.endswith(".conv1") for n in names) == 4 * 2 + 2 + 4 * 3 == 22
    assert sum(n.endswith("downsample") for n in names) == 3
    assert sum(n.endswith("upsample.conv") for n in names) == 3


def test_a_compiled_engine_folds_silu_adds_and_transposes():
    ops = CAT.model(SD15).operators
    kept = {op.name for op in launched(ops, "compiled")}
    assert "down.0.resnet.0.norm1" in kept and "down.0.resnet.0.silu1" not in kept  # GroupNorm+SiLU plugin
    assert "down.0.resnet.0.residual.add" not in kept and "down.0.resnet.0.conv2" in kept
    assert "down.0.attn.0.block.0.attn1.transpose" not in kept
    assert "up.0.cat.0" in kept  # a concatenation is a copy of its own
    folded = {op.name for op in launched(ops, "folded")}
    assert "down.0.resnet.0.residual.add" not in folded  # ONNX Runtime's FusedConv takes the residual
    assert "down.0.resnet.0.silu1" in folded  # a SiLU is not a Relu: its own kernel


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("addition_embed_type", "text_time", "extra conditioning"),
        ("down_block_types", ["DownBlock2D"] * 3 + ["AttnDownBlock2D"], "block types"),
        ("act_fn", "gelu", "SiLU"),
    ],
)
def test_a_unet_config_it_cannot_write_is_refused_with_the_reason(key: str, value: object, says: str):
    doc = json.loads(_config_text()) | {key: value}
    with pytest.raises(ValueError, match=says):
        unet_config(doc, "x")


def test_cli_sd15_unet_under_each_engine_end_to_end():
    """The UNet at batch 8 (4 prompts with classifier-free guidance) on a T4: eager PyTorch launches
    every kernel behind a host dispatch and is the slowest; TensorRT the fastest."""
    seconds = {}
    for engine in ("eager", "torchscript", "onnxruntime", "tensorrt"):
        r = run_process(
            "estimate", "--model", SD15, "--task", "inference", "--weights-dtype", "fp16", "--concurrency", "8",
            "--gpu", "t4", "--engine", engine, "--json",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        seconds[engine] = json.loads(r.stdout)["inference"]["latency_seconds"]
    assert seconds["eager"] > seconds["torchscript"] > seconds["onnxruntime"] > seconds["tensorrt"] > 0


def test_autocast_casts_every_weighted_kernel_and_a_16_bit_model_does_not():
    """Under torch.autocast each convolution and GEMM with weights gets a cast kernel before it (read
    fp32, write 16 bits); diffusers' pipelines hold the UNet in fp16 (torch_dtype), so none."""
    from gpuwise.estimate.operators import operator_seconds
    from gpuwise.estimate.rates import compute_rates

    model = CAT.model(SD15)
    rates = compute_rates(CAT.gpu("a100-80gb-sxm"), "fp16", CAT)
    weighted = sum(op.cls in ("convolution", "gemm") and op.param_bytes > 0 for op in model.operators)
    half = operator_seconds(model, 2, rates, CAT, training=False, runtime="eager", autocast=False)
    amp = operator_seconds(model, 2, rates, CAT, training=False, runtime="eager", autocast=True)
    assert half.kernels == len(model.operators) == 769
    assert amp.kernels == 769 + weighted
    assert amp.total > half.total


def test_autocast_is_refused_where_it_means_nothing():
    r = run_process(
        "estimate", "--model", SD15, "--task", "inference", "--gpu", "t4", "--engine", "tensorrt", "--no-autocast",
    )  # fmt: skip
    assert r.returncode == 2 and "--engine eager" in r.stderr + r.stdout


# Published per-step times of Stable Diffusion 1.5's pipeline, one UNet forward on 2 latents (batch 1
# with classifier-free guidance) plus the scheduler step; nothing in gpuwise is fitted to them. `bound`:
# the |error| allowed (today's plus 5 points, for a regression).
STABLE_FAST = "https://github.com/chengzeyi/stable-fast/blob/04c68022927478e9cc203d2ba6517d58c11d63ad/README.md"
FAL = "https://github.com/fal-ai/stable-diffusion-benchmarks/blob/afeea43fd89ac1986e6414ab08eb0a5af772ab05/README.md"
PUBLISHED_STEPS = [
    # (source, GPU, engine, autocast, published ms per step, bound)
    (STABLE_FAST, "rtx-4090", "eager", False, 1000 / 24.9, 0.23),  # Vanilla PyTorch 2.1, 24.9 it/s
    (STABLE_FAST, "rtx-3090", "eager", False, 1000 / 22.5, 0.19),  # 22.5 it/s
    # 29.5 it/s, WSL2 on a desktop CPU; +40 % since convolutions run at the GPU's GEMM rate: the 4080 has no
    # measured one and takes matmul_efficiency_default (0.75, an assumption), below the 1.08-1.10 the measured
    # RTX 4090 and 3090 reach (their rows moved from -18 % to -20 % and from +14 % to +3 %)
    (STABLE_FAST, "rtx-4080", "eager", False, 1000 / 29.5, 0.45),
    # fal-ai's figures are per image (text encoder, 50 steps, VAE, safety checker): tests/test_diffusion_pipeline.py
    # compares them with the whole pipeline; here the TensorRT one per step, as its UNet dominates the image
    (FAL, "a100-80gb-sxm", "tensorrt", None, 819 / 50, 0.15),  # TensorRT 9.0, CUDA graphs: 0.819 s / 50
]


@pytest.mark.parametrize(("source", "gpu", "engine", "autocast", "published_ms", "bound"), PUBLISHED_STEPS)
def test_published_sd15_step_times(source: str, gpu: str, engine: str, autocast: bool | None, published_ms, bound):
    args = ["--no-autocast"] if autocast is False else []
    r = run_process(
        "estimate", "--model", SD15, "--task", "inference", "--weights-dtype", "fp16", "--concurrency", "2",
        "--gpu", gpu, "--engine", engine, *args, "--json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    ours = json.loads(r.stdout)["inference"]["latency_seconds"] * 1e3
    assert abs(ours / published_ms - 1) <= bound, (source, gpu, engine, ours, published_ms)
