"""A whole Stable Diffusion pipeline (diffusers' StableDiffusionPipeline) operator by operator, per
image, so the per-operator roofline (estimate/operators.py) times what a published "seconds per
image" covers, not only the UNet.

What `pipe(prompt)` runs on the GPU for one 512x512 image (diffusers' pipeline_stable_diffusion.py):
- the CLIP text encoder twice at batch 1 (the prompt, then the empty negative prompt for
  classifier-free guidance; the two embeddings are concatenated), 77 tokens each;
- the denoising loop: per scheduler timestep the latent doubled (`torch.cat([latents] * 2)`), one
  UNet call on the pair, the guidance combination (subtract, scale, add) and the scheduler step;
  PNDM with `skip_prk_steps` (SD 1.5's scheduler) runs `num_inference_steps + 1` timesteps
  (scheduling_pndm.py set_timesteps repeats the second-to-last one), its PLMS step combines the
  last four model outputs (8 kernels) and forms the previous sample (4);
- the VAE decoder once (latents / scaling_factor, post_quant_conv, the decoder, then
  `(image / 2 + 0.5).clamp(0, 1)`), its largest tensors at 512x512;
- the safety checker (a CLIP ViT-L/14 vision tower at 224x224 and its projection) once, unless the
  pipeline is loaded without it (`safety_checker=None`: the `-no-safety-checker` variant).
Weights: every part `from_pretrained` loads is on the GPU, the VAE's encoder included (its
parameters are counted; it never runs in text-to-image).

The CLIP layers are written as transformers' CLIPAttention and CLIPMLP run them eagerly: the query
scaled, K, V and Q made contiguous per head, two batched matmuls around the causal-mask add and the
softmax, quick_gelu as x * sigmoid(1.702 x) (three kernels). Not on the GPU, so not here: the
tokenizer, the PIL conversion and the safety checker's image preprocessing (CPU).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuwise.catalog.arch import DESCRIBED_ELEMENT_BYTES as _E
from gpuwise.catalog.arch import GenericArch, Operator
from gpuwise.catalog.unet_operators import (
    TODAYS_CODE,
    AttentionKind,
    EagerCode,
    UNetConfig,
    _attention,
    _Ops,
    _resnet,
    unet_operators,
    unet_written,
)

SCHEDULER_KERNELS = 12  # PNDM's PLMS step: 8 to combine four outputs, 4 to form the previous sample


@dataclass(frozen=True, slots=True)
class Part:
    """One part of the pipeline: its operators per image and the parameters it holds on the GPU."""

    name: str
    operators: tuple[Operator, ...]
    params: int
    peak_bytes: float  # the most bytes live at once while it runs, per image


def _clip_layers(w: _Ops, p: str, t: int, c: int, f: int, heads: int, layers: int, causal: bool) -> None:
    """CLIPEncoderLayer x `layers` on `t` tokens of width `c` (transformers' CLIPAttention, eager)."""
    scores = heads * t * t
    for n in range(layers):
        b = f"{p}.layers.{n}"
        w.norm(f"{b}.layer_norm1", c * t, c)
        w.gemm(f"{b}.q_proj", t, c, c, bias=True)
        w.pointwise(f"{b}.q_scale", "elementwise", t * c, 2, fused=True)
        for x in ("k", "v"):
            w.gemm(f"{b}.{x}_proj", t, c, c, bias=True)
            w.pointwise(f"{b}.{x}.contiguous", "data-movement", t * c, 2, fused=True)
        w.pointwise(f"{b}.q.contiguous", "data-movement", t * c, 2, fused=False)
        w.ops.append(Operator(f"{b}.scores.bmm", "gemm", 2.0 * t * t * c, _E * (2 * t * c + scores)))
        if causal:
            w.pointwise(f"{b}.causal_mask.add", "elementwise", scores, 3, fused=True)
        w.pointwise(f"{b}.softmax", "elementwise", scores, 2, fused=True)
        w.ops.append(Operator(f"{b}.context.bmm", "gemm", 2.0 * t * t * c, _E * (scores + 2 * t * c)))
        w.pointwise(f"{b}.heads_to_tokens", "data-movement", t * c, 2, fused=True)
        w.gemm(f"{b}.out_proj", t, c, c, bias=True)
        w.pointwise(f"{b}.residual1.add", "elementwise", t * c, 3, fused=True)
        w.norm(f"{b}.layer_norm2", c * t, c)
        w.gemm(f"{b}.fc1", t, c, f, bias=True)
        w.pointwise(f"{b}.quick_gelu.scale", "elementwise", t * f, 2, fused=True)
        w.pointwise(f"{b}.quick_gelu.sigmoid", "elementwise", t * f, 2, fused=True)
        w.pointwise(f"{b}.quick_gelu.mul", "elementwise", t * f, 3, fused=True)
        w.gemm(f"{b}.fc2", t, f, c, bias=True)
        w.pointwise(f"{b}.residual2.add", "elementwise", t * c, 3, fused=True)


def text_encoder(cfg: Mapping[str, Any], name: str = "text_encoder") -> Part:
    """CLIPTextModel on one prompt of `max_position_embeddings` tokens (the pipeline pads to 77)."""
    t, c = int(cfg["max_position_embeddings"]), int(cfg["hidden_size"])
    w = _Ops()
    w.params += int(cfg["vocab_size"]) * c + t * c
    for table in ("token", "position"):  # gathers: the rows read, the embeddings written
        w.ops.append(Operator(f"{name}.embeddings.{table}", "embedding", 0.0, _E * 2 * t * c))
    w.pointwise(f"{name}.embeddings.add", "elementwise", t * c, 3, fused=False)
    heads, layers = int(cfg["num_attention_heads"]), int(cfg["num_hidden_layers"])
    _clip_layers(w, f"{name}.encoder", t, c, int(cfg["intermediate_size"]), heads, layers, causal=True)
    w.norm(f"{name}.final_layer_norm", c * t, c)
    return Part(name, tuple(w.ops), w.params, w.peak)


def safety_checker(cfg: Mapping[str, Any], name: str = "safety_checker") -> Part:
    """StableDiffusionSafetyChecker: a CLIP vision tower on one 224x224 image (patch convolution
    without bias, class token, positions, pre-norm, the layers, post-norm of the class token), its
    projection and the concept embeddings it compares against."""
    v = cfg["vision_config"]
    c, side, patch = int(v["hidden_size"]), int(v["image_size"]), int(v["patch_size"])
    t = (side // patch) ** 2 + 1
    w = _Ops()
    w.conv(f"{name}.patch_embedding", 3, c, patch, side * side, t - 1, bias=False)
    w.params += c + t * c  # class embedding, position embedding
    w.pointwise(f"{name}.class_token.cat", "data-movement", t * c, 2, fused=False)
    w.pointwise(f"{name}.position.add", "elementwise", t * c, 3, fused=False)
    w.norm(f"{name}.pre_layrnorm", c * t, c)
    heads, layers = int(v["num_attention_heads"]), int(v["num_hidden_layers"])
    _clip_layers(w, f"{name}.encoder", t, c, int(v["intermediate_size"]), heads, layers, causal=False)
    w.norm(f"{name}.post_layernorm", c, c)
    proj = int(cfg["projection_dim"])
    w.gemm(f"{name}.visual_projection", 1, c, proj, bias=False)
    concepts = int(cfg["concepts"]) + int(cfg["special_care_concepts"])
    w.params += concepts * (proj + 1)  # the concept embeddings and their thresholds
    return Part(name, tuple(w.ops), w.params, w.peak)


def _vae_attention(w: _Ops, p: str, c: int, hw: int, attention: AttentionKind) -> None:
    """The VAE's single-head attention; eager, its softmax runs in fp32 (diffusers 0.11's AttentionBlock:
    `torch.softmax(attention_scores.float(), dim=-1).type(attention_scores.dtype)`)."""
    w.held = _E * c * hw  # the residual
    w.norm(f"{p}.group_norm", c * hw, c)
    _attention(w, p, c, hw, hw, c, bias=True, eager=(1, True) if attention == "eager" else None)
    w.held = 0.0


def vae(cfg: Mapping[str, Any], name: str = "vae", attention: AttentionKind = "flash") -> Part:
    """AutoencoderKL: the decoder on one latent of sample_size / 2^(blocks-1) pixels a side, as
    `decode_latents` runs it; the encoder and quant_conv only hold parameters here."""
    widths = [int(x) for x in cfg["block_out_channels"]]
    layers, latent, cin = int(cfg["layers_per_block"]), int(cfg["latent_channels"]), int(cfg["in_channels"])
    side = int(cfg["sample_size"]) // 2 ** (len(widths) - 1)
    enc = _Ops()  # parameters only: conv_in, down blocks, mid block, conv_norm_out, conv_out, quant_conv
    enc.conv("encoder.conv_in", cin, widths[0], 3, 1, 1)
    prev = widths[0]
    for i, c in enumerate(widths):
        for j in range(layers):
            _resnet(enc, f"encoder.down.{i}.resnet.{j}", prev if j == 0 else c, c, 1, 0)
        prev = c
        if i < len(widths) - 1:
            enc.conv(f"encoder.down.{i}.downsample", c, c, 3, 1, 1)
    _mid(enc, "encoder.mid", widths[-1], 1, attention)
    enc.norm("encoder.conv_norm_out", 1, widths[-1])
    enc.conv("encoder.conv_out", widths[-1], 2 * latent, 3, 1, 1)
    enc.conv("quant_conv", 2 * latent, 2 * latent, 1, 1, 1)
    w = _Ops()
    hw = side * side
    w.pointwise(f"{name}.unscale", "elementwise", latent * hw, 2, fused=False)
    w.conv(f"{name}.post_quant_conv", latent, latent, 1, hw, hw)
    w.conv(f"{name}.decoder.conv_in", latent, widths[-1], 3, hw, hw)
    _mid(w, f"{name}.decoder.mid", widths[-1], hw, attention)
    prev = widths[-1]
    for i, c in enumerate(reversed(widths)):
        for j in range(layers + 1):
            _resnet(w, f"{name}.decoder.up.{i}.resnet.{j}", prev if j == 0 else c, c, side * side, 0)
        prev = c
        if i < len(widths) - 1:
            w.pointwise(f"{name}.decoder.up.{i}.upsample.nearest", "data-movement", c * side * side * 5, 1, fused=False)
            side *= 2
            w.conv(f"{name}.decoder.up.{i}.upsample.conv", c, c, 3, side * side, side * side)
    hw = side * side
    w.norm(f"{name}.decoder.conv_norm_out", widths[0] * hw, widths[0])
    w.pointwise(f"{name}.decoder.conv_act", "elementwise", widths[0] * hw, 2, fused=True)
    w.conv(f"{name}.decoder.conv_out", widths[0], int(cfg["out_channels"]), 3, hw, hw)
    for op in ("div", "add", "clamp"):  # (image / 2 + 0.5).clamp(0, 1)
        w.pointwise(f"{name}.postprocess.{op}", "elementwise", int(cfg["out_channels"]) * hw, 2, fused=False)
    return Part(name, tuple(w.ops), w.params + enc.params, w.peak)


def _mid(w: _Ops, p: str, c: int, hw: int, attention: AttentionKind) -> None:
    """UNetMidBlock2D of the VAE: ResNet block, single-head attention, ResNet block."""
    _resnet(w, f"{p}.resnet.0", c, c, hw, 0)
    _vae_attention(w, f"{p}.attn", c, hw, attention)
    _resnet(w, f"{p}.resnet.1", c, c, hw, 0)


@dataclass(frozen=True, slots=True)
class PipelineCall:
    """How a pipeline is called, where not its defaults: `steps` its num_inference_steps, `guidance` its
    guidance_scale (classifier-free guidance above 1)."""

    steps: int | None = None
    guidance: float | None = None
    scheduler: str | None = None  # a key of SCHEDULERS; None: the checkpoint's own

    def overrides(self) -> dict[str, Any]:
        """The call's own values of the pipeline document's call defaults (and scheduler)."""
        out: dict[str, Any] = {
            k: v for k, v in (("num_inference_steps", self.steps), ("guidance_scale", self.guidance)) if v is not None
        }
        if self.scheduler is not None:
            out["scheduler"] = SCHEDULERS[self.scheduler]
        return out


# --scheduler: the diffusers scheduler a pipeline is called with. PNDM with skip_prk_steps (SD 1.x's default) repeats
# one timestep; the others evaluate the UNet once a step (their step kernels are counted as PLMS's: a few elementwise
# kernels on a 64x64 latent, against a UNet call's hundreds).
SCHEDULERS: dict[str, dict[str, Any]] = {
    "pndm": {"_class_name": "PNDMScheduler", "skip_prk_steps": True},
    "ddim": {"_class_name": "DDIMScheduler"},
    "euler": {"_class_name": "EulerDiscreteScheduler"},
    "euler-ancestral": {"_class_name": "EulerAncestralDiscreteScheduler"},
    "dpm-solver": {"_class_name": "DPMSolverMultistepScheduler"},
    "lcm": {"_class_name": "LCMScheduler"},
}
_WRITTEN = frozenset(s["_class_name"] for s in SCHEDULERS.values())  # the scheduler classes denoising_steps reads


def denoising_steps(doc: Mapping[str, Any]) -> int:
    """UNet calls per image: the scheduler's timesteps (PNDM with skip_prk_steps: one more than
    num_inference_steps; the others in SCHEDULERS one a step)."""
    sched = doc["scheduler"]
    if sched.get("_class_name") not in _WRITTEN or (sched["_class_name"] == "PNDMScheduler") != bool(
        sched.get("skip_prk_steps")
    ):
        raise ValueError(
            f"a scheduler that evaluates the UNet once a step ({', '.join(sorted(_WRITTEN))}) is written out"
        )
    return int(doc["num_inference_steps"]) + (1 if sched["_class_name"] == "PNDMScheduler" else 0)


def _step_extras(latent: int, guided: bool = True) -> tuple[Operator, ...]:
    """Per timestep besides the UNet, per image: under guidance the latent doubled and the guidance
    combination (text - uncond, x guidance_scale, + uncond); the scheduler step's kernels either way."""
    ops = [Operator("step.cat_latents", "data-movement", 0.0, _E * 3 * latent)] if guided else []
    ops += [
        Operator(f"step.guidance.{k}", "elementwise", 0.0, _E * n * latent)
        for k, n in (("sub", 3), ("mul", 2), ("add", 3))
        if guided
    ]
    ops += [Operator(f"step.scheduler.{i}", "elementwise", 0.0, _E * 3 * latent) for i in range(SCHEDULER_KERNELS)]
    return tuple(ops)


def _scaled(ops: tuple[Operator, ...], times: int, offset: int, prefix: str) -> list[Operator]:
    """`ops` for `times` samples per image (the UNet's pair under guidance), renamed and re-indexed."""
    return [
        Operator(
            f"{prefix}{op.name}",
            op.cls,
            op.flops * times,
            op.act_bytes * times,
            op.param_bytes,
            None if op.fused_into is None else op.fused_into + offset,
        )
        for op in ops
    ]


def pipeline_operators(
    doc: Mapping[str, Any],
    unet_cfg: UNetConfig,
    name: str,
    attention: AttentionKind = "flash",
    fp32_softmax: bool = False,
    code: EagerCode = TODAYS_CODE,
) -> GenericArch:
    """Every kernel of one image through the pipeline (module docstring), in issue order; `params`
    every weight the pipeline holds; `activation_bytes_per_sample` the largest working set of any
    part (the VAE decoder's at full resolution for SD 1.5; under eager attention the UNet's score
    matrices of its 64x64 self-attention). `attention` eager: the UNet's and the VAE's attention
    materialize their scores (CLIP's is transformers' eager attention either way), the UNet's
    softmax in fp32 with `fp32_softmax` (under torch.autocast); `code`: what the UNet's eager
    attention keeps and runs by diffusers release and autocast dtype."""
    guided = float(doc["guidance_scale"]) > 1.0
    pair = 2 if guided else 1
    unet = unet_operators(unet_cfg, name=f"{name}.unet", attention=attention, fp32_softmax=fp32_softmax, code=code)
    # the skip connections beside it aside
    unet_peak = unet_written(unet_cfg, attention, fp32_softmax, code).peak * pair
    te = text_encoder(doc["text_encoder"])
    decoder = vae(doc["vae"], attention=attention)
    checker = safety_checker(doc["safety_checker"]) if doc.get("safety_checker") else Part("none", (), 0, 0.0)
    ops: list[Operator] = []
    for call in range(pair):  # the prompt, then the negative prompt: two calls at the prompt batch
        ops += _scaled(te.operators, 1, len(ops), NEGATIVE_PROMPT if call else "")
    extras = _step_extras(unet_cfg.in_channels * unet_cfg.sample_size**2, guided)
    first, steps = len(ops), denoising_steps(doc)
    for step in range(steps):
        ops += _scaled(unet.operators, pair, len(ops), f"unet[{step}].")
        ops += extras
    ops += _scaled(decoder.operators, 1, len(ops), "")
    ops += _scaled(checker.operators, 1, len(ops), "")
    peak = max(te.peak_bytes, unet_peak, decoder.peak_bytes, checker.peak_bytes)
    return GenericArch(
        name=name,
        task="diffusion",
        params=unet.params + te.params + decoder.params + checker.params,
        flops_per_sample=sum(op.flops for op in ops),
        activation_bytes_per_sample=peak,
        forward_peak_bytes_per_sample=peak,
        input_shape=(unet_cfg.in_channels, unet_cfg.sample_size, unet_cfg.sample_size),
        operators=tuple(ops),
        repeats=((first, len(unet.operators) + len(extras), steps),),
    )


NEGATIVE_PROMPT = "negative_prompt."  # the text encoder's second call under guidance


def is_whole_pipeline(model: GenericArch) -> bool:
    """Whether `model` is a diffusion pipeline written whole (`pipeline_operators`), not one UNet call."""
    return model.task == "diffusion" and _unet_calls(model)[0] > 0


def _unet_calls(model: GenericArch) -> tuple[int, tuple[Operator, ...]]:
    """(UNet calls, the operators after them): read from the repeated run `pipeline_operators`
    records (a plan asks this of every candidate: the 41,000 names are not scanned each time)."""
    for first, length, runs in model.repeats:
        if model.operators[first].name.startswith("unet["):
            return runs, model.operators[first + length * runs :]
    steps = sum(op.name.startswith("unet[") and op.name.endswith("conv_in") for op in model.operators)
    return steps, model.operators


def coverage_note(model: GenericArch) -> str | None:
    """What one request's figure covers for a diffusion model: the whole pipeline per image, or one
    UNet call (and how to ask for the other); None for other models."""
    if model.task != "diffusion":
        return None
    steps, after = _unet_calls(model)
    if steps:
        checked = (
            " and the safety checker"
            if any(op.name.startswith("safety_checker.") for op in after)
            else " (no safety checker)"
        )
        before = next((first for first, _, _ in model.repeats), 0)  # the text encoder's calls come before the loop
        guided = any(op.name.startswith(NEGATIVE_PROMPT) for op in model.operators[:before])
        calls = f"{steps} UNet call{'s' if steps > 1 else ''}"
        runs = (
            f"the text encoder twice (prompt and negative prompt), {calls} on the guided pair of latents with the "
            "guidance and scheduler kernels"
            if guided
            else f"the text encoder once, {calls} on one latent (no classifier-free guidance) with the scheduler kernels"
        )
        return (
            f"{model.name}: a request is one image through the whole pipeline: {runs}, the VAE decode{checked} (CPU "
            "tokenizing and image conversion not included); the UNet alone per denoising step: "
            f"--model stable-diffusion-v1-5-unet --concurrency {2 if guided else 1}"
        )
    return (
        f"{model.name}: a request is one latent through one UNet call (a denoising step; with classifier-free "
        "guidance an image takes 2 per step); an image through the whole pipeline (text encoder, every step, "
        "VAE decode): --model stable-diffusion-v1-5"
    )
