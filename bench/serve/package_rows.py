"""AOTInductor packages of the patched model rows, run from C++ (issue 15, items 3 to 5).

    bash bench/serve/run.sh [--rows ROW ...]     # builds build-serve/ and runs this script

For each row that plain `graphmend fix` fully fixes, and the bundled example (patched the same
way), in its own process with the pinned weights (bench/.work/<row>.pt)
and under torch.no_grad(): export it (non-strict, else strict), package it with
torch._inductor.aoti_compile_and_package into bench/.work/serve/<row>.pt2, and save beside it the
flattened inputs and eager's flattened outputs (<row>.io.pt); time eager and torch.compile
(Inductor) warm calls in Python. Then bench/serve's C++ harness (graphmend_serve, LibTorch only)
loads each package, checks its outputs against eager's bit for bit and times load, first call and
warm calls. Writes bench/results/serve.json and the serving section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
WORK = ROOT / "bench" / ".work"
OUT = WORK / "serve"
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(HERE))
from _sections import replace_section  # noqa: E402  (bench/ is not a package)
from export_rows import EXAMPLE, FULLY_FIXED, facts_printed, patched_example, patched_site  # noqa: E402

BEGIN = "<!-- serve: begin (bench/serve/package_rows.py writes this section) -->"
END = "<!-- serve: end -->"
WARM_CALLS = 50

ARM = r'''
import json, os, statistics, sys, time, warnings
import torch
from torch.export._tree_utils import reorder_kwargs
from torch.utils import _pytree as pytree
sys.path.insert(0, os.path.join(sys.argv[3], "bench", "models"))
from registry import build
from run_row import digest
warnings.simplefilter("ignore")
row, weights, out_dir, warm_calls, device = sys.argv[1], sys.argv[2], sys.argv[4], int(sys.argv[5]), sys.argv[6]
torch.manual_seed(0)
if os.path.isdir(row):  # the bundled example, from this folder
    sys.path.insert(0, row)
    from tiny_transformer.model import Block
    model = Block().eval()
    inputs = {"x": torch.randn(2, 16, 32), "mask": torch.ones(2, 16, dtype=torch.bool)}
    stem = os.path.join(out_dir, "example")
else:
    model, inputs = build(row)
    model = model.eval()
    model.load_state_dict(torch.load(weights), strict=True)
    stem = os.path.join(out_dir, row.replace(" ", "_"))
model = model.to(device)
inputs = {k: v.to(device) for k, v in inputs.items()}
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)


def warm_median_ms(call):
    call()
    sync()
    samples = []
    for _ in range(warm_calls):
        start = time.perf_counter()
        call()
        sync()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


facts = {}
with torch.no_grad():
    eager = model(**inputs)
    program = None
    for strict in (False, True):
        try:
            program = torch.export.export(model, (), inputs, strict=strict)
            facts["export_mode"] = "strict" if strict else "non-strict"
            break
        except Exception as exc:
            facts["export_error_" + ("strict" if strict else "non_strict")] = type(exc).__name__
    if program is None:
        print(json.dumps(facts))
        sys.exit(0)
    start = time.perf_counter()
    package = torch._inductor.aoti_compile_and_package(program, package_path=stem + ".pt2")
    facts["aoti_compile_s"] = round(time.perf_counter() - start, 1)
    # The package's calling convention: the flattened tensors of (args, kwargs in the exported
    # order); outputs flattened the same way as eager's.
    in_spec = program.call_spec.in_spec
    # Saved on the CPU; the harness moves the inputs to its device.
    flat_inputs = [t.cpu() for t in pytree.tree_leaves(((), reorder_kwargs(inputs, in_spec))) if isinstance(t, torch.Tensor)]
    flat_eager = [t.cpu() for t in pytree.tree_leaves(eager) if isinstance(t, torch.Tensor)]
    # Inductor may reorder floating-point reductions, so the package need not reproduce eager bit
    # for bit; what C++ must reproduce exactly is the same package run from Python.
    from_python = torch._inductor.aoti_load_package(package)(**inputs)
    flat_python = [t.cpu() for t in pytree.tree_leaves(from_python) if isinstance(t, torch.Tensor)]
    torch.save({"inputs": flat_inputs, "outputs": flat_python, "eager": flat_eager}, stem + ".io.pt")
    facts["package"] = package
    facts["io"] = stem + ".io.pt"
    facts["exported_identical"] = digest(program.module()(**inputs)) == digest(eager)
    facts["eager_warm_ms"] = warm_median_ms(lambda: model(**inputs))
    compiled = torch.compile(model, backend="inductor", dynamic=False)
    facts["compile_identical"] = digest(compiled(**inputs)) == digest(eager)
    facts["compile_warm_ms"] = warm_median_ms(lambda: compiled(**inputs))
print(json.dumps(facts))
'''


def package_row(row: str, site: str, device: str) -> dict:
    """`row` is a model row, or a folder holding the (patched) bundled example."""
    weights = WORK / f"{row.replace(' ', '_')}.pt"
    if not weights.exists() and not os.path.isdir(row):
        return {"error": f"no pinned weights {weights}: run bash bench/run_models.sh first"}
    env = dict(os.environ, PYTHONPATH=site, TORCHINDUCTOR_CACHE_DIR=str(OUT / "inductor-cache"))
    out = subprocess.run([sys.executable, "-c", ARM, row, str(weights), str(ROOT), str(OUT), str(WARM_CALLS), device],
                         env=env, capture_output=True, text=True, timeout=1800, check=False)
    return facts_printed(out)


def run_harness(harness: str, facts: dict, device: str) -> dict:
    out = subprocess.run([harness, "--package", facts["package"], "--io", facts["io"], "--warm", str(WARM_CALLS),
                          "--device", device],
                         capture_output=True, text=True, timeout=900, check=False)
    return facts_printed(out, need_success=False)  # exit 1 with facts: an output differs


def exports(arm: dict) -> str:
    if "error" in arm:
        return "error"
    modes = [mode for mode in ("non_strict", "strict") if arm[mode]["exported"]]
    return "fails" if not modes else " and ".join(m.replace("_", "-") for m in modes)


def versus_eager(identical: bool, max_abs_diff: float) -> str:
    return "identical" if identical else f"max \\|Δ\\| {max_abs_diff:.1e}"


def table(results: dict, export: dict) -> list[str]:
    lines = [
        "| row | export, original | export, patched | exported = eager | C++ = package in Python | "
        "C++ against eager | torch.compile against eager | C++ load | C++ first call | "
        "C++ warm median (p10–p90) | Python eager warm | torch.compile warm |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row, facts in results.items():
        arms = export.get(row, {})
        before = exports(arms["original"]) if "original" in arms else "?"
        after = exports(arms["patched"]) if "patched" in arms else "?"
        cpp = facts.get("cpp", {})
        if "error" in facts or "package" not in facts:
            errors = [facts[k] for k in ("export_error_non_strict", "export_error_strict") if k in facts]
            reason = facts.get("error") or f"does not export ({', '.join(errors)})"
            lines.append(f"| {row} | {before} | {after} | {reason} |" + " |" * 8)
            continue
        if "error" in cpp:
            lines.append(f"| {row} | {before} | {after} | C++ error: {cpp['error']} |" + " |" * 8)
            continue
        lines.append(
            f"| {row} | {before} | {after} | {'yes' if facts['exported_identical'] else 'NO'} | "
            f"{'yes' if cpp['identical'] else 'NO'} | "
            f"{versus_eager(cpp['eager_identical'], cpp['eager_max_abs_diff'])} | "
            f"{'identical' if facts['compile_identical'] else 'differs'} | {cpp['load_ms']:.0f} ms | "
            f"{cpp['first_call_ms']:.1f} ms | {cpp['warm_median_ms']:.2f} ms "
            f"({cpp['warm_p10_ms']:.2f}–{cpp['warm_p90_ms']:.2f}) | {facts['eager_warm_ms']:.2f} ms | "
            f"{facts['compile_warm_ms']:.2f} ms |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from-json", action="store_true", help="rewrite the section from bench/results/serve.json")
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--harness", default=str(ROOT / "build-serve" / "graphmend_serve"))
    parser.add_argument("--rows", nargs="*", default=FULLY_FIXED)
    parser.add_argument("--no-example", action="store_true", help="leave out the bundled example")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: packages for the GPU, results in bench/results/serve_cuda.json and .md")
    parser.add_argument("--patched-site", help="an already patched transformers copy (no graphmend run)")
    parser.add_argument("--patched-example", help="a folder holding an already patched tiny_transformer")
    args = parser.parse_args()
    suffix = "" if args.device == "cpu" else "_" + args.device
    saved = ROOT / "bench" / "results" / f"serve{suffix}.json"
    export_json = ROOT / "bench" / "results" / "export.json"
    export = json.loads(export_json.read_text()) if export_json.exists() else {}
    if args.from_json:
        results = json.loads(saved.read_text())
    else:
        OUT.mkdir(parents=True, exist_ok=True)
        site = args.patched_site or patched_site(args.graphmend)
        # A run over some rows updates those rows of the saved results.
        results = json.loads(saved.read_text()) if saved.exists() else {}
        rows = {row: row for row in args.rows}
        if not args.no_example:
            rows[EXAMPLE] = args.patched_example or patched_example(args.graphmend)
        for row, target in rows.items():
            facts = package_row(target, site, args.device)
            if "package" in facts:
                facts["cpp"] = run_harness(args.harness, facts, args.device)
            results[row] = facts
            print(row, json.dumps(facts), flush=True)
        saved.write_text(json.dumps(results, indent=2) + "\n")
    if args.device != "cpu":  # a device run keeps its own table; RESULTS.md holds the CPU one
        saved.with_suffix(".md").write_text(
            f"## Serving on {args.device}: AOTInductor packages run from C++\n\n" + "\n".join(table(results, export)) + "\n")
        return
    served = [row for row, facts in results.items() if facts.get("cpp", {}).get("identical")]
    to_eager = [row for row in served if results[row]["cpp"]["eager_identical"]]
    lines = [
        BEGIN, "", "## Serving: AOTInductor packages run from C++ (issue 15)", "",
        "`bash bench/serve/run.sh` (CPU, this 2-core machine; patched = plain `graphmend fix`; each row",
        "in its own process under `torch.no_grad()` with the pinned weights). The patched model is",
        "exported, packaged with `torch._inductor.aoti_compile_and_package` and run by",
        "`graphmend_serve` (bench/serve/harness.cpp, LibTorch's `AOTIModelPackageLoader`, no Python).",
        "**exported = eager**: the exported program (ATen ops, run by `ExportedProgram.module()`) gives",
        "eager's outputs bit for bit (dtype, shape and bytes): the patch changed nothing. **C++ = package",
        "in Python**: the harness reproduces the package's own outputs run from Python bit for bit.",
        "**C++ against eager**: Inductor's kernels (AOTInductor's, as `torch.compile`'s) may reorder",
        "floating-point reductions, so they are compared with eager by the largest absolute difference.",
        "Times are medians of the warm calls; load includes unpacking the `.pt2`. Export columns come",
        "from export_rows.py.", "",
        *table(results, export), "",
        f"{len(served)} of {len(results)} rows run from C++ and reproduce their package exactly; "
        f"{len(to_eager)} of them also reproduce eager bit for bit.",
        *([] if EXAMPLE not in results or "package" in results[EXAMPLE] else [
            "", f"The bundled example ({EXAMPLE}) is not fully fixed: `scale = out.abs().max().item()` "
            "followed by `if scale > 1e4: warnings.warn(...)` stays (GM401), and export cannot guard on "
            "the value `.item()` returns."]),
        "", END,
    ]
    replace_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, "\n".join(lines))


if __name__ == "__main__":
    main()
