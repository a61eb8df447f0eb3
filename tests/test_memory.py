"""Memory formulas against hand-computed cases. Each case says where its numbers come from."""

from dataclasses import replace

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.hf_import import arch_from_hf_config
from gpuwise.errors import UsageError
from gpuwise.estimate.memory import largest_fitting
from gpuwise.estimate.memory.activations import layer_activation_bytes
from gpuwise.estimate.memory.breakdown import Notes
from gpuwise.estimate.memory.inference import inference_memory, kv_cache_bytes
from gpuwise.estimate.memory.states import framework_of, lora_params, shard_model_states, stage_params
from gpuwise.estimate.memory.training import training_memory
from gpuwise.workload import Hardware, InferenceJob, Parallelism, TrainingJob
from gpuwise.workload.specs import FrameworkName

from .conftest import hf

GB = 1e9

# GPT-3 175B shape used by Korthikanti et al. (Table 3): h=12288, a=96, L=96, s=2048, with dropout.
GPT3 = arch_from_hf_config(
    {
        "model_type": "gpt2",
        "n_embd": 12288,
        "n_layer": 96,
        "n_head": 96,
        "vocab_size": 51200,
        "n_positions": 2048,
        "attn_pdrop": 0.1,
        "resid_pdrop": 0.1,
    },
    name="gpt3-175b",
)


def hw(catalog, gpu="a100-80gb-sxm", count=1, per_node=None):
    return Hardware(gpu=catalog.gpu(gpu), count=count, gpus_per_node=per_node or min(count, 8))


# --- ZeRO (Rajbhandari et al. 2019, Figure 1: 7.5B parameters, Nd = 64, K = 12) ---------------
@pytest.mark.parametrize(("stage", "published_gb"), [(0, 120), (1, 31.4), (2, 16.6), (3, 1.88)])
def test_zero_paper_figure1(stage, published_gb):
    p = 7.5e9
    w, g, o, m = shard_model_states(2 * p, 2 * p, 8 * p, 4 * p, dp=64, zero=stage)
    assert (w + g + o + m) / GB == pytest.approx(published_gb, rel=0.005)  # the paper rounds to 3 digits


# --- Korthikanti et al. 2022, section 4 (bytes per layer, 16-bit activations) -----------------
def _korthikanti(arch, s, b, t=1, sp=False, recompute="none"):
    # Megatron's fused LayerNorm keeps its 16-bit input: norm_bytes=2 as in the paper
    return layer_activation_bytes(arch, s, b, 2, t, sp, "eager", recompute, Notes(load_catalog()), norm_bytes=2)


def test_korthikanti_no_parallelism():
    s, b, h, a = 2048, 1, 12288, 96
    assert _korthikanti(GPT3, s, b) == pytest.approx(s * b * h * (34 + 5 * a * s / h))


@pytest.mark.parametrize("t", [2, 4, 8])
def test_korthikanti_tensor_parallel(t):
    s, b, h, a = 2048, 1, 12288, 96
    assert _korthikanti(GPT3, s, b, t) == pytest.approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t)))


@pytest.mark.parametrize("t", [2, 8])
def test_korthikanti_tensor_and_sequence_parallel(t):
    s, b, h, a = 2048, 1, 12288, 96
    assert _korthikanti(GPT3, s, b, t, sp=True) == pytest.approx(s * b * h / t * (34 + 5 * a * s / h))


def test_korthikanti_selective_and_full_recompute():
    s, b, h, t = 2048, 1, 12288, 8
    assert _korthikanti(GPT3, s, b, t, sp=True, recompute="selective") == pytest.approx(34 * s * b * h / t)
    assert _korthikanti(GPT3, s, b, t, sp=True, recompute="full") == pytest.approx(2 * s * b * h / t)


def test_gated_gqa_layer_without_dropout_generalizes(catalog):
    """Llama-2-7B full training, flash attention, no dropout, in bytes per token: 2 fp32 norm
    inputs (8h) + attention and MLP block inputs (4h) + Q and out-proj input (4h) + K, V (4h) +
    gate, silu(gate), up and the down-proj input (8f) + one fp32 log-sum-exp per head."""
    m = hf("llama-2-7b")
    s, b, h, f, a = 2048, 1, 4096, 11008, 32
    got = layer_activation_bytes(m, s, b, 2, 1, False, "flash", "none", Notes(catalog))
    assert got == pytest.approx(s * b * (8 * h + 4 * h + 4 * h + 4 * h + 8 * f) + 4 * s * b * a)


# --- KV cache ----------------------------------------------------------------------------------
def test_kv_cache_llama2_7b_mha():
    # 2 (K,V) x 32 layers x 32 heads x 128 dims x 2 bytes = 512 KiB per token
    assert kv_cache_bytes(hf("llama-2-7b"), tokens=1, batch=1, kv_bytes=2) == 524288


def test_kv_cache_gqa_and_tensor_parallel(catalog):
    llama70 = catalog.model("llama-2-70b")
    # 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 320 KiB per token
    assert kv_cache_bytes(llama70, 1, 1, 2) == 327680
    assert kv_cache_bytes(llama70, 1, 1, 2, tp=8) == 327680 / 8
    # tp beyond the 8 KV heads replicates them: each GPU still holds one head
    assert kv_cache_bytes(llama70, 1, 1, 2, tp=16) == 327680 / 8


def test_kv_cache_sliding_window_caps_tokens():
    m = hf("mistral-7b-v0.1")
    assert kv_cache_bytes(m, 8192, 1, 2) == kv_cache_bytes(m, 4096, 1, 2)
    assert kv_cache_bytes(m, 2048, 1, 2) == 2 * 32 * 8 * 128 * 2048 * 2


def test_kv_cache_none_for_encoders():
    assert kv_cache_bytes(hf("bert-base-uncased"), 512, 8, 2) == 0


# --- weights and adapters ------------------------------------------------------------------------
def test_lora_adapter_count_matches_peft():
    # PEFT prints "trainable params: 4,194,304" for Llama-2-7B with r=8 on q_proj, v_proj
    job = TrainingJob(model=hf("llama-2-7b"), method="lora", lora_rank=8, lora_targets=("q_proj", "v_proj"))
    assert lora_params(job, layers=32, tp=1) == 4_194_304


def test_qlora_weights_hand_computed(catalog):
    m = hf("llama-2-7b")
    block = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    other = m.params - block
    sp_ = stage_params(m, 1, 1, "only")
    assert sp_.block_linear == block and sp_.other == other
    job = TrainingJob(model=m, method="qlora", weights_dtype="nf4")
    est = training_memory(job, hw(catalog), catalog)
    assert est.per_gpu.detail["frozen_base"] == pytest.approx(block * (0.5 + 0.127 / 8) + other * 2)


