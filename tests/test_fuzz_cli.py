"""A bounded, seeded fuzzer over the command line: hostile values in every schema field never give a
traceback (exit 70), a hang, or a non-finite number in JSON; the exit code is always 0, 1 or 2."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from corpus.hostile import HOSTILE_TEXT, all_finite
from gpuwise.workload.schema import FieldInfo, fields

from .conftest import load_script, run_main

HOSTILE = st.sampled_from(
    [*HOSTILE_TEXT, "2T", "120KB", "2GB/s", "llama-2-7b", "h100-sxm:8", "full,lora,qlora", "30d", "1h30m"]
)


def _value(f: FieldInfo) -> st.SearchStrategy[str]:
    """Half plausible (the field's example or one of its choices), half hostile."""
    plausible = st.sampled_from(f.choices) if f.choices else st.just(str(f.example))
    hostile = st.one_of(
        HOSTILE,
        st.integers(-(10**30), 10**30).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
    )
    return st.one_of(plausible, plausible, plausible, hostile, hostile)


def _args(command: str, sections: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    pool = [f for s in sections for f in fields(s)]

    @st.composite
    def build(draw: Any) -> list[str]:
        chosen = draw(st.lists(st.sampled_from(pool), min_size=0, max_size=6, unique_by=lambda f: f.name))
        args = [command, "--model", draw(st.sampled_from(["llama-2-7b", "resnet-50", "bert-base-uncased"]))]
        if command == "estimate":
            args += ["--gpu", draw(st.sampled_from(["a10", "h100-sxm:8", "l4:2", "t4"]))]
        else:
            args += ["--gpus", draw(st.sampled_from(["a10", "l4", "a10,t4"]))]
        for f in chosen:
            if f.kind is bool:
                args.append(draw(st.sampled_from([f.flag, "--no-" + f.flag[2:]])))
            else:
                args += [f.flag, draw(_value(f))]
        return [*args, "--json"]

    return build()


def _check(args: list[str], capsys: Any) -> None:
    code, out, err = run_main(capsys, *args)
    assert code in (0, 1, 2), (args, code, err[-2000:])
    assert "Traceback" not in err and "internal error" not in err, (args, err[-2000:])
    if code in (0, 1) and out.strip().startswith(("{", "[")):
        doc = json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(AssertionError(c)))
        assert all_finite(doc), args


FUZZ = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None
)


@seed(20261201)
@FUZZ
@given(args=_args("estimate", ("workload", "hardware", "target")))
def test_fuzz_estimate(args, capsys):
    _check(args, capsys)


@seed(20261202)
@settings(FUZZ, max_examples=60)
@given(args=_args("plan", ("workload", "target", "plan")))
def test_fuzz_plan(args, capsys):
    _check(args, capsys)


def test_the_fuzzer_reaches_rollout_deploy_ops_prices_and_describe_and_finds_nothing():
    """scripts/fuzz_cli.py draws these doors too (roll-out plans of the scanned example hosts, ops
    manifests with odd node names, prices files with prices no rental has, Python files that loop,
    exit or fail to import): none gives a traceback, a hang or an exit code other than 0, 1, 2."""
    fuzz_cli = load_script("fuzz_cli")
    only = ("rollout", "deploy_ops", "prices", "describe")
    tally = fuzz_cli.run(count=80, seed=20261203, db=None, timeout=20, quiet=True, corpus=False, only=only)
    assert (tally.tracebacks, tally.hangs, tally.non_finite_json, tally.bad_exit) == (0, 0, 0, 0), tally.findings
    reached = {k.split(" -> ")[0] for k in tally.by_exit}
    assert {"rollout plan", "rollout status", "deploy ops", "prices", "describe"} <= reached, reached
    assert tally.by_exit["rollout plan -> 0"] > 0 and tally.by_exit["prices -> 0"] > 0  # working ones too
