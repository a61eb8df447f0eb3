"""One GPU identity: the names and PCI ids vendor tools report map to one catalog id, the same in
bench, fleet and deploy; a board the catalog does not list is unknown, never its nearest sibling.

Name strings are the ones the sources in gpus.yaml print (nvidia-smi, NVML, amd-smi, Jetson device
trees); PCI ids are from pci.ids 2026.08.22. Memory sizes are what NVML reports (MiB), e.g.
81559 MiB for an H100 SXM5 80GB, 15360 MiB for a T4.
"""

from dataclasses import replace

import pytest
from pydantic import ValidationError

from gpuwise.catalog import GpuIdentity, identify
from gpuwise.catalog import identity as identity_module
from gpuwise.catalog.identity import identity_table, memory_agrees, normalise, pci_key
from gpuwise.catalog.schema import validate
from gpuwise.errors import ConfigError, UsageError

MiB, GiB = 2**20, 2**30


# ----- every catalog entry's own names map back to it ------------------------------------------------
def test_every_catalog_gpu_has_an_identity_with_sources(catalog):
    for gpu in catalog.gpus.values():
        if gpu.devices is not None:  # a multi-die board: tools report its devices, which carry the identity
            assert gpu.identity is None and catalog.gpus[gpu.devices.id].identity is not None, gpu.id
            continue
        assert gpu.identity is not None, f"{gpu.id} has no identity"
        assert gpu.identity.names() or gpu.identity.shared, gpu.id
        assert set(gpu.identity.sources) <= gpu.source_ids()
        for sid in gpu.identity.sources:
            assert catalog.sources[sid].date, f"{gpu.id}: identity source {sid} has no date"


def test_each_reported_name_and_pci_id_maps_back_to_its_entry(catalog):
    checked = 0
    for gpu in catalog.gpus.values():
        if gpu.identity is None:
            continue  # a board of several devices (checked above)
        for name in gpu.identity.names():
            assert identify(name, catalog=catalog) == gpu.id, name
            assert identify(name.upper().replace(" ", "_"), catalog=catalog) == gpu.id, name
            checked += 1
        for pci in gpu.identity.pci:
            assert identify(pci_id=pci, catalog=catalog) == gpu.id, pci
            checked += 1
    assert checked >= 2 * len([g for g in catalog.gpus.values() if g.identity is not None])


def test_the_table_has_no_name_or_pci_id_claimed_twice(catalog):
    table = identity_table(catalog)
    assert table.names["h100 80gb hbm3"] == "h100-sxm"
    assert table.pci["10de:2330"] == "h100-sxm"


# ----- PCIe vs SXM vs NVL variants -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "pci", "gpu_id"),
    [
        ("NVIDIA A100-PCIE-40GB", "10de:20f1", "a100-40gb-pcie"),
        ("NVIDIA A100-SXM4-40GB", "10de:20b0", "a100-40gb-sxm"),
        ("NVIDIA A100 80GB PCIe", "10de:20b5", "a100-80gb-pcie"),
        ("NVIDIA A100-SXM4-80GB", "10de:20b2", "a100-80gb-sxm"),
        ("NVIDIA H100 PCIe", "10de:2331", "h100-pcie"),
        ("NVIDIA H100 80GB HBM3", "10de:2330", "h100-sxm"),
        ("NVIDIA H100 NVL", "10de:2321", "h100-nvl"),
        ("NVIDIA H200", "10de:2335", "h200"),
        ("NVIDIA H200 NVL", "10de:233b", None),  # no H200 NVL entry: unknown, not the H200 SXM
    ],
)
def test_board_variants_are_told_apart(name, pci, gpu_id, catalog):
    assert identify(name, catalog=catalog) == gpu_id
    assert identify(pci_id=pci, catalog=catalog) == gpu_id


def test_drivers_before_r510_print_no_nvidia_prefix(catalog):
    # k8s-device-plugin#343: driver 450 prints 'A100-SXM4-40GB'
    assert identify("A100-SXM4-40GB", catalog=catalog) == "a100-40gb-sxm"


