"""The parameter count a config implies, checked against the checkpoint that sits beside it.

A sharded safetensors checkpoint comes with `model.safetensors.index.json`, whose
`metadata.total_size` is the bytes of every tensor saved. Divided by the bytes of the config's
`torch_dtype` it is the checkpoint's parameter count, independent of how gpuwise read the config:
a misread shape (a dropped gate projection, a missed shared expert, an encoder-decoder read as a
decoder) shows as a mismatch, and the config is refused with both numbers instead of estimated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuwise.errors import ConfigError
from gpuwise.files import decode_text, parse_json

INDEX_FILE = "model.safetensors.index.json"
# An index lists every tensor: a large MoE's runs to megabytes (DeepSeek-V3: ~92,000 tensors).
INDEX_MAX_BYTES = 64 * 2**20
# The two counts agree to the parameter on every full-precision checkpoint checked (Qwen2.5-7B:
# 7,615,616,512 both ways); 1 % leaves room for buffers some exporters save (rotary tables) while
# a misread fails it by far (Qwen2.5-7B read without its gated MLP: 25 % short).
TOLERANCE = 0.01
DTYPE_BYTES = {"float32": 4, "float": 4, "bfloat16": 2, "float16": 2, "half": 2}


def checkpoint_params(folder: Path, cfg: dict[str, Any]) -> tuple[float, str] | None:
    """(parameters, how) from the index beside a config, or None where there is no index or its
    bytes cannot be turned into parameters (a quantized checkpoint, an unknown dtype)."""
    path = folder / INDEX_FILE
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "")
    if cfg.get("quantization_config") is not None or dtype not in DTYPE_BYTES:
        return None  # packed or mixed-width tensors: bytes do not give a parameter count
    try:
        if not path.is_file():
            return None
        with path.open("rb") as fh:
            data = fh.read(INDEX_MAX_BYTES + 1)
    except OSError:
        return None
    doc = parse_json(decode_text(data, str(path), "checkpoint index", INDEX_MAX_BYTES), str(path))
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    total = meta.get("total_size") if isinstance(meta, dict) else None
    if isinstance(total, bool) or not isinstance(total, int | float) or total <= 0:
        raise ConfigError(
            f"{path}: 'metadata.total_size' must be the checkpoint's size in bytes; got {str(total)[:40]!r}"
        )
    return total / DTYPE_BYTES[dtype], f"{INDEX_FILE}: {int(total):,} bytes of {dtype}"


def check_against_checkpoint(params: int, folder: Path, cfg: dict[str, Any], where: str) -> None:
    """A ConfigError where the checkpoint beside the config holds another number of parameters."""
    found = checkpoint_params(folder, cfg)
    if found is None:
        return
    saved, how = found
    if abs(params - saved) > TOLERANCE * saved:
        raise ConfigError(
            f"{where} reads as {params / 1e9:.3f}B parameters, but the checkpoint beside it holds {saved / 1e9:.3f}B "
            f"({how}): the config is not read faithfully (an unsupported shape or setting), so it is not "
            f"estimated; more than {TOLERANCE:.0%} apart"
        )


__all__ = ["INDEX_FILE", "TOLERANCE", "check_against_checkpoint", "checkpoint_params"]
