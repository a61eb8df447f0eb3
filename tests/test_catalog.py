"""The packaged catalogs: complete, sourced, and right on the values that are easy to get wrong."""

import pytest

from gpuwise.catalog import GPU, Interconnect, ModelEntry, load_catalog
from gpuwise.catalog.loader import build_catalog
from gpuwise.catalog.records import gpu_record, model_record
from gpuwise.errors import ConfigError, UnknownNameError

CAT = load_catalog()
DESIGN_GPU_IDS = [
    "t4",
    "a10",
    "a10g",
    "a40",
    "l4",
    "l40",
    "l40s",
    "a100-40gb-pcie",
    "a100-40gb-sxm",
    "a100-80gb-pcie",
    "a100-80gb-sxm",
    "h100-pcie",
    "h100-sxm",
    "h100-nvl",
    "h200",
    "h20",
    "b200",
    "rtx-3090",
    "rtx-4090",
    "rtx-5090",
    "a800-80gb-sxm",
    "h800-sxm",
    "v100-32gb-sxm",
    "mi300x",
    "jetson-agx-orin-64gb",
    # the GPUs published cases ran on (design.md: "to add")
    "mi250x",
    "mi250x-gcd",
    "mi250",
    "mi250-gcd",
    "mi210",
    "v100-16gb-pcie",
    "rtx-a5000",
    "rtx-a4000",
    "rtx-4070-ti-super",
    "rtx-4080",
]
ISSUE_MODEL_IDS = [
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "mistral-7b-v0.1",
    "mixtral-8x7b-v0.1",
    "qwen2.5-7b",
    "qwen2.5-72b",
    "gemma-2-9b",
    "phi-3-mini-4k-instruct",
    "gpt2",
    "opt-13b",
    "bert-base-uncased",
    "bert-large-uncased",
    "vit-base-patch16-224",
    "resnet-50",
    "stable-diffusion-v1-5-unet",
]
LINK_IDS = [
    "pcie3-x16",
    "pcie4-x16",
    "pcie5-x16",
    "nvlink2",
    "nvlink3",
    "nvlink4",
    "nvlink5",
    "nvswitch3",
    "infinity-fabric",
    "ib-hdr",
    "ib-ndr",
    "ib-xdr",
    "roce-100g",
    "roce-200g",
    "roce-400g",
]


def test_every_design_id_is_present():
    assert set(DESIGN_GPU_IDS) <= set(CAT.gpus)
    assert set(ISSUE_MODEL_IDS) <= set(CAT.models) and len(CAT.models) >= 20
    assert set(LINK_IDS) <= set(CAT.interconnects)
    assert any(m.task == "recommender" and m.embedding_tables for m in CAT.models.values())


def test_every_value_resolves_to_a_dated_source():
    entries: list[GPU | ModelEntry | Interconnect] = [
        *CAT.gpus.values(),
        *CAT.models.values(),
        *CAT.interconnects.values(),
    ]
    for entry in entries:
        for sid in entry.source_ids():
            src = CAT.sources[sid]
            assert src.title and src.date, f"{entry.id}: source {sid} lacks a title or date"
    for key, conv in CAT.conventions.items():
        assert CAT.sources[conv.source].title, key


@pytest.mark.parametrize("gid", DESIGN_GPU_IDS)
def test_dense_peaks_are_consistent(gid):
    g = CAT.gpus[gid]
    p = g.peak_flops
    if "bf16" in p and "fp16" in p:
        assert p["bf16"] == p["fp16"]
    if "tf32" in p and "bf16" in p:
        assert p["tf32"] <= p["bf16"]
    if "fp8" in p and "bf16" in p:
        assert p["fp8"] == pytest.approx(2 * p["bf16"], rel=0.02)  # one more halving of width
    if "fp32" in p and "bf16" in p:
        assert p["fp32"] < p["bf16"]


