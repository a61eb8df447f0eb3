"""Prometheus exporter: a custom collector that reads a fresh snapshot from its Source on every scrape.

Names follow Prometheus conventions (base units, `_bytes`, `_celsius`, `_watts`, `_hertz`,
`_ratio`, counters end in `_total`); `METRICS` lists each one with the dcgm-exporter name of the
same quantity (docs/ops.md prints the table). Every GPU series carries the labels gpu (NVML index),
uuid, model (the NVML name) and host.

Failure handling: a GPU that is lost, raises while its metrics are built, or disappears between
scrapes is exported as `gpuwise_gpu_up{...} 0` and nothing else; a Source that raises turns every
GPU seen before into `up 0` and counts a scrape error. Nothing a Source does can stop the exporter.
Unknown values (None in the snapshot) are left out, never exported as 0.

Nothing is global: the collector is registered on the `CollectorRegistry` passed in.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gpuwise.http_limits import Limits
from gpuwise.hw import (
    NVLINK_ERROR_COUNTERS,
    THROTTLE_REASONS,
    GpuSnapshot,
    HostSnapshot,
    Source,
    close_source,
)
from gpuwise.ops import EXPORTER_PORT
from gpuwise.ops.doctor.kernel_log import XID_ACTIONS

log = logging.getLogger(__name__)

GPU_LABELS = ("gpu", "uuid", "model", "host")
PRESSURE_REFERENCE_C = 85.0  # memory pressure index = (used/total) * (temperature / 85 °C)
DEFAULT_PORT = EXPORTER_PORT


@dataclass(frozen=True, slots=True)
class MetricDef:
    name: str  # as exposed (counters end in _total)
    kind: str  # gauge | counter
    help: str
    labels: tuple[str, ...] = ()  # beyond GPU_LABELS (or the host-level labels)
    dcgm: str = ""  # dcgm-exporter's name for the same quantity, when it has one
    per_gpu: bool = True


METRICS: tuple[MetricDef, ...] = (
    MetricDef("gpuwise_gpu_up", "gauge", "1 if the GPU answered this scrape, 0 if it is lost, failed or disappeared."),
    MetricDef(
        "gpuwise_gpu_info",
        "gauge",
        "Always 1; the labels carry the GPU's identity.",
        ("catalog_id", "pci_bus_id", "vbios", "serial"),
        "labels modelName, UUID, pci_bus_id, Hostname on every series",
    ),
    MetricDef(
        "gpuwise_gpu_utilization_ratio",
        "gauge",
        "Share of time a kernel ran (0-1).",
        (),
        "DCGM_FI_DEV_GPU_UTIL (percent)",
    ),
    MetricDef(
        "gpuwise_gpu_memory_utilization_ratio",
        "gauge",
        "Share of time device memory was read or written (0-1).",
        (),
        "DCGM_FI_DEV_MEM_COPY_UTIL (percent)",
    ),
    MetricDef("gpuwise_gpu_memory_used_bytes", "gauge", "Device memory in use.", (), "DCGM_FI_DEV_FB_USED (MiB)"),
    MetricDef("gpuwise_gpu_memory_total_bytes", "gauge", "Device memory in total.", (), "DCGM_FI_DEV_FB_TOTAL (MiB)"),
    MetricDef("gpuwise_gpu_temperature_celsius", "gauge", "GPU die temperature.", (), "DCGM_FI_DEV_GPU_TEMP"),
    MetricDef(
        "gpuwise_gpu_memory_temperature_celsius", "gauge", "Memory (HBM) temperature.", (), "DCGM_FI_DEV_MEMORY_TEMP"
    ),
    MetricDef(
        "gpuwise_gpu_slowdown_temperature_celsius",
        "gauge",
        "Temperature at which the GPU slows down (NVML threshold).",
        (),
        "DCGM_FI_DEV_SLOWDOWN_TEMP",
    ),
    MetricDef(
        "gpuwise_gpu_shutdown_temperature_celsius",
        "gauge",
        "Temperature at which the GPU shuts down (NVML threshold).",
        (),
        "DCGM_FI_DEV_SHUTDOWN_TEMP",
    ),
    MetricDef("gpuwise_gpu_power_watts", "gauge", "Power draw.", (), "DCGM_FI_DEV_POWER_USAGE"),
    MetricDef(
        "gpuwise_gpu_power_limit_watts", "gauge", "Enforced power limit.", (), "DCGM_FI_DEV_ENFORCED_POWER_LIMIT"
    ),
    MetricDef(
        "gpuwise_gpu_clock_hertz",
        "gauge",
        "Current clock (clock=sm|memory).",
        ("clock",),
        "DCGM_FI_DEV_SM_CLOCK, DCGM_FI_DEV_MEM_CLOCK (MHz)",
    ),
    MetricDef(
        "gpuwise_gpu_max_clock_hertz",
        "gauge",
        "Maximum clock (clock=sm|memory).",
        ("clock",),
        "DCGM_FI_DEV_MAX_SM_CLOCK, DCGM_FI_DEV_MAX_MEM_CLOCK (MHz)",
    ),
    MetricDef(
        "gpuwise_gpu_throttle_reasons",
        "gauge",
        "NVML clocks event reasons bitmask (nvmlClocksEventReason*).",
        (),
        "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS (DCGM_FI_DEV_CLOCKS_EVENT_REASONS)",
    ),
    MetricDef("gpuwise_gpu_throttle_reason", "gauge", "1 while the named clocks event reason is active.", ("reason",)),
    MetricDef(
        "gpuwise_gpu_ecc_errors_total",
        "counter",
        "ECC errors (type=corrected|uncorrected, scope=volatile since driver load|aggregate lifetime).",
        ("type", "scope"),
        "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL, DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, DCGM_FI_DEV_ECC_SBE_AGG_TOTAL, DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
    ),
    MetricDef(
        "gpuwise_gpu_retired_pages",
        "gauge",
        "Retired memory pages (cause=single_bit|double_bit).",
        ("cause",),
        "DCGM_FI_DEV_RETIRED_SBE, DCGM_FI_DEV_RETIRED_DBE",
    ),
    MetricDef(
        "gpuwise_gpu_retired_pages_pending",
        "gauge",
        "1 if a page retirement waits for a reset.",
        (),
        "DCGM_FI_DEV_RETIRED_PENDING",
    ),
    MetricDef(
        "gpuwise_gpu_remapped_rows",
        "gauge",
        "Remapped memory rows (cause=correctable|uncorrectable).",
        ("cause",),
        "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS, DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
    ),
    MetricDef(
        "gpuwise_gpu_row_remap_pending",
        "gauge",
        "1 if a row remap waits for a GPU reset.",
        (),
        "DCGM_FI_DEV_ROW_REMAP_PENDING",
    ),
    MetricDef(
        "gpuwise_gpu_row_remap_failure", "gauge", "1 if a row remap ever failed.", (), "DCGM_FI_DEV_ROW_REMAP_FAILURE"
    ),
    MetricDef(
        "gpuwise_gpu_pcie_link_generation", "gauge", "Current PCIe link generation.", (), "DCGM_FI_DEV_PCIE_LINK_GEN"
    ),
    MetricDef(
        "gpuwise_gpu_pcie_link_max_generation",
        "gauge",
        "Maximum PCIe link generation (device and slot).",
        (),
        "DCGM_FI_DEV_PCIE_MAX_LINK_GEN",
    ),
    MetricDef(
        "gpuwise_gpu_pcie_link_width", "gauge", "Current PCIe link width (lanes).", (), "DCGM_FI_DEV_PCIE_LINK_WIDTH"
    ),
    MetricDef(
        "gpuwise_gpu_pcie_link_max_width",
        "gauge",
        "Maximum PCIe link width (lanes).",
        (),
        "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH",
    ),
    MetricDef(
        "gpuwise_gpu_pcie_replays_total",
        "counter",
        "PCIe replays (link-level retransmissions).",
        (),
        "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
    ),
    MetricDef(
        "gpuwise_gpu_pcie_throughput_bytes_per_second",
        "gauge",
        "PCIe throughput over NVML's 20 ms window (direction=tx|rx).",
        ("direction",),
        "DCGM_FI_PROF_PCIE_TX_BYTES, DCGM_FI_PROF_PCIE_RX_BYTES (bytes/s)",
    ),
    MetricDef(
        "gpuwise_gpu_nvlink_data_bytes_total",
        "counter",
        "NVLink data payload over all links (direction=tx|rx).",
        ("direction",),
        "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
    ),
    MetricDef(
        "gpuwise_gpu_nvlink_throughput_bytes_per_second",
        "gauge",
        "NVLink data throughput between the last two scrapes (direction=tx|rx).",
        ("direction",),
        "DCGM_FI_PROF_NVLINK_TX_BYTES, DCGM_FI_PROF_NVLINK_RX_BYTES",
    ),
    MetricDef("gpuwise_gpu_nvlink_links", "gauge", "NVLink links by state (state=active|inactive).", ("state",)),
    MetricDef(
        "gpuwise_gpu_nvlink_errors_total",
        "counter",
        "NVLink errors summed over links (type=replay|recovery|crc_flit|crc_data|ecc_data).",
        ("type",),
        "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL, "
        "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
    ),
    MetricDef("gpuwise_gpu_persistence_mode", "gauge", "1 if persistence mode is on."),
    MetricDef("gpuwise_gpu_mig_mode", "gauge", "1 if MIG mode is on.", (), "DCGM_FI_DEV_MIG_MODE"),
    MetricDef("gpuwise_gpu_compute_processes", "gauge", "Processes with a compute context on the GPU."),
    MetricDef(
        "gpuwise_gpu_memory_pressure_index",
        "gauge",
        "Derived: (memory used / total) * (temperature / 85 °C).",
    ),
    MetricDef(
        "gpuwise_gpu_memory_growth_ratio_per_minute",
        "gauge",
        "Derived: change of memory used between the last two scrapes, as a share of total memory per minute.",
    ),
    MetricDef(
        "gpuwise_gpu_xid_errors_total",
        "counter",
        "XID events in the kernel log since the exporter started (xid=code).",
        ("xid",),
        "DCGM_FI_DEV_XID_ERRORS (the last XID, a gauge)",
    ),
    MetricDef(
        "gpuwise_gpu_field_errors", "gauge", "Fields that could not be read this scrape (the GPU still answered)."
    ),
    MetricDef(
        "gpuwise_host_info",
        "gauge",
        "Always 1; labels: driver and CUDA versions.",
        ("host", "driver_version", "cuda_driver_version"),
        "label DCGM_FI_DRIVER_VERSION",
        per_gpu=False,
    ),
    MetricDef("gpuwise_nvml_up", "gauge", "1 if NVML started (a driver is present).", ("host",), per_gpu=False),
    MetricDef(
        "gpuwise_kernel_log_readable",
        "gauge",
        "1 if XID events could be read from the kernel log.",
        ("host",),
        per_gpu=False,
    ),
    MetricDef(
        "gpuwise_exporter_scrape_errors_total",
        "counter",
        "Scrapes (or GPUs) that failed to read.",
        ("host",),
        per_gpu=False,
    ),
    MetricDef(
        "gpuwise_exporter_scrape_duration_seconds",
        "gauge",
        "Time the last scrape took to read the hardware.",
        ("host",),
        per_gpu=False,
    ),
)


class _Samples:
    """Samples of one scrape, grouped by metric."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[tuple[str, ...], float]]] = {}

    def add(self, name: str, labels: tuple[str, ...], value: float | int | bool | None) -> None:
        if value is None:
            return  # unknown: no sample, never 0
        self.rows.setdefault(name, []).append((labels, float(value)))

    def extend(self, other: _Samples) -> None:
        for name, rows in other.rows.items():
            self.rows.setdefault(name, []).extend(rows)

    def families(self) -> list[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        out = []
        for m in METRICS:
            rows = self.rows.get(m.name)
            if not rows:
                continue
            names = [*(GPU_LABELS if m.per_gpu else ()), *m.labels]
            family: Any
            if m.kind == "counter":
                family = CounterMetricFamily(m.name, m.help, labels=names)
            else:
                family = GaugeMetricFamily(m.name, m.help, labels=names)
            for labels, value in rows:
                family.add_metric(list(labels), value)
            out.append(family)
        return out


def _gpu_state(s: _Samples, g: GpuSnapshot, labels: tuple[str, ...]) -> None:
    """Identity, utilization, memory, temperatures, power, clocks and throttle reasons."""
    s.add("gpuwise_gpu_info", (*labels, g.catalog_id or "", g.pci_bus_id or "", g.vbios or "", g.serial or ""), 1)
    s.add("gpuwise_gpu_utilization_ratio", labels, g.utilization_gpu)
    s.add("gpuwise_gpu_memory_utilization_ratio", labels, g.utilization_memory)
    s.add("gpuwise_gpu_memory_used_bytes", labels, g.memory_used_bytes)
    s.add("gpuwise_gpu_memory_total_bytes", labels, g.memory_total_bytes)
    s.add("gpuwise_gpu_temperature_celsius", labels, g.temperature_celsius)
    s.add("gpuwise_gpu_memory_temperature_celsius", labels, g.memory_temperature_celsius)
    s.add("gpuwise_gpu_slowdown_temperature_celsius", labels, g.temperature_slowdown_celsius)
    s.add("gpuwise_gpu_shutdown_temperature_celsius", labels, g.temperature_shutdown_celsius)
    s.add("gpuwise_gpu_power_watts", labels, g.power_watts)
    s.add("gpuwise_gpu_power_limit_watts", labels, g.power_limit_watts)
    for clock, cur, top in (
        ("sm", g.clock_sm_hz, g.clock_sm_max_hz),
        ("memory", g.clock_mem_hz, g.clock_mem_max_hz),
    ):
        s.add("gpuwise_gpu_clock_hertz", (*labels, clock), cur)
        s.add("gpuwise_gpu_max_clock_hertz", (*labels, clock), top)
    if g.throttle_reasons is not None:
        s.add("gpuwise_gpu_throttle_reasons", labels, g.throttle_reasons)
        for bit, reason in THROTTLE_REASONS.items():
            s.add("gpuwise_gpu_throttle_reason", (*labels, reason), 1 if g.throttle_reasons & bit else 0)


def _gpu_memory_health(s: _Samples, g: GpuSnapshot, labels: tuple[str, ...]) -> None:
    """ECC counters, retired pages and remapped rows."""
    for kind, scope, value in (
        ("corrected", "volatile", g.ecc_corrected_volatile),
        ("uncorrected", "volatile", g.ecc_uncorrected_volatile),
        ("corrected", "aggregate", g.ecc_corrected_aggregate),
        ("uncorrected", "aggregate", g.ecc_uncorrected_aggregate),
    ):
        s.add("gpuwise_gpu_ecc_errors_total", (*labels, kind, scope), value)
    s.add("gpuwise_gpu_retired_pages", (*labels, "single_bit"), g.retired_pages_sbe)
    s.add("gpuwise_gpu_retired_pages", (*labels, "double_bit"), g.retired_pages_dbe)
    s.add("gpuwise_gpu_retired_pages_pending", labels, g.retired_pages_pending)
    s.add("gpuwise_gpu_remapped_rows", (*labels, "correctable"), g.remapped_rows_corrected)
    s.add("gpuwise_gpu_remapped_rows", (*labels, "uncorrectable"), g.remapped_rows_uncorrected)
    s.add("gpuwise_gpu_row_remap_pending", labels, g.remap_pending)
    s.add("gpuwise_gpu_row_remap_failure", labels, g.remap_failure)


def _gpu_pcie(s: _Samples, g: GpuSnapshot, labels: tuple[str, ...]) -> None:
    """PCIe link generation and width (now and at most), replays and throughput."""
    s.add("gpuwise_gpu_pcie_link_generation", labels, g.pcie_gen)
    s.add("gpuwise_gpu_pcie_link_max_generation", labels, g.pcie_gen_max)
    s.add("gpuwise_gpu_pcie_link_width", labels, g.pcie_width)
    s.add("gpuwise_gpu_pcie_link_max_width", labels, g.pcie_width_max)
    s.add("gpuwise_gpu_pcie_replays_total", labels, g.pcie_replay_count)
    s.add("gpuwise_gpu_pcie_throughput_bytes_per_second", (*labels, "tx"), g.pcie_tx_bytes_per_second)
    s.add("gpuwise_gpu_pcie_throughput_bytes_per_second", (*labels, "rx"), g.pcie_rx_bytes_per_second)


def _gpu_nvlink(s: _Samples, g: GpuSnapshot, labels: tuple[str, ...]) -> None:
    """Active and inactive links, error counters summed over links, and data byte counters."""
    if g.nvlinks is not None:
        active = sum(1 for n in g.nvlinks if n.active)
        s.add("gpuwise_gpu_nvlink_links", (*labels, "active"), active)
        s.add("gpuwise_gpu_nvlink_links", (*labels, "inactive"), len(g.nvlinks) - active)
        for counter in NVLINK_ERROR_COUNTERS:
            known = [v for n in g.nvlinks if (v := n.errors.get(counter)) is not None]
            if known:
                s.add("gpuwise_gpu_nvlink_errors_total", (*labels, counter), sum(known))
    s.add("gpuwise_gpu_nvlink_data_bytes_total", (*labels, "tx"), g.nvlink_tx_bytes)
    s.add("gpuwise_gpu_nvlink_data_bytes_total", (*labels, "rx"), g.nvlink_rx_bytes)


class GpuCollector:
    """Reads `source` on every scrape; keeps only what rates need between scrapes."""

    def __init__(self, source: Source, *, host: str | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.host = host
        self.clock = clock
        self._lock = threading.Lock()
        self._known: dict[str, tuple[str, ...]] = {}  # GPU key -> its labels, for `up 0` when it vanishes
        self._memory: dict[str, tuple[float, int]] = {}  # GPU key -> (time, bytes used)
        self._nvlink: dict[str, tuple[float, int | None, int | None]] = {}
        self._xid_seqs: set[int] = set()
        self._xid_counts: Counter[tuple[str, int]] = Counter()  # (GPU key, xid) -> events
        self._xid_unsequenced: dict[tuple[str | None, int, str], int] = {}
        self._bus_to_key: dict[str, str] = {}
        self.scrape_errors = 0
        self._host_label = host or ""

    def describe(self) -> Iterator[Any]:
        return iter(())  # do not read the hardware when the collector is registered

    def collect(self) -> Iterator[Any]:
        with self._lock:
            families = self._scrape().families()
        return iter(families)

    # ------------------------------------------------------------------------------------------
    def _scrape(self) -> _Samples:
        samples = _Samples()
        started = self.clock()
        try:
            snap = self.source.read()
        except Exception as exc:  # the source failed as a whole: every known GPU is down
            self.scrape_errors += 1
            log.warning("gpuwise exporter: reading the hardware failed: %s", exc)
            for labels in self._known.values():
                samples.add("gpuwise_gpu_up", labels, 0)
            self._host_metrics(samples, None, self.clock() - started)
            return samples
        if not self.host:
            self._host_label = snap.hostname
        now = self.clock()
        seen: set[str] = set()
        for g in snap.gpus:
            key = self._key(g)
            labels = self._labels(g, key)
            seen.add(key)
            self._known[key] = labels
            if g.pci_bus_id:
                self._bus_to_key[g.pci_bus_id] = key
            if g.lost:
                samples.add("gpuwise_gpu_up", labels, 0)
                continue
            mine = _Samples()
            try:
                self._gpu(mine, g, labels, key, now)
            except Exception as exc:  # one GPU's bad data must not spoil the others
                self.scrape_errors += 1
                log.warning("gpuwise exporter: GPU %s failed: %s", g.index, exc)
                samples.add("gpuwise_gpu_up", labels, 0)
                continue
            samples.add("gpuwise_gpu_up", labels, 1)
            samples.extend(mine)
        for key, labels in self._known.items():
            if key not in seen:  # fell off the bus between scrapes
                samples.add("gpuwise_gpu_up", labels, 0)
        try:
            self._xids(samples, snap)
        except Exception as exc:
            self.scrape_errors += 1
            log.warning("gpuwise exporter: XID accounting failed: %s", exc)
        self._host_metrics(samples, snap, self.clock() - started)
        return samples

    def _key(self, g: GpuSnapshot) -> str:
        if g.uuid:
            return g.uuid
        for key, labels in self._known.items():  # a lost GPU may no longer give its UUID
            if labels[0] == str(g.index) and labels[3] == self._host_label:
                return key
        return f"index:{g.index}"

    def _labels(self, g: GpuSnapshot, key: str) -> tuple[str, ...]:
        old = self._known.get(key)
        if g.lost and old:
            return old
        return (str(g.index), g.uuid or "", g.name or "", self._host_label)

    def _gpu(self, s: _Samples, g: GpuSnapshot, labels: tuple[str, ...], key: str, now: float) -> None:
        """Every per-GPU sample of one scrape, in metric order (rates use the previous scrape)."""
        _gpu_state(s, g, labels)
        _gpu_memory_health(s, g, labels)
        _gpu_pcie(s, g, labels)
        _gpu_nvlink(s, g, labels)
        self._nvlink_rates(s, g, labels, key, now)
        s.add("gpuwise_gpu_persistence_mode", labels, g.persistence_mode)
        s.add("gpuwise_gpu_mig_mode", labels, g.mig_mode)
        s.add("gpuwise_gpu_compute_processes", labels, None if g.processes is None else len(g.processes))
        self._memory_pressure(s, g, labels, key, now)
        s.add("gpuwise_gpu_field_errors", labels, len(g.errors))

    def _nvlink_rates(self, s: _Samples, g: GpuSnapshot, labels: tuple[str, ...], key: str, now: float) -> None:
        """NVLink throughput from the byte counters' growth since the previous scrape."""
        prev_link = self._nvlink.get(key)
        if prev_link is not None and now > prev_link[0]:
            dt = now - prev_link[0]
            for direction, before, after in (
                ("tx", prev_link[1], g.nvlink_tx_bytes),
                ("rx", prev_link[2], g.nvlink_rx_bytes),
            ):
                if before is not None and after is not None and after >= before:
                    s.add("gpuwise_gpu_nvlink_throughput_bytes_per_second", (*labels, direction), (after - before) / dt)
        if g.nvlink_tx_bytes is not None or g.nvlink_rx_bytes is not None:
            self._nvlink[key] = (now, g.nvlink_tx_bytes, g.nvlink_rx_bytes)

    def _memory_pressure(self, s: _Samples, g: GpuSnapshot, labels: tuple[str, ...], key: str, now: float) -> None:
        """Memory pressure index (share used x temperature / reference) and growth of the share per minute."""
        used, total = g.memory_used_bytes, g.memory_total_bytes
        if used is None or not total:
            return
        if g.temperature_celsius is not None:
            s.add(
                "gpuwise_gpu_memory_pressure_index",
                labels,
                (used / total) * (g.temperature_celsius / PRESSURE_REFERENCE_C),
            )
        prev = self._memory.get(key)
        if prev is not None and now > prev[0]:
            minutes = (now - prev[0]) / 60.0
            s.add("gpuwise_gpu_memory_growth_ratio_per_minute", labels, (used - prev[1]) / total / minutes)
        self._memory[key] = (now, used)

    def _xids(self, s: _Samples, snap: HostSnapshot) -> None:
        if snap.xid_events is None:
            return
        occurrences: Counter[tuple[str | None, int, str]] = Counter()
        for e in snap.xid_events:
            key = self._bus_to_key.get(e.bus_id or "")
            if key is None:
                continue
            if e.seq is not None:
                if e.seq not in self._xid_seqs:
                    self._xid_seqs.add(e.seq)
                    self._xid_counts[(key, e.xid)] += 1
                continue
            ident = (e.bus_id, e.xid, e.message)  # no sequence numbers (dmesg): count what is new
            occurrences[ident] += 1
            if occurrences[ident] > self._xid_unsequenced.get(ident, 0):
                self._xid_unsequenced[ident] = occurrences[ident]
                self._xid_counts[(key, e.xid)] += 1
        for g in snap.gpus:  # zero series first, so the first event is an increase Prometheus can see
            key = self._key(g)
            for xid in XID_ACTIONS:
                self._xid_counts.setdefault((key, xid), 0)
        for (key, xid), count in sorted(self._xid_counts.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            labels = self._known.get(key)
            if labels is not None:
                s.add("gpuwise_gpu_xid_errors_total", (*labels, str(xid)), count)

    def _host_metrics(self, s: _Samples, snap: HostSnapshot | None, seconds: float) -> None:
        host = (self._host_label,)
        if snap is not None:
            s.add("gpuwise_host_info", (*host, snap.driver_version or "", snap.cuda_driver_version or ""), 1)
            s.add("gpuwise_nvml_up", host, 1 if snap.has_nvidia else 0)
            s.add("gpuwise_kernel_log_readable", host, 0 if snap.xid_events is None else 1)
        s.add("gpuwise_exporter_scrape_errors_total", host, self.scrape_errors)
        s.add("gpuwise_exporter_scrape_duration_seconds", host, max(seconds, 0.0))


def make_registry(source: Source, *, host: str | None = None, clock: Callable[[], float] = time.monotonic) -> Any:
    """A fresh CollectorRegistry holding one GpuCollector over `source`."""
    from prometheus_client import CollectorRegistry

    registry = CollectorRegistry(auto_describe=False)
    registry.register(GpuCollector(source, host=host, clock=clock))
    return registry


def render(registry: Any) -> str:
    """One scrape in the Prometheus text format."""
    from prometheus_client import generate_latest

    return generate_latest(registry).decode("utf-8")


@dataclass(slots=True)
class RunningExporter:
    server: Any
    thread: threading.Thread
    registry: Any
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start(
    port: int = DEFAULT_PORT,
    host: str = "127.0.0.1",
    source: Source | None = None,
    registry: Any = None,
    limits: Limits | None = None,
) -> RunningExporter:
    """Serve /metrics in a thread (port 0 picks a free port), slow clients bounded by `limits`
    (gpuwise.http_limits, the web server's)."""
    from prometheus_client import make_wsgi_app

    from gpuwise.errors import UsageError
    from gpuwise.ops.exporter_http import serve_in_thread

    if registry is None:
        if source is None:
            from gpuwise.hw import NvmlSource

            source = NvmlSource()
        registry = make_registry(source)
    try:
        server, thread = serve_in_thread(host, port, make_wsgi_app(registry), limits or Limits())
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return RunningExporter(server, thread, registry, host, int(server.server_address[1]))


def serve(
    port: int = DEFAULT_PORT,
    host: str = "127.0.0.1",
    source: Source | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve /metrics until interrupted (Ctrl-C)."""
    if source is None:
        from gpuwise.hw import NvmlSource

        source = NvmlSource()
    running = start(port, host, source)
    if ready:
        ready(running.url)
    try:
        while running.thread.is_alive():
            running.thread.join(timeout=1.0)
    except KeyboardInterrupt:
        pass
    finally:
        running.stop()
        close_source(source)


__all__ = [
    "DEFAULT_PORT",
    "GPU_LABELS",
    "METRICS",
    "GpuCollector",
    "MetricDef",
    "RunningExporter",
    "make_registry",
    "render",
    "serve",
    "start",
]
