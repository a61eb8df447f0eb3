"""What a check returns (`CheckResult`, gathered in a `DoctorReport`), its options, and the small
helpers every check uses to say PASS or SKIP, name the live GPUs and read a version."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from gpuwise.hw import GpuSnapshot, HostSnapshot

PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"
TEMPERATURE_MARGIN_C = 5.0  # warn this close to the slowdown threshold


@dataclass(frozen=True, slots=True)
class CheckResult:
    check: str
    status: str
    summary: str
    evidence: str = ""
    fix: str | None = None
    gpu: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class DoctorOptions:
    latency_sensitive: bool = True  # judge C-states (a serving or training host)
    previous: HostSnapshot | None = None  # an earlier reading, for rates (PCIe replays)
    temperature_margin: float = TEMPERATURE_MARGIN_C


@dataclass(frozen=True, slots=True)
class DoctorReport:
    hostname: str
    time: str
    has_nvidia: bool
    headline: str
    results: tuple[CheckResult, ...] = field(default_factory=tuple)

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(r.status for r in self.results)
        return {s: c.get(s, 0) for s in (PASS, WARN, FAIL, SKIP)}

    @property
    def failed(self) -> bool:
        return any(r.status == FAIL for r in self.results)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def by_check(self, check: str) -> list[CheckResult]:
        return [r for r in self.results if r.check == check]

    def as_dict(self) -> dict[str, Any]:
        return {
            "hostname": self.hostname,
            "time": self.time,
            "has_nvidia": self.has_nvidia,
            "headline": self.headline,
            "summary": self.counts,
            "results": [r.as_dict() for r in self.results],
        }


Check = Callable[[HostSnapshot, DoctorOptions], list[CheckResult]]


def gib(n: int | None) -> str:
    return "unknown" if n is None else f"{n / 2**30:.1f} GiB"


def live_gpus(snap: HostSnapshot) -> list[GpuSnapshot]:
    return [g for g in snap.gpus if not g.lost]


def passed(check: str, summary: str, evidence: str = "") -> list[CheckResult]:
    return [CheckResult(check, PASS, summary, evidence)]


def skipped(check: str, summary: str, evidence: str = "", fix: str | None = None) -> list[CheckResult]:
    return [CheckResult(check, SKIP, summary, evidence, fix)]


def version_tuple(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    parts = []
    for p in text.split("."):
        digits = "".join(ch for ch in p if ch.isascii() and ch.isdigit())  # '²' is a digit int() refuses
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None
