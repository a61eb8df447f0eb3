"""The benchmarks, run for real on the host in quick mode: the numbers they return are sane
(positive, finite, right units, consistent with each other and with hand computation). No test
here compares one timing with another or with a threshold that a loaded machine could miss: those
comparisons live in benchmarks/test_bench_measure.py."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gpuwise.bench.collective import bus_bandwidth
from gpuwise.bench.latency import arrival_offsets
from gpuwise.errors import UsageError
from gpuwise.stats import percentile
from gpuwise.store.results import BENCHMARKS, LAUNCH_NAMES

torch = pytest.importorskip("torch")

from gpuwise.bench import suite  # noqa: E402
from gpuwise.bench.collective import allreduce  # noqa: E402
from gpuwise.bench.host import catalog_gpu_id, host_facts  # noqa: E402
from gpuwise.bench.io import io, npy_header, read_npy_rows, write_npy  # noqa: E402
from gpuwise.bench.kernels import h2d, matmul, membw  # noqa: E402
from gpuwise.bench.latency import latency  # noqa: E402
from gpuwise.bench.launch import launch  # noqa: E402
from gpuwise.bench.step import step  # noqa: E402


class Recorder:
    """A progress callback that checks what it is told: per label, done never goes back and
    never passes total, and the last call says the work is complete."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def __call__(self, label: str, done: int, total: int) -> None:
        self.calls.append((label, done, total))

    def check(self, label: str) -> None:
        mine = [(d, t) for lab, d, t in self.calls if lab == label]
        assert mine, f"no progress reported for {label}"
        dones = [d for d, _ in mine]
        assert dones == sorted(dones)
        assert all(0 <= d <= t for d, t in mine)
        assert mine[-1][0] == mine[-1][1]


def sane(ms, benchmark: str, unit: str | None = None) -> None:
    assert ms, f"{benchmark}: no measurements"
    for m in ms:
        assert m.benchmark == benchmark
        assert m.unit == (unit or BENCHMARKS[benchmark])
        assert math.isfinite(m.value) and m.value > 0, m
        assert all(math.isfinite(s) and s > 0 for s in m.samples), m
        json.dumps(m.as_dict())  # the store keeps params and samples as JSON


def by_key(ms):
    """Measurements by name and inputs ('best' by dtype alone: its shape may differ between runs)."""
    out = {}
    for m in ms:
        params = {"dtype": m.params["dtype"]} if m.name == "best" else m.params
        out[(m.name, tuple(sorted((k, v) for k, v in params.items() if isinstance(v, (int, str)))))] = m
    return out


# ----- runs shared by several tests (each benchmark once or twice) ---------------------------------
@pytest.fixture(scope="module")
def matmul_runs():
    rec = Recorder()
    first = matmul("cpu", True, rec)
    rec.check("matmul")
    return first, matmul("cpu", True, None)


@pytest.fixture(scope="module")
def allreduce_run():
    rec = Recorder()
    out = allreduce("cpu", True, rec, world_size=2)
    rec.check("allreduce")
    return out


@pytest.fixture(scope="module")
def step_run():
    rec = Recorder()
    out = step("cpu", True, rec)
    rec.check("step")
    return out


# ----- imports -------------------------------------------------------------------------------------
def test_benchmark_modules_import_without_torch():
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # any 'import torch' now fails\n"
        "import gpuwise.bench.kernels, gpuwise.bench.collective, gpuwise.bench.io, gpuwise.bench.step\n"
        "import gpuwise.bench.latency, gpuwise.bench.host, gpuwise.bench.suite, gpuwise.bench.launch\n"
        "from gpuwise.bench.host import host_facts\n"
        "from gpuwise.errors import UsageError\n"
        "assert host_facts('cpu').torch is None\n"
        "try:\n"
        "    gpuwise.bench.kernels.matmul('cpu', True, None)\n"
        "except UsageError as e:\n"
        "    print('usage:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "usage:" in out and "torch" in out.lower()


