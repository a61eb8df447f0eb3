"""Training time: step = compute on the slowest pipeline stage + exposed communication + bubble +
optimizer update, or the data pipeline when it is slower. Named terms, so a reader sees which one
dominates and `bottleneck` says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuwise.catalog import Catalog, GenericArch, TransformerArch
from gpuwise.estimate.comm import Topology, collective, p2p
from gpuwise.estimate.compute import Op, Shape, block_linear_params, forward_flops, head_ops, layer_ops
from gpuwise.estimate.memory import lora_params, stage_params
from gpuwise.estimate.pipeline import pipeline_rate
from gpuwise.estimate.rates import Rates
from gpuwise.units import MiB
from gpuwise.workload import Hardware, TrainingJob, data_parallel

# Backward work relative to forward: a trainable linear layer computes input and weight gradients
# (2x), a frozen one only the input gradient (1x); fused attention recomputes QK^T and runs four
# more matmuls (5 vs 2 in forward: 2.5x); elementwise backward reads and writes about twice.
BWD_TRAINABLE, BWD_FROZEN, BWD_ATTENTION, BWD_MEMORY = 2.0, 1.0, 2.5, 2.0


@dataclass(frozen=True)
class TrainingEstimate:
    flops_per_step: float
    hardware_flops_per_step: float
    step_seconds: float
    comm_seconds_per_step: float
    tokens_per_second: float
    samples_per_second: float
    mfu: float
    total_seconds: float | None
    gpu_hours: float | None
    terms: dict[str, float]
    bottleneck: str
    notes: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "flops_per_step": self.flops_per_step,
            "hardware_flops_per_step": self.hardware_flops_per_step,
            "step_seconds": self.step_seconds,
            "comm_seconds_per_step": self.comm_seconds_per_step,
            "tokens_per_second": self.tokens_per_second,
            "samples_per_second": self.samples_per_second,
            "mfu": self.mfu,
            "total_seconds": self.total_seconds,
            "gpu_hours": self.gpu_hours,
            "step_terms": self.terms,
        }


def _fwd_bwd(ops: list[Op], rates: Rates, trainable: bool) -> tuple[float, float, dict[str, float]]:
    """Forward and backward seconds of a list of forward ops, with time per kind."""
    fwd = bwd = 0.0
    sides = {"compute": 0.0, "memory-bandwidth": 0.0}
    for op in ops:
        t, side = rates.bound(op.flops, op.bytes, op.kind)
        mult = {"matmul": BWD_TRAINABLE if trainable else BWD_FROZEN, "attention": BWD_ATTENTION, "memory": BWD_MEMORY}[
            op.kind
        ]
        fwd += t
        bwd += t * mult
        sides[side] += t * (1 + mult)
    return fwd, bwd, sides


def training_time(job: TrainingJob, hw: Hardware, rates: Rates, topo: Topology, catalog: Catalog) -> TrainingEstimate:
    model = job.model
    par = job.parallel
    tp, pp = par.tp, par.pp
    dp = data_parallel(job, hw)
    m = job.grad_accumulation(hw.count)
    global_batch = job.micro_batch * dp * m
    e = 4 if job.precision in ("fp32", "tf32") else 2
    notes: list[str] = list(rates.notes) + list(topo.notes)
    terms: dict[str, float] = {}
    trainable = job.method == "full"
    spans = hw.nodes > 1

    if isinstance(model, TransformerArch):
        tokens_per_sample = model.tokens_per_sample(job.seq)
        mtok = job.micro_batch * tokens_per_sample
        ctx = (tokens_per_sample + 1) / 2 if model.causal else tokens_per_sample
        shape = Shape(tokens=mtok, seqs=job.micro_batch, context=ctx, act_bytes=e, weight_bytes=e)
        sp = par.sequence_parallel and tp > 1
        l_f, l_b, l_kinds = _fwd_bwd(layer_ops(model, shape, tp, sp), rates, trainable)
        h_f, h_b, h_kinds = _fwd_bwd(head_ops(model, shape, tp, mtok, loss=True), rates, trainable)
        layers = math.ceil(model.layers / pp)
        recompute = 0.0
        if job.recompute == "full":
            recompute = l_f
        elif job.recompute == "selective":
            att = [op for op in layer_ops(model, shape, tp, sp) if op.kind == "attention"]
            recompute = sum(rates.time(o.flops, o.bytes, o.kind) for o in att)
        dequant = 0.0
        if job.method == "qlora":
            # each 4-bit linear is dequantized before every use (forward, backward, recomputation):
            # read 0.5 B and write 2 B per weight
            linear_w = block_linear_params(model) / tp
            uses = 3 if job.recompute == "full" else 2
            dequant = uses * rates.time(0.0, 2.5 * linear_w, "memory")
            notes.append("QLoRA: 4-bit weights are dequantized to 16-bit before each use (memory-bound)")
        per_mb = layers * (l_f + l_b + recompute + dequant) + h_f + h_b
        # tensor parallelism: two all-reduces forward and two backward per block (AG+RS with SP: same volume)
        tp_mb = 0.0
        if tp > 1:
            ar = collective("all_reduce", mtok * model.hidden * e, tp, topo, spans_nodes=False)
            tp_mb = layers * (4 + (2 if job.recompute == "full" else 0)) * ar
        # pipeline: activations to the next stage and gradients back, per micro-batch
        pp_mb = 0.0
        if pp > 1:
            link = topo.inter if (spans and tp * pp > hw.gpus_per_node and topo.inter) else topo.intra
            pp_mb = 2 * p2p(mtok * model.hidden * e / (tp if sp else 1), link)
        kinds = {k: layers * l_kinds[k] + h_kinds[k] for k in l_kinds}
        # model FLOPs count attention over the full sequence (Narayanan et al., PaLM's MFU), even
        # though causal kernels skip half of it: published TFLOP/s and MFU use this convention
        flops_fwd = forward_flops(model, global_batch * tokens_per_sample, tokens_per_sample)
        adapters = lora_params(job, model.layers, 1) if job.method != "full" else 0.0
        flops_per_step = (3.0 if trainable else 2.0) * flops_fwd + 6 * adapters * global_batch * tokens_per_sample
        hw_extra = flops_fwd if job.recompute == "full" else 0.0
        if job.method != "full":
            notes.append("LoRA/QLoRA: frozen layers compute input gradients only (backward 1x forward, not 2x)")
    else:
        tokens_per_sample = 1
        mb = job.micro_batch
        flops = (model.flops_per_sample or 0.0) * mb
        traffic = catalog.convention("generic_train_traffic_factor")
        act = (model.activation_bytes_per_sample or 0.0) * mb * e / 2 * traffic
        # a third of the traffic in forward, two thirds in backward, as the FLOPs (conv-BN-ReLU count)
        f_t = rates.time(flops, act / 3)
        b_t = rates.time(2 * flops, 2 * act / 3)
        per_mb = f_t + b_t
        notes.append(
            f"{model.name}: memory traffic = {traffic:g} x activation bytes per step "
            f"[generic_train_traffic_factor: conv-BN-ReLU derivation]"
        )
        tp_mb = pp_mb = recompute = 0.0
        kinds = {"compute": per_mb, "memory-bandwidth": 0.0}
        if flops == 0:
            notes.append(f"{model.name}: no FLOPs per sample known; compute time counted as 0")
        if model.embedding_tables and dp > 1:
            # model-parallel embeddings: an all-to-all of the looked-up vectors forward and backward
            vec = mb * sum(dim for _, dim in model.embedding_tables) * e
            tp_mb = 2 * collective("all_to_all", vec, dp, topo, spans)
            notes.append("embedding tables sharded across GPUs: all-to-all of looked-up vectors each micro-batch")
        layers = 1
        l_b = b_t
        flops_per_step = 3 * flops * dp * m
        hw_extra = 0.0

    framework = catalog.convention("training_framework_efficiency")
    per_mb /= framework
    l_b /= framework
    notes.append(
        f"training runs at {framework:.0%} of the per-operation roofline [training_framework_efficiency: "
        f"median over published LLM training runs]"
    )
    t_mb = per_mb + tp_mb
    terms["compute"] = m * per_mb
    if tp_mb:
        terms["tensor_parallel_comm"] = m * tp_mb
    if pp > 1:
        terms["pipeline_bubble"] = (pp - 1) * t_mb
        terms["pipeline_p2p"] = (m + pp - 1) * pp_mb
        notes.append(f"1F1B pipeline: bubble = (pp-1)/m = {pp - 1}/{m} of the micro-batch time")

    # data-parallel gradient synchronisation, overlapped with backward where frameworks do
    stage = stage_params(model, tp, pp, "first" if pp > 1 else "only", hw.count)
    n_train = (
        stage.total
        if trainable
        else (lora_params(job, stage.layers, tp) if isinstance(model, TransformerArch) else 0.0)
    )
    if isinstance(model, GenericArch):
        n_train = model.dense_params if model.embedding_tables else model.params
    grad_bytes = n_train * e
    dp_exposed = dp_total = 0.0
    if dp > 1 and grad_bytes > 0:
        if par.zero >= 3:
            w_bytes = stage.total * (e if trainable else 2)
            comm_mb = 2 * collective("all_gather", w_bytes, dp, topo, spans) + collective(
                "reduce_scatter", grad_bytes, dp, topo, spans
            )
            dp_total = m * comm_mb
            one_layer = collective("all_gather", w_bytes / max(layers, 1), dp, topo, spans)
            dp_exposed = m * max(0.0, comm_mb - per_mb) + one_layer
            notes.append(
                "ZeRO-3/FSDP: parameters gathered forward and backward, gradients reduce-scattered, overlapped with compute"
            )
        else:
            dp_total = collective("all_reduce", grad_bytes, dp, topo, spans)
            bucket_bytes = catalog.convention("ddp_bucket_bytes")
            bucket = min(grad_bytes, bucket_bytes)
            last = collective("all_reduce", bucket, dp, topo, spans)
            window = layers * l_b if isinstance(model, TransformerArch) else l_b
            dp_exposed = max(0.0, dp_total - window) + last
            notes.append(
                f"data parallel: gradient all-reduce in {bucket_bytes / MiB:g} MiB buckets overlapped with the last backward; the last bucket is exposed"
            )
        terms["data_parallel_comm"] = dp_exposed
    # optimizer update: memory-bound read/write of weights, grads, master copy and states
    if job.optimizer == "adafactor":
        opt_bytes_per_param = 1.0  # factored second moment: a small fraction of the parameters
    else:
        state_key = {"adamw": "adam_state_bytes", "adamw-8bit": "adam8bit_state_bytes", "sgd": "sgd_momentum_bytes"}
        opt_bytes_per_param = catalog.convention(state_key[job.optimizer])
    state = (e + e + (4 if e < 4 and job.master_weights else 0) + opt_bytes_per_param) * n_train
    if par.zero >= 1:
        state /= dp
    terms["optimizer_step"] = rates.time(0.0, 2 * state, "memory")

    step = sum(terms.values())
    exposed_comm = terms.get("tensor_parallel_comm", 0.0) + terms.get("pipeline_p2p", 0.0) + dp_exposed
    samples_per_s = global_batch / step
    bottleneck = max(kinds, key=lambda k: kinds[k])
    if exposed_comm > max(terms["compute"] / 2, 0):
        bottleneck = "communication"
    if job.data is not None:
        rate, why = pipeline_rate(job.data, hw)
        notes.append(why)
        data_step = global_batch / rate
        if data_step > step:
            terms["data_wait"] = data_step - step
            step = data_step
            samples_per_s = global_batch / step
            bottleneck = "data-pipeline"
    tokens_per_s = samples_per_s * tokens_per_sample
    mfu = flops_per_step / step / (hw.count * rates.peak)
    total = None
    if job.tokens:
        total = job.tokens / tokens_per_s
    elif job.samples:
        total = job.samples / samples_per_s
    return TrainingEstimate(
        flops_per_step=flops_per_step,
        hardware_flops_per_step=flops_per_step + hw_extra,
        step_seconds=step,
        comm_seconds_per_step=exposed_comm,
        tokens_per_second=tokens_per_s,
        samples_per_second=samples_per_s,
        mfu=mfu,
        total_seconds=total,
        gpu_hours=None if total is None else total * hw.count / 3600,
        terms=terms,
        bottleneck=bottleneck,
        notes=tuple(notes),
    )
