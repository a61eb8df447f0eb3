"""Compare gpuwise's time model with published training and inference measurements
(corpus/data/published_perf.yaml). Used by test_perf_accuracy.py and scripts/accuracy.py.

Each case is mapped from the source's own description of the run to gpuwise inputs; what gpuwise
does not model (context parallelism, FP4, unknown running batches) is reported, not approximated.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus.memory_accuracy import merged
from gpuwise.catalog import Catalog
from gpuwise.catalog.hf_import import arch_from_hf_config
from gpuwise.errors import GpuwiseError
from gpuwise.estimate import estimate
from gpuwise.workload import InferenceJob, build_hardware, build_workload

DATA = Path(__file__).parent / "data" / "published_perf.yaml"
RUNS = Path(__file__).parent / "data" / "published_training_runs.yaml"
GOAL = 0.20  # the target; the document reports every real error
# a one-pass model's runtime where the cases name it otherwise than gpuwise's --engine (PyTorch as published:
# eager); every other name is gpuwise's own
ONE_PASS_RUNTIMES = {"pytorch": "eager"}


@dataclass(frozen=True)
class PerfResult:
    id: str
    kind: str
    metric: str
    gpu: str
    source: str
    where: str
    published: float
    ours: float | None
    checked: bool
    note: str

    @property
    def error(self) -> float | None:
        return None if self.ours is None else self.ours / self.published - 1


def load() -> dict[str, Any]:
    """Both data files: published_perf.yaml and the framework profiles' runs."""
    return merged(DATA, RUNS)


def _arch(name: str, a: dict[str, Any]) -> Any:
    if a.get("gated_ffn", True):
        cfg = {
            "model_type": "llama",
            "hidden_size": a["hidden"],
            "num_hidden_layers": a["layers"],
            "num_attention_heads": a["heads"],
            "num_key_value_heads": a.get("kv_heads") or a["heads"],
            "intermediate_size": a["ffn"],
            "vocab_size": a["vocab"],
            "hidden_act": "silu",
        }
        # MoE (the expert FFN width as `ffn`), explicit head size, sliding-window attention
        for key, hf_key in (("head_dim", "head_dim"), ("experts", "num_experts"), ("top_k", "num_experts_per_tok")):
            if a.get(key):
                cfg[hf_key] = a[key]
        if a.get("sliding_window"):
            cfg["sliding_window"] = a["sliding_window"]
    else:
        cfg = {
            "model_type": "gpt2",
            "n_embd": a["hidden"],
            "n_layer": a["layers"],
            "n_head": a["heads"],
            "n_inner": a["ffn"],
            "vocab_size": a["vocab"],
            "n_positions": 2048,
        }
    arch = arch_from_hf_config(cfg, name=name)
    if a.get("sliding_window_layers") is not None:
        arch = dataclasses.replace(arch, sliding_window_layers=a["sliding_window_layers"])
    return arch


_NIC_COUNT = re.compile(r"^(?:(\d+)\s*x|(two|four|eight)\b)")  # "8x", "8 x", "8xIB", "eight"
_NIC_WORDS = {"two": 2, "four": 4, "eight": 8}


def _network(text: str | None) -> str | None:
    """The inter-node link a source names, as many per node as it says ('8x 200 Gbps HDR ... per
    node' is 8xib-hdr; a port named without a count is one per node); None (the GPU family's
    reference node: one NIC per GPU on HGX/DGX) where it says the NICs are per GPU or names a DGX system."""
    t = (text or "").lower()
    if "per gpu" in t or "dgx" in t:
        return None
    if "800" in t or "xdr" in t:
        link = "ib-xdr"
    elif "400" in t or "ndr" in t:
        link = "roce-400g" if "roce" in t else "ib-ndr"
    elif "200" in t or "hdr" in t:
        link = "ib-hdr"
    else:
        return None
    count = 1
    if m := _NIC_COUNT.match(t):
        count = int(m.group(1)) if m.group(1) else _NIC_WORDS[m.group(2)]
    return f"{count}x{link}" if count > 1 else link


def _zero(raw: Any) -> int:
    t = str(raw or "0").lower()
    if "full_shard" in t or t == "3":
        return 3
    if "fsdp" in t or "grad_op" in t:
        return 2
    return int(t) if t.isdigit() else 0