def test_full_finetune_model_states_are_16_bytes_per_param(catalog):
    m = hf("llama-2-7b")
    est = training_memory(TrainingJob(model=m, method="full"), hw(catalog), catalog)
    pg = est.per_gpu
    assert pg.weights + pg.gradients + pg.optimizer == pytest.approx(16 * m.params)


def test_pipeline_first_stage_holds_pp_microbatches(catalog):
    m = catalog.model("llama-2-13b")
    base = TrainingJob(model=m, micro_batch=1, global_batch=64, seq=4096, parallel=Parallelism(pp=4))
    est = training_memory(base, hw(catalog, count=8), catalog)
    # the default fine-tuning stack (HF Trainer) runs an eager RMSNorm whose trained weight keeps the
    # normalized bf16 tensor for its gradient
    per_layer = layer_activation_bytes(m, 4096, 1, 2, 1, False, "flash", "none", Notes(catalog), norm_weight_bytes=2)
    # 40 layers / 4 stages = 10 layers, 4 micro-batches in flight on the first stage
    assert est.per_gpu.detail["layer_activations"] == pytest.approx(per_layer * 10 * 4)


def test_tensor_parallel_splits_weights(catalog):
    m = catalog.model("llama-2-70b")
    one = stage_params(m, 1, 1, "only").total
    eight = stage_params(m, 8, 1, "only").total
    assert eight == pytest.approx(one / 8, rel=0.001)


def test_inference_weights_at_int4_and_kv(catalog):
    m = hf("llama-2-7b")
    job = InferenceJob(model=m, weights_dtype="int4", input_tokens=1000, output_tokens=24, concurrency=4)
    est = inference_memory(job, hw(catalog), catalog)
    block = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    assert est.per_gpu.weights == pytest.approx(block * (0.5 + 2.5 / 128) + (m.params - block) * 2)
    assert est.per_gpu.kv_cache == 524288 * 1024 * 4


def test_largest_fitting_is_the_boundary(catalog):
    job = InferenceJob(model=hf("llama-2-7b"), input_tokens=2048, output_tokens=2048, concurrency=1)
    h = hw(catalog, "a10")
    n = largest_fitting(job, h, catalog, "concurrency")
    assert n >= 1
    assert inference_memory(replace(job, concurrency=n), h, catalog).fits
    assert not inference_memory(replace(job, concurrency=n + 1), h, catalog).fits


# Megatron-LM docs, api-guide/dist_optimizer.md: theoretical bytes per parameter (d = data-parallel
# size), non-distributed and distributed optimizer. "float16 param, fp32 grads" is the bf16 row.
MEGATRON_BYTES_PER_PARAM = [
    ("fp16", 20, lambda d: 4 + 16 / d),
    ("bf16", 18, lambda d: 6 + 12 / d),
    ("fp32", 16, lambda d: 8 + 8 / d),
]


@pytest.mark.parametrize("precision,plain,distributed", MEGATRON_BYTES_PER_PARAM, ids=["fp16", "bf16", "fp32"])
@pytest.mark.parametrize("framework", ["megatron", "nemo"])
def test_megatron_bytes_per_param_rows(precision, plain, distributed, framework):
    """Model states per parameter of Llama-2-7B on 8 GPUs, within 2 % of Megatron's table, with
    and without the distributed optimizer (ZeRO-1 semantics: optimizer and main copies sharded)."""
    catalog = load_catalog()
    model = hf("llama-2-7b")
    for zero, expected in ((0, plain), (1, distributed(8))):
        job = TrainingJob(
            model=model, task="pretrain", precision=precision, framework=framework, parallel=Parallelism(zero=zero)
        )
        per_gpu = training_memory(job, Hardware(catalog.gpu("h100-sxm"), 8, 8), catalog).per_gpu
        states = per_gpu.weights + per_gpu.gradients + per_gpu.optimizer
        assert states / model.params == pytest.approx(expected, rel=0.02), (precision, zero)


def test_framework_profiles_change_gradients_and_master_copies():
    """bf16 with a master copy: Megatron keeps fp32 gradients (2+4+4+8 = 18 B), AMP stacks keep
    fp32 parameters and gradients (4+4+8 = 16 B), torchtune trains in pure bf16 (2+2+4 = 8 B)."""
    catalog = load_catalog()
    model = hf("llama-2-7b")
    gpu = Hardware(catalog.gpu("h100-sxm"), 1, 1)
    expected: dict[FrameworkName, tuple[float, float, float]] = {
        "megatron": (2, 4, 12),
        "hf-trainer": (4, 4, 8),
        "fsdp": (4, 4, 8),
        "torchtune": (2, 2, 4),
    }
    for name, (w, g, o) in expected.items():
        master = catalog.framework(name).master_weights
        job = TrainingJob(model=model, framework=name, master_weights=master, optimizer_impl="fused")
        b = training_memory(job, gpu, catalog).per_gpu
        got = (b.weights / model.params, b.gradients / model.params, b.optimizer / model.params)
        assert got == pytest.approx((w, g, o)), name
    # the fsdp profile steps by torch's foreach AdamW: its fp32 moments' temporary, 4 B a parameter, outlives the
    # activations it passes (tests/test_optimizer_step.py)
    fsdp = training_memory(TrainingJob(model=model, framework="fsdp"), gpu, catalog).per_gpu
    assert fsdp.detail["optimizer_step_temporary"] == pytest.approx(4 * model.params)
    assert fsdp.optimizer == pytest.approx(8 * model.params)  # the states a checkpoint saves
    excess = fsdp.detail["optimizer_step_beyond_activations"]  # with the overheads: the activations stay the batch's
    assert excess == pytest.approx(4 * model.params - fsdp.activations) and fsdp.overhead > excess


def test_peak_as_each_tool_reports_it():
    """max_allocated excludes the CUDA context, NCCL buffers and allocator slack; max_reserved adds
    the slack back; device_used (nvidia-smi) is the whole total."""
    catalog = load_catalog()
    job = TrainingJob(model=hf("llama-2-7b"), method="lora")
    est = training_memory(job, Hardware(catalog.gpu("a100-80gb-sxm"), 2, 2), catalog)
    d, rep = est.per_gpu.detail, est.as_reported()
    assert rep["device_used"] == pytest.approx(est.per_gpu.total)
    assert rep["max_reserved"] == pytest.approx(est.per_gpu.total - d["cuda_context"] - d["nccl_buffers"])
    assert rep["max_allocated"] == pytest.approx(rep["max_reserved"] - d["allocator_fragmentation"])


