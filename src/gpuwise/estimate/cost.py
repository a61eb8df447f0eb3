"""Total cost of ownership and cloud cost of a GPU configuration.

Owning: purchase (GPUs at list price, a host share and network per node), depreciated over the
stated life, plus power (GPU TDP x average utilization + host power, x PUE, x price per kWh),
facility (per kW of IT load per year) and maintenance (a fraction of capex per year). Renting:
the dated offers of gpuwise.estimate.offers (on-demand, spot, 1- and 3-year commitments); a price
model without a fresh offer has no price (no discount off on-demand stands in). Every owning
parameter comes from `costs.yaml` (each with a source) and can be overridden.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from gpuwise import clock
from gpuwise.catalog import GPU, Catalog
from gpuwise.catalog.schema import ServerPrice
from gpuwise.errors import UsageError
from gpuwise.estimate.offers import (
    TERM_YEARS,
    Market,
    Quote,
    holding_totals,
    market_from_catalog,
    price_model_of,
    units_for,
)
from gpuwise.workload import Hardware

HOURS_PER_YEAR = 8766  # 365.25 days
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
REFERENCE_NODE_GPUS = 8  # costs.yaml's host figures are for an 8-GPU (HGX-class) server
PRICINGS = ("on-demand", "reserved", "spot", "owned")
MAX_YEARS = 100  # a TCO horizon; far past any hardware's life
MAX_COST_VALUE = 1e12  # any one cost parameter (USD, watts, years, factors): past it, a typo
FRACTIONS = ("gpu_utilization", "maintenance_fraction_per_year")


def _cost_value(key: str, value: object) -> float:
    """A cost parameter as a finite number from 0 to MAX_COST_VALUE (fractions at most 1), else a
    usage error naming it: a `.nan` or a list in a costs file never reaches a report."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise UsageError(f"cost parameter {key} must be a number; got {str(value)[:40]!r}")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise UsageError(f"cost parameter {key} must be a number; got {str(value)[:40]!r}") from None
    high = 1.0 if key in FRACTIONS else MAX_COST_VALUE
    if not math.isfinite(number) or not 0 <= number <= high:
        raise UsageError(f"cost parameter {key} must be a finite number from 0 to {high:g}; got {str(value)[:40]}")
    return number


@dataclass(frozen=True, slots=True)
class CostParams:
    electricity_usd_per_kwh: float
    pue: float
    gpu_utilization: float
    host_usd_per_node: float
    host_power_watts_per_node: float
    network_usd_per_node: float
    facility_usd_per_kw_year: float
    maintenance_fraction_per_year: float
    depreciation_years: float
    # the offers rentals are priced from (gpuwise.estimate.offers); not a costs.yaml parameter
    market: Market | None = field(default=None, compare=False)
    # whole servers as bought, by GPU id (costs.yaml `servers`); not a parameter either
    servers: Mapping[str, ServerPrice] = field(default_factory=dict, compare=False)

    @classmethod
    def from_catalog(
        cls,
        catalog: Catalog,
        overrides: Mapping[str, float] | None = None,
        market: Market | None = None,
        servers: Mapping[str, ServerPrice] | None = None,
    ) -> CostParams:
        """costs.yaml with `overrides`; rentals priced from `market` (default: every catalog offer);
        `servers` (a team's quotes) replace the catalog's server prices for their GPUs."""
        values = {f.name: catalog.costs[f.name].value for f in fields(cls) if f.name not in ("market", "servers")}
        if overrides is not None and not isinstance(overrides, Mapping):
            raise UsageError(
                f"cost overrides must be a mapping of parameter names to numbers; got {type(overrides).__name__}"
            )
        for raw, value in (overrides or {}).items():
            key = str(raw).replace("-", "_")
            if key not in values:
                raise UsageError(f"unknown cost parameter {key[:60]!r}; known: {', '.join(values)}")
            values[key] = _cost_value(key, value)
        if values["depreciation_years"] <= 0:
            raise UsageError("depreciation_years must be positive")
        if market is None:
            market = market_from_catalog(catalog, clock.today())
        return cls(**values, market=market, servers={**catalog.servers, **(servers or {})})

    def with_market(self, market: Market) -> CostParams:
        return replace(self, market=market)