# ----- matmul, memory, host<->device -----------------------------------------------------------------
def test_matmul_units_dtypes_and_best(matmul_runs):
    ms, _ = matmul_runs
    sane(ms, "matmul", "FLOP/s")
    assert {m.params["dtype"] for m in ms} == {"fp32", "bf16"}
    for dtype in ("fp32", "bf16"):
        shapes = [m for m in ms if m.name == "shape" and m.params["dtype"] == dtype]
        (best,) = [m for m in ms if m.name == "best" and m.params["dtype"] == dtype]
        assert len(shapes) >= 4
        assert all(max(m.params["m"], m.params["n"], m.params["k"]) <= 512 for m in shapes)
        assert set(best.params) == {"dtype", "m", "n", "k"}
        assert best.value == max(m.value for m in shapes)
        assert best.samples == tuple(m.value for m in shapes)  # the median of every shape
        for m in shapes:
            assert m.value == statistics.median(m.samples)
    fp32 = max(m.value for m in ms if m.name == "best" and m.params["dtype"] == "fp32")
    assert fp32 < 1e14  # no CPU does 100 TFLOP/s of fp32: a unit slip, not noise (load only slows)


def test_matmul_repeats_the_same_cases(matmul_runs):
    """Two runs measure the same dtypes and shapes, each within the quick repetition bounds; how
    close their rates are is a timing question (benchmarks/test_bench_measure.py)."""
    first, second = by_key(matmul_runs[0]), by_key(matmul_runs[1])
    assert first.keys() == second.keys()
    for key, m in first.items():
        other = second[key]
        assert (m.unit, m.params.keys()) == (other.unit, other.params.keys())
        if m.name == "shape":
            assert m.params == other.params and 5 <= len(m.samples) <= 50 and 5 <= len(other.samples) <= 50
        else:
            assert len(m.samples) == len(other.samples) >= 4  # one median per shape


def test_matmul_dtype_selection_and_errors():
    ms = matmul("cpu", True, None, dtypes=["fp32"])
    assert {m.params["dtype"] for m in ms} == {"fp32"}
    with pytest.raises(UsageError, match="not supported"):
        matmul("cpu", True, None, dtypes=["fp8"])
    with pytest.raises(UsageError, match="one of"):
        matmul("cpu", True, None, dtypes=["int3"])
    with pytest.raises(UsageError, match="device"):
        matmul("tpu", True, None)


def test_membw_copy_read_and_repeatable():
    rec = Recorder()
    runs = [membw("cpu", True, rec), membw("cpu", True, None)]
    rec.check("membw")
    for ms in runs:
        sane(ms, "membw", "bytes/s")
        assert [m.name for m in ms] == ["copy", "read"]
        for m in ms:
            assert m.params == {"bytes": 64 * 2**20}  # quick: one 64 MiB buffer, copied and read
            assert 7 <= len(m.samples) <= 30 and m.value == statistics.median(m.samples)
            assert m.value < 1e13  # 10 TB/s is beyond any host's memory: a unit slip, not noise


def test_h2d_on_cpu_says_no_device_was_involved():
    ms = h2d("cpu", True, None)
    sane(ms, "h2d", "bytes/s")
    (m,) = ms
    assert m.name == "h2d-pageable-cpu"
    assert m.params["device_involved"] is False and m.params["direction"] == "host-to-host"


# ----- all-reduce --------------------------------------------------------------------------------------
def test_bus_bandwidth_by_hand():
    assert bus_bandwidth(1e9, 1.0, 8) == pytest.approx(1e9 * 2 * 7 / 8)
    assert bus_bandwidth(1e9, 0.5, 2) == pytest.approx(2e9)  # 2(n-1)/n = 1 for two ranks
    assert bus_bandwidth(1e9, 1.0, 4, "all_gather") == pytest.approx(0.75e9)
    assert bus_bandwidth(1e9, 1.0, 4, "reduce_scatter") == pytest.approx(0.75e9)
    assert bus_bandwidth(1e9, 1.0, 1) == 0.0
    with pytest.raises(UsageError):
        bus_bandwidth(1e9, 0.0, 2)
    with pytest.raises(UsageError):
        bus_bandwidth(1e9, 1.0, 2, "gossip")