# ----- the tester's 14 device names (6 were answered differently by bench, fleet and deploy) -------
@pytest.mark.parametrize(
    ("name", "memory_bytes", "gpu_id"),
    [
        ("NVIDIA H100 80GB HBM3", 81559 * MiB, "h100-sxm"),
        ("NVIDIA H100 PCIe", 81559 * MiB, "h100-pcie"),
        ("NVIDIA A100-SXM4-80GB", 81920 * MiB, "a100-80gb-sxm"),
        ("NVIDIA A100 80GB PCIe", 81920 * MiB, "a100-80gb-pcie"),
        ("Tesla T4", 15360 * MiB, "t4"),
        ("NVIDIA A10G", 23028 * MiB, "a10g"),  # NVIDIA/DCGM#232
        ("NVIDIA GeForce RTX 4090", 24564 * MiB, "rtx-4090"),
        ("Tesla V100-SXM2-32GB", 32768 * MiB, "v100-32gb-sxm"),
        # the six disagreements:
        ("NVIDIA H200 NVL", 143771 * MiB, None),  # no entry (bench said None, fleet said h200)
        ("AMD Instinct MI300X", 196592 * MiB, "mi300x"),  # the fleet rules knew no AMD names
        ("Orin (nvgpu)", 62 * GiB, "jetson-agx-orin-64gb"),  # family name + 64 GB memory
        ("NVIDIA A800 80GB PCIe", 81920 * MiB, None),  # vllm#41519; no entry (was a800-80gb-sxm)
        ("NVIDIA H800 PCIe", 81559 * MiB, None),  # no entry (was h800-sxm)
        ("NVIDIA GeForce RTX 4090 Ti", 24 * GiB, None),  # no such entry (never the RTX 4090)
    ],
)
def test_the_fourteen_names_from_the_bug_report(name, memory_bytes, gpu_id, catalog):
    assert identify(name, catalog=catalog, memory_bytes=memory_bytes) == gpu_id


@pytest.mark.parametrize(
    ("pci", "what"),
    [("10de:233b", "H200 NVL"), ("10de:2322", "H800 PCIe"), ("10de:20f5", "A800 80GB PCIe"), ("10de:2685", "4090 D")],
)
def test_pci_ids_of_boards_without_an_entry_are_unknown(pci, what, catalog):
    assert identify(pci_id=pci, catalog=catalog) is None, what


def test_amd_names_and_the_azure_virtual_function(catalog):
    for name in ("AMD Instinct MI300X OAM", "AMD_Instinct_MI300X_OAM", "MI300X"):
        assert identify(name, catalog=catalog) == "mi300x"
    assert identify(pci_id="1002:74b5", catalog=catalog) == "mi300x"  # ROCm/k8s-device-plugin#112
    assert identify(pci_id="1002:74a2", catalog=catalog) is None  # MI308X: no entry


def test_a_jetson_family_name_needs_memory_that_fits(catalog):
    assert identify("Orin (nvgpu)", catalog=catalog) is None  # every Orin module prints it
    assert identify("Orin (nvgpu)", catalog=catalog, memory_bytes=30 * GiB) is None  # a 32 GB module
    model = "NVIDIA Jetson AGX Orin Developer Kit"  # also on the 32 GB p3701-0000 (jetson_stats#864)
    assert identify(model, catalog=catalog, memory_bytes=62 * GiB) == "jetson-agx-orin-64gb"
    assert identify(model, catalog=catalog, memory_bytes=30 * GiB) is None
    assert identify("nvidia,p3701-0005", catalog=catalog) == "jetson-agx-orin-64gb"  # the 64 GB module id
    assert identify("nvidia,p3701-0000", catalog=catalog) is None


