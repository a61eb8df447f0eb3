"""The measurement files the field's tools write, read by gpuwise.calibration's pure parsers.

Fixtures (tests/data/calibrate, see its README) are runs in the exact layout of the tool versions
named in their file names; each expected value below is worked out by hand from the file.
"""

import json
import statistics
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwise.calibration import parse
from gpuwise.calibration.parsed import clean
from gpuwise.calibration.resolve import catalog_model, resolve
from gpuwise.errors import ConfigError, UsageError

DATA = Path(__file__).parent / "data" / "calibrate"
VLLM_NEW = DATA / "vllm-bench-serve-llama-3.1-8b-h100-c32.json"
VLLM_08 = DATA / "vllm-0.8-benchmark-serving-mistral-7b-a100-rate4.json"
NCCL_NEW = DATA / "nccl-tests-2.18.5-all-reduce-8xh100.txt"
NCCL_OLD = DATA / "nccl-tests-2.13-reduce-scatter-4xa100.txt"
TITAN = DATA / "torchtitan-llama3-8b-8xh100.log"
MEGATRON = DATA / "megatron-llama2-7b-8xh100.log"
MEMORY_JSON = DATA / "torch-memory-stats-llama-3.1-8b-lora-h100.json"
MEMORY_TEXT = DATA / "torch-memory-max-lines.txt"
GiB, MiB = 2**30, 2**20


def one(path, fmt):
    (found,) = parse(path.read_text(), fmt)
    return found


# ----- vLLM ----------------------------------------------------------------------------------------
def test_vllm_bench_serve_result_with_every_percentile():
    m = one(VLLM_NEW, "vllm-bench")
    assert m.kind == "serving" and m.model == "meta-llama/Llama-3.1-8B-Instruct"
    # 327,680 prompt and 81,920 output tokens over 320 completed requests; --max-concurrency 32
    assert m.shape == {"input_tokens": 1024, "output_tokens": 256, "concurrency": 32}
    assert m.figures["ttft.median"] == pytest.approx(78.41149397422828e-3)
    assert m.figures["tpot.p90"] == pytest.approx(13.810203591512616e-3)
    assert m.figures["e2e.p99"] == pytest.approx(3793.791300935747e-3)
    assert m.figures["output_tokens_per_second"] == pytest.approx(2402.5684302977384)
    assert m.figures["requests_per_second"] == pytest.approx(9.38503293085054)
    assert m.facts["std_seconds"]["ttft"] == pytest.approx(31.02713182056956e-3)
    assert m.facts["requests"] == 320 and m.facts["request_rate"] == "inf"
    assert m.measured_at == "2025-11-04T14:23:11"  # vLLM's '%Y%m%d-%H%M%S'
    assert "client_queue_time" not in str(m.figures)  # a metric gpuwise does not predict is left out


def test_vllm_08_result_without_max_concurrency_takes_littles_law():
    m = one(VLLM_08, "vllm-bench")
    doc = json.loads(VLLM_08.read_text())
    assert "request_goodput:" in doc  # v0.8's key, colon included: read as any other extra key
    assert m.shape["input_tokens"] == 512  # 24,576 / 48
    assert m.shape["output_tokens"] == 123  # 5,895 / 48 = 122.8
    # no e2el in the file: mean TTFT + mean TPOT x (123 - 1) = 46.75 ms + 14.378 ms x 122 = 1.8009 s;
    # x 3.678 requests/s = 6.62 requests in flight
    e2e = 46.747950516240124e-3 + 14.378024010365127e-3 * 122
    assert e2e * 3.677973126686211 == pytest.approx(6.6235, abs=1e-4)
    assert m.shape["concurrency"] == 7
    assert "Little's law" in m.notes[0]
    assert m.figures["ttft.p99"] == pytest.approx(78.31226882187222e-3) and "ttft.p90" not in m.figures


