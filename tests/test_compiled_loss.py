"""The eager cross-entropy under torch.compile: inductor fuses the fp32 upcast and the log-softmax, saves the
16-bit logits with statistics a row, and writes a 16-bit gradient (4 B a logit at the loss's peak where the
eager loss holds 12). A stack whose model forward computes its loss (the Hugging Face Trainer, axolotl) runs it
so under --compile; --loss names what ran otherwise (a nanoGPT-style loop: --loss compiled)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuwise.catalog import load_catalog
from gpuwise.cli.app import app
from gpuwise.estimate.memory.states import loss_kind
from gpuwise.workload import TrainingJob, build_workload

CAT = load_catalog()
RUNNER = CliRunner()
GPT2 = "corpus/data/holdout_configs/gpt2-d12-llmc-v50304.json"  # vocabulary 50,304
BASE = [
    "estimate", "--model", GPT2, "--gpu", "l40s:1", "--task", "pretrain", "--precision", "bf16",
    "--weights-dtype", "fp32", "--optimizer", "adamw", "--micro-batch", "32", "--global-batch", "512",
    "--seq", "1024", "--attention", "flash",
]  # fmt: skip


def _estimate(*extra: str) -> dict:
    result = RUNNER.invoke(app, [*BASE, *extra, "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def _job(framework: str, **extra: object) -> TrainingJob:
    job = build_workload({"model": "llama-3.1-8b", "task": "pretrain", "framework": framework, **extra}, CAT)
    assert isinstance(job, TrainingJob)
    return job


@pytest.mark.parametrize("framework", ["hf-trainer", "axolotl"])
def test_a_stack_that_compiles_its_loss_runs_it_compiled_only_under_compile(framework):
    prof = CAT.frameworks[framework]
    assert loss_kind(_job(framework, compile=True), prof) == "compiled"
    assert loss_kind(_job(framework, compile=False), prof) == "eager"
    # --loss names what ran: the eager loss outside the compiled region (per-block compile, an older stack)
    assert loss_kind(_job(framework, compile=True, loss="eager"), prof) == "eager"


@pytest.mark.parametrize("framework", ["fsdp", "torchtitan", "megatron", "nemo", "torchtune", "unsloth", "deepspeed"])
def test_other_stacks_keep_their_loss_under_compile(framework):
    """fsdp's loops compile the whole model or only its blocks (the loss outside): --loss says which; torchtitan's
    compiled loss function is left as its corpus rows state it."""
    prof = CAT.frameworks[framework]
    assert loss_kind(_job(framework, compile=True), prof) == prof.loss_kind
    assert loss_kind(_job(framework, compile=True, loss="compiled"), prof) == "compiled"


def test_the_logits_cost_four_bytes_a_logit_compiled_by_hand():
    """32 x 1,024 tokens x 50,304 logits: 12 B each eager, 4 compiled, the difference 8 B each exactly."""
    logits = 32 * 1024 * 50304
    eager = _estimate("--framework", "hf-trainer", "--compile", "--loss", "eager")
    compiled = _estimate("--framework", "hf-trainer", "--compile")
    part = "logits_and_loss"
    assert eager["memory"]["detail"][part] == logits * 12
    assert compiled["memory"]["detail"][part] == logits * 4
    assert compiled["workload"]["loss"] is None  # the stack's default, not a --loss
    # the loss's passes over the logits shrink too: 2 B a logit forward and twice that backward instead of 10
    assert compiled["training"]["step_seconds"] < eager["training"]["step_seconds"]


def test_32bit_logits_and_their_gradient_cost_twice_as_much():
    """fp32 training: the saved logits and their gradient 4 + 4 B; the eager loss's three fp32 tensors 12 B either way."""
    logits = 32 * 1024 * 50304
    fp32 = _estimate("--framework", "fsdp", "--zero", "0", "--compile", "--loss", "compiled", "--precision", "fp32")
    assert fp32["memory"]["detail"]["logits_and_loss"] == logits * 8


def test_the_terminal_names_the_compiled_loss_and_how_to_say_otherwise():
    result = RUNNER.invoke(app, [*BASE, "--framework", "hf-trainer", "--compile"])
    assert result.exit_code in (0, 1), result.output
    flat = " ".join(result.output.split())
    assert "loss: compiled" in flat and "--loss eager: not compiled" in flat


def test_inductors_partition_saves_the_16bit_logits_not_an_fp32_copy():
    """The convention's saved part, checked on PyTorch itself (CPU): AOTAutograd's min-cut partitioner under
    inductor's decompositions keeps the bf16 logits and per-row statistics of F.cross_entropy(logits.float())."""
    torch = pytest.importorskip("torch")
    from functorch.compile import make_boxed_func, min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd
    from torch._inductor.decomposition import select_decomp_table

    vocab, hidden, tokens = 1000, 16, 8
    saved: list[tuple[torch.dtype, tuple[int, ...]]] = []

    def forward(gm, _example):  # record the forward graph's outputs past the loss: the saved tensors
        out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
        saved.extend((a.meta["val"].dtype, tuple(a.meta["val"].shape)) for a in out[1:] if hasattr(a, "meta"))
        return make_boxed_func(gm.forward)

    backend = aot_autograd(
        fw_compiler=forward,
        bw_compiler=lambda gm, _: make_boxed_func(gm.forward),
        partition_fn=min_cut_rematerialization_partition,
        decompositions=select_decomp_table(),
    )
    weight = torch.randn(vocab, hidden, requires_grad=True)

    def loss(h, labels):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return torch.nn.functional.cross_entropy((h @ weight.t()).float(), labels)

    torch._dynamo.reset()
    out = torch.compile(loss, backend=backend)(torch.randn(tokens, hidden), torch.randint(0, vocab, (tokens,)))
    out.backward()
    vocab_sized = [dtype for dtype, shape in saved if shape == (tokens, vocab)]
    assert vocab_sized == [torch.bfloat16]  # the logits themselves: 2 B a logit saved
    assert (torch.float32, (tokens, 1)) in saved  # a row statistic (max, log-sum-exp)
