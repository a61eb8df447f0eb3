"""Run every estimator for one configuration (memory, then training time or serving time and
replicas) and assemble the result into the JSON contract of design.md."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.catalog.arch import image_side, vit_image_side
from gpuwise.errors import UsageError
from gpuwise.estimate.bands import (
    DEFAULT_LEVEL,
    Band,
    MeasuredSpread,
    as_json,
    figure_bands,
    serving_margins,
)
from gpuwise.estimate.comm import Topology, topology
from gpuwise.estimate.cost import CostParams, fleet_cost, owned_cost, rent_quote, why_no_price
from gpuwise.estimate.memory import SEARCH_LIMIT, largest_fitting, memory
from gpuwise.estimate.memory.breakdown import MemoryEstimate
from gpuwise.estimate.offers import Quote, default_market
from gpuwise.estimate.platform import check_platform
from gpuwise.estimate.rates import Calibration, Rates, compute_rates, power_capped
from gpuwise.estimate.reliability import Reliability, training_reliability
from gpuwise.workload import Hardware, InferenceJob, TrainingJob, Workload, check_layout, data_parallel
from gpuwise.workload.precision import on_gpu, precision_notes
from gpuwise.workload.requirements import LatencyGoals

if TYPE_CHECKING:  # each model is imported by its branch: a training estimate skips serving, and back
    from gpuwise.catalog.schema import UncertaintyTable
    from gpuwise.estimate.serving import InferenceEstimate, ServingPlan
    from gpuwise.estimate.training import TrainingEstimate


@dataclass(frozen=True, slots=True)
class LatencyTarget:
    """A serving requirement: `qps` requests per second with, at `percentile`, the end-to-end
    latency under `seconds`, the time to first token under `ttft_seconds` and the time per
    output token under `tpot_seconds` (each optional, at least one given)."""

    qps: float
    percentile: float
    seconds: float | None = None
    ttft_seconds: float | None = None
    tpot_seconds: float | None = None

    def __post_init__(self) -> None:
        limits = [v for v in (self.seconds, self.ttft_seconds, self.tpot_seconds) if v is not None]
        if self.qps <= 0 or not limits or any(v <= 0 for v in limits) or not 0 < self.percentile < 100:
            raise UsageError("a latency target needs --qps > 0 and a positive --ttft-ms, --tpot-ms or --e2e-ms")

    @property
    def goals(self) -> LatencyGoals:
        return LatencyGoals(self.percentile, self.seconds, self.ttft_seconds, self.tpot_seconds)


@dataclass(frozen=True, slots=True)
class Estimate:
    workload: Workload
    hardware: Hardware
    memory: MemoryEstimate
    largest: dict[str, int]
    interconnect: str
    training: TrainingEstimate | None = None
    inference: InferenceEstimate | None = None
    serving: ServingPlan | None = None
    usd_per_hour: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    band_table: UncertaintyTable | None = None  # catalog uncertainty.yaml (None: no bands)
    confidence: float = DEFAULT_LEVEL  # the level of every band
    pricing: str = "on-demand"  # what usd_per_hour means (owned: the amortised cost of buying)
    horizon: tuple[float, float] | None = (
        None  # owned pricing: (years, each replica's share of the fleet's total over them)
    )
    measured: MeasuredSpread | None = None  # the bands of figures calibrated on the team's run
    # serving: the replicas together an hour, packed into instances (None: usd_per_hour x replicas)
    fleet_usd_per_hour: float | None = None
    reliability: Reliability | None = None  # training with a total: what the run loses at its scale

    @property
    def bottleneck(self) -> str | None:
        if not self.memory.fits:
            return "capacity"
        if self.training:
            return self.training.bottleneck
        if self.inference:
            return self.inference.bottleneck
        return None

    @property
    def total_usd(self) -> float | None:
        if self.usd_per_hour is None or not self.training or self.training.total_seconds is None:
            return None
        return self.usd_per_hour * self.training.total_seconds / 3600

    def as_dict(self) -> dict[str, Any]:
        inference = None
        if self.inference:
            inference = self.inference.as_dict()
            inference["max_concurrency"] = self.largest.get("concurrency")
            inference["serving"] = self.serving.as_dict() if self.serving else None
        return {
            "workload": describe_workload(self.workload, self.hardware),
            "hardware": {
                "gpu": self.hardware.gpu.id,
                "count": self.hardware.count,
                "nodes": self.hardware.nodes,
                "gpus_per_node": self.hardware.gpus_per_node,
                "interconnect": self.interconnect,
                "power_cap_watts": self.hardware.power_cap,
            },
            "memory": {**self.memory.as_dict(), "largest_fitting": self.largest},
            "training": self.training.as_dict() if self.training else None,
            "inference": inference,
            "cost": self.cost(),
            "bottleneck": self.bottleneck,
            "reliability": self.reliability.as_dict(self.hardware.count) if self.reliability else None,
            "assumptions": list(dict.fromkeys([*self.memory.assumptions, *self.notes])),
            "uncertainty": as_json(self.bands(), self.figures()),
        }

    def cost(self) -> dict[str, object] | None:
        """The fleet's cost as a plan's candidate states it (one formula): per hour, month and run at
        the pricing, and for owned pricing the amortised month and the total over the horizon."""
        replicas = self.serving.replicas if self.serving else 1
        run = self.training.total_seconds if self.training else None
        fleet = fleet_cost(self.usd_per_hour, replicas, self.hardware.count, run, self.pricing, self.fleet_usd_per_hour)
        if fleet is not None and self.training is not None:
            r, hourly = self.reliability, fleet["usd_per_hour"]
            expected = hourly * r.expected_seconds / 3600 if r is not None and isinstance(hourly, int | float) else None
            fleet = {**fleet, "expected_total_usd": expected}  # the run with what it loses at its scale
        if fleet is None or self.horizon is None:
            return fleet
        years, total = self.horizon
        owned = {"amortised_usd_per_month": fleet["usd_per_month"], "horizon_years": years}
        return {**fleet, "owned": {**owned, "horizon_total_usd": total * replicas}}

    def bands(self) -> dict[str, Band]:
        """Each predicted figure's band (JSON path -> multipliers), looked up when asked: the plan
        search makes many estimates and shows few."""
        if self.band_table is None:
            return {}
        rerun = self.inference.rerun if self.inference is not None else None
        return figure_bands(
            self.figures(), self.workload, self.hardware.gpu, self.band_table, self.confidence, self.measured, rerun
        )

    def figures(self) -> dict[str, float | None]:
        """The predicted figures that carry a band, by JSON path, as `as_dict` writes them."""
        out: dict[str, float | None] = {"memory.per_gpu.total": round(self.memory.per_gpu.total)}
        for section, part in (("training", self.training), ("inference", self.inference)):
            if part is None:
                continue
            for key, value in part.as_dict().items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    out[f"{section}.{key}"] = float(value)
        if self.reliability is not None:
            r = self.reliability.as_dict(self.hardware.count)
            out |= {f"reliability.{k}": float(r[k]) for k in ("expected_seconds", "expected_gpu_hours")}
        return out


def describe_workload(work: Workload, hw: Hardware) -> dict[str, Any]:
    """Every resolved input, echoed so a reader can reproduce the estimate."""
    model = work.model
    par = work.parallel
    dp = data_parallel(work, hw)
    out: dict[str, Any] = {
        "model": model.name,
        "params": int(model.params),
        "active_params": int(model.active_params),
        "task": work.task,
        "tp": par.tp,
        "pp": par.pp,
        "dp": dp,
    }
    if isinstance(model, TransformerArch):
        out.update(
            layers=model.layers, hidden=model.hidden, heads=model.heads, kv_heads=model.kv_heads, vocab=model.vocab
        )
    side = image_side(model) if isinstance(model, GenericArch) else vit_image_side(model)
    if side is not None:  # the side it runs at: --image-size, or the one it was described at
        out["image_size"] = side
    out.update(_training_inputs(work, hw, dp) if isinstance(work, TrainingJob) else _serving_inputs(work))
    return out


def _training_inputs(work: TrainingJob, hw: Hardware, dp: int) -> dict[str, Any]:
    """A training job's resolved inputs."""
    par = work.parallel
    out: dict[str, Any] = dict(
        method=work.method,
        precision=work.precision,
        weights_dtype=work.weights_dtype,
        optimizer=work.optimizer,
        master_weights=work.master_weights,
        micro_batch=work.micro_batch,
        global_batch=work.global_batch or work.micro_batch * dp,
        # the catalog's largest converging global batch a plan sizes the batch per GPU under (no batch named)
        batch_bound=None if work.batch_bound is None else work.batch_bound.samples,
        grad_accumulation=work.grad_accumulation(hw.count),
        seq=work.seq,
        zero=par.zero,
        sharding=par.sharding,
        zeropp=list(par.zeropp),
        sequence_parallel=par.sequence_parallel and par.tp > 1,
        recompute=work.recompute,
        checkpoint_impl=work.checkpoint_impl,  # None: the framework's own, named in the assumptions
        optimizer_impl=work.optimizer_impl,
        attention=work.attention,
        framework=work.framework,
        offload=list(work.offload),
        cp=par.cp,
        ep=par.ep,
        vpp=par.vpp,
        tokens=work.tokens,
        samples=work.samples,
        compile=work.compile,
        loss=work.loss,  # None: the framework's own, named in the assumptions
        quantized_linear=work.quantized_linear,  # None: the framework's own
        overlap_grad_reduce=work.overlap_grad_reduce,  # None: the framework's default
        grad_reduce_dtype=work.grad_reduce_dtype,  # None: the framework's
        param_transpose_cache=work.param_transpose_cache,
        defer_grad_sync=work.defer_grad_sync,
        mixed_frozen_units=work.mixed_frozen_units,
        momentum_encoder=work.momentum_encoder,
        loss_parallel=work.loss_parallel,
        tp_embedding=work.tp_embedding,
        optimizer_in_backward=work.optimizer_in_backward,
        paged_optimizer=work.paged_optimizer,
        kbit_fp32_upcast=work.kbit_fp32_upcast,
        capacity_factor=work.capacity_factor,
        pad_to_capacity=work.pad_to_capacity,
        moe_dispatcher=work.moe_dispatcher,
        overlap_ep_comm=work.overlap_ep_comm,
    )
    out["mlm_positions"] = work.masked_positions  # an encoder's masked-LM head (None: no such head)
    out["packed_doc_tokens"] = work.packed_doc_tokens  # packed documents' mean length (None: unpacked)
    if work.method != "full":
        out.update(lora_rank=work.lora_rank, lora_targets=list(work.lora_targets))
    if work.evaluation:
        out.update(eval_every=work.evaluation[0], eval_batches=work.evaluation[1])
    if work.data:
        out.update(
            read_bandwidth=work.data.read_bandwidth,
            sample_bytes=work.data.sample_bytes,
            decode_seconds=work.data.decode_seconds,
            loader_cores=work.data.cpu_cores,
        )
    return out


