#!/usr/bin/env bash
# Configures and builds graphmend into build/ (Release with debug info, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
# The configure step downloads the pinned sdists with pip; use the venv's pip when present.
PY=python3
[ -x .venv/bin/python ] && PY="$PWD/.venv/bin/python"
cmake -S . -B build -G Ninja -DGRAPHMEND_WERROR=ON -DPython3_EXECUTABLE="$PY" >/dev/null
cmake --build build -j "$(nproc)"