def test_allreduce_gloo_two_ranks(allreduce_run):
    ms = allreduce_run
    sane(ms, "allreduce", "bytes/s")
    assert [m.name for m in ms] == ["busbw"] * len(ms)
    sizes = [m.params["bytes"] for m in ms]
    assert sizes == sorted(sizes) and sizes[0] <= 4096 and sizes[-1] == 4 * 2**20
    for m in ms:
        p = m.params
        assert p["ranks"] == 2 and p["backend"] == "gloo"
        assert m.value == p["algbw"] * 2 * (2 - 1) / 2  # nccl-tests: busbw = algbw * 2(n-1)/n
        assert p["algbw"] == pytest.approx(p["bytes"] / p["seconds"])
        assert m.value == pytest.approx(bus_bandwidth(p["bytes"], p["seconds"], 2))
    assert ms[-1].value < 1e12  # loopback TCP does not move a terabyte a second


def test_allreduce_starts_again_when_its_port_is_taken(monkeypatch):
    """Rank 0 may find the port it was given taken by then (EADDRINUSE, seen in CI beside a parallel test
    run): the ranks start again on a new port, up to PORT_ATTEMPTS in all; any other failure, or the last
    attempt's, stands."""
    import gpuwise.bench.collective as collective

    raised = torch.multiprocessing.ProcessRaisedException
    calls: list[int] = []

    def spawned(*args: object) -> list[str]:
        calls.append(1)
        if len(calls) < 2:
            raise raised("code: -98, name: EADDRINUSE, message: address already in use", 0, 1)
        return ["measured"]

    monkeypatch.setattr(collective, "_spawned", spawned)
    assert collective.allreduce("cpu", quick=True) == ["measured"] and len(calls) == 2

    for message, attempts in (("EADDRINUSE", collective.PORT_ATTEMPTS), ("some other failure", 1)):

        def failing(*args: object, message: str = message) -> list[str]:
            calls.append(1)
            raise raised(message, 0, 1)

        calls.clear()
        monkeypatch.setattr(collective, "_spawned", failing)
        with pytest.raises(raised):
            collective.allreduce("cpu", quick=True)
        assert len(calls) == attempts


def test_allreduce_rejects_bad_input():
    with pytest.raises(UsageError):
        allreduce("cpu", True, None, world_size=0)
    with pytest.raises(UsageError):
        allreduce("cpu", True, None, sizes=[2])


# ----- data loading ------------------------------------------------------------------------------------
def test_npy_round_trip(tmp_path):
    t = torch.randn(10, 3, 2)
    write_npy(tmp_path / "a.npy", t)
    assert npy_header(tmp_path / "a.npy")[:2] == ("float32", (10, 3, 2))
    assert torch.equal(read_npy_rows(tmp_path / "a.npy"), t)
    assert torch.equal(read_npy_rows(tmp_path / "a.npy", 3, 5), t[3:5])
    np = pytest.importorskip("numpy")
    assert np.array_equal(np.load(tmp_path / "a.npy"), t.numpy())
    np.save(tmp_path / "b.npy", np.arange(12, dtype=np.int64).reshape(4, 3))
    assert read_npy_rows(tmp_path / "b.npy", 1, 2).tolist() == [[3, 4, 5]]


def test_io_generated_data_set_is_decoded_and_removed(tmp_path, monkeypatch):
    # a temporary directory of its own: a parallel test's `gpuwise bench` writes its data sets beside it
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    rec = Recorder()
    ms = io("cpu", True, rec)
    rec.check("io")
    assert not list(tmp_path.glob("gpuwise-io-*"))
    sane(ms, "io", "samples/s")
    formats = {m.params["format"] for m in ms}
    assert "npy" in formats
    for m in ms:
        p = m.params
        assert m.name == "read-decode" and p["workers"] == 2 and p["samples"] > 0
        assert p["bytes_per_sample"] > 0
        assert p["bytes_per_second"] == pytest.approx(m.value * p["bytes_per_sample"])
    (npy,) = [m for m in ms if m.params["format"] == "npy"]
    assert npy.params["bytes_per_sample"] == 256 * 4