def _finite_run_in_flight(work: Workload, hw: Hardware, catalog: Catalog) -> Workload:
    """A finite run (--requests) holds at once what one engine copy admits of its share of the requests or
    clients: its memory, header and steady-state terms are at that batch (a burst of 2,000 runs the
    engine's cap, not 2,000 at once, nor the default 1)."""
    if not (isinstance(work, InferenceJob) and work.requests):
        return work
    from gpuwise.estimate.engine import engine_setup
    from gpuwise.estimate.serving import busiest_senders, engine_copies

    cap = engine_setup(replace(work, concurrency=1), hw, catalog, notes=False).max_batch
    return replace(work, concurrency=max(1, min(busiest_senders(work, engine_copies(work, hw)), cap)))


def static_batched(work: InferenceJob, catalog: Catalog) -> str | None:
    """How a serving job runs in static batches, which no continuous-batching server model sizes:
    "generate loop" (an engine that never lets a request join a running batch), "static batch" (a
    server's static-batch benchmark, --batching static), or None. `estimate --qps` and `plan` refuse both."""
    if work.engine not in catalog.engines:
        return None  # a runtime of a model timed operator by operator
    if catalog.engine(work.engine).static_batching:
        return "generate loop"
    return "static batch" if work.batching == "static" else None


def _refuse_unsimulated(work: InferenceJob, catalog: Catalog) -> None:
    """A serving target (--qps) sizes replicas in a simulation of a server's continuous batching: runs it
    does not model are refused with the figures that do answer for them."""
    if work.requests:
        raise UsageError(
            "--requests times one finite run sent at the start; --qps sizes replicas for requests arriving at a "
            "rate: drop --qps for the run's figures, or --requests for the served load"
        )
    if work.attention_ranks > 1:
        raise UsageError(
            "--attention-dp with a serving target (--qps): the replica simulation does not model attention "
            "ranks that step together yet; drop --qps for the steady-state figures at --concurrency"
        )
    kind = static_batched(work, catalog)
    if kind == "static batch":
        raise UsageError(
            "--batching static times one static batch (a benchmark_latency-style run); the replica simulation "
            "behind --qps models a server's continuous batching: drop --qps for the batch's figures at "
            "--concurrency, or --batching for a served load"
        )
    if kind == "generate loop":
        raise UsageError(
            f"--engine {work.engine} is a generate loop (static batches: no request joins a running one), and "
            "the replica simulation behind --qps models a server's continuous batching; drop --qps for the "
            "loop's figures at --concurrency, or serve with an engine (vllm, sglang, trtllm)"
        )


