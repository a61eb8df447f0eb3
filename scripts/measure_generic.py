#!/usr/bin/env python3
"""Measure the generic (non-transformer) catalog models on the meta device with gpuwise's own
`describe_module`: parameters, forward FLOPs and activation bytes per sample (bf16).

The architectures are written here from their papers (ResNet-50: He et al. 2015, bottleneck v1.5
as in torchvision; DLRM: Naumov et al. 2019 with the MLPerf sizes; DeepFM: Guo et al. 2017) so that
no download or torchvision is needed. The printed values are what models.yaml records with the
source `gpuwise-meta-measurement`. Needs torch (the `bench` extra).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
from gpuwise.bench.describe import describe_module
from gpuwise.catalog import load_catalog


class Bottleneck(nn.Module):
    """ResNet's bottleneck (1x1, 3x3 with the stride, 1x1 to `cout`, four times `width` unless given);
    `groups` splits the 3x3 convolution (ResNeXt)."""

    def __init__(self, cin: int, width: int, stride: int, groups: int = 1, cout: int | None = None) -> None:
        super().__init__()
        cout = cout or width * 4
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, width, 3, stride, 1, groups=groups, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        )
        self.skip = (
            nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            if stride != 1 or cin != cout
            else nn.Identity()
        )
        self.act = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.body(x) + self.skip(x))


def resnet50() -> nn.Module:
    layers: list[nn.Module] = [
        nn.Conv2d(3, 64, 7, 2, 3, bias=False),
        nn.BatchNorm2d(64),
        nn.ReLU(),
        nn.MaxPool2d(3, 2, 1),
    ]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


def mlp(widths: list[int], last_act: bool) -> nn.Sequential:
    mods: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(widths)):
        mods.append(nn.Linear(a, b))
        if last_act or i < len(widths) - 2:
            mods.append(nn.ReLU())
    return nn.Sequential(*mods)


class DLRM(nn.Module):
    """Dense MLP, one embedding per categorical feature, pairwise dot interaction, top MLP."""

    def __init__(self, rows: list[int], dim: int, bottom: list[int], top: list[int]) -> None:
        super().__init__()
        self.n_dense = bottom[0]
        self.bottom = mlp(bottom, last_act=True)
        self.tables = nn.ModuleList(nn.Embedding(r, dim) for r in rows)
        self.top = mlp(top, last_act=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dense = self.bottom(x[:, : self.n_dense])
        ids = x[:, self.n_dense :].long()
        feats = torch.stack([dense] + [t(ids[:, i]) for i, t in enumerate(self.tables)], dim=1)
        inter = feats @ feats.transpose(1, 2)
        i, j = torch.triu_indices(feats.shape[1], feats.shape[1], offset=1)
        return self.top(torch.cat([dense, inter[:, i, j]], dim=1))


class DeepFM(nn.Module):
    """FM (first and second order) and a DNN over shared field embeddings."""

    def __init__(self, rows: list[int], dim: int, hidden: list[int]) -> None:
        super().__init__()
        self.tables = nn.ModuleList(nn.Embedding(r, dim) for r in rows)
        self.first = nn.Embedding(sum(rows), 1)
        self.offsets = torch.tensor([0, *rows[:-1]]).cumsum(0)
        self.dnn = mlp([len(rows) * dim, *hidden, 1], last_act=False)
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ids = x.long()
        emb = torch.stack([t(ids[:, i]) for i, t in enumerate(self.tables)], dim=1)
        first = self.first(ids + self.offsets.to(ids.device)).sum(dim=(1, 2))
        second = 0.5 * (emb.sum(1) ** 2 - (emb**2).sum(1)).sum(1)
        return first + second + self.dnn(emb.flatten(1)).squeeze(1) + self.bias


def main() -> None:
    cat = load_catalog()
    dlrm = cat.models["dlrm-criteo-1tb"]
    deepfm = cat.models["deepfm-ecommerce"]
    # the catalog's sizes: one input per dense feature and per table; DeepFM's dim-1 table is its
    # first-order FM weight, which the model builds itself
    dlrm_dim = dlrm.embedding_tables[0].dim
    fields = [t for t in deepfm.embedding_tables if t.dim > 1]
    cases = {
        "resnet-50": (resnet50, [3, 224, 224], "vision"),
        "dlrm-criteo-1tb": (
            lambda: DLRM([t.rows for t in dlrm.embedding_tables], dlrm_dim, dlrm.bottom_mlp, dlrm.top_mlp),
            [dlrm.bottom_mlp[0] + len(dlrm.embedding_tables)],
            "recommender",
        ),
        "deepfm-ecommerce": (
            lambda: DeepFM([t.rows for t in fields], fields[0].dim, deepfm.dnn_hidden_layers),
            [len(fields)],
            "recommender",
        ),
    }
    print(f"{'model':20s} {'params':>16s} {'catalog params':>16s} {'FLOPs/sample':>14s} {'act bytes/sample':>17s}")
    for name, (factory, shape, task) in cases.items():
        arch = describe_module(factory, shape, name=name, task=task, dtype="bf16")
        print(
            f"{name:20s} {arch.params:16,d} {int(cat.models[name].published_params):16,d} "
            f"{arch.flops_per_sample:14.4g} {arch.activation_bytes_per_sample:17,.0f}"
        )


if __name__ == "__main__":
    main()
