#!/usr/bin/env bash
# The full test suite (slow soak tests included): set up .venv if needed, then pytest
# on both cores (tests marked with one xdist_group run on one worker, so a module's
# expensive fixture is built once). Extra arguments go to pytest, e.g. `-m "not slow"`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -n 2 --dist loadgroup -q "$@"
