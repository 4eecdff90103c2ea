#!/usr/bin/env bash
# Quick start 1: install, build, and run graphmend on the bundled example model.
set -euo pipefail
cd "$(dirname "$0")/.."
GRAPHMEND_NO_VENV=1 scripts/setup.sh
scripts/build.sh >/dev/null
echo "== graphmend check examples/tiny_transformer"
./build/graphmend check examples/tiny_transformer || true
echo
echo "== graphmend fix --diff examples/tiny_transformer (prints fixes as a diff; writes nothing)"
echo "   (sites declined or out of scope are listed after the diff, each with its reason)"
./build/graphmend fix --diff examples/tiny_transformer || true
