#!/usr/bin/env bash
# The full test suite (slow soak tests included): set up .venv if needed, then pytest
# on both cores. Extra arguments go to pytest, e.g. `-m "not slow"` for the quick run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -n 2 -q "$@"
