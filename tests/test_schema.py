"""One schema behind every door: each field is declared once and accepted by the CLI, YAML and the API
with the same meaning (the three doors give the same estimate for the same input)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from gpuwise.errors import UsageError
from gpuwise.web import create_app
from gpuwise.workload import build_workload
from gpuwise.workload.requirements import build_requirements
from gpuwise.workload.schema import (
    FieldInfo,
    RequirementFields,
    WorkloadFields,
    all_fields,
    describe_error,
    fields,
    validate,
)

from .conftest import run_main

# A base workload per task that every field's example can be added to.
TRAIN = {"model": "llama-2-7b", "task": "finetune", "method": "lora", "read_bandwidth": "4GB/s", "sample_bytes": "8KB"}
SERVE = {"model": "llama-2-7b", "task": "inference"}
GPU = "a100-80gb-sxm:2"
# Fields whose example is the base's own value or whose meaning needs a partner given here.
PARTNERS: dict[str, dict[str, Any]] = {
    "p95_ms": {"qps": 5},
    "p99_ms": {"qps": 5},
    "ttft_ms": {"qps": 5},
    "tpot_ms": {"qps": 5},
    "e2e_ms": {"qps": 5},
    "speculative_tokens": {"speculative_acceptance": 0.6},
    "speculative_acceptance": {"speculative_tokens": 4},
    "lora_adapter_rank": {"lora_adapters": 4},
    "sharding": {"framework": "fsdp", "zero": 3},
    "mixed_frozen_units": {"framework": "fsdp", "zero": 3},
    "zeropp": {"framework": "deepspeed", "zero": 3},
    "grad_reduce_dtype": {"framework": "nemo", "method": "full"},  # Megatron Core's --grad-reduce-in-bf16
    "request_rate": {"requests": 100, "concurrency": 100},  # paces a finite run (--requests), no client cap
    "moe_dispatcher": {"framework": "nemo"},  # Megatron Core's MoE token dispatchers
    "overlap_ep_comm": {"framework": "nemo"},  # Megatron Core's --overlap-moe-expert-parallel-comm
    "checkpoint_impl": {"recompute": "full"},
    "input_from_host": {"model": "resnet-50", "engine": "tensorrt"},  # a model described operator by operator
    "cuda_graphs": {"model": "resnet-50", "engine": "tensorrt"},  # a compiled engine's kernels, replayed
    "denoising_steps": {"model": "stable-diffusion-v1-5"},  # how a whole diffusion pipeline is called
    "guidance_scale": {"model": "stable-diffusion-v1-5"},
    "scheduler": {"model": "stable-diffusion-v1-5"},
    "tf32_matmul": {"model": "resnet-50", "engine": "eager", "weights_dtype": "fp32", "precision": "tf32"},
    "autocast": {"model": "resnet-50", "engine": "eager"},  # eager inference of a model described by operators
    "diffusers_version": {
        "model": "stable-diffusion-v1-5",
        "engine": "eager",
        "attention": "eager",
    },  # eager attention of a diffusion pipeline
    "bnb_4bit": {"weights_dtype": "nf4", "engine": "transformers"},  # bitsandbytes 4-bit in a generate loop
    "image_size": {"model": "resnet-50", "method": "full"},  # an image model described operator by operator
    "mlm_positions": {"model": "bert-base-uncased", "task": "pretrain", "method": "full"},  # a masked-LM head
    "eval_every": {"eval_batches": 400},  # an evaluation is how often and how many batches: both
    "eval_batches": {"eval_every": 250},
    "deadline": {"tokens": "20M"},
    "growth_data": {"tokens": "20M"},
}


_cli = run_main


def _flag_args(opts: dict) -> list[str]:
    args = []
    for key, value in opts.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            args.append(flag if value else "--no-" + flag[2:])
        else:
            args += [flag, str(value)]
    return args


def _estimate_case(f: FieldInfo) -> tuple[dict, dict]:
    """(workload, hardware + target) options with `f` set to its example."""
    base = dict(SERVE if f.applies == "inference" else TRAIN)
    if f.name == "task":
        base = dict(TRAIN)
    other: dict = {"gpu": GPU}
    (base if f.section == "workload" else other)[f.name] = f.example
    if f.section == "workload" and (
        f.name.startswith("speculative")
        or f.name
        in (
            "lora_adapter_rank",
            "sharding",
            "mixed_frozen_units",
            "zeropp",
            "grad_reduce_dtype",
            "request_rate",
            "moe_dispatcher",
            "overlap_ep_comm",
            "checkpoint_impl",
            "input_from_host",
            "cuda_graphs",
            "denoising_steps",
            "guidance_scale",
            "scheduler",
            "tf32_matmul",
            "autocast",
            "diffusers_version",
            "bnb_4bit",
            "image_size",
            "mlm_positions",
            "eval_every",
            "eval_batches",
        )
    ):
        base.update(PARTNERS[f.name])
    if f.section == "target":
        other.update(PARTNERS.get(f.name, {"p99_ms": 60000} if f.name == "qps" else {}))
    if f.name == "gpus_per_node":
        other["gpu"] = "a100-80gb-sxm:4"
    return base, other


ESTIMATE_FIELDS = [f for s in ("workload", "hardware", "target") for f in fields(s)]


def test_every_field_has_help_an_example_and_a_valid_example():
    for f in all_fields():
        assert f.help and f.example is not None, f.name
    for f in fields("workload"):
        validate(WorkloadFields, {f.name: f.example})


def test_names_are_unique_across_sections():
    seen = [f.name for f in all_fields()]
    assert len(seen) == len(set(seen))


@pytest.mark.parametrize("f", ESTIMATE_FIELDS, ids=lambda f: f.name)
def test_estimate_doors_agree(f, capsys, tmp_path):
    """CLI flags, a YAML file and the JSON API give the same estimate with this field set."""
    work, other = _estimate_case(f)
    code, out, err = _cli(capsys, "estimate", *_flag_args({**work, **other}), "--json")
    assert code in (0, 1), err  # 1: a target not met is still an accepted input
    by_flags = json.loads(out)

    hardware = {h.name for h in fields("hardware")}
    doc = {"workload": work, **{k: v for k, v in other.items() if k in hardware}}
    targets = {
        k: v
        for k, v in other.items()
        if k in ("qps", "p95_ms", "p99_ms", "ttft_ms", "tpot_ms", "e2e_ms", "percentile", "confidence")
    }
    if targets:
        doc["requirements"] = targets
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(doc))
    code, out, err = _cli(capsys, "estimate", "-f", str(path), "--json")
    assert code in (0, 1), err
    assert json.loads(out) == by_flags

    body = {"workload": work, **other}
    answer = TestClient(create_app(), base_url="http://127.0.0.1").post("/api/estimate", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json() == json.loads(json.dumps(by_flags, default=str))


@pytest.mark.parametrize("f", fields("plan"), ids=lambda f: f.name)
def test_every_plan_field_is_a_cli_option_a_yaml_key_and_an_api_field(f, catalog, capsys):
    # the CLI has the option
    code, out, _ = _cli(capsys, "plan", "--help")
    assert code == 0 and f.flag in out
    # the YAML/API mapping is accepted by the requirement builder, with its partners
    opts = {f.name: f.example, **PARTNERS.get(f.name, {})}
    req_opts = {k: v for k, v in opts.items() if k != "tokens"}
    build_requirements(req_opts, catalog)
    # the API's request model takes it
    from gpuwise.web.models import PlanIn

    PlanIn.model_validate({"workload": TRAIN if f.applies != "inference" else SERVE, "requirements": req_opts})


def test_training_only_field_on_a_serving_job_names_the_flag(catalog):
    with pytest.raises(UsageError, match="--micro-batch only apply to training"):
        build_workload({**SERVE, "micro_batch": 4}, catalog)
    with pytest.raises(UsageError, match="--concurrency only apply to inference"):
        build_workload({**TRAIN, "concurrency": 4}, catalog)


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"micro_batch": 10**400}, "--micro-batch must be at most"),
        ({"tokens": "1e400"}, "--tokens: count .1e400. is out of range"),
        ({"decode_ms": float("inf")}, "--decode-ms must be a finite number"),
        ({"micro_batch": 2.5}, "--micro-batch must be a whole number"),
        ({"method": "lroa"}, "did you mean 'lora'"),
        ({"master_weights": "maybe"}, "--master-weights must be true or false"),
        ({"model": "x" * 5000}, "--model must be at most 1024 characters"),
        ({"tokens": "lots"}, "--tokens: not a count"),
        ({"zero": 4}, "--zero must be at most 3"),
    ],
)
def test_bad_values_name_the_field_and_the_rule(opts, message):
    with pytest.raises(UsageError, match=message):
        validate(WorkloadFields, opts)


def test_values_as_people_type_them():
    """Flag text and YAML scalars, read by the fields' own coercions (hand-computed values)."""
    v = validate(
        WorkloadFields,
        {"method": " LoRA", "micro_batch": "4", "tokens": "2T", "lora_targets": "Q_proj, v_proj,", "decode_ms": "1.5"},
    )
    assert (v.method, v.micro_batch, v.tokens, v.lora_targets, v.decode_ms) == (
        "lora",
        4,
        2e12,
        ["q_proj", "v_proj"],
        1.5,
    )
    assert v.seq is None and v.model_fields_set == {"method", "micro_batch", "tokens", "lora_targets", "decode_ms"}
    assert validate(WorkloadFields, {"micro_batch": "2.0"}).micro_batch == 2  # pydantic reads "2.0" as a whole number
    r = validate(RequirementFields, {"percentile": "P95", "currency": " cny", "budget": "$50,000", "gpus": "H100-SXM"})
    assert (r.percentile, r.currency, r.budget, r.gpus) == ("95", "CNY", 50000.0, ["h100-sxm"])


