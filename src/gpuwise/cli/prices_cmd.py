"""`gpuwise prices`: the offers behind every rental price, filtered, with the cheapest per GPU model.

Gathering (`price_rows`) is apart from printing (`_table`), so the JSON and the table show the same
offers. The catalog's offers and a team's own (`--prices FILE`, the user's prices.yaml) are listed
together; an own offer replaces the catalog's for the same instance.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise import clock
from gpuwise.errors import UsageError

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(m|mo|months?|y|years?|d|days?)?\s*$", re.IGNORECASE)


def parse_age(text: str) -> float:
    """'12m', '1y', '90d', '6' (months) -> months."""
    from gpuwise.estimate.offers import DAYS_PER_MONTH  # as offers count an offer's age
    from gpuwise.units import MONTHS_PER_YEAR

    m = _AGE.match(text)
    if not m:
        raise UsageError(f"--max-age {text!r}: give a number of months like 12m, or 1y, or 90d")
    value, unit = float(m.group(1)), (m.group(2) or "m").lower()
    if unit.startswith("y"):
        return value * MONTHS_PER_YEAR
    if unit.startswith("d"):
        return value / DAYS_PER_MONTH
    return value


def price_rows(
    gpu: str | None = None,
    provider: str | None = None,
    price_model: str | None = None,
    region: str | None = None,
    max_age: str | None = None,
    prices: Path | None = None,
    include_unavailable: bool = True,
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], dict[str, Any]]:
    """(offers as JSON rows, the cheapest available offer per GPU model, the fx rates). Cheapest is
    per GPU-hour in USD of the price model asked for (on-demand by default), a dated offer before a
    stale or undated one, as the planner picks."""
    from gpuwise.api import plan_market
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.offers import PRICE_MODELS, age_months

    cat = load_catalog()
    if gpu is not None and gpu not in cat.gpus and gpu not in {o.gpu for o in cat.offers}:
        cat.gpu(gpu)  # raises with "did you mean"
    if price_model is not None and price_model not in PRICE_MODELS:
        raise UsageError(f"--price-model must be one of {', '.join(PRICE_MODELS)}; got {price_model!r}")
    market = plan_market(
        cat,
        prices,
        [provider or ""],
        [],
    )
    months = None if max_age is None else parse_age(max_age)
    today = clock.today()
    rows: list[dict[str, Any]] = []
    for o in market.offers:
        if (gpu and o.gpu != gpu) or (price_model and o.price_model != price_model):
            continue
        if not market.allowed(o) or (region and region.lower() not in o.region.lower()):
            continue
        if months is not None and (o.source in market.undated_sources or age_months(o, today) > months):
            continue
        if not include_unavailable and not o.available:
            continue
        usd = market.usd(o)
        rows.append(
            {
                **{k: v for k, v in asdict(o).items() if k not in ("price_per_hour", "note")},
                "price": o.price_per_hour,
                "usd_per_hour": round(usd, 6),
                "usd_per_gpu_hour": round(usd / o.gpus_per_instance, 6),
                "in_catalog": o.gpu in cat.gpus,
                "own": (o.gpu, o.provider, o.instance) in market.own_keys,
                "undated": o.source in market.undated_sources,
                "stale": not market.fresh(o),  # older than 12 months or undated: the planner prefers a dated one
                "note": o.note,
            }
        )
    cheapest: dict[str, dict[str, Any]] = {}
    ranked = (r for r in rows if r["available"] and r["price_model"] == (price_model or "on-demand"))
    for r in sorted(ranked, key=lambda r: (r["stale"], r["usd_per_gpu_hour"])):
        cheapest.setdefault(r["gpu"], r)  # as the planner picks: a dated offer first, then the price
    fx = {k: asdict(v) for k, v in cat.fx.items()}
    return rows, cheapest, fx


def _table(rows: list[dict[str, Any]], cheapest: dict[str, dict[str, Any]], fx: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from gpuwise.cli.render import console

    t = Table(
        title=f"{len(rows)} offers over {len({r['gpu'] for r in rows})} GPU models",
        header_style="bold",
        show_edge=False,
    )
    for col in ("gpu", "provider", "instance", "GPUs", "model", "price/h", "USD/GPU-h", "date", "source", "note"):
        t.add_column(col, justify="right" if col in ("GPUs", "price/h", "USD/GPU-h") else "left", overflow="fold")
    best = {id(r) for r in cheapest.values()}
    for r in sorted(rows, key=lambda r: (r["gpu"], r["usd_per_gpu_hour"])):
        flags = [
            x
            for x, on in (
                ("unavailable", not r["available"]),
                ("undated", r["undated"]),
                ("stale", r["stale"] and not r["undated"]),
                ("yours", r["own"]),
            )
            if on
        ]
        t.add_row(
            r["gpu"],
            r["provider"],
            r["instance"],
            str(r["gpus_per_instance"]),
            r["price_model"],
            f"{r['price']:,.2f} {r['currency']}",
            f"{r['usd_per_gpu_hour']:,.2f}",
            r["date"],
            r["source"],
            " · ".join(["cheapest", *flags] if id(r) in best else flags),
            style="bold green" if id(r) in best else ("dim" if flags else ""),
        )
    console.print(t)
    rates = ", ".join(f"{v['per_usd']:g} {k} per USD ({v['date']}, source {v['source']})" for k, v in fx.items())
    console.print(
        Text(f"Exchange rates: {rates}. Cheapest: per GPU-hour, available, dated before undated or stale.", style="dim")
    )


def register(app: typer.Typer) -> None:
    @app.command()
    def prices(
        gpu: Annotated[str | None, typer.Option(help="Only this GPU id, e.g. h100-sxm.")] = None,
        provider: Annotated[str | None, typer.Option(help="Only these providers, e.g. aws or aws,lambda.")] = None,
        price_model: Annotated[str | None, typer.Option(help="on-demand|spot|1y|3y.")] = None,
        region: Annotated[str | None, typer.Option(help="Only regions containing this, e.g. us-east.")] = None,
        max_age: Annotated[str | None, typer.Option(help="Only offers dated within this, e.g. 12m, 1y.")] = None,
        cheapest: Annotated[bool, typer.Option("--cheapest", help="Only the cheapest offer per GPU model.")] = False,
        prices_file: Annotated[
            Path | None, typer.Option("--prices", help="A team's own offers (YAML `offers:` list).")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    ) -> None:
        """The offers behind every price: provider, instance, GPUs per instance, date, source, availability."""
        rows, best, fx = price_rows(gpu, provider, price_model, region, max_age, prices_file)
        if cheapest:
            rows = list(best.values())
        if as_json:
            from gpuwise.cli.output import print_json

            print_json({"offers": rows, "cheapest": best, "fx": fx})
            return
        if not rows:
            raise UsageError("no offer matches these filters")
        _table(rows, best, fx)


def money_block(currency: str, cost: dict[str, Any] | None) -> dict[str, Any] | None:
    """An estimate's cost in `currency` at the catalog's dated rate (None for USD or no cost)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.offers import fx_rate, money

    rate = fx_rate(load_catalog().fx, currency)
    if rate is None or not cost:
        return None
    return money(
        rate, per_hour=cost.get("usd_per_hour"), per_month=cost.get("usd_per_month"), run=cost.get("total_usd")
    )