# The stack behind each source's runs, where a case does not name it (inputs.framework).
SOURCE_FRAMEWORKS = {
    "narayanan-2021": "megatron",
    "korthikanti-2022": "megatron",
    "llama2-model-card": "megatron",
    "llama31-model-card": "megatron",
    "llama3-paper": "megatron",
    "llm-foundry-benchmarks": "fsdp",
    "nemo-perf-2407": "nemo",
    "megatron-bridge-perf-2511": "nemo",
    "dle-resnet50-pytorch": "fsdp",
    "dle-bert-pytorch": "fsdp",
}


def framework_of_case(case: dict[str, Any]) -> str:
    """The training stack a published run used: its own `framework`, else its source's."""
    return str(case["inputs"].get("framework") or SOURCE_FRAMEWORKS.get(case["source"], "megatron"))


def _as_published(case: dict[str, Any], cat: Catalog) -> Catalog:
    """The catalog as the source describes its run where the product's entries differ: the GPU's
    published memory bandwidth and a peak the source bounds by two catalog GPUs (the centre of that
    range: torchtitan's 500 W H100s lie 'between SXM and NVL'), and a stack's config that fused an
    op the profile runs eagerly (torchtitan 2024-04's fused_rmsnorm) or set an option its default
    lacks (MLPerf's TP communication overlap)."""
    inp = case["inputs"]
    gpu = inp.get("gpu_as_published")
    if gpu:
        g = cat.gpu(inp["gpu"])
        update: dict[str, Any] = {}
        if gpu.get("memory_bandwidth"):
            update["memory_bandwidth"] = float(gpu["memory_bandwidth"])
        if gpu.get("peak_between"):
            lo, hi = (cat.gpu(i).peak_flops for i in gpu["peak_between"])
            update["peak_flops"] = {
                k: (lo[k] + hi[k]) / 2 if k in lo and k in hi else v for k, v in g.peak_flops.items()
            }
        cat = dataclasses.replace(cat, gpus={**cat.gpus, g.id: dataclasses.replace(g, **update)})
    fused = set(inp.get("fused_ops") or ())
    as_run = dict(inp.get("stack_as_run") or {})  # the source's config where it departs from the profile
    if fused or as_run:
        prof = cat.frameworks[framework_of_case(case)]
        update = {"eager_ops": [o for o in prof.eager_ops if o not in fused], **as_run}
        cat = dataclasses.replace(cat, frameworks={**cat.frameworks, prof.id: dataclasses.replace(prof, **update)})
    return cat


