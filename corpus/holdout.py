"""Score the dated holdouts (corpus/data/holdout.yaml, the first; corpus/data/holdout2.yaml, the
second; corpus/data/holdout3.yaml, the third; corpus/data/holdout4.yaml, the fourth;
corpus/data/holdout5.yaml, the fifth; corpus/data/holdout6.yaml, the sixth; corpus/data/holdout7.yaml,
the seventh; corpus/data/holdout8.yaml, the eighth; corpus/data/holdout9.yaml, the ninth;
corpus/data/holdout10.yaml, the tenth; corpus/data/holdout11.yaml, the eleventh; corpus/data/holdout12.yaml,
the twelfth; corpus/data/holdout13.yaml, the thirteenth; corpus/data/holdout14.yaml, the fourteenth;
corpus/data/holdout15.yaml, the fifteenth; corpus/data/holdout16.yaml, the sixteenth; corpus/data/holdout17.yaml, the seventeenth; corpus/data/holdout18.yaml, the eighteenth; corpus/data/holdout19.yaml, the nineteenth; corpus/data/holdout20.yaml, the twentieth; corpus/data/holdout21.yaml, the twenty-first; corpus/data/holdout22.yaml, the twenty-second; corpus/data/holdout23.yaml, the twenty-third; corpus/data/holdout24.yaml, the twenty-fourth; corpus/data/holdout25.yaml, the twenty-fifth; corpus/data/holdout26.yaml, the twenty-sixth; corpus/data/holdout27.yaml, the twenty-seventh; corpus/data/holdout28.yaml, the twenty-eighth; corpus/data/holdout29.yaml, the twenty-ninth; corpus/data/holdout30.yaml, the thirtieth; corpus/data/holdout31.yaml, the thirty-first; corpus/data/holdout32.yaml, the thirty-second; corpus/data/holdout33.yaml, the thirty-third; and corpus/data/holdout34.yaml, the thirty-fourth, each gathered apart): published measurements first read on or after 2026-12-01 from sources the project had not
used, scored before any mechanism is changed for them and never used to fit anything.

Each case is predicted the way `gpuwise estimate` predicts it (gpuwise.api.make_estimate with the
case's options, then the estimate's JSON), so what is scored is what a user gets. A case names what
gpuwise cannot express (`needs`); it is scored with the nearest options gpuwise has, and a need that
lists `wants` is tried first: once gpuwise accepts those options, the case uses them and the need
counts as met. Used by scripts/holdout.py (docs/accuracy-holdout.md, accuracy-holdout2.md,
accuracy-holdout3.md, accuracy-holdout4.md, accuracy-holdout5.md, accuracy-holdout6.md,
accuracy-holdout7.md, accuracy-holdout8.md, accuracy-holdout9.md, accuracy-holdout10.md,
accuracy-holdout11.md, accuracy-holdout12.md, accuracy-holdout13.md, accuracy-holdout14.md,
accuracy-holdout15.md, accuracy-holdout16.md, accuracy-holdout17.md, accuracy-holdout18.md, accuracy-holdout19.md, accuracy-holdout20.md, accuracy-holdout21.md, accuracy-holdout22.md, accuracy-holdout23.md, accuracy-holdout24.md, accuracy-holdout25.md, accuracy-holdout26.md, accuracy-holdout27.md, accuracy-holdout28.md, accuracy-holdout29.md, accuracy-holdout30.md, accuracy-holdout31.md, accuracy-holdout32.md, accuracy-holdout33.md, accuracy-holdout34.md) and tests/test_holdout.py.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpuwise.api import make_estimate
from gpuwise.errors import GpuwiseError
from gpuwise.workload.schema import names

ROOT = Path(__file__).resolve().parent.parent  # the repository: notes name files relative to it
FIRST_READ = "2026-12-01"  # the holdout's date: every case was first read on or after it
KINDS = ("memory", "training", "inference")
GOAL = 0.20  # the share of cases within ±20 % is reported beside the medians
UNITS = {
    "GiB": 2**30,
    "GB (1000 MiB)": 1000 * 2**20,  # a README's "GB" that divides a MiB figure by 1000
    "ms": 1e-3,
    "s": 1.0,
    "seconds": 1.0,
    "tokens/s/GPU": 1.0,
    "tokens/s/GCD": 1.0,
    "tokens/s": 1.0,
    "output tokens/s": 1.0,
    "images/s": 1.0,
    "samples/s": 1.0,
    "s/step": 1.0,
    "MiB": 2**20,
    "GB": 1e9,  # decimal: torch.cuda.max_memory_allocated() / 1e9, or a figure printed as GB
    "MB": 1e6,  # decimal: optimum-benchmark's bytes_to_mega_bytes (int(bytes * 1e-6), "MB, not MiB")
}


@dataclass(frozen=True, slots=True)
class Apart:
    """Cases also reported without: those whose `key` is set (overlap risk, a known document family,
    a further row of a source already represented). `note` explains them ({n}: how many)."""

    key: str
    label: str  # the summary rows' "without the {n} {label}"
    marker: str  # beside the case's name in the tables
    note: str


@dataclass(frozen=True, slots=True)
class HoldoutSet:
    """One dated holdout: its cases, its generated document and how its sources are counted (by
    repository, or by document when one repository holds several of its documents)."""

    number: int
    data: Path
    doc: str
    name: str
    by_document: bool
    apart: tuple[Apart, ...]

    @property
    def command(self) -> str:
        return "python scripts/holdout.py" + ("" if self.number == 1 else f" --set {self.number}")


DATA_DIR = Path(__file__).parent / "data"  # the holdouts' case files
# The further rows of a document already represented, set apart alike in every holdout counted by document
EXTRA_ROW = Apart(
    "extra_row_of_source",
    "extra rows of a source",
    "extra row",
    "`extra row`: {n} further rows of a document already represented (scored, not counted as a new\n"
    "document), also reported without them.",
)


SETS: dict[int, HoldoutSet] = {
    1: HoldoutSet(
        1,
        DATA_DIR / "holdout.yaml",
        "accuracy-holdout.md",
        "the dated holdout",
        False,
        (
            Apart(
                "overlap_risk",
                "overlap-risk",
                "overlap risk",
                "`overlap risk`: {n} cases from sources the project's own diagnostic cases probably drew on\n"
                "(the gatherer's judgement), also reported without them.",
            ),
        ),
    ),
    2: HoldoutSet(
        2,
        DATA_DIR / "holdout2.yaml",
        "accuracy-holdout2.md",
        "the second dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (NeMo, ms-swift)",
                "family",
                "`family`: {n} cases from a document family the project already uses (NeMo, ms-swift), also\n"
                "reported without them.",
            ),
            Apart(
                "extra_row_of_source",
                "extra rows of a source",
                "extra row",
                "`extra row`: {n} further rows of a source already represented (scored, not counted as a new\n"
                "document), also reported without them.",
            ),
        ),
    ),
    3: HoldoutSet(
        3,
        DATA_DIR / "holdout3.yaml",
        "accuracy-holdout3.md",
        "the third dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (InternLM XTuner)",
                "family",
                "`family`: {n} case from a document family the project already uses (InternLM XTuner), also\n"
                "reported without it.",
            ),
            EXTRA_ROW,
        ),
    ),
    4: HoldoutSet(
        4,
        DATA_DIR / "holdout4.yaml",
        "accuracy-holdout4.md",
        "the fourth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (DeepLearningExamples, Transformer Engine, AutoAWQ)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (NVIDIA\n"
                "DeepLearningExamples' TensorFlow and MXNet READMEs, the Transformer Engine user guide, AutoAWQ), also\n"
                "reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    5: HoldoutSet(
        5,
        DATA_DIR / "holdout5.yaml",
        "accuracy-holdout5.md",
        "the fifth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (transformers docs, HF blog, torchao, ONNX Runtime)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (the\n"
                "Hugging Face transformers documentation and examples, the Hugging Face blog, the torchao READMEs,\n"
                "ONNX Runtime), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    6: HoldoutSet(
        6,
        DATA_DIR / "holdout6.yaml",
        "accuracy-holdout6.md",
        "the sixth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (THUDM GLM demos, lit-llama)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (THUDM's\n"
                "GLM fine-tuning demos, Lightning AI's lit-llama how-tos), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    7: HoldoutSet(
        7,
        DATA_DIR / "holdout7.yaml",
        "accuracy-holdout7.md",
        "the seventh dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (Lightning AI, llm.c, timm, NVIDIA DLE and NeMo, HF blog and examples, AITemplate, ExLlama)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (Lightning\n"
                "AI's lit-gpt/LitGPT tutorials, karpathy/llm.c's scripts, timm's results CSVs, NVIDIA DeepLearningExamples\n"
                "and NeMo Automodel, the Hugging Face blog and transformers examples, AITemplate's examples,\n"
                "turboderp's ExLlama repositories), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    8: HoldoutSet(
        8,
        DATA_DIR / "holdout8.yaml",
        "accuracy-holdout8.md",
        "the eighth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (timm, FasterTransformer, torchtune, Vertex Model Garden reports)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (timm's\n"
                "results CSVs, NVIDIA FasterTransformer's guides, torchtune's tutorials, Google Cloud's Vertex Model\n"
                "Garden benchmarking reports), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    9: HoldoutSet(
        9,
        DATA_DIR / "holdout9.yaml",
        "accuracy-holdout9.md",
        "the ninth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (FlagPerf, timm)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (FlagPerf's\n"
                "per-case READMEs, timm's repository), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    10: HoldoutSet(
        10,
        DATA_DIR / "holdout10.yaml",
        "accuracy-holdout10.md",
        "the tenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (FlagPerf, Qwen speed benchmark, AMD ROCm performance results)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (FlagPerf's\n"
                "per-case READMEs, the Qwen speed-benchmark page, AMD's ROCm 'Performance results' page), also reported\n"
                "without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    11: HoldoutSet(
        11,
        DATA_DIR / "holdout11.yaml",
        "accuracy-holdout11.md",
        "the eleventh dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (FlagPerf, Qwen speed benchmark, timm benchmark CSVs)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (FlagPerf's\n"
                "per-case READMEs, the Qwen speed-benchmark page, timm's benchmark result CSVs), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    12: HoldoutSet(
        12,
        DATA_DIR / "holdout12.yaml",
        "accuracy-holdout12.md",
        "the twelfth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (torchtitan benchmarks)",
                "family",
                "`family`: {n} cases from a further document of a documentation set the project already uses (torchtitan's\n"
                "benchmarks folder), also reported without them.",
            ),
            Apart(
                "overlap_risk",
                "overlap-risk",
                "overlap risk",
                "`overlap risk`: {n} cases whose runs probably also stand in a document the project uses (TensorRT-LLM's\n"
                "v0.5 performance page, quoted by its H100-vs-A100 blog), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    13: HoldoutSet(
        13,
        DATA_DIR / "holdout13.yaml",
        "accuracy-holdout13.md",
        "the thirteenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a known family (dgxc-benchmarking recipes, fms-acceleration benchmark references)",
                "family",
                "`family`: {n} cases from further documents of documentation sets the project already uses (NVIDIA's\n"
                "dgxc-benchmarking recipes, fms-acceleration's benchmark reference CSVs), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    14: HoldoutSet(
        14,
        DATA_DIR / "holdout14.yaml",
        "accuracy-holdout14.md",
        "the fourteenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set an earlier holdout drew on (PEFT method comparison, Diffusers docs, gpu_conc, lambda-diffusers)",
                "family",
                "`family`: {n} cases from further documents of sets earlier holdouts drew on (the PEFT method\n"
                "comparison's result files, the Diffusers optimization pages, sariekr/gpu_conc's and\n"
                "LambdaLabsML/lambda-diffusers' benchmark files), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    15: HoldoutSet(
        15,
        DATA_DIR / "holdout15.yaml",
        "accuracy-holdout15.md",
        "the fifteenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set an earlier holdout or the corpus drew on (timm results, lambda-diffusers, Falcon cards)",
                "family",
                "`family`: {n} cases from further documents of sets earlier holdouts or the corpus drew on (timm's\n"
                "results files, LambdaLabsML/lambda-diffusers' benchmark files, TII's Falcon model cards), also\n"
                "reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    16: HoldoutSet(
        16,
        DATA_DIR / "holdout16.yaml",
        "accuracy-holdout16.md",
        "the sixteenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus drew on (Unsloth's executed notebooks)",
                "family",
                "`family`: {n} cases from further documents of a set the corpus drew on (Unsloth's executed\n"
                "notebooks, unslothai/notebooks; the corpus cites the Unsloth README, benchmark pages and blog), also\n"
                "reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    17: HoldoutSet(
        17,
        DATA_DIR / "holdout17.yaml",
        "accuracy-holdout17.md",
        "the seventeenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout drew on (InferenceX, trtllm-benchmarks)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout drew on\n"
                "(SemiAnalysisAI/InferenceX's threads, the corpus citing its issue #870; shaamil101-etched/trtllm-benchmarks'\n"
                "Llama 3.1 8B results, holdout 16 using its 70B results), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    18: HoldoutSet(
        18,
        DATA_DIR / "holdout18.yaml",
        "accuracy-holdout18.md",
        "the eighteenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout drew on (GPUStack's performance lab)",
                "family",
                "`family`: {n} cases from further documents of a set the corpus or an earlier holdout drew on\n"
                "(GPUStack's performance-lab pages, the corpus citing its DeepSeek-R1 H200 page), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    19: HoldoutSet(
        19,
        DATA_DIR / "holdout19.yaml",
        "accuracy-holdout19.md",
        "the nineteenth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus draws on (NVIDIA-NeMo/Megatron-Bridge)",
                "family",
                "`family`: {n} cases from further documents of a set the corpus draws on (the files of\n"
                "NVIDIA-NeMo/Megatron-Bridge, the corpus citing its docs/performance-summary pages: its model\n"
                "verification cards and skills, pinned to commits), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    20: HoldoutSet(
        20,
        DATA_DIR / "holdout20.yaml",
        "accuracy-holdout20.md",
        "the twentieth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (ms-swift's examples and others)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on (ms-swift's\n"
                "example scripts, philschmid's training notebooks, DeepSpeed's docs, mlc-ai/llm-perf-bench), also reported\n"
                "without them.",
            ),
            Apart(
                "overlap_risk",
                "overlap-risk",
                "overlap risk",
                "`overlap risk`: {n} cases whose runs probably also stand in a document the project uses (torchao's float8\n"
                "README beside torchtitan pull request #808, NeMo's performance pages beside Megatron-LM's examples/llama\n"
                "table), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    21: HoldoutSet(
        21,
        DATA_DIR / "holdout21.yaml",
        "accuracy-holdout21.md",
        "the twenty-first dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (transformers' docs, timm's results and others)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on (pages of\n"
                "the transformers, TensorRT-LLM and vLLM docs, timm's results CSVs, ROCm blogs, dstack's and Azure's\n"
                "benchmarks, NVIDIA's recipes and model cards), also reported without them.",
            ),
            Apart(
                "overlap_risk",
                "overlap-risk",
                "overlap risk",
                "`overlap risk`: {n} cases whose runs probably also stand in a document the project uses (NeMo's and\n"
                "Megatron-Bridge's performance pages, TensorRT-LLM's perf-overview), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    22: HoldoutSet(
        22,
        DATA_DIR / "holdout22.yaml",
        "accuracy-holdout22.md",
        "the twenty-second dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (dgxc-benchmarking, InferenceX, timm and others)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(dgxc-benchmarking's READMEs, SemiAnalysis InferenceX threads, timm's results CSVs, transformers' docs,\n"
                "DeepLearningExamples, LitGPT and torchao docs, vLLM recipes), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    23: HoldoutSet(
        23,
        DATA_DIR / "holdout23.yaml",
        "accuracy-holdout23.md",
        "the twenty-third dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (sgl-cookbook, DeepLearningExamples, DeepSpeed and others)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(sgl-cookbook pages, ZJUICI's benchmark tables, the NeMo launcher, Megatron-LLaMA, DeepLearningExamples'\n"
                "READMEs, DeepSpeed's examples and blogs, torchao docs), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    24: HoldoutSet(
        24,
        DATA_DIR / "holdout24.yaml",
        "accuracy-holdout24.md",
        "the twenty-fourth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (hisohara/ai-scripts, LLMs-from-scratch, ROCm blogs)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(hisohara/ai-scripts' Megatron-LM FP8 README, rasbt/LLMs-from-scratch's Qwen3 README, ROCm's torchtune\n"
                "blog), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    25: HoldoutSet(
        25,
        DATA_DIR / "holdout25.yaml",
        "accuracy-holdout25.md",
        "the twenty-fifth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (SGLang's fused-MoE tuning pull requests, the SGLang "
                "cookbook, NeMo Automodel, torchtune)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(SGLang's and vLLM's fused-MoE tuning pull requests, the SGLang cookbook, NeMo Automodel's guides, torchtune's\n"
                "pull requests), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    26: HoldoutSet(
        26,
        DATA_DIR / "holdout26.yaml",
        "accuracy-holdout26.md",
        "the twenty-sixth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (AI-Hypercomputer gpu-recipes, "
                "LLM-Inference-Bench's Fig_22 file)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(AI-Hypercomputer/gpu-recipes' a3ultra TensorRT-LLM README; LLM-Inference-Bench's Fig_22 TTFT file beside\n"
                "its results CSV), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    27: HoldoutSet(
        27,
        DATA_DIR / "holdout27.yaml",
        "accuracy-holdout27.md",
        "the twenty-seventh dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (fms-acceleration's results, lightning-thunder)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(fms-acceleration's L40 results beside its cited A100 ones; lightning-thunder's benchmark script), also\n"
                "reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    28: HoldoutSet(
        28,
        DATA_DIR / "holdout28.yaml",
        "accuracy-holdout28.md",
        "the twenty-eighth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (Megatron-Bridge, LUMI, server-gear, DLPerf)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(a Megatron-Bridge verification card; LUMI's ReFrame tests; server-gear.com's pages; OneFlow's DLPerf), also\n"
                "reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    29: HoldoutSet(
        29,
        DATA_DIR / "holdout29.yaml",
        "accuracy-holdout29.md",
        "the twenty-ninth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (tt-inference-server, lightning-thunder, pytorch/TensorRT, optimum-benchmark)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(tt-inference-server's reference runs; lightning-thunder's benchmark script; pytorch/TensorRT's notebooks;\n"
                "optimum-benchmark's examples, and Dell's MLPerf run of AMD's submission), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    30: HoldoutSet(
        30,
        DATA_DIR / "holdout30.yaml",
        "accuracy-holdout30.md",
        "the thirtieth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (MLPerf results)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(MLPerf Training and Inference results of rounds and submitters not yet cited), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    31: HoldoutSet(
        31,
        DATA_DIR / "holdout31.yaml",
        "accuracy-holdout31.md",
        "the thirty-first dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (hpml-llama2-tgi, MLPerf results)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(bencyna/hpml-llama2-tgi's sweeps; MLPerf Inference results), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    32: HoldoutSet(
        32,
        DATA_DIR / "holdout32.yaml",
        "accuracy-holdout32.md",
        "the thirty-second dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (nanoGPT, Hugging Face's blog, optimum-benchmark)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(a nanoGPT pull request; a Hugging Face blog post; optimum-benchmark's examples), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    33: HoldoutSet(
        33,
        DATA_DIR / "holdout33.yaml",
        "accuracy-holdout33.md",
        "the thirty-third dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (vLLM's issue tracker)",
                "family",
                "`family`: {n} cases from further documents of sets the corpus or an earlier holdout draws on\n"
                "(an issue on vLLM's tracker), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    34: HoldoutSet(
        34,
        DATA_DIR / "holdout34.yaml",
        "accuracy-holdout34.md",
        "the thirty-fourth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (gpustack, BigScience, timm, DLPerf, Qwen, PEFT, ms-swift)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(gpustack's performance lab, BigScience's logs, timm's results, DLPerf, Qwen's docs, PEFT's method\n"
                "comparison, ms-swift's examples), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    35: HoldoutSet(
        35,
        DATA_DIR / "holdout35.yaml",
        "accuracy-holdout35.md",
        "the thirty-fifth dated holdout",
        True,
        (EXTRA_ROW,),
    ),
    36: HoldoutSet(
        36,
        DATA_DIR / "holdout36.yaml",
        "accuracy-holdout36.md",
        "the thirty-sixth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (FlagPerf, nanochat, Megatron-LLaMA)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(FlagPerf's READMEs, nanochat's pull requests, Megatron-LLaMA's issues), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    37: HoldoutSet(
        37,
        DATA_DIR / "holdout37.yaml",
        "accuracy-holdout37.md",
        "the thirty-seventh dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (FlagPerf, MLPerf, fms-acceleration, peft...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(FlagPerf's READMEs, MLPerf Inference result files, fms-acceleration's and peft's committed results,\n"
                "torchao's README, DeepSpeed's and TRL's threads, the LUMI scaling logs), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    38: HoldoutSet(
        38,
        DATA_DIR / "holdout38.yaml",
        "accuracy-holdout38.md",
        "the thirty-eighth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (MLPerf, ms-swift, Megatron-DeepSpeed...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(MLPerf Inference result files, ms-swift's example scripts, Megatron-DeepSpeed's READMEs, ColossalAI's\n"
                "and EasyContext's issues, an inference benchmark's result tables, ROCm's blogs), also reported without\n"
                "them.",
            ),
            EXTRA_ROW,
        ),
    ),
    39: HoldoutSet(
        39,
        DATA_DIR / "holdout39.yaml",
        "accuracy-holdout39.md",
        "the thirty-ninth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (MLPerf, gpustack, InternEvo...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(MLPerf Inference and Training result files, gpustack's performance lab, InternEvo's copy of InternLM's\n"
                "performance document, Swiss AI's Megatron-LM and torchtitan's threads), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    40: HoldoutSet(
        40,
        DATA_DIR / "holdout40.yaml",
        "accuracy-holdout40.md",
        "the fortieth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (MLPerf, Megatron-Bridge, timm...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(MLPerf Inference and Training result files, Megatron-Bridge's verification cards, timm's benchmark CSVs,\n"
                "NVIDIA's DeepLearningExamples), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    41: HoldoutSet(
        41,
        DATA_DIR / "holdout41.yaml",
        "accuracy-holdout41.md",
        "the forty-first dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (gpustack, milabench, XTuner...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(gpustack's performance lab, milabench's scaling files, XTuner's benchmark docs, MLPerf Training v4.1\n"
                "results, a Qwen3-8B report repository), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    42: HoldoutSet(
        42,
        DATA_DIR / "holdout42.yaml",
        "accuracy-holdout42.md",
        "the forty-second dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (PaddleClas, TensorRT-LLM, TResNet...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(PaddleClas' model docs, TensorRT-LLM's performance overview, TResNet's and Megatron-LLaMA's issues, MLPerf\n"
                "Inference v4.0 results, a GPU benchmark repository), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    43: HoldoutSet(
        43,
        DATA_DIR / "holdout43.yaml",
        "accuracy-holdout43.md",
        "the forty-third dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (DLPerf, MLPerf v5.0 and v5.1, llm-tracker...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(DLPerf's framework reports, MLPerf Inference v5.0 and Training v5.1 results, llm-tracker's vault, a GPU\n"
                "blog, vLLM's pull requests, an LLM-serve report, a Chinese engineer's blog), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    44: HoldoutSet(
        44,
        DATA_DIR / "holdout44.yaml",
        "accuracy-holdout44.md",
        "the forty-fourth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (MLPerf, DeepLearningExamples, DeepSpeed...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(MLPerf Training v3.1 to v5.0 and Inference v5.1 results, DeepLearningExamples, DeepSpeed's blogs and\n"
                "DeepSpeed-Chat's logs, GPUStack's performance lab, engines' issues, diffusers' docs), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
    45: HoldoutSet(
        45,
        DATA_DIR / "holdout45.yaml",
        "accuracy-holdout45.md",
        "the forty-fifth dated holdout",
        True,
        (
            Apart(
                "family",
                "of a set the corpus or an earlier holdout draws on (MLPerf, DeepLearningExamples, AWS's recipes...)",
                "family",
                "`family`: {n} cases from further documents of repositories the corpus or an earlier holdout draws on\n"
                "(MLPerf results and their forks, DeepLearningExamples, AWS's distributed-training recipes, optimum-benchmark,\n"
                "MosaicML's examples, ColossalAI, torchtune, tinygrad, ROCm's repositories, Sailor), also reported without them.",
            ),
            EXTRA_ROW,
        ),
    ),
}
DATA = SETS[1].data


@dataclass(frozen=True, slots=True)
class Metric:
    """A figure of the estimate JSON: where to read it, whether it is a time (smaller is faster) and
    which `uncertainty` keys bound it (each with `inverse` when the band is of its reciprocal)."""

    path: str
    time: bool
    bands: tuple[tuple[str, bool], ...]
    also: str | None = None  # read where `path` is absent (a finite run's figure of the same name)


METRICS: dict[str, Metric] = {
    "memory.max_reserved": Metric(
        "memory.as_reported.max_reserved",
        False,
        (("memory.as_reported.max_reserved", False), ("memory.per_gpu.total", False)),
    ),
    "memory.max_allocated": Metric(
        "memory.as_reported.max_allocated",
        False,
        (("memory.as_reported.max_allocated", False), ("memory.per_gpu.total", False)),
    ),
    "memory.device_used": Metric(
        "memory.as_reported.device_used",
        False,
        (("memory.as_reported.device_used", False), ("memory.per_gpu.total", False)),
    ),
    "training.tokens_per_second_per_gpu": Metric(
        "training.tokens_per_second", False, (("training.tokens_per_second", False), ("training.step_seconds", True))
    ),
    "training.samples_per_second": Metric(
        "training.samples_per_second",
        False,
        (
            ("training.samples_per_second", False),
            ("training.tokens_per_second", False),
            ("training.step_seconds", True),
        ),
    ),
    "training.tokens_per_second": Metric(
        "training.tokens_per_second", False, (("training.tokens_per_second", False), ("training.step_seconds", True))
    ),
    "training.step_seconds": Metric(
        "training.step_seconds", True, (("training.step_seconds", False), ("training.tokens_per_second", True))
    ),
    "training.total_seconds": Metric(
        "training.total_seconds",
        True,
        (("training.total_seconds", False), ("training.gpu_hours", False), ("training.tokens_per_second", True)),
    ),
    "inference.time_to_first_token_seconds": Metric(
        "inference.time_to_first_token_seconds", True, (("inference.time_to_first_token_seconds", False),)
    ),
    "inference.decode_seconds_per_token": Metric(
        "inference.decode_seconds_per_token", True, (("inference.decode_seconds_per_token", False),)
    ),
    # one stream's decode rate: 1 / the time per output token
    "inference.decode_tokens_per_second": Metric(
        "inference.decode_seconds_per_token", False, (("inference.decode_seconds_per_token", True),)
    ),
    "inference.tokens_per_second": Metric(
        "inference.tokens_per_second",
        False,
        (("inference.tokens_per_second", False), ("inference.decode_seconds_per_token", True)),
    ),
    "inference.samples_per_second": Metric(
        "inference.samples_per_second",
        False,
        (("inference.samples_per_second", False), ("inference.latency_seconds", True)),
    ),
    "inference.latency_seconds": Metric("inference.latency_seconds", True, (("inference.latency_seconds", False),)),
    # one request's output tokens over its whole latency (gpt-fast's tokens/s at batch 1)
    "inference.request_tokens_per_second": Metric(
        "inference.latency_seconds", False, (("inference.latency_seconds", True),)
    ),
    "inference.serving.tpot_p50": Metric(
        "inference.serving.percentiles.tpot.p50",
        True,
        (("inference.serving.percentiles.tpot.p50", False), ("inference.decode_seconds_per_token", False)),
        "inference.run_percentiles.tpot.p50",  # a benchmark of N requests: the median over its requests
    ),
}


@dataclass(frozen=True, slots=True)
class Scored:
    """One case against gpuwise: the published figure and the prediction in SI units, the options
    the prediction used, the needs met by options gpuwise now accepts and those still open, and the
    band (low, high) around the prediction when the estimate carries one."""

    id: str
    kind: str
    overlap_risk: bool
    metric: str
    published: float
    predicted: float | None
    options: Mapping[str, Any]
    met: tuple[str, ...]
    open: tuple[str, ...]
    band: tuple[float, float] | None
    note: str

    @property
    def error(self) -> float | None:
        """predicted / published - 1, on the figure as published."""
        return None if self.predicted is None else self.predicted / self.published - 1

    @property
    def signed(self) -> float | None:
        """The error with one sign convention for every figure: positive when gpuwise predicts more
        memory, or a faster run (for a time, the sign of the error is flipped)."""
        e = self.error
        return None if e is None else (-e if METRICS[self.metric].time else e)

    @property
    def covered(self) -> bool | None:
        if self.band is None:
            return None
        return self.band[0] <= self.published <= self.band[1]


def load(path: Path = DATA) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict), f"{path}: a mapping"
    return doc


# units of one device's share of a run's throughput; a metric of the whole run's (inference.tokens_per_second,
# training.tokens_per_second) compares them times the run's devices (the `gpu` option's count)
PER_DEVICE_UNITS = ("tokens/s/GPU", "tokens/s/GCD")
WHOLE_RUN_METRICS = ("inference.tokens_per_second", "training.tokens_per_second")


def run_devices(case: Mapping[str, Any]) -> int:
    """The devices a per-GPU published throughput is multiplied by to compare it with the figure of the
    case's metric: the run's GPUs (the `gpu` option's count: a training run's, or a serving run's engine
    copies together, whose tokens/s the estimate sums since 2026-12-05); 1 when no conversion applies."""
    if str(case["measured"]["unit"]) not in PER_DEVICE_UNITS or case["metric"] not in WHOLE_RUN_METRICS:
        return 1
    options = case["gpuwise"]
    gpu = str(options["gpu"])
    if ":" in gpu:
        return int(gpu.split(":")[1])
    return int(options.get("tp") or 1) * int(options.get("pp") or 1)  # the hardware's default count


def published_si(case: Mapping[str, Any]) -> float:
    """The published figure in SI units of the case's metric: a per-GPU throughput compared with a whole
    run's is multiplied by the run's GPUs (InferenceX prints output tokens/s per GPU of an 8-GPU server)."""
    m = case["measured"]
    return float(m["value"]) * UNITS[str(m["unit"])] * run_devices(case)


def split(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload, hardware and target) as `gpuwise estimate` splits its flags."""
    workload_names = names("workload")
    work = {k: v for k, v in options.items() if k in workload_names}
    return work, {k: v for k, v in options.items() if k not in workload_names}


