"""Layouts the stacks run for a quantized base and for CPU offload: `estimate` refuses what no stack runs
(tensor parallelism over a bitsandbytes or GPTQ/AWQ base, ZeRO-3 or FSDP over an int8 or int4 one,
DeepSpeed parameter offload below ZeRO-3) and `plan` never proposes it."""

from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from gpuwise.api import make_estimate, make_plan
from gpuwise.cli.app import app
from gpuwise.errors import GpuwiseError
from gpuwise.workload import TrainingJob

LORA_INT8 = {"model": "llama-2-7b", "task": "finetune", "method": "lora", "weights_dtype": "int8", "global_batch": 8}
QLORA_NF4 = {"model": "llama-2-7b", "task": "finetune", "method": "qlora", "global_batch": 8}
QLORA_INT4 = {**QLORA_NF4, "weights_dtype": "int4"}
TWO = {"gpu": "a100-80gb-sxm:2"}


def _refusal(work: dict, hw: dict = TWO) -> str:
    with pytest.raises(GpuwiseError) as err:
        make_estimate(work, hw)
    return str(err.value)


@pytest.mark.parametrize("work", [LORA_INT8, QLORA_NF4, QLORA_INT4], ids=["int8", "nf4", "int4"])
def test_no_tensor_parallelism_over_a_quantized_base(work):
    assert "did you mean --tp 1" in _refusal({**work, "tp": 2})


@pytest.mark.parametrize("work", [LORA_INT8, QLORA_INT4], ids=["int8", "int4"])
def test_zero3_and_parameter_offload_shard_no_int8_or_int4_base(work):
    assert "did you mean --zero 2" in _refusal({**work, "zero": 3})
    # one message, whatever ZeRO stage the offload would take: drop the parameters from it
    for zero in ({}, {"zero": 2}, {"zero": 3}):
        assert "drop params from --offload" in _refusal({**work, **zero, "offload": ["optimizer", "params"]})


@pytest.mark.parametrize("framework", ["fsdp", "torchtune", "torchtitan"])
@pytest.mark.parametrize("work", [LORA_INT8, QLORA_INT4], ids=["int8", "int4"])
def test_a_stack_that_defaults_to_fsdp_runs_an_int8_or_int4_base_under_ddp(framework, work):
    """FSDP wraps no integer base: with no stage named the stack's default ZeRO-3 gives way to plain DDP."""
    job = make_estimate({**work, "framework": framework}, TWO).workload
    assert isinstance(job, TrainingJob) and job.parallel.zero == 0
    assert isinstance(make_estimate({**QLORA_NF4, "framework": framework}, TWO).workload, TrainingJob)


def test_lora_on_a_4bit_base_is_qlora():
    assert "did you mean --method qlora" in _refusal({**LORA_INT8, "weights_dtype": "nf4"})
    assert "did you mean --method qlora" in _refusal({**LORA_INT8, "weights_dtype": "int4"})


def test_an_nf4_base_shards_under_zero3_and_offloads_its_parameters():
    """FSDP-QLoRA (bitsandbytes' quant_storage in a float dtype): the 4-bit base is sharded and may be offloaded."""
    job = make_estimate({**QLORA_NF4, "zero": 3, "offload": ["optimizer", "params"]}, TWO).workload
    assert isinstance(job, TrainingJob) and job.parallel.zero == 3 and "params" in job.offload


def test_a_layer_wise_device_map_split_stays_expressible():
    """A published run that split an int8 base's layers over two GPUs (Accelerate's device_map) is --pp 2."""
    job = make_estimate({**LORA_INT8, "pp": 2}, TWO).workload
    assert isinstance(job, TrainingJob) and (job.parallel.tp, job.parallel.pp) == (1, 2)


def _accepted(command: str) -> None:
    """A row's `gpuwise estimate` command, run as a user would: estimate accepts it and the layout fits."""
    result = CliRunner().invoke(app, [*shlex.split(command)[1:], "--json"])
    assert result.exit_code == 0, (command, result.output)