@dataclass(frozen=True, slots=True)
class OwnedCost:
    """Owning `hw`: capex once, opex per year; `usd_per_hour` amortizes both over the life."""

    gpus_usd: float
    hosts_usd: float
    network_usd: float
    power_usd_per_year: float
    facility_usd_per_year: float
    maintenance_usd_per_year: float
    depreciation_years: float
    it_kw: float  # average draw (what the meter bills)
    contracted_kw: float = 0.0  # peak draw (what colocation is contracted and charged on)
    servers_usd: float = 0.0  # whole servers as bought (GPUs and host together), where costs.yaml has one
    platform: str | None = None  # what those servers are
    server_count: int = 0
    server_source: str | None = None  # where their price comes from (a costs.yaml source, or a team's quote)

    @property
    def capex(self) -> float:
        return self.gpus_usd + self.hosts_usd + self.servers_usd + self.network_usd

    @property
    def opex_per_year(self) -> float:
        return self.power_usd_per_year + self.facility_usd_per_year + self.maintenance_usd_per_year

    @property
    def usd_per_hour(self) -> float:
        return (self.capex / self.depreciation_years + self.opex_per_year) / HOURS_PER_YEAR

    def total(self, years: float) -> float:
        """Capex is paid once however short the horizon; opex accrues per year."""
        return self.capex + self.opex_per_year * years

    def as_dict(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "servers": self.server_count,
            "server_source": self.server_source,
            "gpus_usd": self.gpus_usd,
            "hosts_usd": self.hosts_usd,
            "servers_usd": self.servers_usd,
            "network_usd": self.network_usd,
            "capex_usd": self.capex,
            "power_usd_per_year": self.power_usd_per_year,
            "facility_usd_per_year": self.facility_usd_per_year,
            "maintenance_usd_per_year": self.maintenance_usd_per_year,
            "opex_usd_per_year": self.opex_per_year,
            "it_kw": self.it_kw,
            "contracted_kw": self.contracted_kw,
            "usd_per_hour": self.usd_per_hour,
        }


def owned_cost(hw: Hardware, p: CostParams, replicas: int = 1, packed: bool = True) -> OwnedCost | None:
    """Owning `replicas` copies of `hw` (a serving fleet; one for training). None when the catalog
    has no purchase price for the GPU. Where costs.yaml prices the GPU's server as bought, the fleet
    buys whole servers, its copies packed into them as rented instances are (units_for: four 2-GPU
    replicas to an 8-GPU server; one copy per server unless `packed`); else GPU list prices plus
    each GPU's share of a host."""
    server = p.servers.get(hw.gpu.id)
    price = hw.gpu.price.list_usd
    if price is None and server is None:
        return None
    gpus_used = hw.count * replicas
    # the host parameters describe an 8-GPU server; a configuration pays its GPUs' share of one
    share = gpus_used / REFERENCE_NODE_GPUS
    count = _servers(hw, server, replicas, packed) if server else 0
    host_watts = p.host_power_watts_per_node * share
    if server is not None and server.power_watts is not None:  # a quote's server: its own draw beyond the GPUs
        host_watts = (server.power_watts - server.gpus * hw.gpu.tdp_watts) * count
    it_kw = (hw.gpu.tdp_watts * gpus_used * p.gpu_utilization + host_watts) / 1000
    # colocation is contracted (and billed) on peak power: GPUs at full TDP, not the average draw
    contracted_kw = (hw.gpu.tdp_watts * gpus_used + host_watts) / 1000
    servers = server.usd * count if server else 0.0
    gpus = 0.0 if server or price is None else price * gpus_used
    hosts = 0.0 if server else p.host_usd_per_node * share
    network = p.network_usd_per_node * hw.nodes * replicas if hw.nodes > 1 else 0.0
    return OwnedCost(
        gpus_usd=gpus,
        hosts_usd=hosts,
        servers_usd=servers,
        platform=server.platform if server else None,
        server_count=count,
        server_source=server.source if server else None,
        network_usd=network,
        power_usd_per_year=it_kw * p.pue * HOURS_PER_YEAR * p.electricity_usd_per_kwh,
        facility_usd_per_year=contracted_kw * p.facility_usd_per_kw_year,
        maintenance_usd_per_year=(gpus + hosts + servers + network) * p.maintenance_fraction_per_year,
        depreciation_years=p.depreciation_years,
        it_kw=it_kw,
        contracted_kw=contracted_kw,
    )


