"""The Python API behind both front doors (CLI and web): loose options in, typed results out."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuwise import clock
from gpuwise.catalog import Catalog, load_catalog
from gpuwise.catalog.schema import FxRate, Offer
from gpuwise.errors import UsageError, check_unknown
from gpuwise.estimate.bands import DEFAULT_LEVEL
from gpuwise.estimate.cost import CostParams, TcoComparison
from gpuwise.estimate.offers import Market, market_from_catalog, money
from gpuwise.estimate.rates import Calibration
from gpuwise.estimate.run import Estimate, LatencyTarget, estimate
from gpuwise.workload import Hardware, TrainingJob, Workload, build_hardware, build_workload
from gpuwise.workload.requirements import build_requirements, latency_goals, price_filters
from gpuwise.workload.schema import PriceFields, TargetFields, layout_names, names, validate

if TYPE_CHECKING:  # the planner is imported when a plan is made: `estimate` does not pay for it
    from gpuwise.calibration.fit import Match
    from gpuwise.plan import PlanResult

UPLOADED_CONFIG = "config.json"  # how a command names a model given as an architecture (a web upload)


def make_plan(
    workload: Mapping[str, Any],
    requirements: Mapping[str, Any],
    costs: Mapping[str, Any] | None = None,
    calibrations: Mapping[str, Calibration] | None = None,
    confine_files: bool = False,
    show: int = 5,
) -> PlanResult:
    """Plan a workload against requirements; the hardware is what the plan chooses. `calibrations`
    (GPU id -> measured rates, see `measured_calibrations`) replace the cited efficiencies.
    `confine_files` (the web door): a `prices` file must be a YAML file below the working directory.
    `show`: the rows a reader sees, each confirmed by the same model as the chosen one.
    The result is complete and frozen: prices, offers, each candidate's command, every reason."""
    cat = load_catalog()
    work_opts = dict(workload)
    for key in layout_names():  # the search chooses the layout
        work_opts.pop(key, None)
    req = build_requirements(requirements, cat)
    base = build_workload(work_opts, cat)
    serving_layout = not isinstance(base, TrainingJob) and {"ep", "attention_dp"} & workload.keys()
    asked = build_workload(dict(workload), cat).parallel if serving_layout else None
    if asked is not None and (asked.attention_dp or asked.ep > 1):
        raise UsageError(
            "plan does not search expert-parallel or attention-data-parallel serving layouts yet: drop --ep and "
            "--attention-dp to let it choose a layout, or time that layout with `gpuwise estimate`"
        )
    variants = [(base, work_opts)]
    if req.methods:
        if not isinstance(base, TrainingJob):
            raise UsageError("--methods compares training methods; this workload is serving")
        variants = []
        for method in req.methods:
            opts = {**work_opts, "method": method, "task": "finetune"}
            opts.pop("weights_dtype", None)
            variants.append((build_workload(opts, cat), opts))
    if req.qps is not None and isinstance(base, TrainingJob):
        raise UsageError("--qps and latency targets apply to serving workloads (--task inference)")
    if isinstance(base, TrainingJob) and req.deadline_seconds and not (base.tokens or base.samples):
        raise UsageError("a deadline needs the amount of training: --tokens or --samples")
    check_pricing(req.pricing, base)
    prices = _confined(req.prices) if confine_files else req.prices
    params = CostParams.from_catalog(cat, costs, plan_market(cat, prices, **req.price_filters()))
    from gpuwise.plan import plan

    options = [_command_options(o, cat) for _, o in variants]
    targets = {**_targets(requirements), **({"calibrated": True} if calibrations else {})}
    return plan([w for w, _ in variants], req, cat, params, calibrations, options, targets, show)


def _command_options(opts: Mapping[str, Any], cat: Catalog | None = None) -> dict[str, Any]:
    """The options a candidate's `gpuwise estimate` line repeats: a model given as an architecture
    is named by its catalog id where it is the catalog's (the web door resolves ids; `cat` given),
    else as the file `estimate --model` reads, UPLOADED_CONFIG (an uploaded config.json)."""
    from gpuwise.catalog.loader import arch_of

    model = opts.get("model")
    if model is None or isinstance(model, str):
        return dict(opts)
    name = getattr(model, "name", None)
    known = cat is not None and isinstance(name, str) and name in cat.models and arch_of(cat.models[name]) == model
    return {**opts, "model": name if known else UPLOADED_CONFIG}


