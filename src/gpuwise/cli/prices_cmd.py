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
        from gpuwise.api import price_rows

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