def _training(case: dict[str, Any], cat: Catalog) -> tuple[float | None, list[str]]:
    inp = case["inputs"]
    why: list[str] = []
    cat = _as_published(case, cat)
    model: Any = _arch(inp["model"], inp["arch"]) if inp.get("arch") else inp["model"]
    prec = str(inp.get("precision") or "bf16")
    precision = "fp16" if prec == "amp" else prec
    pp = inp.get("pp") or 1
    zero = None if inp.get("zero") is None else _zero(inp.get("zero"))  # None: the stack's default
    if zero is not None and zero >= 2 and pp > 1 and framework_of_case(case) != "torchtitan":
        zero = 1  # Megatron's distributed optimizer with pipelines shards like ZeRO-1
    opts: dict[str, Any] = {
        "model": model,
        "task": inp.get("task") or "pretrain",  # an encoder's fine-tune: no masked-LM head
        "precision": precision,
        "tp": inp.get("tp") or 1,
        "pp": pp,
        "zero": zero,
        "recompute": inp.get("recompute") or "none",
        "micro_batch": inp.get("micro_batch") or 1,
        "framework": framework_of_case(case),
        "cp": inp.get("cp") or 1,
        "vpp": inp.get("vpp") or 1,
        "ep": inp.get("ep") or 1,
        "etp": inp.get("etp"),  # None: Megatron's default, the tensor-parallel size
    }
    # MoE token capacity, dispatcher and expert-parallel overlap, where a run sets them
    for key in ("capacity_factor", "pad_to_capacity", "moe_dispatcher", "overlap_ep_comm"):
        if inp.get(key) is not None:
            opts[key] = inp[key]
    if inp.get("offload"):
        opts["offload"] = inp["offload"]
    if inp.get("compile") is not None:
        opts["compile"] = bool(inp["compile"])
    if inp.get("attention"):
        opts["attention"] = inp["attention"]
    if inp.get("mlm_positions"):  # an encoder's masked-LM head on the masked positions only
        opts["mlm_positions"] = inp["mlm_positions"]
    if inp.get("packed_doc_tokens"):  # documents packed into a sequence, attention inside each
        opts["packed_doc_tokens"] = inp["packed_doc_tokens"]
    if inp.get("method"):
        opts.update(task="finetune", method=inp["method"])
        for key in ("lora_rank", "lora_targets", "optimizer", "master_weights"):
            if inp.get(key) is not None:
                opts[key] = inp[key]
    gpus = inp.get("gpus")
    if not gpus:  # accounting totals without a layout: GPU-hours barely depend on the count
        mb = inp.get("micro_batch") or 1
        gpus = min(2048, (inp.get("global_batch") or 2048) // mb)
        why_layout = f"layout not published: {gpus} GPUs with the stated tp/pp assumed"
    else:
        why_layout = ""
    if inp.get("seq"):
        opts["seq"] = inp["seq"]
    if inp.get("global_batch"):
        opts["global_batch"] = inp["global_batch"]
    if inp.get("tokens"):
        opts["tokens"] = float(inp["tokens"])
    w = build_workload(opts, cat)
    per_node = inp.get("gpus_per_node") or 8
    gpus = max(per_node, gpus // per_node * per_node) if gpus > per_node else gpus
    hw = build_hardware(f"{inp['gpu']}:{gpus}", cat, min(per_node, gpus), _network(inp.get("network")))
    if why_layout:
        why.append(why_layout)
    t = estimate(w, hw, cat, search_largest=False).training
    assert t is not None
    note = str(case.get("metric_note", "")).lower()
    metric = case["metric"]
    peak = cat.gpu(inp["gpu"]).peak_flops
    if metric == "tflops_per_gpu":
        flops = t.hardware_flops_per_step if "recomput" in note and "no recomput" not in note else t.flops_per_step
        return flops / t.step_seconds / hw.count / 1e12, why
    if metric in ("mfu", "hfu"):
        flops = t.hardware_flops_per_step if metric == "hfu" else t.flops_per_step
        denom = peak.get("bf16", 0) if ("bf16 peak" in note or ("bf16" in note and precision == "fp8")) else None
        achieved = flops / t.step_seconds / hw.count
        return achieved / denom if denom else t.mfu * (flops / t.flops_per_step), why
    if metric == "tokens_per_second":
        return t.tokens_per_second, why
    if metric == "tokens_per_second_per_gpu":
        return t.tokens_per_second / hw.count, why
    if metric == "samples_per_second":
        return t.samples_per_second, why
    if metric == "step_seconds":
        return t.step_seconds, why
    if metric == "gpu_hours":
        return t.gpu_hours, why
    raise ValueError(metric)


def _wdtype(raw: str | None) -> tuple[str, list[str]]:
    t = str(raw or "fp16").lower()
    if t == "q4_0":
        return "int4", ["llama.cpp Q4_0 stores 4.5 bits/weight; gpuwise's int4 layout has 4.16"]
    if t == "q8_0":
        return "int8", ["llama.cpp Q8_0 stores 8.5 bits/weight; gpuwise's int8 has 8"]
    return t, []


def _inference(case: dict[str, Any], cat: Catalog) -> tuple[float | None, list[str]]:
    inp = case["inputs"]
    why: list[str] = []
    wd, notes = _wdtype(inp.get("weights_dtype"))
    if wd == "fp4":
        return None, ["FP4 weights are not modelled"]
    model = cat.model(inp["model"])
    batch = inp.get("batch") or inp.get("concurrency")
    if not batch:
        why.append("the running batch is set by the engine's scheduler and not published")
        batch = 1
    opts: dict[str, Any] = {
        "model": inp["model"],
        "task": "inference",
        "weights_dtype": wd,
        "concurrency": int(batch),
        "tp": inp.get("tp") or 1,
    }
    if model.decoder:
        opts.update(input_tokens=int(inp.get("input_tokens") or 1), output_tokens=int(inp.get("output_tokens") or 1))
        if str(inp.get("engine")) in ("trt-llm", "trtllm"):
            opts["engine"] = "trtllm"  # the engine that ran it, whose profile (and fitted overheads) apply
        kv = str(inp.get("kv_dtype") or ("fp8" if wd == "fp8" else "fp16")).lower()
        opts["kv_dtype"] = kv if kv in ("fp8", "fp16", "bf16", "int8", "fp32") else "fp16"
    else:
        if inp.get("input_tokens"):
            opts["input_tokens"] = int(inp["input_tokens"])
        if inp.get("engine"):
            engine = str(inp["engine"])  # the runtime it ran under, not the default; an unknown one gpuwise refuses
            opts["engine"] = ONE_PASS_RUNTIMES.get(engine, engine)
        # as the source ran it: fp16 by .half() (no autocast) or by torch.autocast; the encoder's attention kernel
        keys = ("autocast", "attention", "image_size", "items_per_request")
        opts.update({k: inp[k] for k in keys if inp.get(k) is not None})
    w = build_workload(opts, cat)
    hw = build_hardware(f"{inp['gpu']}:{inp.get('gpus') or 1}", cat)
    i = estimate(w, hw, cat, search_largest=False).inference
    assert i is not None
    metric = case["metric"]
    note = str(case.get("metric_note", "")).lower()
    per_gpu = hw.count > 1 and ("/gpu" in note or "per gpu" in note) and "total" not in note
    assert isinstance(w, InferenceJob)
    values = {
        "output_tokens_per_second": i.tokens_per_second / (hw.count if per_gpu else 1),
        "output_tokens_per_second_per_gpu": i.tokens_per_second / hw.count,
        "tokens_per_second_per_user": 1 / i.decode_seconds_per_token if i.decode_seconds_per_token else None,
        "prefill_tokens_per_second": w.concurrency * w.input_tokens / i.prefill_seconds,
        "ttft_seconds": i.prefill_seconds,
        "tpot_seconds": i.decode_seconds_per_token,
        "samples_per_second": i.samples_per_second,
        "latency_seconds": i.latency_seconds,
    }
    return values[metric], why + notes


def evaluate(case: dict[str, Any], cat: Catalog) -> PerfResult:
    try:
        ours, why = (_training if case["kind"] == "training" else _inference)(case, cat)
    except GpuwiseError as exc:
        ours, why = None, [f"not estimable: {exc}"]
    blocking = [w for w in why if not w.startswith("llama.cpp")]
    checked = case.get("confidence") in ("high", "medium") and ours is not None and not blocking
    return PerfResult(
        id=case["id"],
        kind=case["kind"],
        metric=case["metric"],
        gpu=case["inputs"]["gpu"],
        source=case["source"],
        where=str(case.get("where", "")),
        published=float(case["published_value"]),
        ours=ours,
        checked=checked,
        note="; ".join(why),
    )


# Systematic gaps, stated in docs/accuracy-time.md: what the model does not capture yet. The figures
# are computed by scripts/accuracy.py (`gap_text`), never typed: {ins:REGEX} is the range of the in-sample
# errors of the checked runs whose id matches REGEX, {oos:REGEX} of their out-of-sample errors (each
# source family left out of its stack's fit), {x:REGEX} the range of measured / estimated time (ours /
# published speed) as a factor.
KNOWN_GAPS = {
    "ResNet-50 and other models described by totals": (
        "estimated {x:^dle-(triton-)?resnet50-} faster than measured in sample: convolutions with few channels "
        "run far below the large-matmul rate and BatchNorm/ReLU traffic exceeds the conv-BN-ReLU count; "
        "measure the step with gpuwise bench step"
    ),
    "llama.cpp on datacenter GPUs and with Q4_0": (
        "its decode and prefill kernels do not reach the bandwidth and matmul rates that TensorRT-LLM reaches "
        "on the same GPU; the model describes efficient engines"
    ),
    "tensor-parallel decode of 70B models (TensorRT-LLM 0.5/0.6)": (
        "{x:^trtllm0[0-9]+-llama2-70b-h100-fp8-tp[24]-bs64-} slower than estimated at batch 64, in sample; the "
        "all-reduce cost model (NCCL base latency per collective) does not explain it all"
    ),
    "BERT inference and small-batch latency": (
        "per-kernel launch and framework overheads dominate at batch 1 and are not modelled"
    ),
    "long sequences under context parallelism": (
        "NeMo's 32k-1M-token CP runs are {oos:^nemo-longseq-} out of sample (torchtitan's 256k rows "
        "{oos:^torchtitan-llama31-.*-cp8-seq256k$}), with cuDNN attention at the FlashAttention-3 paper's "
        "measured H100 rates: ring attention's per-step kernels and fp32 output corrections are not modelled"
    ),
    "torchtitan's A100 rows against its H100 fit": (
        "eager FSDP2 on 64 A100s (2024-04) is {oos:^torchtitan-a100-} out of sample with the factor of the stack's "
        "other runs; the 2024-12 H100s at 500 W have a peak the source only bounds between the NVL and SXM "
        "figures (the centre is used, +-8 %)"
    ),
    "torchtune's full finetune on one RTX 4090": (
        "{ins:^torchtune-llama31-8b-full-4090$} in sample (LoRA on the same card: "
        "{oos:^torchtune-llama31-8b-lora-4090$} out of sample): PagedAdamW8bit's 16 GB of states do not fit "
        "beside 16 GB of bf16 weights on a 24 GB card and page over PCIe every step, which the time model does "
        "not count"
    ),
}


# Regression bounds of the checked LLM training runs: every one within BOUND, except these, each
# held to its own bound with the reason it misses (test_perf_accuracy fails when one comes back
# within BOUND, so the list cannot go stale). Bounds: the |error| when recorded plus 5 points.
BOUND = 0.20
TIME_MISSES: dict[str, tuple[float, str]] = {
    "megatron-gpt3-175b-zero3-384gpu": (
        0.55,
        "the paper's ZeRO-3 baseline without model parallelism: its parameter gathers across 384 GPUs overlap worse than modelled",
    ),
    "megatron-gpt3-175b-zero3-1536gpu": (
        2.16,
        "the paper's ZeRO-3 baseline at micro-batch 1 on 1,536 GPUs, which it calls communication-bound (44 TFLOP/s): "
        "its parameter gathers over Selene's eight HDR NICs a node overlap far less than modelled (the estimate "
        "matched only while the harness gave each node one NIC)",
    ),
    "llama3-405b-16k-gpus-cp16-128k-context": (
        0.29,
        "at 131k tokens under context parallelism 16 with the published interleaved schedule (8 virtual stages, "
        "section 3.3.2) gpuwise is faster than Meta: Meta's context parallelism all-gathers K and V before attention "
        "with that latency exposed ('small' by its account), where gpuwise overlaps ring attention's passes; the "
        "rest not identified (the two 8k-token rows of the same table are within 3 %)",
    ),
    "bloom-176b-384gpu-a100-megatron-deepspeed": (
        0.25,
        "the deepspeed efficiency fitted with MT-NLG on Selene's eight NICs a node (0.627) is below what BLOOM's "
        "Megatron-DeepSpeed of 2022 reached on Jean Zay (149.8 TFLOP/s a GPU measured)",
    ),
    "torchtitan-llama31-405b-512gpu-cp8-seq256k": (
        0.26,
        "ring attention over 8 ranks at 262k tokens: its per-step kernels and fp32 output corrections are not modelled "
        "(the long-sequence pattern of docs/accuracy-time.md); +21 % since 2026-12-03, when torchtitan's 512-GPU "
        "pipeline rows got the micro-batches torchtitan's defaults give them and its fit rose 0.661 -> 0.675",
    ),
    "torchtitan-llama31-8b-8gpu-cp8-seq256k": (0.26, "as the 405B row at 262k tokens under context parallelism 8"),
    "mpt-3b-h100-fp8-seq2048-8gpu": (
        0.45,
        "FP8 on a 3B model: the FP8 casts and amax reductions of small layers cost more than the 2x GEMM rate saves",
    ),
    "torchtune-llama31-70b-full-8xa100-offload": (
        0.36,
        "the CPU optimizer step of FSDP cpu_offload (8.8B parameters per rank) is not timed",
    ),
    "torchtune-llama31-8b-lora-4090": (
        0.27,
        "-16 % in sample until 2026-12-06, -22 % since (too slow): the torchtune fit fell 0.790 -> 0.730 when the "
        "November 2024 table's rows were stated as packed with document masks (flex attention inside each Alpaca "
        "sample); this September 2024 row stays unpacked (torchtune's flex attention then needed a torch 2.5 nightly "
        "or release candidate, and the build behind the table is not published); of the table's checked rows LoRA "
        "at batch 2 on one RTX 4090 is the slowest against the fit (the full finetune on the same card is +8 %)",
    ),
    "mpt-13b-h100-bf16-seq2048-64gpu": (
        0.40,
        "13B without checkpointing at micro-batch 2: the FSDP gathers of a 13B model per micro-batch of 4k tokens are exposed more than modelled",
    ),
    "mpt-13b-h100-bf16-seq2048-8gpu": (0.40, "as the 64-GPU row"),
    "torchao-h100-llama3-8b-8gpu-float8-tensorwise": (
        0.38,
        "torchao float8 at batch 1 x 8k tokens: dynamic casts and amax reductions per linear cost more than modelled "
        "(7,690 tokens/s against torchtitan's own 8,532 at batch 2 on 500 W H100s)",
    ),
    "accelerate-fsdp2-llama31-8b-8xh100-fp8-mb1-seq8192-compile": (
        0.29,
        "torchao Float8Linear (tensorwise) at batch 1 x 8k tokens, as the torchao H100 row: its dynamic casts and "
        "amax reductions per linear cost more than modelled (the bf16 run of the same README is +7 %)",
    ),
    "torchao-mi300x-llama3-8b-8gpu-bf16": (
        0.29,
        "ROCm 6.4 with a PyTorch nightly on MI300X, already at AMD's maximum-achievable GEMM rate and ROCm "
        "FlashAttention-2's rate: torchtitan's fit comes from H100 runs, and ROCm's other kernels (norms, casts, "
        "FSDP's collectives over RCCL) are not measured",
    ),
    "torchao-mi300x-llama3-8b-8gpu-float8-tensorwise": (
        0.62,
        "float8 on MI300X gains 15 % over bf16 where AMD's measured FP8 GEMM rate (1.8x its BF16 rate) gives more: "
        "torchao's dynamic casts and amax reductions on ROCm cost more than modelled",
    ),
    "mbridge26041-qwen3-235b-a22b-b200-fp8-256gpu-pp8-ep8": (
        0.62,
        "Qwen3-235B MoE at micro-batch 1: the estimate is the roofline of the expert GEMMs; the all-to-all "
        "dispatcher's per-layer host sync of token counts, the router and permutation kernels and MXFP8 "
        "quantization are not modelled (the B300 row at micro-batch 2 runs 1.57x faster per GPU); +56 % -> "
        "+57 % on 2026-12-03 when each rank came to reduce only its 1/ep of the experts, over the ranks holding them",
    ),
    "mbridge26041-qwen3-30b-a3b-h100-fp8-16gpu-ep16": (
        0.41,
        "Qwen3-30B-A3B at EP 16 with HybridEP (its measured dispatch rate, since 2026-12-04) runs 29.3 s a step "
        "published against about 21.6 s here: two costs not modelled together, FP8 current scaling on the small "
        "expert GEMMs (hidden 2048, expert width 768: casts and amax reductions) and natural routing's expert "
        "load imbalance (Megatron-Bridge's EP-overlap skill ran the same layout in BF16 with forced balance at "
        "24.7 s, and its card's natural-routing BF16 row is 22.6 % slower than that); -7.0 % before, when the "
        "all-to-all was timed as every routed copy over the network",
    ),
}


def is_llm(case_id: str) -> bool:
    """An LLM run (ResNet-50 and BERT are described by totals or are encoders, not a stack's LLM runs)."""
    return "resnet" not in case_id and "bert" not in case_id


def calibration_ratio(results: list[PerfResult]) -> float:
    """Median measured/estimated throughput over checked LLM training runs (1.0 = calibrated)."""
    ratios = []
    for r in results:
        if r.kind != "training" or not r.checked or r.ours is None or not is_llm(r.id):
            continue
        ratios.append(r.ours / r.published if r.metric == "step_seconds" else r.published / r.ours)
    ratios.sort()
    return ratios[len(ratios) // 2] if ratios else 1.0


def evaluate_all(cat: Catalog) -> list[PerfResult]:
    return [evaluate(c, cat) for c in load()["cases"]]
