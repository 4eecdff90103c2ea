#!/usr/bin/env bash
# The serving table (bench/RESULTS.md, issue 15): the model rows' environment and pinned weights
# (bench/run_models.sh makes them), graphmend, the C++ harness, then export_rows.py (export before
# and after the fix) and package_rows.py (AOTInductor packages run from C++). Extra arguments go to
# package_rows.py (--rows ROW ...). About 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x bench/.venv/bin/python ] && ls bench/.work/*.pt >/dev/null 2>&1 || bash bench/run_models.sh --no-timing
[ -x build/graphmend ] || bash scripts/build.sh >/dev/null
# The harness links the LibTorch of the same torch==2.13.0 wheel the packages are made with.
harness="$(PYTHON="$PWD/bench/.venv/bin/python" bash bench/serve/build.sh)"
bench/.venv/bin/python bench/serve/export_rows.py
exec bench/.venv/bin/python bench/serve/package_rows.py --harness "$harness" "$@"