@pytest.mark.parametrize(
    ("gid", "field", "expected"),
    [
        # NVIDIA H100 datasheet: 989 TFLOPS BF16 dense (1,979 with sparsity), 80 GB HBM3, 3.35 TB/s, 700 W
        ("h100-sxm", "bf16", 989.4e12),
        ("h100-sxm", "memory_bandwidth", 3.35e12),
        # NVIDIA L40 datasheet: 48 GB GDDR6 with ECC at 864 GB/s (the requirement documents say 24 GB / 480 GB/s)
        ("l40", "memory_bandwidth", 864e9),
        ("a100-80gb-sxm", "bf16", 312e12),
        ("a10", "bf16", 125e12),
        ("t4", "fp16", 65e12),
        ("mi300x", "bf16", 1307.4e12),
        # RTX 4090 (Ada whitepaper): 165.2 TFLOPS with FP32 accumulate; 330.3 is the FP16-accumulate rate
        ("rtx-4090", "bf16", 165.2e12),
        # AMD's MI200 launch table: MI250X module 383 TFLOPS FP16/BF16, 95.7 FP64 matrix, 128 GB at 3.2 TB/s
        ("mi250x", "bf16", 383.0e12),
        ("mi250x", "fp64", 95.7e12),
        ("mi250x", "memory_bandwidth", 3.2e12),
        # one GCD: 1024 FLOP/clock/CU (AMD lab notes) x 110 CUs x 1.7 GHz; 1.6 TB/s per GCD (ROCm docs)
        ("mi250x-gcd", "bf16", 1024 * 110 * 1.7e9),
        ("mi250x-gcd", "memory_bandwidth", 1.6e12),
        # the MI250 in the same table: 208 CUs, 362.1 TFLOPS FP16/BF16, 90.5 FP64 matrix; a GCD has 104 of them
        ("mi250", "bf16", 362.1e12),
        ("mi250", "fp64", 90.5e12),
        ("mi250-gcd", "bf16", 1024 * 104 * 1.7e9),
        ("mi250-gcd", "memory_bandwidth", 1.6e12),
        ("mi210", "fp16", 181e12),  # AnandTech's copy of AMD's MI210 table
        ("mi210", "bf16", 1024 * 104 * 1.7e9),  # not in the table: the per-CU rate equals FP16's
        ("v100-16gb-pcie", "fp16", 112e12),  # tensor, at the PCIe card's ~1,370 MHz (125 on SXM2)
        ("v100-16gb-pcie", "tdp_watts", 250),
        # NVIDIA's launch table prints 222.2 / 153.4 TFLOPS tensor WITH sparsity: dense is half
        ("rtx-a5000", "bf16", 222.2e12 / 2),
        ("rtx-a4000", "bf16", 153.4e12 / 2),
        ("rtx-a4000", "memory_bandwidth", 448e9),
        # Ada whitepaper, RTX 4080 16GB: 97.5 TFLOPS with FP32 accumulate (194.9 with FP16 accumulate)
        ("rtx-4080", "bf16", 97.5e12),
        ("rtx-4080", "memory_bandwidth", 716.8e9),
        # derived: 66 SMs x 512 FLOP/clock (GeForce Ada, FP32 accumulate) x 2.61 GHz; 21 Gbps x 256 bits
        ("rtx-4070-ti-super", "bf16", 66 * 512 * 2.61e9),
        ("rtx-4070-ti-super", "memory_bandwidth", 21e9 * 256 / 8),
    ],
)
def test_datasheet_values(gid, field, expected):
    g = CAT.gpus[gid]
    value = g.peak_flops[field] if field in g.peak_flops else getattr(g, field)
    assert value == pytest.approx(expected, rel=0.002)


def test_known_traps():
    assert CAT.gpus["l40"].memory_bytes == 48 * 2**30
    assert CAT.gpus["a10"].mig_max_instances == 0  # the requirement documents claim A10 MIG: it has none
    assert CAT.gpus["a100-80gb-sxm"].mig_max_instances == 7
    assert "bf16" not in CAT.gpus["t4"].peak_flops
    assert not {"bf16", "tf32"} & set(CAT.gpus["v100-32gb-sxm"].peak_flops)
    h800, h100 = CAT.gpus["h800-sxm"].interconnect, CAT.gpus["h100-sxm"].interconnect
    assert h800 is not None and h100 is not None and h800.bandwidth < h100.bandwidth
    assert CAT.gpus["rtx-4090"].interconnect is None
    # no bf16 tensor cores on Volta (V100 PCIe as on SXM2); CDNA2 has BF16 matrix cores but no TF32 or FP8
    assert not {"bf16", "tf32"} & set(CAT.gpus["v100-16gb-pcie"].peak_flops)
    assert not {"tf32", "fp8"} & set(CAT.gpus["mi250x-gcd"].peak_flops)