# ----- unknown boards, PCI preference, memory, bad input ------------------------------------------
@pytest.mark.parametrize(
    "name",
    [
        "NVIDIA Quadro RTX 8000",
        "Tesla V100-SXM2-16GB",
        "NVIDIA A100-SXM4-80GB MIG 1g.10gb",
        "NVIDIA GeForce RTX 2080",
        "NVIDIA",
        "",
        None,
    ],
)
def test_unknown_boards_are_none(name, catalog):
    assert identify(name, catalog=catalog) is None


def test_the_pci_id_wins_over_the_name(catalog):
    assert identify("NVIDIA H100 PCIe", pci_id="10de:2330", catalog=catalog) == "h100-sxm"
    # NVML's pciDeviceId packs device << 16 | vendor
    assert identify(pci_id=0x233010DE, catalog=catalog) == "h100-sxm"
    assert identify(pci_id="0x233110DE", catalog=catalog) == "h100-pcie"
    # an unlisted PCI id leaves the decision to the (exact) name
    assert identify("NVIDIA H100 PCIe", pci_id="10de:ffff", catalog=catalog) == "h100-pcie"


def test_memory_that_disagrees_with_the_entry_is_another_board(catalog):
    assert identify("NVIDIA H100 80GB HBM3", memory_bytes=95830 * MiB, catalog=catalog) is None  # 94 GB
    assert identify("NVIDIA H100 80GB HBM3", memory_bytes=64 * GiB, catalog=catalog) is None  # 0.80
    assert identify(pci_id="10de:2330", memory_bytes=9984 * MiB, catalog=catalog) is None  # a 1g.10gb MIG slice
    t4 = catalog.gpus["t4"]
    assert memory_agrees(t4, 15360 * MiB)  # 0.9375 of 16 GiB
    assert not memory_agrees(t4, 8 * GiB)
    assert memory_agrees(t4, None)


@pytest.mark.parametrize("bad", ["2330", "nvidia h100", "10de:23301", "g0de:2330"])
def test_a_malformed_pci_id_is_a_usage_error(bad, catalog):
    with pytest.raises(UsageError, match="vendor:device"):
        identify(pci_id=bad, catalog=catalog)


def test_normalise_and_pci_key_by_hand():
    assert normalise("NVIDIA-A100-SXM4-80GB") == "a100 sxm4 80gb"
    assert normalise("  nvidia   A100_SXM4_80GB ") == "a100 sxm4 80gb"
    assert normalise("Orin (nvgpu)") == "orin nvgpu"
    assert normalise("NVIDIA-A10-MIG-1g.10gb") == "a10 mig 1g.10gb"
    assert pci_key("0x10DE:0x2330") == "10de:2330"
    assert pci_key(0x74A11002) == "1002:74a1"


def test_a_name_claimed_by_two_entries_is_a_config_error(catalog):
    a10 = catalog.gpus["a10"]
    assert a10.identity is not None
    copy = replace(a10, id="a10-copy")
    broken = replace(catalog, gpus={**catalog.gpus, "a10-copy": copy})
    with pytest.raises(ConfigError, match="listed for both"):
        identify("NVIDIA A10", catalog=broken)


def test_the_schema_checks_identity_forms():
    with pytest.raises(ValidationError, match="lower-case hex"):
        validate(GpuIdentity, {"pci": ["0x2330"], "sources": ["pci-ids-2026-08"]})
    with pytest.raises(ValidationError, match="no name"):
        validate(GpuIdentity, {"sources": ["pci-ids-2026-08"]})
    with pytest.raises(ValidationError, match="sources"):
        validate(GpuIdentity, {"nvml": ["NVIDIA L4"], "sources": []})


