#!/usr/bin/env bash
# Speed, memory and patch footprint of graphmend against ruff, measured in one run on the same trees
# (the installed transformers==4.52.4 and 10,000 generated modules): bench/speed.py. Creates
# bench/.venv (torch pinned exactly so no CUDA build is downloaded, transformers==4.52.4,
# ruff==0.17.6), builds graphmend, writes bench/results/speed.json and the speed section of
# bench/RESULTS.md. Run on an otherwise idle machine: this VM's timings vary by up to 2x.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! bench/.venv/bin/python -c 'import transformers, sys; sys.exit(transformers.__version__ != "4.52.4")' 2>/dev/null; then
  python3 -m venv bench/.venv
  bench/.venv/bin/pip install -q --disable-pip-version-check torch==2.13.0 transformers==4.52.4
fi
if [ "$(bench/.venv/bin/ruff --version 2>/dev/null)" != "ruff 0.17.6" ]; then
  bench/.venv/bin/pip install -q --disable-pip-version-check ruff==0.17.6
fi
[ -x build/graphmend ] || scripts/build.sh >/dev/null
cmake --build build --target graphmend_parse_floor >/dev/null
exec bench/.venv/bin/python bench/speed.py --ruff bench/.venv/bin/ruff "$@"