def _targets(requirements: Mapping[str, Any]) -> dict[str, Any]:
    """The requirement options each candidate's command repeats: the prices always (so that it
    reproduces the cost), the serving target unless it is a bare --qps (estimate sizes replicas only
    for a latency target: without one, the load is the plan's alone)."""
    given = {str(k).replace("-", "_"): v for k, v in requirements.items() if v is not None}
    prices = {k: v for k, v in given.items() if k in names("prices")}
    target_keys = names("target")
    try:
        latency_target({k: v for k, v in given.items() if k in target_keys})
    except UsageError:
        return prices
    return given


# ----- prices: the offers behind every rental price ---------------------------------------------
def user_prices_file() -> Path:
    """$XDG_CONFIG_HOME/gpuwise/prices.yaml (~/.config/gpuwise/prices.yaml): a team's standing rates."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gpuwise" / "prices.yaml"


def _confined(path: str | None) -> Path | None:
    """A `prices` path a remote request may name: a .yaml/.yml file below the working directory."""
    if path is None:
        return None
    p = Path(path)
    root = Path.cwd().resolve()
    inside = not p.is_absolute() and ".." not in p.parts and root in (root / p).resolve().parents
    if not inside or p.suffix not in (".yaml", ".yml"):
        raise UsageError("prices: give a .yaml file below the server's working directory (relative, no '..')")
    return root / p


def own_offers(path: str | Path | None = None) -> tuple[Offer, ...]:
    """The user config file's offers, then `path`'s on top (each validated; a bad one is a clear error)."""
    from gpuwise.catalog.loader import parse_offers
    from gpuwise.estimate.offers import merge_offers
    from gpuwise.files import read_yaml

    found: tuple[Offer, ...] = ()
    for p in (user_prices_file(), path):
        if p is None or (p == user_prices_file() and not Path(p).is_file()):
            continue
        found = merge_offers(found, parse_offers(read_yaml(p), str(p)))
    return found


def plan_market(cat: Catalog, prices: str | Path | None = None, **filters: Any) -> Market:
    """The catalog's offers with the team's own, restricted as the user asked (providers, exclude,
    regions, max_age_months, offer_classes, allow_indicative: gpuwise.estimate.offer_filter), as of today."""
    return market_from_catalog(cat, clock.today(), own_offers(prices), **filters)


# ----- the offers behind every price, and buying against renting --------------------------------
def _offer_row(o: Offer, market: Market, cat: Catalog, current: bool = True) -> dict[str, Any]:
    """One offer as `gpuwise prices --json` lists it: as written, its USD per hour and per GPU-hour,
    and whether it is the team's own, undated, stale, indicative, superseded or usable by a plan."""
    from gpuwise.estimate.offers import age_months, fabric_dict, instance_key

    usd = market.usd(o)
    age = age_months(o, market.today)
    row = {k: v for k, v in asdict(o).items() if k not in ("price_per_hour", "note", "fabric", "cluster")}
    return {
        **row,
        "fabric": fabric_dict(o),
        "cluster_max_gpus": None if o.cluster is None else o.cluster.max_gpus,
        "price": o.price_per_hour,
        "usd_per_hour": round(usd, 6),
        "usd_per_gpu_hour": round(usd / o.gpus_per_instance, 6),
        "in_catalog": o.gpu in cat.gpus,
        "own": instance_key(o) in market.own_keys,
        "undated": o.date is None,
        "age_months": None if age is None else round(age, 1),
        "stale": not market.fresh(o),  # older than 12 months or undated: the planner prefers a dated one
        "superseded": not current,  # a newer price of the same instance replaces it
        "usable": current and market.admits(o),  # may decide a plan under these filters
        "note": o.note,
    }


