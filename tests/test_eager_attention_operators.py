"""`--attention eager` on the diffusion models written operator by operator: every attention of the
UNet and the VAE materializes its score matrices (diffusers without SDPA or xFormers), the FLOPs
unchanged, checked against published pairs of the same pipeline with and without fused attention."""

from __future__ import annotations

import json

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.catalog.unet_operators import EagerCode, attention_written

from .conftest import run_process

CAT = load_catalog()
UNET, PIPE = "stable-diffusion-v1-5-unet", "stable-diffusion-v1-5"
E = 2  # bytes of a 16-bit element
SELF_SCORES = 8 * 4096 * 4096  # 8 heads (SD 1.5's attention_head_dim) x 4,096 x 4,096 at the 64x64 latent
QK = E * 2 * 4096 * 320  # that attention's Q and K (4,096 tokens x 320), read while baddbmm writes


def _ops(model: str, attention: str) -> dict[str, object]:
    return {op.name: op for op in CAT.model(model, attention=attention).operators}


def test_eager_self_attention_hand_computed():
    """down.0's self-attention, width 320 over 4,096 tokens: the copies of Q, K, V to (batch x heads)
    layout, baddbmm writing 134,217,728 fp16 scores, the softmax reading and writing them, bmm reading
    them with V; the two matmuls carry the fused kernel's 4 t s c FLOPs."""
    ops = _ops(UNET, "eager")
    p = "down.0.attn.0.block.0.attn1"
    assert f"{p}.sdpa" not in ops
    scores, probs, ctx = ops[f"{p}.scores.baddbmm"], ops[f"{p}.softmax"], ops[f"{p}.context.bmm"]
    assert scores.flops == ctx.flops == 2 * 4096 * 4096 * 320
    assert scores.act_bytes == E * (2 * 4096 * 320 + SELF_SCORES)
    assert probs.act_bytes == E * 2 * SELF_SCORES == 536_870_912
    assert ctx.act_bytes == E * (SELF_SCORES + 2 * 4096 * 320)
    assert ops[f"{p}.q.heads_to_batch"].act_bytes == E * 2 * 4096 * 320
    cross = ops["down.0.attn.0.block.0.attn2.softmax"]  # to the 77 text tokens
    assert cross.act_bytes == E * 2 * 8 * 4096 * 77


def test_eager_keeps_the_flops_and_adds_five_kernels_per_attention():
    """32 attentions (16 transformer blocks x self and cross): SDPA's one kernel becomes six."""
    flash, eager = CAT.model(UNET), CAT.model(UNET, attention="eager")
    assert sum(op.flops for op in eager.operators) == pytest.approx(sum(op.flops for op in flash.operators))
    assert len(flash.operators) == 769 and len(eager.operators) == 769 + 32 * 5
    assert attention_written(flash) == "flash" and attention_written(eager) == "eager"


def test_under_bf16_autocast_the_unet_softmax_runs_in_fp32():
    """torch.autocast runs softmax in float32; a bf16 input is cast up first (2 + 4 bytes a score),
    softmaxed (4 + 4) and cast back by `.to(value.dtype)` (4 + 2): two kernels more per attention,
    and while the softmax runs a latent holds the 16-bit scores, the fp32 copy and the fp32 result:
    10 bytes a score, 1.34 GB at the 64x64 self-attention, 2.68 GB per guided image; 12 bytes
    (3.22 GB) where diffusers 0.13-0.16 keep baddbmm's input beside them."""
    amp = CAT.model(UNET, attention="eager", fp32_softmax=True)
    ops = {op.name: op for op in amp.operators}
    p = "down.0.attn.0.block.0.attn1"
    assert ops[f"{p}.scores.float"].act_bytes == 6 * SELF_SCORES
    assert ops[f"{p}.softmax"].act_bytes == 8 * SELF_SCORES
    assert ops[f"{p}.probs.half"].act_bytes == 6 * SELF_SCORES
    assert len(amp.operators) == 769 + 32 * 7
    pipe = CAT.model(PIPE, attention="eager", fp32_softmax=True)
    assert pipe.activation_bytes_per_sample == 2 * 10 * SELF_SCORES == 2_684_354_560
    held = CAT.model(PIPE, attention="eager", fp32_softmax=True, code=EagerCode(release=(0, 14)))
    assert held.activation_bytes_per_sample == 2 * 12 * SELF_SCORES == 3_221_225_472