def predict(options: Mapping[str, Any]) -> dict[str, Any]:
    """The estimate JSON of `gpuwise estimate` with these options (relative model paths are read
    from the repository root, as the command in the document runs there)."""
    opts = dict(options)
    model = str(opts.get("model", ""))
    if model.endswith(".json"):
        opts["model"] = str(Path(__file__).resolve().parent.parent / model)
    work, hardware = split(opts)
    return make_estimate(work, hardware).as_dict()


def lookup(doc: Mapping[str, Any], path: str) -> Any:
    node: Any = doc
    for part in path.split("."):
        if not isinstance(node, Mapping) or node.get(part) is None:
            return None
        node = node[part]
    return node


def figure(metric: str, est: Mapping[str, Any]) -> float | None:
    """The compared figure from an estimate JSON, in SI units."""
    spec = METRICS[metric]
    value = lookup(est, spec.path)
    if value is None and spec.also is not None:
        value = lookup(est, spec.also)
    if value is None:
        return None
    if metric == "training.tokens_per_second_per_gpu":
        return float(value) / int(est["hardware"]["count"])
    if metric == "inference.request_tokens_per_second":
        return float(est["workload"]["output_tokens"]) / float(value)
    if metric == "inference.decode_tokens_per_second":
        return 1 / float(value) if float(value) > 0 else None
    return float(value)


