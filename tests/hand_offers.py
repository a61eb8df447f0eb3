"""Hand-made offers for the pricing tests: one builder, so each test names only what differs from a
plain on-demand USD offer (acme's `n`-GPU instance in the US, dated 2026-10-01, available), and the
day the tests price on."""

from __future__ import annotations

from datetime import date
from typing import Any

from gpuwise.catalog.schema import Offer, validate

TODAY = date(2026, 12, 1)  # the day the markets are built on: the offers are two months old
IB = {"kind": "infiniband", "gbps_per_gpu": 400}  # a cluster fabric: 400 Gb/s InfiniBand per GPU


def offer(n: int, price: float, **kw: Any) -> Offer:
    """An offer of `n` H100 SXM GPUs per instance at `price` USD an hour; `kw` sets any other field."""
    provider = kw.get("provider", "acme")
    base: dict[str, Any] = {
        "gpu": "h100-sxm",
        "provider": provider,
        "instance": f"{provider}-{n}x",
        "gpus_per_instance": n,
        "link": "nvswitch" if n > 1 else "none",
        "region": "us",
        "price_model": "on-demand",
        "currency": "USD",
        "price_per_hour": price,
        "date": "2026-10-01",
        "source": "test",
        "available": True,
    }
    return validate(Offer, {**base, **kw})
