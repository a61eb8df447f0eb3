"""Data loading: how many samples per second a torch DataLoader with N worker processes reads
from storage and decodes, on the user's own data or on a generated data set.

Formats: `.npy` arrays (one sample per row; read without numpy), Parquet and Arrow IPC/Feather
files (one sample per row; needs pyarrow), JPEG/PNG images (one sample per file; needs Pillow).
Each DataLoader item is one chunk of at most `batch_size` samples (rows of an array, a Parquet row
group, an Arrow record batch, a list of image files), read and decoded in a worker. After a
warm-up (workers started, first chunks in flight) the stream is cut into windows of several
chunks; the rate of each window is one sample and the median is reported. The operating system's
page cache is not dropped: data read recently (a generated set, always) comes from memory, so the
figure is the decode and loader ceiling rather than the disk's rate for such data.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import math
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gpuwise.bench._common import Progress, ProgressFn, is_cuda, resolve_device, torch_module
from gpuwise.errors import UsageError
from gpuwise.store.results import Measurement

FORMATS = {
    ".npy": "npy",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
    ".jpg": "image",
    ".jpeg": "image",
    ".png": "image",
}
_NEEDS = {"parquet": ("pyarrow", "pyarrow"), "arrow": ("pyarrow", "pyarrow"), "image": ("PIL", "Pillow")}

# ----- .npy without numpy ------------------------------------------------------------------------
# Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
# (magic, version, little-endian header length, a Python-literal dict padded to 64 bytes, data).
_NPY_MAGIC = b"\x93NUMPY"
_NPY_TORCH = {
    "f2": "float16", "f4": "float32", "f8": "float64",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
    "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "b1": "bool",
}  # fmt: skip
_TORCH_NPY = {v: k for k, v in _NPY_TORCH.items()}
_NATIVE = "<" if sys.byteorder == "little" else ">"


def _npy_descr_dtype(descr: str) -> str | None:
    """The torch dtype name for a numpy descr this host can read as is, else None."""
    if len(descr) != 3 or descr[1:] not in _NPY_TORCH:
        return None
    order, code = descr[0], descr[1:]
    if order == "|" or order == "=" or order == _NATIVE or code in ("i1", "u1", "b1"):
        return _NPY_TORCH[code]
    return None


def npy_header(path: str | Path) -> tuple[str, tuple[int, ...], int]:
    """(torch dtype name, shape, byte offset of the data) of a C-order `.npy` file this host can
    read without conversion; UsageError for anything else (Fortran order, objects, big-endian)."""
    with open(path, "rb") as f:
        head = f.read(10)
        if head[:6] != _NPY_MAGIC:
            raise UsageError(f"{path}: not a .npy file")
        major = head[6]
        if major == 1:
            hlen, start = int.from_bytes(head[8:10], "little"), 10
        else:
            hlen, start = int.from_bytes(head[8:10] + f.read(2), "little"), 12
        text = f.read(hlen).decode("latin1" if major < 3 else "utf8")
    try:
        meta = ast.literal_eval(text)
        descr, fortran, shape = meta["descr"], meta["fortran_order"], tuple(int(d) for d in meta["shape"])
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise UsageError(f"{path}: unreadable .npy header") from None
    dtype = _npy_descr_dtype(descr) if isinstance(descr, str) else None
    if dtype is None or fortran:
        raise UsageError(f"{path}: .npy arrays must be C-order with a native numeric dtype; got {descr!r}")
    return dtype, shape, start + hlen


def write_npy(path: str | Path, tensor: Any) -> None:
    """Write a CPU tensor as a version 1.0 `.npy` file (readable by numpy.load)."""
    torch = torch_module()
    t = tensor.detach().to("cpu").contiguous()
    name = str(t.dtype).removeprefix("torch.")
    if name not in _TORCH_NPY:
        raise UsageError(f"cannot write {t.dtype} as .npy")
    code = _TORCH_NPY[name]
    descr = ("|" if code in ("i1", "u1", "b1") else _NATIVE) + code
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {tuple(int(d) for d in t.shape)!r}, }}"
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    data = bytearray(t.numel() * t.element_size())
    if data:
        torch.frombuffer(data, dtype=torch.uint8).copy_(t.reshape(-1).view(torch.uint8))
    with open(path, "wb") as f:
        f.write(_NPY_MAGIC + b"\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1"))
        f.write(data)


def _row_bytes(dtype_name: str, shape: tuple[int, ...]) -> int:
    """Bytes of one row (the first axis) of an array of `shape`; a 0-d array is one row."""
    return getattr(torch_module(), dtype_name).itemsize * math.prod(shape[1:])


def read_npy_rows(path: str | Path, start: int = 0, stop: int | None = None) -> Any:
    """Rows [start, stop) of a `.npy` file as a tensor (a 0-d array is one row)."""
    torch = torch_module()
    dtype_name, shape, offset = npy_header(path)
    dtype = getattr(torch, dtype_name)
    rows = shape[0] if shape else 1
    inner = shape[1:] if shape else ()
    stop = rows if stop is None else min(stop, rows)
    per_row = _row_bytes(dtype_name, shape)
    data = bytearray(max(stop - start, 0) * per_row)
    with open(path, "rb") as f:
        f.seek(offset + start * per_row)
        got = f.readinto(data)
    if got != len(data):
        raise UsageError(f"{path}: truncated .npy file")
    if not data:
        return torch.empty((0, *inner), dtype=dtype)
    t = torch.frombuffer(data, dtype=dtype)
    return t.view(stop - start, *inner) if shape else t.view(())


# ----- what one DataLoader item reads and decodes ------------------------------------------------
def _tensor_columns(table: Any) -> tuple[dict[str, Any], int]:
    """Numeric (and fixed-size-list numeric) columns as tensors, when numpy is importable; the
    Arrow-decoded size in bytes."""
    torch = torch_module()
    import pyarrow as pa

    cols: dict[str, Any] = {}
    if importlib.util.find_spec("numpy") is not None:
        for name, col in zip(table.column_names, table.columns, strict=True):
            typ = col.type
            try:
                if pa.types.is_integer(typ) or pa.types.is_floating(typ):
                    cols[name] = torch.tensor(col.to_numpy())
                elif pa.types.is_fixed_size_list(typ) and (
                    pa.types.is_integer(typ.value_type) or pa.types.is_floating(typ.value_type)
                ):
                    flat = col.combine_chunks().flatten().to_numpy()
                    cols[name] = torch.tensor(flat).view(len(col), typ.list_size)
            except (pa.ArrowInvalid, ValueError, TypeError):
                continue  # nulls or an unusual layout: decoded by Arrow, not turned into a tensor
    return cols, int(table.nbytes)


class _Chunks:
    """Map-style data set for a DataLoader (batch_size=None): item i reads and decodes chunk
    i % len(chunks). A plain class (not a torch subclass) so this module imports without torch."""

    def __init__(self, chunks: list[tuple[Any, ...]], length: int) -> None:
        self.chunks, self.length = chunks, length
        self._files: dict[str, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"chunks": self.chunks, "length": self.length}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.chunks, self.length, self._files = state["chunks"], state["length"], {}

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> dict[str, Any]:
        kind, path, *rest = self.chunks[index % len(self.chunks)]
        if kind == "npy":
            start, stop, nbytes = rest
            data = read_npy_rows(path, start, stop)
            return {"data": data, "samples": stop - start, "bytes": nbytes, "decoded": nbytes}
        if kind == "parquet":
            group, rows, nbytes = rest
            if path not in self._files:
                import pyarrow.parquet as pq

                self._files[path] = pq.ParquetFile(path)
            cols, decoded = _tensor_columns(self._files[path].read_row_group(group))
            return {"data": cols, "samples": rows, "bytes": nbytes, "decoded": decoded}
        if kind == "arrow":
            batch_index, rows, nbytes = rest
            import pyarrow as pa

            with pa.memory_map(path) as source:
                reader = pa.ipc.open_file(source)
                table = pa.Table.from_batches([reader.get_batch(batch_index)])
                cols, decoded = _tensor_columns(table)
            return {"data": cols, "samples": rows, "bytes": nbytes, "decoded": decoded}
        if kind == "image":
            (files,) = rest
            return _decode_images(files)
        raise AssertionError(kind)


def _decode_images(files: list[tuple[str, int]]) -> dict[str, Any]:
    torch = torch_module()
    from PIL import Image

    images, nbytes, decoded = [], 0, 0
    for path, size in files:
        with Image.open(path) as img:
            rgb = img.convert("RGB")
        raw = bytearray(rgb.tobytes())
        images.append(torch.frombuffer(raw, dtype=torch.uint8).view(rgb.height, rgb.width, 3))
        nbytes += size
        decoded += len(raw)
    return {"data": images, "samples": len(files), "bytes": nbytes, "decoded": decoded}


# ----- planning: files -> chunks -----------------------------------------------------------------
def _need(fmt: str) -> None:
    module, package = _NEEDS.get(fmt, (None, None))
    if module is not None and importlib.util.find_spec(module) is None:
        raise UsageError(f"reading {fmt} files needs {package}: pip install {package}")


def _files_by_format(path: Path) -> dict[str, list[Path]]:
    if not path.exists():
        raise UsageError(f"no such file or directory: {path}")
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    out: dict[str, list[Path]] = {}
    for f in files:
        fmt = FORMATS.get(f.suffix.lower())
        if fmt is not None:
            out.setdefault(fmt, []).append(f)
    if not out:
        raise UsageError(f"{path}: no {', '.join(sorted(set(FORMATS)))} files to read")
    return out


def _plan(fmt: str, files: list[Path], batch_size: int) -> tuple[list[tuple[Any, ...]], int]:
    """Chunks of at most `batch_size` samples, and the number of samples in all the files."""
    chunks: list[tuple[Any, ...]] = []
    samples = 0
    if fmt == "npy":
        for f in files:
            dtype_name, shape, _ = npy_header(f)
            rows = shape[0] if shape else 1
            per_row = _row_bytes(dtype_name, shape)
            for start in range(0, rows, batch_size):
                stop = min(start + batch_size, rows)
                chunks.append(("npy", str(f), start, stop, (stop - start) * per_row))
            samples += rows
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        for f in files:
            meta = pq.ParquetFile(f).metadata
            for g in range(meta.num_row_groups):
                rg = meta.row_group(g)
                if rg.num_rows:  # bytes as stored: the compressed column chunks
                    stored = sum(rg.column(c).total_compressed_size for c in range(rg.num_columns))
                    chunks.append(("parquet", str(f), g, rg.num_rows, stored))
                    samples += rg.num_rows
    elif fmt == "arrow":
        import pyarrow as pa

        for f in files:
            with pa.memory_map(str(f)) as source:
                try:
                    reader = pa.ipc.open_file(source)
                except pa.ArrowInvalid:
                    raise UsageError(f"{f}: not an Arrow IPC file (the streaming format is not supported)") from None
                for b in range(reader.num_record_batches):
                    batch = reader.get_batch(b)
                    if batch.num_rows:
                        chunks.append(("arrow", str(f), b, batch.num_rows, batch.nbytes))
                        samples += batch.num_rows
    else:
        sized = [(str(f), f.stat().st_size) for f in files]
        for start in range(0, len(sized), batch_size):
            chunks.append(("image", "", sized[start : start + batch_size]))
        samples = len(sized)
    if not chunks:
        raise UsageError(f"the {fmt} files hold no samples")
    return chunks, samples


# ----- generated data set ------------------------------------------------------------------------
def _generate(root: Path, quick: bool) -> dict[str, list[Path]]:
    """npy shards always; a Parquet file when pyarrow is installed; JPEGs when Pillow is."""
    torch = torch_module()
    gen = torch.Generator().manual_seed(0)
    shards, rows, width = (4, 512, 256) if quick else (8, 4096, 1024)  # float32 features per sample
    out: dict[str, list[Path]] = {"npy": []}
    for i in range(shards):
        p = root / f"shard-{i:03d}.npy"
        write_npy(p, torch.randn(rows, width, generator=gen))
        out["npy"].append(p)
    if importlib.util.find_spec("pyarrow") is not None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        n = shards * rows
        x = torch.randn(n * width, generator=gen)
        values = pa.array(x.numpy() if importlib.util.find_spec("numpy") else x.tolist(), pa.float32())
        labels = pa.array(torch.randint(0, 1000, (n,), generator=gen).tolist(), pa.int64())
        table = pa.table({"x": pa.FixedSizeListArray.from_arrays(values, width), "label": labels})
        p = root / "data.parquet"
        pq.write_table(table, p, row_group_size=rows // 4)
        out["parquet"] = [p]
    if importlib.util.find_spec("PIL") is not None:
        from PIL import Image

        count, side = (128, 96) if quick else (1024, 224)
        out["image"] = []
        for i in range(count):
            # smooth gradient plus noise: compresses like a photograph rather than like pure noise
            ramp = torch.linspace(0, 255, side).view(1, side, 1).expand(side, side, 3)
            pix = (ramp + 40 * torch.randn(side, side, 3, generator=gen)).clamp(0, 255).to(torch.uint8)
            img = Image.frombytes("RGB", (side, side), bytes(pix.contiguous().view(-1).tolist()))
            p = root / f"img-{i:04d}.jpg"
            img.save(p, quality=90)
            out["image"].append(p)
    return out


# ----- the benchmark -----------------------------------------------------------------------------
def _mp_context(workers: int) -> str | None:
    """fork where it is safe and cheap (Linux, Python < 3.12), else forkserver, else spawn."""
    if workers == 0:
        return None
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if sys.platform.startswith("linux") and sys.version_info < (3, 12) and "fork" in methods:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _windows(quick: bool) -> int:
    """Timed windows per format (each one rate sample; one progress step)."""
    return 5 if quick else 10


def _measure_format(
    chunks: list[tuple[Any, ...]], *, workers: int, quick: bool, pin: bool, bar: Progress
) -> tuple[list[float], int, int, int]:
    """Per-window samples/s; and samples, bytes read and bytes decoded over the timed windows."""
    torch = torch_module()
    warmup = max(2, 2 * workers)
    window = max(4, 2 * workers) if quick else max(16, 4 * workers)
    windows = _windows(quick)
    budget = 10.0 if quick else 60.0
    total = warmup + window * windows
    dataset = _Chunks(chunks, total)
    loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=None,
        num_workers=workers,
        pin_memory=pin,
        multiprocessing_context=_mp_context(workers),
        timeout=120 if workers else 0,
    )
    rates: list[float] = []
    n_samples = n_bytes = n_decoded = 0
    it = iter(loader)
    try:
        for _ in range(warmup):
            next(it)
        t_start = time.perf_counter()
        for w in range(windows):
            t0 = time.perf_counter()
            got = 0
            for _ in range(window):
                item = next(it)
                got += item["samples"]
                n_bytes += item["bytes"]
                n_decoded += item["decoded"]
            rates.append(got / (time.perf_counter() - t0))
            n_samples += got
            bar.advance()
            if time.perf_counter() - t_start > budget and w >= 1:
                break
    finally:
        del it, loader
    return rates, n_samples, n_bytes, n_decoded


def io(
    device: str = "cpu",
    quick: bool = False,
    progress: ProgressFn | None = None,
    path: str | Path | None = None,
    workers: int = 2,
    batch_size: int = 64,
) -> list[Measurement]:
    """Read + decode rate of a data set through a DataLoader with `workers` worker processes.

    `path`: a file or a directory (searched recursively) of .npy, Parquet/Arrow (pyarrow) or
    JPEG/PNG (Pillow) files; without it a temporary data set is generated (.npy shards, plus
    Parquet with pyarrow and JPEGs with Pillow installed) and removed afterwards. One Measurement
    'read-decode' per format, in samples/s, params {workers, format, samples (in the data set),
    bytes_per_sample (as stored), bytes_per_second (value x bytes_per_sample), ...}.
    """
    device = resolve_device(device)
    workers, batch_size = int(workers), int(batch_size)
    if workers < 0 or batch_size < 1:
        raise UsageError(f"workers must be >= 0 and batch_size >= 1; got {workers}, {batch_size}")
    tmp: Path | None = None
    try:
        if path is None:
            tmp = Path(tempfile.mkdtemp(prefix="gpuwise-io-"))
            by_format, source = _generate(tmp, quick), "generated"
        else:
            by_format, source = _files_by_format(Path(path)), str(path)
            for fmt in by_format:
                _need(fmt)
        planned = {fmt: _plan(fmt, files, batch_size) for fmt, files in by_format.items()}
        bar = Progress(progress, "io", _windows(quick) * len(planned))
        out = []
        for fmt, (chunks, samples) in planned.items():
            rates, n, nbytes, decoded = _measure_format(
                chunks, workers=workers, quick=quick, pin=is_cuda(device), bar=bar
            )
            per_sample = nbytes / n
            value = statistics.median(rates)
            out.append(
                Measurement(
                    "io",
                    "read-decode",
                    value,
                    "samples/s",
                    {
                        "workers": workers,
                        "format": fmt,
                        "samples": samples,
                        "bytes_per_sample": per_sample,
                        "bytes_per_second": value * per_sample,
                        "decoded_bytes_per_sample": decoded / n,
                        "batch_size": batch_size,
                        "samples_read": n,
                        "source": source,
                        "page_cache": "not dropped",
                    },
                    tuple(rates),
                )
            )
        bar.finish()
        return out
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(tmp)
