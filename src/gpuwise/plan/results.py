"""What a plan returns: frozen, typed and complete when `plan()` returns (prices, the command that
reproduces each candidate, every reason), so that a front door only reads and renders it.

Reasons are data: a code with its parameters (`Reason`), never words. The words, in the reader's
language, are the edges' (gpuwise.i18n); the core imports none of them. The JSON form is the
edges' too (gpuwise.report.as_json).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Union

from gpuwise.catalog import embedding_sharded
from gpuwise.estimate.cost import HOURS_PER_MONTH, fleet_cost
from gpuwise.estimate.offers import money_of_cost
from gpuwise.workload import TrainingJob, Workload
from gpuwise.workload.requirements import Requirements

if TYPE_CHECKING:
    from gpuwise.catalog.schema import FxRate
    from gpuwise.estimate.offers import Quote
    from gpuwise.estimate.reliability import Reliability
    from gpuwise.estimate.run import Estimate
    from gpuwise.estimate.serving import ServingPlan

__all__ = [
    "Candidate",
    "Code",
    "GpuOnly",
    "Growth",
    "Meet",
    "Meets",
    "PipelineUpgrade",
    "PlanResult",
    "Reason",
    "Rejection",
    "Serving",
]


class Code(StrEnum):
    """Every reason the planner gives; its parameters are named beside it. The edges give each its
    words (gpuwise.i18n has a sentence for every code in every language)."""

    # why a GPU type is ruled out
    NO_COMPUTE_FIGURES = "compute.no_figures"
    NO_TENSOR_CORES = "compute.no_tensor_cores"  # precision
    NOT_ON_VENDOR = "platform.not_on_vendor"  # engine, vendors, gpu, runs (engine keys that run there)
    NO_NVFP4 = "platform.no_nvfp4"  # engine (no NVFP4 kernel of it on the GPU); who does: fp4, weight_only
    NO_PRICE = "price.no_offer"  # gpu, pricing, detail (the offers module's sentence)
    NO_PRICED_SIZE = "price.no_node_size"  # pricing, gpu, limit, largest (the most GPUs one offer delivers)
    INDICATIVE_ONLY = "price.indicative_only"  # gpu, pricing, offers (indicative or undated offers set aside)
    ABOVE_BEST = "cost.above_best"  # bound_usd, best_usd
    COUNTS_PRUNED = "cost.counts_pruned"  # limit (every count misses the deadline or costs more, at its roofline)
    DOES_NOT_FIT = "memory.does_not_fit"  # limit, need_bytes, capacity_bytes
    NO_LAYOUT = "memory.no_layout"
    WEIGHTS_DO_NOT_FIT = "memory.weights_do_not_fit"
    NO_KV_CACHE = "memory.no_kv_cache"  # tp, gpu
    IDLE_REPLICA_MISSES = "latency.idle_replica_misses"  # tp, gpu, metric, value_seconds, percentile, limit_seconds
    MISSES = "requirements.missed"  # missed (requirement keys), fastest (a FASTEST_SEEN or None)
    FASTEST_SEEN = "plan.fastest_seen"  # seconds, label, bottleneck
    ERROR = "plan.error"  # message (an estimator's refusal, as it words it)
    # why a candidate is what it is, and why it wins or loses
    CHEAPEST = "plan.cheapest"
    FASTEST = "plan.fastest"
    ADAPTER = "method.adapter"  # method, dtype, need_bytes, capacity_bytes
    LAYOUT = "layout.fastest_fit"  # tp, sequence_parallel, pp, dp, expert, zero, recompute, micro_batch, accumulation, count, gpu
    TABLES_LAYOUT = "layout.embedding_sharded"  # count, gpu, table_params, dense_params, micro_batch, accumulation
    SHARDED_ONE_RANK = "layout.sharded_one_rank"  # zero, count, gpu: a sharding wrapper on one data-parallel rank
    PLAIN_DDP = "layout.plain_ddp"  # model, count: no stack named, a model its trainers run under plain DDP
    DDP_DOES_NOT_FIT = "layout.ddp_does_not_fit"  # zero, count, gpu: plain DDP fits nowhere on this count
    BATCH_SIZED = "layout.batch_sized"  # micro_batch, global_batch, bound, model, source, tolerance (no batch named)
    SPEED = "speed.rate"  # rate (low, high at level: its band, or None), unit, mfu, bottleneck
    DATA_WAIT = "pipeline.gpus_wait"
    HOSTS_FOR_DATA = "pipeline.hosts_for_data"  # nodes: GPUs bought for their hosts' loaders, ranked last
    GOODPUT = "reliability.goodput"  # mtbf_seconds, interval_seconds, write_seconds, goodput
    AT_SCALE = "reliability.at_scale"  # gpus, architecture, ceiling, mfu, run, added (fraction of the time)
    REPLICAS = "serving.replicas"  # replicas, batch, capacity
    REDUNDANCY = "serving.redundancy"  # n, replicas, nodes
    MISSES_ONE = "requirement.missed"  # requirement, why (a Reason or None)
    COSTLIER = "cost.costlier"  # ratio, term (one of the TERM_ reasons)
    TERM_PRICE = "cost.term.price"  # price_usd, chosen_usd (per GPU-hour)
    TERM_SPEED = "cost.term.speed"  # rate, chosen, unit (per GPU)
    TERM_OVERHEAD = "cost.term.overhead"  # share, chosen
    TERM_SIZE = "cost.term.size"  # gpus, chosen
    MORE_GPUS = "cost.more_gpus"  # gpus, chosen
    PIPELINE = "pipeline.upgrade"  # cores, storage, format, cost_usd, gpu_only_usd, gpu_only_label
    NONE_SIMULATED = "latency.none_simulated"  # tried
    # why a requirement is met or not (Meet.why)
    NEEDS_AMOUNT = "deadline.needs_amount"
    NO_NODE_OFFER = "price.no_node_offer"  # pricing
    ANALYTIC_FLOOR = "serving.analytic_floor"
    AT_CONFIDENCE = "band.misses_at_confidence"  # value, high, limit, level (met at the estimate only)
    CAPACITY_AT_CONFIDENCE = "band.capacity_at_confidence"  # value, low, limit, level (requests/s)
    OOM_RISK = "memory.oom_risk"  # high_bytes, capacity_bytes, level
    SPARES = "serving.spares"  # needed, n, nodes
    PACKED = "serving.packed"  # replicas, instances, per_instance (replicas sharing rented instances)
    PACKED_OWNED = "serving.packed_owned"  # replicas, servers, per_server (replicas sharing owned servers)
    # the growth check
    GROWTH_HOLDS = "growth.holds"  # describe
    GROWTH_BREAKS = "growth.breaks"  # describe, count, gpu, path (a Reason)
    GROWTH_CANNOT_SERVE = "growth.cannot_serve"  # gpu, reason (a Reason)
    GROWTH_NO_FIT = "growth.does_not_fit"  # describe, gpu, reason (a Reason)
    GROWTH_FITS_REPLICAS = "growth.fits_replicas"  # describe, replicas
    GROWTH_PATH_REPLICAS = "growth.path_replicas"  # replicas, count, gpu
    GROWTH_NEEDS_REPLICAS = "growth.needs_replicas"  # describe, replicas, count, gpu, today
    GROWTH_SCALE_OUT = "growth.scale_out"  # label, gpus
    GROWTH_LARGER_GPU = "growth.larger_gpu"
    # notes under a plan
    NOTE_MEASURED = "note.measured"  # gpus
    NOTE_SIMULATED = "note.simulated_types"  # n
    NOTE_DISAGG_NONE = "note.disaggregated_none"  # count, gpu
    NOTE_DISAGG = "note.disaggregated"  # count, gpu, prefill, decode, gpus, verdict, colocated, percentile, ttft/kv/tpot/tpot0_seconds
    RANKING_MAY_FLIP = "price.ranking_may_flip"  # first, low, high, offers, other
    STALE_PRICES = "price.stale"  # months, instances


Param = Union[str, int, float, bool, None, tuple[str, ...], "Reason"]


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason as data: a code and its parameters (SI units, ids as the catalog writes them). The
    same in every language; gpuwise.i18n words it."""

    code: Code
    items: tuple[tuple[str, Param], ...] = ()

    @classmethod
    def of(cls, code: Code, **params: Param) -> Reason:
        return cls(code, tuple(params.items()))

    @property
    def params(self) -> dict[str, Param]:
        return dict(self.items)

    def get(self, key: str, default: Param = None) -> Param:
        return next((v for k, v in self.items if k == key), default)


