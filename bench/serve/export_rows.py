"""torch.export of the model table's rows, original against patched (issue 15, item 1).

    bash bench/run_models.sh --rows t5-small     # once: bench/.venv and the pinned weights
    bench/.venv/bin/python bench/serve/export_rows.py [--rows ROW ...]

For each row (default: every row that plain `graphmend fix` fully fixes, then the bundled
example) and each arm (the installed transformers; a copy patched by plain `graphmend fix`), in
its own process: build the row's model with its pinned weights (bench/.work/<row>.pt; the
example's Block from torch.manual_seed(0)), export it under torch.no_grad()
with strict=False and strict=True, and for an exported program check that no op of graphmend's
runtime is in its graph and that its outputs equal eager's bit for bit (SHA-256 of every output
tensor). Writes bench/results/export.json and the export section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
WORK = ROOT / "bench" / ".work"
sys.path.insert(0, str(ROOT / "bench"))
from _sections import replace_section  # noqa: E402  (bench/ is not a package)

BEGIN = "<!-- export: begin (bench/serve/export_rows.py writes this section) -->"
END = "<!-- export: end -->"
FULLY_FIXED = [
    "t5-small", "whisper", "bart", "biogpt", "blenderbot-400M-distill", "opus-mt-fr-en",
    "PegasusForCausalLM", "layoutlmv3-base", "bart fp16", "opus-mt-fr-en fp16",
]

ARM = r'''
import json, os, sys, warnings
import torch
sys.path.insert(0, os.path.join(sys.argv[3], "bench", "models"))
from run_row import digest, _tensors
warnings.simplefilter("ignore")
row, weights = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
if os.path.isdir(row):  # the bundled example, from this folder
    sys.path.insert(0, row)
    from tiny_transformer.model import Block
    model = Block().eval()
    inputs = {"x": torch.randn(2, 16, 32), "mask": torch.ones(2, 16, dtype=torch.bool)}
else:
    from registry import build
    model, inputs = build(row)
    model = model.eval()
    model.load_state_dict(torch.load(weights), strict=True)
facts = {}
with torch.no_grad():
    expected = digest(model(**inputs))
    for strict in (False, True):
        key = "strict" if strict else "non_strict"
        try:
            program = torch.export.export(model, (), dict(inputs), strict=strict)
        except Exception as exc:
            facts[key] = {"exported": False, "error": type(exc).__name__ + ": " + str(exc).splitlines()[0][:200]}
            continue
        ops = sorted({str(n.target) for n in program.graph.nodes if n.op == "call_function"})
        got = digest(program.module()(**inputs))
        facts[key] = {"exported": True, "graphmend_ops": [o for o in ops if "graphmend" in o],
                      "identical": got == expected}
print(json.dumps(facts))
'''


# The bundled example: its Block, from the folder given in place of a row name.
EXAMPLE = "examples/tiny_transformer"


def facts_printed(out: subprocess.CompletedProcess, need_success: bool = True) -> dict:
    """The last JSON line a bench process printed, or its last line of stderr as the error."""
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if (need_success and out.returncode != 0) or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(lines[-1])


def patched_example(graphmend: str) -> str:
    parent = WORK / "patched-example"
    if parent.exists():
        shutil.rmtree(parent)
    shutil.copytree(ROOT / EXAMPLE, parent / "tiny_transformer")
    subprocess.run([graphmend, "fix", str(parent / "tiny_transformer")], capture_output=True, check=False)
    return str(parent)


def run(row: str, site: str | None) -> dict:
    """`row` is a model row, or a folder holding the bundled example (its Block, seeded weights)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if site:
        env["PYTHONPATH"] = site
    weights = WORK / f"{row.replace(' ', '_')}.pt"
    if not weights.exists() and not os.path.isdir(row):
        return {"error": f"no pinned weights {weights}: run bash bench/run_models.sh first"}
    out = subprocess.run([sys.executable, "-c", ARM, row, str(weights), str(ROOT)], env=env,
                         capture_output=True, text=True, timeout=900, check=False)
    return facts_printed(out)


