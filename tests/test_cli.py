"""The command line end to end: real processes, exit codes, JSON contract, no tracebacks."""

import json

import pytest

from corpus import HF_CONFIGS

from .conftest import run_process


def run(*args, check_code=None):
    proc = run_process(*args, timeout=60)
    if check_code is not None:
        assert proc.returncode == check_code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def test_help_lists_the_commands():
    out = run("--help", check_code=0).stdout
    for cmd in ("gpus", "models", "estimate"):
        assert cmd in out


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        (["deploy"], "gpuwise deploy [OPTIONS] PLAN_FILE"),
        (["describe"], "gpuwise describe [OPTIONS] TARGET"),
        (["bench"], "gpuwise bench [OPTIONS] [NAMES...]"),
        (["calibrate", "import"], "gpuwise calibrate import [OPTIONS] FILE"),
        (["estimate"], "gpuwise estimate [OPTIONS]"),
    ],
)
def test_help_names_what_each_option_and_argument_takes_in_words(command, usage):
    """No typer type labels (<bool> beside --help, <path>, <list[str]>) and no {NAME} in the usage
    line: an argument is NAME when required, [NAME] when not, as click writes them."""
    out = run(*command, "--help", check_code=0).stdout
    assert usage in " ".join(out.split())
    for typer_label in ("<bool>", "<path>", "<list", "<text>", "<int>", "{"):
        assert typer_label not in out, typer_label


def test_gpus_json_contract():
    rows = json.loads(run("gpus", "--json", check_code=0).stdout)
    ids = {r["id"] for r in rows}
    assert {"h100-sxm", "a10", "l40", "mi300x", "jetson-agx-orin-64gb"} <= ids
    h100 = next(r for r in rows if r["id"] == "h100-sxm")
    for key in (
        "id",
        "name",
        "vendor",
        "architecture",
        "memory_bytes",
        "memory_type",
        "memory_bandwidth",
        "peak_flops",
        "tdp_watts",
        "form_factor",
        "interconnect",
        "pcie",
        "mig_max_instances",
        "release",
        "price",
        "sources",
    ):
        assert key in h100
    assert h100["sources"]["default"]["title"]


def test_gpus_filters_and_table():
    rows = json.loads(run("gpus", "--json", "--min-memory", "80GB", "--vendor", "nvidia", "--sort", "memory").stdout)
    assert rows and all(r["memory_bytes"] >= 80e9 and r["vendor"] == "nvidia" for r in rows)
    assert [r["memory_bytes"] for r in rows] == sorted(r["memory_bytes"] for r in rows)
    table = run("gpus", check_code=0).stdout
    assert "h100-sxm" in table and "GiB" in table
    run("gpus", "--sort", "color", check_code=2)


def test_models_json():
    rows = json.loads(run("models", "--json", check_code=0).stdout)
    assert len(rows) >= 20
    llama = next(r for r in rows if r["id"] == "llama-2-7b")
    assert llama["params"] == 6738415616


def test_estimate_json_contract():
    d = json.loads(
        run("estimate", "--model", "llama-2-7b", "--method", "qlora", "--gpu", "a10", "--json", check_code=0).stdout
    )
    assert set(d) >= {"workload", "hardware", "memory", "training", "inference", "cost", "bottleneck", "assumptions"}
    per = d["memory"]["per_gpu"]
    assert set(per) == {"weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"}
    assert abs(per["total"] - sum(v for k, v in per.items() if k != "total")) <= 6  # each rounded to a byte
    assert d["memory"]["fits"] is True and d["hardware"]["gpu"] == "a10"
    assert d["workload"]["method"] == "qlora" and d["workload"]["params"] == 6738415616
    assert any("QLoRA" in a for a in d["assumptions"])


def test_estimate_not_fitting_exits_1():
    d = run("estimate", "--model", "llama-2-70b", "--method", "full", "--gpu", "a10", "--json", check_code=1)
    assert json.loads(d.stdout)["memory"]["fits"] is False