@dataclass(frozen=True, slots=True)
class Meet:
    """One requirement: met or not, the figure and its limit, by how much, and why (when the figure
    alone does not say). A figure with a band carries its pessimistic end at the plan's confidence
    (`high` for a time or memory, `low` for a throughput): the requirement is met there, and the
    margin is taken there."""

    ok: bool
    value: float | None = None
    limit: float | None = None
    margin: float | None = None
    why: Reason | None = None
    high: float | None = None
    low: float | None = None
    level: float | None = None


@dataclass(frozen=True, slots=True)
class Meets(Mapping[str, Meet]):
    """The requirements a candidate was checked against, in the order they were checked."""

    entries: tuple[tuple[str, Meet], ...] = ()

    def __getitem__(self, key: str) -> Meet:
        for k, m in self.entries:
            if k == key:
                return m
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def put(self, key: str, meet: Meet) -> Meets:
        """These meets with `key` set to `meet` (in place when it was there, else last)."""
        if key in self:
            return Meets(tuple((k, meet if k == key else m) for k, m in self.entries))
        return Meets((*self.entries, (key, meet)))

    def missed(self) -> list[str]:
        return [k for k, m in self.entries if not m.ok]


@dataclass(frozen=True, slots=True)
class Growth:
    """Does today's configuration hold for the workload six months from now; if not, the path."""

    holds: bool
    summary: Reason
    upgrade_path: Reason | None = None


