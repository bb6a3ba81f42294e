#!/usr/bin/env bash
# Create or refresh the project's virtual environment in .venv.
# Idempotent: re-running only reinstalls when pyproject.toml changed.
# torch is pinned to the CPU build 2.13.0 and installed *before* anything that
# depends on it, so no package can pull a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
STAMP="$VENV/.zolik-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
    exit 0
fi
if [[ ! -x "$VENV/bin/python" ]]; then
    echo "[setup] creating $VENV" >&2
    python3 -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
echo "[setup] installing torch==2.13.0 (CPU build)" >&2
"${PIP[@]}" "torch==2.13.0"
echo "[setup] installing zolik with training and test extras" >&2
"${PIP[@]}" -e ".[train,dev]"
echo "$want" > "$STAMP"
echo "[setup] done" >&2