@pytest.mark.parametrize(("release", "per_score"), [(None, 6), ((0, 11), 8), ((0, 14), 10), ((0, 17), 6)])
def test_under_fp16_autocast_the_softmax_reads_half_and_writes_float(release, per_score: int) -> None:
    """PyTorch's CUDA softmax takes an fp16 input straight to an fp32 output (half_to_float) when
    autocast asks for float: no copy kernel, 2 + 4 bytes read and written, then the cast back (4 + 2).
    Live while it runs, per score: 0.17 on 2 + 4 (the scores are deleted before the cast back: 4 + 2
    then); 0.11 and 0.12 also name the fp16 scores during the cast back, 2 + 4 + 2 = 8; 0.13-0.16
    keep baddbmm's input besides, 10."""
    code = EagerCode(release=release, half_to_float=True)
    amp = CAT.model(UNET, attention="eager", fp32_softmax=True, code=code)
    ops = {op.name: op for op in amp.operators}
    p = "down.0.attn.0.block.0.attn1"
    assert f"{p}.scores.float" not in ops
    assert ops[f"{p}.softmax"].act_bytes == 6 * SELF_SCORES
    assert ops[f"{p}.probs.half"].act_bytes == 6 * SELF_SCORES
    assert len(amp.operators) == 769 + 32 * 6
    pipe = CAT.model(PIPE, attention="eager", fp32_softmax=True, code=code)
    assert pipe.activation_bytes_per_sample == 2 * per_score * SELF_SCORES


def test_eager_pytorch_autocasts_by_default_and_no_autocast_keeps_fp16():
    work = {"model": UNET, "task": "inference", "weights_dtype": "fp16", "concurrency": 2, "engine": "eager"}
    amp = make_estimate({**work, "attention": "eager"}, {"gpu": "a100-40gb-sxm:1"}).as_dict()
    half = make_estimate({**work, "attention": "eager", "autocast": False}, {"gpu": "a100-40gb-sxm:1"}).as_dict()
    assert "reads fp16 and writes fp32" in json.dumps(amp) and "the UNet's softmax in fp16" in json.dumps(half)
    bf16 = make_estimate({**work, "weights_dtype": "bf16", "attention": "eager"}, {"gpu": "a100-40gb-sxm:1"})
    assert "every softmax in fp32" in json.dumps(bf16.as_dict())
    assert amp["inference"]["latency_seconds"] > half["inference"]["latency_seconds"]


def test_the_vae_softmax_runs_in_fp32():
    """diffusers' VAE attention upcasts: fp16 scores cast to fp32, softmaxed in fp32, cast back."""
    ops = _ops(PIPE, "eager")
    s = 4096 * 4096  # one head over the 64x64 latent
    assert ops["vae.decoder.mid.attn.scores.float"].act_bytes == (2 + 4) * s
    assert ops["vae.decoder.mid.attn.softmax"].act_bytes == 8 * s
    assert ops["vae.decoder.mid.attn.probs.half"].act_bytes == (4 + 2) * s


def test_the_pipeline_working_set_holds_two_score_matrices_per_latent():
    """While the 64x64 self-attention's baddbmm writes, a latent holds its uninitialized input and the
    scores; while the softmax runs, the scores and their softmax: 2 x 268 MB, twice per image
    (guidance), with the Q and K baddbmm reads, above the VAE decoder's 403 MB. diffusers 0.11 and 0.12 pass the input inline (a
    temporary freed when baddbmm returns), 0.17 on delete it (#3463); 0.13-0.16's
    get_attention_scores keeps it named through the softmax: 3 x 268 MB."""
    assert CAT.model(PIPE, attention="eager").activation_bytes_per_sample == 2 * (2 * E * SELF_SCORES + QK)
    held = CAT.model(PIPE, attention="eager", code=EagerCode(release=(0, 14)))
    assert held.activation_bytes_per_sample == 2 * 3 * E * SELF_SCORES
    assert CAT.model(PIPE).activation_bytes_per_sample == 402_653_184


@pytest.mark.parametrize(
    ("version", "held"),
    [
        ("0.11", False),
        ("0.12.1", False),
        ("0.13", True),
        ("v0.14", True),
        ("0.14.0.dev0", True),
        ("0.16.1rc1", True),
        ("0.16.1", True),
        ("0.17", False),
        ("0.35.2", False),
    ],
)
def test_the_diffusers_release_decides_the_held_input(version: str, held: bool) -> None:
    """The releases between #2111 (0.13, which named the input) and #3463 (0.17, which deletes it)."""
    work = {"model": PIPE, "task": "inference", "weights_dtype": "fp16", "concurrency": 4, "engine": "eager"}
    work |= {"autocast": False, "attention": "eager", "diffusers_version": version}
    est = make_estimate(work, {"gpu": "a100-80gb-sxm:1"})
    assert est.memory.per_gpu.activations == 4 * 2 * (3 * E * SELF_SCORES if held else 2 * E * SELF_SCORES + QK)
    assert f"diffusers {version}: " in json.dumps(est.as_dict())


