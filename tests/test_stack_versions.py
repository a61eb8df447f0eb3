"""What a stack's code keeps and when it communicates, as its source says: the normalized tensor an
eager RMSNorm keeps for its weight's gradient, Megatron Core's cross-entropy before 0.8 (an extra fp32
copy of the logits) and a data-parallel gradient reduction that is not overlapped with the backward
(Megatron Core's --overlap-grad-reduce and --overlap-param-gather are off by default). Each figure is
hand-computed from the run's shapes."""

from __future__ import annotations

from gpuwise.catalog import load_catalog
from gpuwise.estimate import estimate, memory
from gpuwise.estimate.comm import collective, topology
from gpuwise.workload import TrainingJob, build_hardware, build_workload

CAT = load_catalog()


def _job(**opts: object) -> TrainingJob:
    job = build_workload(opts, CAT)
    assert isinstance(job, TrainingJob)
    return job


def _detail(job: TrainingJob, gpu: str) -> dict[str, float]:
    return memory(job, build_hardware(gpu, CAT), CAT).per_gpu.detail


# llama-2-7b (h 4096, 32 layers, RMSNorm, two norms per block), micro-batch 1 x 4096 tokens, bf16
FULL = {"model": "llama-2-7b", "task": "finetune", "method": "full", "micro_batch": 1, "seq": 4096}


def test_an_eager_rmsnorm_keeps_its_normalized_tensor_when_the_weight_trains():
    """Transformers' LlamaRMSNorm returns `self.weight * hidden_states.to(input_dtype)`: with a trained
    weight autograd keeps the bf16 normalized tensor beside the fp32 input, per norm: 2 norms x 4096 x
    4096 tokens x 2 B = 64 MiB per layer, 2 GiB over 32 layers."""
    full = _detail(_job(**FULL, framework="deepspeed", zero=3, recompute="none"), "a800-80gb-sxm:8")
    # the same run with norms keeping only their fp32 input (a LoRA keeps no normalized tensor: frozen weight)
    per_layer = 2 * 4096 * 4096 * 2
    assert per_layer == 64 * 2**20
    lora = _detail(
        _job(
            **{**FULL, "method": "lora", "lora_targets": "all-linear"}, framework="deepspeed", zero=3, recompute="none"
        ),
        "a800-80gb-sxm:8",
    )
    # all-linear LoRA keeps every linear's input as full training does; the MLP and attention tensors
    # match, so the layers differ by the normalized tensors alone
    assert full["layer_activations"] - lora["layer_activations"] == 32 * per_layer


def test_fused_and_compiled_norms_keep_no_normalized_tensor():
    """Megatron's fused RMSNorm and torch.compile's fused norm derive the weight gradient from the input."""
    opts = {**FULL, "recompute": "none", "zero": 1}
    megatron = _detail(_job(**opts, framework="megatron"), "h100-sxm:8")
    lora_megatron = _detail(
        _job(**{**opts, "method": "lora", "lora_targets": "all-linear"}, framework="megatron"), "h100-sxm:8"
    )
    assert megatron["layer_activations"] == lora_megatron["layer_activations"]
    compiled = _job(**{**FULL, "recompute": "none"}, framework="torchtitan", compile=True)
    lora_compiled = _job(
        **{**FULL, "recompute": "none", "method": "lora", "lora_targets": "all-linear"},
        framework="torchtitan",
        compile=True,
    )
    assert (
        _detail(compiled, "h100-sxm:8")["layer_activations"]
        == _detail(lora_compiled, "h100-sxm:8")["layer_activations"]
    )


def test_megatron_core_before_0_8_keeps_an_extra_fp32_copy_of_the_logits():
    """core_v0.6.0: logits.float() and an out-of-place max subtraction beside the bf16 logits as the
    loss's forward runs: 10 B per logit. Llama 3 8B, TP 2 (128,256 / 2 = 64,128 logits per token on a
    rank), 8,192 tokens: 8,192 x 64,128 x 10 B = 5,253,365,760 B; core 0.8+ keeps 6 B: 3,152,019,456 B."""
    opts = {
        "model": "llama-3.1-8b",
        "task": "pretrain",
        "framework": "megatron",
        "micro_batch": 1,
        "seq": 8192,
        "tp": 2,
        "zero": 1,
        "recompute": "none",
    }
    new = _detail(_job(**opts), "h100-sxm:8")["logits_and_loss"]
    old = _detail(_job(**opts, loss="vocab_parallel_copy"), "h100-sxm:8")["logits_and_loss"]
    assert new == 8192 * 64128 * 6 == 3_152_019_456
    assert old == 8192 * 64128 * 10 == 5_253_365_760


MEGATRON = {
    "model": "llama-3.1-8b",
    "task": "pretrain",
    "framework": "megatron",
    "micro_batch": 1,
    "global_batch": 64,
    "seq": 4096,
    "tp": 2,
    "recompute": "none",
}


def _dp_seconds(job: TrainingJob, gpu: str) -> float:
    hw = build_hardware(gpu, CAT)
    return estimate(job, hw, CAT).training.terms["data_parallel_comm"]  # type: ignore[union-attr]


def test_a_distributed_optimizer_without_overlap_exposes_its_whole_reduce_scatter_and_all_gather():
    """Megatron Core without --overlap-grad-reduce / --overlap-param-gather: the fp32 gradient buffer is
    reduce-scattered after the last backward and the bf16 parameters all-gathered after the step, both
    on the critical path: the two collectives of the rank's 4.0e9 parameters over the 16 data-parallel
    ranks of 4 nodes (tp 2: 8 / 2 = 4 of them in each node share its NICs), in full."""
    job = _job(**MEGATRON, zero=1, overlap_grad_reduce=False)
    hw = build_hardware("h100-sxm:32", CAT)
    topo = topology(hw, CAT, hw.network)
    est = estimate(job, hw, CAT)
    params = est.memory.per_gpu.weights / 2  # bf16 weights of the rank
    scatter = collective("reduce_scatter", params * 4, 16, topo, True, 8 // 2)
    gather = collective("all_gather", params * 2, 16, topo, True, 8 // 2)
    assert est.training.terms["data_parallel_comm"] == scatter + gather  # type: ignore[union-attr]
    overlapped = _dp_seconds(_job(**MEGATRON, zero=1), "h100-sxm:32")
    assert overlapped < scatter + gather
    assert any("not overlapped" in a for a in est.training.notes)  # type: ignore[union-attr]


def test_plain_data_parallel_without_overlap_exposes_the_whole_all_reduce():
    job = _job(**MEGATRON, zero=0, overlap_grad_reduce=False)
    hw = build_hardware("h100-sxm:32", CAT)
    est = estimate(job, hw, CAT)
    grads = est.memory.per_gpu.weights / 2 * 4  # fp32 gradients of the rank's parameters
    expected = collective("all_reduce", grads, 16, topology(hw, CAT, hw.network), True, 8 // 2)  # 4 ranks a node
    assert est.training.terms["data_parallel_comm"] == expected  # type: ignore[union-attr]


def test_zero3_without_overlap_waits_for_each_micro_batchs_reduce_scatter():
    opts = {**MEGATRON, "framework": "fsdp", "tp": 1, "zero": 3, "global_batch": 128}
    on = _dp_seconds(_job(**opts), "h100-sxm:32")
    off = _dp_seconds(_job(**opts, overlap_grad_reduce=False), "h100-sxm:32")
    assert off > on