def test_io_reads_a_users_directory(tmp_path):
    for i in range(3):
        write_npy(tmp_path / f"part{i}.npy", torch.randn(100, 16))
    (tmp_path / "notes.txt").write_text("ignored")
    ms = io("cpu", True, None, path=tmp_path, workers=1, batch_size=32)
    sane(ms, "io", "samples/s")
    (m,) = ms
    assert m.params["format"] == "npy" and m.params["samples"] == 300 and m.params["workers"] == 1
    assert m.params["bytes_per_sample"] == 16 * 4
    with pytest.raises(UsageError, match="no "):
        io("cpu", True, None, path=tmp_path / "notes.txt")
    with pytest.raises(UsageError, match="no such"):
        io("cpu", True, None, path=tmp_path / "missing")


@pytest.mark.parametrize(
    ("module", "package", "file"), [("pyarrow", "pyarrow", "x.parquet"), ("PIL", "Pillow", "x.png")]
)
def test_io_says_which_package_a_format_needs(tmp_path, monkeypatch, module, package, file):
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed: importing it fails
    (tmp_path / file).write_bytes(b"PAR1")
    with pytest.raises(UsageError, match=package):
        io("cpu", True, None, path=tmp_path)


def test_io_reads_parquet_and_arrow_files(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    feather = pytest.importorskip("pyarrow.feather")
    table = pa.table({"x": pa.array([float(i) for i in range(500)], pa.float32()),
                      "label": pa.array(list(range(500)), pa.int64()),
                      "text": pa.array([f"row {i}" for i in range(500)])})  # fmt: skip
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=100)
    feather.write_feather(table, tmp_path / "b.feather", chunksize=128)
    ms = io("cpu", True, None, path=tmp_path, workers=0)
    sane(ms, "io", "samples/s")
    assert {m.params["format"]: m.params["samples"] for m in ms} == {"parquet": 500, "arrow": 500}


def test_io_reads_images(tmp_path):
    image = pytest.importorskip("PIL.Image")
    for i in range(6):
        image.new("RGB", (20 + i, 10), (i, 2 * i, 3 * i)).save(tmp_path / f"{i}.png")
    image.new("L", (8, 8)).save(tmp_path / "gray.jpg")
    ms = io("cpu", True, None, path=tmp_path, workers=1, batch_size=4)
    sane(ms, "io", "samples/s")
    (m,) = ms
    assert m.params["format"] == "image" and m.params["samples"] == 7
    assert m.params["decoded_bytes_per_sample"] > 0


# ----- training step -----------------------------------------------------------------------------------
def test_step_parts_add_up_to_the_total(step_run):
    ms = step_run
    sane(ms, "step", "seconds")
    named = {m.name: m for m in ms}
    assert list(named) == ["data", "forward", "backward", "optimizer", "total"]
    total = named["total"]
    parts = [named[n] for n in ("data", "forward", "backward", "optimizer")]
    assert all(len(m.samples) == 5 for m in ms)  # quick: five timed steps
    for i, t in enumerate(total.samples):  # every repetition: the parts are the total, by construction
        assert all(p.samples[i] >= 0 for p in parts)
        assert sum(p.samples[i] for p in parts) == pytest.approx(t, rel=1e-9)
    for m in ms:  # each reported value is the median of its own repetitions
        assert m.value == statistics.median(m.samples)


def test_step_quick_stand_in_is_shrunk_and_says_so(step_run):
    p = step_run[-1].params
    assert p["model"] == "gpt2" and p["stand_in"] and p["shrunk"]
    assert p["layers"] == 2 and p["hidden"] <= 256 and p["full"]["layers"] == 12
    assert all(k in p for k in ("batch", "seq", "heads", "ffn", "vocab", "params"))


