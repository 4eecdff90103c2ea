"""How many of the graph breaks the census measured `graphmend check` reports, site by site.

    python bench/census/recall.py [--python PY | --source DIR] [--census JSON] [--write]

The census (bench/census/census.py) records, for every architecture it built, the lines where real
TorchDynamo broke the original model (Dynamo's own graph-break log). This script runs
`graphmend check` over the same transformers sources (the package of PY's environment, default
bench/.venv/bin/python, or an unpacked copy given with --source) and counts a site as found when a
finding covers its line in the same file. The census JSON defaults to
bench/results/census-<version>.json. Prints the count and every site missed with Dynamo's cause;
--write also writes the recall section of bench/RESULTS.md for that version.
"""
from __future__ import annotations

import argparse
import collections
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from _sections import replace_section  # noqa: E402  (bench/ is not a package)


def transformers_dir(python: str) -> pathlib.Path:
    out = subprocess.run([python, "-c", "import os, transformers; print(os.path.dirname(transformers.__file__))"],
                         capture_output=True, text=True, check=True)
    return pathlib.Path(out.stdout.strip().splitlines()[-1])


def version_of(package: pathlib.Path) -> str:
    for line in (package / "__init__.py").read_text().splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    sys.exit(f"no __version__ in {package / '__init__.py'}")


def covered_lines(graphmend: str, package: pathlib.Path) -> tuple[dict[str, set[int]], int]:
    """Per file (relative to the package), the lines graphmend's findings cover; and their count."""
    out = subprocess.run([graphmend, "check", "--no-cache", "--output-format", "json-lines", str(package)],
                         capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        sys.exit(f"graphmend check failed ({out.returncode}): {out.stderr[-500:]}")
    lines: dict[str, set[int]] = collections.defaultdict(set)
    findings = 0
    for row in out.stdout.splitlines():
        d = json.loads(row)
        findings += 1
        rel = pathlib.Path(d["filename"]).resolve().relative_to(package.resolve()).as_posix()
        lines[rel].update(range(d["location"]["row"], d["end_location"]["row"] + 1))
    return lines, findings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--python", default=str(ROOT / "bench" / ".venv" / "bin" / "python"))
    where.add_argument("--source", help="an unpacked transformers package folder")
    parser.add_argument("--census", help="the census JSON (default bench/results/census-<version>.json)")
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--write", action="store_true", help="write the recall section of bench/RESULTS.md")
    args = parser.parse_args()

    package = pathlib.Path(args.source) if args.source else transformers_dir(args.python)
    version = version_of(package)
    census = pathlib.Path(args.census) if args.census else ROOT / "bench" / "results" / f"census-{version}.json"
    lines, findings = covered_lines(args.graphmend, package)
    results = json.loads(census.read_text())["results"]
    found, missed = [], collections.Counter()
    for r in results:
        for site in (r.get("original") or {}).get("break_sites") or []:
            path, line = site["site"].rsplit(":", 1)
            if int(line) in lines.get(path, ()):
                found.append(site["site"])
            else:
                missed[(site["site"], site["cause"])] += 1
    total = len(found) + sum(missed.values())
    share = f"{len(found) / total:.0%}" if total else "n/a"
    print(f"transformers {version}: graphmend check reports {len(found)} of the {total} break sites the census "
          f"measured ({share}); {findings} findings in all")
    for (site, cause), n in sorted(missed.items()):
        print(f"  missed: {site} ({cause}){f' x{n}' if n > 1 else ''}")
    if not args.write:
        return
    key = f"census-recall-{version}"
    begin, end = f"<!-- {key}: begin (bench/census/recall.py writes this section) -->", f"<!-- {key}: end -->"
    source = f"--source <transformers {version} unpacked>" if args.source else ""
    rows = "\n".join(f"| `{site}` | {cause} | {n} |" for (site, cause), n in sorted(missed.items()))
    section = (
        f"{begin}\n\n### Census break sites `graphmend check` reports: transformers {version}\n\n"
        f"`python bench/census/recall.py{' ' + source if source else ''}`: of the {total} break sites the census measured on the "
        f"original models (Dynamo's graph-break log, one entry per architecture and site; "
        f"`{census.relative_to(ROOT)}`), `graphmend check` over the same sources reports **{len(found)} "
        f"({share})**: a finding covers the site's line.\n\n"
        "| site missed | Dynamo's cause | architectures |\n|---|---|---:|\n"
        f"{rows}\n\n{end}"
    )
    replace_section(ROOT / "bench" / "RESULTS.md", begin, end, section)


if __name__ == "__main__":
    main()
