#!/usr/bin/env bash
# Quick start 2: install, build, and run every test (GoogleTest unit + golden tests, then the
# end-to-end suite against real torch==2.13.0).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
echo "== unit and golden tests (ctest)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
echo "== end-to-end tests with torch $(.venv/bin/python -c 'import torch; print(torch.__version__)')"
GRAPHMEND_BIN="$PWD/build/graphmend" .venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider
