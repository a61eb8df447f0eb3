"""Describing PyTorch modules on the meta device (runs where torch is installed; CI installs it)."""

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.errors import UsageError
from gpuwise.estimate import memory
from gpuwise.estimate.memory.states import framework_of, state_bytes
from gpuwise.workload import Hardware, TrainingJob

from .conftest import load_script

torch = pytest.importorskip("torch")
from gpuwise.bench.describe import describe_module  # noqa: E402


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))


def test_mlp_hand_computed():
    arch = describe_module(mlp, [16], dtype="bf16")
    assert arch.params == 16 * 32 + 32 + 32 * 8 + 8
    assert arch.flops_per_sample == 2 * (16 * 32 + 32 * 8)
    # kept for backward: the input (for W1's gradient) and the ReLU output (ReLU's and W2's backward),
    # 16 + 32 values at 2 bytes; weights are parameters, not activations
    assert arch.activation_bytes_per_sample == (16 + 32) * 2


def test_conv_flops_and_nothing_allocated():
    def net():
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 32 * 32, 10)
        )

    arch = describe_module(net, [3, 32, 32], dtype="fp32")
    assert arch.flops_per_sample == 2 * (3 * 3 * 3 * 8 * 32 * 32) + 2 * 8 * 32 * 32 * 10
    # a module far larger than this machine's memory is described without allocating it
    big = describe_module(lambda: torch.nn.Linear(200_000, 200_000), [200_000])
    assert big.params == 200_000 * 200_001


def test_described_module_feeds_the_memory_estimator():
    cat = load_catalog()
    arch = describe_module(mlp, [16])
    est = memory(TrainingJob(model=arch, micro_batch=64), Hardware(cat.gpu("t4"), 1, 1), cat)
    assert arch.activation_bytes_per_sample is not None
    assert est.per_gpu.activations == pytest.approx(64 * arch.activation_bytes_per_sample)
    job = TrainingJob(model=arch, micro_batch=64)
    # weights at the default stack's parameter bytes (autocast stacks keep fp32 parameters)
    assert est.per_gpu.weights == arch.params * state_bytes(job, framework_of(job, cat), cat.convention).weight


def test_bad_arguments():
    with pytest.raises(UsageError):
        describe_module(mlp, [0])
    with pytest.raises(UsageError):
        describe_module(mlp, [16], dtype="int3")


def test_catalog_measurements_are_reproducible():
    """models.yaml's activation sizes for generic models come from scripts/measure_generic.py."""
    mod = load_script("measure_generic")
    cat = load_catalog()
    arch = describe_module(mod.resnet50, [3, 224, 224], dtype="bf16")
    entry = cat.models["resnet-50"]
    assert arch.params == entry.published_params
    assert arch.activation_bytes_per_sample == entry.activation_bytes_per_sample
    assert arch.flops_per_sample == pytest.approx(entry.flops_per_sample, rel=0.001)


def test_packaged_operator_descriptions_are_reproducible():
    """data/operators/*.json are what scripts/describe_models.py writes (compared, nothing written)."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "scripts" / "describe_models.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_operators_of_a_module_hand_computed():
    from gpuwise.bench.describe import describe_operators

    doc = describe_operators(mlp, [16], batch=4)
    ops = doc["operators"]
    assert [o["class"] for o in ops] == ["gemm", "elementwise", "gemm"]
    assert ops[0]["flops"] == 2 * 4 * 16 * 32 and ops[2]["flops"] == 2 * 4 * 32 * 8
    assert ops[0]["param_bytes"] == 2 * (16 * 32 + 32)  # weight and bias at bf16
    assert ops[0]["bytes_read"] == 2 * (4 * 16 + 16 * 32 + 32) and ops[0]["bytes_written"] == 2 * 4 * 32
    assert [o["fused_into"] for o in ops] == [None, 0, None]  # GEMM + ReLU epilogue


def test_embedding_tables_are_recorded_and_gathers_read_only_their_rows():
    from gpuwise.bench.describe import describe_operators

    def net():
        return torch.nn.Sequential(torch.nn.Embedding(1000, 8), torch.nn.Flatten(), torch.nn.Linear(3 * 8, 1))

    doc = describe_operators(net, [3], batch=4, input_dtype="int64", task="recommender")
    assert doc["embedding_tables"] == [[1000, 8]]
    gather = next(o for o in doc["operators"] if o["class"] == "embedding")
    # 4 x 3 int64 ids in, 4 x 3 rows of 8 bf16 values out (and read): not the 1000-row table
    assert gather["bytes_read"] == 4 * 3 * 8 + 4 * 3 * 8 * 2 and gather["param_bytes"] == 0
    assert gather["bytes_written"] == 4 * 3 * 8 * 2


class _SqueezeExcite(torch.nn.Module):
    """conv -> SiLU, then squeeze-and-excitation: mean, 1x1 conv -> sigmoid gates, x * gates."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.act = torch.nn.SiLU()
        self.excite = torch.nn.Conv2d(8, 8, 1)

    def forward(self, x):  # type: ignore[no-untyped-def]
        x = self.act(self.conv(x))
        gates = torch.sigmoid(self.excite(x.mean((2, 3), keepdim=True)))
        return x * gates


def test_an_epilogue_writes_its_anchors_output_shape_only():
    """The SiLU after the 3x3 conv and the sigmoid after the 1x1 excite conv are epilogues (same shape as
    their conv's output); the gate multiply writes a whole feature map (2 x 8 x 6 x 6), not the excite
    conv's 2 x 8 x 1 x 1 output, so no compiler folds it there: a kernel of its own."""
    from gpuwise.bench.describe import describe_operators

    ops = describe_operators(_SqueezeExcite, [8, 6, 6], batch=2)["operators"]
    by_op = [(o["op"], o["fused_into"], o["shape"][0]) for o in ops]
    assert by_op == [
        ("convolution", None, [2, 8, 6, 6]),
        ("silu", 0, [2, 8, 6, 6]),
        ("mean", None, [2, 8, 1, 1]),
        ("convolution", None, [2, 8, 1, 1]),
        ("sigmoid", 3, [2, 8, 1, 1]),
        ("mul", None, [2, 8, 6, 6]),
    ]


class _Block(torch.nn.Module):
    """x + fc2(gelu(fc1(x))) on a [batch, tokens, 16] input: Linear runs as a GEMM on the flattened rows."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.act, self.fc2 = torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 16)

    def forward(self, x):  # type: ignore[no-untyped-def]
        return x + self.fc2(self.act(self.fc1(x)))


def test_an_epilogue_may_write_another_view_of_its_anchors_output():
    """fc1's GEMM writes [batch x tokens, 32]; the GELU reads and writes it as [batch, tokens, 32]: the same
    elements, so it is the GEMM's epilogue; so is the residual add after fc2."""
    from gpuwise.bench.describe import describe_operators

    ops = describe_operators(_Block, [10, 16], batch=2)["operators"]
    fused = {o["op"]: o["fused_into"] for o in ops if o["fused_into"] is not None}
    anchors = [i for i, o in enumerate(ops) if o["fused_into"] is None and o["class"] == "gemm"]
    assert len(anchors) == 2 and fused == {"gelu": anchors[0], "add": anchors[1]}
