"""Sequences packed from several documents with attention kept inside each (FlashAttention's
variable-length kernels, Transformer Engine's THD layout, NeMo's packed SFT): a query attends over its
own document's keys, not the whole sequence's (--packed-doc-tokens, the documents' mean length)."""

from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from gpuwise.api import make_plan
from gpuwise.catalog import TransformerArch, load_catalog
from gpuwise.cli.app import app
from gpuwise.errors import UsageError
from gpuwise.estimate.compute import counted_context, mean_context
from gpuwise.report.as_json import plan_json
from gpuwise.workload import TrainingJob, build_workload

from .conftest import run_process

CAT = load_catalog()
RUNNER = CliRunner()
BASE = ["estimate", "--model", "llama-3.1-8b", "--gpu", "h100-sxm:8", "--task", "finetune", "--micro-batch", "1"]


def _model(name: str) -> TransformerArch:
    m = CAT.model(name)
    assert isinstance(m, TransformerArch)
    return m


def _estimate(*extra: str) -> dict:
    result = RUNNER.invoke(app, [*BASE, *extra, "--json"])
    assert result.exit_code in (0, 1), result.output  # 1: it does not fit; the figures are still computed
    return json.loads(result.stdout)


def test_a_causal_query_sees_half_its_document_on_average_by_hand():
    """1,000 tokens as three documents of 300 and one of 100: (900 x 150.5 + 100 x 50.5) / 1,000."""
    llama = _model("llama-2-7b")
    assert mean_context(llama, 1000, 300) == pytest.approx((900 * 150.5 + 100 * 50.5) / 1000) == 140.5
    assert mean_context(llama, 4096, 1024) == 512.5  # four whole documents
    assert mean_context(llama, 4096, 4096) == mean_context(llama, 4096) == 2048.5  # one document: unpacked
    # an encoder's query sees its whole document: (900 x 300 + 100 x 100) / 1,000
    assert mean_context(_model("bert-base-uncased"), 1000, 300) == 280.0


def test_a_document_shorter_than_the_window_is_attended_whole():
    """Mistral's 4,096-token window: documents of 2,048 never reach it; at 8,192 tokens unpacked they do."""
    mistral = _model("mistral-7b-v0.1")
    assert mistral.sliding_window == 4096
    assert mean_context(mistral, 8192, 2048) == 1024.5
    # 10,000 tokens as a document of 6,000 (windowed: (4096 x 4097 / 2 + 1904 x 4096) / 6000 keys a query)
    # and the remainder of 4,000 (under the window: 2,000.5)
    windowed = (4096 * 4097 / 2 + (6000 - 4096) * 4096) / 6000
    assert mean_context(mistral, 10000, 6000) == pytest.approx((6000 * windowed + 4000 * 2000.5) / 10000)


def test_mfu_counts_attention_over_each_whole_document():
    """The convention's full span (the causal half included) becomes the document: (3 x 300^2 + 100^2) / 1,000."""
    assert counted_context(1000, 300) == 280.0
    assert counted_context(1000) == counted_context(1000, 1000) == 1000.0


def test_packing_shortens_a_long_sequence_step_by_its_attention_only():
    """Llama 3.1 8B at 16k tokens: the model FLOPs differ by the attention term alone,
    3 (forward and backward) x 2 x tokens x (16,384 - 1,024) x (q_dim + o_dim) x layers, and the step is
    shorter; the parameters, the memory and the head do not change."""
    m = _model("llama-3.1-8b")
    whole, packed = _estimate("--seq", "16384"), _estimate("--seq", "16384", "--packed-doc-tokens", "1024")
    tokens = whole["training"]["tokens_per_second"] * whole["training"]["step_seconds"]
    drop = 3 * 2 * tokens * (16384 - 1024) * (m.q_dim + m.o_dim) * m.layers
    assert whole["training"]["flops_per_step"] - packed["training"]["flops_per_step"] == pytest.approx(drop)
    assert packed["training"]["step_seconds"] < 0.8 * whole["training"]["step_seconds"]
    assert packed["memory"]["per_gpu"]["total"] == whole["memory"]["per_gpu"]["total"]
    assert packed["workload"]["packed_doc_tokens"] == 1024 and whole["workload"]["packed_doc_tokens"] is None
    assert any("--packed-doc-tokens" in a for a in packed["assumptions"])