def test_step_mlp_and_user_module():
    ms = step("cpu", True, None, model="mlp")
    sane(ms, "step", "seconds")
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    ms = step("cpu", True, None, module=net, input_shape=[8], batch=4)
    sane(ms, "step", "seconds")
    assert ms[0].params["model"] == "Sequential" and ms[0].params["params"] == 8 * 16 + 16 + 16 * 2 + 2
    with pytest.raises(UsageError, match="not a transformer"):
        step("cpu", True, None, model="resnet-50")
    with pytest.raises(UsageError, match="input_shape"):
        step("cpu", True, None, module=net)


# ----- latency -----------------------------------------------------------------------------------------
def test_percentile_and_arrivals_by_hand():
    # nearest rank, as the serving model reads its simulation: the ceil(p/100 x n)-th smallest value
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0  # the 2nd of 3
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0  # the 2nd of 4, a latency some request had (not 2.5)
    assert percentile([float(i) for i in range(1, 101)], 99) == 99.0 and percentile([1.0, 2.0], 100) == 2.0
    assert percentile([5.0], 99) == 5.0 and percentile([1.0, 2.0], 0) == 1.0
    with pytest.raises(ValueError):
        percentile([], 50)
    assert arrival_offsets(4.0, 3, "fixed") == [0.0, 0.25, 0.5]
    gaps = arrival_offsets(100.0, 2001, "poisson", seed=1)
    assert gaps == sorted(gaps) and gaps[-1] / 2000 == pytest.approx(0.01, rel=0.1)
    with pytest.raises(UsageError):
        arrival_offsets(1.0, 2, "bursty")


def check_latency(ms, rate: float) -> None:
    named = {m.name: m for m in ms}
    assert list(named) == ["p50", "p95", "p99", "achieved-rate"]
    for q in ("p50", "p95", "p99"):
        assert named[q].unit == "seconds" and math.isfinite(named[q].value) and named[q].value > 0
        assert named[q].value == percentile(list(named[q].samples), int(q[1:]))
    assert named["achieved-rate"].unit == "1/s"
    assert named["p50"].value <= named["p95"].value <= named["p99"].value
    # open loop: the last request cannot finish before it arrives, so the achieved rate is at most
    # completed / last arrival time (a load can only lower it)
    p = named["achieved-rate"].params
    last_arrival = arrival_offsets(rate, p["requests"], p["arrival"])[-1]
    assert p["rate"] == rate and 0 < named["achieved-rate"].value <= p["completed"] / last_arrival


def test_latency_in_process_model_open_loop():
    rec = Recorder()
    ms = latency("cpu", True, rec, rate=50.0, duration=1.0)
    rec.check("latency")
    check_latency(ms, 50.0)
    p = ms[0].params
    assert p["requests"] == 50 and p["completed"] == 50 and p["errors"] == 0 and p["target"] == "in-process mlp"


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        reply = json.dumps({"ok": True, "n": len(json.loads(body)["inputs"])}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args) -> None:  # keep the test output quiet
        pass


@pytest.fixture
def http_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/predict"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_latency_against_a_local_http_server(http_server):
    ms = latency("cpu", True, None, rate=40.0, duration=0.5, url=http_server, timeout=5.0)
    check_latency(ms, 40.0)
    p = ms[0].params
    assert p["target"] == http_server and p["errors"] == 0 and p["completed"] == 20


def test_latency_http_errors_and_bad_urls(http_server):
    closed = http_server.rsplit(":", 1)[0] + ":1/predict"  # port 1 on 127.0.0.1: nothing listens
    with pytest.raises(UsageError, match="failed"):
        latency("cpu", True, None, rate=20.0, duration=0.1, url=closed, timeout=2.0)
    with pytest.raises(UsageError, match="http"):
        latency("cpu", True, None, url="file:///etc/passwd")
    with pytest.raises(UsageError, match="positive"):
        latency("cpu", True, None, rate=0.0)


# ----- host facts and the suite --------------------------------------------------------------------------
def test_host_facts_on_cpu():
    facts = host_facts("cpu")
    assert facts.hostname and facts.cpu and facts.cpu_count >= 1
    assert facts.device == "cpu" and facts.torch == torch.__version__ and facts.gpu_count == 0
    assert facts.python and facts.gpu_model is None