def test_offload_moves_states_to_cpu():
    """ZeRO-Offload removes optimizer and master states from the GPU; FSDP cpu_offload with ZeRO-3
    leaves only the gathered layers of the parameters."""
    catalog = load_catalog()
    model = hf("llama-2-7b")
    gpu = Hardware(catalog.gpu("a100-80gb-sxm"), 8, 8)
    base = TrainingJob(model=model, framework="deepspeed", parallel=Parallelism(zero=3))
    plain = training_memory(base, gpu, catalog).per_gpu
    opt_off = training_memory(replace(base, offload=("optimizer",)), gpu, catalog).per_gpu
    all_off = training_memory(replace(base, offload=("params",)), gpu, catalog).per_gpu
    assert opt_off.optimizer == 0 and opt_off.weights == pytest.approx(plain.weights)
    assert all_off.gradients == 0 and all_off.weights == pytest.approx(plain.detail["zero3_gather_buffer"])
    assert all_off.detail["offloaded_to_cpu"] == pytest.approx(
        plain.optimizer + plain.gradients + plain.weights - plain.detail["zero3_gather_buffer"]
    )


def test_zero_offload_keeps_only_the_reduce_buckets_of_the_gradients():
    """DeepSpeed's ZeRO-Offload (ZeRO-2, optimizer offloaded) copies each gradient from the reduce bucket
    to its fp32 partition in CPU memory as backward makes it: the GPU keeps the 16-bit weights, two
    buckets of reduce_bucket_size elements (DeepSpeed's default 5e8, overlap_comm) and the largest
    parameter's staging buffer, so Llama 2 13B full fine-tuning fits one V100 32 GB, as the DeepSpeed
    tutorial states ('models of up to 13B parameters on one V100'). Under the Transformers Trainer the
    bucket is 'auto': hidden_size^2. FSDP's CPU offload is not ZeRO-Offload: its gradients stay."""
    catalog = load_catalog()
    model = catalog.model("llama-2-13b")
    v100 = Hardware(catalog.gpu("v100-32gb-sxm"), 1, 8)
    job = TrainingJob(
        model=model,
        framework="deepspeed",
        precision="fp16",
        seq=512,
        recompute="full",
        parallel=Parallelism(zero=2),
        offload=("optimizer",),
    )
    est = training_memory(job, v100, catalog)
    embedding = 32000 * 5120  # the largest tensor: the embedding (and the untied head)
    assert est.per_gpu.gradients == pytest.approx((2 * 5e8 + embedding) * 2)
    assert est.per_gpu.detail["gradients_in_cpu_memory"] == pytest.approx(model.params * 2, rel=0.01)
    assert est.per_gpu.detail["offloaded_to_cpu"] > 13e9 * 12  # fp32 master and Adam moments (not the gradients)
    assert est.per_gpu.weights == pytest.approx(model.params * 2, rel=0.01)
    assert est.fits
    trainer = training_memory(replace(job, framework="hf-trainer"), v100, catalog).per_gpu
    assert trainer.gradients == pytest.approx((2 * 5120 * 5120 + embedding) * 2)
    without = training_memory(replace(job, offload=()), v100, catalog).per_gpu
    assert without.gradients == pytest.approx(model.params * 2, rel=0.01)  # ZeRO-2 on one GPU: all of them
    # ZeRO-1 reduces at the accumulation boundary only: with 8 micro-batches a step every gradient waits
    eight = Hardware(catalog.gpu("a100-80gb-sxm"), 8, 8)
    zero1 = replace(job, parallel=Parallelism(zero=1), global_batch=64)
    assert training_memory(zero1, eight, catalog).per_gpu.gradients == pytest.approx(model.params * 2, rel=0.01)
    one_step = replace(zero1, global_batch=8)
    assert training_memory(one_step, eight, catalog).per_gpu.gradients == pytest.approx((2 * 5e8 + embedding) * 2)
    no_overlap = replace(job, overlap_grad_reduce=False)
    assert training_memory(no_overlap, v100, catalog).per_gpu.gradients == pytest.approx((5e8 + embedding) * 2)
    fsdp = replace(job, framework="fsdp", parallel=Parallelism(zero=3))
    kept = training_memory(fsdp, v100, catalog).per_gpu.gradients
    assert training_memory(replace(fsdp, offload=("optimizer",)), v100, catalog).per_gpu.gradients == kept


def test_fp8_keeps_fp8_linear_inputs():
    """Transformer Engine FP8: the inputs linears keep for their weight gradients are 1 B, not 2,
    (QKV/MLP inputs, down-projection and attention-output inputs); attention tensors stay bf16."""
    n = Notes(load_catalog())
    m = hf("llama-2-7b")
    s, b, h, f = 4096, 1, m.hidden, m.ffn
    bf16 = layer_activation_bytes(m, s, b, 2, 1, False, "flash", "none", n, norm_bytes=2, fused_swiglu=True)
    fp8 = layer_activation_bytes(
        m, s, b, 2, 1, False, "flash", "none", n, norm_bytes=2, linear_in_bytes=1, fused_swiglu=True
    )
    # saved by value: 2 linear inputs of width h, the down-proj input of width f, and (FP8 only) an
    # FP8 copy of the attention output of width q_dim = h
    assert bf16 - fp8 == pytest.approx(s * b * (2 * h + f) * 1 - s * b * h * 1)


def test_framework_names_are_the_catalog_profiles():
    """The schema's --framework choices and frameworks.yaml name the same stacks, each with a
    source for every convention and a fitted efficiency."""
    from gpuwise.workload.specs import FRAMEWORKS

    catalog = load_catalog()
    assert set(FRAMEWORKS) == set(catalog.frameworks)
    for prof in catalog.frameworks.values():
        assert prof.source_ids() <= set(catalog.sources), prof.id
        assert 0 < prof.efficiency <= 1.5
    assert set(catalog.framework_defaults) == {"pretrain", "finetune", "other"}


def test_the_default_stack_of_a_model_that_is_not_a_language_model_is_pytorch_data_parallel():
    """A ResNet-50, DLRM, diffusion UNet or ViT run named no stack and was estimated, and deployed, as
    Megatron-LM; language models (decoders and BERT) keep the task's default."""
    from gpuwise.catalog.arch import is_language_model
    from gpuwise.deploy.common import DeployOptions
    from gpuwise.deploy.launch import train_launch
    from gpuwise.workload import build_workload

    catalog = load_catalog()
    expect = {
        "resnet-50": "fsdp",
        "dlrm-criteo-1tb": "fsdp",
        "stable-diffusion-v1-5-unet": "fsdp",
        "vit-base-patch16-224": "fsdp",
        "bert-base-uncased": "megatron",
        "llama-2-7b": "megatron",
    }
    for model, stack in expect.items():
        arch = catalog.model(model)
        assert is_language_model(arch) == (stack == "megatron"), model
        assert catalog.default_framework("pretrain", language_model=is_language_model(arch)) == stack, model
        work = build_workload({"model": model, "task": "pretrain", "micro_batch": 8}, catalog)
        assert framework_of(work, catalog).id == stack, model
    assert catalog.default_framework("finetune", language_model=True) == "hf-trainer"
    assert catalog.default_framework("finetune", language_model=False) == "fsdp"
    from gpuwise.api import make_plan

    plan = make_plan({"model": "resnet-50", "task": "pretrain", "samples": 1_000_000}, {"gpus": "a100-80gb-sxm"})
    assert plan.chosen is not None
    assert train_launch(plan.chosen, DeployOptions(), catalog).framework == "fsdp"


