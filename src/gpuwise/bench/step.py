"""One training step, timed in parts: data (host->device copy of a synthetic batch), forward,
backward and optimizer (AdamW), and their total.

Models: a catalog transformer id (a decoder stand-in built from its architecture: hidden size,
layers, heads, KV heads, FFN width, vocabulary, norm type, gated or plain MLP), "mlp", or any
`torch.nn.Module` given as `module=` with `input_shape=`. In quick mode transformer stand-ins are
shrunk (2 layers, hidden <= 256, vocabulary <= 8192) and the params say so (`shrunk`, `full`).

Every part ends with a device synchronization and is timed on the host, so the parts add up to
the total; the synchronizations remove the overlap of CPU launches across parts that a free
running loop has, which makes the total slightly pessimistic for launch-bound models. Precision:
fp32, or bf16/fp16 autocast over fp32 weights (mixed precision as in most training).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuwise.bench._common import Progress, ProgressFn, is_cuda, on_device, resolve_device, synchronize, torch_module
from gpuwise.errors import UsageError
from gpuwise.store.results import Measurement
from gpuwise.units import fmt_gib

PARTS = ("data", "forward", "backward", "optimizer")
_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def _norm(nn: Any, kind: str, h: int) -> Any:
    if kind == "rmsnorm" and hasattr(nn, "RMSNorm"):
        return nn.RMSNorm(h)
    return nn.LayerNorm(h)


def _layer_classes(torch: Any) -> tuple[type, type]:
    """Attention (grouped-query, SDPA) and MLP (gated SiLU or plain GELU) for the stand-in's blocks."""
    nn, F = torch.nn, torch.nn.functional
    module: Any = nn.Module  # a base class only known at run time (torch is optional)

    class Attention(module):
        def __init__(self, d: dict[str, Any]) -> None:
            super().__init__()
            h, hd = d["hidden"], d["head_dim"]
            self.heads, self.kv_heads, self.head_dim, self.causal = d["heads"], d["kv_heads"], hd, d["causal"]
            self.q = nn.Linear(h, self.heads * hd, bias=d["qkv_bias"])
            self.k = nn.Linear(h, self.kv_heads * hd, bias=d["qkv_bias"])
            self.v = nn.Linear(h, self.kv_heads * hd, bias=d["qkv_bias"])
            self.o = nn.Linear(self.heads * hd, h, bias=d["o_bias"])

        def forward(self, x: Any) -> Any:
            b, s, _ = x.shape
            q = self.q(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
            k = self.k(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
            v = self.v(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
            if self.kv_heads != self.heads:
                group = self.heads // self.kv_heads
                k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
            return self.o(y.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))

    class MLP(module):
        def __init__(self, d: dict[str, Any]) -> None:
            super().__init__()
            h, f, bias = d["hidden"], d["ffn"], d["mlp_bias"]
            self.gated = d["gated"]
            self.up = nn.Linear(h, f, bias=bias)
            self.gate = nn.Linear(h, f, bias=bias) if self.gated else None
            self.down = nn.Linear(f, h, bias=bias)

        def forward(self, x: Any) -> Any:
            if self.gate is not None:
                return self.down(F.silu(self.gate(x)) * self.up(x))
            return self.down(F.gelu(self.up(x)))

    return Attention, MLP


def _transformer_class(torch: Any) -> type:
    """Token embedding (+ learned positions), pre-norm blocks, final norm, LM head; next-token loss."""
    nn, F = torch.nn, torch.nn.functional
    module: Any = nn.Module
    attention, mlp = _layer_classes(torch)

    class Block(module):
        def __init__(self, d: dict[str, Any]) -> None:
            super().__init__()
            self.norm1, self.attn = _norm(nn, d["norm"], d["hidden"]), attention(d)
            self.norm2, self.mlp = _norm(nn, d["norm"], d["hidden"]), mlp(d)

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.norm1(x))
            return x + self.mlp(self.norm2(x))

    class Transformer(module):
        def __init__(self, d: dict[str, Any]) -> None:
            super().__init__()
            self.embed = nn.Embedding(d["vocab"], d["hidden"])
            self.pos = nn.Embedding(d["positions"], d["hidden"]) if d["positions"] else None
            self.blocks = nn.ModuleList(Block(d) for _ in range(d["layers"]))
            self.norm = _norm(nn, d["norm"], d["hidden"])
            self.head = nn.Linear(d["hidden"], d["vocab"], bias=False)
            if d["tied"]:
                self.head.weight = self.embed.weight

        def forward(self, tokens: Any, targets: Any) -> Any:
            x = self.embed(tokens)
            if self.pos is not None:
                x = x + self.pos(torch.arange(tokens.shape[1], device=tokens.device))
            for block in self.blocks:
                x = block(x)
            logits = self.head(self.norm(x))
            return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())

    return Transformer


