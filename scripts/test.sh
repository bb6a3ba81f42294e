#!/usr/bin/env bash
# The full test suite (slow soak tests included): set up .venv if needed, then pytest
# on both cores. Extra arguments go to pytest, e.g. `-m "not slow"` for the quick run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Compile the core's kernels, the hand search's, the features' and the planner's once (or load them
# from the on-disk cache) before the test workers start: otherwise each worker would
# compile them on a fresh checkout.
.venv/bin/python -c "from zolik_env.rummy.game import compile_kernels; compile_kernels()
from agents.features.hand_features import compile_kernels as compile_features; compile_features()
from agents.planner.planner import compile_kernels as compile_planner; compile_planner()"
exec .venv/bin/python -m pytest -n 2 -q "$@"
