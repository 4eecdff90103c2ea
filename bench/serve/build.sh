#!/usr/bin/env bash
# Builds the C++ serving harness (bench/serve/harness.cpp) into build-serve/ against the LibTorch
# inside PYTHON's torch wheel (default .venv/bin/python; scripts/setup.sh makes it, torch==2.13.0).
# Prints the harness's path. Incremental: a second run rebuilds nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-$PWD/.venv/bin/python}"
PREFIX="$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')"
# Progress goes to stderr, so that stdout is only the path; a failure shows the compiler's errors.
cmake -S bench/serve -B build-serve -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" >&2
cmake --build build-serve --target graphmend_serve >&2
echo "$PWD/build-serve/graphmend_serve"
