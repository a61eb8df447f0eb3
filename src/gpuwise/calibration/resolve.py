"""Which catalog model and GPU a measurement is of: from the file where it says, else from
`--model` and `--gpu ID:N`; refused with a message when neither does. A flag that contradicts
the file is an error, never a silent choice between them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gpuwise.calibration.parsed import Parsed
from gpuwise.catalog import Catalog, TransformerArch
from gpuwise.catalog.identity import identify
from gpuwise.errors import UsageError, shorten, suggest

# Fine-tuned variants share their base's architecture: 'Llama-3.1-8B-Instruct' is llama-3.1-8b.
VARIANT_SUFFIXES = ("-instruct", "-chat", "-hf", "-it", "-base")
NEEDS_MODEL = ("serving", "training", "memory")  # a collective is measured without a model


@dataclass(frozen=True, slots=True)
class Resolved:
    """A parsed measurement with its catalog model and GPU (id and count) settled."""

    parsed: Parsed
    model: str | None
    gpu: str
    gpu_count: int
    shape: Mapping[str, Any]  # the file's shape with what --shape adds
    notes: tuple[str, ...] = ()


def catalog_model(name: str, catalog: Catalog) -> str | None:
    """The catalog id a tool's model name stands for: its repository name in lower case
    ('meta-llama/Llama-3.1-8B' -> llama-3.1-8b), also without a fine-tune suffix; None otherwise."""
    key = name.strip().rstrip("/").rsplit("/", 1)[-1].lower().replace(" ", "-")
    if key in catalog.models:
        return key
    for suffix in VARIANT_SUFFIXES:
        if key.endswith(suffix) and key.removesuffix(suffix) in catalog.models:
            return key.removesuffix(suffix)
    return None


def resolve(
    parsed: Parsed,
    catalog: Catalog,
    model: str | None = None,
    gpu: str | None = None,
    shape: Mapping[str, Any] | None = None,
) -> Resolved:
    """Settle model, GPU and count; `model`, `gpu` ('ID' or 'ID:N') and `shape` (workload
    options the file does not record) are the command's flags."""
    notes: list[str] = list(parsed.notes)
    model_id = _model(parsed, catalog, model, notes)
    gpu_id, count = _gpu(parsed, catalog, gpu)
    _check_arch(parsed, catalog, model_id)
    merged = _shape(parsed, shape or {})
    return Resolved(_completed(parsed, count, merged), model_id, gpu_id, count, merged, tuple(notes))