def test_interconnect_directions_and_order():
    ic = CAT.interconnects
    assert ic["nvlink4"].nominal_bandwidth == pytest.approx(450e9)  # 900 GB/s total = 450 per direction
    assert ic["ib-ndr"].nominal_bandwidth == pytest.approx(50e9)  # 400 Gb/s
    assert ic["pcie4-x16"].nominal_bandwidth < ic["pcie5-x16"].nominal_bandwidth < ic["nvlink4"].nominal_bandwidth
    for link in ic.values():
        assert link.achieved_bandwidth <= link.nominal_bandwidth * 1.1 or link.kind == "nvswitch"


def test_records_are_json_ready():
    import json

    json.dumps([gpu_record(g, CAT) for g in CAT.gpus.values()])
    recs = [model_record(m, CAT) for m in CAT.models.values()]
    json.dumps(recs)
    mixtral = next(r for r in recs if r["id"] == "mixtral-8x7b-v0.1")
    assert mixtral["active_params"] < mixtral["params"] / 3


def test_lookups_suggest_names():
    with pytest.raises(UnknownNameError, match="did you mean 'h100-sxm'"):
        CAT.gpu("h100sxm")
    with pytest.raises(UnknownNameError, match=r"llama-3\.1-8b"):
        CAT.model_entry("llama3.1-8b")