def price_rows(
    gpu: str | None = None,
    price_model: str | None = None,
    prices: Path | None = None,
    include_unavailable: bool = True,
    include_superseded: bool = True,
    **filters: Any,
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], dict[str, Any]]:
    """(offers as JSON rows, the cheapest usable offer per GPU model, the fx rates). `filters` as a
    plan takes them (providers, exclude, regions, max_age_months, offer_classes, allow_indicative):
    the same filter decides what is listed and what a plan may use. Cheapest is per GPU-hour in USD of
    the price model asked for (on-demand by default), a dated offer before a stale one, as the
    planner picks; indicative and undated prices are listed but never cheapest unless allowed."""
    from gpuwise.estimate.offers import PRICE_MODELS

    cat = load_catalog()
    if gpu is not None and gpu not in cat.gpus and gpu not in {o.gpu for o in cat.offers}:
        cat.gpu(gpu)  # raises with "did you mean"
    if price_model is not None and price_model not in PRICE_MODELS:
        raise UsageError(f"--price-model must be one of {', '.join(PRICE_MODELS)}; got {price_model!r}")
    market = plan_market(cat, prices, **filters)
    listed = [(o, True) for o in market.offers] + [(o, False) for o in market.superseded if include_superseded]
    rows: list[dict[str, Any]] = []
    for o, current in listed:
        if (gpu and o.gpu != gpu) or (price_model and o.price_model != price_model):
            continue
        if not (market.filter.place(o) and market.filter.recent(o, market.today)):
            continue
        if include_unavailable or o.available:
            rows.append(_offer_row(o, market, cat, current))
    cheapest: dict[str, dict[str, Any]] = {}
    ranked = (r for r in rows if r["usable"] and r["price_model"] == (price_model or "on-demand"))
    for r in sorted(ranked, key=lambda r: (r["stale"], r["usd_per_gpu_hour"])):
        cheapest.setdefault(r["gpu"], r)  # as the planner picks: a dated offer first, then the price
    fx = {k: asdict(v) for k, v in cat.fx.items()}
    return rows, cheapest, fx


def gpu_records(
    vendor: str | None = None,
    architecture: str | None = None,
    min_memory: str | int | None = None,
    sort: str = "name",
    descending: bool = False,
) -> list[dict[str, Any]]:
    """The GPU catalog as `gpus --json`, `GET /api/gpus` and the web GPUs page list it: each entry's
    rental price is the cheapest usable on-demand offer of offers.yaml, the one `prices` marks and
    a plan would rent (one source of prices for every door)."""
    from gpuwise.catalog.query import filter_gpus
    from gpuwise.catalog.records import gpu_record

    cat = load_catalog()
    cheapest = price_rows(include_superseded=False)[1]
    rates = {g: r["usd_per_gpu_hour"] for g, r in cheapest.items()}
    rows = filter_gpus(cat, vendor, architecture, min_memory, sort, descending, cloud=rates)
    return [gpu_record(g, cat, cheapest.get(g.id)) for g in rows]


@dataclass(frozen=True, slots=True)
class TcoTable:
    """Buy against rent for each configuration over the same horizon, with the parameters and the
    --currency rate they were priced at."""

    comparisons: tuple[TcoComparison, ...]
    params: CostParams
    fx: FxRate | None

    def rows(self) -> list[dict[str, Any]]:
        """Each comparison as `gpuwise tco --json` lists it, its totals also in --currency."""
        out = []
        for c in self.comparisons:
            r = c.as_dict()
            r["currency"] = money(self.fx, **{f"rent_{k}": v for k, v in r["rent_total_usd"].items()})
            r["currency"]["own_total"] = money(self.fx, t=(r["owned"] or {}).get("total_usd"))["t"]
            out.append(r)
        return out

    def as_dict(self) -> dict[str, Any]:
        """`gpuwise tco --json` and `GET /api/tco`: the parameters, the currency and every row."""
        p = self.params
        parameters = {f.name: getattr(p, f.name) for f in fields(p) if f.name not in ("market", "servers")}
        return {"parameters": parameters, "currency": money(self.fx), "configurations": self.rows()}