def _mlp_net_class(torch: Any) -> type:
    """A plain MLP classifier (GELU between layers), cross-entropy loss."""
    nn, F = torch.nn, torch.nn.functional
    module: Any = nn.Module

    class MLPNet(module):
        def __init__(self, d_in: int, width: int, depth: int, classes: int) -> None:
            super().__init__()
            layers: list[Any] = []
            for i in range(depth):
                layers += [nn.Linear(d_in if i == 0 else width, width), nn.GELU()]
            self.body = nn.Sequential(*layers, nn.Linear(width, classes))

        def forward(self, x: Any, targets: Any) -> Any:
            return F.cross_entropy(self.body(x).float(), targets)

    return MLPNet


@functools.cache
def stand_in_classes() -> dict[str, type]:
    """nn.Module classes of the stand-ins, defined on first use (torch is imported lazily)."""
    torch = torch_module()
    return {"Transformer": _transformer_class(torch), "MLPNet": _mlp_net_class(torch)}


def transformer_dims(model_id: str, quick: bool, layers: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(stand-in dimensions, the catalog architecture's own) for a catalog transformer id."""
    from gpuwise.catalog import TransformerArch, load_catalog

    arch = load_catalog().model(model_id)
    if not isinstance(arch, TransformerArch):
        raise UsageError(f"model {model_id!r} is not a transformer; pass module= (and input_shape=) to time it")
    full = {
        "hidden": arch.hidden, "layers": arch.layers, "heads": arch.heads, "kv_heads": arch.kv_heads,
        "head_dim": arch.head_dim, "ffn": arch.ffn, "vocab": arch.vocab,
    }  # fmt: skip
    d: dict[str, Any] = dict(full)
    d.update(
        causal=arch.causal, qkv_bias=arch.qkv_bias, o_bias=arch.o_bias, mlp_bias=arch.mlp_bias, gated=arch.gated_ffn,
        norm=arch.norm, tied=arch.tied_embeddings, positions=arch.learned_positions,
    )  # fmt: skip
    if arch.is_moe:  # dense stand-in with the FLOPs of the active experts
        d["ffn"] = arch.ffn * arch.experts_per_token
    if quick:
        h = min(arch.hidden, 256)
        hd = min(arch.head_dim, 64)
        heads = max(1, min(arch.heads, h // hd))
        kv = max(1, heads * arch.kv_heads // arch.heads)
        while heads % kv:
            kv -= 1
        d.update(
            hidden=h, head_dim=hd, heads=heads, kv_heads=kv, layers=min(arch.layers, 2),
            ffn=max(8, round(d["ffn"] * h / arch.hidden / 8) * 8), vocab=min(arch.vocab, 8192),
        )  # fmt: skip
    if layers is not None:
        if int(layers) < 1:
            raise UsageError(f"layers must be at least 1; got {layers}")
        d["layers"] = min(int(layers), d["layers"])
    d["moe_as_dense"] = arch.is_moe
    return d, full


def _stand_in_params(d: dict[str, Any], seq: int) -> int:
    h, hd = d["hidden"], d["head_dim"]
    attn = h * hd * (2 * d["heads"] + 2 * d["kv_heads"])
    mlp = h * d["ffn"] * (3 if d["gated"] else 2)
    emb = d["vocab"] * h * (1 if d["tied"] else 2) + (max(d["positions"], seq) if d["positions"] else 0) * h
    return d["layers"] * (attn + mlp) + emb


def _check_memory(torch: Any, device: str, n_params: int, what: str) -> None:
    """Weights, gradients and two AdamW moments in fp32 (16 bytes a parameter) must fit with room."""
    need = 16 * n_params
    if is_cuda(device):
        free, _ = torch.cuda.mem_get_info(device)
    else:
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            return
    if need > 0.8 * free:
        raise UsageError(
            f"{what} has {n_params / 1e9:.2f}B parameters: weights, gradients and AdamW states need about "
            f"{fmt_gib(need)}, {fmt_gib(free)} is free on {device}; pass layers= for fewer layers "
            "or use quick mode"
        )


def _positive(value: int | None, default: int, name: str = "batch") -> int:
    value = default if value is None else int(value)
    if value < 1:
        raise UsageError(f"{name} must be positive; got {value}")
    return value


def _first_tensor(torch: Any, out: Any) -> Any:
    if isinstance(out, torch.Tensor):
        return out
    loss = getattr(out, "loss", None)
    if isinstance(loss, torch.Tensor):
        return loss
    logits = getattr(out, "logits", None)
    if isinstance(logits, torch.Tensor):
        return logits
    values = out.values() if isinstance(out, dict) else out if isinstance(out, (list, tuple)) else ()
    for v in values:
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            return v
    raise UsageError(f"the module returned {type(out).__name__}; expected a tensor (or a tuple/dict with one)")


@dataclass(slots=True)
class _Setup:
    """What one training step runs: the network, its host-side inputs, the loss, and what to report."""

    net: Any
    host: list[Any]
    loss_of: Callable[[list[Any]], Any]
    params: dict[str, Any]


def _default_dtype(torch: Any, device: str, dtype: str | None) -> str:
    """fp32 on the host; bf16 on GPUs that have it (Ampere and later, ROCm), else fp16."""
    if dtype is None:
        gpu = is_cuda(device)
        bf16 = gpu and (torch.cuda.get_device_capability(device) >= (8, 0) or bool(getattr(torch.version, "hip", None)))
        dtype = "bf16" if bf16 else "fp16" if gpu else "fp32"
    if dtype not in _DTYPES:
        raise UsageError(f"dtype must be one of {', '.join(_DTYPES)}; got {dtype!r}")
    return dtype


def _module_setup(
    torch: Any, device: str, gen: Any, module: Any, batch: int, input_shape: Sequence[int], input_dtype: str
) -> _Setup:
    """A user's module: random inputs (token ids below its embedding size for integer inputs)."""
    net = module.to(device)
    if input_dtype.startswith(("int", "uint")):
        emb = next((m for m in net.modules() if isinstance(m, torch.nn.Embedding)), None)
        high = emb.num_embeddings if emb is not None else 2
        host = [torch.randint(0, high, (batch, *input_shape), generator=gen, dtype=getattr(torch, input_dtype))]
    else:
        host = [torch.randn(batch, *input_shape, generator=gen).to(getattr(torch, input_dtype))]

    def loss_of(inputs: list[Any]) -> Any:
        out = _first_tensor(torch, net(inputs[0]))
        return out if out.dim() == 0 else out.float().square().mean()

    params = {"model": type(module).__name__, "batch": batch, "input_shape": [int(d) for d in input_shape]}
    return _Setup(net, host, loss_of, params)


def _mlp_setup(torch: Any, device: str, gen: Any, quick: bool, batch: int | None) -> _Setup:
    d_in, width, depth, classes = (256, 512, 3, 10) if quick else (1024, 4096, 4, 1000)
    batch = _positive(batch, 64 if quick else 512)
    net = stand_in_classes()["MLPNet"](d_in, width, depth, classes).to(device)
    host = [torch.randn(batch, d_in, generator=gen), torch.randint(0, classes, (batch,), generator=gen)]

    def loss_of(inputs: list[Any]) -> Any:
        return net(inputs[0], inputs[1])

    params = {"model": "mlp", "batch": batch, "input": d_in, "width": width, "depth": depth, "classes": classes}
    return _Setup(net, host, loss_of, params)


def _transformer_setup(
    torch: Any, device: str, gen: Any, quick: bool, model: str, batch: int | None, seq: int | None, layers: int | None
) -> _Setup:
    """The decoder stand-in of a catalog transformer, checked to fit before it is built."""
    d, full = transformer_dims(model, quick, layers)
    batch = _positive(batch, 4 if quick else 8)
    seq = _positive(seq, 64 if quick else 1024, "seq")
    if d["positions"]:
        d["positions"] = max(d["positions"], seq)
    _check_memory(torch, device, _stand_in_params(d, seq), f"the {model} stand-in")
    with torch.device(device):
        net = stand_in_classes()["Transformer"](d)
    host = [torch.randint(0, d["vocab"], (batch, seq + 1), generator=gen)]

    def loss_of(inputs: list[Any]) -> Any:
        tokens = inputs[0]
        return net(tokens[:, :-1], tokens[:, 1:])

    params: dict[str, Any] = {
        "model": model, "batch": batch, "seq": seq, "tokens": batch * seq, "stand_in": True, "shrunk": quick,
        **{k: d[k] for k in ("hidden", "layers", "heads", "kv_heads", "head_dim", "ffn", "vocab")},
    }  # fmt: skip
    if d["moe_as_dense"]:
        params["moe_as_dense"] = True
    if quick or d["layers"] != full["layers"]:
        params["full"] = full
    return _Setup(net, host, loss_of, params)


def _step_timer(torch: Any, device: str, setup: _Setup, dtype: str) -> Callable[[], list[float]]:
    """A function running one AdamW step and returning the seconds of each part (PARTS)."""
    gpu = is_cuda(device)
    setup.net.train()
    opt = torch.optim.AdamW(setup.net.parameters(), lr=1e-4)
    host = [t.pin_memory() for t in setup.host] if gpu else setup.host
    dev = [torch.empty_like(t, device=device) for t in host]
    autocast = None
    if dtype != "fp32":
        autocast = torch.autocast(device_type=device.split(":")[0], dtype=getattr(torch, _DTYPES[dtype]))

    def one_step() -> list[float]:
        marks = [time.perf_counter()]
        for d_t, h_t in zip(dev, host, strict=True):
            d_t.copy_(h_t, non_blocking=gpu)
        synchronize(device)
        marks.append(time.perf_counter())
        with autocast if autocast is not None else contextlib.nullcontext():
            loss = setup.loss_of(dev)
        synchronize(device)
        marks.append(time.perf_counter())
        loss.backward()
        synchronize(device)
        marks.append(time.perf_counter())
        opt.step()
        opt.zero_grad(set_to_none=True)
        synchronize(device)
        marks.append(time.perf_counter())
        return [b - a for a, b in itertools.pairwise(marks)]

    return one_step


def _repeat(one_step: Callable[[], list[float]], bar: Progress, warmup: int, reps: int) -> list[list[float]]:
    """Part times of `reps` steps after `warmup` untimed ones."""
    for _ in range(warmup):
        one_step()
        bar.advance()
    parts: list[list[float]] = []
    for _ in range(reps):
        parts.append(one_step())
        bar.advance()
    return parts


def step(
    device: str = "cpu",
    quick: bool = False,
    progress: ProgressFn | None = None,
    model: str = "gpt2",
    module: Any = None,
    batch: int | None = None,
    seq: int | None = None,
    dtype: str | None = None,
    *,
    layers: int | None = None,
    input_shape: Sequence[int] | None = None,
    input_dtype: str = "float32",
) -> list[Measurement]:
    """Median seconds of each part of a training step: 'data', 'forward', 'backward', 'optimizer',
    and 'total' (all four). `model` is a catalog transformer id or "mlp"; `module` (an nn.Module,
    with `input_shape` excluding the batch) replaces it, its loss being the mean square of its
    output (or its own `.loss`). `dtype` fp32, bf16 or fp16 (autocast); default fp32 on the host,
    bf16 on a GPU. `layers` caps a transformer's layer count.
    """
    torch = torch_module()
    device = resolve_device(device)
    dtype = _default_dtype(torch, device, dtype)
    warmup, reps = (3, 5) if quick else (3, 10)
    gen = torch.Generator().manual_seed(0)
    params: dict[str, Any] = {"dtype": dtype, "optimizer": "AdamW", "device": device.split(":")[0]}
    with on_device(device):
        if module is not None:
            if input_shape is None:
                raise UsageError("module= needs input_shape= (the shape of one sample, without the batch)")
            batch = _positive(batch, 8 if quick else 32)
            setup = _module_setup(torch, device, gen, module, batch, input_shape, input_dtype)
        elif model == "mlp":
            setup = _mlp_setup(torch, device, gen, quick, batch)
        else:
            setup = _transformer_setup(torch, device, gen, quick, model, batch, seq, layers)
        params.update(setup.params)
        params["params"] = sum(p.numel() for p in setup.net.parameters())
        one_step = _step_timer(torch, device, setup, dtype)
        bar = Progress(progress, "step", warmup + reps)
        parts = _repeat(one_step, bar, warmup, reps)
    bar.finish()
    out = [
        Measurement.median_of("step", name, [p[i] for p in parts], "seconds", **params) for i, name in enumerate(PARTS)
    ]
    out.append(Measurement.median_of("step", "total", [sum(p) for p in parts], "seconds", **params))
    return out
