#!/usr/bin/env bash
# Builds the ASan+UBSan libFuzzer target into build-fuzz/ (clang-14 from Debian) and fuzzes
# parse -> IR -> rules -> fix -> re-parse (tests/fuzz/fuzz_fix.cpp), seeded with every fixture.
#   scripts/fuzz.sh                 # a short run: every seed, then 60 s of fuzzing (the test command)
#   scripts/fuzz.sh -max_total_time=36000 -jobs=2 -workers=2   # a long run; libFuzzer flags pass through
# A finding leaves its input in build-fuzz/findings/ and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
DEBS=(clang-14 libclang-rt-14-dev)
missing=()
for p in "${DEBS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "fuzz: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
PY=python3
[ -x .venv/bin/python ] && PY="$PWD/.venv/bin/python"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DGRAPHMEND_FUZZ=ON -DGRAPHMEND_BUILD_TESTS=OFF -DPython3_EXECUTABLE="$PY" >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target graphmend_fuzz
# The seed corpus: every fixture (inputs and fixed outputs), copied so that libFuzzer may add to it.
mkdir -p build-fuzz/corpus build-fuzz/findings

for f in $(find tests/fixtures -name '*.py'); do cp "$f" "build-fuzz/corpus/$(echo "$f" | tr / _)"; done
ARGS=("$@")
((${#ARGS[@]})) || ARGS=(-max_total_time=60)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec build-fuzz/graphmend_fuzz -timeout=20 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/findings/ "${ARGS[@]}" build-fuzz/corpus
