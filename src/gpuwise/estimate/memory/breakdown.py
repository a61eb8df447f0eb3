"""The memory result (bytes by component on the most loaded GPU) and the notes that name every
convention it used; the runtime overheads every estimate adds (CUDA context, NCCL, allocator; a training
stage adds a foreach AdamW step's temporary past what the step freed, memory/training.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuwise.catalog import Catalog
from gpuwise.units import KiB, fmt_bytes
from gpuwise.workload.specs import Hardware

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Bytes on the most loaded GPU, by component; `detail` names the parts of each."""

    weights: float = 0
    gradients: float = 0
    optimizer: float = 0
    activations: float = 0
    kv_cache: float = 0
    overhead: float = 0
    detail: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(getattr(self, c) for c in COMPONENTS)

    def as_dict(self) -> dict[str, int]:
        out = {c: round(getattr(self, c)) for c in COMPONENTS}
        out["total"] = round(self.total)
        return out


@dataclass(frozen=True, slots=True)
class MemoryEstimate:
    per_gpu: MemoryBreakdown
    capacity: int
    assumptions: tuple[str, ...]
    # what a serving engine allocates on each GPU at start (its KV block pool included), when more
    # than this load needs: nvidia-smi shows it (gpuwise.estimate.memory.inference._engine_reserved)
    engine_reserved: float | None = None

    @property
    def _resident(self) -> float:
        """The total less what may page out: bitsandbytes' paged optimizer states live in CUDA
        unified memory and move to the host when the device is full, so they never block a fit."""
        paged = self.per_gpu.detail.get("paged_optimizer_states", 0.0)
        return self.per_gpu.total - paged

    @property
    def fits(self) -> bool:
        return self._resident <= self.capacity

    @property
    def headroom(self) -> float:
        return self.capacity - self._resident

    def as_reported(self) -> dict[str, float]:
        """The peak as each tool reports it: torch.cuda.max_memory_allocated (tensors only),
        max_memory_reserved (plus the caching allocator's slack) and device used (nvidia-smi: plus
        the CUDA context and NCCL buffers), so a measured peak is compared with what it measured.
        Paged optimizer states (cudaMallocManaged, outside torch's allocator) count only on the
        device, and only as far as they fit beside the rest. A serving engine's KV block pool is
        allocated whole at start: on the device, and in torch's counters (the pool is one tensor)."""
        d = self.per_gpu.detail
        outside = d.get("cuda_context", 0.0) + d.get("nccl_buffers", 0.0)
        paged = d.get("paged_optimizer_states", 0.0)
        reserved = self.per_gpu.total - outside - paged
        device = min(self.per_gpu.total, max(self._resident, self.capacity))
        pool = max(0.0, (self.engine_reserved or 0.0) - self.per_gpu.total)  # the pool's unused blocks
        return {
            "max_allocated": reserved - d.get("allocator_fragmentation", 0.0) + pool,
            "max_reserved": reserved + pool,
            "device_used": device + pool,
        }

    def as_dict(self) -> dict[str, object]:
        return {
            "per_gpu": self.per_gpu.as_dict(),
            "detail": {k: round(v) for k, v in self.per_gpu.detail.items()},
            "as_reported": {k: round(v) for k, v in self.as_reported().items()},
            "capacity": self.capacity,
            "fits": self.fits,
            "headroom": round(self.headroom),
        }


class Notes:
    """Collects assumptions in order, once each."""

    def __init__(self, catalog: Catalog) -> None:
        self.cat = catalog
        self.items: list[str] = []

    def conv(self, key: str) -> float:
        c = self.cat.conventions[key]
        shown = (
            f"{fmt_bytes(c.value)}{c.unit.removeprefix('bytes')}"
            if c.unit.startswith("bytes") and c.value >= KiB
            else f"{c.value:g} {c.unit}"
        )
        note = f"{key} = {shown}: {c.why} [{self.cat.sources[c.source].title}]"
        if note not in self.items:
            self.items.append(note)
        return c.value

    def add(self, text: str) -> None:
        if text not in self.items:
            self.items.append(text)


def overheads(allocated: float, hw: Hardware, comm: bool, n: Notes, *, fitted_slack: bool) -> dict[str, float]:
    """The CUDA context, NCCL's buffers and the caching allocator's slack: the one fitted to training
    peaks of PyTorch-native stacks (`fitted_slack`), else the assumption (serving, and stacks whose
    parameters and gradients live in contiguous buffers allocated once)."""
    out = {"cuda_context": n.conv("cuda_context_bytes")}
    if comm:
        out["nccl_buffers"] = n.conv("nccl_buffer_bytes_per_channel") * n.conv("nccl_channels")
    slack = "allocator_fragmentation" if fitted_slack else "allocator_fragmentation_assumed"
    out["allocator_fragmentation"] = allocated * n.conv(slack)
    return out