def test_a_document_as_long_as_the_sequence_changes_nothing():
    whole, packed = _estimate("--seq", "4096"), _estimate("--seq", "4096", "--packed-doc-tokens", "4096")
    assert packed["training"] == whole["training"] and packed["memory"] == whole["memory"]


def test_eager_attention_computes_the_masked_scores_all_the_same():
    """The step takes as long as unpacked; the model FLOPs (MFU's useful work) are the packed documents'
    whichever kernel runs them."""
    whole = _estimate("--seq", "2048", "--attention", "eager")
    packed = _estimate("--seq", "2048", "--attention", "eager", "--packed-doc-tokens", "256")
    flash = _estimate("--seq", "2048", "--packed-doc-tokens", "256")
    assert packed["training"]["step_seconds"] == whole["training"]["step_seconds"]
    assert packed["training"]["flops_per_step"] == flash["training"]["flops_per_step"]
    assert packed["training"]["mfu"] < whole["training"]["mfu"]
    assert any("computes the scores of all 2,048" in a for a in packed["assumptions"])


def test_a_context_parallel_rank_attends_inside_its_documents_too():
    """Ring attention over packed documents: each rank's share of the queries sees its documents' keys."""
    whole = _estimate("--seq", "32768", "--cp", "2")
    packed = _estimate("--seq", "32768", "--cp", "2", "--packed-doc-tokens", "2048")
    assert packed["training"]["step_seconds"] < 0.8 * whole["training"]["step_seconds"]
    assert packed["memory"]["per_gpu"]["total"] == whole["memory"]["per_gpu"]["total"]


@pytest.mark.parametrize(
    ("opts", "says"),
    [
        ({"model": "resnet-50", "seq": None}, "does not read tokens"),
        ({"model": "vit-base-patch16-224", "seq": None}, "does not read tokens"),
        ({"seq": 1024, "packed_doc_tokens": 1025}, "longer than the 1024-token sequence"),
    ],
)
def test_packing_what_cannot_hold_documents_is_refused(opts: dict[str, object], says: str):
    with pytest.raises(UsageError, match=says):
        build_workload({"model": "llama-2-7b", "packed_doc_tokens": 512, "task": "finetune", **opts}, CAT)


def test_the_cli_refuses_packing_for_inference_with_a_usage_error():
    proc = run_process("estimate", "--model", "llama-3.1-8b", "--task", "inference", "--packed-doc-tokens", "9")
    assert proc.returncode == 2 and "only apply to training" in proc.stderr + proc.stdout


def test_a_plan_over_packed_documents_writes_them_into_each_command():
    work = {"model": "llama-3.1-8b", "task": "finetune", "seq": 8192, "packed_doc_tokens": 512, "tokens": "200M"}
    result = plan_json(make_plan(work, {"deadline": "2d", "gpus": "h100-sxm"}))
    for cand in result["candidates"][:3]:
        assert "--packed-doc-tokens 512" in cand["command"], cand["command"]
        argv = shlex.split(cand["command"])
        est = json.loads(RUNNER.invoke(app, [*argv[1:], "--json"]).stdout)
        assert est["training"]["step_seconds"] == pytest.approx(cand["training"]["step_seconds"], rel=1e-9)
    job = build_workload(work, CAT)
    assert isinstance(job, TrainingJob) and job.packed_doc_tokens == 512


def test_growth_to_a_model_that_reads_no_tokens_drops_the_packing():
    from gpuwise.plan.search import _growth_workload
    from gpuwise.workload.requirements import build_requirements

    job = build_workload({"model": "llama-2-7b", "task": "finetune", "seq": 4096, "packed_doc_tokens": 100}, CAT)
    req = build_requirements({"growth_model": "vit-base-patch16-224"}, CAT)
    grown = _growth_workload(job, req)
    assert isinstance(grown, TrainingJob) and grown.packed_doc_tokens is None
    same = _growth_workload(job, build_requirements({"growth_model": "llama-2-13b"}, CAT))
    assert isinstance(same, TrainingJob) and same.packed_doc_tokens == 100