def band(metric: str, est: Mapping[str, Any], predicted: float) -> tuple[float, float] | None:
    """The prediction's band from the estimate's `uncertainty` (the first key it carries among the
    metric's), applied as the ratios low/value and high/value (inverted for a reciprocal)."""
    bands = est.get("uncertainty") or {}
    for key, inverse in METRICS[metric].bands:
        b, value = bands.get(key), lookup(est, key)
        if not isinstance(b, Mapping) or not value:
            continue
        lo, hi = float(b["low"]) / float(value), float(b["high"]) / float(value)
        if inverse:
            lo, hi = 1 / hi, 1 / lo
        return predicted * lo, predicted * hi
    return None


def resolve(case: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...], tuple[str, ...], dict[str, Any]]:
    """The options a case is scored with: its nearest options, then each need's `wants` that gpuwise
    accepts (a need's options may be all that gpuwise accepts for the run: an AMD GPU refuses the
    NVIDIA-only default runtime). Returns (options, needs met, needs open, estimate JSON); raises
    the nearest options' GpuwiseError when neither they nor any need's options can be estimated."""
    options = dict(case["gpuwise"])
    refused: GpuwiseError | None = None
    est: dict[str, Any] | None = None
    try:
        est = predict(options)
    except GpuwiseError as exc:
        refused = exc
    met: list[str] = []
    still: list[str] = []
    for need in case.get("needs") or ():
        wants = need.get("wants")
        if not wants:
            still.append(str(need["id"]))
            continue
        try:
            # a want of None drops the option (a burst's concurrency left to the engine's own bound)
            trial = {k: v for k, v in {**options, **wants}.items() if v is not None}
            est, options = predict(trial), trial
            met.append(str(need["id"]))
        except GpuwiseError:
            still.append(str(need["id"]))
    if est is None:
        assert refused is not None
        raise refused
    return options, tuple(met), tuple(still), est