def _serving_inputs(work: InferenceJob) -> dict[str, Any]:
    """A serving job's resolved inputs."""
    return dict(
        weights_dtype=work.weights_dtype,
        kv_dtype=work.kv_dtype,
        input_tokens=work.input_tokens,
        output_tokens=work.output_tokens,
        concurrency=work.concurrency,
        engine=work.engine,
        prefix_hit_rate=work.prefix_hit_rate,
        requests=work.requests or None,
        clients=work.clients or None,  # --concurrency of a finite run (None: a burst; set with --requests only)
        request_rate=work.request_rate or None,
        length_spread=work.length_spread,
        dataset=work.lengths.name if work.lengths is not None else None,
        speculative_tokens=work.speculative_tokens,
        speculative_acceptance=work.speculative_acceptance if work.speculative_tokens else None,
        items_per_request=work.items_per_request,
        input_from_host=work.input_from_host,
        cuda_graphs=work.cuda_graphs,
        tf32_matmul=work.tf32_matmul,  # None: the runtime's default
        autocast=work.autocast,  # None: the runtime's default
        # fp32 weights under torch.autocast: the 16-bit precision it computes at (absent: the weights' dtype)
        **({"precision": work.autocast_dtype} if work.autocast_dtype is not None else {}),
        diffusers_version=work.diffusers_version,  # None: a release that frees baddbmm's input
        denoising_steps=work.denoising_steps,  # None: the pipeline's call default
        guidance_scale=work.guidance_scale,
        scheduler=work.scheduler,
        enforce_eager=work.enforce_eager,
        async_scheduling=work.async_scheduling,
        batching=work.batching,  # None: the engine's own (a server's continuous, a generate loop's static)
        attention=work.attention,  # None: the engine's default (a generate loop's; serving engines their own)
        bnb_4bit=work.bnb_4bit if work.weights_dtype == "nf4" else None,
        lora_adapters=work.lora_adapters,
        lora_adapter_rank=work.lora_adapter_rank if work.lora_adapters else None,
        max_seqs=work.max_seqs,  # the engine's settings as given (None: its own, which the notes name)
        max_batch_tokens=work.max_batch_tokens,
        memory_fraction=work.memory_fraction,
        ep=work.parallel.ep,
        attention_dp=work.parallel.attention_dp,
    )


