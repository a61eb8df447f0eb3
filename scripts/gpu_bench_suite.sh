#!/usr/bin/env bash
# The whole benchmark suite on a GPU machine, stored, then the capability matrix as one table.
#   bash scripts/gpu_bench_suite.sh [DB_URL]     (default: a SQLite file in ./artifacts)
# Needs: pip install -e '.[bench]' (PyTorch with CUDA). All-reduce uses every local GPU via
# spawned ranks; for several nodes run `torchrun ... -m gpuwise.cli.app bench allreduce` instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p artifacts
DB="${1:-sqlite:///$(pwd)/artifacts/gpu-bench.db}"
python -c "import torch; assert torch.cuda.is_available(), 'no CUDA device visible'; print(torch.cuda.get_device_name(0))"
gpuwise bench all --device cuda --db "$DB" --json > artifacts/gpu-bench.json
gpuwise bench all --device cuda --db "$DB"   # a second run: the matrix shows medians
gpuwise matrix --db "$DB"
gpuwise matrix --db "$DB" --json > artifacts/gpu-matrix.json
echo "results: artifacts/gpu-bench.json, artifacts/gpu-matrix.json ($DB)"