def test_deepspeed_offloads_parameters_under_zero3_only():
    """offload_param is 'Valid only with stage 3' (DeepSpeed's configuration reference): a DeepSpeed-engine
    stack (the HF Trainer) refuses it at ZeRO-1/2 and takes ZeRO-3 when no stage is named."""
    full = {"model": "llama-2-7b", "task": "finetune", "global_batch": 8}
    assert "did you mean --zero 3" in _refusal({**full, "zero": 2, "offload": ["optimizer", "params"]})
    assert "did you mean --zero 3" in _refusal({**full, "zero": 0, "offload": ["params"]})
    default = make_estimate({**full, "offload": ["optimizer", "params"]}, TWO).workload
    assert isinstance(default, TrainingJob) and default.parallel.zero == 3
    optimizer_only = make_estimate({**full, "offload": ["optimizer"]}, TWO).workload
    assert isinstance(optimizer_only, TrainingJob) and optimizer_only.parallel.zero == 2


@pytest.mark.parametrize("framework", ["hf-trainer", "fsdp", "unsloth"])
@pytest.mark.parametrize("method", [{"method": "qlora"}, {"method": "lora", "weights_dtype": "int8"}], ids=str)
def test_plan_keeps_a_quantized_base_whole_on_each_gpu(method, framework):
    """A 70B model on 24-48 GB cards, where the base fits only with offload or sharding: every row is data
    parallel (no --tp, no --pp), an int8 base is never under ZeRO-3 nor offloaded, and each row's command is
    one `estimate` accepts."""
    work = {"model": "llama-2-70b", "task": "finetune", "seq": 1024, "global_batch": 16, "tokens": "5M"}
    reqs = {"deadline": "30d", "gpus": "rtx-4090,l40s,a100-80gb-sxm,h200"}
    result = make_plan({**work, **method, "framework": framework}, reqs)
    rows = [c for c in result.candidates if isinstance(c.est.workload, TrainingJob)]
    assert rows
    for c in rows:
        job = c.est.workload
        assert (job.parallel.tp, job.parallel.pp) == (1, 1), c.label
        if method.get("weights_dtype") == "int8":
            assert job.parallel.zero < 3 and "params" not in job.offload, c.label
        _accepted(c.command)


@pytest.mark.parametrize("gpu", ["rtx-4090:1", "rtx-4090:2"])
def test_the_layout_search_offloads_parameters_under_zero3_on_deepspeed(gpu):
    """With the parameters offloaded the HF Trainer's (DeepSpeed's) layout is ZeRO-3 on one GPU or several,
    never the ZeRO-2 DeepSpeed would run without offloading them; its command runs."""
    cli = f"gpuwise estimate --model llama-2-7b --task finetune --global-batch 8 --seq 1024 --layout auto --gpu {gpu}"
    result = CliRunner().invoke(app, [*shlex.split(cli)[1:], "--offload", "optimizer,params", "--json"])
    assert result.exit_code in (0, 1), result.output
    work = json.loads(result.output)["workload"]
    assert work["zero"] == 3 and work["offload"] == ["optimizer", "params"]


def test_deepspeed_parameter_offload_is_never_laid_out_with_pipeline_stages():
    """DeepSpeed runs ZeRO-3 (which offload_param needs) without pipeline stages: a 70B full fine-tune on 32
    A100 40GB with the parameters offloaded is laid out at --pp 1, and the layout's command runs."""
    cli = "gpuwise estimate --model llama-2-70b --task finetune --global-batch 64 --seq 2048 --layout auto"
    hw = " --offload optimizer,params --gpu a100-40gb-pcie:32 --gpus-per-node 8"
    result = CliRunner().invoke(app, [*shlex.split(cli + hw)[1:], "--json"])
    assert result.exit_code in (0, 1), result.output
    work = json.loads(result.output)["workload"]
    assert work["pp"] == 1 and work["zero"] == 3