def test_an_appended_result_file_holds_one_measurement_per_line():
    line = json.dumps(json.loads(VLLM_NEW.read_text()))
    other = json.loads(VLLM_NEW.read_text())
    other["max_concurrency"] = 8
    found = parse(line + "\n" + json.dumps(other) + "\n", "vllm-bench")
    assert [m.shape["concurrency"] for m in found] == [32, 8]


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda d: d.pop("completed"), "key 'completed' is missing"),
        (lambda d: d.update(total_output_tokens="lots"), "key 'total_output_tokens': expected a number"),
        (lambda d: d.update(output_throughput=-3), "key 'output_throughput'"),
        (lambda d: d.update(completed=0), "every request failed"),
        (lambda d: d.update(mean_ttft_ms=True), "key 'mean_ttft_ms'"),
    ],
)
def test_a_bad_vllm_result_names_the_key(edit, named):
    doc = json.loads(VLLM_NEW.read_text())
    edit(doc)
    with pytest.raises(ConfigError, match=named):
        parse(json.dumps(doc), "vllm-bench")


def test_non_finite_and_malformed_json_are_named():
    text = VLLM_NEW.read_text().replace('"duration": 34.09684359743629', '"duration": NaN')
    with pytest.raises(ConfigError, match="NaN is not a number"):
        parse(text, "vllm-bench")
    with pytest.raises(ConfigError, match=r"line 1"):
        parse('{"completed": 3,', "vllm-bench")


# ----- nccl-tests ------------------------------------------------------------------------------------
def test_nccl_tests_2_18_all_reduce_on_one_node():
    m = one(NCCL_NEW, "nccl-tests")
    assert m.kind == "collective" and m.gpu_name == "NVIDIA H100 80GB HBM3"
    assert (m.gpu_count, m.hosts) == (8, 1)
    assert m.shape == {"collective": "all_reduce", "bytes": 8589934592, "ranks": 8}
    # the largest message's row: out of place 31747.7 us, 270.57 GB/s algbw, 473.50 GB/s busbw; in place 477.24
    assert m.figures["busbw"] == pytest.approx(473.50e9)
    assert m.figures["algbw"] == pytest.approx(270.57e9)
    assert m.figures["collective_seconds"] == pytest.approx(31747.7e-6)
    assert m.figures["busbw_in_place"] == pytest.approx(477.24e9)
    assert m.figures["avg_busbw"] == pytest.approx(151.31e9)
    assert m.facts["version"] == "2.18.5" and m.facts["iterations"] == 20 and len(m.facts["table"]) == 31
    assert (m.facts["threads"], m.facts["gpus_per_thread"]) == (1, 8)  # '# nThread 1 nGpus 8'
    assert m.facts["devices"][7] == {"rank": 7, "host": "dgx-h100-017", "device": 7, "name": "NVIDIA H100 80GB HBM3"}
    # the busbw column is algbw x 2(n-1)/n for an all-reduce of 8 ranks, row by row
    for row in m.facts["table"]:
        half = row["out_of_place"]
        assert half["busbw"] == pytest.approx(half["algbw"] * 2 * 7 / 8, rel=2e-2, abs=0.02e9)


def test_nccl_tests_2_13_output_without_its_program_name():
    m = one(NCCL_OLD, "nccl-tests")
    # 134,217,728 B = 8,388,608 elements x 4 B x 4 ranks: a reduce-scatter, not an all-reduce
    assert m.shape == {"collective": "reduce_scatter", "bytes": 134217728, "ranks": 4}
    assert m.gpu_name == "NVIDIA A100-SXM4-80GB"
    assert m.figures["busbw"] == pytest.approx(139.01e9)
    assert m.facts["hosts"] == ["gpu-a100-03"]  # NCCL's INFO lines between the rows are skipped


def test_the_average_is_the_mean_of_every_busbw_cell():
    """nccl-tests' '# Avg bus bandwidth' averages both halves of every row (args->bw[0] += busBw)."""
    m = one(NCCL_NEW, "nccl-tests")
    cells = [h["busbw"] for r in m.facts["table"] for h in (r["out_of_place"], r["in_place"])]
    assert statistics.fmean(cells) == pytest.approx(m.figures["avg_busbw"], rel=1e-3)


def test_two_tests_one_after_the_other_are_two_measurements():
    found = parse(NCCL_NEW.read_text() + NCCL_OLD.read_text(), "nccl-tests")
    assert [m.shape["collective"] for m in found] == ["all_reduce", "reduce_scatter"]


