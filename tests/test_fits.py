"""The fitting scripts (scripts/fit_*.py): what each writes is what the catalog and the corpus hold
(`--check`), none of them reads the dated holdouts (corpus/data/holdout.yaml, holdout2.yaml ... holdout33.yaml,
scored by scripts/holdout.py) but fit_bands.py, whose band widths come from the scored holdouts' frozen first
scorings (never the newest holdout, never a model constant), and leaving a source out leaves its whole family of releases out."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from corpus import families
from corpus.first_scorings import CALIBRATING
from corpus.holdout import SETS as HOLDOUT_SETS

from .conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
FITS = sorted(p.name for p in (ROOT / "scripts").glob("fit_*.py"))
# the dated holdouts' case files in corpus/data, the first to the newest (holdout.yaml, holdout2.yaml, ...): every
# one there, so a new holdout is guarded without being listed
HOLDOUT_FILES = tuple(
    sorted(
        (p.name for p in (ROOT / "corpus" / "data").glob("holdout*.yaml")),
        key=lambda name: int(name.removeprefix("holdout").removesuffix(".yaml") or 1),
    )
)
# An audit hook that refuses to open the holdout's files: a fit that reads them fails with this message.
GUARD = f"NAMES = {HOLDOUT_FILES!r}\n" + textwrap.dedent(
    """
    import runpy, sys
    from pathlib import Path

    SETS = tuple(Path(f"corpus/data/{name}").resolve() for name in NAMES)
    CONFIGS = Path("corpus/data/holdout_configs").resolve()

    script = sys.argv[1]
    # fit_bands.py alone reads the holdouts already scored (corpus.first_scorings.CALIBRATING: their frozen
    # first-scoring errors set band widths, never a model constant): those whose first scoring is frozen (the
    # eighteenth's is, docs/accuracy-holdout18-2026-12-04.md); the nineteenth to twenty-fifth (diagnostic since
    # 2026-12-04 and 2026-12-05, not yet read by a fit) and the newest, the twenty-sixth on, stay
    # closed to it
    OPEN = NAMES[:18] if Path(script).name == "fit_bands.py" else ()
    SHUT = tuple(p for p, name in zip(SETS, NAMES) if name not in OPEN)

    def refuse(event, args):
        if event == "open" and args and isinstance(args[0], (str, bytes, Path)):
            path = Path(args[0].decode() if isinstance(args[0], bytes) else args[0]).resolve()
            if path in SHUT or (not OPEN and CONFIGS in path.parents):
                raise PermissionError(f"a fitting script read the dated holdout: {path}")

    sys.addaudithook(refuse)
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")
    """
)


def _guarded(script: str, *args: str, timeout: int = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", GUARD, script, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def test_the_guard_refuses_a_script_that_reads_the_holdout(tmp_path):
    """The hook works: a script opening holdout.yaml fails, one reading another corpus file does not; it
    guards every registered holdout."""
    assert set(HOLDOUT_FILES) == {hs.data.name for hs in HOLDOUT_SETS.values()}
    for name in HOLDOUT_FILES:
        bad = tmp_path / f"fit_reads_{Path(name).stem}.py"
        bad.write_text(f"open('corpus/data/{name}').read()\n", encoding="utf-8")
        proc = _guarded(str(bad))
        assert proc.returncode != 0 and "read the dated holdout" in proc.stderr, name
    good = tmp_path / "fit_reads_corpus.py"
    good.write_text("open('corpus/data/source_families.yaml').read()\n", encoding="utf-8")
    assert _guarded(str(good)).returncode == 0


@pytest.mark.parametrize("script", FITS)
def test_fit_is_current_and_never_reads_the_holdout(script):
    """Each fitting script, under the guard: its written files are up to date (or, for a probe that
    writes nothing, it runs) and it opens no holdout file on the way."""
    proc = _guarded(f"scripts/{script}", "--check")
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_every_fitting_script_is_guarded():
    """A new scripts/fit_*.py is covered by the guard without being listed (the glob above), and the
    fits do not import the holdout's scorer."""
    assert {"fit_efficiency.py", "fit_operators.py", "fit_serving.py"} <= set(FITS)
    for name in FITS:
        if name == "fit_bands.py":  # band widths from the scored holdouts' first scorings, nothing else
            continue
        text = (ROOT / "scripts" / name).read_text(encoding="utf-8")
        assert "from corpus import holdout" not in text and "corpus.holdout" not in text, name
    assert 26 not in CALIBRATING  # the twenty-sixth judges the changes made after the twenty-fifth's misses were read
    assert 27 not in CALIBRATING
    assert 28 not in CALIBRATING
    assert 29 not in CALIBRATING
    assert 30 not in CALIBRATING
    assert 31 not in CALIBRATING
    assert 32 not in CALIBRATING
    assert 33 not in CALIBRATING
    assert 25 not in CALIBRATING
    assert 24 not in CALIBRATING