def patched_site(graphmend: str) -> str:
    """A copy of the installed transformers patched by plain `graphmend fix`."""
    import transformers

    site = WORK / "patched-export"
    if site.exists():
        shutil.rmtree(site)
    shutil.copytree(pathlib.Path(transformers.__file__).parent, site / "transformers")
    fixed = subprocess.run([graphmend, "fix", "--fix-generated", str(site / "transformers")], capture_output=True, text=True,
                           check=False)
    if fixed.returncode not in (0, 1) or not (site / "transformers" / "_graphmend_runtime.py").exists():
        sys.exit(f"graphmend fix failed ({fixed.returncode}): {fixed.stderr[-500:]}")
    return str(site)


def cell(arm: dict, key: str) -> str:
    if "error" in arm:
        return "error: " + arm["error"]
    facts = arm[key]
    if not facts["exported"]:
        return "fails (" + facts["error"].split(":")[0] + ")"
    ops = ", ".join(facts["graphmend_ops"]) or "none"
    return f"exports; identical: {'yes' if facts['identical'] else 'NO'}; graphmend ops: {ops}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from-json", action="store_true", help="rewrite the section from bench/results/export.json")
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--rows", nargs="*", default=FULLY_FIXED)
    args = parser.parse_args()
    saved = ROOT / "bench" / "results" / "export.json"
    if args.from_json:
        results = json.loads(saved.read_text())
    else:
        site = patched_site(args.graphmend) if args.rows else None
        # A run over some rows updates those rows of the saved results.
        results = json.loads(saved.read_text()) if saved.exists() else {}
        for row in args.rows:
            results[row] = {"original": run(row, None), "patched": run(row, site)}
            print(row, json.dumps(results[row]), flush=True)
        results[EXAMPLE] = {"original": run(str(ROOT / "examples"), None),
                            "patched": run(patched_example(args.graphmend), None)}
        print(EXAMPLE, json.dumps(results[EXAMPLE]), flush=True)
        saved.parent.mkdir(exist_ok=True)
        saved.write_text(json.dumps(results, indent=2) + "\n")
    lines = [
        BEGIN, "", "## torch.export of the model rows (issue 15)", "",
        "`bench/.venv/bin/python bench/serve/export_rows.py` (each arm in its own process, under",
        "`torch.no_grad()`, the pinned weights; patched = plain `graphmend fix`). **identical**: the",
        "exported program's outputs have the same SHA-256 as eager's.", "",
        "| row | original, non-strict | original, strict | patched, non-strict | patched, strict |",
        "|---|---|---|---|---|",
    ]
    for row, arms in results.items():
        lines.append(f"| {row} | {cell(arms['original'], 'non_strict')} | {cell(arms['original'], 'strict')} | "
                     f"{cell(arms['patched'], 'non_strict')} | {cell(arms['patched'], 'strict')} |")
    def exports(arm: dict, key: str) -> bool:
        return "error" not in arm and arm[key]["exported"]

    unblocked = [row for row, arms in results.items()
                 if not any(exports(arms["original"], k) for k in ("non_strict", "strict"))
                 and any(exports(arms["patched"], k) for k in ("non_strict", "strict"))]
    summary = (
        f"Export is unblocked by the fix for {len(unblocked)} of {len(results)} rows "
        f"({', '.join(unblocked) or 'none'}): their originals branch on a tensor value, which neither "
        "export mode can capture. Rows whose breaks were only print/logging/warnings export before and "
        "after (export does not break on those calls), and no patched graph holds a graphmend op."
    )
    if EXAMPLE in results and not any(exports(results[EXAMPLE]["patched"], k) for k in ("non_strict", "strict")):
        summary += (f" The bundled example ({EXAMPLE}) does not export after the fix: its `.item()` site (GM401, "
                    "which no rewrite fixes yet) feeds a Python `if`, on which export cannot guard.")
    lines += ["", summary, "", END]
    replace_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, "\n".join(lines))


if __name__ == "__main__":
    main()
