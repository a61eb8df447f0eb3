"""Describe any PyTorch module by totals (parameters, FLOPs, saved activations) on the meta device.

Nothing is allocated: the module is built (or moved) on `meta`, run once on a meta input, and
its matmul/convolution FLOPs counted with `torch.utils.flop_counter`, the tensors autograd keeps
for backward summed with `torch.autograd.graph.saved_tensors_hooks`. The result is the
`GenericArch` that the memory estimator takes for models that are not transformers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gpuwise.catalog import GenericArch
from gpuwise.errors import UsageError

_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise UsageError("describing a PyTorch module needs torch: pip install 'gpuwise[bench]'") from None
    return torch


def describe_module(
    module: Any | Callable[[], Any],
    input_shape: Sequence[int],
    *,
    name: str = "custom",
    task: str = "vision",
    dtype: str = "bf16",
    batch: int = 2,
    input_dtype: str | None = None,
) -> GenericArch:
    """Parameters, forward FLOPs per sample and activation bytes per sample of `module`.

    `module` is an `nn.Module` (moved to meta) or a zero-argument factory (built on meta, so even a
    model larger than this machine's memory can be described). `input_shape` excludes the batch.
    Integer inputs (token ids, categorical features) take `input_dtype="int64"`.
    """
    torch = _torch()
    from torch.utils.flop_counter import FlopCounterMode

    if dtype not in _DTYPES:
        raise UsageError(f"dtype must be one of {', '.join(_DTYPES)}; got {dtype!r}")
    if batch < 1 or any(int(d) < 1 for d in input_shape):
        raise UsageError(f"batch and input dimensions must be positive; got batch {batch}, shape {tuple(input_shape)}")
    torch_dtype = getattr(torch, _DTYPES[dtype])
    if callable(module) and not isinstance(module, torch.nn.Module):
        with torch.device("meta"):
            module = module()
    model = module.to(device="meta", dtype=torch_dtype)
    model.train()
    params = {id(p): p for p in model.parameters()}
    n_params = sum(p.numel() for p in params.values())

    in_dtype = getattr(torch, input_dtype) if input_dtype else torch_dtype
    shape = (batch, *(int(d) for d in input_shape))
    x = torch.empty(shape, device="meta", dtype=in_dtype)

    saved: dict[int, int] = {}

    def pack(t: Any) -> Any:
        base = t._base if t._base is not None else t
        if id(base) not in params and id(t) not in params:
            saved[id(base)] = base.numel() * base.element_size()
        return t

    counter = FlopCounterMode(display=False)
    with counter, torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    del out
    return GenericArch(
        name=name,
        task=task,
        params=int(n_params),
        flops_per_sample=counter.get_total_flops() / batch,
        activation_bytes_per_sample=sum(saved.values()) / batch,
        input_shape=tuple(int(d) for d in input_shape),
    )