def test_fit_bands_never_reads_the_nineteenth_to_thirty_third_holdout(tmp_path):
    """The guard as fit_bands.py runs under it: the first eighteen holdouts open, the nineteenth to the
    thirty-third refused."""
    probe = tmp_path / "fit_bands.py"
    probe.write_text("open('corpus/data/holdout18.yaml').read()\nopen('corpus/data/holdout19.yaml').read()\n")
    proc = _guarded(str(probe))
    assert proc.returncode != 0 and "read the dated holdout" in proc.stderr and "holdout19.yaml" in proc.stderr
    assert "holdout18.yaml" not in proc.stderr
    for name in (
        "holdout20.yaml",
        "holdout21.yaml",
        "holdout22.yaml",
        "holdout23.yaml",
        "holdout24.yaml",
        "holdout25.yaml",
        "holdout26.yaml",
        "holdout27.yaml",
        "holdout28.yaml",
        "holdout29.yaml",
        "holdout30.yaml",
        "holdout31.yaml",
        "holdout32.yaml",
        "holdout33.yaml",
    ):
        probe.write_text(f"open('corpus/data/{name}').read()\n")
        proc = _guarded(str(probe))
        assert proc.returncode != 0 and name in proc.stderr


def test_nemo_and_megatron_bridge_releases_are_one_family():
    fam = families.family_of("nemo-perf-2407")
    for source in ("nemo-long-sequence-h100", "megatron-bridge-perf-2511", "megatron-bridge-perf-archive-2606"):
        assert families.family_of(source) == fam
    assert families.family_of("llm-foundry-benchmarks") == "llm-foundry-benchmarks"  # a source on its own


def test_every_family_member_is_a_corpus_source():
    known: set[str] = set()
    for f in (ROOT / "corpus" / "data").glob("published_*.yaml"):
        known |= set((yaml.safe_load(f.read_text(encoding="utf-8")) or {}).get("sources") or {})
    for family, sources in families.families().items():
        assert set(sources) <= known, (family, set(sources) - known)


def test_leaving_a_source_out_leaves_its_family_out():
    """fit_efficiency's groups by hand: two NeMo releases and an MLPerf round of one stack make two
    groups, the releases together."""
    fit = load_script("fit_efficiency")
    cases = [
        fit.Case("a", "nemo-perf-2407", "nemo", {}),
        fit.Case("b", "megatron-bridge-perf-2511", "nemo", {}),
        fit.Case("c", "mlperf-training-v41-nvidia", "nemo", {}),
    ]
    groups = fit.leave_out_groups(cases)
    assert sorted(sorted(c.id for c in g) for g in groups.values()) == [["a", "b"], ["c"]]


def test_serving_fit_holds_out_a_family_when_an_engines_cases_span_several():
    """fit_serving's held-out unit by hand: TensorRT-LLM's two pages are one family, so a (model, GPU) pair is
    left out; cases from two France Travail suites and an RTX 4090 sweep leave out the suites together."""
    fit = load_script("fit_serving")

    def case(cid: str, source: str, group: str):
        return fit.Case(cid, "e", group, families.family_of(source), "output_tokens_per_second", 1.0, cid, {})

    trt = [case("a", "trtllm-perf-014-online", "8b on h100"), case("b", "trtllm-perf-017-throughput", "70b on h100")]
    assert fit.held_out_unit(trt)[0] == "(model, GPU) pair"
    mixed = [
        case("c", "ft-a100-80-llama31-8b-vllm060", "8b on a100"),
        case("d", "ft-h100nvl-llama31-8b-vllm061", "8b on h100-nvl"),
        case("e", "vllm-rtx4090-mistral-sweep", "mistral on rtx-4090"),
    ]
    name, unit = fit.held_out_unit(mixed)
    assert name == "source family" and unit(mixed[0]) == unit(mixed[1]) != unit(mixed[2])


def test_a_machine_generations_host_dispatch_is_fitted_only_where_a_small_batch_eager_case_decides_it():
    """Training and large batches hide the host: fitted on them alone, a generation's eager dispatch would wander
    to wherever it trades a hair of error elsewhere, so `fit_operators.decided` leaves it at its starting value."""
    fit = load_script("fit_operators")
    from corpus.operators_accuracy import cases
    from gpuwise.catalog.loader import build_catalog

    base, every = build_catalog(), cases()
    hosts = {k for k in fit.PARAMS if k.startswith("operator_host_seconds_eager_")}
    assert hosts == {f"operator_host_seconds_eager_{a}" for a in ("volta", "turing", "ampere")}
    assert hosts <= set(fit.decided(base, every))
    no_effnet = [c for c in every if c["group"] != "effnet-infer"]  # the only small-batch eager A100 rows
    decided = set(fit.decided(base, no_effnet))
    assert "operator_host_seconds_eager_ampere" not in decided
    assert {"operator_host_seconds_eager_volta", "operator_host_seconds_eager_turing"} <= decided
    assert "operator_kernel_floor_seconds" in decided