def tco(
    gpus: Iterable[str],
    years: float = 3.0,
    busy: float = 1.0,
    costs: str | Path | None = None,
    currency: str = "USD",
    prices: str | Path | None = None,
    **filters: Any,
) -> TcoTable:
    """Buy versus rent of each `ID:N` over `years`, rented `busy` of the time; `costs` a YAML file
    overriding costs.yaml, rentals from the catalog's and the team's offers (`prices`) that pass
    `filters` (as a plan takes them: providers, exclude, regions, max_age_months, offer_classes,
    allow_indicative)."""
    from gpuwise.estimate.cost import compare
    from gpuwise.estimate.offers import fx_rate

    cat = load_catalog()
    fx = fx_rate(cat.fx, currency)
    overrides, servers = _costs_file(costs, cat) if costs else ({}, {})
    params = CostParams.from_catalog(cat, overrides, plan_market(cat, prices, **filters), servers)
    return TcoTable(tuple(compare(build_hardware(g, cat), years, params, busy) for g in gpus), params, fx)


COSTS_FILE_KEYS = ("costs", "servers")


def _costs_file(path: str | Path, cat: Catalog) -> tuple[dict[str, Any], dict[str, Any]]:
    """A `tco --costs` file: `costs:` (parameter overrides, as in costs.yaml) and `servers:` (the
    team's server quotes, gpuwise.catalog.loader.parse_server_quotes); a bare mapping is overrides."""
    from gpuwise.catalog.loader import parse_server_quotes
    from gpuwise.files import read_yaml

    doc = read_yaml(path) or {}
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: a costs file is a mapping with {' and/or '.join(COSTS_FILE_KEYS)}")
    if not any(k in doc for k in COSTS_FILE_KEYS):
        return doc, {}
    check_unknown(doc, frozenset(COSTS_FILE_KEYS), "costs file section")
    return doc.get("costs") or {}, parse_server_quotes(doc.get("servers") or {}, str(path), cat)


