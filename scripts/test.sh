#!/usr/bin/env bash
# Quick start 2: install, build, and run every test (GoogleTest unit + golden tests, a short
# ASan+UBSan fuzz run, the Python runtime, the CLI, packaging and pre-commit, then the end-to-end
# suite against real torch==2.13.0, which includes one model served from C++ by AOTInductor, and
# a fixed-seed run of the differential fuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each section's header says when it starts, so a slow run shows where its time went.
START=$SECONDS
section() { printf '== [%dm%02ds] %s\n' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)) "$*"; }
section "setup"
scripts/setup.sh
section "build"
scripts/build.sh
section "unit and golden tests (ctest)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
section "fuzzing: ASan+UBSan libFuzzer build (build-fuzz/), every seed, then 15,000 executions (fixed seed: no flaky failure)"
# libFuzzer's progress lines go to a log; its final figures (or, on a finding, the log's end) show.
if scripts/fuzz.sh -seed=1 -runs=15000 > build/fuzz.log 2>&1; then
  grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' build/fuzz.log || true
else
  tail -n 80 build/fuzz.log
  echo "fuzzing found a problem: the input is in build-fuzz/findings/ (see docs/fuzzing.md)"
  exit 1
fi
section "ThreadSanitizer: check and fix on more threads than cores (build-tsan/)"
scripts/tsan.sh > build/tsan.log 2>&1 || { tail -n 80 build/tsan.log; exit 1; }
grep '^graphmend ' build/tsan.log
section "the Python runtime: ruff (default settings, as in a user's package) and its tests"
.venv/bin/ruff check --no-cache --isolated --select E,F,W,I runtime/ python/
.venv/bin/python -m pytest tests/runtime -q -p no:cacheprovider
section "the CLI as a user drives it: formats, configuration, suppression, inputs, CI recipes"
GRAPHMEND_BIN="$PWD/build/graphmend" .venv/bin/python -m pytest tests/cli -q -p no:cacheprovider
section "packaging: the manylinux_2_28 wheel (zig; auditwheel, readelf, objdump), pip install . (g++), cmake --install, pre-commit hooks and the README's configuration"
.venv/bin/python -m pytest tests/packaging -q -p no:cacheprovider
section "the C++ serving harness (bench/serve/harness.cpp against the torch wheel's LibTorch), for tests/e2e/test_serve.py"
GRAPHMEND_SERVE_BIN="$(bash bench/serve/build.sh)"
export GRAPHMEND_SERVE_BIN
section "end-to-end tests with torch $(.venv/bin/python -c 'import torch; print(torch.__version__)')"
# On every core, each worker taking the next test as it frees up (a module's fixtures run once per
# worker that takes one of its tests).
GRAPHMEND_BIN="$PWD/build/graphmend" .venv/bin/python -m pytest tests/e2e -q -p no:cacheprovider \
  -n "$(nproc)" --dist worksteal
section "differential fuzzing: 250 generated programs (seeds 0-249, fixed), before and after fix, compared"
# Eager, compiled with eager and aot_eager, grad off and on (tests/difffuzz, docs/fuzzing.md).
.venv/bin/python tests/difffuzz/differential.py --programs 250 --first-seed 0 --jobs "$(nproc)" \
  --workdir build/difffuzz
section "all passed"
