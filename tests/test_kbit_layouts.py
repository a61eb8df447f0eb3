"""Layouts the stacks run for a quantized base and for CPU offload: `estimate` refuses what no stack runs
(tensor parallelism over a bitsandbytes or GPTQ/AWQ base, ZeRO-3 or FSDP over an int8 or int4 one,
DeepSpeed parameter offload below ZeRO-3) and `plan` never proposes it."""

from __future__ import annotations

import pytest

from gpuwise.api import make_estimate, make_plan
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
    assert "--offload params" in _refusal({**work, "offload": ["optimizer", "params"]})


def test_an_nf4_base_shards_under_zero3_and_offloads_its_parameters():
    """FSDP-QLoRA (bitsandbytes' quant_storage in a float dtype): the 4-bit base is sharded and may be offloaded."""
    est = make_estimate({**QLORA_NF4, "zero": 3, "offload": ["optimizer", "params"]}, TWO)
    assert isinstance(est.workload, TrainingJob) and est.workload.parallel.zero == 3
    # a layer-wise device_map split stays expressible (as a published run did it)
    assert make_estimate({**LORA_INT8, "pp": 2}, TWO).workload.parallel.pp == 2


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


@pytest.mark.parametrize("method", [{"method": "qlora"}, {"method": "lora", "weights_dtype": "int8"}], ids=str)
def test_plan_keeps_a_quantized_base_whole_on_each_gpu(method):
    """A 70B model whose base fits no single small GPU: every row is data parallel (no --tp, no --pp), and an
    int8 base is never under ZeRO-3; each row's command is one `estimate` accepts."""
    work = {"model": "llama-2-70b", "task": "finetune", "seq": 2048, "global_batch": 64, "tokens": "50M", **method}
    result = make_plan(work, {"deadline": "7d"})
    rows = [c for c in result.candidates if isinstance(c.est.workload, TrainingJob)]
    assert rows
    for c in rows:
        par = c.est.workload.parallel
        assert (par.tp, par.pp) == (1, 1), c.label
        if method.get("weights_dtype") == "int8":
            assert par.zero < 3 and "params" not in c.est.workload.offload, c.label


def test_plan_offloads_parameters_under_zero3_on_deepspeed():
    """A full fine-tune of a 13B model on one 24 GB card needs its parameters offloaded: the row the HF
    Trainer (DeepSpeed) runs is ZeRO-3 with offload_param, never ZeRO-2."""
    work = {"model": "llama-2-13b", "task": "finetune", "global_batch": 8, "seq": 1024, "tokens": "2M"}
    result = make_plan(work, {"gpus": "rtx-4090", "max_gpus": 1})
    rows = [c for c in result.candidates if isinstance(c.est.workload, TrainingJob) and c.est.workload.offload]
    assert rows
    for c in rows:
        if "params" in c.est.workload.offload:
            assert c.est.workload.parallel.zero == 3, c.label