def test_a_workload_that_does_not_fit_says_its_speed_is_hypothetical():
    """The speed of a model that does not fit is what it would do if it fit: the summary says so
    between the shortfall and the speed, and says nothing of the kind when it fits."""
    out = run("estimate", "--model", "llama-2-70b", "--task", "inference", "--gpu", "l4:1", check_code=1).stdout
    lines = out.split("\n")
    short = next(i for i, line in enumerate(lines) if line.startswith("does NOT fit"))
    hint = next(i for i, line in enumerate(lines) if line.startswith("The speed below assumes it fits"))
    speed = next(i for i, line in enumerate(lines) if line.startswith("Serving: TTFT"))
    assert short < hint < speed
    fits = run("estimate", "--model", "mistral-7b-v0.1", "--gpu", "l4", check_code=0).stdout
    assert "The speed below assumes it fits" not in fits


def test_estimate_table_output():
    out = run("estimate", "--model", "mistral-7b-v0.1", "--gpu", "l4", "--concurrency", "4", check_code=0).stdout
    assert "kv cache" in out and "GiB" in out and "Assumptions" in out


def test_estimate_from_hf_config_path_and_yaml(tmp_path):
    d = json.loads(
        run("estimate", "--model", str(HF_CONFIGS / "gpt2.json"), "--gpu", "t4", "--json", check_code=0).stdout
    )
    assert d["workload"]["params"] == 124439808
    wl = tmp_path / "w.yaml"
    wl.write_text("workload:\n  model: llama-3.1-8b\n  method: lora\n  micro-batch: 2\n  seq: 1024\ngpu: l40s\n")
    d = json.loads(run("estimate", "-f", str(wl), "--json", check_code=0).stdout)
    assert d["workload"]["micro_batch"] == 2 and d["hardware"]["gpu"] == "l40s"
    d = json.loads(run("estimate", "-f", str(wl), "--micro-batch", "4", "--json", check_code=0).stdout)
    assert d["workload"]["micro_batch"] == 4  # flags override the file


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "llama-2-7", "--gpu", "a10"], "did you mean 'llama-2-7b'"),
        (["--model", "llama-2-7b", "--gpu", "h100"], "did you mean"),
        (["--model", "llama-2-7b", "--gpu", "h100-sxm:8", "--tp", "3"], "--tp 3 must divide"),
        (["--model", "gpt2", "--gpu", "a10", "--pp", "20", "--method", "full"], "exceeds the 12 layers"),
        (["--model", "llama-2-7b", "--gpu", "a10", "--micro-batch", "-1"], "at least 1"),
        (["--model", "llama-2-7b", "--gpu", "a10", "--method", "sideways"], "must be one of"),
        (["--model", "llama-2-7b", "--gpu", "h100-sxm:8", "--zero", "3", "--pp", "2"], "ZeRO stage 3 cannot"),
        (["--model", "llama-2-7b", "--gpu", "h100-sxm:6", "--tp", "4"], "multiple of 4"),
        (["--model", "llama-2-7b", "--gpu", "t4", "--method", "lora", "--precision", "bf16"], "no bf16"),
        (["--model", "llama-2-7b"], "--gpu"),
        (["--model", "llama-2-7b", "--gpu", "a10", "--method", "lora", "--lora-targets", "q,v"], "unknown module"),
        (["--model", "llama-2-7b", "--gpu", "a10", "--task", "inference", "--seq", "8192"], "--input-tokens"),
        (
            ["--model", "llama-2-7b", "--gpu", "a10", "--task", "finetune", "--concurrency", "4"],
            "only apply to inference",
        ),
    ],
)
def test_bad_input_exits_2_with_a_message(args, message):
    proc = run("estimate", *args, check_code=2)
    assert message in proc.stderr + proc.stdout


