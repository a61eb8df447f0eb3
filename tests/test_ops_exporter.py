"""The Prometheus collector: names, labels and values parsed back with prometheus_client's parser;
unknown values left out; an NVML error or a lost GPU mid-scrape turning into gpuwise_gpu_up 0;
derived metrics kept between scrapes; the shipped rules and dashboard naming only real metrics."""

import json
import re
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("prometheus_client", exc_type=ImportError)

from prometheus_client.parser import text_string_to_metric_families

from gpuwise.http_limits import Limits
from gpuwise.hw import NvmlSource, ReplaySource
from gpuwise.ops import data_file
from gpuwise.ops.exporter import GPU_LABELS, METRICS, GpuCollector, make_registry, render, start

from .ops_fakes import FakeNvml, fake_host
from .slow_clients import loopback_sources, request, slow_clients, wait_closed

ROOT = Path(__file__).resolve().parent.parent
HOSTS = ROOT / "examples" / "hosts"


T = TypeVar("T")


def known(value: T | None) -> T:
    """A field the example host is known to report (narrows the Optional for the type checker)."""
    assert value is not None
    return value


def scrape(registry):
    """{metric name: [(labels, value), ...]} from one scrape, via the Prometheus text parser."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(render(registry)):
        for s in family.samples:
            out.setdefault(s.name, []).append((s.labels, s.value))
    return out


def value(samples, name, **labels):
    found = [v for lab, v in samples.get(name, []) if all(lab.get(k) == str(x) for k, x in labels.items())]
    assert len(found) == 1, (name, labels, samples.get(name))
    return found[0]


class Steps:
    """A Source that returns the given snapshots (or raises the given exceptions) in turn."""

    def __init__(self, *items):
        self.items = list(items)
        self.n = 0

    def read(self):
        item = self.items[min(self.n, len(self.items) - 1)]
        self.n += 1
        if isinstance(item, Exception):
            raise item
        return item


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


# ----- names, labels, values ------------------------------------------------------------------------
def test_healthy_host_metrics_names_labels_values():
    samples = scrape(make_registry(ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json")))
    up = samples["gpuwise_gpu_up"]
    assert len(up) == 8 and all(v == 1 for _, v in up)
    labels = up[0][0]
    assert set(labels) == set(GPU_LABELS)
    assert (
        labels["model"] == "NVIDIA H100 80GB HBM3"
        and labels["host"] == "hgx-h100-07"
        and labels["uuid"].startswith("GPU-")
    )
    assert value(samples, "gpuwise_gpu_memory_total_bytes", gpu=0) == 81559 * 2**20
    assert value(samples, "gpuwise_gpu_temperature_celsius", gpu=0) == 61.0
    assert value(samples, "gpuwise_gpu_power_watts", gpu=1) == pytest.approx(651.5)
    assert value(samples, "gpuwise_gpu_clock_hertz", gpu=0, clock="sm") == 1.98e9
    assert value(samples, "gpuwise_gpu_utilization_ratio", gpu=0) == pytest.approx(0.97)
    assert value(samples, "gpuwise_gpu_throttle_reason", gpu=2, reason="sw_power_cap") == 1
    assert value(samples, "gpuwise_gpu_throttle_reasons", gpu=2) == 4
    assert value(samples, "gpuwise_gpu_ecc_errors_total", gpu=4, type="corrected", scope="aggregate") == 2
    assert value(samples, "gpuwise_gpu_nvlink_links", gpu=0, state="active") == 18
    assert value(samples, "gpuwise_gpu_pcie_throughput_bytes_per_second", gpu=0, direction="rx") == 3.05e9
    assert value(samples, "gpuwise_gpu_nvlink_data_bytes_total", gpu=0, direction="tx") == 412_345_678_901_248
    info = value(samples, "gpuwise_gpu_info", gpu=3, catalog_id="h100-sxm", vbios="96.00.99.00.01")
    assert info == 1
    g0 = ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json").read().gpu(0)
    expected = known(g0.memory_used_bytes) / known(g0.memory_total_bytes) * known(g0.temperature_celsius) / 85
    assert value(samples, "gpuwise_gpu_memory_pressure_index", gpu=0) == pytest.approx(expected)
    assert value(samples, "gpuwise_host_info", host="hgx-h100-07", driver_version="550.90.07") == 1
    assert value(samples, "gpuwise_nvml_up", host="hgx-h100-07") == 1
    assert value(samples, "gpuwise_kernel_log_readable", host="hgx-h100-07") == 1
    # zero XID series exist before any event, so the first one is an increase
    assert value(samples, "gpuwise_gpu_xid_errors_total", gpu=0, xid=79) == 0


def test_unknown_values_are_left_out_not_zero():
    samples = scrape(make_registry(ReplaySource(HOSTS / "workstation-2x-rtx4090-pcie.json")))
    assert "gpuwise_gpu_ecc_errors_total" not in samples  # GeForce: ECC not supported
    assert "gpuwise_gpu_remapped_rows" not in samples and "gpuwise_gpu_memory_temperature_celsius" not in samples
    assert "gpuwise_gpu_nvlink_links" not in samples
    assert "gpuwise_gpu_xid_errors_total" not in samples  # the kernel log was not readable
    assert value(samples, "gpuwise_kernel_log_readable", host="ws-rtx") == 0
    assert value(samples, "gpuwise_gpu_persistence_mode", gpu=0) == 0  # known and off: exported as 0


def test_faulty_host_values():
    samples = scrape(make_registry(ReplaySource(HOSTS / "faulty-8x-a100.json")))
    assert value(samples, "gpuwise_gpu_row_remap_pending", gpu=6) == 1
    assert value(samples, "gpuwise_gpu_throttle_reason", gpu=2, reason="hw_thermal_slowdown") == 1
    assert value(samples, "gpuwise_gpu_nvlink_links", gpu=3, state="inactive") == 1
    assert value(samples, "gpuwise_gpu_pcie_link_width", gpu=5) == 8
    assert value(samples, "gpuwise_gpu_xid_errors_total", gpu=6, xid=63) == 1


# ----- failures never kill the exporter ---------------------------------------------------------------
def test_nvml_error_mid_scrape_turns_that_gpu_down_and_exports_the_rest(tmp_path):
    nvml = FakeNvml(
        fake_host(3), {(1, "nvmlDeviceGetUtilizationRates"): "lost", (2, "nvmlDeviceGetPowerUsage"): "error"}
    )
    source = NvmlSource(nvml, root=tmp_path, environ={}, hostname="n1")
    samples = scrape(make_registry(source))
    assert value(samples, "gpuwise_gpu_up", gpu=0) == 1
    assert value(samples, "gpuwise_gpu_up", gpu=1) == 0
    assert value(samples, "gpuwise_gpu_up", gpu=2) == 1
    assert not [lab for lab, _ in samples["gpuwise_gpu_temperature_celsius"] if lab["gpu"] == "1"]
    assert value(samples, "gpuwise_gpu_temperature_celsius", gpu=2) == 60
    assert not [lab for lab, _ in samples["gpuwise_gpu_power_watts"] if lab["gpu"] == "2"]  # that one field only
    assert value(samples, "gpuwise_gpu_field_errors", gpu=2) == 1


def test_a_gpu_whose_data_raises_is_down_and_the_others_exported():
    snap = ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json").read()
    garbage: Any = "garbage"  # a wrong type on purpose: the collector must survive it
    bad = replace(snap, gpus=tuple(replace(g, memory_total_bytes=garbage) if g.index == 5 else g for g in snap.gpus))
    collector = GpuCollector(Steps(bad))
    samples = scrape(_registry(collector))
    assert value(samples, "gpuwise_gpu_up", gpu=5) == 0 and value(samples, "gpuwise_gpu_up", gpu=4) == 1
    assert not [lab for lab, _ in samples["gpuwise_gpu_temperature_celsius"] if lab["gpu"] == "5"]
    assert len(samples["gpuwise_gpu_temperature_celsius"]) == 7
    assert value(samples, "gpuwise_exporter_scrape_errors_total", host="hgx-h100-07") == 1


def test_a_source_that_raises_marks_known_gpus_down_then_recovers():
    snap = ReplaySource(HOSTS / "workstation-2x-rtx4090-pcie.json").read()
    collector = GpuCollector(Steps(snap, RuntimeError("NVML: Unknown Error"), snap))
    registry = _registry(collector)
    assert {v for _, v in scrape(registry)["gpuwise_gpu_up"]} == {1}
    failed = scrape(registry)
    assert [v for _, v in failed["gpuwise_gpu_up"]] == [0, 0]
    assert value(failed, "gpuwise_exporter_scrape_errors_total", host="ws-rtx") == 1
    assert {v for _, v in scrape(registry)["gpuwise_gpu_up"]} == {1}


def test_a_gpu_that_disappears_becomes_up_zero():
    snap = ReplaySource(HOSTS / "faulty-8x-a100.json").read()
    gone = replace(snap, gpus=snap.gpus[:7])
    registry = _registry(GpuCollector(Steps(snap, gone)))
    scrape(registry)
    samples = scrape(registry)
    assert value(samples, "gpuwise_gpu_up", gpu=7) == 0
    assert value(samples, "gpuwise_gpu_up", gpu=6) == 1


def test_a_lost_gpu_keeps_its_identity_labels():
    snap = ReplaySource(HOSTS / "faulty-8x-a100.json").read()
    lost = replace(
        snap, gpus=tuple(replace(g, lost=True, uuid=None, name=None) if g.index == 0 else g for g in snap.gpus)
    )
    registry = _registry(GpuCollector(Steps(snap, lost)))
    scrape(registry)
    down = [lab for lab, v in scrape(registry)["gpuwise_gpu_up"] if v == 0]
    assert down == [{"gpu": "0", "uuid": snap.gpu(0).uuid, "model": "NVIDIA A100-SXM4-80GB", "host": "dgx-a100-12"}]


# ----- derived metrics kept between scrapes --------------------------------------------------------------
def test_memory_growth_per_minute_and_nvlink_throughput():
    snap = ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json").read()
    g = snap.gpu(0)
    grown = replace(
        snap,
        gpus=tuple(
            replace(
                x,
                memory_used_bytes=known(x.memory_used_bytes) + known(x.memory_total_bytes) // 10,
                nvlink_tx_bytes=known(x.nvlink_tx_bytes) + 30 * 10**9,
            )
            if x.index == 0
            else x
            for x in snap.gpus
        ),
    )
    clock = Clock()
    registry = _registry(GpuCollector(Steps(snap, grown), clock=clock))
    first = scrape(registry)
    assert "gpuwise_gpu_memory_growth_ratio_per_minute" not in first  # needs two scrapes
    clock.t += 30  # half a minute later, 10 % more of the card is used: 20 %/min
    second = scrape(registry)
    growth = value(second, "gpuwise_gpu_memory_growth_ratio_per_minute", gpu=0)
    total = known(g.memory_total_bytes)
    assert growth == pytest.approx((total // 10) / total * 2)
    assert value(second, "gpuwise_gpu_memory_growth_ratio_per_minute", gpu=1) == 0
    assert value(second, "gpuwise_gpu_nvlink_throughput_bytes_per_second", gpu=0, direction="tx") == pytest.approx(1e9)


def test_xid_events_are_counted_once_by_sequence_number():
    snap = ReplaySource(HOSTS / "faulty-8x-a100.json").read()
    events = known(snap.xid_events)
    more = replace(snap, xid_events=(*events, replace(events[0], seq=90001)))
    registry = _registry(GpuCollector(Steps(snap, snap, more)))
    assert value(scrape(registry), "gpuwise_gpu_xid_errors_total", gpu=6, xid=63) == 1
    assert value(scrape(registry), "gpuwise_gpu_xid_errors_total", gpu=6, xid=63) == 1
    assert value(scrape(registry), "gpuwise_gpu_xid_errors_total", gpu=6, xid=63) == 2


def _registry(collector):
    from prometheus_client import CollectorRegistry

    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    return registry


# ----- conventions, rules, dashboard, docs --------------------------------------------------------------
def test_metric_names_follow_prometheus_conventions():
    names = [m.name for m in METRICS]
    assert len(names) == len(set(names))
    for m in METRICS:
        assert re.fullmatch(r"gpuwise_[a-z0-9_]+", m.name)
        assert (m.kind == "counter") == m.name.endswith("_total"), m.name
        assert not re.search(r"_(percent|mib|mhz|milliwatts|kb)\b", m.name)


def test_every_exported_metric_is_declared():
    declared = {m.name for m in METRICS}
    for name in ("healthy-8x-h100-nvlink", "faulty-8x-a100", "workstation-2x-rtx4090-pcie"):
        samples = scrape(make_registry(ReplaySource(HOSTS / f"{name}.json")))
        assert set(samples) <= declared


def _metric_names_in(text):
    return set(re.findall(r"\b(gpuwise_[a-z0-9_]+)", text))


def test_rules_and_dashboard_only_use_exported_metrics():
    declared = {m.name for m in METRICS}
    rules = data_file("alerts.yaml").read_text()
    dashboard = json.loads(data_file("grafana-dashboard.json").read_text())
    used = _metric_names_in(rules) | _metric_names_in(json.dumps(dashboard))
    assert used and used <= declared, used - declared


def test_grafana_dashboard_is_a_valid_model():
    d = json.loads(data_file("grafana-dashboard.json").read_text())
    assert d["uid"] and d["title"] and isinstance(d["schemaVersion"], int)
    ids = [p["id"] for p in d["panels"]]
    assert len(ids) == len(set(ids))
    types = {p["type"] for p in d["panels"]}
    assert {"heatmap", "timeseries"} <= types
    titles = " ".join(p["title"] for p in d["panels"]).lower()
    for wanted in ("utilization heatmap", "memory pressure", "nvlink", "ecc"):
        assert wanted in titles
    for p in d["panels"]:
        pos = p["gridPos"]
        assert {"h", "w", "x", "y"} <= set(pos) and pos["x"] + pos["w"] <= 24
        assert p["targets"] and all(t["expr"] and t["refId"] for t in p["targets"])
    assert {v["name"] for v in d["templating"]["list"]} == {"datasource", "host", "gpu"}


def test_docs_map_every_metric_to_dcgm():
    doc = (ROOT / "docs" / "ops.md").read_text()
    for m in METRICS:
        assert f"`{m.name}`" in doc, m.name
        if m.dcgm.startswith("DCGM_"):
            assert m.dcgm.split(",")[0].split(" ")[0] in doc


# ----- over HTTP -----------------------------------------------------------------------------------------
def test_http_endpoint_serves_a_scrape():
    running = start(0, "127.0.0.1", ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json"))
    try:
        with urllib.request.urlopen(running.url, timeout=10) as resp:
            body = resp.read().decode()
        assert resp.status == 200 and "gpuwise_gpu_up{" in body
    finally:
        running.stop()


def _scrape_while(running) -> tuple[int, bytes]:
    return request(running.port, "/metrics")


def test_slow_clients_never_starve_a_scrape():
    """80 slow connections from one address: the first 16 are kept (each by a thread), the rest
    refused at once, and a scrape from another address is answered meanwhile."""
    (source,) = loopback_sources(1)
    patient = Limits(head_timeout_s=3600.0)  # the kept ones stay until the test closes them
    running = start(0, "127.0.0.1", ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json"), limits=patient)
    try:
        with slow_clients(running.port, [source] * 80) as slow:
            state = wait_closed(slow, 64)
            assert state == [False] * 16 + [True] * 64
            status, body = _scrape_while(running)
            assert status == 200 and b"gpuwise_gpu_up{" in body
    finally:
        running.stop()


def test_a_slow_request_head_is_cut_off_by_the_exporter():
    """Connections that never finish their request head are closed (the wait is generous and
    nothing is asserted about how fast); scrapes are answered before and after. (A scrape sends its
    whole head at once: 2 s is far more than it needs.)"""
    sources = loopback_sources(20)
    running = start(
        0, "127.0.0.1", ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json"), limits=Limits(head_timeout_s=2.0)
    )
    try:
        with slow_clients(running.port, sources) as slow:
            assert _scrape_while(running)[0] == 200
            assert all(wait_closed(slow, len(slow)))
        assert _scrape_while(running)[0] == 200
    finally:
        running.stop()


def test_past_the_total_a_scrape_takes_the_place_of_the_longest_waiting_connection():
    sources = loopback_sources(20)
    small = Limits(head_timeout_s=3600.0, total=8)
    running = start(0, "127.0.0.1", ReplaySource(HOSTS / "healthy-8x-h100-nvlink.json"), limits=small)
    try:
        with slow_clients(running.port, sources) as slow:
            status, body = _scrape_while(running)
            assert status == 200 and b"gpuwise_gpu_up{" in body
            assert wait_closed(slow, 13) == [True] * 13 + [False] * 7
    finally:
        running.stop()
