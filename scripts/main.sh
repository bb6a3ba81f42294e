#!/usr/bin/env bash
# The main job with its defaults: set up .venv if needed, then run `zolik main`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/zolik main "$@"