def _link(hw: Hardware) -> str:
    if hw.count == 1:
        return "none"
    intra = hw.gpu.link_id
    if hw.gpu.interconnect and hw.gpu.interconnect.nvlink and hw.gpus_per_node > 2 and hw.gpu.form_factor == "sxm":
        intra = f"{intra} (nvswitch)"
    return intra if hw.nodes == 1 else f"{intra} + {hw.network or 'network'}"


def _board_notes(hw: Hardware, catalog: Catalog) -> list[str]:
    """Where the GPU is one die of a multi-die board (an MI250X GCD), say that every figure is per
    device, as ROCm and torch count them."""
    return [
        f"{hw.gpu.id} is one of the {b.devices.count} devices on each {b.id} board, each its own GPU to ROCm and "
        f"torch: counts, memory and rates here are per device ({hw.count} = {hw.count / b.devices.count:g} x {b.id})"
        for b in catalog.gpus.values()
        if b.devices is not None and b.devices.id == hw.gpu.id
    ]


CONCURRENCY_LIMIT = 1 << 20  # search bound for concurrency, not a modelling constant


def _largest(work: Workload, hw: Hardware, catalog: Catalog, notes: list[str]) -> tuple[dict[str, int], int | None]:
    """The largest micro-batch and sequence (training), or concurrency and prompt (serving), that
    fit; and the largest concurrency, searched once here so that the replica search reuses it."""
    largest: dict[str, int] = {}
    if isinstance(work, TrainingJob):
        micro = largest_fitting(work, hw, catalog, "micro_batch")
        if micro >= SEARCH_LIMIT:  # nothing grows with the batch (activations unknown): say so
            notes.append(f"memory does not limit the micro-batch below {SEARCH_LIMIT:,}")
        else:
            largest["micro_batch"] = micro
        if isinstance(work.model, TransformerArch) and not work.model.fixed_seq:
            largest["seq"] = largest_fitting(work, hw, catalog, "seq", limit=work.model.max_seq)
        return largest, None
    max_conc = largest_fitting(work, hw, catalog, "concurrency", limit=CONCURRENCY_LIMIT)
    if max_conc >= CONCURRENCY_LIMIT:  # memory does not bound it: say so instead of a search limit
        notes.append(f"memory does not limit concurrency below {CONCURRENCY_LIMIT:,}")
    else:
        largest["concurrency"] = max_conc
    if isinstance(work.model, TransformerArch) and work.model.decoder:
        limit = max(1, work.model.max_seq - work.output_tokens)  # the context the model was trained for
        largest["input_tokens"] = largest_fitting(work, hw, catalog, "input_tokens", limit=limit)
    return largest, max_conc


