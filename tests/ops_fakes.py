"""A fake NVML module (the subset of pynvml that gpuwise.hw calls), one per scenario.

It answers like the real binding: values in NVML's units (mW, MHz, KB/s, percent), exceptions
of an `NVMLError` family for "not supported", "GPU is lost" and other failures. Faults are
injected per GPU and per function: `FakeNvml(gpus, faults={(1, "nvmlDeviceGetTemperature"): "error"})`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any


class NVMLError(Exception):
    def __init__(self, value: int, text: str) -> None:
        super().__init__(text)
        self.value = value


class NVMLError_NotSupported(NVMLError):
    def __init__(self) -> None:
        super().__init__(3, "Not Supported")


class NVMLError_GpuIsLost(NVMLError):
    def __init__(self) -> None:
        super().__init__(15, "GPU is lost")


class NVMLError_InvalidArgument(NVMLError):
    def __init__(self) -> None:
        super().__init__(2, "Invalid Argument")


class NVMLError_NoPermission(NVMLError):
    def __init__(self) -> None:
        super().__init__(4, "Insufficient Permissions")


class NVMLError_LibraryNotFound(NVMLError):
    def __init__(self) -> None:
        super().__init__(12, "NVML Shared Library Not Found")


FAULTS = {
    "unsupported": NVMLError_NotSupported,
    "lost": NVMLError_GpuIsLost,
    "error": NVMLError_NoPermission,
    "crash": RuntimeError,  # not an NVML error at all
}


@dataclass
class FakeGpu:
    name: str = "NVIDIA H100 80GB HBM3"
    uuid: str = "GPU-0"
    bus_id: str = "00000000:18:00.0"
    memory_total: int = 81559 * 2**20
    memory_used: int = 40 * 2**30
    util_gpu: int = 50
    util_mem: int = 20
    temperature: int = 60
    power_mw: int = 500_000
    limit_mw: int = 700_000
    sm_mhz: int = 1980
    mem_mhz: int = 2619
    throttle: int = 0
    ecc: tuple[int, int, int, int] = (1, 0, 7, 0)  # corrected vol, uncorrected vol, corrected agg, uncorrected agg
    remap: tuple[int, int, int, int] = (0, 0, 0, 0)
    pcie: tuple[int, int, int, int] = (5, 16, 5, 16)  # gen, width, max gen, max width
    replay: int = 0
    nvlinks: int = 18  # 0: no NVLink (NotSupported)
    down_links: tuple[int, ...] = ()
    nvlink_kib: tuple[int, int] = (1000, 2000)  # per link, tx/rx
    processes: list[tuple[int, int]] = field(default_factory=list)
    numa: int | None = 0


class FakeNvml:
    """Module-like object: attributes named like pynvml's functions, constants and errors."""

    NVMLError = NVMLError
    NVMLError_NotSupported = NVMLError_NotSupported
    NVMLError_GpuIsLost = NVMLError_GpuIsLost
    NVMLError_InvalidArgument = NVMLError_InvalidArgument
    NVMLError_NoPermission = NVMLError_NoPermission
    NVMLError_LibraryNotFound = NVMLError_LibraryNotFound
    NVML_NVLINK_MAX_LINKS = 18
    NVML_TEMPERATURE_GPU = 0
    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2

    def __init__(
        self,
        gpus: list[FakeGpu],
        faults: dict[tuple[int, str], str] | None = None,
        topology: list[list[int]] | None = None,
        init_error: type[Exception] | None = None,
    ) -> None:
        self.gpus = gpus
        self.faults = dict(faults or {})
        self.topology = topology
        self.init_error = init_error
        self.calls: list[str] = []
        self.initialized = 0
        self.shutdowns = 0

    # ----- system ----------------------------------------------------------------------------
    def nvmlInit(self) -> None:
        if self.init_error:
            raise self.init_error()
        self.initialized += 1

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlSystemGetDriverVersion(self) -> str:
        return "550.90.07"

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return 12040

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        self._fault(index, "nvmlDeviceGetHandleByIndex")
        return index

    def _fault(self, handle: int, fn: str) -> None:
        self.calls.append(fn)
        kind = self.faults.get((handle, fn)) or self.faults.get((handle, "*"))
        if kind:
            raise FAULTS[kind]()

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("nvmlDevice"):
            raise AttributeError(name)
        impl = getattr(type(self), "_" + name, None)
        if impl is None:
            raise AttributeError(name)  # a function this binding lacks

        def call(handle: int, *args: Any) -> Any:
            self._fault(handle, name)
            return impl(self, self.gpus[handle], *args)

        return call

    # ----- per device (prefixed with _ and looked up by __getattr__ after the fault check) --------
    def _nvmlDeviceGetName(self, g: FakeGpu) -> str:
        return g.name

    def _nvmlDeviceGetUUID(self, g: FakeGpu) -> str:
        return g.uuid

    def _nvmlDeviceGetSerial(self, g: FakeGpu) -> str:
        return "1652323004110"

    def _nvmlDeviceGetPciInfo(self, g: FakeGpu) -> Any:
        return SimpleNamespace(busId=g.bus_id.encode())

    def _nvmlDeviceGetVbiosVersion(self, g: FakeGpu) -> str:
        return "96.00.99.00.01"

    def _nvmlDeviceGetInforomImageVersion(self, g: FakeGpu) -> str:
        return "G520.0200.00.05"

    def _nvmlDeviceGetMemoryInfo(self, g: FakeGpu) -> Any:
        return SimpleNamespace(total=g.memory_total, used=g.memory_used, free=g.memory_total - g.memory_used)

    def _nvmlDeviceGetUtilizationRates(self, g: FakeGpu) -> Any:
        return SimpleNamespace(gpu=g.util_gpu, memory=g.util_mem)

    def _nvmlDeviceGetTemperature(self, g: FakeGpu, sensor: int) -> int:
        return g.temperature

    def _nvmlDeviceGetTemperatureThreshold(self, g: FakeGpu, kind: int) -> int:
        return {0: 92, 1: 87, 2: 95}[kind]

    def _nvmlDeviceGetFieldValues(self, g: FakeGpu, ids: list[Any]) -> list[Any]:
        out = []
        for fid in ids:
            fid, _scope = fid if isinstance(fid, tuple) else (fid, 0)
            if fid == 82:
                out.append(SimpleNamespace(fieldId=fid, nvmlReturn=0, valueType=1, value=SimpleNamespace(uiVal=55)))
            elif fid in (138, 139):
                kib = g.nvlink_kib[0 if fid == 138 else 1]
                out.append(SimpleNamespace(fieldId=fid, nvmlReturn=0, valueType=3, value=SimpleNamespace(ullVal=kib)))
            else:
                out.append(SimpleNamespace(fieldId=fid, nvmlReturn=3, valueType=0, value=None))
        return out

    def _nvmlDeviceGetPowerUsage(self, g: FakeGpu) -> int:
        return g.power_mw

    def _nvmlDeviceGetEnforcedPowerLimit(self, g: FakeGpu) -> int:
        return g.limit_mw

    def _nvmlDeviceGetClockInfo(self, g: FakeGpu, clock: int) -> int:
        return g.sm_mhz if clock == 1 else g.mem_mhz

    def _nvmlDeviceGetMaxClockInfo(self, g: FakeGpu, clock: int) -> int:
        return 1980 if clock == 1 else 2619

    def _nvmlDeviceGetCurrentClocksEventReasons(self, g: FakeGpu) -> int:
        return g.throttle

    def _nvmlDeviceGetEccMode(self, g: FakeGpu) -> list[int]:
        return [1, 1]

    def _nvmlDeviceGetTotalEccErrors(self, g: FakeGpu, kind: int, scope: int) -> int:
        return g.ecc[scope * 2 + kind]

    def _nvmlDeviceGetRetiredPages(self, g: FakeGpu, cause: int) -> list[int]:
        raise NVMLError_NotSupported()  # Hopper remaps rows instead

    def _nvmlDeviceGetRemappedRows(self, g: FakeGpu) -> tuple[int, int, int, int]:
        return g.remap

    def _nvmlDeviceGetCurrPcieLinkGeneration(self, g: FakeGpu) -> int:
        return g.pcie[0]

    def _nvmlDeviceGetCurrPcieLinkWidth(self, g: FakeGpu) -> int:
        return g.pcie[1]

    def _nvmlDeviceGetMaxPcieLinkGeneration(self, g: FakeGpu) -> int:
        return g.pcie[2]

    def _nvmlDeviceGetMaxPcieLinkWidth(self, g: FakeGpu) -> int:
        return g.pcie[3]

    def _nvmlDeviceGetPcieReplayCounter(self, g: FakeGpu) -> int:
        return g.replay

    def _nvmlDeviceGetPcieThroughput(self, g: FakeGpu, counter: int) -> int:
        return 1_200_000 if counter == 0 else 3_000_000  # KB/s

    def _nvmlDeviceGetNvLinkState(self, g: FakeGpu, link: int) -> int:
        if g.nvlinks == 0:
            raise NVMLError_NotSupported()
        if link >= g.nvlinks:
            raise NVMLError_InvalidArgument()
        return 0 if link in g.down_links else 1

    def _nvmlDeviceGetNvLinkVersion(self, g: FakeGpu, link: int) -> int:
        return 4

    def _nvmlDeviceGetNvLinkRemotePciInfo(self, g: FakeGpu, link: int) -> Any:
        return SimpleNamespace(busId=f"00000000:0{5 + link // 5}:00.0")

    def _nvmlDeviceGetNvLinkErrorCounter(self, g: FakeGpu, link: int, counter: int) -> int:
        if counter == 4:
            raise NVMLError_NotSupported()
        return 0

    def _nvmlDeviceGetPersistenceMode(self, g: FakeGpu) -> int:
        return 1

    def _nvmlDeviceGetMigMode(self, g: FakeGpu) -> list[int]:
        return [0, 0]

    def _nvmlDeviceGetComputeRunningProcesses(self, g: FakeGpu) -> list[Any]:
        return [SimpleNamespace(pid=pid, usedGpuMemory=mem) for pid, mem in g.processes]

    def _nvmlDeviceGetNumaNodeId(self, g: FakeGpu) -> int:
        if g.numa is None:
            raise NVMLError_NotSupported()
        return g.numa

    def nvmlDeviceGetTopologyCommonAncestor(self, a: int, b: int) -> int:
        self.calls.append("nvmlDeviceGetTopologyCommonAncestor")
        if self.topology is not None:
            return self.topology[a][b]
        return 40


def fake_host(n: int = 2, **kw: Any) -> list[FakeGpu]:
    """n H100-like GPUs with distinct UUIDs and bus ids."""
    return [FakeGpu(uuid=f"GPU-{i}", bus_id=f"00000000:{0x18 + i:02x}:00.0", numa=i // 4, **kw) for i in range(n)]
