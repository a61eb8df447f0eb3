"""What --calibrated used, for the output: the `calibration` JSON block and the assumption lines
that name the measurement (id, file hash, date), or say that none matched."""

from __future__ import annotations

from typing import Any

from gpuwise.calibration.describe import fmt_figure, label
from gpuwise.calibration.fit import Fitted, Match


def _used(f: Fitted) -> dict[str, Any]:
    m, cal = f.measurement, f.calibration
    out: dict[str, Any] = {
        "id": m.id,
        "sha256": m.sha256,
        "format": m.format,
        "measured_at": m.measured_at,
        "imported_at": m.imported_at.isoformat(),
        "model": m.model,
        "gpu": m.gpu_id,
        "count": m.gpu_count,
        "workload": dict(m.shape),
        "away": f.away,
        "figures": {
            name: {"measured": meas, "model": model, "calibrated": calibrated}
            for name, (meas, model, calibrated) in f.figures.items()
        },
        "residual": f.residual,
    }
    if m.kind == "collective":
        out["link_busbw"] = cal.intra_busbw
    else:
        out["factors"] = {"compute": cal.compute_factor, "memory_bandwidth": cal.bandwidth_factor}
    return out


def calibration_json(match: Match) -> dict[str, Any]:
    """The `calibration` block: the measurement each part of the estimate was calibrated on."""
    return {
        "gpu": match.gpu,
        "used": _used(match.fitted) if match.fitted else None,
        "repeats": [r.id for r in match.repeats],
        "link": _used(match.link) if match.link else None,
        "unmatched": match.why,
    }


def calibration_notes(match: Match) -> list[str]:
    """Assumption lines: what was calibrated on which measurement, and how near it was."""
    notes = []
    if match.fitted is not None:
        f = match.fitted
        pairs = [
            f"{label(n)} {fmt_figure(n, meas)} (the model alone: {fmt_figure(n, model)})"
            for n, (meas, model, _) in f.figures.items()
        ]
        where = "" if f.away == "the measured workload" else f"; {f.away}: the model's own scaling carries it here"
        notes.append(
            f"calibrated on the team's measurement {f.measurement.label}: measured {', '.join(pairs[:3])}; the model "
            f"reproduces it within {f.residual:.1%} with its rates fitted to it (factors that absorb what the model "
            f"leaves out, not the hardware's rates){where}"
        )
    elif match.why:
        notes.append(f"--calibrated: {match.why}: the model's own figures")
    if match.link is not None:
        m = match.link.measurement
        notes.append(
            f"the link inside a node calibrated on the team's nccl-tests measurement {m.label} "
            f"({fmt_figure('busbw', m.figures['busbw'])} {m.shape.get('collective')} bus bandwidth over "
            f"{m.shape.get('ranks')} GPUs)"
        )
    return notes


__all__ = ["calibration_json", "calibration_notes"]
