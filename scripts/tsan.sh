#!/usr/bin/env bash
# ThreadSanitizer over the driver's parallel stages (reading, parameter evidence, checking,
# fixing, writing): graphmend built with -fsanitize=thread into build-tsan/, then check,
# fix --diff and fix --unsafe-fixes with more threads than cores over a copy of every fixture and
# e2e program, laid out as a package so that the runtime file is written too. Any report fails
# the run (TSAN's exit status 66); findings left in the files (exit 1) are expected.
#   scripts/tsan.sh            (about 3 minutes on 2 cores, most of it the build)
# Last, a check of some of those files with the cache on: the others are deferred (built when
# first read), and several threads build them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/debs.sh
install_debs tsan libtsan2  # g++ brings it; named for a machine where it does not
PY=python3
[ -x .venv/bin/python ] && PY="$PWD/.venv/bin/python"
B=build-tsan
# The pinned tree-sitter sources are reused from the main build when it has them.
DEPS=()
[ -d build/_deps ] && DEPS=(-DGM_THIRD_PARTY_CACHE="$PWD/build/_deps")
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAPHMEND_BUILD_TESTS=OFF \
  -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_CXX_FLAGS=-fsanitize=thread \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DPython3_EXECUTABLE="$PY" "${DEPS[@]}" >/dev/null
cmake --build "$B" --target graphmend -j "$(nproc)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree/pkg"
cp -r tests/fixtures tests/e2e "$work/tree/pkg/"
find "$work/tree" -type d -exec touch {}/__init__.py \;
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
jobs=$(( $(nproc) * 2 ))
run() {
  local status=0
  "$B/graphmend" "$@" -j "$jobs" --isolated --no-summary --output-format concise "$work/tree" > "$work/out" 2> "$work/err" ||
    status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    cat "$work/err"
    echo "ThreadSanitizer: graphmend $* exited with $status"
    exit 1
  fi
  echo "graphmend $* -j $jobs: no report ($(wc -l < "$work/out") lines of output)"
}
run check --no-cache
run fix --diff --unsafe-fixes
run fix --unsafe-fixes
run check --no-cache

# A check of some files with the cache that a check of all of them filled, its call evidence
# removed: the other files stand in with their summaries, and the threads that type the compiled
# calls build them, several at once, as they read them.
printf '[project]\nname = "t"\n' > "$work/tree/pyproject.toml"
"$B/graphmend" check -j "$jobs" --cache-dir "$work/cache" --no-summary --output-format concise "$work/tree" \
  > /dev/null 2> "$work/err" || [ $? -eq 1 ] || { cat "$work/err"; exit 1; }
rm "$work/cache/evidence-v1"
status=0
mapfile -t named < <(find "$work/tree/pkg/fixtures" -name '*.py')  # files, not a folder: the project is their context
GRAPHMEND_PHASES=1 "$B/graphmend" check -j "$jobs" --cache-dir "$work/cache" --no-summary --output-format concise \
  "${named[@]}" > "$work/out" 2> "$work/err" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
  cat "$work/err"
  echo "ThreadSanitizer: graphmend check of some files with the cache exited with $status"
  exit 1
fi
deferred=$(grep '^graphmend-deferred ' "$work/err" || true)
[[ "$deferred" =~ built=[1-9] ]] || { cat "$work/err"; echo "no deferred module was built"; exit 1; }
echo "graphmend check of some files, the rest deferred, -j $jobs: no report ($deferred)"
