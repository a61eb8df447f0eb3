"""Modelling numbers live in the catalog, not in the estimators or the planner.

A float literal in src/gpuwise/estimate/ or src/gpuwise/plan/ is a modelling number that escaped
the catalog (an efficiency, a byte count with scales, a threshold), unless it is one of the unit
constants below or the value of a named module-level constant: a setting of the search or the
simulation (a stop rule, a tie tolerance, a simulation size), named and explained beside the code
that uses it, is not a fact about hardware and has no source to cite. Integer literals (counts,
search bounds) are allowed. The other tests check that the estimators follow a changed catalog
instead of a copy of its values.
"""

import ast
from pathlib import Path

import pytest

from corpus.operators_accuracy import with_values
from gpuwise.catalog import Catalog, load_catalog
from gpuwise.estimate import estimate
from gpuwise.estimate.comm import topology
from gpuwise.estimate.cost import CostParams
from gpuwise.estimate.memory.states import weight_bytes_per_param
from gpuwise.estimate.rates import compute_rates
from gpuwise.estimate.run import LatencyTarget
from gpuwise.estimate.serving import LLMTimer
from gpuwise.plan import plan, search
from gpuwise.workload import build_hardware, build_workload
from gpuwise.workload.requirements import build_requirements

CAT = load_catalog()
SRC = Path(__file__).resolve().parents[1] / "src" / "gpuwise"
CHECKED = [SRC / "estimate", SRC / "plan"]

# The only float literals allowed there, each a unit or a mathematical constant, not a model choice.
ALLOWED = {
    0.0: "zero: the start of a sum, no time, nothing moved",
    1.0: "one: the identity, a whole (e.g. busy the whole time)",
    1e3: "SI kilo: milliseconds, per thousand requests",
    1e6: "SI mega: per million tokens, microseconds",
    1e9: "SI giga: GB/s in notes",
    1e12: "SI tera: TFLOP/s in notes",
}


def float_literals(source: str) -> list[tuple[int, float]]:
    """(line, value) of every float literal in Python source, in line order, except the value of a
    module-level constant (`NAME = 0.05`, upper case: a named setting)."""
    tree = ast.parse(source)
    named = {
        id(stmt.value)
        for stmt in tree.body
        if isinstance(stmt, ast.Assign | ast.AnnAssign)
        and all(
            isinstance(t, ast.Name) and t.id.isupper()
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
        )
    }
    found = [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and id(node) not in named
    ]
    return sorted(found)


def convention_keys(source: str) -> set[str]:
    """Literal keys passed to `convention(...)` or `conv(...)` (catalog reads) in Python source."""
    keys = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("convention", "conv") and isinstance(node.args[0].value, str):
            keys.add(node.args[0].value)
    return keys


def _sources() -> list[Path]:
    files = sorted(p for d in CHECKED for p in d.rglob("*.py"))
    assert len(files) >= 10, files  # the packages are where this test thinks they are
    return files


# ------------------------------------------------------------------------------------------
def test_the_checker_finds_the_floats_it_must_reject():
    src = "EFF = 0.8\neff = 0.7\nN = 3\ndef f(x):\n    LOCAL = 0.6\n    return x * 2.5 + 1e9 + 4 + (EFF, 0.3)[0]\n"
    assert float_literals(src) == [(2, 0.7), (5, 0.6), (6, 0.3), (6, 2.5), (6, 1e9)]  # a named constant passes
    assert [v for _, v in float_literals(src) if v not in ALLOWED] == [0.7, 0.6, 0.3, 2.5]
    assert convention_keys("c.convention('a')\nn.conv('b')\nconv(k)\nx.other('c')\n") == {"a", "b"}


def test_no_modelling_float_literal_in_estimators_or_planner():
    bad = [
        f"{path.relative_to(SRC.parent)}:{line}: {value!r}"
        for path in _sources()
        for line, value in float_literals(path.read_text(encoding="utf-8"))
        if value not in ALLOWED
    ]
    assert not bad, (
        "move these to catalog/data/conventions.yaml with a source and a reason, or, if it is a setting of the "
        "search, name it as a module-level constant with its reason:\n" + "\n".join(bad)
    )


def test_every_convention_the_code_reads_is_in_the_catalog_with_a_source():
    used = set().union(*(convention_keys(p.read_text(encoding="utf-8")) for p in _sources()))
    assert {"backward_ratio_attention", "communication_bottleneck_share", "int4_group_scale_bytes"} <= used
    assert used <= CAT.conventions.keys(), sorted(used - CAT.conventions.keys())
    for key in used:
        assert CAT.conventions[key].source in CAT.sources, key


# ------------------------------------------------------------------------------------------
def test_quantized_weight_bytes_hand_computed_and_following_the_catalog():
    conv = CAT.convention
    assert weight_bytes_per_param("int4", conv) == 0.5 + 2.5 / 128  # 4 bits + (fp16 scale + 4-bit zero) / 128
    assert weight_bytes_per_param("nf4", conv) == 0.5 + 0.127 / 8  # QLoRA: 0.127 bits of constants
    assert weight_bytes_per_param("bf16", conv) == 2
    assert weight_bytes_per_param("int8", conv) == 1
    smaller_groups = with_values(CAT, {"int4_group_size": 64})
    assert weight_bytes_per_param("int4", smaller_groups.convention) == 0.5 + 2.5 / 64


