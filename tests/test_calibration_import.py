"""`gpuwise calibrate import` and `list` end to end, on SQLite and on a real PostgreSQL server:
the same file twice is one measurement, a bad file stores nothing, a file is stored whole."""

import json
import subprocess
import sys

import pytest

from gpuwise.errors import UsageError
from gpuwise.store import open_store
from gpuwise.store.imported import load, save_file

from .conftest import run_main
from .test_calibration_parsers import MEGATRON, NCCL_NEW, VLLM_NEW


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("clean_postgres")


def listed(capsys, url):
    code, out, _ = run_main(capsys, "calibrate", "list", "--db", url, "--json")
    assert code == 0
    return json.loads(out)


def test_import_list_and_the_same_file_twice(capsys, url):
    code, out, err = run_main(
        capsys, "calibrate", "import", str(VLLM_NEW), "--format", "vllm-bench", "--gpu", "h100-sxm:1", "--db", url
    )
    assert code == 0, err
    assert "imported measurement #1 (vllm-bench" in out and "llama-3.1-8b on 1 x h100-sxm" in out
    assert "TTFT median 78.4 ms" in out
    code, out, _ = run_main(capsys, "calibrate", "import", str(VLLM_NEW), "--format", "vllm-bench",
                            "--gpu", "h100-sxm:1", "--db", url)  # fmt: skip
    assert code == 0 and "already imported" in out and "#1" in out and "nothing added" in out
    code, out, _ = run_main(
        capsys, "calibrate", "import", str(NCCL_NEW), "--format", "nccl-tests", "--db", url, "--json"
    )
    assert code == 0 and json.loads(out)["new"] is True
    rows = listed(capsys, url)
    assert [(r["id"], r["format"], r["model"], r["gpu_id"], r["gpu_count"]) for r in rows] == [
        (1, "vllm-bench", "llama-3.1-8b", "h100-sxm", 1),
        (2, "nccl-tests", None, "h100-sxm", 8),
    ]
    serving = rows[0]
    assert serving["shape"] == {"input_tokens": 1024, "output_tokens": 256, "concurrency": 32}
    assert serving["figures"]["ttft.median"] == pytest.approx(0.07841149397422828)
    assert len(serving["sha256"]) == 64 and serving["source"] == VLLM_NEW.name
    assert serving["measured_at"] == "2025-11-04T14:23:11"


def test_a_bad_file_is_a_clear_error_and_stores_nothing(capsys, url, tmp_path):
    lines = NCCL_NEW.read_text().splitlines()
    lines[25] = "   1048576  262144  float  sum  -1  12.x1  81.2"
    bad = tmp_path / "cut.txt"
    bad.write_text("\n".join(lines))
    code, _, err = run_main(capsys, "calibrate", "import", str(bad), "--format", "nccl-tests", "--db", url)
    assert code == 2 and "cut.txt: line 26: not a result row" in err and "Traceback" not in err
    code, _, err = run_main(capsys, "calibrate", "import", str(MEGATRON), "--format", "megatron-log", "--db", url)
    assert code == 2 and "does not name its model: give --model" in err
    code, _, err = run_main(capsys, "calibrate", "import", str(tmp_path / "none.json"), "--format", "vllm-bench")
    assert code == 2 and "cannot read" in err
    code, _, err = run_main(capsys, "calibrate", "import", str(VLLM_NEW), "--format", "vllm", "--db", url)
    assert code == 2 and "did you mean 'vllm-bench'" in err
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"# nThread 1 nGpus 8 \xe9")
    code, _, err = run_main(capsys, "calibrate", "import", str(latin), "--format", "nccl-tests", "--db", url)
    assert code == 2 and err.count("latin.txt") == 1 and "not UTF-8 text (byte 20)" in err
    doc = json.loads(VLLM_NEW.read_text())
    nan = tmp_path / "nan.json"
    nan.write_text(json.dumps({**doc, "mean_itl_ms": float("nan")}))  # what vLLM writes for no ITL samples
    code, _, err = run_main(capsys, "calibrate", "import", str(nan), "--format", "vllm-bench", "--db", url)
    assert code == 2 and "nan.json: the file: key 'mean_itl_ms': NaN is not a number JSON allows" in err
    assert listed(capsys, url) == []


def test_a_file_is_stored_whole_or_not_at_all(url):
    """Two measurements of one file in one transaction: the second failing leaves no first."""
    good = {"format": "nccl-tests", "kind": "collective", "model": None, "gpu_id": "h100-sxm", "gpu_count": 8,
            "measured_at": None, "shape": {}, "figures": {"busbw": 4.7e11}, "samples": {}, "facts": {}, "notes": []}  # fmt: skip
    broken = {**good, "gpu_id": None}  # NOT NULL: the database refuses it, after the first row went in
    with open_store(url) as store:
        with pytest.raises(UsageError):
            save_file(store, "ab" * 32, "two.txt", [good, broken])
        assert load(store) == []
        saved = save_file(store, "ab" * 32, "two.txt", [good, good])
        assert saved.new and len(saved.ids) == 2 and [m.part for m in load(store)] == [0, 1]


def test_racing_imports_of_one_file_store_it_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'race.db'}"
    with open_store(url):
        pass  # migrated first: the race is about the rows
    args = ["calibrate", "import", str(NCCL_NEW), "--format", "nccl-tests", "--db", url, "--json"]
    procs = [
        subprocess.Popen([sys.executable, "-m", "gpuwise.cli.app", *args], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    answers = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(a["new"] for a in answers).count(True) == 1
    assert {tuple(a["ids"]) for a in answers} == {(1,)}


def test_text_from_a_file_reaches_the_terminal_as_text(capsys, tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    doc = json.loads(VLLM_NEW.read_text())
    doc["model_id"] = "\x1b[2J\x1b]0;owned\x07meta-llama/Llama-3.1-8B\u202e"
    odd = tmp_path / "run\x1b[31m.json"
    odd.write_text(json.dumps(doc))
    code, out, err = run_main(capsys, "calibrate", "import", str(odd), "--format", "vllm-bench", "--gpu", "h100-sxm:1",
                              "--db", url)  # fmt: skip
    assert code == 0, err
    assert "the file's model 'meta-llama/Llama-3.1-8B' is the catalog's llama-3.1-8b" in out
    code, listing, _ = run_main(capsys, "calibrate", "list", "--db", url)
    assert code == 0 and "TTFT median 78.4 ms" in listing
    for text in (out, listing):
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