def test_a_model_that_is_not_a_language_model_runs_ddp_unless_an_option_needs_sharding():
    """No stack named: plain DDP (ZeRO-0) for a ViT, as timm's trainer runs it; CPU offload or hybrid
    sharding need the FSDP profile's sharding, so they keep it (ZeRO-3) rather than a DDP no stack runs;
    a stack named keeps its own default."""
    from gpuwise.workload import build_workload

    catalog = load_catalog()
    vit = {"model": "vit-base-patch16-224", "task": "pretrain", "micro_batch": 64}
    assert build_workload(vit, catalog).parallel.zero == 0
    assert build_workload({**vit, "offload": ["optimizer"]}, catalog).parallel.zero == 3
    assert build_workload({**vit, "sharding": "hybrid"}, catalog).parallel.zero == 3
    assert build_workload({**vit, "framework": "fsdp"}, catalog).parallel.zero == 3
    assert build_workload({**vit, "zero": 2}, catalog).parallel.zero == 2


def test_torchtune_lora_on_a_4090_within_15_percent_of_its_published_peak():
    """torchtune README (2024-09): Llama 3.1 8B LoRA (r=8 on q, v), batch 2 x 2048 packed, one RTX
    4090, activation checkpointing: 16.2 GiB peak (torch allocated). The torchtune profile (pure bf16,
    chunked cross-entropy) lands within 15 %; without the profiles the estimate was +35 %."""
    from gpuwise.workload import build_hardware, build_workload

    catalog = load_catalog()
    opts = {"model": "llama-3.1-8b", "method": "lora", "framework": "torchtune", "micro_batch": 2, "seq": 2048}
    work = build_workload({**opts, "lora_rank": 8, "lora_targets": "q_proj,v_proj"}, catalog)
    assert isinstance(work, TrainingJob)
    est = training_memory(work, build_hardware("rtx-4090", catalog), catalog)
    assert est.as_reported()["max_allocated"] / 2**30 == pytest.approx(16.2, rel=0.15)


def test_nvidia_70b_fp8_tp4_pp8_layout_fits_on_64_h100():
    """Megatron-Bridge 25.11 ran Llama 3 70B in FP8 with TP 4, PP 8, VP 5, MBS 1, seq 8192 on 64
    H100 (published 1,602 tokens/s/GPU): with Transformer Engine's FP8 activations and the NeMo
    recipe's distributed optimizer the layout fits in 80 GiB."""
    from gpuwise.workload import build_hardware, build_workload

    catalog = load_catalog()
    opts = {"model": "llama-3.1-70b", "task": "pretrain", "framework": "nemo", "precision": "fp8", "tp": 4, "pp": 8}
    work = build_workload({**opts, "vpp": 5, "micro_batch": 1, "global_batch": 128, "seq": 8192}, catalog)
    assert isinstance(work, TrainingJob)
    est = training_memory(work, build_hardware("h100-sxm:64", catalog), catalog)
    assert est.fits, est.per_gpu.as_dict()


# --- memory savers of fine-tuning stacks, each against a hand count -------------------------
def _llama7b_job(catalog, **kw):
    return TrainingJob(model=hf("llama-2-7b"), micro_batch=1, seq=1024, **kw)


def test_compile_keeps_16bit_norm_inputs_and_two_swiglu_tensors(catalog):
    """torch.compile (AOTAutograd's min-cut partitioner): each of the two RMSNorms keeps its 16-bit
    input instead of the eager fp32 upcast and no normalized tensor for the weight (2 + 2 B less per
    element), SwiGLU keeps gate and up but not silu(gate) (2 B x ffn less), in every one of
    Llama-2-7B's 32 layers."""
    eager = _llama7b_job(catalog, framework="hf-trainer")
    compiled = replace(eager, compile=True)
    a = training_memory(eager, hw(catalog), catalog).per_gpu.detail["layer_activations"]
    b = training_memory(compiled, hw(catalog), catalog).per_gpu.detail["layer_activations"]
    s, h, f = 1024, 4096, 11008
    assert a - b == pytest.approx(32 * s * (2 * (2 + 2) * h + 2 * f))


def test_optimizer_in_backward_keeps_only_the_largest_gradient(catalog):
    """optimizer_in_bwd: each gradient is applied and freed as it is produced, so at the peak only
    the largest parameter's exists: Llama 3.1 8B's untied 128256 x 4096 head or embedding, in bf16."""
    m = catalog.model("llama-3.1-8b")
    job = TrainingJob(model=m, framework="torchtune", master_weights=False, optimizer_in_backward=True)
    est = training_memory(job, hw(catalog), catalog)
    assert est.per_gpu.gradients == 128256 * 4096 * 2
    with pytest.raises(UsageError, match="optimizer-in-backward"):
        training_memory(replace(job, global_batch=4), hw(catalog), catalog)


def test_paged_optimizer_states_are_outside_torch_statistics(catalog):
    """bitsandbytes PagedAdamW8bit: 2 B of state per parameter in CUDA unified memory. torch's
    max_allocated and max_reserved leave them out, and they page to the host rather than block a
    fit: Llama-2-7B full fine-tuning with the step in backward fits a 24 GB 4090 only when paged."""
    base = TrainingJob(
        model=hf("llama-2-7b"),
        framework="torchtune",
        master_weights=False,
        optimizer="adamw-8bit",
        optimizer_in_backward=True,
        recompute="full",
        micro_batch=1,
        seq=512,
    )
    gpu = hw(catalog, "rtx-4090")
    plain = training_memory(base, gpu, catalog)
    paged = training_memory(replace(base, paged_optimizer=True), gpu, catalog)
    states = 2 * hf("llama-2-7b").params
    assert paged.per_gpu.optimizer == pytest.approx(states)
    assert plain.as_reported()["max_allocated"] - paged.as_reported()["max_allocated"] == pytest.approx(states)
    assert paged.fits and not plain.fits
    assert paged.as_reported()["device_used"] == pytest.approx(gpu.gpu.capacity_bytes)  # full, the rest on host