def test_a_refused_value_says_what_to_do():
    with pytest.raises(UsageError, match=r"--micro-batch must be at least 1; got '0'"):
        validate(WorkloadFields, {"micro_batch": "0"})
    with pytest.raises(
        UsageError, match=r"--method must be one of full, lora, qlora; got 'lorra' \(did you mean 'lora'\?\)"
    ):
        validate(WorkloadFields, {"method": "lorra"})
    with pytest.raises(UsageError, match=r"unknown workload field\(s\): 'micro_batc' \(did you mean 'micro_batch'\?\)"):
        validate(WorkloadFields, {"micro_batc": 2})


def test_unknown_yaml_key_keeps_its_did_you_mean(tmp_path, capsys):
    path = tmp_path / "w.yaml"
    path.write_text("model: llama-2-7b\nmicro_bath: 4\n")
    code, _, err = _cli(capsys, "estimate", "-f", str(path), "--gpu", "a10")
    assert code == 2 and "did you mean 'micro_batch'" in err


def test_tp_without_a_count_sets_the_count(capsys):
    code, out, err = _cli(
        capsys, "estimate", "--model", "llama-2-13b", "--task", "inference", "--gpu", "h100-sxm", "--tp", "2", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["hardware"]["count"] == 2


def test_describe_error_shortens_long_values():
    from pydantic import ValidationError

    try:
        WorkloadFields.model_validate({"micro_batch": 10**400})
    except ValidationError as exc:
        message = describe_error(exc, WorkloadFields)
    assert len(message) < 120 and message.endswith("...")


@pytest.mark.parametrize(("raw", "said"), [(0.14, "quote it: '0.14'"), (14, "quote it: '14'")])
def test_a_number_where_text_belongs_says_to_quote_it(raw, said):
    """A YAML plan file reads an unquoted 0.14 as a number (and 0.10 as 0.1): the error says to quote it."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as exc:
        WorkloadFields.model_validate({"diffusers_version": raw})
    message = describe_error(exc.value, WorkloadFields)
    assert message.startswith("--diffusers-version must be text; got the number") and said in message


def test_a_non_text_value_that_is_no_number_keeps_the_plain_message():
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as exc:
        WorkloadFields.model_validate({"diffusers_version": True})
    assert describe_error(exc.value, WorkloadFields) == "--diffusers-version must be text; got True"
