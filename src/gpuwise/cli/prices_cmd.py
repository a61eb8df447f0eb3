"""`gpuwise prices`: the offers behind every rental price, filtered, with the cheapest per GPU model.

Gathering (`gpuwise.api.price_rows`, which `gpuwise gpus` uses too) is apart from printing
(`_table`), so the JSON and the table show the same offers. The catalog's offers and a team's own
(`--prices FILE`, the user's prices.yaml) are listed together; an own offer replaces the catalog's
for the same instance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gpuwise.errors import UsageError


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
                ("indicative", r["indicative"]),
                ("superseded", r["superseded"]),
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
            r["date"] or "undated",
            r["source"],
            " · ".join(["cheapest", *flags] if id(r) in best else flags),
            style="bold green" if id(r) in best else ("dim" if flags else ""),
        )
    console.print(t)
    rates = ", ".join(f"{v['per_usd']:g} {k} per USD ({v['date']}, source {v['source']})" for k, v in fx.items())
    console.print(
        Text(
            f"Exchange rates: {rates}. Cheapest: per GPU-hour, available, dated before stale; indicative, undated "
            "and superseded prices are listed, never used unless --allow-indicative (superseded: never).",
            style="dim",
        )
    )


def price_filters(
    providers: str | None = None,
    exclude: str | None = None,
    region: str | None = None,
    max_age: str | None = None,
    offer_class: str | None = None,
    allow_indicative: bool = False,
) -> dict[str, Any]:
    """The PRICES options as gpuwise.api takes them (the one filter of gpuwise.estimate.offer_filter)."""
    from gpuwise.units import parse_age

    return {
        "providers": [providers or ""],
        "exclude": [exclude or ""],
        "regions": [region or ""],
        "max_age_months": None if max_age is None else parse_age(max_age),
        "offer_classes": [offer_class or ""],
        "allow_indicative": allow_indicative,
    }


ProvidersOpt = Annotated[str | None, typer.Option("--providers", help="Only these providers, e.g. aws,lambda.")]
ExcludeOpt = Annotated[str | None, typer.Option("--exclude-providers", help="Never these providers, e.g. vast.")]
RegionOpt = Annotated[
    str | None, typer.Option(help="Only regions containing this, e.g. us or us-east (comma separated).")
]
MaxAgeOpt = Annotated[str | None, typer.Option(help="Only prices dated within this, e.g. 12m, 1y (undated: never).")]
ClassOpt = Annotated[
    str | None, typer.Option(help="Only these kinds of provider: hyperscaler,neocloud,marketplace,own.")
]
IndicativeOpt = Annotated[
    bool,
    typer.Option(
        "--allow-indicative", help="Let 'starting at' (lowest-listing) and undated prices be used, not only listed."
    ),
]


def register(app: typer.Typer) -> None:
    @app.command()
    def prices(
        gpu: Annotated[str | None, typer.Option(help="Only this GPU id, e.g. h100-sxm.")] = None,
        provider: Annotated[str | None, typer.Option(help="Only these providers (as --providers).")] = None,
        providers: ProvidersOpt = None,
        exclude_providers: ExcludeOpt = None,
        price_model: Annotated[str | None, typer.Option(help="on-demand|spot|1y|3y.")] = None,
        region: RegionOpt = None,
        max_age: MaxAgeOpt = None,
        offer_class: ClassOpt = None,
        allow_indicative: IndicativeOpt = False,
        cheapest: Annotated[
            bool, typer.Option("--cheapest", help="Only the cheapest usable offer per GPU model.")
        ] = False,
        prices_file: Annotated[
            Path | None, typer.Option("--prices", help="A team's own offers (YAML `offers:` list).")
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    ) -> None:
        """The offers behind every price: provider, instance, GPUs per instance, fabric, date, source."""
        from gpuwise.api import price_rows

        who = ",".join(p for p in (provider, providers) if p) or None
        filters = price_filters(who, exclude_providers, region, max_age, offer_class, allow_indicative)
        rows, best, fx = price_rows(gpu, price_model, prices_file, **filters)
        if cheapest:
            rows = list(best.values())
        if as_json:
            from gpuwise.cli.output import print_json

            print_json({"offers": rows, "cheapest": best, "fx": fx})
            return
        if not rows:
            raise UsageError("no offer matches these filters")
        _table(rows, best, fx)
