"""The patch a maintainer would review: plain `graphmend fix` over a copy of transformers 4.52.4
under the project's own ruff settings (issue 47, item 8).

    .venv/bin/python bench/patch_review.py [--graphmend build/graphmend] [--write]

Measures, on a copy of the installed transformers with a pyproject.toml that carries
transformers' ruff settings (line length 119, isort with two lines after imports and
transformers as first party):
- lines added and removed by the fix, outside the runtime file, and per fix;
- ruff findings the patched files gain (per file and code, more than the original had), and
  files that passed `ruff format --check` before and fail after;
- what importing every patched module changes: operators registered, Dynamo's configuration;
- generated files left alone: those whose header says they are generated and that `fix` changed.

--write puts the figures in bench/RESULTS.md (section "patch review").
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from _sections import replace_section
from copied_pairs import broken_pairs

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUFF = pathlib.Path(sys.executable).parent / "ruff"

# transformers' own ruff settings, as the pyproject.toml of its repository sets them (the wheel ships
# none): what its maintainers' CI runs on a pull request. UP038, which ruff 0.17 no longer has, left out.
PROJECT_SETTINGS = """\
[tool.ruff]
target-version = "py310"
line-length = 119

[tool.ruff.lint]
select = ["E", "F", "I", "W", "UP", "FURB", "SIM", "C4", "RUF013", "PERF102", "PLC1802", "PLC0208", "PIE794"]
ignore = ["E501", "E741", "F402", "F823", "SIM300", "SIM212", "SIM1", "SIM905", "UP009", "UP015", "UP031",
          "UP028", "UP004", "UP045", "UP007"]

[tool.ruff.lint.per-file-ignores]
"__init__.py" = ["E402", "F401", "F403", "F811"]

[tool.ruff.lint.isort]
lines-after-imports = 2
known-first-party = ["transformers"]

[tool.ruff.format]
quote-style = "double"
"""

GENERATED = re.compile(r"This file was automatically generated from|@generated|DO NOT EDIT", re.I)

IMPORT_PROBE = r"""
import importlib, json, pathlib, sys
import torch, torch._dynamo
def ops():
    return set(torch._C._dispatch_get_all_op_names())
def config():
    return {k: repr(v) for k, v in torch._dynamo.config.get_config_copy().items()}
skipped = []
import torch._dynamo.eval_frame as eval_frame
_skip_code = eval_frame.skip_code
eval_frame.skip_code = lambda code: (skipped.append(code), _skip_code(code))[1]
before_ops, before_config = ops(), config()
root = pathlib.Path(sys.argv[1])
imported, failed = 0, 0
for name in json.loads(sys.argv[2]):
    try:
        importlib.import_module(name)
        imported += 1
    except Exception:
        failed += 1
after_ops, after_config = ops(), config()
print(json.dumps({"imported": imported, "failed": failed,
                  "new_ops": sorted(after_ops - before_ops), "skipped_codes": len(skipped),
                  "config_changed": sorted(k for k in after_config if after_config[k] != before_config.get(k))}))
