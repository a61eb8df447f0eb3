"""Every schema field through the web forms: each form has an input for every field of the sections
it uses, wrapped with the task the field applies to, and each field's `example` (the value the
schema declares for exactly this walk) submitted through the form is accepted. The CLI, YAML and
JSON API side of the same walk is tests/test_schema.py."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from gpuwise.web import create_app
from gpuwise.web.forms import ESTIMATE_SECTIONS, PLAN_SECTIONS, SERVER_FILE_FIELDS
from gpuwise.workload.schema import FieldInfo, fields

CLIENT = TestClient(create_app(), base_url="http://127.0.0.1")

# a valid form for each task, to which one field's example is added (the training one with a data
# pipeline, so that the pipeline's other fields have one to change)
BASE = {
    "training": {
        "model": "llama-2-7b",
        "task": "finetune",
        "method": "lora",
        "tokens": "20M",
        "deadline": "30d",
        "read_bandwidth": "4GB/s",
        "sample_bytes": "8KB",
    },
    "inference": {
        "model": "mistral-7b-v0.1",
        "task": "inference",
        "input_tokens": "512",
        "output_tokens": "128",
        "concurrency": "8",
    },
}
# fields valid only together with another (a latency target needs a load, and the other way round)
COMPANIONS = {
    "qps": {"p99_ms": "30000"},
    "p95_ms": {"qps": "5"},
    "p99_ms": {"qps": "5"},
    "ttft_ms": {"qps": "5"},
    "tpot_ms": {"qps": "5"},
    "e2e_ms": {"qps": "5"},
    "speculative_tokens": {"speculative_acceptance": "0.6"},
    "speculative_acceptance": {"speculative_tokens": "4"},
    "lora_adapter_rank": {"lora_adapters": "4"},
    "vpp": {"pp": "2"},  # interleaved stages need a pipeline
    "sharding": {"framework": "fsdp", "zero": "3"},  # hybrid sharding is FSDP's (or torchtitan's)
    "mixed_frozen_units": {"framework": "fsdp", "zero": "3"},  # LoRA's frozen weights in FSDP units
    "zeropp": {"framework": "deepspeed", "zero": "3"},  # ZeRO++ is DeepSpeed's, on ZeRO-3
    "grad_reduce_dtype": {"framework": "nemo", "method": "full"},  # Megatron Core's --grad-reduce-in-bf16
    "request_rate": {"requests": 100, "concurrency": 100},  # paces a finite run (--requests), no client cap
    "moe_dispatcher": {"framework": "nemo"},  # Megatron Core's MoE token dispatchers
    "overlap_ep_comm": {"framework": "nemo"},  # Megatron Core's --overlap-moe-expert-parallel-comm
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
    "checkpoint_impl": {"recompute": "full"},  # how full recomputation is implemented (a plan searches it)
    "image_size": {"model": "resnet-50", "method": "full", "samples": "1M"},  # a CNN described operator by operator
    "mlm_positions": {"model": "bert-base-uncased", "task": "pretrain", "method": "full"},  # a masked-LM head
    "eval_every": {"eval_batches": "400"},  # an evaluation is how often and how many batches: both
    "eval_batches": {"eval_every": "250"},
    "bnb_4bit": {"weights_dtype": "nf4", "engine": "transformers"},  # bitsandbytes 4-bit in a generate loop
}
# fields whose example only a generate loop takes: the plan form answers them with plan's refusal of
# generate loops (it sizes serving fleets), a clear 400, as the CLI does with exit 2
PLAN_REFUSES = {
    "bnb_4bit": "is a generate loop",
    "batching": "plan sizes serving fleets",
    "requests": "plan sizes serving fleets",
    "request_rate": "plan sizes serving fleets",
}
# fields that replace one of the base's (the amount of training is tokens or samples, not both)
REPLACES = {"samples": "tokens", "image_size": "tokens"}
PAGES = {"/": PLAN_SECTIONS, "/estimate": ESTIMATE_SECTIONS}


class _Inputs(HTMLParser):
    """name -> the data-applies of the field wrapper around each form control."""

    def __init__(self) -> None:
        super().__init__()
        self.applies: list[str | None] = []
        self.found: dict[str, set[str | None]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "div":
            self.applies.append(a.get("data-applies"))
        if tag in ("input", "select", "textarea") and a.get("name"):
            wrapper = next((x for x in reversed(self.applies) if x), None)
            self.found.setdefault(str(a["name"]), set()).add(wrapper)

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.applies:
            self.applies.pop()


def _inputs(html: str) -> dict[str, set[str | None]]:
    p = _Inputs()
    p.feed(html)
    return p.found


def _text(value: Any) -> str:
    """A schema example as a person types it into the form."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _walk(sections: tuple[str, ...]) -> list[FieldInfo]:
    """The fields a page shows: all but those naming a file, which the web never reads
    (tests/test_web_security.py checks that they are refused)."""
    return [f for s in sections for f in fields(s) if f.name not in SERVER_FILE_FIELDS]


