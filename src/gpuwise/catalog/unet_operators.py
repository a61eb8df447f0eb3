"""The operators of a Stable Diffusion UNet (diffusers' UNet2DConditionModel), written from its
config.json, so the per-operator roofline (estimate/operators.py) and each runtime's fusion and
launch rules time it as they time a described CNN.

What diffusers runs for one forward, per sample (one latent of `sample_size`^2 pixels, a text
context of `CONTEXT_TOKENS` tokens): the timestep embedding and its MLP; conv_in; down blocks of
ResNet blocks (group norm, SiLU, 3x3 convolution, the time embedding added, group norm, SiLU, 3x3
convolution, a 1x1 shortcut when the width changes, the residual add) each followed, in a
cross-attention block, by a spatial transformer (group norm, 1x1 proj_in, to tokens; per layer:
layer norm and self-attention, layer norm and cross-attention on the text context, layer norm and
a GEGLU feed-forward, each with its residual add; back to pixels, 1x1 proj_out, residual add) and a
stride-2 convolution; the middle block; up blocks that concatenate the skip connections, with
nearest 2x upsampling and a 3x3 convolution; group norm, SiLU and conv_out. Attention is one
fused kernel (PyTorch 2's scaled_dot_product_attention, diffusers' AttnProcessor2_0; TensorRT's
fused MHA) by default; under `--attention eager` it is written as diffusers before PyTorch 2's
SDPA runs it (`materialized_attention`): the score matrices written, softmaxed and read back. The divisions by `output_scale_factor` and `rescale_output_factor` (1.0 in these
configs) are kernels eager PyTorch launches anyway.

`fused_into` marks what a compiled engine folds into the kernel before it: SiLU into the group
norm (TensorRT's GroupNorm+SiLU plugin), the bias-free adds and the scale divisions into the
convolution or GEMM, the head transposes into the GEMMs, GEGLU's GELU and product into its
projection. Bytes at 16 bits (DESCRIBED_ELEMENT_BYTES); FLOPs 2 m k n per GEMM and convolution.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gpuwise.catalog.arch import DESCRIBED_ELEMENT_BYTES as _E
from gpuwise.catalog.arch import GenericArch, Operator

CONTEXT_TOKENS = 77  # CLIP's text context: every Stable Diffusion pipeline pads the prompt to 77 tokens
TIME_CHANNELS_PER_BLOCK0 = 4  # diffusers: time_embed_dim = block_out_channels[0] * 4

AttentionKind = Literal["flash", "eager"]
EAGER_SCORES_SUFFIX = ".scores.baddbmm"  # the kernel that names an attention written with its score matrices
DEFAULT_HEADS = 8  # diffusers' attention_head_dim default; SD 1.x's configs set it to 8, used as the head count

_DOWN = ("CrossAttnDownBlock2D", "DownBlock2D")
_UP = ("CrossAttnUpBlock2D", "UpBlock2D")


@dataclass(frozen=True, slots=True)
class UNetConfig:
    """The fields of a UNet2DConditionModel config.json that decide its operators."""

    in_channels: int
    out_channels: int
    widths: tuple[int, ...]  # block_out_channels
    layers_per_block: int
    down: tuple[str, ...]
    up: tuple[str, ...]
    context_dim: int  # cross_attention_dim
    transformer_layers: tuple[int, ...]
    linear_projection: bool  # proj_in/proj_out as linear layers (SD 2) or 1x1 convolutions (SD 1)
    sample_size: int
    # heads per block: diffusers (0.11 to today) passes attention_head_dim[i] as the number of heads
    heads: tuple[int, ...] = ()


def unet_config(doc: Mapping[str, Any], where: str) -> UNetConfig:
    """A diffusers UNet2DConditionModel config, or ValueError saying what is not written out here."""
    if doc.get("_class_name") != "UNet2DConditionModel":
        raise ValueError(f"{where}: not a UNet2DConditionModel config")
    for key in ("addition_embed_type", "class_embed_type", "encoder_hid_dim", "time_cond_proj_dim"):
        if doc.get(key) is not None:
            raise ValueError(f"{where}: {key} (extra conditioning) is not written out operator by operator")
    widths = tuple(int(w) for w in doc["block_out_channels"])
    down, up = tuple(doc["down_block_types"]), tuple(doc["up_block_types"])
    if any(d not in _DOWN for d in down) or any(u not in _UP for u in up) or len(down) != len(widths):
        raise ValueError(f"{where}: block types other than {', '.join(_DOWN + _UP)}")
    if doc.get("mid_block_type", "UNetMidBlock2DCrossAttn") != "UNetMidBlock2DCrossAttn":
        raise ValueError(f"{where}: a mid block other than UNetMidBlock2DCrossAttn")
    if doc.get("act_fn", "silu") != "silu" or doc.get("num_attention_heads") is not None:
        raise ValueError(f"{where}: an activation other than SiLU, or num_attention_heads, is not written out")

    def per_block(value: Any) -> tuple[int, ...]:
        return tuple(int(v) for v in value) if isinstance(value, list) else (int(value),) * len(widths)

    return UNetConfig(
        in_channels=int(doc["in_channels"]),
        out_channels=int(doc["out_channels"]),
        widths=widths,
        layers_per_block=int(doc["layers_per_block"]),
        down=down,
        up=up,
        context_dim=int(doc["cross_attention_dim"]),
        transformer_layers=per_block(doc.get("transformer_layers_per_block", 1)),
        linear_projection=bool(doc.get("use_linear_projection", False)),
        sample_size=int(doc["sample_size"]),
        heads=per_block(doc.get("attention_head_dim", DEFAULT_HEADS)),
    )


# diffusers releases whose get_attention_scores keeps baddbmm's input named through the softmax:
# from 0.13 ("fuse attention mask", #2111) until 0.17 deleted it (#3463); 0.11 and 0.12 pass it inline
SCORES_INPUT_HELD = ((0, 13), (0, 17))


# a diffusers release as pip shows it: 0.14, 0.16.1, 0.14.0.dev0, 0.16.1rc1, v0.14 (the major and minor decide)
RELEASE = re.compile(r"v?([0-9]{1,4})\.([0-9]{1,4})(?:\.[0-9]{1,4})?(?:[.-]?(?:dev|rc|a|b|post)[0-9]{0,4})?")


def diffusers_release(version: str) -> tuple[int, int] | None:
    """(major, minor) of a diffusers release string, or None when it is not one."""
    m = RELEASE.fullmatch(version.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


@dataclass(frozen=True, slots=True)
class EagerCode:
    """What an eager attention's code keeps alive and runs, beyond its shapes: the diffusers release
    (None: 0.17 and later, the code of today) and whether fp16 autocast softmaxes the fp16 scores
    straight into fp32 (PyTorch's CUDA softmax with half_to_float, no copy; bf16 is cast first)."""

    release: tuple[int, int] | None = None
    half_to_float: bool = False

    @property
    def input_held(self) -> bool:
        """0.13-0.16's get_attention_scores names baddbmm's input through the softmax."""
        return self.release is not None and SCORES_INPUT_HELD[0] <= self.release < SCORES_INPUT_HELD[1]

    @property
    def scores_named_at_cast(self) -> bool:
        """Before 0.17 the fp16 scores stay named while the fp32 probabilities are cast back (#3463 deletes them)."""
        return self.release is not None and self.release < SCORES_INPUT_HELD[1]


TODAYS_CODE = EagerCode()  # diffusers 0.17 on, softmax as bf16 autocast or no autocast runs it


class _Ops:
    """Appends operators and counts parameters; `anchor` is the last kernel a compiler fuses into."""

    def __init__(self, code: EagerCode = TODAYS_CODE) -> None:
        self.code = code  # what the eager attention's release keeps (materialized_attention)
        self.ops: list[Operator] = []
        self.params = 0
        self.anchor = 0
        self.held = 0.0  # bytes a block keeps alive beside the kernel running (a ResNet block's input)
        self.peak = 0.0  # the most bytes live at once: a kernel's input and output and what is held

    def _add(self, op: Operator, anchor: bool) -> None:
        if anchor:
            self.anchor = len(self.ops)
        self.peak = max(self.peak, op.act_bytes + self.held)
        self.ops.append(op)

    def conv(self, name: str, cin: int, cout: int, k: int, hw_in: int, hw_out: int, bias: bool = True) -> None:
        """A k x k convolution (with bias unless told): reads the input map, writes the output map."""
        weights = cin * cout * k * k + (cout if bias else 0)
        self.params += weights
        flops = 2.0 * cin * cout * k * k * hw_out
        self._add(Operator(name, "convolution", flops, _E * (cin * hw_in + cout * hw_out), _E * weights), True)

    def gemm(self, name: str, m: int, k: int, n: int, bias: bool) -> None:
        """y[m,n] = x[m,k] @ w[k,n] (+ bias) per sample; the weights read once per batch."""
        w = k * n + (n if bias else 0)
        self.params += w
        self._add(Operator(name, "gemm", 2.0 * m * k * n, _E * (m * k + m * n), _E * w), True)

    def norm(self, name: str, elements: int, channels: int) -> None:
        """Group or layer norm: reads and writes the map; scale and shift are 2 x channels."""
        self.params += 2 * channels
        self._add(Operator(name, "normalization", 0.0, _E * 2 * elements, _E * 2 * channels), True)

    def pointwise(self, name: str, cls: str, elements: int, passes: int, fused: bool) -> None:
        """A memory-bound kernel moving `passes` x `elements` 16-bit elements."""
        self._add(Operator(name, cls, 0.0, _E * passes * elements, 0.0, self.anchor if fused else None), False)

    def attention(self, name: str, t: int, s: int, c: int) -> None:
        """softmax(Q K^T / sqrt(d)) V over all heads: one fused kernel reading Q, K, V, writing O."""
        self._add(Operator(name, "attention", 4.0 * t * s * c, _E * (2 * t * c + 2 * s * c)), True)

    def materialized_attention(self, p: str, t: int, s: int, c: int, heads: int, upcast: bool) -> None:
        """The same FLOPs as `attention`, as diffusers' CrossAttention._attention (0.11) and
        AttnProcessor run it without SDPA or xFormers: Q, K and V copied to (batch x heads) layout,
        baddbmm writing heads x t x s 16-bit scores, the softmax reading and writing them (in fp32
        where the module upcasts, the VAE's attention, or autocast does: cast up and softmaxed, or
        under fp16 autocast softmaxed from fp16 into fp32, then cast back), bmm reading them back.
        Memory: baddbmm's uninitialized beta=0 input of the scores' size is a temporary freed when
        baddbmm returns in 0.11 and 0.12 (inline) and from 0.17 (`del baddbmm_input`, diffusers
        #3463), so two scores-sized buffers live at a time; 0.13 to 0.16 (`EagerCode.input_held`,
        get_attention_scores names it) keep it through the softmax too, three."""
        scores = heads * t * s
        for x, n in (("q", t), ("k", s), ("v", s)):
            self.pointwise(f"{p}.{x}.heads_to_batch", "data-movement", n * c, 2, fused=True)
        held = self.held
        self.held += _E * scores  # baddbmm's empty input
        self._add(Operator(f"{p}{EAGER_SCORES_SUFFIX}", "gemm", 2.0 * t * s * c, _E * (t * c + s * c + scores)), True)
        if not self.code.input_held:
            self.held = held
        if upcast and self.code.half_to_float:
            self._add(Operator(f"{p}.softmax", "elementwise", 0.0, (_E + 4) * scores), False)
            self.held += _E * scores if self.code.scores_named_at_cast else 0.0
            self._add(Operator(f"{p}.probs.half", "elementwise", 0.0, (4 + _E) * scores), False)
        elif upcast:
            self._add(Operator(f"{p}.scores.float", "elementwise", 0.0, (_E + 4) * scores), False)
            self.held += _E * scores  # the fp16 scores stay referenced while their fp32 copy is softmaxed
            self._add(Operator(f"{p}.softmax", "elementwise", 0.0, 8.0 * scores), False)
            self._add(Operator(f"{p}.probs.half", "elementwise", 0.0, (4 + _E) * scores), False)
        else:
            self.pointwise(f"{p}.softmax", "elementwise", scores, 2, fused=False)
        self.held = held  # 0.11 still names the scores here: a peak above the softmax's by V and the output only
        self._add(Operator(f"{p}.context.bmm", "gemm", 2.0 * t * s * c, _E * (scores + s * c + t * c)), True)


def _resnet(w: _Ops, p: str, cin: int, cout: int, hw: int, temb: int) -> None:
    """diffusers' ResnetBlock2D; `temb` 0: no time embedding (the VAE's blocks). Its input stays
    alive until the residual add."""
    w.held = _E * cin * hw
    w.norm(f"{p}.norm1", cin * hw, cin)
    w.pointwise(f"{p}.silu1", "elementwise", cin * hw, 2, fused=True)
    w.conv(f"{p}.conv1", cin, cout, 3, hw, hw)
    conv1 = w.anchor
    if temb:
        w.pointwise(f"{p}.time_emb_silu", "elementwise", temb, 2, fused=False)
        w.gemm(f"{p}.time_emb_proj", 1, temb, cout, bias=True)
        w.anchor = conv1  # the broadcast add of the time embedding folds into conv1's epilogue
        w.pointwise(f"{p}.time_emb.add", "elementwise", cout * hw, 2, fused=True)
    w.norm(f"{p}.norm2", cout * hw, cout)
    w.pointwise(f"{p}.silu2", "elementwise", cout * hw, 2, fused=True)
    w.conv(f"{p}.conv2", cout, cout, 3, hw, hw)
    if cin != cout:
        w.conv(f"{p}.conv_shortcut", cin, cout, 1, hw, hw)
    w.pointwise(f"{p}.residual.add", "elementwise", cout * hw, 3, fused=True)
    w.held = 0.0
    w.pointwise(f"{p}.output_scale.div", "elementwise", cout * hw, 2, fused=True)


def _attention(
    w: _Ops, p: str, c: int, t: int, s: int, kv_dim: int, bias: bool = False, eager: tuple[int, bool] | None = None
) -> None:
    """diffusers' Attention with AttnProcessor2_0: Q, K, V projections (biased in the VAE), one
    SDPA kernel, the heads back to tokens, the output projection, rescale and residual add;
    `eager` (heads, softmax upcast to fp32): the score matrices materialized instead of SDPA."""
    w.gemm(f"{p}.to_q", t, c, c, bias=bias)
    w.gemm(f"{p}.to_k", s, kv_dim, c, bias=bias)
    w.gemm(f"{p}.to_v", s, kv_dim, c, bias=bias)
    if eager is None:
        w.attention(f"{p}.sdpa", t, s, c)
    else:
        w.materialized_attention(p, t, s, c, *eager)
    w.pointwise(f"{p}.transpose", "data-movement", t * c, 2, fused=True)
    w.gemm(f"{p}.to_out", t, c, c, bias=True)
    w.pointwise(f"{p}.rescale.div", "elementwise", t * c, 2, fused=True)
    w.pointwise(f"{p}.residual.add", "elementwise", t * c, 3, fused=True)


def _transformer(
    w: _Ops, p: str, c: int, hw: int, layers: int, context_dim: int, linear: bool, eager: tuple[int, bool] | None
) -> None:
    """Transformer2DModel; `eager` (heads, fp32 softmax) given: its attention materializes the scores."""
    w.norm(f"{p}.norm", c * hw, c)
    if linear:
        w.pointwise(f"{p}.to_tokens", "data-movement", c * hw, 2, fused=False)
        w.gemm(f"{p}.proj_in", hw, c, c, bias=True)
    else:
        w.conv(f"{p}.proj_in", c, c, 1, hw, hw)
        w.pointwise(f"{p}.to_tokens", "data-movement", c * hw, 2, fused=True)
    for n in range(layers):
        b = f"{p}.block.{n}"
        w.norm(f"{b}.norm1", c * hw, c)
        _attention(w, f"{b}.attn1", c, hw, hw, c, eager=eager)
        w.norm(f"{b}.norm2", c * hw, c)
        _attention(w, f"{b}.attn2", c, hw, CONTEXT_TOKENS, context_dim, eager=eager)
        w.norm(f"{b}.norm3", c * hw, c)
        w.gemm(f"{b}.ff.geglu.proj", hw, c, 8 * c, bias=True)
        w.pointwise(f"{b}.ff.geglu.gelu", "elementwise", 4 * c * hw, 2, fused=True)
        w.pointwise(f"{b}.ff.geglu.mul", "elementwise", 4 * c * hw, 3, fused=True)
        w.gemm(f"{b}.ff.out", hw, 4 * c, c, bias=True)
        w.pointwise(f"{b}.ff.residual.add", "elementwise", c * hw, 3, fused=True)
    if linear:
        w.gemm(f"{p}.proj_out", hw, c, c, bias=True)
        w.pointwise(f"{p}.to_pixels", "data-movement", c * hw, 2, fused=True)
    else:
        w.pointwise(f"{p}.to_pixels", "data-movement", c * hw, 2, fused=False)
        w.conv(f"{p}.proj_out", c, c, 1, hw, hw)
    w.pointwise(f"{p}.residual.add", "elementwise", c * hw, 3, fused=True)


def unet_operators(
    cfg: UNetConfig,
    name: str,
    task: str = "diffusion",
    attention: AttentionKind = "flash",
    fp32_softmax: bool = False,
    code: EagerCode = TODAYS_CODE,
) -> GenericArch:
    """One forward of the UNet per sample, operator by operator (module docstring)."""
    w = unet_written(cfg, attention, fp32_softmax, code)
    ops = tuple(w.ops)
    return GenericArch(
        name=name,
        task=task,
        params=w.params,
        flops_per_sample=sum(op.flops for op in ops),
        activation_bytes_per_sample=sum(op.act_bytes for op in ops),
        forward_peak_bytes_per_sample=w.peak,
        input_shape=(cfg.in_channels, cfg.sample_size, cfg.sample_size),
        operators=ops,
    )


def unet_written(
    cfg: UNetConfig, attention: AttentionKind = "flash", fp32_softmax: bool = False, code: EagerCode = TODAYS_CODE
) -> _Ops:
    """The UNet's operators, parameters and largest live set per sample (`peak`). Eager attention
    softmaxes in fp16 (diffusers' UNet attention leaves upcast_softmax off) unless `fp32_softmax`:
    under torch.autocast, softmax is one of the ops autocast runs in float32, so its fp16 scores
    are cast up, softmaxed in fp32 and cast back by the module's `.to(value.dtype)`;
    `code`: what the release and the autocast dtype keep and run (`EagerCode`)."""
    w = _Ops(code)

    def heads(block: int) -> tuple[int, bool] | None:
        return (cfg.heads[block], fp32_softmax) if attention == "eager" else None

    c0 = cfg.widths[0]
    temb = c0 * TIME_CHANNELS_PER_BLOCK0
    for op in ("exp", "mul", "sin", "cos", "cat"):  # the sinusoidal timestep embedding
        w.pointwise(f"time_proj.{op}", "elementwise", c0, 2, fused=False)
    w.gemm("time_embedding.linear_1", 1, c0, temb, bias=True)
    w.pointwise("time_embedding.silu", "elementwise", temb, 2, fused=True)
    w.gemm("time_embedding.linear_2", 1, temb, temb, bias=True)
    side = cfg.sample_size
    w.conv("conv_in", cfg.in_channels, c0, 3, side * side, side * side)
    skips = [c0]
    prev = c0
    for i, (kind, c) in enumerate(zip(cfg.down, cfg.widths, strict=True)):
        hw = side * side
        for j in range(cfg.layers_per_block):
            _resnet(w, f"down.{i}.resnet.{j}", prev if j == 0 else c, c, hw, temb)
            if kind.startswith("CrossAttn"):
                layers = cfg.transformer_layers[i]
                _transformer(w, f"down.{i}.attn.{j}", c, hw, layers, cfg.context_dim, cfg.linear_projection, heads(i))
            skips.append(c)
        prev = c
        if i < len(cfg.widths) - 1:
            w.conv(f"down.{i}.downsample", c, c, 3, hw, hw // 4)
            side //= 2
            skips.append(c)
    hw, c = side * side, cfg.widths[-1]
    _resnet(w, "mid.resnet.0", c, c, hw, temb)
    mid = len(cfg.widths) - 1
    _transformer(w, "mid.attn.0", c, hw, cfg.transformer_layers[-1], cfg.context_dim, cfg.linear_projection, heads(mid))
    _resnet(w, "mid.resnet.1", c, c, hw, temb)
    up_widths = tuple(reversed(cfg.widths))
    for i, (kind, c) in enumerate(zip(cfg.up, up_widths, strict=True)):
        hw = side * side
        block = len(cfg.widths) - 1 - i
        for j in range(cfg.layers_per_block + 1):
            skip = skips.pop()
            w.pointwise(f"up.{i}.cat.{j}", "data-movement", (prev + skip) * hw, 2, fused=False)
            _resnet(w, f"up.{i}.resnet.{j}", prev + skip, c, hw, temb)
            if kind.startswith("CrossAttn"):
                layers = cfg.transformer_layers[block]
                _transformer(w, f"up.{i}.attn.{j}", c, hw, layers, cfg.context_dim, cfg.linear_projection, heads(block))
            prev = c
        if i < len(cfg.widths) - 1:
            w.pointwise(f"up.{i}.upsample.nearest", "data-movement", c * hw * 5, 1, fused=False)
            side *= 2
            w.conv(f"up.{i}.upsample.conv", c, c, 3, side * side, side * side)
    w.norm("conv_norm_out", c0 * side * side, c0)
    w.pointwise("conv_act", "elementwise", c0 * side * side, 2, fused=True)
    w.conv("conv_out", c0, cfg.out_channels, 3, side * side, side * side)
    return w


def attention_written(model: GenericArch) -> AttentionKind | None:
    """How a model written operator by operator runs its attention: one fused kernel ("flash"), its
    score matrices materialized ("eager"), or None where it has no attention operators. One pass that
    stops at the first attention kernel (a pipeline's 41,000 operators are not all read)."""
    for op in model.operators:
        if op.cls == "attention":
            return "flash"
        if op.name.endswith(EAGER_SCORES_SUFFIX):
            return "eager"
    return None


def _first_softmax_kind(model: GenericArch) -> str:
    """How the first materialized attention softmaxes: 'fp16', 'fp32' (cast up first: bf16 autocast)
    or 'half-to-float' (fp16 autocast: fp16 read, fp32 written, then cast back)."""
    ops = model.operators
    first = next(i for i, op in enumerate(ops) if op.name.endswith(EAGER_SCORES_SUFFIX))
    after = [op.name for op in ops[first + 1 : first + 3]]
    if after and after[0].endswith(".scores.float"):
        return "fp32"
    return "half-to-float" if len(after) > 1 and after[1].endswith(".probs.half") else "fp16"


def attention_note(model: GenericArch) -> str | None:
    """Says which attention the figures assume, for a model whose attention is written out."""
    kind = attention_written(model)
    if kind == "flash":
        return (
            f"{model.name}: attention fused, one kernel per attention with no score matrix in memory (PyTorch 2's "
            "scaled_dot_product_attention, xFormers, or an engine's fused MHA); for the catalog's diffusion models "
            "--attention eager materializes the score matrices, as diffusers before PyTorch 2 without xFormers ran it"
        )
    if kind == "eager":
        return (
            f"{model.name}: attention eager (--attention eager): each attention writes its heads x queries x keys "
            "score matrix in fp16 (baddbmm), softmaxes it in memory and reads it back (bmm), as diffusers without "
            "SDPA or xFormers runs it; the FLOPs are the fused kernel's; "
            + {
                "fp32": "every softmax in fp32 between two casts (torch.autocast runs softmax in float32)",
                "half-to-float": "the UNet's softmax reads fp16 and writes fp32 (fp16 autocast: PyTorch's CUDA "
                "softmax with half_to_float, no copy), then cast back; the VAE's in fp32",
                "fp16": "the UNet's softmax in fp16, the VAE's in fp32",
            }[_first_softmax_kind(model)]
        )
    return None