"""


def ruff_findings(tree: pathlib.Path) -> collections.Counter:
    out = subprocess.run([str(RUFF), "check", "--no-cache", "--exit-zero", "--output-format", "json", "transformers"],
                         cwd=tree, capture_output=True, text=True, check=True)
    found = collections.Counter()
    for d in json.loads(out.stdout):
        found[(str(pathlib.Path(d["filename"]).relative_to(tree)), d["code"])] += 1
    return found


def format_failures(tree: pathlib.Path) -> set[str]:
    out = subprocess.run([str(RUFF), "format", "--check", "--no-cache", "--diff", "transformers"],
                         cwd=tree, capture_output=True, text=True)
    return set(re.findall(r"^\+\+\+ (transformers/\S+)", out.stdout, re.M))


def patched_modules(tree: pathlib.Path, changed: list[str]) -> list[str]:
    names = []
    for path in changed:
        if path.endswith(".py") and "_graphmend_runtime" not in path:
            parts = pathlib.Path(path).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    import transformers

    source = pathlib.Path(transformers.__file__).parent
    work = pathlib.Path(tempfile.mkdtemp(prefix="patch-review-"))
    original, patched = work / "original", work / "patched"
    for tree in (original, patched):
        shutil.copytree(source, tree / "transformers", ignore=shutil.ignore_patterns("__pycache__"))
        (tree / "pyproject.toml").write_text(PROJECT_SETTINGS)
    out = subprocess.run([args.graphmend, "fix", "--output-format", "json", "transformers"], cwd=patched,
                         capture_output=True, text=True)
    report = json.loads(out.stdout)
    fixes = report["summary"].get("fixes_applied", report["summary"].get("applied", 0))

    numstat = subprocess.run(["git", "diff", "--no-index", "--numstat", "original/transformers",
                              "patched/transformers"], cwd=work, capture_output=True, text=True).stdout
    added = removed = 0
    changed, runtime_lines = [], 0
    for line in numstat.splitlines():
        plus, minus, path = line.split("\t")
        path = re.sub(r"^.*?/transformers/", "transformers/", path.replace("{original => patched}", "patched"))
        if "_graphmend_runtime" in path:
            runtime_lines = int(plus)
            continue
        added, removed = added + int(plus), removed + int(minus)
        changed.append(path)

    before, after = ruff_findings(original), ruff_findings(patched)
    new_findings = collections.Counter()
    for (path, code), n in after.items():
        if n > before.get((path, code), 0) and "_graphmend_runtime" not in path:
            new_findings[code] += n - before.get((path, code), 0)
    new_format = sorted(p for p in format_failures(patched) - format_failures(original)
                        if "_graphmend_runtime" not in p)
    generated_changed = sorted(p for p in changed if GENERATED.search((original / p).read_text(errors="replace")[:2000]))

    modules = json.dumps(patched_modules(patched, changed))
    imports = {}
    for arm, tree in (("original", original), ("patched", patched)):
        probe = subprocess.run([sys.executable, "-c", IMPORT_PROBE, str(tree), modules], cwd=tree,
                               capture_output=True, text=True)
        imports[arm] = json.loads(probe.stdout.strip().splitlines()[-1]) if probe.returncode == 0 else {
            "error": probe.stderr[-2000:]}
    imports = {"imported": imports["patched"].get("imported"), "failed": imports["patched"].get("failed"),
               "failed_original": imports["original"].get("failed"),
               "new_ops": sorted(set(imports["patched"].get("new_ops", [])) - set(imports["original"].get("new_ops", []))),
               "config_changed": sorted(set(imports["patched"].get("config_changed", []))
                                        - set(imports["original"].get("config_changed", []))),
               "skipped_codes": imports["patched"].get("skipped_codes", 0) - imports["original"].get("skipped_codes", 0)}

    pairs, same_before, broken = broken_pairs(original / "transformers", patched / "transformers")
    facts = {"copied_pairs": pairs, "copied_identical_before": same_before,
             "copied_broken": [f"{path}:{name}" for path, name in broken],
             "fixes": fixes, "files": len(changed), "added": added, "removed": removed,
             "added_per_fix": round(added / max(fixes, 1), 2), "runtime_lines": runtime_lines,
             "new_ruff_findings": dict(new_findings), "new_format_failures": new_format,
             "generated_changed": generated_changed, "imports": imports}
    print(json.dumps(facts, indent=1))
    if args.write:
        write(facts)
    shutil.rmtree(work)
    return 0


def write(facts: dict) -> None:
    imports = facts["imports"]
    section = f"""<!-- patch-review: begin (bench/patch_review.py writes this section) -->

## The patch a maintainer reviews (issue 47)

`.venv/bin/python bench/patch_review.py --write`: plain `graphmend fix` over a copy of
transformers 4.52.4 with a pyproject.toml carrying transformers' own ruff settings (line length
119, isort with `lines-after-imports = 2` and `known-first-party`). Goals in brackets. Before
issue 47's work (commit a6276b4, same settings): 623 fixes in 260 files (generated ones included),
+3,934 / -1,078 lines, 142 new ruff findings (I001), 39 new `ruff format --check` failures, 56
generated files changed, 2 operators and 53 skip-list entries at import. At db4e0a5: +2,887
added lines for the same 465 fixes (a call deferred by its callee's path, the binding line with
its own blank lines, a site helper for every [Trap] message); at bbd13c0: +2,248 (a helper for
every f-string with a value in it and for every `warnings.warn`, marker lines around each block,
8 "Copied from" pairs broken). Runtime 17: f-strings of dtypes and configuration names and
`warnings.warn(message, Category)` keep their call, blocks have no marker lines, and a fix that
would change one side of a "Copied from" pair only is withheld (the count of fixes falls by those).

| measure | value |
|---|---|
| fixes applied | {facts['fixes']} in {facts['files']} files |
| lines added / removed outside the runtime file | +{facts['added']} / -{facts['removed']} [added <= 1,500] |
| lines added per fix | {facts['added_per_fix']} |
| runtime file | {facts['runtime_lines']} lines |
| new ruff findings under the project's settings | {sum(facts['new_ruff_findings'].values())} {facts['new_ruff_findings'] or ''} [0] |
| files passing `ruff format --check` before and failing after | {len(facts['new_format_failures'])} [0] |
| generated files changed | {len(facts['generated_changed'])} [0] |
| "Copied from" pairs identical before the fix and not after (bench/copied_pairs.py, of {facts['copied_identical_before']} identical of {facts['copied_pairs']}) | {len(facts['copied_broken'])} [0]{': ' + ', '.join(facts['copied_broken']) if facts['copied_broken'] else ''} |
| importing every patched module ({imports['imported']} imported; {imports['failed']} fail to import, {imports['failed_original']} in the original): operators registered beyond the original's | {len(imports['new_ops'])} [0] |
| ... Dynamo configuration entries changed beyond the original's | {len(imports['config_changed'])} [0] |
| ... code objects added to Dynamo's skip list beyond the original's | {imports['skipped_codes']} [0] |

<!-- patch-review: end -->"""
    replace_section(ROOT / "bench" / "RESULTS.md", "<!-- patch-review: begin", "<!-- patch-review: end -->", section)


if __name__ == "__main__":
    raise SystemExit(main())
