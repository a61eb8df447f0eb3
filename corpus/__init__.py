"""What gpuwise is held to, shared by the tests and the scripts: published measurements (memory,
training time, serving, operators) with their sources, real Hugging Face configs, the malformed-file
corpus, and the harnesses that compare gpuwise's estimates with the published figures.

It lives outside `tests/` because scripts (`scripts/accuracy.py`, the fits, the fuzzer) and shipped
files (the catalog's fitted values name their cases) depend on it, and outside `src/` because it is
not part of the installed package. Pytest puts the repository root on the path (`pythonpath` in
pyproject.toml); scripts, run from the repository root, put it there themselves."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
HF_CONFIGS = DATA / "hf_configs"
HOSTILE = DATA / "hostile"