def _servers(hw: Hardware, server: ServerPrice, replicas: int, packed: bool) -> int:
    """Whole servers for `replicas` copies of `hw`, packed as rented instances are
    (gpuwise.estimate.offers.units_for); a node shape the server does not match takes whole servers
    per copy."""
    whole = units_for(server.gpus, hw.count, hw.gpus_per_node, replicas, packed)
    return whole if whole is not None else math.ceil(hw.count / server.gpus) * replicas


def rent_quote(
    hw: Hardware, pricing: str, p: CostParams, years: float | None = None, replicas: int = 1, packed: bool = True
) -> Quote | None:
    """The offer that prices renting `hw` (gpuwise.estimate.offers picks it; None: no offer fits);
    `replicas` copies of it (a serving fleet), packed into instances unless `packed` is False.
    There is no discount fallback: a price model without an offer has no price."""
    if pricing not in PRICINGS and pricing not in ("1y", "3y"):
        raise UsageError(f"pricing must be one of {', '.join(PRICINGS)}; got {pricing!r}")
    if p.market is None:
        return None
    model = price_model_of(pricing, years)
    if model in TERM_YEARS:  # a commitment: fresh, of the on-demand price's class, not dearer (as tco's)
        return p.market.commitment(hw.gpu.id, hw.count, hw.gpus_per_node, model, replicas, packed)[0]
    return p.market.quote(hw.gpu.id, hw.count, hw.gpus_per_node, model, replicas, packed)


def rented_hardware(gpu: GPU, count: int, pricing: str, p: CostParams) -> Hardware | None:
    """`count` GPUs as a plan gets them: renting, one node per instance of the cheapest offer that
    delivers them, its fabric the network between the nodes (None: no offer delivers them); owned,
    nodes of the GPU's usual size on its family's reference network."""
    if pricing == "owned" or p.market is None:
        return Hardware(gpu=gpu, count=count, gpus_per_node=min(count, gpu.node_gpus))
    model = price_model_of(pricing)
    q = p.market.best(gpu.id, count, model)
    if q is not None and model in TERM_YEARS:
        q = p.market.commitment(gpu.id, count, q.gpus_per_node, model)[0]
    if q is None:
        return None
    return Hardware(gpu=gpu, count=count, gpus_per_node=q.gpus_per_node, network=q.spelling)


def fleet_cost(
    usd_per_replica_hour: float | None,
    replicas: int,
    gpus_per_replica: int,
    run_seconds: float | None = None,
    pricing: str = "on-demand",
    fleet_usd_per_hour: float | None = None,
) -> dict[str, object] | None:
    """The whole fleet's cost: replicas x GPUs per replica, per hour and per month, and the run
    (training) at that rate; `fleet_usd_per_hour` where the replicas share instances (each replica's
    share of it is then its price). One GPU's or one replica's price is never shown as the cost."""
    if usd_per_replica_hour is None:
        return None
    hourly = usd_per_replica_hour * replicas if fleet_usd_per_hour is None else fleet_usd_per_hour
    return {
        "pricing": pricing,
        "replicas": replicas,
        "gpus": replicas * gpus_per_replica,
        "usd_per_replica_hour": usd_per_replica_hour if fleet_usd_per_hour is None else hourly / max(replicas, 1),
        "usd_per_hour": hourly,
        "usd_per_month": hourly * HOURS_PER_MONTH,
        "total_usd": None if run_seconds is None else hourly * run_seconds / 3600,
    }


def why_no_price(hw: Hardware, pricing: str, p: CostParams) -> str:
    """Why `hw` has no price under `pricing`, in words a user can act on (gpuwise.estimate.offers)."""
    if pricing == "owned":
        return "no list price in the catalog (owned pricing)"
    if p.market is None:
        return f"no {pricing} price"
    model = price_model_of(pricing)
    if model in TERM_YEARS:
        return p.market.commitment(hw.gpu.id, hw.count, hw.gpus_per_node, model)[1] or f"no {model} price"
    return p.market.why_none(hw.gpu.id, hw.count, hw.gpus_per_node, model)