# ----- bench, fleet and deploy all ask the same function -------------------------------------------
def test_bench_fleet_and_deploy_call_the_same_identify(monkeypatch, tmp_path, catalog):
    from gpuwise.bench.host import catalog_gpu_id
    from gpuwise.deploy.gpu import product_label
    from gpuwise.hw import NvmlSource

    from .ops_fakes import FakeNvml, fake_host

    calls: list[tuple[str, object]] = []
    real = identity_module.identify

    def spy(name=None, pci_id=None, catalog=None, memory_bytes=None):
        calls.append((str(name), memory_bytes))
        return real(name, pci_id=pci_id, catalog=catalog, memory_bytes=memory_bytes)

    monkeypatch.setattr(identity_module, "identify", spy)
    assert catalog_gpu_id("NVIDIA H100 80GB HBM3", 81559 * MiB) == "h100-sxm"  # bench
    snap = NvmlSource(FakeNvml(fake_host(1)), root=tmp_path, environ={}, hostname="n").read()  # fleet scan reads this
    assert snap.gpus[0].catalog_id == "h100-sxm"
    assert product_label(catalog.gpus["h100-sxm"], "NVIDIA-H100-80GB-HBM3") is not None  # deploy override check
    assert calls == [
        ("NVIDIA H100 80GB HBM3", 81559 * MiB),
        ("NVIDIA H100 80GB HBM3", 81559 * MiB),
        ("NVIDIA-H100-80GB-HBM3", None),
    ]


def test_deploy_labels_come_from_the_catalog_names_and_map_back(catalog):
    from gpuwise.deploy.gpu import product_label

    labelled = 0
    for gpu in catalog.gpus.values():
        label = product_label(gpu)
        if label is None:
            continue
        labelled += 1
        assert identify(label[1], catalog=catalog) == gpu.id, label
    boards = sum(g.devices is not None for g in catalog.gpus.values())  # labelled as their devices
    # a die known only by the family name it shares with another (MI250 and MI250X print 'MI250X / MI250')
    family_only = [g.id for g in catalog.gpus.values() if g.identity and not g.identity.names() and not g.identity.pci]
    assert family_only == ["mi250-gcd"]
    # and the Jetson module, which has no device plugin label
    assert labelled == len(catalog.gpus) - 1 - boards - len(family_only)
    assert product_label(catalog.gpus["a100-80gb-pcie"]) == ("nvidia.com/gpu.product", "NVIDIA-A100-80GB-PCIe")
    assert product_label(catalog.gpus["mi300x"]) == ("amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM")


def test_a_deploy_label_override_of_another_gpu_is_refused(catalog):
    from gpuwise.deploy.gpu import product_label

    with pytest.raises(UsageError, match="node label of h100-pcie"):
        product_label(catalog.gpus["h100-sxm"], "NVIDIA-H100-PCIe")
    # a value the catalog does not know (a renamed or shared label) is the cluster's word
    assert product_label(catalog.gpus["a10"], "NVIDIA-A10-SHARED") == ("nvidia.com/gpu.product", "NVIDIA-A10-SHARED")


def test_bench_tries_the_jetson_device_tree(monkeypatch, tmp_path):
    from gpuwise.bench import host

    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/compatible").write_bytes(
        b"nvidia,p3737-0000+p3701-0005\0nvidia,p3701-0005\0nvidia,tegra234\0"
    )
    modules = host.device_tree_compatible(tmp_path)
    assert modules == ["nvidia,p3737-0000+p3701-0005", "nvidia,p3701-0005", "nvidia,tegra234"]
    monkeypatch.setattr(host, "device_tree_compatible", lambda: modules)
    assert host.catalog_gpu_id("Orin", 62 * GiB) == "jetson-agx-orin-64gb"
    assert host.catalog_gpu_id("Orin", 30 * GiB) is None  # the 64 GB module id with 32 GB memory


