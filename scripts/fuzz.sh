#!/usr/bin/env bash
# Builds the libFuzzer target with ASan and UBSan into build-fuzz/ (clang-14 from Debian) and
# fuzzes parse -> IR -> rules -> fix -> re-parse (tests/fuzz/fuzz_fix.cpp), seeded with every fixture.
#   scripts/fuzz.sh                      # every seed, then 60 s of fuzzing (the test command runs this)
#   scripts/fuzz.sh -max_total_time=3600 -fork=2   # longer; libFuzzer flags pass through
#   FUZZ_SANITIZERS=0 scripts/fuzz.sh ...          # without ASan/UBSan (build-fuzz-fast/): ~10x the
#                                                  # executions per second, for long runs
# A finding leaves its input in <build>/findings/ and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/debs.sh
install_debs fuzz clang-14 libclang-rt-14-dev
PY=python3
[ -x .venv/bin/python ] && PY="$PWD/.venv/bin/python"
SAN="${FUZZ_SANITIZERS:-1}"
B=build-fuzz
[ "$SAN" = 1 ] || B=build-fuzz-fast
SANITIZERS=ON
[ "$SAN" = 1 ] || SANITIZERS=OFF
cmake -S . -B "$B" -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DGRAPHMEND_FUZZ=ON -DGRAPHMEND_FUZZ_SANITIZERS="$SANITIZERS" -DGRAPHMEND_BUILD_TESTS=OFF \
  -DPython3_EXECUTABLE="$PY" >/dev/null
cmake --build "$B" -j "$(nproc)" --target graphmend_fuzz
# The seed corpus: every fixture (inputs and fixed outputs) and every input a fuzz run once found
# (tests/fuzz/regressions), copied so that libFuzzer may add to it.
mkdir -p "$B/corpus" "$B/findings"

for f in $(find tests/fixtures tests/fuzz/regressions -name '*.py'); do cp "$f" "$B/corpus/$(echo "$f" | tr / _)"; done
ARGS=("$@")
((${#ARGS[@]})) || ARGS=(-max_total_time=60)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# From inside the build folder: with -jobs, libFuzzer writes its fuzz-N.log files to the working folder.
cd "$B"
exec tests/fuzz/graphmend_fuzz -timeout=20 -rss_limit_mb=4096 -max_len=16384 -print_final_stats=1 \
  -artifact_prefix=findings/ "${ARGS[@]}" corpus