def test_qlora_inputs_by_backend(catalog):
    """bitsandbytes' MatMul4Bit before 0.43.2 keeps every 4-bit linear's input (the q/k/v and gate/up
    inputs, the o_proj and down_proj inputs: 2 x (2h + h + ffn) bytes per token and layer), and a plain
    loop (profile fsdp) still holds the previous micro-batch's graph, so one more such set is allocated;
    torchao's LinearNF4 (torchtune) keeps none: its QLoRA saves what LoRA on the same targets does."""
    s, h, f = 1024, 4096, 11008
    legacy = "bitsandbytes-legacy"
    bnb_job = _llama7b_job(catalog, method="qlora", framework="fsdp", quantized_linear=legacy)
    bnb = training_memory(bnb_job, hw(catalog), catalog)
    assert bnb.per_gpu.detail["bnb_inputs_held"] == pytest.approx(32 * s * 2 * (3 * h + f))
    hf_job = _llama7b_job(catalog, method="qlora", framework="hf-trainer", quantized_linear=legacy)
    hf_trainer = training_memory(hf_job, hw(catalog), catalog)
    assert "bnb_inputs_held" not in hf_trainer.per_gpu.detail  # its training_step drops the loss
    ao = training_memory(_llama7b_job(catalog, method="qlora", framework="torchtune"), hw(catalog), catalog)
    lora = training_memory(_llama7b_job(catalog, method="lora", framework="torchtune"), hw(catalog), catalog)
    assert ao.per_gpu.detail["layer_activations"] == pytest.approx(lora.per_gpu.detail["layer_activations"])
    assert bnb.per_gpu.detail["layer_activations"] - ao.per_gpu.detail["layer_activations"] > 0


def test_zero3_gathers_the_lm_head_with_its_gradient(catalog):
    """FSDP2 with Llama 3.1 8B on 8 GPUs: the untied head (128256 x 4096) is larger than a layer, so
    at the loss a rank holds it gathered, its unsharded gradient, and one prefetched layer, in bf16.
    A 4-bit base is gathered in its NF4 storage (block linears at 0.5 + 0.127/8 B)."""
    m = catalog.model("llama-3.1-8b")
    job = TrainingJob(model=m, framework="torchtitan", parallel=Parallelism(zero=3), recompute="full")
    est = training_memory(job, hw(catalog, count=8), catalog)
    head = 128256 * 4096 * 2
    assert est.per_gpu.detail["zero3_gather_buffer"] == pytest.approx(2 * head + m.layer_params * 2)
    linear = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336  # q, o; k, v (8 KV heads); gate, up, down
    qlora = replace(job, method="qlora", weights_dtype="nf4", master_weights=False)
    got = training_memory(qlora, hw(catalog, count=8), catalog).per_gpu.detail["zero3_gather_buffer"]
    layer = linear * (0.5 + 0.127 / 8) + (m.layer_params - linear) * 2
    assert got == pytest.approx(head + layer)


def test_torchtitan_pipeline_stage_stays_unsharded(catalog):
    """torchtitan with PP 2 x FSDP 4: the stage is not resharded between micro-batches and its
    gradients are reduce-scattered only after the last one, so a rank holds the whole stage's
    parameters in bf16 (2 B) and its gradients accumulated in fp32 (4 B), beside its fp32 shards."""
    m = catalog.model("llama-3.1-8b")
    par = Parallelism(pp=2, zero=3)
    job = TrainingJob(model=m, framework="torchtitan", parallel=par, micro_batch=1, global_batch=8, seq=2048)
    est = training_memory(job, hw(catalog, count=8), catalog)
    stages = {round(2 * stage_params(m, 1, 2, s).total) for s in ("first", "last")}  # the worst stage is reported
    d = est.per_gpu.detail
    assert round(d["zero3_gather_buffer"]) in stages
    assert d["unsharded_gradients"] == pytest.approx(2 * d["zero3_gather_buffer"])


def test_amp_keeps_a_16bit_copy_of_every_matmul_weight(catalog):
    """HF Trainer AMP (fp32 parameters, bf16 autocast, no sharding): autocast casts each block linear
    and the LM head to bf16 once per forward and autograd keeps the copy for backward; under ZeRO-3
    the gathered 16-bit parameters are those copies, so nothing is added there."""
    m = hf("llama-2-7b")
    job = TrainingJob(model=m, framework="hf-trainer")
    d = training_memory(job, hw(catalog), catalog).per_gpu.detail
    block = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    assert d["autocast_weight_copies"] == pytest.approx(2 * (block + 32000 * 4096))
    sharded = replace(job, parallel=Parallelism(zero=3))
    assert "autocast_weight_copies" not in training_memory(sharded, hw(catalog, count=8), catalog).per_gpu.detail


def test_loss_override_sets_bytes_per_logit(catalog):
    """torchtune's profile counts CEWithChunkedOutputLoss (2 + 4/8 B per logit); a run on a torchtune
    before it (--loss eager: the saved fp32 log-softmax and, as backward starts, its two fp32
    gradients: 12 B) keeps 1024 x 128256 x 9.5 B more."""
    m = catalog.model("llama-3.1-8b")
    job = TrainingJob(model=m, method="lora", framework="torchtune", micro_batch=2, seq=512, master_weights=False)
    chunked = training_memory(job, hw(catalog), catalog).per_gpu.detail["logits_and_loss"]
    eager = training_memory(replace(job, loss="eager"), hw(catalog), catalog).per_gpu.detail["logits_and_loss"]
    assert chunked == pytest.approx(1024 * 128256 * 2.5)
    assert eager - chunked == pytest.approx(1024 * 128256 * 9.5)


def test_context_parallel_ranks_share_the_zero_shards(catalog):
    """torchtitan FSDP x CP on 8 GPUs: CP ranks hold the same parameters, so FSDP shards over all 8
    (dp x cp), whatever the split: Llama 3.1 8B's fp32 parameter shard is 8.03B x 4 B / 8 at CP 1 and CP 8."""
    m = catalog.model("llama-3.1-8b")
    shards = []
    for cp in (1, 8):
        job = TrainingJob(model=m, framework="torchtitan", parallel=Parallelism(zero=3, cp=cp), seq=8192 * cp)
        d = training_memory(job, hw(catalog, count=8), catalog).per_gpu
        shards.append(d.weights - d.detail["zero3_gather_buffer"])
    assert shards[0] == pytest.approx(m.params * 4 / 8)
    assert shards[1] == pytest.approx(shards[0])