def evaluate(case: Mapping[str, Any]) -> Scored:
    metric = str(case["metric"])
    predicted: float | None = None
    b: tuple[float, float] | None = None
    try:
        options, met, still, est = resolve(case)
    except GpuwiseError as exc:
        options, met, note = dict(case["gpuwise"]), (), str(exc).replace(f"{ROOT}/", "")
        still = tuple(str(n["id"]) for n in case.get("needs") or ())
    else:
        predicted = figure(metric, est)
        note = "" if predicted is not None else f"the estimate has no {METRICS[metric].path}"
        b = None if predicted is None else band(metric, est, predicted)
    return Scored(
        id=str(case["id"]),
        kind=str(case["kind"]),
        overlap_risk=bool(case.get("overlap_risk")),
        metric=metric,
        published=published_si(case),
        predicted=predicted,
        options=options,
        met=met,
        open=still,
        band=b,
        note=note,
    )


def evaluate_all(path: Path = DATA) -> list[Scored]:
    return [evaluate(c) for c in load(path)["cases"]]


@dataclass(frozen=True, slots=True)
class Summary:
    """Median |error| and signed median bias of the scored cases of a group, and the share of ALL its
    cases within ±20 % (a case gpuwise refuses to estimate counts as outside: a refusal is honest,
    but it is not an answer)."""

    cases: int
    scored: int
    median_abs: float | None
    bias: float | None
    within: float | None


def summarize(results: Iterable[Scored]) -> Summary:
    rows = list(results)
    errors = [r.error for r in rows if r.error is not None]
    signed = [r.signed for r in rows if r.signed is not None]
    if not errors:
        return Summary(len(rows), 0, None, None, None)
    return Summary(
        cases=len(rows),
        scored=len(errors),
        median_abs=statistics.median(abs(e) for e in errors),
        bias=statistics.median(signed),
        within=sum(abs(e) <= GOAL for e in errors) / len(rows),
    )


def command(options: Mapping[str, Any]) -> str:
    """The `gpuwise estimate` line these options make (run from the repository root)."""
    parts = ["gpuwise estimate"]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            parts.append(flag if value else "--no-" + flag[2:])
        elif isinstance(value, list):
            parts.append(f"{flag} {','.join(str(v) for v in value)}")
        else:
            parts.append(f"{flag} {value}")
    return " ".join(parts)
