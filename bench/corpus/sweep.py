"""Corpus sweep (issue 12): `graphmend fix --unsafe-fixes` twice over large real code bases.

    bash bench/corpus/run.sh           # fetches the packages, builds graphmend, runs this

For each tree (a copy; the originals are not touched) it checks that
  - graphmend never crashes (exit 0, 1 or 2; 2 only with a reason printed for each file);
  - the second run changes nothing (every file's bytes equal after the first and the second);
  - every file graphmend wrote compiles with CPython (this interpreter), and every file that
    compiled before still compiles after; a file CPython rejects is never written.
Writes bench/results/corpus.json and the table in docs/corpus.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from _sections import replace_section  # noqa: E402  (bench/ is not a package)
BEGIN = "<!-- corpus: begin (bench/corpus/sweep.py writes this section) -->"
END = "<!-- corpus: end -->"


def digest(tree: pathlib.Path) -> dict[str, str]:
    return {str(p.relative_to(tree)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(tree.rglob("*.py")) if p.is_file()}


def compiles(path: pathlib.Path) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
            return True
        except (SyntaxError, ValueError):
            return False


def run(graphmend: str, tree: pathlib.Path) -> tuple[int, float, str]:
    start = time.monotonic()
    done = subprocess.run([graphmend, "fix", "--isolated", "--fix-generated", "--unsafe-fixes", "--output-format", "json", "."],
                          cwd=tree, capture_output=True, text=True)
    return done.returncode, time.monotonic() - start, done.stdout


def sweep(graphmend: str, name: str, source: pathlib.Path, work: pathlib.Path) -> dict:
    tree = work / name
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
    before = digest(tree)
    compiled_before = {rel for rel in before if compiles(tree / rel)}
    rc1, t1, out1 = run(graphmend, tree)
    first = digest(tree)
    rc2, t2, _ = run(graphmend, tree)
    second = digest(tree)
    written = sorted(rel for rel in first if before.get(rel) != first[rel])  # changed, or new (the runtime)
    report = json.loads(out1) if out1.strip() else {}
    summary = report.get("summary", {})
    gm901 = sorted({d["filename"] for d in report.get("diagnostics", []) if d.get("code") == "GM901"})
    errors = report.get("errors", [])
    result = {
        "tree": name,
        "files": len(before),
        "cpython_rejects": len(before) - len(compiled_before),
        "written": len(written),
        "fixes": summary.get("fixes_applied", summary.get("fixed", 0)),
        "gm901": len(gm901),
        # Files CPython accepts that graphmend declined as GM901 (analysed no further, never written).
        "gm901_cpython_accepts": [f for f in gm901 if str(pathlib.Path(f)) in compiled_before],
        "file_errors": len(errors),
        "exit_first": rc1,
        "exit_second": rc2,
        "seconds_first": round(t1, 1),
        "seconds_second": round(t2, 1),
        "crash": rc1 not in (0, 1, 2) or rc2 not in (0, 1, 2),
        "second_run_changed": sorted(rel for rel in second if first.get(rel) != second[rel]),
        "written_not_compiling": [rel for rel in written if not compiles(tree / rel)],
        "broke_compiling": [rel for rel in compiled_before if rel in first and not compiles(tree / rel)],
        "rejected_but_written": [rel for rel in written if rel in before and rel not in compiled_before],
    }
    result["ok"] = not (result["crash"] or result["second_run_changed"] or result["written_not_compiling"]
                        or result["broke_compiling"] or result["rejected_but_written"])
    shutil.rmtree(tree)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    ap.add_argument("trees", nargs="+", help="NAME=PATH of each package folder to sweep")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="graphmend-corpus-") as tmp:
        for spec in args.trees:
            name, _, path = spec.partition("=")
            r = sweep(args.graphmend, name, pathlib.Path(path), pathlib.Path(tmp))
            results.append(r)
            print(json.dumps({k: v for k, v in r.items() if not isinstance(v, list) or v}), flush=True)
    ok = all(r["ok"] for r in results)
    if not args.no_write:
        (ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)
        (ROOT / "bench" / "results" / "corpus.json").write_text(json.dumps(results, indent=2) + "\n")
        write_doc(results)
    return 0 if ok else 1


def write_doc(results: list[dict]) -> None:
    lines = [BEGIN, "", f"Python {sys.version.split()[0]} judges what compiles.", "",
             "| tree | .py files | CPython rejects | written by fix | GM901 | file errors | exit 1st / 2nd | "
             "s 1st / 2nd | second run changed | written, not compiling | compiled, then not | crash |",
             "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---|"]
    for r in results:
        lines.append(f"| {r['tree']} | {r['files']:,} | {r['cpython_rejects']} | {r['written']} | {r['gm901']} | "
                     f"{r['file_errors']} | {r['exit_first']} / {r['exit_second']} | {r['seconds_first']} / "
                     f"{r['seconds_second']} | {len(r['second_run_changed'])} | {len(r['written_not_compiling'])} | "
                     f"{len(r['broke_compiling'])} | {'yes' if r['crash'] else 'no'} |")
    lines += ["", END]
    replace_section(ROOT / "docs" / "corpus.md", BEGIN, END, "\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
