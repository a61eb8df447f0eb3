"""Total cost of ownership and cloud cost of a GPU configuration.

Owning: purchase (GPUs at list price, a host share and network per node), depreciated over the
stated life, plus power (GPU TDP x average utilization + host power, x PUE, x price per kWh),
facility (per kW of IT load per year) and maintenance (a fraction of capex per year). Renting:
on-demand, 1-year reserved or spot $/GPU-hour from the catalog, with the catalog's discounts as
fallback. Every parameter comes from `costs.yaml` (each with a source) and can be overridden.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields

from gpuwise.catalog import GPU, Catalog
from gpuwise.errors import UsageError
from gpuwise.workload import Hardware

HOURS_PER_YEAR = 8766  # 365.25 days
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
REFERENCE_NODE_GPUS = 8  # costs.yaml's host figures are for an 8-GPU (HGX-class) server
PRICINGS = ("on-demand", "reserved", "spot", "owned")
MAX_YEARS = 100  # a TCO horizon; far past any hardware's life
MAX_COST_VALUE = 1e12  # any one cost parameter (USD, watts, years, factors): past it, a typo
FRACTIONS = ("gpu_utilization", "reserved_discount", "spot_discount", "maintenance_fraction_per_year")


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


@dataclass(frozen=True)
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
    reserved_discount: float
    spot_discount: float

    @classmethod
    def from_catalog(cls, catalog: Catalog, overrides: Mapping[str, float] | None = None) -> CostParams:
        values = {f.name: catalog.costs[f.name].value for f in fields(cls)}
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
        return cls(**values)


@dataclass(frozen=True)
class OwnedCost:
    """Owning `hw`: capex once, opex per year; `usd_per_hour` amortizes both over the life."""

    gpus_usd: float
    hosts_usd: float
    network_usd: float
    power_usd_per_year: float
    facility_usd_per_year: float
    maintenance_usd_per_year: float
    depreciation_years: float
    it_kw: float

    @property
    def capex(self) -> float:
        return self.gpus_usd + self.hosts_usd + self.network_usd

    @property
    def opex_per_year(self) -> float:
        return self.power_usd_per_year + self.facility_usd_per_year + self.maintenance_usd_per_year

    @property
    def usd_per_hour(self) -> float:
        return (self.capex / self.depreciation_years + self.opex_per_year) / HOURS_PER_YEAR

    def total(self, years: float) -> float:
        """Capex is paid once however short the horizon; opex accrues per year."""
        return self.capex + self.opex_per_year * years

    def as_dict(self) -> dict[str, float]:
        return {
            "gpus_usd": self.gpus_usd,
            "hosts_usd": self.hosts_usd,
            "network_usd": self.network_usd,
            "capex_usd": self.capex,
            "power_usd_per_year": self.power_usd_per_year,
            "facility_usd_per_year": self.facility_usd_per_year,
            "maintenance_usd_per_year": self.maintenance_usd_per_year,
            "opex_usd_per_year": self.opex_per_year,
            "it_kw": self.it_kw,
            "usd_per_hour": self.usd_per_hour,
        }


def owned_cost(hw: Hardware, p: CostParams) -> OwnedCost | None:
    """None when the catalog has no purchase price for the GPU."""
    price = hw.gpu.price.list_usd
    if price is None:
        return None
    nodes = hw.nodes
    multi = nodes > 1
    # the host parameters describe an 8-GPU server; a configuration pays its GPUs' share of one
    share = hw.count / REFERENCE_NODE_GPUS
    it_kw = (hw.gpu.tdp_watts * hw.count * p.gpu_utilization + p.host_power_watts_per_node * share) / 1000
    gpus = price * hw.count
    hosts = p.host_usd_per_node * share
    network = p.network_usd_per_node * nodes if multi else 0.0
    return OwnedCost(
        gpus_usd=gpus,
        hosts_usd=hosts,
        network_usd=network,
        power_usd_per_year=it_kw * p.pue * HOURS_PER_YEAR * p.electricity_usd_per_kwh,
        facility_usd_per_year=it_kw * p.facility_usd_per_kw_year,
        maintenance_usd_per_year=(gpus + hosts + network) * p.maintenance_fraction_per_year,
        depreciation_years=p.depreciation_years,
        it_kw=it_kw,
    )


def cloud_rate(gpu: GPU, pricing: str, p: CostParams) -> float | None:
    """$/GPU-hour for a rental pricing; reserved/spot fall back to on-demand minus the discount."""
    pr = gpu.price
    od = pr.cloud_usd_per_gpu_hour
    if pricing == "on-demand":
        return od
    if pricing == "reserved":
        return pr.cloud_reserved_usd_per_gpu_hour or (od * (1 - p.reserved_discount) if od else None)
    if pricing == "spot":
        return pr.cloud_spot_usd_per_gpu_hour or (od * (1 - p.spot_discount) if od else None)
    raise UsageError(f"pricing must be one of {', '.join(PRICINGS)}; got {pricing!r}")


def usd_per_hour(hw: Hardware, pricing: str, p: CostParams) -> float | None:
    """What running `hw` costs per hour under a pricing (owned: amortized TCO)."""
    if pricing == "owned":
        own = owned_cost(hw, p)
        return own.usd_per_hour if own else None
    rate = cloud_rate(hw.gpu, pricing, p)
    return None if rate is None else rate * hw.count


@dataclass(frozen=True)
class TcoComparison:
    """Buy versus rent for `years`, the GPUs busy `utilization` of the time when rented."""

    hardware: Hardware
    years: float
    busy_fraction: float
    owned: OwnedCost | None
    rent: dict[str, float | None]  # pricing -> total USD over the horizon

    def as_dict(self) -> dict[str, object]:
        own_total = self.owned.total(self.years) if self.owned else None
        return {
            "gpu": self.hardware.gpu.id,
            "count": self.hardware.count,
            "nodes": self.hardware.nodes,
            "years": self.years,
            "busy_fraction": self.busy_fraction,
            "owned": None if self.owned is None else {**self.owned.as_dict(), "total_usd": own_total},
            "rent_total_usd": self.rent,
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
    hours = years * HOURS_PER_YEAR * busy_fraction
    rent = {}
    for pricing in ("on-demand", "reserved", "spot"):
        rate = cloud_rate(hw.gpu, pricing, p)
        rent[pricing] = None if rate is None else rate * hw.count * hours
    return TcoComparison(hw, years, busy_fraction, owned_cost(hw, p), rent)