def estimate(
    work: Workload,
    hw: Hardware,
    catalog: Catalog,
    *,
    target: LatencyTarget | None = None,
    calibration: Calibration | None = None,
    search_largest: bool = True,
    confidence: float = DEFAULT_LEVEL,
    pricing: str = "on-demand",
    params: CostParams | None = None,
    years: float | None = None,
    useful_replicas: int | None = None,
) -> Estimate:
    """Check the layout, then memory, time (training or serving) and, with a target, replicas;
    each predicted figure with its band at `confidence` (catalog uncertainty.yaml); the cost at
    `pricing` from `params`' offers and cost parameters (default: every catalog offer), as a plan
    prices it (owned: over `years`, default the depreciation life). `useful_replicas`: a search
    that has a cheaper plan already needs no replica count above it (see plan_replicas).
    The workload is first taken as the GPU runs it (the bf16 default as fp16 where there is no bf16)."""
    work = on_gpu(work, hw.gpu)
    check_platform(work, hw.gpu, catalog)
    check_layout(work, hw)
    work = _finite_run_in_flight(work, hw, catalog)
    mem = memory(work, hw, catalog)
    notes: list[str] = precision_notes(work, hw.gpu)
    largest, max_conc = _largest(work, hw, catalog, notes) if search_largest else ({}, None)
    training = inference = serving = None
    measured = calibration.spread if calibration is not None else None
    if not hw.gpu.peak_flops:
        notes.append(f"{hw.gpu.name}: no published compute figures, so no time estimate (measure with gpuwise bench)")
    else:
        topo = topology(hw, catalog, hw.network, calibration)
        if isinstance(work, TrainingJob):
            from gpuwise.estimate.training import training_time  # serving estimates do not load it

            rates = power_capped(compute_rates(hw.gpu, work.precision, catalog, calibration), hw.power_cap, catalog)
            training = training_time(work, hw, rates, topo, catalog)
            notes += training.notes
        else:
            from gpuwise.estimate.serving import compute_dtype, inference_time

            if target is not None:  # before any timing: a run the replica simulation cannot size
                _refuse_unsimulated(work, catalog)
            rates = compute_rates(hw.gpu, compute_dtype(work, hw.gpu.peak_flops, catalog), catalog, calibration)
            rates = power_capped(rates, hw.power_cap, catalog)
            inference = inference_time(work, hw, rates, topo, catalog)
            notes += inference.notes
            if target is not None:
                cap = max_conc if max_conc is not None else _concurrency_cap(work, hw, catalog)
                serving = _serving(
                    work,
                    hw,
                    rates,
                    topo,
                    catalog,
                    target,
                    cap,
                    inference,
                    (confidence, measured),
                    notes,
                    useful_replicas,
                )
    notes += _board_notes(hw, catalog)
    replicas = serving.replicas if serving is not None and serving.replicas > 1 else 1
    usd, fleet, horizon = _price(hw, catalog, notes, pricing, params, years, replicas)
    parts = (training, inference, serving, usd, tuple(notes), catalog.uncertainty, confidence, pricing, horizon)
    est = Estimate(work, hw, mem, largest, _link(hw), *parts, measured, fleet)
    if training is None or not training.total_seconds:
        return est
    return replace(est, reliability=training_reliability(est, catalog))