def test_expert_tensor_parallelism_halves_the_expert_weights_per_rank():
    """Mixtral (32 layers, 8 experts of 3 x 4096 x 14336) on tp 2, ep 2: each rank holds 4 experts;
    etp 1 keeps them whole (8 x 3 x 4096 x 14336 / 2 per layer), etp 2 halves them; attention and
    the router stay split over tp either way."""
    model = load_catalog().model("mixtral-8x7b-v0.1")
    experts = 32 * 8 * 3 * 4096 * 14336
    whole = stage_params(model, 2, 1, "only", 8, ep=2, etp=1).block_linear
    halved = stage_params(model, 2, 1, "only", 8, ep=2, etp=2).block_linear
    assert whole - halved == experts / 4
    assert stage_params(model, 2, 1, "only", 8, ep=2).block_linear == halved  # etp defaults to tp


def test_padded_capacity_scales_the_expert_activations():
    """The experts' saved intermediates (gate, act, up and down's input: 4 x f per token copy, 16-bit)
    grow with a padded capacity factor of 1.25; the rest of the layer does not."""
    model = load_catalog().model("mixtral-8x7b-v0.1")
    n = Notes(load_catalog())
    args = (model, 4096, 1, 2, 1, False, "flash", "none", n)
    dropless = layer_activation_bytes(*args)
    padded = layer_activation_bytes(*args, expert_load=1.25)
    assert padded - dropless == pytest.approx(0.25 * 2 * 4 * 4096 * 14336 * 2)


def test_moe_expert_states_shard_over_the_expert_data_parallel_group():
    """Mixtral on 8 GPUs, ep 8, ZeRO-1: a rank holds 7,242,780,672 parameters, 5,637,144,576 of them
    experts (32 layers x 8 x 3 x 4096 x 14336 / 8; f = 0.7783). Megatron shards expert states over
    world / (pp x ep x etp) = 1 rank, the rest over 8: optimizer states are (1 - f) / 8 + f = 0.806 of
    unsharded, 6.448 times the dense-only 1/8."""
    from gpuwise.estimate.memory.states import shard_job_states

    catalog = load_catalog()
    model = catalog.model("mixtral-8x7b-v0.1")
    job = TrainingJob(model=model, parallel=Parallelism(zero=1, ep=8))
    sp_ = stage_params(model, 1, 1, "only", 8, ep=8)
    (w, g, opt, master), r = shard_job_states(job, sp_, (1.0, 1.0, 1.0, 1.0), 8, Notes(catalog))
    assert r == pytest.approx(6.448, abs=1e-3)
    assert opt == master == pytest.approx(0.806, abs=1e-3) and (w, g) == (1.0, 1.0)
    dense = TrainingJob(model=catalog.model("llama-2-7b"), parallel=Parallelism(zero=1))
    assert shard_job_states(dense, sp_, (1.0, 1.0, 1.0, 1.0), 8, Notes(catalog)) == ((1.0, 1.0, 0.125, 0.125), 1.0)


def test_peft_kbit_upcast_runs_a_qlora_model_in_fp32():
    """PEFT's prepare_model_for_kbit_training (axolotl's 2023 QLoRA path): Llama-2-7B's embeddings and
    head (2 x 32000 x 4096) and its 65 norms (65 x 4096) go to fp32, +2 B each; the layer checkpoints
    of full recomputation are fp32 block inputs, 32 x 2 x 4096 x 4096 x 4 B instead of x 2 B; the fp32
    head gets a 16-bit autocast copy, 32000 x 4096 x 2 B. Without --method qlora it is a clear error."""
    catalog = load_catalog()
    model = catalog.model("llama-2-7b")
    base = TrainingJob(model=model, method="qlora", lora_rank=8, micro_batch=2, seq=4096, recompute="full")
    up = replace(base, kbit_fp32_upcast=True)
    d0 = training_memory(base, hw(catalog), catalog).per_gpu.detail
    d1 = training_memory(up, hw(catalog), catalog).per_gpu.detail
    assert d1["frozen_base"] - d0["frozen_base"] == (2 * 32000 * 4096 + 65 * 4096) * 2
    assert d1["layer_activations"] - d0["layer_activations"] == 32 * 2 * 4096 * 4096 * 2
    assert d1["autocast_weight_copies"] - d0.get("autocast_weight_copies", 0.0) == 32000 * 4096 * 2
    assert d1["logits_and_loss"] == d0["logits_and_loss"]  # the head runs under autocast: 16-bit logits
    with pytest.raises(UsageError, match="--method qlora"):
        training_memory(replace(base, method="lora", kbit_fp32_upcast=True), hw(catalog), catalog)


def test_autocast_keeps_the_eager_softmax_in_fp32():
    """torch.autocast runs softmax in fp32 (CUDA autocast's fp32 op list), so an AMP stack's eager
    attention keeps a 4 B softmax output instead of 2 B: BERT-large (24 layers, 16 heads) at batch 4
    x 512 tokens holds 24 x 16 x 512 x 512 x 4 x 2 B = 805,306,368 B more than 16-bit probabilities
    would take. Pure 16-bit training (no autocast) is unchanged."""
    catalog = load_catalog()
    bert = catalog.model("bert-large-uncased")
    amp = TrainingJob(
        model=bert, method="full", precision="fp16", framework="hf-trainer", attention="eager", seq=512, micro_batch=4
    )
    n = Notes(catalog)
    args = (bert, 512, 4, 2, 1, False, "eager", "none", n)
    assert layer_activation_bytes(*args, softmax_bytes=4) - layer_activation_bytes(*args) == 16 * 512 * 512 * 4 * 2
    d = training_memory(amp, hw(catalog, "v100-32gb-sxm"), catalog).per_gpu.detail
    pure = replace(amp, master_weights=False)
    d16 = training_memory(pure, hw(catalog, "v100-32gb-sxm"), catalog).per_gpu.detail
    assert d["layer_activations"] - d16["layer_activations"] == 24 * 16 * 512 * 512 * 4 * 2


def test_full_recompute_checkpoints_without_sequence_parallelism_are_whole_per_rank(catalog):
    """GPT-NeoX-style layout under DeepSpeed (no sequence parallelism): llama-2-13b, tp4 x pp2, micro-batch
    4 x 2048 tokens in fp16, full recomputation. A checkpoint keeps each layer's input, 4 x 2048 x 5120 x 2 B
    = 83.9 MB, on every tensor-parallel rank (sequence parallelism would keep a quarter); the first stage,
    the most loaded, holds 40 / 2 = 20 layers of min(pp, micro-batches) = 2 micro-batches: 3.36 GB."""
    m = catalog.model("llama-2-13b")
    job = TrainingJob(
        model=m,
        task="pretrain",
        precision="fp16",
        weights_dtype="fp16",
        micro_batch=4,
        global_batch=64,
        seq=2048,
        recompute="full",
        framework="deepspeed",
        parallel=Parallelism(tp=4, pp=2, sequence_parallel=False),
    )
    whole = training_memory(job, hw(catalog, count=8), catalog).per_gpu.detail["layer_activations"]
    assert whole == pytest.approx(4 * 2048 * 5120 * 2 * 20 * 2)


