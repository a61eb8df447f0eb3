"""Describe any PyTorch module by totals (parameters, FLOPs, saved activations) on the meta device.

Nothing is allocated: the module is built (or moved) on `meta`, run once on a meta input, and
its matmul/convolution FLOPs counted with `torch.utils.flop_counter`, the tensors autograd keeps
for backward summed with `torch.autograd.graph.saved_tensors_hooks`. The result is the
`GenericArch` that the memory estimator takes for models that are not transformers.
"""

from __future__ import annotations

import math
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


def _meta_model(torch: Any, module: Any, dtype: str) -> Any:
    """`module` (or what its factory builds on meta) on the meta device in `dtype`, in training mode."""
    if callable(module) and not isinstance(module, torch.nn.Module):
        with torch.device("meta"):
            module = module()
    model = module.to(device="meta", dtype=getattr(torch, _DTYPES[dtype]))
    model.train()
    return model


def _meta_input(torch: Any, input_shape: Sequence[int], batch: int, dtype: str, input_dtype: str | None) -> Any:
    """A meta tensor of `batch` samples of `input_shape`: `input_dtype` (a torch name), else the model's dtype."""
    in_dtype = getattr(torch, input_dtype) if input_dtype else getattr(torch, _DTYPES[dtype])
    return torch.empty((batch, *(int(d) for d in input_shape)), device="meta", dtype=in_dtype)


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
    model = _meta_model(torch, module, dtype)
    params = {id(p): p for p in model.parameters()}
    n_params = sum(p.numel() for p in params.values())
    x = _meta_input(torch, input_shape, batch, dtype, input_dtype)

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


