#!/usr/bin/env bash
# Speed and memory of `graphmend check` over the whole installed transformers package
# (transformers==4.52.4, the paper's version) in bench/.venv. Prints the summary line, wall time
# and peak RSS. Run on an otherwise idle machine; the VM's timings vary by up to 2x.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! bench/.venv/bin/python -c 'import transformers, sys; sys.exit(transformers.__version__ != "4.52.4")' 2>/dev/null; then
  python3 -m venv bench/.venv
  # torch pinned exactly so transformers' requirement never pulls a CUDA build.
  bench/.venv/bin/pip install -q --disable-pip-version-check torch==2.13.0 transformers==4.52.4
fi
[ -x build/graphmend ] || scripts/build.sh >/dev/null
TF=$(bench/.venv/bin/python -c 'import os, transformers; print(os.path.dirname(transformers.__file__))')
echo "corpus: $TF ($(find "$TF" -name '*.py' | wc -l) files, $(find "$TF" -name '*.py' -print0 | xargs -0 cat | wc -l) lines)"
/usr/bin/time -f "wall %e s, peak RSS %M KB" ./build/graphmend check --output-format concise "$TF" 2>&1 >/dev/null | tail -1
./build/graphmend check --output-format concise "$TF" | tail -1 || true
