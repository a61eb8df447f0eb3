"""Encoder-decoder configs (T5, BART, Whisper) read as what they are, then refused with the reason.

gpuwise's memory and time models describe one transformer stack: a decoder LLM, a BERT-style
encoder, a ViT. An encoder-decoder has two stacks of different lengths (the encoder runs once over
the source, the decoder once per generated token), cross-attention in every decoder block, and a
KV cache over the encoder's output. Reading one as a decoder miscounts it (T5 v1.1 large: 0.47B
instead of 0.78B) and would estimate the wrong work, so gpuwise counts it here, as the Hugging Face
classes build it, and refuses to estimate it with that count in the message, never a silent misread.

Counts follow the modules of T5ForConditionalGeneration, BartForConditionalGeneration and
WhisperForConditionalGeneration (every nn.Parameter, tied weights once; BART's final_logits_bias is
a buffer and not counted).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuwise.errors import ConfigError


@dataclass(frozen=True, slots=True)
class EncoderDecoderCount:
    """Parameters of an encoder-decoder by part."""

    model_type: str
    encoder_layers: int
    decoder_layers: int
    encoder: int  # the encoder stack with its own embeddings (positions, convolutions) and norms
    decoder: int  # the decoder stack with its positions and norms
    embeddings: int  # the shared token embedding and an untied output head

    @property
    def params(self) -> int:
        return self.encoder + self.decoder + self.embeddings


Reader = Callable[[dict[str, Any], Callable[[str], int]], EncoderDecoderCount]


def _t5(cfg: dict[str, Any], size: Callable[[str], int]) -> EncoderDecoderCount:
    """T5 and mT5: RMS norms without bias, no biases on linears, a relative-position bias table
    (buckets x heads) in the first block of each stack; `feed_forward_proj` 'gated-gelu' (v1.1,
    mT5) has two input projections. Defaults of T5Config: d_kv 64, 32 buckets, 'relu', tied."""
    d, heads = size("d_model"), size("num_heads")
    d_kv, d_ff, vocab = cfg.get("d_kv", 64), size("d_ff"), size("vocab_size")
    enc = size("num_layers")
    dec = cfg.get("num_decoder_layers") or enc
    buckets = cfg.get("relative_attention_num_buckets", 32)
    gated = str(cfg.get("feed_forward_proj", "relu")).startswith("gated")
    attn = 4 * d * heads * d_kv
    mlp = (3 if gated else 2) * d * d_ff
    enc_block = attn + mlp + 2 * d
    dec_block = 2 * attn + mlp + 3 * d
    tied = cfg.get("tie_word_embeddings", True)
    return EncoderDecoderCount(
        "t5",
        enc,
        dec,
        encoder=enc * enc_block + buckets * heads + d,
        decoder=dec * dec_block + buckets * heads + d,
        embeddings=vocab * d * (1 if tied else 2),
    )


def _bart(cfg: dict[str, Any], size: Callable[[str], int]) -> EncoderDecoderCount:
    """BART and mBART: LayerNorms and linears with bias, learned positions with an offset of 2 rows,
    a LayerNorm on each stack's embeddings (mBART also one after each stack); head tied."""
    d, vocab = size("d_model"), size("vocab_size")
    enc, dec = size("encoder_layers"), size("decoder_layers")
    positions = (cfg.get("max_position_embeddings", 1024) + 2) * d
    ln = 2 * d
    attn = 4 * (d * d + d)
    enc_ffn, dec_ffn = size("encoder_ffn_dim"), size("decoder_ffn_dim")
    enc_block = attn + ln + (d * enc_ffn + enc_ffn) + (enc_ffn * d + d) + ln
    dec_block = 2 * (attn + ln) + (d * dec_ffn + dec_ffn) + (dec_ffn * d + d) + ln
    final = ln if cfg.get("model_type") == "mbart" else 0
    return EncoderDecoderCount(
        str(cfg.get("model_type")),
        enc,
        dec,
        encoder=positions + ln + enc * enc_block + final,
        decoder=positions + ln + dec * dec_block + final,
        embeddings=vocab * d,
    )


def _whisper(cfg: dict[str, Any], size: Callable[[str], int]) -> EncoderDecoderCount:
    """Whisper: two convolutions (kernel 3) over the mel bins, fixed-size position tables, key
    projections without bias, a LayerNorm after each stack; the output head is the token embedding."""
    d, vocab, mels = size("d_model"), size("vocab_size"), size("num_mel_bins")
    enc, dec = size("encoder_layers"), size("decoder_layers")
    ln = 2 * d
    attn = 4 * d * d + 3 * d  # q, v, out with bias; k without

    def block(ffn: int, cross: bool) -> int:
        return (2 if cross else 1) * (attn + ln) + (d * ffn + ffn) + (ffn * d + d) + ln

    convs = (mels * d * 3 + d) + (d * d * 3 + d)
    return EncoderDecoderCount(
        "whisper",
        enc,
        dec,
        encoder=convs + size("max_source_positions") * d + enc * block(size("encoder_ffn_dim"), False) + ln,
        decoder=size("max_target_positions") * d + dec * block(size("decoder_ffn_dim"), True) + ln,
        embeddings=vocab * d,
    )


READERS: dict[str, Reader] = {"t5": _t5, "mt5": _t5, "bart": _bart, "mbart": _bart, "whisper": _whisper}


def count(cfg: dict[str, Any], model_type: str, size: Callable[[str], int]) -> EncoderDecoderCount | None:
    """The parameter count of an encoder-decoder config, or None for a family not counted here.
    `size(key)` reads a required positive whole number (a ConfigError naming the key otherwise)."""
    reader = READERS.get(model_type)
    return reader(cfg, size) if reader is not None else None


def refuse(cfg: dict[str, Any], model_type: str, name: str, where: str, size: Callable[[str], int]) -> ConfigError:
    """The error that says what the model is and why gpuwise does not estimate it."""
    counted = count(cfg, model_type, size)
    what = (
        f"{counted.encoder_layers} encoder + {counted.decoder_layers} decoder layers with cross-attention, "
        f"{counted.params / 1e9:.3g}B parameters"
        if counted is not None
        else "a source and a target stack joined by cross-attention"
    )
    return ConfigError(
        f"{where}: {name} is an encoder-decoder ({model_type}: {what}). gpuwise's memory and time models describe "
        "one transformer stack (decoder LLMs, BERT-style encoders, ViTs); the two stacks of different lengths, the "
        "cross-attention and its KV cache over the encoder output cannot be represented faithfully, so it is not "
        "estimated rather than read as a decoder"
    )


__all__ = ["READERS", "EncoderDecoderCount", "count", "refuse"]
