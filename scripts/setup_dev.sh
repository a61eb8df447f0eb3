#!/usr/bin/env bash
# Everything the test suite needs, on a fresh Debian machine or an old checkout; quick when all is
# there already. Then `.venv/bin/pytest -q` runs every test but the GPU-only ones.
#   - Debian's chromium (the browser tests), prometheus (promtool checks the alert rules; a real
#     server scrapes the exporter), postgresql (the store tests start a throw-away server of
#     their own, tests/conftest.py) and slurm-wlm with munge (the deploy tests start a throw-away
#     two-node Slurm, tests/slurm_cluster.py), installed with apt-get where missing (needs root);
#   - .venv-skypilot: SkyPilot in an environment of its own (its pins of uvicorn and click would
#     downgrade the dev environment's); the tests parse the generated tasks with its sky.Task;
#   - .venv with the CPU build of torch (torch==2.13.0: asked for by a range instead, pip takes a
#     CUDA build of several GB), then gpuwise itself with its dev extras.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {  # apt_install [apt-get options] PACKAGE...
  if [ "$(id -u)" != 0 ]; then
    echo "setup_dev: installing ${*: -1} needs root: sudo apt-get install ${*: -1}" >&2
    exit 1
  fi
  if [ -z "${APT_UPDATED:-}" ]; then
    apt-get update -qq
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

command -v chromium >/dev/null || apt_install chromium
{ command -v promtool && command -v prometheus; } >/dev/null || apt_install --no-install-recommends prometheus
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || apt_install --no-install-recommends postgresql
{ [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/munged ]; } || apt_install --no-install-recommends slurm-wlm munge
# a CJK font for the Chinese report's screenshot test (--lang zh rendered in Chromium)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || apt_install --no-install-recommends fonts-noto-cjk

[ -x .venv/bin/python ] || python3 -m venv .venv
has() { .venv/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('$1').split('+')[0] != '$2')" 2>/dev/null; }
has torch 2.13.0 || .venv/bin/pip install -q 'torch==2.13.0'

# gpuwise and its dev extras: again only when pyproject.toml changed since the last install here
stamp=.venv/.gpuwise-dev-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || ! .venv/bin/python -c "import gpuwise" 2>/dev/null; then
  .venv/bin/pip install -q -e '.[dev]'
  echo "$want" >"$stamp"
fi

# SkyPilot for the tests that parse the generated tasks (the optional extra `gpuwise[skypilot]`)
[ -x .venv-skypilot/bin/python ] || python3 -m venv .venv-skypilot
.venv-skypilot/bin/python -c "import sky" 2>/dev/null || .venv-skypilot/bin/pip install -q 'skypilot==0.14.1'