def test_the_serving_timer_reads_weights_at_the_memory_models_size():
    for cat in (CAT, with_values(CAT, {"int4_group_size": 32})):
        w = build_workload({"model": "llama-2-7b", "task": "inference", "weights_dtype": "int4"}, cat)
        hw = build_hardware("l4", cat)
        timer = LLMTimer(w, compute_rates(hw.gpu, "bf16", cat), topology(hw, cat), cat)
        assert timer.w_bytes == weight_bytes_per_param("int4", cat.convention)
    assert weight_bytes_per_param("int4", with_values(CAT, {"int4_group_size": 32}).convention) == 0.5 + 2.5 / 32


def test_model_flops_follow_the_backward_ratio():
    """Model FLOPs are (1 + backward ratio) x forward: 3x with the cited 2, 4x if the catalog said 3."""
    opts = {"model": "llama-2-7b", "task": "pretrain", "micro_batch": 1, "seq": 2048}
    w = build_workload(opts, CAT)
    hw = build_hardware("h100-sxm", CAT)
    cited = estimate(w, hw, CAT, search_largest=False).training
    changed = estimate(w, hw, with_values(CAT, {"backward_ratio_trainable_matmul": 3}), search_largest=False).training
    assert changed.flops_per_step == pytest.approx(cited.flops_per_step * 4 / 3, rel=1e-12)
    assert changed.terms["compute"] > cited.terms["compute"]


def test_adafactor_optimizer_step_hand_computed():
    """llama-2-7b, one GPU, bf16 with an fp32 master copy (pretraining: the Megatron profile, whose
    gradients are fp32): the update reads and writes (2 + 4 + 4) B per parameter plus Adafactor's
    factored state: 4 B per row and column of each of the 7 block matrices x 32 layers and one
    embedding-sized matrix, 4 B per value of the rest."""
    w = build_workload({"model": "llama-2-7b", "task": "pretrain", "optimizer": "adafactor", "seq": 2048}, CAT)
    hw = build_hardware("h100-sxm", CAT)
    t = estimate(w, hw, CAT, search_largest=False).training
    params = 6_738_415_616
    rows_and_cols = 32 * (4 * (4096 + 4096) + 3 * (4096 + 11008)) + 32000 + 4096  # 2,534,656
    rest = params - 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008) - 32000 * 4096  # 131,338,240
    moved = 2 * ((2 + 4 + 4) * params + 4 * (rows_and_cols + rest))
    bandwidth = compute_rates(hw.gpu, "bf16", CAT).bandwidth
    assert t.terms["optimizer_step"] == pytest.approx(moved / bandwidth, rel=1e-12)


def test_serving_plan_of_a_non_llm_uses_the_catalogs_inference_traffic():
    """At a trickle of requests each one is served alone: the simulated median is the one-batch
    latency of the inference section, computed at the same cited traffic factor."""
    w = build_workload({"model": "resnet-50", "task": "inference", "concurrency": 1}, CAT)
    hw = build_hardware("l4", CAT)
    est = estimate(w, hw, CAT, target=LatencyTarget(qps=0.5, percentile=50, seconds=1.0))
    assert est.serving is not None
    assert est.serving.p50 == pytest.approx(est.inference.latency_seconds, rel=1e-9)


def _plan(cat: Catalog, workload: dict[str, object], requirements: dict[str, object]):
    req = build_requirements(requirements, cat)
    return plan([build_workload(workload, cat)], req, cat, CostParams.from_catalog(cat))


def test_the_engines_memory_share_sizes_the_kv_cache_the_planner_searches():
    """vLLM's share is the serving_memory_utilization convention (what gpuwise deploy gives the pod):
    a smaller share leaves fewer KV blocks, so the largest batch the serving search tries is smaller."""
    work = {"model": "llama-2-7b", "task": "inference", "input_tokens": 512, "output_tokens": 128}
    req = {"qps": 2, "gpus": ["a100-80gb-sxm"]}
    batch = {}
    for share in (0.5, 0.9):
        r = _plan(with_values(CAT, {"serving_memory_utilization": share}), work, req)
        (c,) = r.candidates
        assert c.serving is not None
        batch[share] = c.serving.max_batch
    assert batch[0.5] < batch[0.9]


def test_the_planner_stops_doubling_by_its_threshold(monkeypatch):
    """Walking GPU counts upward, a configuration is explored past the second that meets the
    requirements only while each one costs less than (1 - threshold) x the cheapest before it."""
    work = {"model": "llama-2-7b", "task": "finetune", "method": "full", "tokens": "200M", "seq": 2048}
    req = {"deadline": "3d", "gpus": ["h100-sxm"]}
    explored = {}
    for threshold in (0.0, 0.05, 1.0):
        monkeypatch.setattr(search, "DOUBLING_MIN_SAVING", threshold)
        r = _plan(CAT, work, req)
        # one GPU with ZeRO-Offload is shown and misses the deadline (its CPU-Adam step: ~5 s a step for 7B)
        meeting = [c for c in r.candidates if c.ok]
        assert meeting and all(c.gpus == 1 for c in r.candidates if not c.ok)
        costs = [c.cost for c in sorted(meeting, key=lambda c: c.gpus)]
        keep = 1 - threshold
        assert all(costs[k] < keep * min(costs[:k]) for k in range(1, len(costs) - 1)), costs
        assert costs[-1] >= keep * min(costs[:-1]), costs
        explored[threshold] = len(costs)
    assert explored[1.0] == 2 < explored[0.0]  # a larger count can be cheaper: less sharding, shorter run