def test_a_cut_or_corrupt_nccl_output_names_the_line():
    lines = NCCL_NEW.read_text().splitlines()
    cut = "\n".join(lines[:30])
    with pytest.raises(ConfigError, match=r"line 30: the output ends before '# Avg bus bandwidth'"):
        parse(cut, "nccl-tests")
    bad = lines[:]
    bad[20] = bad[20][:60] + " 12x.5  nan?"
    with pytest.raises(ConfigError, match=r"line 21: not a result row"):
        parse("\n".join(bad), "nccl-tests")
    with pytest.raises(ConfigError, match="no result rows"):
        parse("hello\nworld\n", "nccl-tests")


def test_alltoall_and_all_gather_without_the_program_line_are_refused():
    text = NCCL_NEW.read_text().replace("# Collective test starting: all_reduce_perf\n", "")
    text = text.replace("     sum      -1", "    none      -1")
    with pytest.raises(ConfigError, match="all_gather and alltoall tables look alike"):
        parse(text, "nccl-tests")


# ----- training logs ---------------------------------------------------------------------------------
def test_torchtitan_log_with_colours():
    m = one(TITAN, "torchtitan-log")
    assert "\x1b" in TITAN.read_text()  # colours on, as torchtitan prints by default
    assert m.model == "llama3 8B" and m.gpu_name == "NVIDIA H100 80GB HBM3"
    assert m.gpu_memory_bytes == round(79.19 * GiB) and m.gpu_count == 8  # the 1-D mesh [8]
    assert m.shape == {"task": "pretrain", "framework": "torchtitan", "precision": "bf16", "micro_batch": 1,
                       "global_batch": 8, "seq": 8192, "zero": 3, "sharding": "full", "recompute": "selective"}  # fmt: skip
    # step 1 (1,033 tps: start-up) is left out; steps 10..100 sorted: ... 6,140, 6,178 ... -> median 6,159
    assert m.figures["tokens_per_second_per_gpu"] == 6159
    assert m.samples["tokens_per_second_per_gpu"][0] == 6202 and len(m.samples["tokens_per_second_per_gpu"]) == 10
    assert m.figures["mfu"] == pytest.approx((35.95 + 36.18) / 2 / 100)
    assert m.figures["peak_reserved_bytes"] == pytest.approx(51.42 * GiB)  # the largest of any line
    assert m.measured_at == "2025-10-14T09:12:03"


def test_megatron_log_takes_its_arguments_block():
    m = one(MEGATRON, "megatron-log")
    assert m.shape == {"task": "pretrain", "framework": "megatron", "micro_batch": 1, "global_batch": 128,
                       "seq": 4096, "precision": "bf16", "zero": 1}  # fmt: skip
    assert m.gpu_count == 8 and m.model is None and m.gpu_name is None
    # iterations 20..100 (the first line carries start-up): median of 9 step times = 7,729.8 ms
    assert m.figures["step_seconds"] == pytest.approx(7.7298)
    # 128 x 4,096 tokens per step / 7.7298 s / 8 GPUs
    assert m.figures["tokens_per_second_per_gpu"] == pytest.approx(128 * 4096 / 7.7298 / 8)
    assert m.figures["peak_reserved_bytes"] == pytest.approx(52206.00 * MiB)
    assert m.figures["peak_allocated_bytes"] == pytest.approx(47391.08 * MiB)
    assert m.facts["arch"] == {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 32, "ffn": 11008}


def test_bad_training_logs_name_what_is_missing():
    with pytest.raises(ConfigError, match="not a torchtitan training log"):
        parse("[titan] 2025-01-01 00:00:00,000 - root - INFO - Starting job\n", "torchtitan-log")
    no_batch = "\n".join(x for x in TITAN.read_text().splitlines() if "Trainer is initialized" not in x)
    with pytest.raises(ConfigError, match="local batch size"):
        parse(no_batch, "torchtitan-log")
    broken = MEGATRON.read_text().replace(
        "elapsed time per iteration (ms): 7719.9", "elapsed time per iteration (ms): x"
    )
    with pytest.raises(ConfigError, match=r"line \d+: 'x' is not a number"):
        parse(broken, "megatron-log")