# ----- the GPUs the market rents: names from NVIDIA's driver table --------------------------------
@pytest.mark.parametrize(
    ("name", "pci", "memory_bytes", "gpu_id"),
    [
        ("NVIDIA RTX 6000 Ada Generation", "10de:26b1", 49140 * MiB, "rtx-6000-ada"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "10de:2bb5", 97887 * MiB, "rtx-pro-6000"),
        ("NVIDIA L20", "10de:26ba", 46068 * MiB, "l20"),
        ("NVIDIA GH200 480GB", "10de:2342", 97280 * MiB, "gh200"),  # the 96 GB HBM3 part (480 GB is the CPU's)
        ("NVIDIA B300 SXM6 AC", "10de:3182", 275040 * MiB, "b300"),
    ],
)
def test_the_market_gpus_are_identified(name, pci, memory_bytes, gpu_id, catalog):
    assert identify(name, catalog=catalog, memory_bytes=memory_bytes) == gpu_id
    assert identify(pci_id=pci, catalog=catalog) == gpu_id


@pytest.mark.parametrize(
    ("name", "pci"),
    [
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "10de:2bb1"),  # another board than the Server Edition
        ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "10de:2bb4"),
        ("NVIDIA GH200 144G HBM3e", "10de:2348"),  # 144 GB HBM3e: no entry, never the 96 GB GH200
    ],
)
def test_sibling_boards_of_the_market_gpus_stay_unknown(name, pci, catalog):
    assert identify(name, catalog=catalog) is None
    assert identify(pci_id=pci, catalog=catalog) is None


# ----- the boards the published cases ran on: names from NVIDIA's driver table and libdrm's -------------
@pytest.mark.parametrize(
    ("name", "pci", "gpu_id"),
    [
        ("Tesla V100-PCIE-16GB", "10de:1db4", "v100-16gb-pcie"),
        ("NVIDIA RTX A5000", "10de:2231", "rtx-a5000"),
        ("NVIDIA RTX A4000", "10de:24b0", "rtx-a4000"),
        ("NVIDIA GeForce RTX 4080", "10de:2704", "rtx-4080"),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", "10de:2705", "rtx-4070-ti-super"),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", "10de:2689", "rtx-4070-ti-super"),  # the AD102 board of that name
        ("AMD Instinct MI210", "1002:740f", "mi210"),
        ("AMD Instinct MI250X", "1002:7408", "mi250x-gcd"),  # each GCD reports itself, never the module
    ],
)
def test_the_published_case_gpus_are_identified(name, pci, gpu_id, catalog):
    assert identify(name, catalog=catalog) == gpu_id
    assert identify(pci_id=pci, catalog=catalog) == gpu_id


@pytest.mark.parametrize(
    ("name", "pci"),
    [
        ("AMD Instinct MI250X / MI250", "1002:740c"),  # MI250X or MI250, same 64 GB per die: either answer is a guess
        ("NVIDIA GeForce RTX 4080 SUPER", "10de:2702"),  # another board than the RTX 4080
        ("Tesla V100-PCIE-32GB", "10de:1db6"),  # the 32 GB PCIe card is not the 16 GB entry
        ("NVIDIA RTX A4000H", "10de:24b1"),
    ],
)
def test_siblings_of_the_published_case_gpus_stay_unknown(name, pci, catalog):
    assert identify(name, catalog=catalog) is None
    assert identify(pci_id=pci, catalog=catalog) is None


def test_the_mi250_and_mi250x_family_name_stays_unknown_even_with_its_memory(catalog):
    """Both dies print 'AMD Instinct MI250X / MI250' (PCI 740c) with 64 GB: the memory cannot tell them apart."""
    assert identify("AMD Instinct MI250X / MI250", memory_bytes=64 * 2**30, catalog=catalog) is None
    assert identify("AMD Instinct MI250X", memory_bytes=64 * 2**30, catalog=catalog) == "mi250x-gcd"


def test_the_mi250x_module_is_never_an_identity(catalog):
    """A tool sees one GCD (64 GB); naming the 128 GB module would double every memory check."""
    assert catalog.gpus["mi250x"].identity is None
    assert identify("AMD Instinct MI250X", memory_bytes=64 * GiB, catalog=catalog) == "mi250x-gcd"
    assert identify("AMD Instinct MI250X", memory_bytes=128 * GiB, catalog=catalog) is None