# ------------------------------------------------------------------------------------------
# per-operator description
# ------------------------------------------------------------------------------------------
# aten op name (overload packet) -> operator class; anything pointwise not named is elementwise.
_CLASSES = {
    "gemm": ("mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "_scaled_mm", "addbmm"),
    "convolution": ("convolution", "_convolution", "cudnn_convolution", "conv2d", "convolution_overrideable"),
    "normalization": (
        "native_batch_norm",
        "_native_batch_norm_legit",
        "_native_batch_norm_legit_no_training",
        "_batch_norm_with_update",
        "native_layer_norm",
        "native_group_norm",
        "_fused_rms_norm",
    ),
    "pooling": (
        "max_pool2d_with_indices",
        "avg_pool2d",
        "_adaptive_avg_pool2d",
        "adaptive_max_pool2d",
        "mean",
        "sum",
        "amax",
    ),
    "embedding": ("embedding", "_embedding_bag", "embedding_bag", "index_select", "_embedding_bag_forward_only"),
    "attention": (
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention",
        "_scaled_dot_product_flash_attention_for_cpu",
    ),
    "data-movement": ("cat", "stack", "clone", "copy_", "_to_copy", "index", "gather", "constant_pad_nd", "repeat"),
}
_CLASS_OF = {op: cls for cls, ops in _CLASSES.items() for op in ops}
_SKIP = ("empty", "zeros", "ones", "full", "arange", "triu_indices", "scalar_tensor", "lift_fresh", "randint")
# elementwise and normalization ops a compiler (TensorRT, cuDNN fusion, torch.compile) folds into
# the producer's epilogue: conv+BN+ReLU(+add) and GEMM+bias+activation
FUSABLE = ("elementwise", "normalization")
ANCHORS = ("convolution", "gemm")


def _tensors(value: Any, torch: Any) -> list[Any]:
    """Every tensor in an argument tree (lists of tensors for cat, stack, index)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _tensors(v, torch)]
    return []


def _nbytes(t: Any) -> int:
    return int(t.numel() * t.element_size())


class _Recorder:
    """Turns each aten call on the meta device into one operator row."""

    def __init__(self, torch: Any, model: Any, batch: int) -> None:
        from torch.utils.flop_counter import flop_registry

        self.torch, self.flops_of, self.batch = torch, flop_registry, batch
        self.params = {id(p) for p in model.parameters()} | {id(b) for b in model.buffers()}
        self.keep: list[Any] = []  # outputs stay referenced so that ids are not reused
        self.producer: dict[int, int] = {}  # id(output tensor) -> operator index
        self.rows: list[dict[str, Any]] = []
        self.where = "model"

    def record(self, func: Any, args: Any, kwargs: Any, out: Any) -> None:
        name = func._overloadpacket.__name__
        ins, outs = _tensors((args, kwargs), self.torch), _tensors(out, self.torch)
        if getattr(func, "is_view", False) or name in ("detach", "alias", "t", "view", "_unsafe_view"):
            if ins and id(ins[0]) in self.params:
                self.params.update(id(o) for o in outs)
            elif ins and id(ins[0]) in self.producer:
                self.producer.update((id(o), self.producer[id(ins[0])]) for o in outs)
            self.keep += outs
            return
        if name in _SKIP or not outs or (ins and all(id(t) in self.params for t in ins) and name not in _CLASS_OF):
            return
        cls = _CLASS_OF.get(name) or "elementwise"
        flops = 0
        if func._overloadpacket in self.flops_of:
            flops = int(self.flops_of[func._overloadpacket](*args, **(kwargs or {}), out_val=out))
        param_bytes = sum(_nbytes(t) for t in ins if id(t) in self.params)
        read = sum(_nbytes(t) for t in ins)
        if cls == "embedding":  # a gather reads the rows it looks up, not the whole table
            read = read - param_bytes + sum(_nbytes(o) for o in outs)
            param_bytes = 0
        sources = sorted({self.producer[id(t)] for t in ins if id(t) in self.producer})
        self.rows.append(
            {
                "name": f"{self.where}.{name}",
                "class": cls,
                "op": name,
                "flops": flops,
                "bytes_read": int(read),
                "bytes_written": int(sum(_nbytes(o) for o in outs)),
                "param_bytes": int(param_bytes),
                "shape": [list(outs[0].shape)],
                "inputs": sources,
            }
        )
        index = len(self.rows) - 1
        self.producer.update((id(o), index) for o in outs)
        self.keep += outs


def fuse_groups(rows: list[dict[str, Any]]) -> None:
    """Mark the rows an inference compiler folds into the convolution or GEMM that feeds them:
    `fused_into` is that anchor's index (conv+BN+ReLU+residual add, GEMM+bias+activation). An epilogue
    writes the anchor's output elements (in any view of them: a Linear on a 3-D input is a GEMM on its
    flattened rows), so an op that writes more (squeeze-and-excitation's broadcast multiply of a whole
    feature map by the gates a 1x1 conv made) is a kernel of its own."""
    anchor_of: dict[int, int] = {}
    for i, row in enumerate(rows):
        sources = row.pop("inputs")
        row["fused_into"] = None
        if row["class"] in ANCHORS:
            anchor_of[i] = i
        elif (
            row["class"] in FUSABLE
            and i - 1 in sources
            and i - 1 in anchor_of
            and math.prod(row["shape"][0]) == math.prod(rows[anchor_of[i - 1]]["shape"][0])
        ):
            # the op consumes what the kernel just before it wrote (a residual add reads one more tensor)
            row["fused_into"] = anchor_of[i - 1]
            anchor_of[i] = anchor_of[i - 1]


def describe_operators(
    module: Any | Callable[[], Any],
    input_shape: Sequence[int],
    *,
    name: str = "custom",
    task: str = "vision",
    dtype: str = "bf16",
    batch: int = 2,
    input_dtype: str | None = None,
) -> dict[str, Any]:
    """Every operator one forward pass of `module` runs, with its class, FLOPs and bytes at `batch`,
    and the totals `describe_module` gives: the document `estimate --model FILE.json` reads."""
    totals = describe_module(
        module, input_shape, name=name, task=task, dtype=dtype, batch=batch, input_dtype=input_dtype
    )
    torch = _torch()
    from torch.utils._python_dispatch import TorchDispatchMode

    model = _meta_model(torch, module, dtype)
    rec = _Recorder(torch, model, batch)

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            out = func(*args, **(kwargs or {}))
            rec.record(func, args, kwargs, out)
            return out

    def enter(mod_name: str) -> Callable[..., None]:
        def hook(*_: Any) -> None:
            rec.where = mod_name or "model"

        return hook

    handles = [m.register_forward_pre_hook(enter(n)) for n, m in model.named_modules() if not list(m.children())]
    x = _meta_input(torch, input_shape, batch, dtype, input_dtype)
    try:
        with Mode():
            model(x)
    finally:
        for h in handles:
            h.remove()
    fuse_groups(rec.rows)
    embeddings = (torch.nn.Embedding, torch.nn.EmbeddingBag)
    tables = [[m.num_embeddings, m.embedding_dim] for m in model.modules() if isinstance(m, embeddings)]
    return {
        "name": name,
        "task": task,
        "params": totals.params,
        "dtype": dtype,
        "batch": batch,
        "input_shape": list(totals.input_shape),
        "flops_per_sample": totals.flops_per_sample,
        "activation_bytes_per_sample": totals.activation_bytes_per_sample,
        "embedding_tables": tables,  # [rows, dim] per table: sharded and sparse-trained as recommenders are
        "operators": rec.rows,
    }
