"""Checks that what `graphmend fix` reports as left is what a fresh `check` of the fixed tree finds.

A fix run re-analyses only the files a pass changed, with facts carried over from its first pass
(the call-site evidence that types unannotated parameters). This runs `fix` over a copy of a
tree, then `check` from scratch over the result, and compares the two reports' findings: place,
code, fix applicability and decline code. tests/cli/test_fix_report.py does the same over small
trees; this is for large ones.

    bench/.venv/bin/python bench/fix_report.py                      # the installed transformers
    bench/.venv/bin/python bench/fix_report.py --unsafe-fixes PATH  # any tree

Exits 1 when the two differ, listing what only one of them has.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def findings(stdout: str) -> list[tuple]:
    """A JSON report's findings as comparable tuples: place, code, fix applicability, decline code."""
    out = []
    for d in json.loads(stdout)["diagnostics"]:
        fix = d["fix"] or {}
        out.append((d["filename"], d["code"], d["range"]["start"], d["range"]["end"],
                    fix.get("applicability"), d["decline_code"]))
    return sorted(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", help="a package folder (default: the installed transformers)")
    parser.add_argument("--unsafe-fixes", action="store_true")
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    args = parser.parse_args()
    if args.tree:
        source = pathlib.Path(args.tree).resolve()
    else:
        import transformers

        source = pathlib.Path(transformers.__file__).parent
    unsafe = ["--unsafe-fixes"] if args.unsafe_fixes else []
    with tempfile.TemporaryDirectory(prefix="gm-fix-report-") as tmp:
        work = pathlib.Path(tmp)
        shutil.copytree(source, work / source.name)
        fixed = subprocess.run([args.graphmend, "fix", "--fix-generated", *unsafe, "--output-format", "json", source.name],
                               check=False, cwd=work, capture_output=True, text=True)
        if fixed.returncode not in (0, 1):
            print(fixed.stderr, file=sys.stderr)
            return 2
        fresh = subprocess.run([args.graphmend, "check", "--fix-generated", *unsafe, "--no-cache", "--output-format", "json",
                                source.name], check=False, cwd=work, capture_output=True, text=True)
        left, found = findings(fixed.stdout), findings(fresh.stdout)
    applied = sum(f["fixes_applied"] for f in json.loads(fixed.stdout)["files"])
    print(f"{source}: fix applied {applied} fixes and reports {len(left)} findings left; a fresh check of "
          f"the fixed tree finds {len(found)}: {'the same' if left == found else 'DIFFERENT'}")
    for only, name in ((set(left) - set(found), "only fix reports"), (set(found) - set(left), "only check finds")):
        for f in sorted(only)[:20]:
            print(f"  {name}: {f}")
    return 0 if left == found else 1


if __name__ == "__main__":
    sys.exit(main())
