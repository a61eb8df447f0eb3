"""The whole Stable Diffusion 1.5 pipeline (text encoder, the denoising loop, VAE decoder, safety
checker) written operator by operator, so a per-image figure covers what `pipe(prompt)` runs."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.catalog.diffusion_pipeline import (
    SCHEDULERS,
    PipelineCall,
    denoising_steps,
    safety_checker,
    text_encoder,
    vae,
)
from gpuwise.errors import UsageError
from gpuwise.workload import build_workload

CAT = load_catalog()
PIPE = "stable-diffusion-v1-5"
DOC = json.loads(files("gpuwise").joinpath("catalog", "data", "diffusion", f"{PIPE}.json").read_text(encoding="utf-8"))
E = 2  # bytes of a 16-bit element


def test_each_part_has_its_published_parameter_count():
    """CLIP ViT-L/14's text model 123,060,480 (49,408 x 768 tokens + 77 x 768 positions + 12 layers of
    7,087,872 + the final norm); AutoencoderKL 83,653,863 (encoder, decoder, both 1x1 quant convs);
    the safety checker's ViT-L/14 vision tower 303,179,776 plus its 768-wide projection and the
    20 concept embeddings with their thresholds."""
    layer = 4 * (768 * 768 + 768) + (768 * 3072 + 3072) + (3072 * 768 + 768) + 2 * 2 * 768
    assert text_encoder(DOC["text_encoder"]).params == 49408 * 768 + 77 * 768 + 12 * layer + 2 * 768 == 123_060_480
    assert vae(DOC["vae"]).params == 83_653_863
    vision = 1024 + 3 * 14 * 14 * 1024 + 257 * 1024 + 2 * 2048 + 24 * 12_596_224
    assert vision == 303_179_776
    assert safety_checker(DOC["safety_checker"]).params == vision + 1024 * 768 + 20 * 769
    assert CAT.model(PIPE).params == 859_520_964 + 123_060_480 + 83_653_863 + vision + 1024 * 768 + 20 * 769


@pytest.mark.parametrize("model", [PIPE, f"{PIPE}-no-safety-checker"])
def test_the_catalogs_flops_per_image_are_the_operators_sum(model):
    """models.yaml stores each pipeline's FLOPs per image rounded to five figures; they are the sum
    of the operators the pipeline writer gives (so the two cannot drift apart unnoticed)."""
    arch = CAT.model(model)
    assert arch.flops_per_sample == pytest.approx(sum(op.flops for op in arch.operators), rel=1e-5)


def test_the_pipeline_runs_every_part_once_per_image_and_the_unet_per_timestep():
    """PNDM with skip_prk_steps: 50 inference steps are 51 timesteps (51 UNet calls); the text
    encoder twice (prompt, negative prompt); the VAE decoder and the safety checker once."""
    ops = CAT.model(PIPE).operators
    names = [op.name for op in ops]
    assert denoising_steps(DOC) == 51
    assert sum(n.startswith("unet[") and n.endswith(".conv_in") for n in names) == 51
    assert names.count("text_encoder.final_layer_norm") == 1  # the prompt's pass
    assert names.count("negative_prompt.text_encoder.final_layer_norm") == 1
    assert names.count("vae.decoder.conv_out") == 1 and names.count("safety_checker.visual_projection") == 1
    assert sum(n.startswith("step.scheduler.") for n in names) == 51 * 12
    unet = {op.name: op for op in CAT.model("stable-diffusion-v1-5-unet").operators}
    guided = next(op for op in ops if op.name == "unet[0].conv_in")
    assert guided.flops == 2 * unet["conv_in"].flops  # the pair of latents under classifier-free guidance
    assert guided.param_bytes == unet["conv_in"].param_bytes  # the weights are read once per call


def test_text_encoder_and_vae_operators_hand_computed():
    te = {op.name: op for op in text_encoder(DOC["text_encoder"]).operators}
    q = te["text_encoder.encoder.layers.0.q_proj"]  # 77 tokens x 768 -> 768, bias
    assert q.flops == 2 * 77 * 768 * 768 and q.param_bytes == E * (768 * 768 + 768)
    scores = te["text_encoder.encoder.layers.0.scores.bmm"]  # 12 heads x 77 x 77 scores over 64 dims
    assert scores.flops == 2 * 77 * 77 * 768 and scores.act_bytes == E * (2 * 77 * 768 + 12 * 77 * 77)
    assert "text_encoder.encoder.layers.0.causal_mask.add" in te
    dec = {op.name: op for op in vae(DOC["vae"]).operators}
    out = dec["vae.decoder.conv_out"]  # 3x3, 128 -> 3 channels at 512 x 512
    assert out.flops == 2 * 128 * 3 * 9 * 512 * 512
    up = dec["vae.decoder.up.2.upsample.conv"]  # 256 channels, upsampled to 512 x 512
    assert up.flops == 2 * 256 * 256 * 9 * 512 * 512
    attn = dec["vae.decoder.mid.attn.sdpa"]  # one head over the 64 x 64 latent's 4,096 positions, 512 wide
    assert attn.flops == 4 * 4096 * 4096 * 512


def test_the_vae_decoders_peak_is_its_first_full_resolution_block():
    """At 512 x 512 the last up block's first ResNet block holds its 256-channel input for the
    shortcut while group norm writes a copy and SiLU another: 3 x 256 x 512^2 x 2 bytes."""
    assert vae(DOC["vae"]).peak_bytes == 3 * 256 * 512 * 512 * E == 402_653_184
    assert CAT.model(PIPE).activation_bytes_per_sample == 402_653_184


def _estimate(model: str, concurrency: int, **extra: object) -> dict:
    work = {"model": model, "task": "inference", "weights_dtype": "fp16", "concurrency": concurrency, **extra}
    return make_estimate(work, {"gpu": "a100-40gb-sxm:1"}).as_dict()


def test_the_output_says_what_a_figure_covers():
    whole = _estimate(PIPE, 1, engine="eager", autocast=False)
    notes = " ".join(whole["assumptions"] if isinstance(whole["assumptions"], list) else [])
    text = json.dumps(whole)
    assert "whole pipeline" in text and "--model stable-diffusion-v1-5-unet" in text, notes
    step = _estimate("stable-diffusion-v1-5-unet", 2, engine="eager", autocast=False)
    assert "one UNet call" in json.dumps(step) and "--model stable-diffusion-v1-5" in json.dumps(step)


def test_the_memory_note_names_the_pipelines_working_set_not_a_training_activation():
    whole = json.dumps(_estimate(PIPE, 1, engine="eager", autocast=False))
    assert "the VAE decoder's at full resolution" in whole and "training activation" not in whole
    step = json.dumps(_estimate("stable-diffusion-v1-5-unet", 2, engine="eager", autocast=False))
    assert "largest kernel per sample" in step and "training activation" not in step


def test_an_image_costs_the_unet_steps_and_the_other_parts():
    """Per image: at least 51 UNet calls on the pair (as the UNet model times them), and the
    weights of every part in memory (fp16)."""
    whole = _estimate(PIPE, 1, engine="tensorrt")
    step = _estimate("stable-diffusion-v1-5-unet", 2, engine="tensorrt")
    assert whole["inference"]["latency_seconds"] > 51 * step["inference"]["latency_seconds"]
    assert whole["memory"]["per_gpu"]["weights"] == pytest.approx(2 * CAT.model(PIPE).params)


def test_a_pipeline_loaded_without_its_safety_checker():
    """safety_checker=None: the same parts and defaults without the vision tower, and the output says so."""
    bare = CAT.model("stable-diffusion-v1-5-no-safety-checker")
    assert bare.params == CAT.model(PIPE).params - safety_checker(DOC["safety_checker"]).params == 1_066_235_307
    assert not any(op.name.startswith("safety_checker.") for op in bare.operators)
    text = json.dumps(_estimate("stable-diffusion-v1-5-no-safety-checker", 1, engine="tensorrt"))
    assert "(no safety checker)" in text


@pytest.mark.parametrize(
    ("model", "engine", "published", "bound"),
    [
        # fal-ai/stable-diffusion-benchmarks README (commit afeea43), SD1.5 end to end, A100 80GB SXM, 50 steps:
        # diffusers 0.21.4 on torch 2.1 (SDPA) 1.591 s; TensorRT 9.0 demo/Diffusion with CUDA graphs 0.819 s.
        # Nothing is fitted to them; each bound is today's error plus 5 points (docs/operators.md).
        (PIPE, "eager", 1.591, 0.15),
        ("stable-diffusion-v1-5-no-safety-checker", "tensorrt", 0.819, 0.15),
    ],
)
def test_published_pipeline_times_on_a100(model, engine, published, bound):
    work = {"model": model, "task": "inference", "weights_dtype": "fp16", "concurrency": 1, "engine": engine}
    if engine == "eager":
        work["autocast"] = False  # diffusers holds the pipeline in fp16
    est = make_estimate(work, {"gpu": "a100-80gb-sxm:1"}).as_dict()
    assert abs(est["inference"]["latency_seconds"] / published - 1) <= bound


def test_more_images_never_take_less_time_or_memory():
    """A request is an image: two images at once run the same kernels on twice the latents."""
    one, two = (_estimate(PIPE, n, engine="eager", autocast=False) for n in (1, 2))
    assert two["inference"]["latency_seconds"] >= one["inference"]["latency_seconds"]
    assert two["memory"]["per_gpu"]["activations"] == 2 * one["memory"]["per_gpu"]["activations"]


@pytest.mark.parametrize(("runtime", "batch"), [("eager", 1), ("eager", 8), ("compiled", 4), ("folded", 2)])
def test_the_unet_calls_are_timed_once_per_state_and_replayed_exactly(monkeypatch, runtime, batch):
    """The 51 UNet calls are one repeated run (`repeats`): the timer walks a run once per lag it starts
    at (at most three here) and replays the rest, with the figures of a walk over all 41,219 kernels."""
    import dataclasses

    from gpuwise.estimate import operators
    from gpuwise.estimate.rates import compute_rates

    arch = CAT.model(PIPE)
    first, length, runs = arch.repeats[0]
    assert runs == 51 and arch.operators[first].name.startswith("unet[0].")
    assert all(
        a.cls == b.cls and a.flops == b.flops
        for a, b in zip(
            arch.operators[first : first + length], arch.operators[first + (runs - 1) * length :], strict=False
        )
    )
    rates = compute_rates(CAT.gpu("a100-40gb-sxm"), "fp16", CAT)
    walked = []
    kernel = operators._Timer.kernel
    monkeypatch.setattr(operators._Timer, "kernel", lambda self, *a: walked.append(1) or kernel(self, *a))
    grouped = operators._operator_seconds(arch, batch, rates, CAT, training=False, runtime=runtime, autocast=False)
    assert len(walked) < len(arch.operators) - (runs - 3) * length + 1
    flat = dataclasses.replace(arch, repeats=())
    whole = operators._operator_seconds(flat, batch, rates, CAT, training=False, runtime=runtime, autocast=False)
    assert grouped.kernels == whole.kernels and grouped.forward == pytest.approx(whole.forward, rel=1e-9)
    assert grouped.floor == pytest.approx(whole.floor, rel=1e-9)
    assert grouped.by_class == pytest.approx(whole.by_class, rel=1e-9)


def _flops(model: object) -> float:
    """The FLOPs of every operator a model runs (its `flops_per_sample` is the catalog's published count)."""
    return sum(op.flops for op in model.operators)  # type: ignore[attr-defined]


def test_the_call_sets_the_steps_the_guidance_and_the_scheduler():
    """Hand-computed: SD 1.5's PNDM runs num_inference_steps + 1 UNet calls, each on the guided pair of latents;
    25 steps: 26 calls, 25 fewer pairs than the default's 51; Euler one call a step; guidance 0: one latent a call,
    the text encoder once and no guidance kernels."""
    unet = _flops(CAT.model("stable-diffusion-v1-5-unet"))  # one latent through one UNet call
    default = CAT.model(PIPE)
    fewer = CAT.model(PIPE, call=PipelineCall(steps=25))
    assert _flops(default) - _flops(fewer) == pytest.approx(25 * 2 * unet, rel=1e-9)
    euler = CAT.model(PIPE, call=PipelineCall(steps=25, scheduler="euler"))
    assert _flops(fewer) - _flops(euler) == pytest.approx(2 * unet, rel=1e-9)
    one = CAT.model(PIPE, call=PipelineCall(steps=1, guidance=0.0, scheduler="euler"))
    guided_one = CAT.model(PIPE, call=PipelineCall(steps=1, scheduler="euler"))
    text = text_encoder(DOC["text_encoder"])
    assert _flops(guided_one) - _flops(one) == pytest.approx(unet + sum(op.flops for op in text.operators), rel=1e-9)
    assert not any(op.name.startswith("step.guidance") for op in one.operators)
    assert default.flops_per_sample == CAT.model_entry(PIPE).flops_per_sample  # the catalog's published count
    assert one.flops_per_sample == _flops(one)  # a call of its own: the FLOPs it runs
    assert denoising_steps({**DOC, "scheduler": {"_class_name": "DDIMScheduler"}}) == DOC["num_inference_steps"]


def test_a_one_step_image_costs_a_fraction_of_the_default_call():
    """The call's flags reach the estimate and its echo; fewer steps, less time; the note says what runs."""
    base = {"model": PIPE, "task": "inference", "weights_dtype": "fp16", "concurrency": 1}
    full = make_estimate(base, {"gpu": "a100-80gb-sxm:1"}).as_dict()
    one = make_estimate(
        {**base, "denoising_steps": 1, "guidance_scale": 0, "scheduler": "euler"}, {"gpu": "a100-80gb-sxm:1"}
    ).as_dict()
    t_full = full["inference"]["latency_seconds"]
    t_one = one["inference"]["latency_seconds"]
    assert 0 < t_one < t_full / 20  # 1 UNet call on one latent against 51 on the pair, the VAE decode in both
    text = json.dumps(one)
    assert "the text encoder once, 1 UNet call on one latent" in text
    assert '"denoising_steps": 1' in text and '"scheduler": "euler"' in text


@pytest.mark.parametrize(
    ("model", "words"),
    [("stable-diffusion-v1-5-unet", "one UNet call"), ("llama-3.1-8b", "not a diffusion pipeline")],
)
def test_the_call_flags_are_refused_off_a_whole_pipeline(model, words):
    with pytest.raises(UsageError, match=words):
        build_workload({"model": model, "task": "inference", "denoising_steps": 20}, CAT)


def test_the_schedulers_the_flag_takes_are_those_written_out():
    from typing import get_args

    from gpuwise.workload.specs import SchedulerName

    assert set(get_args(SchedulerName)) == set(SCHEDULERS)