# --- Megatron Core's FP8 parameters and bf16 gradient reduce (Megatron-Bridge's FP8 performance recipes) ---
def _fp8_70b(catalog, **extra):
    """Llama 3 70B SFT on 32 H100 at TP 4, PP 8, VP 5, DP 1 (Megatron-Bridge's perf-memory-tuning skill)."""
    from gpuwise.workload import build_workload

    opts = {"model": "llama-3.1-70b", "task": "finetune", "framework": "nemo", "precision": "fp8", "tp": 4, "pp": 8}
    work = build_workload({**opts, "vpp": 5, "micro_batch": 1, "global_batch": 32, "seq": 4096, **extra}, catalog)
    assert isinstance(work, TrainingJob)
    return work


def test_fp8_parameters_store_one_byte_per_linear_weight(catalog):
    """--weights-dtype fp8 (--fp8-param-gather): a rank's block linears are stored in FP8 (1 B), the
    rest (embedding, norms) in bf16; Transformer Engine then caches only the FP8 transpose (1 B per
    linear weight, where bf16 parameters cache an FP8 copy and its transpose, 2 B)."""
    from gpuwise.estimate.memory.states import fp8_weight_cache, full_states

    nemo = catalog.framework("nemo")
    sp_ = stage_params(catalog.model("llama-3.1-70b"), 4, 8, "first")
    for extra, stored, cached in (({}, sp_.total * 2, 2 * sp_.block_linear), ({"weights_dtype": "fp8"}, None, None)):
        job = _fp8_70b(catalog, **extra)
        weights = full_states(job, sp_, nemo, Notes(catalog), {})[0]
        cache = fp8_weight_cache(job, sp_, nemo, Notes(catalog))
        assert weights == pytest.approx(stored if stored else sp_.block_linear * 1 + sp_.other * 2)
        assert cache == pytest.approx(cached if cached else sp_.block_linear)
    # 70.6B over TP 4 x PP 8: about 2.2B linear weights a rank, 2.2 GB in FP8 where bf16 took 4.4 GB
    assert 2.0e9 < sp_.block_linear < 2.4e9


def test_bf16_gradient_reduce_halves_the_gradient_buffer(catalog):
    """--grad-reduce-dtype bf16 (Megatron's --grad-reduce-in-bf16): the contiguous gradient buffer
    holds 2 B per parameter, not the fp32 main gradients' 4 B; the time model reduces half the bytes."""
    from gpuwise.api import make_estimate
    from gpuwise.workload import build_hardware

    hw32 = build_hardware("h100-sxm:32", catalog)
    fp32 = training_memory(_fp8_70b(catalog, pp=4), hw32, catalog).per_gpu
    bf16 = training_memory(_fp8_70b(catalog, pp=4, grad_reduce_dtype="bf16"), hw32, catalog).per_gpu
    assert bf16.gradients == pytest.approx(fp32.gradients / 2)
    opts = {"model": "llama-3.1-70b", "task": "pretrain", "framework": "nemo", "precision": "bf16", "tp": 8}
    opts |= {"pp": 1, "zero": 1, "micro_batch": 1, "global_batch": 16, "seq": 4096, "overlap_grad_reduce": False}
    comm = {}
    for dtype in ("fp32", "bf16"):
        est = make_estimate({**opts, "grad_reduce_dtype": dtype}, {"gpu": "h100-sxm:16"}).as_dict()
        comm[dtype] = est["training"]["step_terms"]["data_parallel_comm"]
    # the reduce-scatter carries half the bytes; the 16-bit parameter all-gather is the same
    assert 0 < comm["bf16"] < comm["fp32"]


def test_fsdp_reduces_in_bf16_and_keeps_fp32_gradients(catalog):
    """PyTorch FSDP's MixedPrecision(reduce_dtype=bf16): the reduce-scatter carries 2 B a parameter where
    the default carries 4, and the reduced shard is cast back to the fp32 parameter's dtype, so the
    gradient memory is unchanged; on a slow network the exposed data-parallel time falls."""
    from gpuwise.api import make_estimate

    opts = {"model": "llama-3.1-8b", "task": "pretrain", "framework": "fsdp", "precision": "bf16", "zero": 3}
    opts |= {"micro_batch": 1, "global_batch": 16, "seq": 2048}
    hw = {"gpu": "h100-sxm:16", "network": "1x100g", "gpus_per_node": 8}
    est = {dtype: make_estimate({**opts, "grad_reduce_dtype": dtype}, hw).as_dict() for dtype in (None, "bf16")}
    grads = {d: e["memory"]["per_gpu"]["gradients"] for d, e in est.items()}
    assert grads["bf16"] == grads[None]
    comm = {d: e["training"]["step_terms"]["data_parallel_comm"] for d, e in est.items()}
    assert 0 < comm["bf16"] < comm[None]
    assert any("reduced in bf16 (reduce_dtype bf16), kept in the fp32" in a for a in est["bf16"]["assumptions"])
    with pytest.raises(UsageError, match="communication hook"):  # DDP has no reduce_dtype
        make_estimate({**opts, "zero": 0, "grad_reduce_dtype": "bf16"}, hw)


def test_no_parameter_transpose_cache_drops_the_fp8_weight_copies(catalog):
    """Megatron Core's disable_parameter_transpose_cache runs each TE linear with is_first_microbatch=None:
    with FP8 parameters no transpose is cached (backward makes it again): 0 B."""
    from gpuwise.workload import build_hardware

    hw32 = build_hardware("h100-sxm:32", catalog)
    job = _fp8_70b(catalog, weights_dtype="fp8", param_transpose_cache=False)
    detail = training_memory(job, hw32, catalog).per_gpu.detail
    assert "fp8_weight_cache" not in detail


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"framework": "torchtitan", "weights_dtype": "fp8", "zero": 0}, "fp8_params"),
        ({"precision": "bf16", "weights_dtype": "fp8"}, "--precision fp8"),
        ({"weights_dtype": "fp8", "master_weights": False}, "main copy"),
        ({"framework": "deepspeed", "grad_reduce_dtype": "bf16", "zero": 1}, "bf16_grad_reduce"),
        ({"precision": "bf16", "param_transpose_cache": False}, "FP8 parameters only"),
    ],
)
def test_fp8_parameters_and_bf16_reduce_are_refused_where_the_run_cannot_have_them(catalog, extra, says):
    with pytest.raises(UsageError, match=says):
        _fp8_70b(catalog, **extra)


def test_an_fp32_gradient_reduce_the_stack_cannot_set_is_refused(catalog):
    """torchtune keeps bf16 gradients (pure bf16): --grad-reduce-dtype fp32 names no setting of it."""
    with pytest.raises(UsageError, match="gradient_bytes"):
        _fp8_70b(
            catalog, framework="torchtune", precision="bf16", grad_reduce_dtype="fp32", tp=1, pp=1, vpp=None, zero=3
        )