def test_lambda_ran_batch_64_on_80_gb_which_only_a_freed_input_allows():
    """LambdaLabsML/lambda-diffusers' benchmark_no_xformers.csv (86a67dd), diffusers 0.11.0 pinned in
    scripts/Dockerfile: 'NVIDIA A100 80GB PCIe,half,False,False,pytorch,64,55.55,79.54' (79.54 GB
    reserved at 64 images). Two score matrices per latent fit the 80 GB card; three would not."""
    work = {"model": PIPE, "task": "inference", "weights_dtype": "fp16", "concurrency": 64, "engine": "eager"}
    work |= {"autocast": False, "attention": "eager"}
    freed = make_estimate(work, {"gpu": "a100-80gb-pcie:1"}).as_dict()["memory"]
    held = make_estimate(work | {"diffusers_version": "0.14"}, {"gpu": "a100-80gb-pcie:1"}).as_dict()["memory"]
    assert freed["fits"] and not held["fits"]
    assert abs(freed["per_gpu"]["total"] / 79.54e9 - 1) < 0.10


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--model", PIPE, "--attention", "eager", "--diffusers-version", "0.x"], "takes a release such as 0.14"),
        (["--model", PIPE, "--attention", "flash", "--diffusers-version", "0.14"], "give --attention eager"),
        (["--model", UNET, "--attention", "eager", "--diffusers-version", "0.14"], "a whole diffusion pipeline"),
        (["--model", "resnet-50", "--attention", "eager", "--diffusers-version", "0.14"], "resnet-50 is not one"),
        (
            [
                "--model",
                "llama-2-7b",
                "--engine",
                "transformers",
                "--attention",
                "eager",
                "--diffusers-version",
                "0.14",
            ],
            "llama-2-7b is not one",
        ),
    ],
)
def test_a_diffusers_version_that_cannot_apply_is_a_usage_error(flags: list[str], said: str) -> None:
    """A release that is none, fused attention, a UNet alone (timed; its peak is not the pipeline's),
    a model without attention written out, an LLM: each refused with its reason, exit 2."""
    engine = [] if "--engine" in flags else ["--engine", "eager"]
    done = run_process("estimate", "--task", "inference", "--gpu", "a100-80gb-sxm", *engine, *flags)
    assert done.returncode == 2 and said in done.stderr + done.stdout, done.stderr + done.stdout


# diffusers' docs/source/en/optimization/torch2.0.mdx at 663c654 (March 2023), FP16 table: SD v1.4 (the
# v1.5 shapes), 50 steps, seconds per batch of images; 'Vanilla Attention' beside 'PyTorch2.0 SDPA'. The
# A100 is the 40 GB part (vanilla runs out of memory at batch 32, which 80 GB holds), the V100 the 16 GB
# one (out of memory at batch 8). Nothing is fitted to them; each bound is today's |error| plus 5 points.
TORCH2_DOC = "https://github.com/huggingface/diffusers/blob/663c6545779b889c7ce51d2aaf8c43309aba6652/docs/source/en/optimization/torch2.0.mdx"
VANILLA = [
    # (GPU, images, published vanilla seconds, bound)
    ("a100-40gb-sxm", 1, 2.69, 0.35),
    ("a100-40gb-sxm", 2, 3.21, 0.20),
    ("a100-40gb-sxm", 4, 5.27, 0.13),
    ("a100-40gb-sxm", 8, 9.74, 0.13),
    ("a100-40gb-sxm", 16, 18.95, 0.13),
    ("a10", 4, 13.94, 0.24),
    ("a10", 8, 27.09, 0.24),
    ("a10", 10, 33.69, 0.24),
    ("t4", 4, 38.81, 0.48),
    ("v100-16gb-pcie", 4, 9.84, 0.12),
    ("rtx-3090", 1, 2.94, 0.19),
    ("rtx-3090", 4, 10.04, 0.19),
    ("rtx-3090", 8, 19.27, 0.20),
    ("rtx-3090", 10, 24.08, 0.20),
]


def _pipeline(gpu: str, images: int, attention: str) -> dict:
    """The torch2.0 benchmark (PR #2303, February 2023) ran diffusers 0.13's AttnProcessor."""
    work = {
        **({"diffusers_version": "0.13"} if attention == "eager" else {}),
        "model": PIPE,
        "task": "inference",
        "weights_dtype": "fp16",
        "concurrency": images,
        "engine": "eager",
        "autocast": False,
        "attention": attention,
    }
    return make_estimate(work, {"gpu": f"{gpu}:1"}).as_dict()


@pytest.mark.parametrize(("gpu", "images", "published", "bound"), VANILLA)
def test_published_vanilla_attention_pipeline_times(gpu: str, images: int, published: float, bound: float):
    ours = _pipeline(gpu, images, "eager")["inference"]["latency_seconds"]
    assert abs(ours / published - 1) <= bound, (TORCH2_DOC, gpu, images, ours, published)