def money_block(currency: str, cost: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An estimate's cost in `currency` at the catalog's dated rate (None for USD or no cost)."""
    from gpuwise.estimate.offers import fx_rate, money_of_cost

    rate = fx_rate(load_catalog().fx, currency)
    if rate is None or not cost:
        return None
    return money_of_cost(rate, cost)


def _estimate_inputs(
    workload: Mapping[str, Any],
    hardware: Mapping[str, Any],
    costs: Mapping[str, Any] | None = None,
    confine_files: bool = False,
) -> tuple[Workload, Hardware, Catalog, dict[str, Any], bool]:
    """The workload, hardware and catalog of an estimate, from loose options, the rest of
    `estimate`'s arguments (serving target, confidence, pricing), and whether the layout is searched
    (--layout auto)."""
    cat = load_catalog()
    hw_opts = {k: v for k, v in hardware.items() if v is not None}
    target_keys = names("target")
    target_opts = {k: hw_opts.pop(k) for k in list(hw_opts) if k in target_keys}
    price = validate(PriceFields, {k: hw_opts.pop(k) for k in list(hw_opts) if k in names("prices")})
    for key in ("growth", *names("plan")):  # a plan file's own requirements: nothing to estimate
        hw_opts.pop(key, None)
    check_unknown(hw_opts, names("hardware"), "hardware")
    work = build_workload(workload, cat)  # validates --layout too (a training option: the task defaults to one)
    auto = _layout_mode(workload) == "auto"
    if not hw_opts.get("gpu"):
        raise UsageError("give the hardware with --gpu ID[:N], e.g. --gpu a100-80gb-sxm:8")
    hw = build_hardware(
        str(hw_opts["gpu"]),
        cat,
        hw_opts.get("gpus_per_node"),
        hw_opts.get("network"),
        default_count=work.parallel.model_parallel,
        power_cap=hw_opts.get("power_cap"),
    )
    target = latency_target(target_opts)  # validates every target option, --confidence's range too
    level = validate(TargetFields, {"confidence": target_opts["confidence"]}) if "confidence" in target_opts else None
    confidence = DEFAULT_LEVEL if level is None or level.confidence is None else level.confidence
    pricing = price.pricing or "on-demand"
    check_pricing(pricing, work)
    params = None
    filters = price_filters(price)
    if pricing != "on-demand" or costs or price.prices or any(filters.values()):
        prices = _confined(price.prices) if confine_files else price.prices
        market = plan_market(cat, prices, **filters)
        params = CostParams.from_catalog(cat, costs, market)
    rest = {"target": target, "confidence": confidence, "pricing": pricing, "params": params, "years": price.years}
    return work, hw, cat, rest, auto


def make_estimate(
    workload: Mapping[str, Any],
    hardware: Mapping[str, Any],
    calibrations: Mapping[str, Calibration] | None = None,
    costs: Mapping[str, Any] | None = None,
    confine_files: bool = False,
) -> Estimate:
    """Estimate a workload on the hardware `hardware['gpu']` names; `hardware` may also carry
    `gpus_per_node`, `network`, a serving target (`qps` with `ttft_ms`, `tpot_ms`, `e2e_ms` at
    `percentile`, or the aliases `p95_ms`/`p99_ms`; `confidence`) and the prices (`pricing`, `years`,
    `prices`, `providers`, `exclude_providers`), priced as a plan prices it with `costs` overrides.
    `confine_files` (the web door): a `prices` file must be a YAML file below the working directory."""
    work, hw, cat, rest, auto = _estimate_inputs(workload, hardware, costs, confine_files)
    calibration = (calibrations or {}).get(hw.gpu.id)
    # the prices and the confidence the search sized memory at, repeated in its command
    prices = {k: v for k, v in hardware.items() if v is not None and (k in names("prices") or k == "confidence")}
    searched = _searched_layout(work, hw, cat, (calibration, rest["confidence"]), workload, prices) if auto else None
    est = estimate(searched[0] if searched else work, hw, cat, calibration=calibration, **rest)
    return replace(est, notes=(searched[1], *est.notes)) if searched else est


def _layout_mode(workload: Mapping[str, Any]) -> str:
    """--layout: `auto` refuses layout options beside it (the search chooses them all; a micro-batch
    stays the batch per GPU as in a plan, searched only where --global-batch is given)."""
    mode = str(workload.get("layout") or "given").lower()
    chosen = (layout_names() - {"layout"}) | {"sequence_parallel"}  # on with tensor parallelism, as plan sets it
    given = sorted(k for k in chosen if workload.get(k) is not None)
    if mode == "auto" and given:
        flags = ", ".join("--" + k.replace("_", "-") for k in given)
        raise UsageError(
            f"--layout auto chooses the layout itself: drop {flags} (a flag or a key of the workload file), "
            "or drop --layout auto"
        )
    return mode


def _searched_layout(
    work: Workload,
    hw: Hardware,
    cat: Catalog,
    rated: tuple[Calibration | None, float],
    options: Mapping[str, Any],
    prices: Mapping[str, Any],
) -> tuple[Workload, str]:
    """--layout auto: the layout a plan chooses on exactly `hw` (plan.layouts.best_layout at the
    bench calibration given, its memory sized at the band's high end at the level where the plan
    sizes the batch), and the note that names it with the command that reproduces it (`prices`:
    the price options it repeats); the layout as written, and why, where none fits."""
    from gpuwise.estimate.rates import compute_rates, power_capped
    from gpuwise.plan.command import estimate_command
    from gpuwise.plan.layouts import best_layout
    from gpuwise.workload.precision import on_gpu

    calibration, level = rated
    if not isinstance(work, TrainingJob):  # the builder refuses --layout for serving first
        raise UsageError("--layout auto searches a training layout")
    job = on_gpu(work, hw.gpu)
    rates = power_capped(compute_rates(hw.gpu, job.precision, cat, calibration), hw.power_cap, cat)
    choice = best_layout(job, hw, cat, rates, level=level)
    if choice.job is None:
        return work, f"layout: --layout auto found no layout that fits on {hw.count} x {hw.gpu.id}; timed as written"
    options = _command_options({k: v for k, v in options.items() if k != "layout"}, cat)
    line = estimate_command(choice.job, hw, options, prices, planned=job)
    return choice.job, (
        f"layout: the fastest that fits on {hw.count} x {hw.gpu.id}, as a plan searches it (--layout auto, "
        f"{choice.timed} layouts timed); the same estimate: {line}"
    )


def calibrated_estimate(
    workload: Mapping[str, Any],
    hardware: Mapping[str, Any],
    calibrations: Mapping[str, Calibration] | None,
    measurements: Sequence[Any],
    costs: Mapping[str, Any] | None = None,
) -> tuple[Estimate, Match]:
    """`make_estimate` calibrated on the team's imported `measurements` (see `team_measurements`):
    the nearest run of this model on this GPU, and the nccl-tests run of a node of this size, on
    top of the bench rates in `calibrations`; the bands of the figures it calibrates narrow to
    the measured spread. The match says what was used, or why nothing was."""
    from gpuwise.calibration.fit import calibration_of, for_workload
    from gpuwise.calibration.report import calibration_notes

    work, hw, cat, rest, auto = _estimate_inputs(workload, hardware, costs)
    if auto:
        raise UsageError("--layout auto with --calibrated: time the searched layout's command with --calibrated")
    base = (calibrations or {}).get(hw.gpu.id)
    match = for_workload(measurements, work, hw.gpu.id, hw.gpus_per_node, cat, base, rest["confidence"])
    est = estimate(work, hw, cat, calibration=calibration_of(match) or base, **rest)
    return replace(est, notes=(*est.notes, *calibration_notes(match))), match


def team_calibrations(
    workload: Mapping[str, Any],
    measurements: Sequence[Any],
    calibrations: Mapping[str, Calibration] | None = None,
    requirements: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Calibration], dict[str, Match]]:
    """Per GPU the team measured this model on: the calibration a plan takes (rates fitted to the
    run nearest this workload; the link of a node of the GPU's usual size; bands at the plan's
    --confidence), on top of the bench rates. A candidate's `command` repeats --calibrated, which
    finds the same run."""
    from gpuwise.calibration.fit import calibration_of, for_workload

    cat = load_catalog()
    work = build_workload({k: v for k, v in workload.items() if k not in layout_names()}, cat)
    level = build_requirements(requirements or {}, cat).confidence
    cals = dict(calibrations or {})
    matches: dict[str, Match] = {}
    for gpu_id in sorted({m.gpu_id for m in measurements if m.gpu_id in cat.gpus}):
        gpu = cat.gpus[gpu_id]
        match = for_workload(measurements, work, gpu_id, gpu.node_gpus, cat, cals.get(gpu_id), level)
        found = calibration_of(match)
        if found is not None:
            cals[gpu_id], matches[gpu_id] = found, match
    return cals, matches


def team_measurements(db: str | None = None) -> list[Any]:
    """The team's imported measurements (`gpuwise calibrate import`) in the store."""
    from gpuwise.store import open_store
    from gpuwise.store.imported import load

    with open_store(db) as store:
        return load(store)


def check_pricing(pricing: str, work: Workload) -> None:
    """Spot capacity prices checkpointed training only (a plan and an estimate refuse it alike)."""
    if pricing == "spot" and not isinstance(work, TrainingJob):
        raise UsageError(
            "--pricing spot: spot capacity can be reclaimed at any time; it prices checkpointed training, not serving"
        )


def latency_target(options: Mapping[str, Any]) -> LatencyTarget | None:
    """`qps` with `ttft_ms`, `tpot_ms` and/or `e2e_ms` at `percentile` (default 99; `p95_ms`/`p99_ms`
    are end-to-end aliases) -> a LatencyTarget; no target -> None. The same rules as a plan's."""
    t = validate(TargetFields, {k: v for k, v in options.items() if v is not None})
    goals = latency_goals(t)
    if goals is None:
        if t.qps is not None:
            raise UsageError("a serving target needs --qps and one of --ttft-ms, --tpot-ms or --e2e-ms")
        return None
    assert t.qps is not None  # latency_goals requires it
    return LatencyTarget(
        qps=t.qps,
        percentile=goals.percentile,
        seconds=goals.e2e_seconds,
        ttft_seconds=goals.ttft_seconds,
        tpot_seconds=goals.tpot_seconds,
    )


def measured_calibrations(db: str | None = None) -> dict[str, Calibration]:
    """Measured rates per GPU model from the store's full (non --quick) benchmark runs."""
    from gpuwise.bench.calibrate import calibrations
    from gpuwise.store import open_store

    with open_store(db) as store:
        return calibrations(store.results(include_quick=False))