def why_not_rented(gpu: GPU, count: int, pricing: str, p: CostParams) -> str:
    """Why no offer delivers `count` GPUs of `gpu` in any nodes (rented_hardware returned None)."""
    if p.market is None:
        return f"no {pricing} price"
    model = price_model_of(pricing)
    q = p.market.best(gpu.id, count, model)
    if q is not None and model in TERM_YEARS:  # an offer rents them, but no commitment worth taking
        return p.market.commitment(gpu.id, count, q.gpus_per_node, model)[1] or f"no {model} price"
    return p.market.why_none(gpu.id, count, None, model)


def usd_per_hour(hw: Hardware, pricing: str, p: CostParams) -> float | None:
    """What running `hw` costs per hour under a pricing (owned: amortized TCO; renting: whole
    instances of the cheapest fitting offer, gpuwise.estimate.offers)."""
    if pricing == "owned":
        own = owned_cost(hw, p)
        return own.usd_per_hour if own else None
    q = rent_quote(hw, pricing, p)
    return None if q is None else q.usd_per_hour


def fleet_usd_per_hour(hw: Hardware, replicas: int, pricing: str, p: CostParams, packed: bool = True) -> float | None:
    """What `replicas` copies of `hw` (a serving fleet) cost per hour: renting, the instances of the
    cheapest offer that holds them, replicas packed into instances (one per instance unless `packed`);
    owned, the whole servers that hold them, packed the same way (None: no price). Never falls as
    replicas are added."""
    if pricing == "owned":
        own = owned_cost(hw, p, replicas, packed)
        return None if own is None else own.usd_per_hour
    q = rent_quote(hw, pricing, p, replicas=replicas, packed=packed)
    return None if q is None else q.usd_per_hour


@dataclass(frozen=True, slots=True)
class TcoComparison:
    """Buy versus rent for `years`, the GPUs busy `utilization` of the time when rented."""

    hardware: Hardware
    years: float
    busy_fraction: float
    owned: OwnedCost | None
    rent: dict[str, float | None]  # price model -> total USD over the horizon
    quotes: dict[str, Quote | None] = field(default_factory=dict)  # the offer behind each rent total
    why_none: dict[str, str] = field(default_factory=dict)  # price model -> why it has no total

    def as_dict(self) -> dict[str, Any]:
        own_total = self.owned.total(self.years) if self.owned else None
        owned = None
        if self.owned is not None and own_total is not None:
            owned = {
                **self.owned.as_dict(),
                "amortized_usd_per_hour": self.owned.usd_per_hour,  # over the depreciation life
                "total_usd": own_total,  # over `years`: capex once, opex each year
                "horizon_usd_per_hour": own_total / (self.years * HOURS_PER_YEAR),  # the total per hour of `years`
            }
        return {
            "gpu": self.hardware.gpu.id,
            "count": self.hardware.count,
            "nodes": self.hardware.nodes,
            "years": self.years,
            "busy_fraction": self.busy_fraction,
            "owned": owned,
            "rent_total_usd": self.rent,
            "offers": {k: None if q is None else q.as_dict() for k, q in self.quotes.items()},
            "why_no_rent": self.why_none,
            "cheapest": min(
                ((k, v) for k, v in [("owned", own_total), *self.rent.items()] if v is not None),
                key=lambda kv: kv[1],
                default=(None, None),
            )[0],
        }


def compare(hw: Hardware, years: float, p: CostParams, busy_fraction: float = 1.0) -> TcoComparison:
    if not (
        math.isfinite(years) and 0 < years <= MAX_YEARS and math.isfinite(busy_fraction) and 0 < busy_fraction <= 1
    ):
        raise UsageError(
            f"--years must be a number above 0 and at most {MAX_YEARS}, --busy above 0 and at most 1; got {years:g} and {busy_fraction:g}"
        )
    if p.market is None:
        return TcoComparison(hw, years, busy_fraction, owned_cost(hw, p), {})
    rent, quotes, why = holding_totals(
        p.market, hw.gpu.id, hw.count, hw.gpus_per_node, years, busy_fraction, HOURS_PER_YEAR
    )
    return TcoComparison(hw, years, busy_fraction, owned_cost(hw, p), rent, quotes, why)
