#!/usr/bin/env bash
# The environment of the census's second arm: bench/.venv-census5 with torch==2.13.0 (pinned exactly,
# so no CUDA build is ever downloaded) and transformers 5.24.0: the newest 5.x that installs from the
# package index (2026-12-02; 5.25.0 needs kernels>=0.19.1, which the index does not have).
# TRANSFORMERS_5=... picks another. Idempotent. Prints its python.
set -euo pipefail
cd "$(dirname "$0")/../.."
V="${TRANSFORMERS_5:-5.24.0}"
PY=bench/.venv-census5/bin/python
if ! "$PY" -c "import torch, transformers, sys; sys.exit(transformers.__version__ != '$V' or torch.__version__.split('+')[0] != '2.13.0')" 2>/dev/null; then
  python3 -m venv bench/.venv-census5
  "$PY" -m pip install -q --disable-pip-version-check torch==2.13.0 "transformers==$V" matplotlib >&2
fi
echo "$PWD/$PY"