def test_catalog_gpu_ids_from_driver_names():
    gib = 2**30
    assert catalog_gpu_id("NVIDIA H100 80GB HBM3", 80 * gib) == "h100-sxm"
    assert catalog_gpu_id("NVIDIA H100 PCIe", 80 * gib) == "h100-pcie"
    assert catalog_gpu_id("NVIDIA A100-SXM4-40GB", 40 * gib) == "a100-40gb-sxm"
    assert catalog_gpu_id("NVIDIA A100 80GB PCIe", 80 * gib) == "a100-80gb-pcie"
    assert catalog_gpu_id("Tesla T4", 16 * gib) == "t4"
    assert catalog_gpu_id("NVIDIA L40S", 48 * gib) == "l40s"
    assert catalog_gpu_id("NVIDIA GeForce RTX 4090", 24 * gib) == "rtx-4090"
    assert catalog_gpu_id("NVIDIA GeForce RTX 2080", 8 * gib) is None


def test_suite_names_and_option_routing():
    assert suite.expand(["all"]) == list(suite.BENCHES)
    assert suite.expand(["h2d", "matmul"]) == ["matmul", "h2d"]
    with pytest.raises(UsageError, match="matmul"):
        suite.expand(["matmull"])
    with pytest.raises(UsageError, match="takes option"):
        suite.run(["membw"], "cpu", True, dtypes=["fp32"])
    facts, ms = suite.run(["matmul", "h2d"], "cpu", True, None, dtypes=["fp32"])
    assert facts.device == "cpu"
    assert {m.benchmark for m in ms} == {"matmul", "h2d"}
    assert {m.params["dtype"] for m in ms if m.benchmark == "matmul"} == {"fp32"}
    _, ms = suite.run(["step", "latency"], "cpu", True, None, step={"model": "mlp"}, latency={"duration": 0.2})
    assert {m.benchmark for m in ms} == {"step", "latency"}
    assert next(m for m in ms if m.benchmark == "step").params["model"] == "mlp"


def test_launch_times_a_dispatch_on_the_host():
    """On the host the launch benchmark times each operator the stand-in dispatches: the three figures, in
    seconds, each the median of the quick mode's three rounds of ten passes; no GPU, so no busy share."""
    rec = Recorder()
    ms = launch("cpu", True, rec, layers=2)
    rec.check("launch")
    sane(ms, "launch")
    assert tuple(m.name for m in ms) == LAUNCH_NAMES
    for m in ms:
        assert len(m.samples) == 3 and m.value == statistics.median(m.samples)
        assert m.params["passes"] == 10 and m.params["gpu_busy_share"] == 0.0
        assert m.params["hidden"] == 256 and m.params["layers"] == 2 and m.params["tokens"] == 1
        assert m.params["dtype"] == "fp32"


def test_launch_counts_gpu_kernels_and_their_busy_time_from_the_profilers_events(monkeypatch):
    """The GPU branch, on events of torch's own type as the profiler returns them on a CUDA host: every
    device event (kernels, copies and fills) counts once and its duration adds to the GPU's busy time; the
    host's operators do not count. No GPU is needed: the profiler and the synchronization are replaced."""
    from torch.autograd import DeviceType
    from torch.autograd.profiler_util import FunctionEvent

    from gpuwise.bench import launch as launch_module

    host = FunctionEvent(1, "aten::addmm", 0, 0, 30)
    kernels = [
        FunctionEvent(2, "ampere_bf16_gemm", 0, 40, 52, device_type=DeviceType.CUDA),
        FunctionEvent(3, "Memset (Device)", 0, 60, 61, device_type=DeviceType.CUDA),
        FunctionEvent(4, "vectorized_elementwise_kernel", 0, 70, 74, device_type=DeviceType.CUDA),
    ]

    class Profile:
        def __init__(self, activities):
            self.activities = activities

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def events(self):
            return [host, *kernels]

    seen = {}

    def profile(activities):
        seen["activities"] = activities
        return Profile(activities)

    monkeypatch.setattr(torch.profiler, "profile", profile)
    monkeypatch.setattr(launch_module, "synchronize", lambda device: None)
    ran = []
    count, busy = launch_module._count(torch, "cuda:0", lambda: ran.append(1))
    assert ran == [1] and torch.profiler.ProfilerActivity.CUDA in seen["activities"]
    assert count == 3 and busy == pytest.approx((12 + 1 + 4) * 1e-6)


