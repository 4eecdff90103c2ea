#!/usr/bin/env bash
# Quick start 2: install, build, and run every test (GoogleTest unit + golden tests, a short
# ASan+UBSan fuzz run, the Python runtime, the CLI, packaging and pre-commit, then the end-to-end
# suite against real torch==2.13.0, which includes one model served from C++ by AOTInductor, and
# a fixed-seed run of the differential fuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
echo "== unit and golden tests (ctest)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
echo "== fuzzing: ASan+UBSan libFuzzer build (build-fuzz/), every seed, then 15,000 executions (fixed seed: no flaky failure)"
# libFuzzer's progress lines go to a log; its final figures (or, on a finding, the log's end) show.
if scripts/fuzz.sh -seed=1 -runs=15000 > build/fuzz.log 2>&1; then
  grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' build/fuzz.log || true
else
  tail -n 80 build/fuzz.log
  echo "fuzzing found a problem: the input is in build-fuzz/findings/ (see docs/fuzzing.md)"
  exit 1
fi
echo "== ThreadSanitizer: check and fix on more threads than cores (build-tsan/)"
scripts/tsan.sh > build/tsan.log 2>&1 || { tail -n 80 build/tsan.log; exit 1; }
grep '^graphmend ' build/tsan.log
echo "== the Python runtime: ruff (default settings, as in a user's package) and its tests"
.venv/bin/ruff check --no-cache --isolated --select E,F,W,I runtime/ python/
.venv/bin/python -m pytest tests/runtime -q -p no:cacheprovider
echo "== the CLI as a user drives it: formats, configuration, suppression, inputs, CI recipes"
GRAPHMEND_BIN="$PWD/build/graphmend" .venv/bin/python -m pytest tests/cli -q -p no:cacheprovider
echo "== packaging: the manylinux_2_28 wheel (zig; auditwheel, readelf, objdump), pip install . (g++), cmake --install, pre-commit hooks and the README's configuration"
.venv/bin/python -m pytest tests/packaging -q -p no:cacheprovider
echo "== the C++ serving harness (bench/serve/harness.cpp against the torch wheel's LibTorch), for tests/e2e/test_serve.py"
GRAPHMEND_SERVE_BIN="$(bash bench/serve/build.sh)"
export GRAPHMEND_SERVE_BIN
echo "== end-to-end tests with torch $(.venv/bin/python -c 'import torch; print(torch.__version__)')"
# On every core, each worker taking the next test as it frees up (a module's fixtures run once per
# worker that takes one of its tests).
GRAPHMEND_BIN="$PWD/build/graphmend" .venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider \
  -n "$(nproc)" --dist worksteal
echo "== differential fuzzing: 250 generated programs (seeds 0-249, fixed), before and after fix, compared"
# Eager, compiled with eager and aot_eager, grad off and on (tests/difffuzz, docs/fuzzing.md).
.venv/bin/python tests/difffuzz/differential.py --programs 250 --first-seed 0 --jobs "$(nproc)" \
  --workdir build/difffuzz
