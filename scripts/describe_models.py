#!/usr/bin/env python3
"""Write the per-operator descriptions of the built-in non-transformer models to package data
(src/gpuwise/catalog/data/operators/<model id>.json), so that estimates need no torch.

Each model is built from plain torch.nn modules (the architectures of scripts/measure_generic.py,
written from their papers, so neither torchvision nor a download is needed), run once on the
meta device by `gpuwise.bench.describe.describe_operators`, and its document written with the
catalog's embedding tables. `--check` compares instead of writing (exit 1 on a difference).
Needs torch (the `bench` extra).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from gpuwise.bench.describe import describe_operators  # noqa: E402
from gpuwise.catalog import load_catalog  # noqa: E402

OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "operators"
BATCH = 8  # the batch the operators are traced at; the documents store it


def _architectures() -> Any:
    spec = importlib.util.spec_from_file_location("measure_generic", ROOT / "scripts" / "measure_generic.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def efficientnet_b0() -> Any:
    """EfficientNet-B0 (Tan and Le 2019) as torchvision builds it: MBConv blocks with
    squeeze-and-excitation (squeeze to a quarter of the block's input channels), SiLU."""
    from torch import nn

    class MBConv(nn.Module):
        def __init__(self, cin: int, cout: int, expand: int, k: int, stride: int) -> None:
            super().__init__()
            mid = cin * expand
            layers: list[nn.Module] = []
            if expand != 1:
                layers += [nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.SiLU()]
            layers += [nn.Conv2d(mid, mid, k, stride, k // 2, groups=mid, bias=False), nn.BatchNorm2d(mid), nn.SiLU()]
            self.pre = nn.Sequential(*layers)
            sq = max(1, cin // 4)
            self.se = nn.Sequential(
                nn.AdaptiveAvgPool2d(1), nn.Conv2d(mid, sq, 1), nn.SiLU(), nn.Conv2d(sq, mid, 1), nn.Sigmoid()
            )
            self.post = nn.Sequential(nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.residual = stride == 1 and cin == cout

        def forward(self, x: Any) -> Any:
            y = self.pre(x)
            y = self.post(y * self.se(y))
            return x + y if self.residual else y

    # (expand, kernel, stride, in, out, blocks) per stage, the paper's Table 1
    stages: list[tuple[int, ...]] = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2)]
    stages += [(6, 3, 2, 40, 80, 3), (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
    layers: list[nn.Module] = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.SiLU()]
    for expand, k, stride, cin, cout, n in stages:
        for i in range(n):
            layers.append(MBConv(cin if i == 0 else cout, cout, expand, k, stride if i == 0 else 1))
    layers += [nn.Conv2d(320, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.SiLU()]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(1280, 1000)]
    return nn.Sequential(*layers)


def resnext101_32x4d() -> Any:
    """ResNeXt-101 32x4d (Xie et al. 2017): ResNet-101's stages (3, 4, 23, 3 bottlenecks) with the
    3x3 convolution of each bottleneck split into 32 groups of 4 x 2^stage channels (128, 256, 512,
    1024 wide), the stride on that 3x3 convolution (as NVIDIA's DeepLearningExamples and timm build it)."""
    from torch import nn

    block = _architectures().Bottleneck  # ResNet's, with the 3x3 convolution in 32 groups
    layers: list[nn.Module] = [
        nn.Conv2d(3, 64, 7, 2, 3, bias=False),
        nn.BatchNorm2d(64),
        nn.ReLU(),
        nn.MaxPool2d(3, 2, 1),
    ]
    cin = 64
    for stage, (blocks, stride) in enumerate(((3, 1), (4, 2), (23, 2), (3, 2))):
        width, cout = 128 << stage, 256 << stage
        for i in range(blocks):
            layers.append(block(cin, width, stride if i == 0 else 1, groups=32, cout=cout))
            cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


def documents() -> dict[str, dict[str, Any]]:
    """model id -> its describe document (the catalog's own table sizes for recommenders)."""
    arch, cat = _architectures(), load_catalog()
    dlrm, deepfm = cat.models["dlrm-criteo-1tb"], cat.models["deepfm-ecommerce"]
    assert dlrm.bottom_mlp and dlrm.top_mlp and deepfm.dnn_hidden_layers
    fields = [t for t in deepfm.embedding_tables if t.dim > 1]
    cases: dict[str, tuple[Any, list[int], str, str | None]] = {
        "resnet-50": (arch.resnet50, [3, 224, 224], "vision", None),
        "efficientnet-b0": (efficientnet_b0, [3, 224, 224], "vision", None),
        "resnext101-32x4d": (resnext101_32x4d, [3, 224, 224], "vision", None),
        "dlrm-criteo-1tb": (
            lambda: arch.DLRM(
                [t.rows for t in dlrm.embedding_tables], dlrm.embedding_tables[0].dim, dlrm.bottom_mlp, dlrm.top_mlp
            ),
            [dlrm.bottom_mlp[0] + len(dlrm.embedding_tables)],
            "recommender",
            None,
        ),
        "deepfm-ecommerce": (
            lambda: arch.DeepFM([t.rows for t in fields], fields[0].dim, deepfm.dnn_hidden_layers),
            [len(fields)],
            "recommender",
            None,
        ),
    }
    docs = {}
    for name, (factory, shape, task, in_dtype) in cases.items():
        doc = describe_operators(factory, shape, name=name, task=task, dtype="bf16", batch=BATCH, input_dtype=in_dtype)
        entry = cat.models[name]
        doc["embedding_tables"] = [[t.rows, t.dim] for t in entry.embedding_tables]
        doc["source"] = "scripts/describe_models.py: gpuwise describe_operators on the meta device (bf16, torch)"
        docs[name] = doc
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the packaged files; write nothing")
    args = parser.parse_args()
    differ = 0
    for name, doc in documents().items():
        path = OUT / f"{name}.json"
        text = json.dumps(doc, indent=None, separators=(",", ":")) + "\n"
        if args.check:
            same = path.is_file() and json.loads(path.read_text(encoding="utf-8")) == json.loads(text)
            differ += not same
            print(f"{name}: {'same' if same else 'DIFFERS'}")
        else:
            path.write_text(text, encoding="utf-8")
            print(f"{name}: {len(doc['operators'])} operators -> {path.relative_to(ROOT)}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
