#!/usr/bin/env bash
# Quick start 1: pip-install graphmend from this checkout into a virtual environment, then run it
# on the bundled example model. Installs what it needs; safe to re-run (the build is incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
GRAPHMEND_NO_VENV=1 scripts/setup.sh
VENV=build/demo-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
echo "== pip install . (builds the binary once; later runs reuse build/wheel)"
SKBUILD_BUILD_DIR="$PWD/build/wheel" "$VENV/bin/pip" install -q --disable-pip-version-check .
export PATH="$PWD/$VENV/bin:$PATH"
echo "== graphmend check examples/tiny_transformer"
graphmend check examples/tiny_transformer || true
echo
echo "== graphmend fix --diff examples/tiny_transformer (prints fixes as a diff; writes nothing)"
echo "   (sites declined or out of scope are listed after the diff, each with its reason)"
graphmend fix --diff examples/tiny_transformer || true