def test_launch_without_profiled_kernels_is_a_usage_error_and_all_goes_on(monkeypatch):
    """A host whose profiler sees no kernel (no CUPTI beside a CUDA build) cannot time a launch: named, the
    benchmark is a usage error that says why; under 'all' the other benchmarks' results still come back."""
    from gpuwise.bench import launch as launch_module

    monkeypatch.setattr(launch_module, "_count", lambda torch, device, run: (0, 0.0))
    with pytest.raises(UsageError, match="CUPTI"):
        launch_module.launch("cpu", True)

    def measured(device="cpu", quick=False, progress=None):
        return [f"one result on {device}"]

    def failing(device="cpu", quick=False, progress=None):
        raise UsageError("the profiler saw no kernels")

    for name in suite.BENCHES:
        monkeypatch.setitem(suite.BENCHES, name, failing if name == "launch" else measured)
    _, results = suite.run(["all"], "cpu", True)
    assert len(results) == len(suite.BENCHES) - 1
    with pytest.raises(UsageError, match="no kernels"):
        suite.run(["launch"], "cpu", True)


def test_launch_says_when_the_gpu_set_the_pace(monkeypatch):
    """A part whose kernels keep the GPU busy longer than the host took to issue them reports a busy share
    of 1 (capped), which `calibrations` then leaves out (test_calibration.py)."""
    from gpuwise.bench import launch as launch_module

    monkeypatch.setattr(launch_module, "_count", lambda torch, device, run: (50, 10.0))  # 10 s of GPU a pass
    ms = launch_module.launch("cpu", True, layers=1)
    assert [m.params["gpu_busy_share"] for m in ms] == [1.0, 1.0, 1.0]
    assert all(m.params["kernels_per_pass"] == 50 for m in ms)


def test_launch_counts_the_same_operators_in_every_block():
    """The counted operators grow by the same number with every block (the stand-in's blocks are alike), in
    each part; the training forward dispatches what the inference forward does, and the backward more (two
    gradients a GEMM)."""
    counts = {n: [m.params["kernels_per_pass"] for m in launch("cpu", True, layers=n)] for n in (1, 2, 3)}
    for i in range(3):
        assert counts[2][i] - counts[1][i] == counts[3][i] - counts[2][i] > 0
    assert counts[1][0] == counts[1][1] < counts[1][2]
    with pytest.raises(UsageError, match="at least 1"):
        launch("cpu", True, layers=0)
    with pytest.raises(UsageError, match="not a transformer"):
        launch("cpu", True, model="resnet-50")


# ----- the named pieces of step, latency and all-reduce, by hand ------------------------------------
def test_step_dtype_default_and_errors():
    from gpuwise.bench.step import _default_dtype

    assert _default_dtype(torch, "cpu", None) == "fp32"
    assert _default_dtype(torch, "cpu", "bf16") == "bf16"
    with pytest.raises(UsageError, match="dtype must be one of fp32, bf16, fp16"):
        _default_dtype(torch, "cpu", "int8")


def test_step_mlp_setup_and_one_timed_step():
    from gpuwise.bench.step import PARTS, _mlp_setup, _step_timer

    s = _mlp_setup(torch, "cpu", torch.Generator().manual_seed(0), True, None)
    assert s.params == {"model": "mlp", "batch": 64, "input": 256, "width": 512, "depth": 3, "classes": 10}
    assert [tuple(t.shape) for t in s.host] == [(64, 256), (64,)]
    # weights 256x512 + 512x512 + 512x512 and a 512x10 head, with their biases
    assert sum(p.numel() for p in s.net.parameters()) == 256 * 512 + 2 * 512 * 512 + 3 * 512 + 512 * 10 + 10
    parts = _step_timer(torch, "cpu", s, "fp32")()
    assert len(parts) == len(PARTS) and all(t >= 0 for t in parts)
    assert all(p.grad is None for p in s.net.parameters())  # the step ends with zero_grad(set_to_none)