def test_the_largest_micro_batch_of_a_step_in_backward_takes_the_global_batch_with_it(catalog):
    """--optimizer-in-backward takes one micro-batch a step: sizing the micro-batch of a run written with
    --global-batch (torchtune's single-device recipe: batch 2, optimizer_in_bwd) moves the global batch with
    it rather than refusing the run (the sizing used to try micro-batch 1 under global batch 2)."""
    from gpuwise.workload import build_hardware, build_workload

    opts = {"model": "llama-2-7b", "method": "full", "framework": "torchtune", "master_weights": False}
    work = build_workload(
        {**opts, "optimizer_in_backward": True, "micro_batch": 2, "global_batch": 2, "seq": 512}, catalog
    )
    hw1 = build_hardware("a100-80gb-sxm:1", catalog)
    best = largest_fitting(work, hw1, catalog, "micro_batch")
    assert best >= 2
    assert training_memory(replace(work, micro_batch=best, global_batch=best), hw1, catalog).fits
    assert not training_memory(replace(work, micro_batch=best + 1, global_batch=best + 1), hw1, catalog).fits


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        # Megatron asserts the distributed optimizer for --fp8-param-gather
        ({"weights_dtype": "fp8", "zero": 0}, "did you mean --zero 1"),
        ({"weights_dtype": "fp8", "zero": 2, "pp": 1, "vpp": None}, "did you mean --zero 1"),
        # without FP8 parameters each micro-batch keeps its own FP8 weight copy: not modelled
        ({"param_transpose_cache": False}, "FP8 parameters only"),
        # the gradient buffer of full mixed precision only: adapters and pure 16-bit have none to set
        ({"grad_reduce_dtype": "bf16", "method": "lora"}, "full mixed-precision"),
        ({"grad_reduce_dtype": "fp32", "master_weights": False}, "full mixed-precision"),
        # DeepSpeed offloads under ZeRO 1-3
        ({"framework": "deepspeed", "offload": "optimizer", "zero": 0, "pp": 1, "vpp": None}, "did you mean --zero 2"),
    ],
)
def test_options_a_run_cannot_have_are_refused_with_the_fix(catalog, extra, says):
    with pytest.raises(UsageError, match=says):
        _fp8_70b(catalog, **extra)


def test_fp8_parameters_default_to_and_plan_with_the_distributed_optimizer(catalog):
    """--weights-dtype fp8 without --zero takes Megatron Core's distributed optimizer (ZeRO-1), and the
    layout search times no other stage for it, so the plan's command is one estimate accepts."""
    from gpuwise.api import make_plan

    work = _fp8_70b(catalog, weights_dtype="fp8", framework="megatron")
    assert work.parallel.zero == 1
    wl = {"model": "llama-3.1-8b", "task": "pretrain", "framework": "megatron", "precision": "fp8"}
    result = make_plan(
        {**wl, "weights_dtype": "fp8", "seq": 4096, "tokens": "10B"}, {"gpus": ["h100-sxm"], "deadline": "3d"}
    )
    assert result.candidates and all(c.est.workload.parallel.zero == 1 for c in result.candidates)


def test_deepspeed_offload_defaults_to_zero_offload(catalog):
    """The Trainer's CPU offload runs through DeepSpeed's ZeRO: --offload optimizer without --zero is
    ZeRO-Offload (ZeRO-2), not the Trainer's own loop (ZeRO 0), which has no offload."""
    from gpuwise.workload import build_workload

    work = build_workload({"model": "llama-2-7b", "method": "lora", "offload": "optimizer"}, catalog)
    assert isinstance(work, TrainingJob) and work.parallel.zero == 2


def test_a_16_bit_reduce_beside_pure_16_bit_training_restates_it():
    """--grad-reduce-dtype bf16 with --no-master-weights at bf16: the gradients of pure bf16 training are bf16 and
    reduce so (FSDP2's MixedPrecisionPolicy with bf16 parameters): accepted and the same estimate as without it;
    an fp32 reduce there is still refused (gpuwise has no setting for it)."""
    from gpuwise.api import make_estimate

    spec = {
        "model": "llama-2-7b",
        "task": "pretrain",
        "framework": "fsdp",
        "precision": "bf16",
        "master_weights": False,
    }
    hw = {"gpu": "h100-sxm:8"}
    same = make_estimate({**spec, "grad_reduce_dtype": "bf16"}, hw)
    plain = make_estimate(spec, hw)
    assert same.as_dict()["memory"] == plain.as_dict()["memory"]
    assert same.as_dict()["training"] == plain.as_dict()["training"]
    with pytest.raises(UsageError, match="full mixed-precision"):
        make_estimate({**spec, "grad_reduce_dtype": "fp32"}, hw)


def test_lora_on_an_llm_int8_base():
    """LoRA on a bitsandbytes LLM.int8 base (load_in_8bit): Llama-2-7B's block linears, 32 x (4 x 4096^2 +
    3 x 4096 x 11008) = 6,476,005,376 weights, are int8; its embeddings, head and 65 norms (262,410,240)
    stay 16-bit, or go to fp32 under PEFT's prepare_model_for_kbit_training (--kbit-fp32-upcast, also a
    k-bit preparation). MatMul8bitLt keeps each int8 linear's input for backward, so without recomputation
    a layer keeps, beyond the q/v adapters' shared input and the attention output its kernel keeps anyway,
    gate/up's shared input (4096 wide) and down_proj's (11008): 2 B x 2 x 1024 x (4096 + 11008) more
    than on a 16-bit base, in each of the 32 layers."""
    catalog = load_catalog()
    model = catalog.model("llama-2-7b")
    lora = TrainingJob(
        model=model, method="lora", lora_rank=8, lora_targets=("q_proj", "v_proj"), micro_batch=2, seq=1024
    )
    int8 = replace(lora, weights_dtype="int8")
    d16 = training_memory(lora, hw(catalog), catalog).per_gpu.detail
    d8 = training_memory(int8, hw(catalog), catalog).per_gpu.detail
    assert d8["frozen_base"] == 6_476_005_376 + 262_410_240 * 2
    up = training_memory(replace(int8, kbit_fp32_upcast=True), hw(catalog), catalog).per_gpu.detail
    assert up["frozen_base"] == 6_476_005_376 + 262_410_240 * 4
    assert d8["layer_activations"] - d16["layer_activations"] == 32 * 2 * 2 * 1024 * (4096 + 11008)
    with pytest.raises(UsageError, match="--weights-dtype int8"):
        training_memory(replace(lora, kbit_fp32_upcast=True), hw(catalog), catalog)