def _shape(parsed: Parsed, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The file's shape with --shape's options; a --shape that contradicts the file is refused."""
    out = dict(parsed.shape)
    for key, value in extra.items():
        if key in out and str(out[key]) != str(value):
            raise UsageError(f"--shape {key}={shorten(str(value))}: the file says {key} {out[key]}")
        out[key] = _typed(value)
    return out


def _typed(value: Any) -> Any:
    """'4' -> 4, '0.5' -> 0.5, anything else as given (the workload schema checks it when used)."""
    text = str(value)
    if text.isascii() and text.isdigit():
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def row(r: Resolved) -> dict[str, Any]:
    """The store's columns for one measurement (gpuwise.store.schema.measurements)."""
    p = r.parsed
    return {
        "format": p.format,
        "kind": p.kind,
        "model": r.model,
        "gpu_id": r.gpu,
        "gpu_count": r.gpu_count,
        "measured_at": p.measured_at,
        "shape": dict(r.shape),
        "figures": dict(p.figures),
        "samples": {k: list(v) for k, v in p.samples.items()},
        "facts": dict(p.facts),
        "notes": list(r.notes),
    }


def _model(parsed: Parsed, catalog: Catalog, flag: str | None, notes: list[str]) -> str | None:
    named = catalog_model(parsed.model, catalog) if parsed.model else None
    if flag is not None:
        given = catalog.model_entry(flag).id  # unknown: "did you mean"
        if parsed.model and named != given:
            notes.append(f"--model {given}: the file names the model {shorten(parsed.model)!r}")
        return given
    if named is not None:
        if parsed.model and named != parsed.model:
            notes.append(f"the file's model {shorten(parsed.model)!r} is the catalog's {named}")
        return named
    if parsed.model:
        near = suggest(parsed.model.rsplit("/", 1)[-1], catalog.models)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise UsageError(
            f"the file names the model {shorten(parsed.model)!r}, which is not in the catalog: give --model ID{hint} "
            "(`gpuwise models` lists them)"
        )
    if parsed.kind in NEEDS_MODEL:
        raise UsageError(f"the {parsed.format} file does not name its model: give --model ID (e.g. llama-3.1-8b)")
    return None


def _gpu(parsed: Parsed, catalog: Catalog, flag: str | None) -> tuple[str, int]:
    """(catalog id, count): the flag's where given (its count must agree with the file's)."""
    if flag is not None:
        name, _, count_text = flag.strip().partition(":")
        gpu_id = catalog.gpu(name).id
        if count_text and not (count_text.isascii() and count_text.isdigit() and int(count_text) > 0):
            raise UsageError(f"--gpu {shorten(flag)!r}: the count after ':' must be a whole number (e.g. h100-sxm:8)")
        count = int(count_text) if count_text else parsed.gpu_count
        if count is None:
            raise UsageError(f"the file does not say how many GPUs ran it: give --gpu {gpu_id}:N")
        if parsed.gpu_count is not None and count != parsed.gpu_count:
            raise UsageError(f"--gpu {shorten(flag)!r}: the file ran on {parsed.gpu_count} GPU(s), not {count}")
        found = (
            identify(parsed.gpu_name, catalog=catalog, memory_bytes=parsed.gpu_memory_bytes)
            if parsed.gpu_name
            else None
        )
        if found is not None and found != gpu_id:
            raise UsageError(f"--gpu {shorten(flag)!r}: the file ran on {shorten(parsed.gpu_name or '')!r} ({found})")
        return gpu_id, count
    if not parsed.gpu_name:
        raise UsageError(f"the {parsed.format} file does not name its GPU: give --gpu ID:N (e.g. h100-sxm:8)")
    found = identify(parsed.gpu_name, catalog=catalog, memory_bytes=parsed.gpu_memory_bytes)
    if found is None:
        raise UsageError(
            f"the file names the GPU {shorten(parsed.gpu_name)!r}, which the catalog does not list: give --gpu ID:N "
            "(`gpuwise gpus` lists them)"
        )
    if parsed.gpu_count is None:
        raise UsageError(f"the file does not say how many GPUs ran it: give --gpu {found}:N")
    return found, parsed.gpu_count


def _check_arch(parsed: Parsed, catalog: Catalog, model_id: str | None) -> None:
    """A log that prints the architecture (Megatron's arguments) must be of the model named."""
    arch: dict[str, Any] = dict(parsed.facts.get("arch") or {})
    if model_id is None or not arch:
        return
    model = catalog.model(model_id)
    if not isinstance(model, TransformerArch):
        return
    theirs = {k: v for k, v in arch.items() if k in ("layers", "hidden", "heads")}
    ours = {k: getattr(model, k) for k in theirs}
    if theirs != ours:
        show = ", ".join(f"{k} {v}" for k, v in theirs.items())
        raise UsageError(f"the log's model has {show}; {model_id} has {', '.join(f'{k} {v}' for k, v in ours.items())}")


def _completed(parsed: Parsed, count: int, shape: Mapping[str, Any]) -> Parsed:
    """Figures that need the GPU count (Megatron's tokens per GPU without world_size in the log)."""
    figures = parsed.figures
    if parsed.kind != "training" or "tokens_per_second_per_gpu" in figures or "step_seconds" not in figures:
        return parsed
    if not {"global_batch", "seq"} <= set(shape):
        return parsed
    tokens = shape["global_batch"] * shape["seq"]
    per_gpu = {**figures, "tokens_per_second_per_gpu": tokens / figures["step_seconds"] / count}
    samples = {**parsed.samples}
    if "step_seconds" in samples:
        samples["tokens_per_second_per_gpu"] = tuple(tokens / s / count for s in samples["step_seconds"])
    return replace(parsed, figures=per_gpu, samples=samples)


__all__ = ["Resolved", "catalog_model", "resolve", "row"]
