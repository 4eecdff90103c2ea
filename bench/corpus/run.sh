#!/usr/bin/env bash
# The corpus sweep of issue 12: graphmend fix --unsafe-fixes, twice, over transformers 4.52.4 and
# 5.23.0, torch 2.13.0's own Python sources and diffusers 0.42.1 (bench/corpus/sweep.py). The
# packages are fetched as wheels with pip (no dependencies, nothing imported) into
# bench/.work/corpus; torch comes from the project's .venv (scripts/setup.sh). A few minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .venv/bin/python ] || scripts/setup.sh
[ -x build/graphmend ] || scripts/build.sh >/dev/null
W=bench/.work/corpus
mkdir -p "$W"
fetch() {  # NAME==VERSION -> unpacked into $W/<name>-<version>
  local dir="$W/${1/==/-}"
  if [ ! -d "$dir" ]; then
    .venv/bin/pip download -q --disable-pip-version-check --no-deps --only-binary=:all: "$1" -d "$W/wheels"
    mkdir -p "$dir"
    .venv/bin/python -m zipfile -e "$(ls "$W"/wheels/"${1%%==*}"-"${1##*==}"-*.whl)" "$dir"
  fi
}
fetch transformers==4.52.4
fetch transformers==5.23.0
fetch diffusers==0.42.1
SITE=$(.venv/bin/python -c 'import torch, pathlib; print(pathlib.Path(torch.__file__).parent)')
exec .venv/bin/python bench/corpus/sweep.py "$@" \
  "transformers 4.52.4=$W/transformers-4.52.4/transformers" \
  "transformers 5.23.0=$W/transformers-5.23.0/transformers" \
  "torch 2.13.0=$SITE" \
  "diffusers 0.42.1=$W/diffusers-0.42.1/diffusers"
