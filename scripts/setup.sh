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
# The web table's browser test drives the OS's Chromium (Debian's package) with Playwright.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing chromium (the web table's browser test)" >&2
    SUDO=(); [[ "$(id -u)" != 0 ]] && SUDO=(sudo -n)
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null \
        || { "${SUDO[@]}" apt-get update -q >/dev/null \
             && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; } \
        || echo "[setup] warning: could not install chromium; the browser test will fail" >&2
fi
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
    exit 0
fi
if [[ ! -x "$VENV/bin/python" ]]; then
    PYTHON="${PYTHON:-python3}"
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        echo "[setup] error: $PYTHON not found: install Python >= 3.11 (or set PYTHON=/path/to/python3.11)" >&2
        exit 1
    fi
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        echo "[setup] error: $("$PYTHON" -V 2>&1) is too old: install Python >= 3.11 (or set PYTHON=/path/to/python3.11)" >&2
        exit 1
    fi
    if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        echo "[setup] error: $PYTHON has no working venv module: install it (Debian/Ubuntu: apt install python3-venv)" >&2
        exit 1
    fi
    echo "[setup] creating $VENV" >&2
    "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
echo "[setup] installing torch==2.13.0 (CPU build)" >&2
"${PIP[@]}" "torch==2.13.0"
echo "[setup] installing zolik with training, web table, Ray, benchmark, OpenSpiel and test extras" >&2
"${PIP[@]}" -e ".[train,play,ray,bench,openspiel,dev]"
echo "$want" > "$STAMP"
echo "[setup] done" >&2
