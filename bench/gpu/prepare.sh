#!/usr/bin/env bash
# Prepares the GPU check of issue 15 for a lent device machine (bench/gpu/device.sh runs it there).
# The device machine has python3 with a CUDA torch, CMake, ninja and nvcc, but no network, no
# graphmend build and no CLI11; so this, run here, puts what it needs in .device/ (ignored by git,
# named in the device tool's `carry`, about 20 MiB):
#   wheels/           transformers==4.52.4 (the model table's version) and the two packages whose
#                     versions it pins (huggingface-hub, tokenizers), for CPython 3.12 on x86-64
#   patched.tar.gz    the files `graphmend fix --unsafe-fixes` writes into transformers 4.52.4
#                     (the model table's patched copy), laid over a fresh copy there
#   patched-example/  the bundled example, patched by plain `graphmend fix`
#   cli11/            CLI11's headers and a CMake package for them (the harness's argument parser)
# Idempotent; reruns rebuild .device/ from scratch.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/graphmend ] || bash scripts/build.sh >/dev/null
[ -x .venv/bin/python ] || bash scripts/setup.sh
D=.device
rm -rf "$D" && mkdir -p "$D/wheels" "$D/cli11/lib/cmake/CLI11" "$D/cli11/include"
grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude

python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any -d "$D/wheels" \
  transformers==4.52.4 huggingface-hub==0.36.0 tokenizers==0.21.4

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r .venv/lib/python3.11/site-packages/transformers "$work/transformers"
build/graphmend fix --fix-generated --unsafe-fixes --output-format json "$work/transformers" > "$work/report.json" || [ $? -eq 1 ]
.venv/bin/python - "$work" <<'PY'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
report = json.loads((work / "report.json").read_text())
assert not report["errors"], report["errors"]
root = work / "transformers"
written = {pathlib.Path(f["filename"]).resolve() for f in report["files"] if f["written"]}
written |= {pathlib.Path(f["filename"]).resolve() for f in report.get("runtime_files", []) if f["written"]}
(work / "written.txt").write_text("".join(str(p.relative_to(root.parent)) + "\n" for p in sorted(written)))
print(f"prepare: {len(written)} files written by graphmend fix --unsafe-fixes", file=sys.stderr)
PY
tar -czf "$D/patched.tar.gz" -C "$work" -T "$work/written.txt"

mkdir -p "$D/patched-example"
cp -r examples/tiny_transformer "$D/patched-example/"
build/graphmend fix "$D/patched-example/tiny_transformer" >/dev/null || [ $? -eq 1 ]

cp -r /usr/include/CLI "$D/cli11/include/"
cat > "$D/cli11/lib/cmake/CLI11/CLI11Config.cmake" <<'CMAKE'
# CLI11 (header only), carried to the device machine by bench/gpu/prepare.sh.
if(NOT TARGET CLI11::CLI11)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_CURRENT_LIST_DIR}/../../../include")
endif()
set(CLI11_FOUND TRUE)
CMAKE
du -sh "$D" >&2