def test_step_repeat_counts_warmup_and_timed_steps():
    from gpuwise.bench._common import Progress
    from gpuwise.bench.step import _repeat

    calls = []
    rec = Recorder()
    bar = Progress(rec, "step", 5)
    parts = _repeat(lambda: calls.append(1) or [float(len(calls))] * 4, bar, 2, 3)
    assert len(calls) == 5
    assert parts == [[3.0] * 4, [4.0] * 4, [5.0] * 4]  # the two warm-up steps are not kept
    rec.check("step")


def test_latency_threads_by_hand(monkeypatch):
    from gpuwise.bench import latency as lat

    assert lat._threads("http://x", 40.0, 5.0) == 200  # ceil(40/s x 5 s)
    assert lat._threads("http://x", 40.0, 30.0) == 200  # the timeout counts up to 5 s
    assert lat._threads("http://x", 100.0, 10.0) == lat.MAX_THREADS  # 500, capped
    assert lat._threads("http://x", 0.1, 1.0) == 4  # at least four
    monkeypatch.setattr(lat.os, "cpu_count", lambda: 3)
    assert lat._threads(None, 1000.0, 10.0) == 6  # in process: two a core


def test_latency_outcome_records_successes_and_errors():
    import time

    from gpuwise.bench.latency import _Outcome

    out = _Outcome([None, None])
    out.request(lambda: None, 0, time.perf_counter() - 1.0)  # scheduled a second ago

    def fail() -> None:
        raise ConnectionRefusedError("refused")

    out.request(fail, 1, time.perf_counter())
    assert out.latencies[0] is not None and out.latencies[0] >= 1.0
    assert out.latencies[1] is None
    assert out.errors == ["ConnectionRefusedError: refused"] and len(out.finished) == 1


def test_latency_results_by_hand():
    from gpuwise.bench.latency import _results

    ms = _results([4.0, 1.0, 3.0, 2.0], 2.0, {"rate": 2.0})
    got = {m.name: m.value for m in ms}
    # nearest ranks ceil(4 q/100) = 2, 4, 4 of [1, 2, 3, 4]: latencies requests really had
    assert got == pytest.approx({"p50": 2.0, "p95": 4.0, "p99": 4.0, "achieved-rate": 2.0})
    assert ms[0].samples == (4.0, 1.0, 3.0, 2.0) and ms[-1].samples == ()
    assert _results([1.0], 0.0, {})[-1].value == 1.0  # one request finishing at once: its count


def test_latency_open_loop_serves_every_request():
    from gpuwise.bench._common import Progress
    from gpuwise.bench.latency import _open_loop

    rec = Recorder()
    outcome, start = _open_loop(lambda: None, [0.0, 0.001, 0.002], 4, 5.0, Progress(rec, "latency", 3))
    assert all(x is not None and x >= 0 for x in outcome.latencies)
    assert outcome.errors == [] and min(outcome.finished) >= start
    rec.check("latency")


def test_allreduce_busbw_measurement_by_hand():
    from gpuwise.bench.collective import _busbw

    m = _busbw(4_000_000, [1e-3, 3e-3, 2e-3], 4, "gloo", 2)
    # median 2 ms: algbw 4 MB / 2 ms = 2 GB/s; busbw = algbw x 2(n-1)/n = 2 x 1.5 = 3 GB/s
    assert m.value == pytest.approx(3e9)
    assert m.params["algbw"] == pytest.approx(2e9) and m.params["seconds"] == pytest.approx(2e-3)
    assert m.samples == pytest.approx((6e9, 2e9, 3e9))
    assert (m.params["ranks"], m.params["backend"], m.params["iters"]) == (4, "gloo", 2)


def test_allreduce_timer_calls_back_to_back():
    from gpuwise.bench.collective import _timed

    calls = []
    seconds = _timed(torch, "cpu", lambda: calls.append(1), 7)
    assert len(calls) == 7 and seconds >= 0