def test_malformed_files_exit_2(tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text('{"model_type": "llama", "hidden_size": 4096}')
    proc = run("estimate", "--model", str(cfg), "--gpu", "a10", check_code=2)
    assert "num_hidden_layers" in proc.stderr
    bad = tmp_path / "w.yaml"
    bad.write_text("model: [unclosed\n")
    proc = run("estimate", "-f", str(bad), "--gpu", "a10", check_code=2)
    assert "not valid YAML" in proc.stderr
    unknown = tmp_path / "u.yaml"
    unknown.write_text("model: gpt2\nmicro_bach: 2\n")
    proc = run("estimate", "-f", str(unknown), "--gpu", "a10", check_code=2)
    assert "micro_batch" in proc.stderr


def test_gpus_unknown_vendor_exits_2_naming_the_vendors():
    proc = run("gpus", "--vendor", "intel", check_code=2)
    assert "--vendor 'intel'" in proc.stderr and "amd, nvidia" in proc.stderr
    proc = run("gpus", "--vendor", "nvida", "--json", check_code=2)
    assert "did you mean 'nvidia'?" in proc.stderr and proc.stdout == ""


def test_gpus_filters_that_match_nothing_together_exit_1():
    proc = run("gpus", "--vendor", "amd", "--arch", "hopper", check_code=1)
    assert "--vendor amd --arch hopper" in proc.stderr and "cdna3" in proc.stderr


def test_filter_gpus_messages():
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.query import filter_gpus
    from gpuwise.errors import RequirementNotMet, UsageError

    cat = load_catalog()
    with pytest.raises(UsageError, match=r"--arch 'hoper'; did you mean 'hopper'"):
        filter_gpus(cat, architecture="hoper")
    largest = max(cat.gpus.values(), key=lambda g: g.memory_bytes)
    with pytest.raises(RequirementNotMet, match=f"--min-memory 4TiB: the largest GPU is {largest.id}"):
        filter_gpus(cat, min_memory="4TiB")
    assert {g.vendor for g in filter_gpus(cat, vendor=" NVIDIA ")} == {"nvidia"}
    assert len(filter_gpus(cat, vendor="")) == len(cat.gpus)  # an empty form field is no filter


def test_min_memory_bare_numbers_are_gib_and_bounded():
    """A bare number is GiB; one too large to be a size is a usage error (it was inf and exit 70)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.query import filter_gpus
    from gpuwise.errors import UsageError

    cat = load_catalog()
    assert {g.id for g in filter_gpus(cat, min_memory="80")} == {g.id for g in filter_gpus(cat, min_memory="80GiB")}
    with pytest.raises(UsageError, match="out of range"):
        filter_gpus(cat, min_memory="9" * 400)


@pytest.mark.parametrize("spec", ["h100-sxm:1_6", "h100-sxm:\u0661\u0666", "h100-sxm:+8", "h100-sxm:8.0"])
def test_gpu_counts_are_plain_ascii_digits(spec):
    """int() reads '1_6' and Arabic-Indic digits as 16: the count after ':' is ASCII digits or an error."""
    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UsageError
    from gpuwise.workload import build_hardware

    with pytest.raises(UsageError, match="whole number"):
        build_hardware(spec, load_catalog())
    assert build_hardware("h100-sxm: 8 ", load_catalog()).count == 8


def test_plan_owned_serving_prints_and_writes_its_report(tmp_path):
    """Owned pricing for a serving workload (TTFT/TPOT targets) prints the plan with its amortised
    month and horizon and writes the report (both were exit 70: the run cost of a service is None)."""
    args = ["plan", "--model", "llama-3.1-8b", "--task", "inference", "--qps", "5", "--ttft-ms", "500"]
    args += ["--tpot-ms", "50", "--pricing", "owned", "--gpus", "h100-sxm"]
    out = run(*args, check_code=0).stdout
    assert "Chosen:" in out and "amortised" in out and "over 5 years" in out
    for name in ("plan.md", "plan.html"):
        proc = run(*args, "--report", str(tmp_path / name), check_code=0)
        assert "internal error" not in proc.stdout + proc.stderr
        text = (tmp_path / name).read_text()
        assert "TTFT" in text and "amortised" in text