def test_malformed_catalog_files_name_the_problem(tmp_path):
    from importlib import resources

    data = resources.files("gpuwise.catalog").joinpath("data")
    for f in data.iterdir():  # every data file the loader reads
        if f.name.endswith(".yaml"):
            (tmp_path / f.name).write_text(f.read_text())
    text = (tmp_path / "gpus.yaml").read_text().replace("memory_bandwidth: ", "memory_bandwidth: -", 1)
    (tmp_path / "gpus.yaml").write_text(text)
    with pytest.raises(ConfigError, match="memory_bandwidth"):
        build_catalog(tmp_path)
    (tmp_path / "gpus.yaml").write_text("gpus: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        build_catalog(tmp_path)


def test_a_malformed_no_p2p_entry_is_a_config_error(tmp_path):
    """collectives.yaml's no_p2p_gpus is checked against its record (NoP2P): a list there was an
    AttributeError traceback, not a message naming the file."""
    data = _data_copy(tmp_path / "data")
    path = data / "collectives.yaml"
    text = path.read_text()
    line = "no_p2p_gpus: {gpus: [rtx-4090, rtx-5090], source: tinygrad-p2p-driver}"
    assert line in text
    path.write_text(text.replace(line, "no_p2p_gpus: [rtx-4090, rtx-5090]"))
    with pytest.raises(ConfigError, match=r"collectives\.yaml: no_p2p_gpus"):
        build_catalog(data)
    path.write_text(text.replace(line, "no_p2p_gpus: {gpus: [rtx-4090], source: nowhere}"))
    with pytest.raises(ConfigError, match="unknown source"):
        build_catalog(data)


@pytest.mark.parametrize(
    ("line", "wrong", "message"),
    [
        # fused_moe_call_seconds is keyed by architecture: a misspelt key would leave it on the default
        (
            "fused_moe_call_seconds: {ampere: 4.85e-05, hopper: 2.68e-05}",
            "fused_moe_call_seconds: {ampere: 4.85e-05, hoper: 2.68e-05}",
            r"unknown architecture\(s\) \['hoper'\]",
        ),
        # fp8_gemm_time_share by GPU id or architecture: a misspelt key would leave the GPU unmeasured
        (
            "fp8_gemm_time_share: {hopper: 0.627, h200: 0.711,",
            "fp8_gemm_time_share: {hopper: 0.627, h20O: 0.711,",
            r"fp8_gemm_time_share names unknown GPU\(s\) \['h20O'\]",
        ),
        # token budget tiers rise by memory: a tier out of order would never be reached
        (
            "token_budget_tiers: [[37580963840, 2048], [64424509440, 4096],",
            "token_budget_tiers: [[64424509440, 2048], [37580963840, 4096],",
            "token_budget_tiers must rise by memory",
        ),
        # the grouped-KV copies are part of the layer's launches: more of them than launches would go negative
        (
            "    eager_gqa_copies_per_layer: 2\n",
            "    eager_gqa_copies_per_layer: 43\n",
            "cannot exceed it",
        ),
        # an engine that prefills first runs prompts apart: it cannot also chunk them into decode steps
        (
            "    chunked_prefill: false  # prompts chunked to the budget but never mixed",
            "    chunked_prefill: true  # prompts chunked to the budget but never mixed",
            "prefills first, so it cannot chunk prompts",
        ),
    ],
)
def test_an_engine_field_the_loader_cannot_honour_is_a_config_error(tmp_path, line, wrong, message):
    """engines.yaml fields keyed by GPU or bound to another field: the loader names the mistake rather than
    silently running the engine otherwise."""
    data = _data_copy(tmp_path / "data")
    path = data / "engines.yaml"
    text = path.read_text()
    assert line in text
    path.write_text(text.replace(line, wrong))
    with pytest.raises(ConfigError, match=message):
        build_catalog(data)


# ----- the validated catalog cached across processes ------------------------------------------------
def _data_copy(folder):
    from importlib import resources

    folder.mkdir()
    for f in resources.files("gpuwise.catalog").joinpath("data").iterdir():
        if f.is_file():  # data/operators/ holds per-model JSON read apart from the catalog
            (folder / f.name).write_bytes(f.read_bytes())
    return folder


def test_cache_hit_gives_an_equal_catalog_without_rebuilding(tmp_path, monkeypatch):
    from gpuwise.catalog import loader

    monkeypatch.delenv("GPUWISE_NO_CACHE", raising=False)
    data, cache = _data_copy(tmp_path / "data"), tmp_path / "cache" / "catalog.pickle"
    first = loader.cached_catalog(data, cache)
    assert cache.is_file() and first == CAT

    def no_build(*_args):
        raise AssertionError("rebuilt although the cache matched")

    monkeypatch.setattr(loader, "build_catalog", no_build)
    assert loader.cached_catalog(data, cache) == first


def test_a_changed_data_file_invalidates_the_cache(tmp_path, monkeypatch):
    import gpuwise
    from gpuwise.catalog import loader

    monkeypatch.delenv("GPUWISE_NO_CACHE", raising=False)
    data, cache = _data_copy(tmp_path / "data"), tmp_path / "catalog.pickle"
    key = loader.cache_key(data)
    assert loader.cached_catalog(data, cache).gpu("h100-sxm").tdp_watts == 700
    gpus = data / "gpus.yaml"
    gpus.write_text(gpus.read_text().replace("tdp_watts: 700", "tdp_watts: 699", 1))
    assert loader.cache_key(data) != key
    assert loader.cached_catalog(data, cache).gpu("h100-sxm").tdp_watts == 699
    edited = loader.cache_key(data)
    monkeypatch.setattr(gpuwise, "__version__", "0.0.0-other")  # an upgrade, the same files
    assert loader.cache_key(data) not in {key, edited}


def test_the_cache_key_covers_the_shapes_code(tmp_path, monkeypatch):
    """The pickle names the shape classes and holds their slots: a change to the shapes must
    rebuild it (the key hashes every module of the catalog package)."""
    from gpuwise import cache
    from gpuwise.catalog import loader

    labels = [label for label, _ in loader._sources(None)]
    assert {"code/schema.py", "code/loader.py"} <= set(labels)
    code = [(label, f) for label, f in loader._sources(None) if label.startswith("code/")]
    edited = tmp_path / "schema.py"
    edited.write_bytes(dict(code)["code/schema.py"].read_bytes() + b"\n# edited\n")
    swapped = [(label, edited if label == "code/schema.py" else f) for label, f in code]
    assert cache.source_key(swapped) != cache.source_key(code)


def test_a_corrupt_or_foreign_cache_file_is_rebuilt(tmp_path, monkeypatch):
    import pickle

    from gpuwise.catalog import loader

    monkeypatch.delenv("GPUWISE_NO_CACHE", raising=False)
    data, cache = _data_copy(tmp_path / "data"), tmp_path / "catalog.pickle"
    key = loader.cache_key(data).encode()
    for junk in (b"", b"not a cache", key + b"\n\x80\x05truncated", key + b"\n" + pickle.dumps({"a": 1})):
        cache.write_bytes(junk)
        assert loader.cached_catalog(data, cache) == CAT
        assert cache.read_bytes().startswith(key + b"\n") and len(cache.read_bytes()) > 1000  # rewritten


def test_no_cache_switch_and_an_unwritable_cache_directory(tmp_path, monkeypatch):
    from gpuwise.catalog import loader

    data = _data_copy(tmp_path / "data")
    monkeypatch.setenv("GPUWISE_NO_CACHE", "1")
    assert loader.cached_catalog(data, tmp_path / "catalog.pickle") == CAT
    assert not (tmp_path / "catalog.pickle").exists()
    monkeypatch.delenv("GPUWISE_NO_CACHE")
    (tmp_path / "a-file").write_text("")
    assert loader.cached_catalog(data, tmp_path / "a-file" / "catalog.pickle") == CAT  # cannot write: no error


def test_default_cache_file_follows_xdg(tmp_path, monkeypatch):
    from gpuwise.catalog import loader

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert loader.default_cache_file() == tmp_path / "gpuwise" / "catalog.pickle"


def test_libyaml_and_pure_python_loaders_build_the_same_catalog(monkeypatch):
    import yaml

    from gpuwise.catalog import loader

    monkeypatch.setattr(loader, "_YAML_LOADER", yaml.SafeLoader)
    assert build_catalog() == CAT


# ----- a board that software sees as several GPUs (MI250X: two GCDs) ----------------------------------
def test_the_mi250x_module_is_its_two_gcds():
    board, (gcd, n) = CAT.gpus["mi250x"], CAT.device("mi250x")
    assert (gcd.id, n) == ("mi250x-gcd", 2)
    assert board.memory_bytes == n * gcd.memory_bytes == 128 * 2**30
    assert board.memory_bandwidth == pytest.approx(n * gcd.memory_bandwidth)
    for dtype, peak in board.peak_flops.items():  # AMD's module figures are the two dies' sum
        assert peak == pytest.approx(n * gcd.peak_flops[dtype], rel=0.005), dtype
    assert CAT.device("mi250x-gcd") == (gcd, 1) and CAT.device("t4") == (CAT.gpus["t4"], 1)


def test_a_board_whose_devices_disagree_is_a_config_error(tmp_path):
    data = _data_copy(tmp_path / "data")
    path = data / "gpus.yaml"
    text = path.read_text()
    line = "devices: {id: mi250x-gcd, count: 2}"
    assert line in text
    path.write_text(text.replace(line, "devices: {id: mi250x-gcd, count: 4}"))
    with pytest.raises(ConfigError, match="its memory is not 4 x"):
        build_catalog(data)
    path.write_text(text.replace(line, "devices: {id: mi250x, count: 2}"))
    with pytest.raises(ConfigError, match="single-device entry"):
        build_catalog(data)


def test_a_board_count_is_planned_as_its_devices():
    """`--gpu mi250x:4` on a Frontier-like node (4 modules) is 8 GCDs, 8 to a node; without a count,
    the tp x pp devices round up to whole modules."""
    from gpuwise.workload import build_hardware

    hw = build_hardware("mi250x:4", CAT, gpus_per_node=4)
    assert (hw.gpu.id, hw.count, hw.gpus_per_node) == ("mi250x-gcd", 8, 8)
    hw = build_hardware("mi250x:8", CAT)
    assert (hw.count, hw.gpus_per_node, hw.nodes) == (16, 8, 2)  # node_gpus of the GCD entry: 8
    assert build_hardware("mi250x", CAT, default_count=1).count == 2
    assert build_hardware("mi250x", CAT, default_count=4).count == 4
    assert build_hardware("mi250x-gcd:3", CAT).count == 3  # devices may be counted directly