def _concurrency_cap(work: InferenceJob, hw: Hardware, catalog: Catalog) -> int:
    """The requests memory holds at once, as far as a serving plan reads it: a decoder's batch comes
    from its engine's KV share (serving_batch), so for it 1 or 0 (whether one request fits, which is
    what the largest fitting concurrency says first); a one-pass model's batch is all that fits."""
    if isinstance(work.model, TransformerArch) and work.model.decoder:
        return 1 if memory(replace(work, concurrency=1), hw, catalog).fits else 0
    return largest_fitting(work, hw, catalog, "concurrency", limit=CONCURRENCY_LIMIT)


def _serving(
    work: InferenceJob,
    hw: Hardware,
    rates: Rates,
    topo: Topology,
    catalog: Catalog,
    target: LatencyTarget,
    cap: int,
    inference: InferenceEstimate,
    level: tuple[float, MeasuredSpread | None],
    notes: list[str],
    useful: int | None = None,
) -> ServingPlan | None:
    """Replicas for the target at `level` = (confidence, the spread of a run the team measured, if
    the rates were fitted to one): each latency at its band's high end, the capacity
    at its low end); None when no request fits beside the weights (said in `notes`)."""
    from gpuwise.estimate.serving import engine_copies, plan_replicas, serving_batch

    batch = serving_batch(work, hw, catalog, cap) if cap >= 1 else 0
    if batch < 1:
        notes.append("no request fits in memory (the engine's share of it): no serving plan")
        return None
    lat = inference.time_to_first_token_seconds, inference.latency_seconds
    margins = serving_margins(work, hw.gpu, catalog.uncertainty, level[0], *lat, level[1])
    copies = engine_copies(work, hw)  # a replica of the hardware holds this many engines, each its share
    plan = plan_replicas(
        work,
        hw,
        rates,
        topo,
        catalog,
        qps=target.qps / copies,
        goals=target.goals,
        max_batch=batch,
        margins=margins,
        useful=useful,
    )
    if copies > 1:
        plan = replace(
            plan,
            qps=target.qps,
            concurrency=plan.concurrency * copies,
            capacity_rps=plan.capacity_rps * copies,
            notes=(
                *plan.notes,
                f"each replica of {hw.count} GPUs holds {copies} engine copies side by side (data parallel), each "
                f"taking 1/{copies} of the replica's requests: the simulation's figures above (a replica's batch, "
                "capacity, load and requests in flight) are one copy's; the JSON's capacity_rps_per_replica and "
                "concurrency_per_replica are the whole replica's, its max_batch one copy's",
            ),
        )
    notes += plan.notes
    return plan