@pytest.mark.parametrize(
    ("gpu", "fits", "oom"),
    [("t4", 4, 8), ("v100-16gb-pcie", 4, 8), ("a10", 10, 16), ("rtx-3090", 10, 16), ("a100-40gb-sxm", 16, 32)],
)
def test_vanilla_attention_runs_out_of_memory_where_published(gpu: str, fits: int, oom: int):
    """The same table: the largest batch vanilla attention ran and the next, 'OOM', where SDPA ran both."""
    assert _pipeline(gpu, fits, "eager")["memory"]["fits"]
    assert not _pipeline(gpu, oom, "eager")["memory"]["fits"]
    assert _pipeline(gpu, oom, "flash")["memory"]["fits"]


def test_the_output_names_the_attention():
    eager = json.dumps(_pipeline("a100-40gb-sxm", 1, "eager"))
    assert "attention eager (--attention eager)" in eager and "score matrix in fp16" in eager
    default = make_estimate(
        {"model": UNET, "task": "inference", "weights_dtype": "fp16", "concurrency": 2, "engine": "eager"},
        {"gpu": "a100-40gb-sxm:1"},
    ).as_dict()
    assert "attention fused" in json.dumps(default)


def test_eager_attention_where_it_cannot_apply_is_a_usage_error():
    compiled = run_process(
        "estimate", "--model", UNET, "--task", "inference", "--gpu", "t4", "--engine", "tensorrt",
        "--attention", "eager",
    )  # fmt: skip
    assert compiled.returncode == 2 and "--engine eager or torchscript" in compiled.stderr + compiled.stdout
    cnn = run_process(
        "estimate", "--model", "resnet-50", "--task", "inference", "--gpu", "t4", "--engine", "eager",
        "--attention", "eager",
    )  # fmt: skip
    out = cnn.stderr + cnn.stdout
    assert cnn.returncode == 2 and "no attention written operator by operator" in out and PIPE in out


@pytest.mark.parametrize(
    ("workload", "said"),
    [
        ({"model": "stable-diffusion-v1-5", "engine": "eager", "attention": "eager", "weights_dtype": "fp16"}, False),
        ({"model": "stable-diffusion-v1-5", "engine": "eager", "weights_dtype": "fp16"}, True),
        ({"model": "resnet-50"}, False),
        ({"model": "resnet-50", "task": "pretrain", "micro_batch": 64}, False),
        ({"model": "vit-base-patch16-224"}, True),
    ],
)
def test_the_fused_attention_rate_is_named_only_where_a_kernel_runs_at_it(workload, said) -> None:
    """Eager attention runs as baddbmm, softmax and bmm, and a CNN has none: neither names the
    fused-attention rate among its assumptions; SDPA in the UNet and a ViT's attention do."""
    est = make_estimate({"task": "inference", **workload}, {"gpu": "a100-40gb-sxm:1"})
    assert any(n.startswith("fused attention at ") for n in est.notes) is said


@pytest.mark.parametrize(("weights", "autocast", "scale"), [("fp32", False, 2), ("fp16", True, 1), ("fp16", False, 1)])
def test_fp32_weights_keep_fp32_activations(weights: str, autocast: bool, scale: int) -> None:
    """A described model's working set is written at 16 bits; diffusers' fp32 pipeline (torch_dtype
    float32, no autocast: lambda-diffusers' 'single' rows) writes every activation in fp32, twice
    that; 16-bit weights, with or without autocast, write 16-bit activations."""
    work = {"model": PIPE, "task": "inference", "concurrency": 4, "engine": "eager", "attention": "eager"}
    work |= {"weights_dtype": weights, "autocast": autocast}
    est = make_estimate(work, {"gpu": "h100-pcie:1"})
    code = EagerCode(half_to_float=weights == "fp16")
    per_image = CAT.model(PIPE, attention="eager", fp32_softmax=autocast, code=code).activation_bytes_per_sample
    assert est.memory.per_gpu.activations == 4 * per_image * scale
    assert ("activations in fp32" in json.dumps(est.as_dict())) is (scale == 2)


@pytest.mark.parametrize("model", ["resnet-50", "vit-base-patch16-224"])
def test_fp32_weights_double_the_working_set_of_cnns_and_encoders(model: str) -> None:
    """The same rule for a CNN described operator by operator and for an encoder written out from its
    architecture (its prefill workspace at 4 bytes a value): fp32 weights keep fp32 activations."""
    work = {"model": model, "task": "inference", "concurrency": 64, "engine": "eager"}
    fp32 = make_estimate(work | {"weights_dtype": "fp32"}, {"gpu": "a100-80gb-sxm:1"}).memory.per_gpu.activations
    fp16 = make_estimate(work | {"weights_dtype": "fp16"}, {"gpu": "a100-80gb-sxm:1"}).memory.per_gpu.activations
    assert fp16 > 0 and fp32 == pytest.approx(2 * fp16)