# ----- torch memory ------------------------------------------------------------------------------------
def test_memory_stats_json_and_text_lines_agree():
    stats, lines = one(MEMORY_JSON, "torch-memory"), one(MEMORY_TEXT, "torch-memory")
    assert stats.figures["peak_allocated_bytes"] == 49_873_231_872 == lines.figures["peak_allocated_bytes"]
    assert stats.figures["peak_reserved_bytes"] == 55_582_916_608 == lines.figures["peak_reserved_bytes"]
    assert stats.facts == {"num_ooms": 0, "num_alloc_retries": 0}


def test_memory_stats_of_several_devices_take_the_most_loaded():
    doc = json.loads(MEMORY_JSON.read_text())
    light = {**doc, "allocated_bytes.all.peak": 10, "reserved_bytes.all.peak": 20, "active_bytes.all.peak": 10}
    m = one_text(json.dumps({"cuda:0": light, "cuda:1": doc}), "torch-memory")
    assert m.figures["peak_reserved_bytes"] == 55_582_916_608 and m.gpu_count == 2
    text = "max_memory_allocated = 46.5 GiB\nmax_memory_reserved: 51.75GiB\n"
    assert one_text(text, "torch-memory").figures == {
        "peak_allocated_bytes": 46.5 * GiB,
        "peak_reserved_bytes": 51.75 * GiB,
    }
    with pytest.raises(ConfigError, match="line 2: expected 'max_memory_allocated"):
        parse("123\nfree: 5\n", "torch-memory")
    with pytest.raises(ConfigError, match=r"not the JSON of torch\.cuda\.memory_stats"):
        parse('{"hello": 1}', "torch-memory")


def one_text(text, fmt):
    (found,) = parse(text, fmt)
    return found


# ----- model and GPU ------------------------------------------------------------------------------------
def test_catalog_model_names(catalog):
    assert catalog_model("meta-llama/Llama-3.1-8B-Instruct", catalog) == "llama-3.1-8b"
    assert catalog_model("mistralai/Mistral-7B-v0.1", catalog) == "mistral-7b-v0.1"
    assert catalog_model("Llama-2-7b-chat-hf", catalog) is None  # two suffixes: not guessed
    assert catalog_model("llama3 8B", catalog) is None


def test_resolving_model_and_gpu(catalog):
    vllm = one(VLLM_NEW, "vllm-bench")
    with pytest.raises(UsageError, match="does not name its GPU: give --gpu"):
        resolve(vllm, catalog)
    with pytest.raises(UsageError, match="how many GPUs"):
        resolve(vllm, catalog, gpu="h100-sxm")
    with pytest.raises(UsageError, match="did you mean 'h100-sxm'"):
        resolve(vllm, catalog, gpu="h100-smx:1")
    r = resolve(vllm, catalog, gpu="h100-sxm:1")
    assert (r.model, r.gpu, r.gpu_count) == ("llama-3.1-8b", "h100-sxm", 1)
    nccl = one(NCCL_NEW, "nccl-tests")
    assert resolve(nccl, catalog).gpu == "h100-sxm" and resolve(nccl, catalog).model is None
    with pytest.raises(UsageError, match="ran on 8 GPU"):
        resolve(nccl, catalog, gpu="h100-sxm:16")
    with pytest.raises(UsageError, match=r"ran on 'NVIDIA H100 80GB HBM3' \(h100-sxm\)"):
        resolve(nccl, catalog, gpu="a100-80gb-sxm:8")
    with pytest.raises(UsageError, match="does not name its model"):
        resolve(one(MEGATRON, "megatron-log"), catalog, gpu="h100-sxm")
    with pytest.raises(UsageError, match="llama-2-13b has layers 40"):
        resolve(one(MEGATRON, "megatron-log"), catalog, model="llama-2-13b", gpu="h100-sxm")


def test_shape_flags_fill_in_and_never_contradict(catalog):
    memory = one(MEMORY_JSON, "torch-memory")
    r = resolve(memory, catalog, model="llama-3.1-8b", gpu="h100-sxm:1", shape={"micro_batch": "4", "method": "lora"})
    assert r.shape == {"micro_batch": 4, "method": "lora"}
    with pytest.raises(UsageError, match="the file says seq 8192"):
        resolve(one(TITAN, "torchtitan-log"), catalog, model="llama-3.1-8b", shape={"seq": "4096"})


@given(st.text())
def test_names_from_files_never_carry_terminal_controls(text):
    assert clean(text).isprintable()