def _price(
    hw: Hardware,
    catalog: Catalog,
    notes: list[str],
    pricing: str,
    params: CostParams | None,
    years: float | None,
    replicas: int = 1,
) -> tuple[float | None, float | None, tuple[float, float] | None]:
    """USD per hour of one replica of the hardware at `pricing` (renting: the cheapest fitting offer;
    owned: the amortised cost of buying it), and of `replicas` of them together when more than one
    (renting: packed into the cheapest offer's instances), the offer named in `notes`; with owned
    pricing, (years, one replica's total over them)."""
    if params is None and pricing == "on-demand":  # the common case: no cost parameters to build
        market = default_market(catalog)
        one = market.quote(hw.gpu.id, hw.count, hw.gpus_per_node, "on-demand")
        quote = one if replicas == 1 else market.quote(hw.gpu.id, hw.count, hw.gpus_per_node, "on-demand", replicas)
        if quote is not None:
            notes.append(f"cost: on demand, {quote.describe()} (gpuwise prices --gpu {hw.gpu.id})")
        return _usd(one), _usd(quote) if replicas > 1 else None, None
    p = params or CostParams.from_catalog(catalog, market=default_market(catalog))
    if pricing == "owned":
        return _owned_price(hw, p, notes, years, replicas)
    one = rent_quote(hw, pricing, p)
    quote = one if replicas == 1 else rent_quote(hw, pricing, p, replicas=replicas)
    if quote is None:
        notes.append(f"cost: {why_no_price(hw, pricing, p)}")
        return None, None, None
    notes.append(f"cost: {pricing}, {quote.describe()} (gpuwise prices --gpu {hw.gpu.id})")
    return _usd(one), _usd(quote) if replicas > 1 else None, None


def _owned_price(
    hw: Hardware, p: CostParams, notes: list[str], years: float | None, replicas: int
) -> tuple[float | None, float | None, tuple[float, float] | None]:
    """Owned pricing: one replica's amortised hour, the fleet's (its replicas packed into whole
    servers, gpuwise.estimate.cost.owned_cost) when more than one, and (years, each replica's share
    of the fleet's total over them)."""
    one = owned_cost(hw, p)
    fleet = owned_cost(hw, p, replicas) if replicas > 1 else one
    if one is None or fleet is None:
        notes.append(f"cost: {why_no_price(hw, 'owned', p)}")
        return None, None, None
    horizon = years or p.depreciation_years
    notes.append(
        f"cost: owned, {one.usd_per_hour:.2f} USD/h (capex over {p.depreciation_years:g} years plus opex), "
        f"{one.total(horizon):,.0f} USD over {horizon:g} years (gpuwise tco --gpu {hw.gpu.id}:{hw.count})"
    )
    if replicas > 1 and fleet.server_count:
        notes.append(
            f"cost: owned, {replicas} replicas packed into {fleet.server_count} whole server(s) "
            f"({fleet.platform}): {fleet.usd_per_hour:.2f} USD/h, {fleet.total(horizon):,.0f} USD over {horizon:g} years"
        )
    return one.usd_per_hour, fleet.usd_per_hour if replicas > 1 else None, (horizon, fleet.total(horizon) / replicas)


def _usd(quote: Quote | None) -> float | None:
    return None if quote is None else quote.usd_per_hour
