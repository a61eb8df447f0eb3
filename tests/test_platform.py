"""NVIDIA-only runtimes (TensorRT, TensorRT under Triton, ONNX Runtime's CUDA provider, TensorRT-LLM,
LMDeploy's TurboMind) are never timed on an AMD GPU: estimate refuses with exit 2 and names what runs
there; a plan rules the AMD types out with that reason instead of pricing a stack that cannot run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpuwise.api import make_plan
from gpuwise.catalog import load_catalog
from gpuwise.estimate.platform import PlatformError, check_platform
from gpuwise.i18n import reason_text
from gpuwise.plan.results import Code
from gpuwise.planfile import read_plan_file
from gpuwise.workload import build_workload

from .conftest import run_process

EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.mark.parametrize(
    ("model", "engine", "name", "alternatives"),
    [
        ("resnet-50", None, "TensorRT under Triton Inference Server", "eager|torch-compile|torchscript"),
        ("resnet-50", "tensorrt", "TensorRT", "eager|torch-compile|torchscript"),
        ("resnet-50", "onnxruntime", "ONNX Runtime (CUDA execution provider)", "eager|torch-compile|torchscript"),
        (
            "llama-3.1-8b",
            "trtllm",
            "TensorRT-LLM",
            "sglang|tgi|tgi-v1|tgi-v2|transformers|transformers-v4.35|transformers-v4.36|vllm|vllm-v0",
        ),
        (
            "llama-3.1-8b",
            "lmdeploy",
            "LMDeploy (TurboMind)",
            "sglang|tgi|tgi-v1|tgi-v2|transformers|transformers-v4.35|transformers-v4.36|vllm|vllm-v0",
        ),
    ],
)
def test_an_nvidia_only_runtime_on_an_amd_gpu_is_a_usage_error(model, engine, name, alternatives):
    args = ("estimate", "--model", model, "--task", "inference", "--gpu", "mi300x:1")
    result = run_process(*args, *(["--engine", engine] if engine else []))
    assert result.returncode == 2, result.stderr
    assert f"{name} runs on NVIDIA GPUs only, not on AMD Instinct MI300X 192GB" in result.stderr
    assert f"choose --engine {alternatives} for mi300x" in result.stderr


@pytest.mark.parametrize(
    ("model", "engine"), [("resnet-50", "eager"), ("llama-3.1-8b", "vllm"), ("llama-3.1-8b", None)]
)
def test_what_runs_on_rocm_is_estimated_there(model, engine):
    args = ("estimate", "--model", model, "--task", "inference", "--gpu", "mi300x:1", "--json")
    result = run_process(*args, *(["--engine", engine] if engine else []))
    assert result.returncode == 0, result.stderr


def test_every_runtime_runs_on_nvidia_and_the_rule_is_sourced():
    cat = load_catalog()
    for key, profile in [*cat.engines.items(), *cat.runtimes.items()]:
        assert "nvidia" in profile.vendors, key
        if profile.vendors != ("nvidia", "amd"):
            assert profile.field_sources.get("vendors") == "nvidia-only-runtimes", key
    assert {k for k, p in cat.runtimes.items() if "amd" in p.vendors} == {"eager", "torch-compile", "torchscript"}


def test_the_recommender_plan_rules_out_amd_for_tensorrt_under_triton():
    work, reqs, costs = read_plan_file(EXAMPLES / "ecommerce-recsys-serving.yaml")
    result = make_plan(work, reqs, costs)
    assert result.chosen is not None and result.chosen.est.hardware.gpu.vendor == "nvidia"
    amd = {r.gpu: r.reason for r in result.rejected if r.gpu in ("mi300x", "mi325x")}
    assert set(amd) == {"mi300x", "mi325x"}
    for gpu, reason in amd.items():
        assert reason.code == Code.NOT_ON_VENDOR
        assert reason.params == {
            "engine": "triton",
            "vendors": ("nvidia",),
            "gpu": gpu,
            "runs": ("eager", "torch-compile", "torchscript"),
        }
        assert reason_text(reason, "en") == (
            f"runtime: --engine triton runs on NVIDIA GPUs only, not on {gpu}; choose --engine eager|torch-compile|torchscript there"
        )
        assert reason_text(reason, "zh") == (
            f"运行时：--engine triton 只能在 NVIDIA GPU 上运行，不能用于 {gpu}；{gpu} 上请选 --engine eager|torch-compile|torchscript"
        )


def test_the_chinese_plan_gives_the_reason_in_chinese():
    """The zh plan names the AMD types ruled out under TensorRT in Chinese, and its JSON carries the
    same code and parameters as the English one."""
    args = ["plan", "-f", str(EXAMPLES / "ecommerce-recsys-serving.yaml"), "--gpus", "mi300x,h100-nvl"]
    zh = run_process(*args, "--lang", "zh")
    assert zh.returncode == 0, zh.stderr
    assert "mi300x: 运行时：--engine triton 只能在 NVIDIA GPU 上运行，不能用于 mi300x" in zh.stdout
    assert "runs on NVIDIA" not in zh.stdout
    out = {lang: json.loads(run_process(*args, "--json", "--lang", lang).stdout) for lang in ("en", "zh")}
    rejected = {lang: [r for r in out[lang]["rejected"] if r["gpu"] == "mi300x"] for lang in out}
    assert [r["code"] for r in rejected["zh"]] == ["platform.not_on_vendor"]
    assert (
        rejected["zh"][0]["params"]
        == rejected["en"][0]["params"]
        == {
            "engine": "triton",
            "vendors": ["nvidia"],
            "gpu": "mi300x",
            "runs": ["eager", "torch-compile", "torchscript"],
        }
    )
    assert "只能在 NVIDIA GPU 上运行" in rejected["zh"][0]["text"]


def test_an_amd_only_plan_has_no_plan_and_says_why():
    args = ["plan", "-f", str(EXAMPLES / "ecommerce-recsys-serving.yaml"), "--gpus", "mi300x", "--lang", "zh"]
    result = run_process(*args)
    assert result.returncode == 1, result.stderr
    assert "没有方案满足需求" in result.stdout and "--engine triton 只能在 NVIDIA GPU 上运行" in result.stdout


def test_check_platform_passes_what_runs_and_refuses_what_does_not():
    cat = load_catalog()
    work = build_workload({"model": "resnet-50", "task": "inference"}, cat)
    check_platform(work, cat.gpu("a100-80gb-sxm"), cat)
    check_platform(replace(work, engine="eager"), cat.gpu("mi300x"), cat)
    with pytest.raises(PlatformError, match="TensorRT under Triton"):
        check_platform(work, cat.gpu("mi300x"), cat)
    training = build_workload({"model": "resnet-50", "task": "pretrain"}, cat)
    check_platform(training, cat.gpu("mi300x"), cat)
