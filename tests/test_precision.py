"""bf16 on a GPU without bf16 tensor cores (T4, V100): one rule for training and serving. The bf16
default runs as fp16 (loss scaling in training, the checkpoint cast in serving) and says so; a bf16
the user named is refused with the reason; no plan or estimate ever says "t4 bf16"."""

import dataclasses

import pytest

from gpuwise.api import make_estimate, make_plan
from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate import estimate
from gpuwise.plan.results import Code, Reason
from gpuwise.report.as_json import candidate_json
from gpuwise.workload import TrainingJob, build_hardware, build_workload
from gpuwise.workload.precision import NoBf16Error, lacks_bf16, on_gpu

CAT = load_catalog()
NO_BF16 = ["t4", "v100-32gb-sxm", "v100-16gb-pcie"]
LORA = {"model": "llama-2-7b", "task": "finetune", "method": "lora", "micro_batch": 1, "seq": 1024}
SERVE = {"model": "llama-3.1-8b", "task": "inference", "input_tokens": 512, "output_tokens": 128}


def test_the_gpus_without_bf16_are_turing_and_volta():
    assert sorted(g.id for g in CAT.gpus.values() if lacks_bf16(g)) == sorted(NO_BF16)


@pytest.mark.parametrize("gpu", NO_BF16)
def test_the_training_default_runs_as_fp16_with_loss_scaling(gpu):
    est = make_estimate(LORA, {"gpu": f"{gpu}:1"})
    assert isinstance(est.workload, TrainingJob)
    assert (est.workload.precision, est.workload.weights_dtype) == ("fp16", "fp16")
    said = [a for a in est.as_dict()["assumptions"] if "no bf16 tensor cores" in a]
    assert len(said) == 1 and "loss scaling" in said[0] and "fp16" in said[0]
    # the same answer as asking for fp16 outright: 2-byte values, the fp16 tensor rate
    asked = make_estimate({**LORA, "precision": "fp16"}, {"gpu": f"{gpu}:1"})
    assert est.memory.per_gpu.total == asked.memory.per_gpu.total
    assert est.training is not None and asked.training is not None
    assert est.training.step_seconds == pytest.approx(asked.training.step_seconds)
    assert not any("no bf16 tensor cores" in a for a in asked.as_dict()["assumptions"])


@pytest.mark.parametrize("gpu", NO_BF16)
def test_the_serving_default_runs_as_fp16(gpu):
    est = make_estimate({**SERVE, "tp": 2}, {"gpu": f"{gpu}:2"})  # 16 GB of weights: two 16 GB cards
    echo = est.as_dict()["workload"]
    assert (echo["weights_dtype"], echo["kv_dtype"]) == ("fp16", "fp16")
    assert any("cast to fp16" in a for a in est.as_dict()["assumptions"])


@pytest.mark.parametrize(
    ("work", "flag"),
    [
        ({**LORA, "precision": "bf16"}, "--precision bf16"),
        ({**LORA, "precision": "fp16", "weights_dtype": "bf16"}, "--weights-dtype bf16"),
        ({**SERVE, "precision": "bf16"}, "--precision/--weights-dtype bf16"),
        ({**SERVE, "weights_dtype": "bf16"}, "--precision/--weights-dtype bf16"),
        ({**SERVE, "weights_dtype": "fp16", "kv_dtype": "bf16"}, "--kv-dtype bf16"),
    ],
)
def test_bf16_named_is_refused_with_the_reason(work, flag):
    with pytest.raises(NoBf16Error, match="has no bf16 tensor cores") as err:
        make_estimate(work, {"gpu": "t4:2"})
    assert flag in str(err.value) and "fp16" in str(err.value)
    assert isinstance(err.value, UsageError)  # exit 2, a message, never a traceback


def test_a_gpu_with_bf16_keeps_the_default():
    est = make_estimate(LORA, {"gpu": "a10:1"})
    assert isinstance(est.workload, TrainingJob) and est.workload.precision == "bf16"
    assert not any("no bf16 tensor cores" in a for a in est.as_dict()["assumptions"])


def test_a_job_made_in_python_names_every_dtype():
    """Without build_workload nothing marks bf16 as a default, so it counts as asked for."""
    job = build_workload(LORA, CAT)
    named = dataclasses.replace(job, dtype_defaults=frozenset())
    t4 = CAT.gpu("t4")
    with pytest.raises(NoBf16Error):
        estimate(named, build_hardware("t4", CAT), CAT, search_largest=False)
    once = on_gpu(job, t4)
    assert on_gpu(once, t4) is once and on_gpu(job, CAT.gpu("a100-80gb-sxm")) is job


def test_no_serving_plan_says_t4_bf16():
    plan = make_plan(SERVE, {"qps": 1, "gpus": "t4,v100-32gb-sxm,l4"})
    seen = {c.est.hardware.gpu.id: c for c in plan.candidates}
    assert {"t4", "v100-32gb-sxm"} <= set(seen)
    for gpu in ("t4", "v100-32gb-sxm"):
        c = seen[gpu]
        echo = candidate_json(c)["workload"]
        assert (echo["weights_dtype"], echo["kv_dtype"]) == ("fp16", "fp16")
        assert "--weights-dtype fp16" in c.command  # the line reproduces the fp16 answer
        assert any("cast to fp16" in a for a in candidate_json(c)["assumptions"])
    assert candidate_json(seen["l4"])["workload"]["weights_dtype"] == "bf16"


def test_a_training_plan_runs_the_default_as_fp16_and_refuses_bf16_named():
    reqs = {"deadline": "3d", "gpus": "t4,a10"}
    work = {"model": "llama-2-7b", "method": "qlora", "tokens": "20M"}
    default = make_plan(work, reqs)
    t4 = [c for c in default.candidates if c.est.hardware.gpu.id == "t4"]
    assert t4 and all(c.est.workload.precision == "fp16" and "--precision fp16" in c.command for c in t4)
    named = make_plan({**work, "precision": "bf16"}, reqs)
    assert not [c for c in named.candidates if c.est.hardware.gpu.id == "t4"]
    assert [r.reason for r in named.rejected if r.gpu == "t4"] == [Reason.of(Code.NO_TENSOR_CORES, precision="bf16")]
