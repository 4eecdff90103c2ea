#!/usr/bin/env bash
# The model table (bench/RESULTS.md): creates bench/.venv with torch==2.13.0 (pinned exactly, so
# no CUDA build is ever downloaded), transformers==4.52.4 and matplotlib, builds graphmend, then
# runs bench/models/run_table.py. Extra arguments go to run_table.py (--rows, --no-timing; --train:
# one training step of the rows with a [Where] fix, RESULTS.md's `train` section).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! bench/.venv/bin/python -c 'import transformers, torch, matplotlib, sys; sys.exit(transformers.__version__ != "4.52.4" or torch.__version__.split("+")[0] != "2.13.0")' 2>/dev/null; then
  python3 -m venv bench/.venv
  bench/.venv/bin/pip install -q --disable-pip-version-check torch==2.13.0 transformers==4.52.4 matplotlib
fi
[ -x build/graphmend ] || bash scripts/build.sh >/dev/null
exec bench/.venv/bin/python bench/models/run_table.py "$@"
