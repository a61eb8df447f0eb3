"""A BERT-style encoder written operator by operator from its architecture, so `--engine` (eager,
TorchScript, ONNX Runtime, TensorRT) applies to it with the operator model's fusion and launch rules."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.encoder_operators import encoder_operators
from gpuwise.errors import UsageError
from gpuwise.estimate import estimate
from gpuwise.estimate.compute import Shape, head_ops, layer_ops
from gpuwise.estimate.operators import launched
from gpuwise.workload import build_hardware, build_workload

from .conftest import run_process

CAT = load_catalog()
BATCH, SEQ = 32, 128


def _ops(model: str = "bert-base-uncased") -> dict[str, object]:
    return {op.name: op for op in encoder_operators(CAT.model(model), SEQ).operators}


def test_bert_base_operators_at_batch_32_by_128_tokens_hand_computed():
    """BERT-base: hidden 768, 12 heads of 64, FFN 3072; one sample is a sequence of 128 tokens,
    16-bit elements. Per batch of 32 x 128 tokens (m = 4096 rows):"""
    ops = _ops()
    q = ops["layer.0.query"]
    assert q.flops * BATCH == 2 * 4096 * 768 * 768 == 4_831_838_208
    assert q.act_bytes * BATCH == 2 * (4096 * 768 + 4096 * 768) == 12_582_912  # read x, write q
    assert q.param_bytes == 2 * (768 * 768 + 768) == 1_181_184  # weight and bias, once per batch
    scores = ops["layer.0.scores"]  # Q K^T: 12 heads x 128 x 128 per sequence, k = 64; reads Q and K
    assert scores.flops * BATCH == 2 * 32 * 12 * 128 * 128 * 64 == 805_306_368
    assert scores.act_bytes * BATCH == 2 * 4096 * 768 * 2 == 12_582_912
    # the score matrix (32 x 12 x 128 x 128 elements): the score GEMM's write is counted with the
    # scale (write, read, write), the value GEMM's read with the softmax (read, write, read)
    for name in ("scale", "softmax"):
        assert ops[f"layer.0.{name}"].act_bytes * BATCH == 3 * 2 * 32 * 12 * 128 * 128 == 37_748_736
        assert ops[f"layer.0.{name}"].fused_into is not None
    context = ops["layer.0.context"]  # probabilities x V: reads V, writes the context
    assert context.flops * BATCH == 805_306_368
    assert context.act_bytes * BATCH == 2 * 4096 * 768 * 2 == 12_582_912
    up = ops["layer.0.intermediate"]
    assert up.flops * BATCH == 2 * 4096 * 768 * 3072 == 19_327_352_832
    assert up.act_bytes * BATCH == 2 * 4096 * (768 + 3072) == 31_457_280
    assert up.param_bytes == 2 * (768 * 3072 + 3072) == 4_724_736
    assert ops["layer.0.gelu"].act_bytes * BATCH == 2 * 2 * 4096 * 3072 == 50_331_648
    assert ops["layer.0.output.add"].act_bytes * BATCH == 3 * 2 * 4096 * 768  # two reads, one write
    norm = ops["layer.0.output.layer_norm"]
    assert norm.act_bytes * BATCH == 2 * 2 * 4096 * 768 and norm.param_bytes == 2 * 2 * 768
    assert ops["pooler.dense"].flops * BATCH == 2 * 32 * 768 * 768  # the first token only
    # one layer: 4 projections (4 x 2mh^2), FFN (2 x 2mhf), attention (2 x 2 m s h)
    per_layer = 4 * 2 * 4096 * 768**2 + 2 * 2 * 4096 * 768 * 3072 + 2 * 2 * 4096 * 128 * 768
    total = sum(op.flops for op in ops.values()) * BATCH
    assert total == 12 * per_layer + 2 * 32 * 768**2 == 715_149_803_520


def test_a_compiled_engine_fuses_the_epilogues_and_the_attention_softmax():
    model = encoder_operators(CAT.model("bert-base-uncased"), SEQ)
    eager, compiled = model.operators, launched(model.operators, "compiled")
    # embeddings: 3 gathers, 2 adds, layernorm; per layer 17 operators; pooler: GEMM and tanh
    assert len(eager) == 6 + 12 * 17 + 2
    # per layer a compiled engine keeps the 8 GEMMs (Q, K, V, scores, context, output projection,
    # FFN up and down) and the 2 layernorms; of the pooler its GEMM
    assert len(compiled) == 6 + 12 * 10 + 1
    names = {op.name.rsplit(".", 1)[-1] for op in compiled}
    assert not names & {"softmax", "scale", "gelu", "transpose", "tanh"}


@pytest.mark.parametrize("name", ["bert-base-uncased", "bert-large-uncased"])
@pytest.mark.parametrize("seq", [128, 384])
def test_the_operator_list_has_the_layer_totals_flops(name: str, seq: int):
    """Both paths count 2 m k n per GEMM and 2 s (q + o) per token for attention: the operator list
    adds only the pooler, well within 1 %."""
    model = CAT.model(name)
    ops = encoder_operators(model, seq)
    s = Shape(tokens=seq, seqs=1, context=seq)
    layers = model.layers * sum(o.flops for o in layer_ops(model, s, 1, False))
    totals = layers + sum(o.flops for o in head_ops(model, s, 1, 0, False))
    assert ops.flops_per_sample == pytest.approx(totals, rel=0.01)


def _latency(engine: str | None, model: str = "bert-base-uncased", **opts: object) -> dict[str, object]:
    given = {"model": model, "task": "inference", "concurrency": BATCH, "input_tokens": SEQ, **opts}
    if engine:
        given["engine"] = engine
    work = build_workload(given, CAT)
    return estimate(work, build_hardware("t4", CAT, default_count=1), CAT).as_dict()


def test_each_runtime_times_bert_by_its_kernels_eager_slowest():
    t = {e: _latency(e)["inference"]["latency_seconds"] for e in ("eager", "torchscript", "onnxruntime", "tensorrt")}
    assert t["eager"] > t["torchscript"] > t["onnxruntime"] > t["tensorrt"] > 0
    d = _latency("eager")
    assert any("runs on PyTorch eager (--engine eager)" in a for a in d["assumptions"])
    assert d["inference"]["tokens_per_second"] == pytest.approx(BATCH * SEQ / d["inference"]["latency_seconds"])


def test_the_default_runtime_keeps_the_layer_totals():
    """Under the default (triton) an encoder is timed as before: no operator note."""
    d = _latency(None)
    assert d["workload"]["engine"] == "triton"
    assert not any("operators written from its architecture" in a for a in d["assumptions"])
    assert d["inference"]["latency_seconds"] == _latency("triton")["inference"]["latency_seconds"]


@pytest.mark.parametrize(
    ("opts", "says"),
    [
        ({"model": "bert-large-uncased", "engine": "eager", "tp": 2}, "not split over tensor-parallel ranks"),
    ],
)
def test_an_encoder_the_operators_cannot_express_is_refused_with_the_reason(opts: dict[str, object], says: str):
    with pytest.raises(UsageError, match=says):
        build_workload({"task": "inference", **opts}, CAT)


def test_cli_bert_under_torchscript_end_to_end():
    args = "estimate --model bert-base-uncased --task inference --engine torchscript --gpu t4 --concurrency 32"
    r = run_process(*args.split(), "--input-tokens", "128", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["workload"]["engine"] == "torchscript"
    assert any("runs on TorchScript (--engine torchscript)" in a for a in d["assumptions"])
    bad = run_process(
        "estimate", "--model", "bert-base-uncased", "--task", "inference", "--engine", "tensorrt", "--no-autocast"
    )
    assert bad.returncode == 2 and "--autocast/--no-autocast applies" in bad.stderr
    # --no-autocast under TorchScript restates the traced graph's own dtype: the same estimate
    same = run_process(*args.split(), "--input-tokens", "128", "--no-autocast", "--json")
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["inference"] == d["inference"]
    half = run_process(*args.replace("torchscript", "eager").split(), "--no-autocast")
    assert half.returncode == 0, half.stderr


def test_vit_b16_operators_hand_computed():
    """ViT-B/16 at 224: 196 patches + [CLS] = 197 tokens, hidden 768, 12 heads, FFN 3072, pre-norm.
    The patch embedding is one convolution: 196 patches x (3 x 16 x 16 = 768 inputs) x 768 outputs."""
    model = encoder_operators(CAT.model("vit-base-patch16-224"), 0)  # the fixed sequence, whatever asked
    ops = {op.name: op for op in model.operators}
    conv = ops["embeddings.patch_embeddings.projection"]
    assert conv.cls == "convolution" and conv.flops == 2 * 196 * 768 * 768 == 231_211_008
    assert conv.act_bytes == 2 * (3 * 224 * 224 + 196 * 768) and conv.param_bytes == 2 * 768 * 768
    assert ops["embeddings.patch_embeddings.bias.add"].fused_into == 0  # cuDNN's conv, then its bias add
    assert ops["embeddings.position_embeddings.add"].act_bytes == 2 * 3 * 197 * 768
    assert ops["layer.0.query"].flops == 2 * 197 * 768 * 768
    assert ops["layer.0.scores"].flops == 2 * 12 * 197 * 197 * 64
    assert ops["layer.0.softmax"].act_bytes == 2 * 3 * 12 * 197 * 197
    assert "layer.0.mask.add" not in ops  # no attention mask
    assert ops["classifier"].flops == 2 * 768 * 1000  # on [CLS] only
    # patch conv, its bias add, [CLS] concat, position add; per layer 2 layernorms, 8 GEMMs, scale,
    # softmax, transpose, GELU, 2 residual adds (16); the final layernorm; the head
    assert len(model.operators) == 4 + 12 * 16 + 1 + 1
    assert len(launched(model.operators, "compiled")) == 3 + 12 * 10 + 1 + 1  # the bias add and epilogues fused
    assert model.input_shape == (3 * 224 * 224,)
    per_layer = 4 * 2 * 197 * 768**2 + 2 * 2 * 197 * 768 * 3072 + 2 * 2 * 197 * 197 * 768
    assert model.flops_per_sample == 12 * per_layer + 231_211_008 + 2 * 768 * 1000


def test_a_fixed_sequence_without_a_known_patch_embedding_is_refused():
    bare = replace(CAT.model("vit-base-patch16-224"), patch_inputs=0)
    with pytest.raises(ValueError, match="no patch embedding"):
        encoder_operators(bare, 197)


def _vit_ms(gpu: str, dtype: str, batch: int, **opts: object) -> float:
    given = {"model": "vit-base-patch16-224", "task": "inference", "engine": "eager", "weights_dtype": dtype}
    work = build_workload({**given, "concurrency": batch, **opts}, CAT)
    return (
        float(estimate(work, build_hardware(gpu, CAT, default_count=1), CAT).as_dict()["inference"]["latency_seconds"])
        * 1e3
    )


def test_vit_eager_batch_1_is_its_kernels_behind_the_host():
    """198 kernels at batch 1, each behind the A100 machine's host dispatch (38 us) and the kernel floor
    (13 us): the host bounds it, about 198 x 38 us = 7.5 ms."""
    ms = _vit_ms("a100-40gb-sxm", "fp16", 1, autocast=False)
    assert 198 * 38.15e-3 < ms < 198 * (38.15e-3 + 12.8e-3)
    # under autocast each of the 74 convolution and GEMM weights is cast first: 74 more kernels
    assert _vit_ms("a100-40gb-sxm", "fp16", 1) > ms + 70 * 38e-3


def test_eager_pytorch_runs_fp32_gemms_without_tf32():
    """fp32 weights on an A100: PyTorch (1.12 on) leaves TF32 off for matmuls, so the GEMMs run at the
    19.5 TFLOP/s fp32 peak, not TF32's 156: ViT-B/16 at batch 16 (16 x 35.1 GFLOPs of GEMMs at 87 % of
    19.5 TFLOP/s: 33 ms) is GEMM-bound; TensorRT keeps TF32."""
    eager = _vit_ms("a100-40gb-sxm", "fp32", 16)
    assert 16 * 35.1e9 / (19.5e12 * 0.87) * 1e3 < eager < 45
    assert _vit_ms("a100-40gb-sxm", "fp32", 16, engine="tensorrt") < eager / 4


@pytest.mark.parametrize(("task", "key"), [("inference", "input_tokens"), ("finetune", "seq")])
def test_a_vit_refuses_a_sequence_other_than_its_patches(task, key):
    """A ViT's sequence is its 196 patches and [CLS]: the operators are timed at 197 whatever is
    asked, so --input-tokens 512 (which the inference memory model and the tokens/s figure would
    otherwise have read, and the output said) is refused; 197 itself is accepted."""
    spec = {"model": "vit-base-patch16-224", "task": task, key: 512}
    with pytest.raises(UsageError, match=r"fixed sequence of 197 tokens .*--(input-tokens|seq) 512"):
        build_workload(spec, CAT)
    assert getattr(build_workload(spec | {key: 197}, CAT), key) == 197
    proc = run_process(
        "estimate", "--model", "vit-base-patch16-224", "--task", task, f"--{key.replace('_', '-')}", "512"
    )
    assert proc.returncode == 2 and "fixed sequence of 197 tokens" in proc.stderr and "Traceback" not in proc.stderr


def test_a_vit_at_384_pixels_runs_577_tokens():
    """ViT-B/16 fine-tuned at 384 px (ViT paper section 3.2; DeiT-B at 384): the patch stays 16 pixels, so
    the sequence is 24 x 24 patches and [CLS], 577 tokens, and the position embeddings grow with it;
    each training step's compute does more than the 577 / 197 = 2.9x of its per-token work (attention is per pair;
    the optimizer step, the same at both sizes, is apart)."""
    spec = {"model": "vit-base-patch16-224", "task": "finetune", "method": "full", "micro_batch": 32}
    base, big = build_workload(spec, CAT), build_workload(spec | {"image_size": 384}, CAT)
    assert (base.model.fixed_seq, big.model.fixed_seq, big.seq) == (197, 577, 577)
    assert big.model.params - base.model.params == (577 - 197) * 768
    hw = build_hardware("a100-80gb-sxm", CAT, default_count=1)
    step = [float(estimate(w, hw, CAT).as_dict()["training"]["step_terms"]["compute"]) for w in (base, big)]
    assert 577 / 197 < step[1] / step[0] < 4.0
    with pytest.raises(UsageError, match="16-pixel patches: an image side of 390 is not a multiple of 16"):
        build_workload(spec | {"image_size": 390}, CAT)


def test_a_vit_under_a_named_runtime_copies_its_pixels_from_the_host():
    """--input-from-host on a ViT under eager PyTorch: each image's 3 x 224 x 224 fp32 pixels (602,112 B)
    cross PCIe before the kernels, at the link's achieved bandwidth; under the default compiled engine
    (layer totals, no operators) the option is refused with the reason."""
    from gpuwise.estimate.comm import pcie_link

    hw = build_hardware("a100-40gb-sxm", CAT, default_count=1)
    opts = {"model": "vit-base-patch16-224", "task": "inference", "engine": "eager", "concurrency": 8}
    opts |= {"precision": "fp32", "weights_dtype": "fp32"}
    plain = estimate(build_workload(opts, CAT), hw, CAT).as_dict()["inference"]["latency_seconds"]
    copied = estimate(build_workload({**opts, "input_from_host": True}, CAT), hw, CAT).as_dict()
    bytes_ = 8 * 3 * 224 * 224 * 4
    assert bytes_ == 8 * 602_112
    link = pcie_link(hw.gpu, CAT).achieved_bandwidth
    assert copied["inference"]["latency_seconds"] - plain == pytest.approx(bytes_ / link, rel=1e-6)
    with pytest.raises(UsageError, match="named runtime"):
        build_workload({"model": "vit-base-patch16-224", "task": "inference", "input_from_host": True}, CAT)


def test_an_encoder_under_pytorch_runs_sdpa_with_attention_flash():
    """--attention flash (timm's ViTs, transformers' sdpa): one attention kernel per layer reading Q, K, V
    and writing the context, with the two GEMMs' FLOPs (ViT-B/16: 197 tokens, 768 wide: 2 x 197^2 x
    (768 + 768) = 119.2 MFLOP a layer) and no score matrix; faster than the materialized scores in eager
    PyTorch; a runtime that compiles its own attention refuses the option."""
    vit = CAT.model("vit-base-patch16-224")
    fused = {op.name: op for op in encoder_operators(vit, 0, fused_attention=True).operators}
    plain = {op.name: op for op in encoder_operators(vit, 0).operators}
    att = fused["layer.0.attention"]
    assert att.cls == "attention" and att.flops == 2 * 197**2 * (768 + 768)
    assert att.flops == plain["layer.0.scores"].flops + plain["layer.0.context"].flops
    assert att.act_bytes == 2 * 197 * (768 + 2 * 768 + 768)
    assert "layer.0.softmax" not in fused and "layer.0.softmax" in plain
    hw = build_hardware("a100-40gb-sxm", CAT, default_count=1)
    opts = {"model": "vit-base-patch16-224", "task": "inference", "engine": "eager", "concurrency": 32}
    t = {
        a: estimate(build_workload({**opts, "attention": a}, CAT), hw, CAT).as_dict()["inference"]["latency_seconds"]
        for a in ("flash", "eager")
    }
    assert 0 < t["flash"] < t["eager"]
    for runtime in ("tensorrt", "onnxruntime"):
        with pytest.raises(UsageError, match="compiles its own fused attention"):
            build_workload({**opts, "engine": runtime, "attention": "flash"}, CAT)
    assert build_workload({**opts, "engine": "torchscript", "attention": "flash"}, CAT).attention == "flash"


def test_pytorch_sdpa_runs_at_flashattention2s_measured_forward_rate():
    """Under eager PyTorch, scaled_dot_product_attention's flash backend is FlashAttention-2: on an H100 at the
    FlashAttention-3 paper's 35 % of 989.5 TFLOP/s, on a B200 at its measured forward 438.9 of 2,250 (0.195);
    on an A100 the GPU's own fused rate (the FlashAttention-2 paper's 60 %) stays."""
    from gpuwise.estimate.rates import compute_rates, pytorch_sdpa_rates

    for gpu, share in (("h100-sxm", 0.35), ("b200", 0.195), ("a100-80gb-sxm", 0.60)):
        rates = pytorch_sdpa_rates(compute_rates(CAT.gpu(gpu), "bf16", CAT), CAT)
        assert rates.attention == pytest.approx(min(rates.matmul, share * rates.peak)), gpu


def test_a_berts_host_copy_is_its_int64_ids_and_mask():
    """transformers' tokenizer gives a BERT int64 input_ids, attention_mask and token_type_ids (two token
    types): 3 x 8 B a token; RoBERTa (one token type) 2 x 8 B."""
    from gpuwise.catalog.hf_import import load_hf_config
    from gpuwise.estimate.operators import input_bytes_per_sample

    assert input_bytes_per_sample(encoder_operators(CAT.model("bert-base-uncased"), 384)) == 3 * 8 * 384
    roberta = load_hf_config("corpus/data/hf_configs/roberta-base.json")
    assert input_bytes_per_sample(encoder_operators(roberta, 384)) == 2 * 8 * 384


def _stream(**opts: object) -> object:
    from gpuwise.estimate.serving import fp32_stream

    return fp32_stream(build_workload({"task": "inference", "engine": "eager", **opts}, CAT), CAT)


def test_autocast_over_fp32_parameters_moves_an_fp32_residual_stream_hand_computed():
    """BERT-base under torch.autocast with its parameters in fp32 (transformers' --amp inference): the
    embedding tables are fp32, so their gathers and sums are fp32 (4 bytes); each residual add reads the
    fp32 stream (4) and the 16-bit branch (2) and writes fp32 (4): 10 bytes an element
    (autocast_fp32_residual_bytes); each LayerNorm runs in fp32 (read 4, write 4, its fp32 weight and
    bias: autocast_layernorm_bytes' 14 less one cast) and every linear reading its output casts it to 16
    bits (read 4, write 2) in a kernel of its own: three for the next layer's query, key and value, one
    for the FFN, one of the first token for the pooler. The mask is fp32, so its add writes fp32 scores
    (2 + 4), the fp32 softmax reads and writes fp32 (4 + 4, and the value GEMM's read of the 16-bit
    probabilities, 2) and the value GEMM casts them (6). The GEMMs stay 16-bit. Per batch of 32 x 128
    tokens (4096 x 768 = 3,145,728 elements of the hidden; 32 x 12 x 128 x 128 = 6,291,456 scores):"""
    stream = _stream(model="bert-base-uncased", precision="fp16", weights_dtype="fp32", autocast=True)
    assert (stream.residual_bytes, stream.norm_bytes, stream.cast_bytes, stream.fp32_bytes) == (10, 8, 6, 4)
    amp = {op.name: op for op in encoder_operators(CAT.model("bert-base-uncased"), SEQ, stream=stream).operators}
    plain = _ops()
    n, scores = 4096 * 768, 32 * 12 * 128 * 128
    assert amp["embeddings.word.embedding"].act_bytes * BATCH == 4 * 2 * n  # row read, embedding written
    assert amp["embeddings.1.add"].act_bytes * BATCH == 3 * 4 * n
    assert amp["layer.0.attention_output.add"].act_bytes * BATCH == 10 * n == 31_457_280
    assert amp["layer.0.output.add"].act_bytes * BATCH == 10 * n
    norm = amp["layer.0.output.layer_norm"]
    assert norm.act_bytes * BATCH == 8 * n and norm.param_bytes == 4 * 2 * 768
    casts = [op for name, op in amp.items() if ".cast" in name]
    assert all(op.cls == "data-movement" and op.fused_into is None for op in casts)
    assert [k for k in amp if k.startswith("layer.0.output.layer_norm.cast")] == [
        f"layer.0.output.layer_norm.cast{i}" for i in range(3)
    ]
    assert amp["layer.0.output.layer_norm.cast0"].act_bytes * BATCH == 6 * n
    assert amp["layer.11.output.layer_norm.cast0"].act_bytes * BATCH == 6 * 32 * 768  # the pooler's first token
    assert "layer.11.output.layer_norm.cast1" not in amp
    # casts: the embeddings' LayerNorm 3, each layer's attention-output LayerNorm 1 and softmax 1, each
    # output LayerNorm 3 (the last 1)
    assert len(casts) == 3 + 12 * (1 + 1) + 11 * 3 + 1 == 61
    assert amp["layer.0.mask.add"].act_bytes * BATCH == (2 + 4) * scores
    assert amp["layer.0.softmax"].act_bytes * BATCH == (4 + 4 + 2) * scores
    assert amp["layer.0.softmax.cast"].act_bytes * BATCH == 6 * scores
    assert amp["layer.0.query"] == plain["layer.0.query"]  # the GEMMs are autocast's 16-bit ones
    assert sum(op.flops for op in amp.values()) == sum(op.flops for op in plain.values())


def test_a_vits_fp32_stream_hand_computed():
    """ViT-B/16 (197 tokens of 768) under autocast over fp32 parameters: the fp32 [CLS] token promotes the
    concatenation (reads the 16-bit patches, writes fp32: 2 + 4), the positions are added in fp32 (3 x 4,
    and the fp32 table); no mask, so the softmax reads the 16-bit scores (2) into fp32 (4); the final
    LayerNorm's output is cast for the head on [CLS] only."""
    stream = _stream(model="vit-base-patch16-224", precision="fp16", weights_dtype="fp32", autocast=True)
    amp = {op.name: op for op in encoder_operators(CAT.model("vit-base-patch16-224"), 197, stream=stream).operators}
    n, scores = 197 * 768, 12 * 197 * 197
    assert amp["embeddings.cls_token.cat"].act_bytes == (2 + 4) * n
    pos = amp["embeddings.position_embeddings.add"]
    assert pos.act_bytes == 3 * 4 * n and pos.param_bytes == 4 * n
    assert amp["layer.0.softmax"].act_bytes == (2 + 4 + 2) * scores and "layer.0.mask.add" not in amp
    assert [k for k in amp if k.startswith("layer.0.layernorm_before.cast")] == [
        f"layer.0.layernorm_before.cast{i}" for i in range(3)
    ]
    assert amp["layernorm.cast0"].act_bytes == 6 * 768


def test_the_fp32_stream_goes_with_autocasts_weight_casts():
    """The stream is there wherever eager PyTorch casts the weights on every call (--autocast, or the eager
    runtime's default, at 16 bits: the parameters are fp32): not with --no-autocast (a .half() model), not
    in fp32, not under a compiled engine."""
    base = {"model": "bert-base-uncased"}
    assert _stream(**base, precision="fp16", weights_dtype="fp32", autocast=True) is not None
    assert _stream(**base, weights_dtype="fp16") is not None  # the eager default autocasts
    assert _stream(**base, weights_dtype="fp16", autocast=False) is None
    assert _stream(**base, weights_dtype="fp32", precision="fp32") is None
    from gpuwise.estimate.serving import fp32_stream

    compiled = build_workload({"task": "inference", "engine": "tensorrt", **base, "weights_dtype": "fp16"}, CAT)
    assert fp32_stream(compiled, CAT) is None


def test_eager_autocast_over_fp32_vit_is_slower_than_the_16_bit_model_by_its_fp32_stream():
    """timm's --amp over an fp32 ViT against the same model held in 16 bits (--no-autocast): the same GEMMs
    plus the weight casts and the fp32 stream's kernels (three casts before the attention, one before the
    FFN and the softmax's, a layer, and the head's), and the assumptions say why."""
    hw = build_hardware("rtx-3090", CAT, default_count=1)
    base = {"model": "vit-base-patch16-224", "task": "inference", "engine": "eager", "concurrency": 256}
    amp = estimate(
        build_workload({**base, "precision": "fp16", "weights_dtype": "fp32", "autocast": True}, CAT), hw, CAT
    )
    half = estimate(build_workload({**base, "precision": "fp16", "autocast": False}, CAT), hw, CAT)
    amp_d, half_d = amp.as_dict(), half.as_dict()
    assert amp_d["inference"]["samples_per_second"] < half_d["inference"]["samples_per_second"]
    assert any("residual stream stays fp32" in a for a in amp_d["assumptions"])
    assert not any("residual stream stays fp32" in a for a in half_d["assumptions"])
    kernels = [
        int(a.split(": ")[1].split(" kernels")[0])
        for d in (amp_d, half_d)
        for a in d["assumptions"]
        if " kernels per batch" in a
    ]
    weights = 12 * 6 + 2  # each layer's six linears, the patch convolution and the head
    assert kernels[0] - kernels[1] == weights + 12 * (3 + 1 + 1) + 1
