#!/usr/bin/env bash
# The GPU check of issue 15, for a lent device machine, in one command (about 7 minutes on an
# H100-class GPU; each step has its own time limit, so the script ends well inside 9):
#   here:   bash bench/gpu/prepare.sh            (makes .device/: wheels, patched files, CLI11)
#   device: bash bench/gpu/device.sh             (with .device carried; writes into $OUT)
# Steps: install the carried wheels (transformers 4.52.4) into the device's python3; lay the
# patched files over a copy of that transformers; build the C++ harness against the device's CUDA
# LibTorch (in the background); bench/gpu/bench_gpu.py --device cuda (CUDA graphs captured or
# not and why, host ops, syncs, cold and warm latency; original, in-graph and epilogue arms);
# then bench/serve/package_rows.py --device cuda for the bundled example and t5-small (export,
# AOTInductor package for CUDA, C++ run, bit-for-bit check). Results: bench/results/gpu_cuda.*
# and serve_cuda.*, copied to $OUT with the logs.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$PWD/bench/results}"
PY="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1
[ -d .device/wheels ] || { echo "device.sh: no .device/ (run bench/gpu/prepare.sh here, carry .device)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu_device.txt"

"$PY" -m pip install -q --no-index --no-deps --no-cache-dir .device/wheels/*.whl || exit 2
"$PY" -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' \
  | tee -a "$OUT/gpu_device.txt"
site=/tmp/graphmend-patched
rm -rf "$site" && mkdir -p "$site"
cp -r "$("$PY" -c 'import transformers, os; print(os.path.dirname(transformers.__file__))')" "$site/transformers"
tar -xzf .device/patched.tar.gz -C "$site"

# The harness builds while the Python benchmark runs.
(PYTHON="$PY" CMAKE_PREFIX_PATH="$PWD/.device/cli11" timeout 400 bash bench/serve/build.sh \
   > /tmp/harness.path 2> "$OUT/serve_build.log"; echo $? > /tmp/harness.rc) &
builder=$!

timeout 330 "$PY" bench/gpu/bench_gpu.py --device cuda --patched-site "$site" --write 2>&1 | tee "$OUT/gpu_bench.log"
wait "$builder"
if [ "$(cat /tmp/harness.rc)" = 0 ]; then
  # t5-small's weights: any fixed set will do; eager, export and the package all load the same.
  mkdir -p bench/.work
  [ -f bench/.work/t5-small.pt ] || "$PY" -c "
import sys, torch; sys.path.insert(0, 'bench/models')
from registry import build
torch.manual_seed(0); model, _ = build('t5-small'); torch.save(model.state_dict(), 'bench/.work/t5-small.pt')"
  timeout 200 "$PY" bench/serve/package_rows.py --device cuda --rows t5-small --harness "$(cat /tmp/harness.path)" \
    --patched-site "$site" --patched-example .device/patched-example 2>&1 | tee "$OUT/serve_cuda.log"
else
  echo "device.sh: the harness did not build (serve_build.log)"
fi
for f in bench/results/gpu_cuda.json bench/results/gpu_cuda.md bench/results/serve_cuda.json bench/results/serve_cuda.md; do
  [ -f "$f" ] && [ "$OUT" != "$PWD/bench/results" ] && cp "$f" "$OUT/"
done
exit 0