@dataclass(frozen=True, slots=True)
class GpuOnly:
    """The cheapest answer that buys GPUs instead of upgrading the data pipeline."""

    label: str
    gpus: int
    cost: float | None


@dataclass(frozen=True, slots=True)
class PipelineUpgrade:
    """A host-side data-pipeline design a training candidate carries, and what it adds."""

    loader_cores_per_node: int
    storage: str  # current | object-store | parallel-fs | nvme-raid
    format: str  # as-is | preprocessed | gpu-decode
    read_bandwidth_per_node: float
    decode_seconds: float
    extra_usd_per_hour: float
    staging_seconds: float
    nodes: int
    gpu_only: GpuOnly | None = None


@dataclass(frozen=True, slots=True)
class Serving:
    """A serving candidate's replica layout: the (tp, batch) option searched, its capacity, and the
    simulation that confirmed it (None: the analytic floor)."""

    tp: int
    batch: int
    max_batch: int
    capacity_rps_per_replica: float
    latency_seconds: float
    replicas: int
    basis: str  # how the replicas were sized
    simulated: ServingPlan | None = None
    redundancy: int = 0  # --redundancy: spares beyond the replicas the target needs
    replicas_needed: int | None = None
    nodes: int | None = None

    def percentile_seconds(self, percentile: float) -> float | None:
        """The simulated end-to-end latency at `percentile` (None before simulation)."""
        sim = self.simulated
        return None if sim is None else sim.percentiles["e2e"].get(f"p{percentile:g}")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One configuration the search found: its estimate, price, what it meets and why."""

    est: Estimate
    usd_per_hour: float | None  # one replica / the whole training configuration
    replicas: int = 1
    serving: Serving | None = None
    meets: Meets = Meets()
    why: tuple[Reason, ...] = ()
    growth: Growth | None = None
    confirmed: bool = True
    owned_usd: float | None = (
        None  # pricing "owned": each replica's share of buying the (packed) fleet over the horizon
    )
    command: str | None = None  # the `gpuwise estimate ...` line that reproduces this candidate
    offer: Quote | None = None  # the offer behind the price (rented pricing)
    fx: FxRate | None = None  # --currency's dated rate (None: USD)
    pricing: str = "on-demand"
    horizon_years: float | None = None  # owned pricing: the horizon `owned_usd` covers
    pipeline: PipelineUpgrade | None = None  # training: the upgraded data pipeline
    # serving: the whole fleet an hour, its replicas packed into instances (None: usd_per_hour x replicas)
    fleet_usd_per_hour: float | None = None

    @property
    def gpus(self) -> int:
        return self.est.hardware.count * self.replicas

    @property
    def reliability(self) -> Reliability | None:
        """Training: what the run loses at its scale (the estimate's, so `estimate` says it too)."""
        return self.est.reliability

    @property
    def hourly(self) -> float | None:
        """The whole fleet (or training configuration) an hour, without the data pipeline."""
        if self.usd_per_hour is None:
            return None
        return self.usd_per_hour * self.replicas if self.fleet_usd_per_hour is None else self.fleet_usd_per_hour

    @property
    def ok(self) -> bool:
        return all(m.ok for k, m in self.meets.items() if k != "growth")

    @property
    def growth_ok(self) -> bool:
        return self.growth is None or self.growth.holds

    @property
    def hosts_for_data(self) -> bool:
        """Its GPUs wait for the user's data pipeline on more than one node: the nodes beyond the
        first were bought for their hosts' loader cores and read bandwidth, which a pipeline design
        buys directly (plan.pipeline_search). Such a plan ranks after every plan whose GPUs do the work."""
        t = self.est.training
        return (
            t is not None
            and self.pipeline is None
            and self.est.bottleneck == "data-pipeline"
            and self.est.hardware.nodes > 1
        )

    @property
    def pipeline_usd_per_hour(self) -> float:
        """What the upgraded data pipeline adds per hour of the run (0 without one)."""
        return 0.0 if self.pipeline is None else self.pipeline.extra_usd_per_hour

    @property
    def hours(self) -> float | None:
        """The run's expected wall hours: failure-free time / goodput (failure-free without a model)."""
        staging = 0.0 if self.pipeline is None else self.pipeline.staging_seconds
        if self.reliability is not None:
            return (self.reliability.expected_seconds + staging) / 3600
        t = self.est.training
        return (t.total_seconds + staging) / 3600 if t and t.total_seconds else None

    @property
    def cost(self) -> float | None:
        """What the objective ranks. Renting: the run's cost for training, a month of serving.
        Owning: the hardware's total cost over the horizon, however little of it the job uses."""
        if self.owned_usd is not None:
            extra = self.pipeline_usd_per_hour * (self.hours or 0.0)
            return self.owned_usd * self.replicas + extra
        hourly = self.hourly
        if hourly is None:
            return None
        if self.est.training is not None:
            if self.hours is not None:
                return (hourly + self.pipeline_usd_per_hour) * self.hours
            return _per_million_tokens(self)
        return hourly * HOURS_PER_MONTH

    @property
    def time(self) -> float:
        if self.est.training is not None:
            t = self.est.training
            if self.reliability is not None:
                return self.reliability.expected_seconds
            return t.total_seconds if t.total_seconds else t.step_seconds
        if self.serving is not None:
            return self.serving.latency_seconds
        return self.est.inference.latency_seconds if self.est.inference else math.inf

    @property
    def label(self) -> str:
        w, hw = self.est.workload, self.est.hardware
        par = w.parallel
        base = f"{hw.count}x {hw.gpu.id}"
        if self.replicas > 1:
            base = f"{self.replicas} x ({base})"
        layout = [f"tp{par.tp}" if par.tp > 1 else "", f"pp{par.pp}" if par.pp > 1 else ""]
        layout += [f"ep{par.ep}" if par.ep > 1 else ""]
        if isinstance(w, TrainingJob):
            layout += [
                w.method,
                "embedding-sharded" if hw.count > 1 and embedding_sharded(w.model) else "",
                f"zero{par.zero}" if par.zero else "",
                f"rc-{w.recompute}" if w.recompute != "none" else "",
                f"offload-{'+'.join(w.offload)}" if w.offload else "",
            ]
        else:
            layout += [w.weights_dtype + (f"@{w.autocast_dtype}" if w.autocast_dtype else "")]
        return base + " " + " ".join(x for x in layout if x)

    def cost_dict(self) -> dict[str, Any]:
        """The fleet's cost as JSON writes it: per hour, month and run, failures and the pipeline
        priced in, per million tokens or thousand requests, and the horizon for owned pricing."""
        t = self.est.training
        run = t.total_seconds if t is not None else None  # failure-free, as `estimate` says
        hw = self.est.hardware
        fleet = fleet_cost(self.usd_per_hour, self.replicas, hw.count, run, self.pricing, self.fleet_usd_per_hour)
        expected = self.hours if self.reliability is not None else None
        hourly = self.hourly
        return {
            **(fleet or {"usd_per_hour": None, "usd_per_month": None, "total_usd": None}),
            "expected_total_usd": None
            if expected is None or hourly is None
            else (hourly + self.pipeline_usd_per_hour) * expected,
            "pipeline_usd": None
            if self.pipeline is None or self.hours is None
            else self.pipeline.extra_usd_per_hour * self.hours,
            "usd_per_million_tokens": _per_million_tokens(self),
            "usd_per_thousand_requests": _per_thousand_requests(self),
            "owned": None
            if self.owned_usd is None
            else {
                "amortised_usd_per_month": fleet["usd_per_month"] if fleet else None,
                "horizon_years": self.horizon_years,
                "horizon_total_usd": self.owned_usd * self.replicas,
            },
        }

    def money(self) -> dict[str, Any]:
        """The fleet's cost line in --currency, with the rate's date and source (estimate.offers.money_of_cost)."""
        return money_of_cost(self.fx, self.cost_dict())


def _replica_share(c: Candidate) -> float | None:
    """One replica's share of the fleet's hour (the whole configuration's for training)."""
    if c.usd_per_hour is None or c.fleet_usd_per_hour is None:
        return c.usd_per_hour
    return c.fleet_usd_per_hour / max(c.replicas, 1)


def _per_million_tokens(c: Candidate) -> float | None:
    share = _replica_share(c)
    if share is None:
        return None
    if c.est.training is not None:
        return share / (c.est.training.tokens_per_second * 3600) * 1e6
    inf = c.est.inference
    if inf and inf.tokens_per_second:
        return share / (inf.tokens_per_second * 3600) * 1e6
    return None


def _per_thousand_requests(c: Candidate) -> float | None:
    inf = c.est.inference
    share = _replica_share(c)
    if share is None or inf is None or not inf.requests_per_second:
        return None
    return share / (inf.requests_per_second * 3600) * 1e3


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a GPU type has no candidate that meets the requirements: one reason, for one method when
    the plan compares methods and the reason is that method's (a type may have several)."""

    gpu: str
    reason: Reason
    method: str | None = None


@dataclass(frozen=True, slots=True)
class PlanResult:
    workload: Workload
    requirements: Requirements
    candidates: tuple[Candidate, ...]
    rejected: tuple[Rejection, ...]
    notes: tuple[Reason, ...] = field(default=())

    @property
    def chosen(self) -> Candidate | None:
        return self.candidates[0] if self.candidates and self.candidates[0].ok else None

    def pareto(self) -> list[Candidate]:
        """Candidates meeting every requirement that no other beats on both cost and time (those
        without a price cannot be compared on cost and are left out)."""
        priced = [(c, cost) for c in self.candidates if c.ok and (cost := c.cost) is not None]
        return [
            c
            for c, cost in priced
            if not any(
                o is not c and o_cost <= cost and o.time <= c.time and (o_cost < cost or o.time < c.time)
                for o, o_cost in priced
            )
        ]
