"""Recordings: a snapshot (or a sequence) written as JSON exactly as read, read back strictly,
and replayed as a `Source`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwise.errors import UsageError
from gpuwise.hw.snapshot import HostSnapshot, host_from_dict

SNAPSHOT_FORMAT = "gpuwise.host-snapshot"
SNAPSHOT_VERSION = 1


def record(
    snapshot: HostSnapshot | list[HostSnapshot],
    path: str | Path,
    *,
    synthetic: bool = False,
    note: str | None = None,
) -> Path:
    """Write exactly what was read (every field, None as null, the errors) as JSON.

    A list writes a sequence that `ReplaySource` plays back one reading per `read()`. `synthetic`
    marks a host that was built, not read from a machine (examples/hosts/), so no one takes its
    faults for observed ones; `note` says how it was made.
    """
    path = Path(path)
    body: dict[str, Any] = {"format": SNAPSHOT_FORMAT, "version": SNAPSHOT_VERSION}
    if synthetic:
        body["synthetic"] = True
    if note is not None:
        body["note"] = note
    if isinstance(snapshot, list):
        body["snapshots"] = [s.to_dict() for s in snapshot]
    else:
        body["snapshot"] = snapshot.to_dict()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the recording {str(path)!r}: {exc}") from None
    return path


@dataclass(frozen=True, slots=True)
class Recording:
    """A recording file: its snapshots, whether the host was synthetic, and the note it carries."""

    snapshots: list[HostSnapshot]
    synthetic: bool = False
    note: str | None = None


_RECORDING_KEYS = ("format", "version", "synthetic", "note", "snapshot", "snapshots")


def _recording_doc(path: Path) -> dict[str, Any]:
    """The recording's JSON object, its format, version and top-level keys checked."""
    from gpuwise.files import read_json, require_file  # size, depth, UTF-8 and finite-number limits

    require_file(path, "recording")
    doc = read_json(path, "recording")
    if not isinstance(doc, dict) or doc.get("format") != SNAPSHOT_FORMAT:
        raise UsageError(f'{path}: not a gpuwise host recording (expected "format": "{SNAPSHOT_FORMAT}")')
    if doc.get("version") != SNAPSHOT_VERSION:
        raise UsageError(f"{path}: recording version {doc.get('version')!r}; this gpuwise reads {SNAPSHOT_VERSION}")
    unknown = sorted(set(doc) - set(_RECORDING_KEYS))
    if unknown:
        raise UsageError(
            f"{path}: unknown top-level key(s) {', '.join(map(repr, unknown))}; known: {', '.join(_RECORDING_KEYS)}"
        )
    if not isinstance(doc.get("synthetic", False), bool):
        raise UsageError(f'{path}: "synthetic" must be true or false, got {doc["synthetic"]!r}')
    if not isinstance(doc.get("note", ""), str):
        raise UsageError(f'{path}: "note" must be text, got {doc["note"]!r}')
    return doc


def read_recording(path: str | Path) -> Recording:
    """A recording written by `record()`, with its synthetic flag and note."""
    path = Path(path)
    doc = _recording_doc(path)
    items = doc.get("snapshots") if "snapshots" in doc else [doc.get("snapshot")]
    if not isinstance(items, list) or not items:
        raise UsageError(f"{path}: the recording holds no snapshot")
    try:
        snapshots = [host_from_dict(s) for s in items]
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None
    return Recording(snapshots, bool(doc.get("synthetic", False)), doc.get("note"))


def load_recording(path: str | Path) -> list[HostSnapshot]:
    """The snapshots in a recording written by `record()`."""
    return read_recording(path).snapshots


class ReplaySource:
    """Plays back a recording: each `read()` returns the next snapshot, then the last one again."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        recording = read_recording(self.path)
        self.snapshots = recording.snapshots
        self.synthetic, self.note = recording.synthetic, recording.note  # a built example host, not a reading
        self._next = 0

    def read(self) -> HostSnapshot:
        snap = self.snapshots[min(self._next, len(self.snapshots) - 1)]
        self._next += 1
        return snap

    def close(self) -> None:
        pass
