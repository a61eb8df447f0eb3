#!/usr/bin/env bash
# Everything the test suite needs, on a fresh Debian machine or an old checkout; quick when all is
# there already. Then `.venv/bin/pytest -q` runs every test but the GPU-only ones.
#   - Debian's chromium (the browser tests), prometheus (promtool checks the alert rules; a real
#     server scrapes the exporter), postgresql (the store tests start a throw-away server of
#     their own, tests/conftest.py) and slurm-wlm with munge (the deploy tests start a throw-away
#     two-node Slurm, tests/slurm_cluster.py), installed with apt-get where missing (needs root;
#     without root or apt-get it names the packages and the command, and stops);
#   - .venv-skypilot: SkyPilot in an environment of its own (its pins of uvicorn and click would
#     downgrade the dev environment's); the tests parse the generated tasks with its sky.Task;
#   - .venv with the CPU build of torch (torch==2.13.0: asked for by a range instead, pip takes a
#     CUDA build of several GB), then gpuwise itself with its dev extras.
# Each step says what it does and why before it runs (the pip steps take minutes on a first run).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { echo "setup_dev: $*"; }

# ----- Debian packages: which are missing, each with the reason the tests need it -----
missing=() why=()
need() {  # need PACKAGE REASON: PACKAGE is missing
  missing+=("$1")
  why+=("  $1: $2")
}
command -v chromium >/dev/null || need chromium "the browser tests (web UI, HTML report)"
{ command -v promtool && command -v prometheus; } >/dev/null || need prometheus "promtool checks the alert rules; a real server scrapes the exporter"
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need postgresql "the store tests start a throw-away PostgreSQL"
{ [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ]; } || need slurm-wlm "the deploy tests start a throw-away two-node Slurm"
[ -x /usr/sbin/munged ] || need munge "Slurm's authentication, for the same cluster"
# grep reads all of fc-list: with -q it stops early, and under pipefail the SIGPIPE reads as missing
fc-list 2>/dev/null | grep -i "Noto Sans CJK" >/dev/null || need fonts-noto-cjk "a CJK font for the Chinese report's screenshot test"
{ [ -x .venv/bin/python ] && [ -x .venv-skypilot/bin/python ]; } || python3 -c "import ensurepip, venv" 2>/dev/null \
  || need python3-venv "python3 -m venv makes .venv and .venv-skypilot"

# chromium with its recommended packages (fonts, codecs), the rest without theirs
plain=() lean=()
for p in "${missing[@]}"; do if [ "$p" = chromium ]; then plain+=("$p"); else lean+=("$p"); fi; done
commands=()
[ ${#plain[@]} -eq 0 ] || commands+=("apt-get install -y ${plain[*]}")
[ ${#lean[@]} -eq 0 ] || commands+=("apt-get install -y --no-install-recommends ${lean[*]}")
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    cause=$([ "$(id -u)" != 0 ] && echo "installing them needs root" || echo "apt-get is not available here")
    {
      echo "setup_dev: the tests need these Debian packages, missing here; $cause:"
      printf '%s\n' "${why[@]}"
      echo "Install them as root (on Debian or Ubuntu), then run this script again:"
      echo "  apt-get update"
      printf '  %s\n' "${commands[@]}"
    } >&2
    exit 1
  fi
  step "installing the Debian packages the tests need with apt-get: ${missing[*]}"
  printf '%s\n' "${why[@]}"
  apt-get update -qq
  for c in "${commands[@]}"; do DEBIAN_FRONTEND=noninteractive $c -qq >/dev/null; done
fi
step "Debian packages: all there (chromium, prometheus, postgresql, slurm-wlm, munge, fonts-noto-cjk)"

# ----- .venv: the CPU build of torch, then gpuwise with its dev extras -----
if [ ! -x .venv/bin/python ]; then
  step "creating .venv (python3 -m venv)"
  python3 -m venv .venv
fi
has() { .venv/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('$1').split('+')[0] != '$2')" 2>/dev/null; }
if has torch 2.13.0; then
  step "torch 2.13.0: there"
else
  step "installing torch 2.13.0 into .venv (the CPU build the bench and describe tests run; a few minutes)"
  .venv/bin/pip install -q 'torch==2.13.0'
fi

# gpuwise and its dev extras: again only when pyproject.toml changed since the last install here
stamp=.venv/.gpuwise-dev-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || ! .venv/bin/python -c "import gpuwise" 2>/dev/null; then
  step "installing gpuwise and its dev extras into .venv (pip install -e '.[dev]': pytest, ruff, mypy, the web, store, ops and deploy libraries)"
  .venv/bin/pip install -q -e '.[dev]'
  echo "$want" >"$stamp"
else
  step "gpuwise with its dev extras: installed for this pyproject.toml"
fi

# SkyPilot for the tests that parse the generated tasks (the optional extra `gpuwise[skypilot]`)
if [ ! -x .venv-skypilot/bin/python ]; then
  step "creating .venv-skypilot (SkyPilot pins uvicorn and click apart from the dev environment)"
  python3 -m venv .venv-skypilot
fi
if .venv-skypilot/bin/python -c "import sky" 2>/dev/null; then
  step "SkyPilot: there"
else
  step "installing skypilot 0.14.1 into .venv-skypilot (the deploy tests parse the generated tasks with it)"
  .venv-skypilot/bin/pip install -q 'skypilot==0.14.1'
fi
step "done: run .venv/bin/pytest -q"
