#!/usr/bin/env bash
# Makes the wild census's environment (issue 49), idempotently, and prints its python:
#   a virtual environment (default /work/venv-tv, or $1) with torch 2.14.1 and torchvision 0.29.1,
#   then timm, diffusers, x-transformers, vector-quantize-pytorch and matplotlib, pinned.
# The torch/torchvision wheels the index serves are CUDA builds: they load and run on CPU without a
# GPU. A constraints file keeps pip from replacing either while it installs the libraries.
set -euo pipefail
VENV="${1:-/work/venv-tv}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "wild setup: creating $VENV" >&2
  python3 -m venv "$VENV"
fi
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
printf 'torch==2.14.1\ntorchvision==0.29.1\n' > "$constraints"
if ! "$VENV/bin/python" -c 'import torch, torchvision, sys; sys.exit(torch.__version__.split("+")[0] != "2.14.1" or torchvision.__version__.split("+")[0] != "0.29.1")' 2>/dev/null; then
  echo "wild setup: installing torch==2.14.1 torchvision==0.29.1 into $VENV" >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check torch==2.14.1 torchvision==0.29.1 >&2
fi
LIBS=(timm==1.0.31 diffusers==0.42.1 x-transformers==2.31.10 vector-quantize-pytorch==1.32.0 matplotlib==3.11.2)
if ! "$VENV/bin/python" - "${LIBS[@]}" <<'PY' 2>/dev/null
import importlib.metadata as md, sys
sys.exit(any(md.version(n.split("==")[0]) != n.split("==")[1] for n in sys.argv[1:]))
PY
then
  echo "wild setup: installing ${LIBS[*]} into $VENV" >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check -c "$constraints" "${LIBS[@]}" >&2
fi
echo "$VENV/bin/python"