@pytest.mark.parametrize("path", list(PAGES))
def test_every_schema_field_has_an_input_marked_with_its_task(path):
    found = _inputs(CLIENT.get(path).text)
    for f in _walk(PAGES[path]):
        assert f.name in found, f"{path} has no input named {f.name!r}"
        assert found[f.name] == {f.applies}, f"{path}: {f.name} is wrapped as {found[f.name]}, not {f.applies}"


def _form(f: FieldInfo, gpu: bool) -> dict[str, Any]:
    """The task's base form with `f` set to its example (a list field as checked boxes)."""
    task = "inference" if f.applies == "inference" else "training"
    form: dict[str, Any] = {**BASE[task], **COMPANIONS.get(f.name, {})}
    form.pop(REPLACES.get(f.name, ""), None)
    if gpu:
        form["gpu"] = "a100-80gb-sxm"
    value = _text(f.example)
    form[f.name] = value.split(",") if f.choices and "," in value else value
    return form


@pytest.mark.parametrize("f", _walk(PLAN_SECTIONS), ids=lambda f: f.name)
def test_plan_form_accepts_every_example(f):
    r = CLIENT.post("/plan", data=_form(f, gpu=False))
    if f.name in PLAN_REFUSES:
        assert r.status_code == 400 and PLAN_REFUSES[f.name] in _error(r.text), _error(r.text)
        return
    assert r.status_code == 200, f"{f.name}={f.example!r}: {r.status_code} {_error(r.text)}"
    assert 'id="candidates"' in r.text


@pytest.mark.parametrize("f", _walk(ESTIMATE_SECTIONS), ids=lambda f: f.name)
def test_estimate_form_accepts_every_example(f):
    r = CLIENT.get("/estimate", params=_form(f, gpu=True))
    assert r.status_code == 200, f"{f.name}={f.example!r}: {r.status_code} {_error(r.text)}"
    assert 'id="estimate-result"' in r.text
    # the form shows the value that was estimated
    shown = f'value="{_text(f.example)}"'
    if f.kind is not bool and not f.choices and f.name not in ("model", "growth_model"):
        assert shown in r.text, f"{f.name}: the re-rendered form lost {shown}"


@pytest.mark.parametrize("f", [f for f in _walk(ESTIMATE_SECTIONS) if f.applies == "training"], ids=lambda f: f.name)
def test_a_training_field_does_not_change_a_serving_estimate(f):
    """A form keeps the other task's values; the server drops those that do not apply."""
    form = {**BASE["inference"], "gpu": "a100-80gb-sxm", "qps": "5", "p99_ms": "30000"}
    plain = CLIENT.get("/estimate", params=form)
    mixed = CLIENT.get("/estimate", params={**form, f.name: _text(f.example)})
    assert plain.status_code == mixed.status_code == 200
    assert _section(mixed.text, "serving") == _section(plain.text, "serving") != ""


def _section(html: str, ident: str) -> str:
    start = html.find(f'id="{ident}"')
    return "" if start < 0 else html[start : html.find("</p>", start)]


def _error(html: str) -> str:
    start = html.find('id="error"')
    return html[start : start + 300] if start >= 0 else html[:300]


def test_a_bad_value_is_named_in_a_4xx_page():
    r = CLIENT.get("/estimate", params={**BASE["inference"], "gpu": "a10", "gpus_per_node": "two"})
    assert r.status_code == 400 and "--gpus-per-node must be a whole number" in r.text
    r = CLIENT.post("/plan", data={**BASE["inference"], "qps": "lots"})
    assert r.status_code == 400 and "--qps" in r.text


def test_a_fractional_whole_number_is_refused_not_cut():
    """micro_batch=1.5 was read as 1 and estimated; the CLI refuses it, and so does the page."""
    r = CLIENT.get("/estimate", params={**BASE["training"], "gpu": "a10", "micro_batch": "1.5"})
    assert r.status_code == 400 and "--micro-batch must be a whole number" in r.text
    assert CLIENT.get("/estimate", params={**BASE["training"], "gpu": "a10", "micro_batch": "1e0"}).status_code == 200
