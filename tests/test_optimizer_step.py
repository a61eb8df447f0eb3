"""PyTorch's foreach AdamW (torch.optim.AdamW's default from PyTorch 2.0) allocates a tensor of every parameter's
size in the moments' dtype while it steps (exp_avg_sq_sqrt), with every gradient alive and the activations freed:
a full fine-tune's peak can be its step. A fused kernel (fused=True, apex, Transformer Engine, DeepSpeed) updates in
place. The stacks' defaults are in frameworks.yaml (`optimizer_impl`); --optimizer-impl says what ran."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuwise.catalog import load_catalog
from gpuwise.cli.app import app
from gpuwise.errors import UsageError

CAT = load_catalog()
RUNNER = CliRunner()
# Mistral-7B full fine-tuning in pure fp16 on one A100 (fms-acceleration's reference row, holdout 37)
BASE = [
    "estimate", "--model", "mistral-7b-v0.1", "--task", "finetune", "--method", "full",
    "--precision", "fp16", "--weights-dtype", "fp16", "--no-master-weights", "--optimizer", "adamw",
    "--micro-batch", "4", "--global-batch", "8", "--seq", "445", "--recompute", "full", "--attention", "flash",
]  # fmt: skip


def _run(args: list[str]) -> dict:
    result = RUNNER.invoke(app, [*args, "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _estimate(*extra: str, gpu: str = "a100-80gb-sxm:1") -> dict:
    return _run([*BASE, "--gpu", gpu, *extra])


def _memory(*extra: str, gpu: str = "a100-80gb-sxm:1") -> dict:
    return _estimate(*extra, gpu=gpu)["memory"]


def test_the_foreach_step_holds_one_moment_more_by_hand():
    """7,241,732,096 parameters, fp16 moments (2 B each): the step's temporary is 2 B a parameter; where it passes
    the activations (one checkpointed layer's at 4 x 445 tokens) it is the transient part of the peak."""
    params = _estimate()["workload"]["params"]
    assert params == 7_241_732_096
    fused, foreach = _memory("--optimizer-impl", "fused"), _memory("--optimizer-impl", "foreach")
    assert "optimizer_step_temporary" not in fused["detail"]
    assert foreach["detail"]["optimizer_step_temporary"] == pytest.approx(params * 2, rel=1e-9)
    acts = fused["per_gpu"]["activations"]
    assert acts < params * 2
    assert foreach["detail"]["optimizer_step_beyond_activations"] == pytest.approx(params * 2 - acts, rel=1e-9)
    for part in ("optimizer", "activations"):  # the states a checkpoint saves, the activations the batch grows
        assert foreach["per_gpu"][part] == fused["per_gpu"][part]
    grew = foreach["per_gpu"]["total"] - fused["per_gpu"]["total"]
    assert params * 2 - acts <= grew <= (params * 2 - acts) * 1.15  # plus the allocator's slack on it


def test_sharded_states_shard_the_temporary_and_small_ones_hide_under_what_the_backward_held():
    """ZeRO-2 over 8 GPUs: a GPU steps its own shard, so the temporary is an eighth. Under ZeRO-3 the step also
    outlives the gathered layers, which hold more than that eighth here; at 8 x 4,096 tokens the activations
    alone pass it: the peak is the backward's."""
    params = _estimate()["workload"]["params"]
    for stage, shown in (("2", True), ("3", False)):
        args = [*BASE[:-10], "--micro-batch", "4", "--global-batch", "64", "--seq", "445", "--recompute", "full"]
        mem = _run([*args, "--zero", stage, "--gpu", "a100-80gb-sxm:8", "--optimizer-impl", "foreach"])["memory"]
        assert ("optimizer_step_temporary" in mem["detail"]) is shown, stage
        if shown:
            assert mem["detail"]["optimizer_step_temporary"] == pytest.approx(params * 2 / 8, rel=1e-3)
        else:
            assert mem["detail"]["zero3_gather_buffer"] + mem["per_gpu"]["activations"] >= params * 2 / 8
    long = [
        *BASE[:-10],
        "--micro-batch",
        "8",
        "--global-batch",
        "8",
        "--seq",
        "4096",
        "--recompute",
        "none",
        "--attention",
        "flash",
    ]
    fused, foreach = (
        {**_run([*long, "--gpu", "a100-80gb-sxm:1", "--optimizer-impl", impl])}["memory"]
        for impl in ("fused", "foreach")
    )
    assert "optimizer_step_temporary" not in foreach["detail"]
    assert foreach["per_gpu"]["total"] == fused["per_gpu"]["total"]


def test_checkpoints_save_the_states_not_the_temporary():
    """The run's checkpoint (estimate/reliability.py) is the weights and optimizer states, whichever step ran."""
    saved = {
        impl: _estimate("--optimizer-impl", impl, "--tokens", "1e8")["reliability"] for impl in ("foreach", "fused")
    }
    assert saved["foreach"]["checkpoint_bytes"] == saved["fused"]["checkpoint_bytes"] > 0


FOREACH = {"fsdp"}  # plain PyTorch loops: torch.optim.AdamW's default; every other stack steps in place


@pytest.mark.parametrize("framework", sorted(CAT.frameworks))
def test_each_stack_steps_as_its_source_says(framework):
    prof = CAT.frameworks[framework]
    assert prof.optimizer_impl == ("foreach" if framework in FOREACH else "fused")
    src = CAT.sources[prof.source_of("optimizer_impl")]
    assert ("torch/optim/adam.py" in src.title) == (prof.optimizer_impl == "foreach")


def test_only_adamw_stepped_on_the_gpu_after_the_backward_gets_the_temporary():
    """SGD, 8-bit Adam, the optimizer on the CPU, bitsandbytes' paged kernel, a step per parameter in the backward."""
    for extra in (
        ("--optimizer", "sgd"),
        ("--optimizer", "adamw-8bit"),
        ("--offload", "optimizer"),
        ("--paged-optimizer",),
    ):
        mem = _memory("--optimizer-impl", "foreach", *extra)
        assert "optimizer_step_temporary" not in mem["detail"], extra
    one_step = [*BASE[:-10], "--micro-batch", "4", "--global-batch", "4", "--seq", "445", "--recompute", "full"]
    mem = _run([*one_step, "--gpu", "a100-80gb-sxm:1", "--optimizer-impl", "foreach", "--optimizer-in-backward"])
    assert "optimizer_step_temporary" not in mem["memory"]["detail"]
    mem = _run([*one_step, "--gpu", "a100-80gb-sxm:1", "--optimizer-impl", "foreach"])
    assert "optimizer_step_temporary" in mem["memory"]["detail"]  # the same run stepping after its backward


def test_the_terminal_names_the_step_and_a_bad_value_is_a_usage_error():
    result = RUNNER.invoke(app, [*BASE, "--gpu", "a100-80gb-sxm:1", "--optimizer-impl", "foreach"])
    assert result.exit_code in (0, 1), result.output
    flat = " ".join(result.output.split())
    assert "AdamW step, foreach (as given): a tensor of every parameter's size in the moments' dtype" in flat
    bad = RUNNER.invoke(app, [*BASE, "--gpu", "a100-80gb-sxm:1", "--optimizer-impl", "forech"])
    assert isinstance(bad.exception, UsageError) and "did you mean 'foreach'" in str(bad.exception)


def test_pytorchs_foreach_adamw_allocates_a_parameter_sized_tensor_and_fused_none():
    """The convention checked on PyTorch itself (CPU): the ops foreach AdamW runs at a step that write new
    tensors of the parameters' sizes, against the fused kernel's (CPU fused AdamW, PyTorch 2.4 on)."""
    torch = pytest.importorskip("torch")
    from torch.utils._python_dispatch import TorchDispatchMode

    class NewTensors(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.sizes: list[int] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if "_foreach" in str(func) and not str(func.overloadpacket).endswith("_"):  # out of place
                self.sizes += [t.numel() for t in out if isinstance(t, torch.Tensor)]
            return out

    def step(**impl: bool) -> list[int]:
        params = [torch.nn.Parameter(torch.randn(64, 32)), torch.nn.Parameter(torch.randn(32))]
        for p in params:
            p.grad = torch.randn_like(p)
        opt = torch.optim.AdamW(params, **impl)
        opt.step()  # the first step creates the states
        with NewTensors() as mode:
            opt.step()
        return mode.sizes

    assert sum(step(foreach=True)) == 64 * 32 + 32  # exp_avg_sq_sqrt: every parameter's size, once
    assert sum(step(fused=True)) == 0
