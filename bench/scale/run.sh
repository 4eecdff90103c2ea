#!/usr/bin/env bash
# Time and memory of graphmend against the size of one file, for the shapes of issue 12 (one
# statement repeated, distinct names, print sites, an elif chain, consecutive [Where] sites, an
# `and` chain, many compiled functions): bench/scale/shapes.py. Creates bench/.venv-scale
# (matplotlib only), builds graphmend, writes bench/results/scale.{json,png} and the scale section
# of bench/RESULTS.md. About 10 minutes on 2 cores; run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! bench/.venv-scale/bin/python -c 'import matplotlib' 2>/dev/null; then
  python3 -m venv bench/.venv-scale
  bench/.venv-scale/bin/pip install -q --disable-pip-version-check matplotlib==3.11.2
fi
[ -x build/graphmend ] || scripts/build.sh >/dev/null
exec bench/.venv-scale/bin/python bench/scale/shapes.py "$@"
