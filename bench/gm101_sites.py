"""Where [Where] stands over transformers (issue 16, goal 6): every GM101 site, whether plain
`graphmend fix` fixes it, and each decline reason with its count.

    bash bench/check_speed.sh     # makes bench/.venv with transformers==4.52.4 (once)
    bench/.venv/bin/python bench/gm101_sites.py

Runs `graphmend check --output-format json-lines` (no fix is written) over the installed
transformers, groups the GM101 sites by decline reason (the reason with its quoted names and
code replaced by `…`, so one reason is one row) and writes bench/results/gm101_sites.json and the
GM101 section of bench/RESULTS.md. Seconds.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from _sections import replace_section  # noqa: E402  (bench/ is not a package)

BEYOND_WHERE = ("python-value-selected", "branch-decides-control")
BEGIN = "<!-- gm101: begin (bench/gm101_sites.py writes this section) -->"
END = "<!-- gm101: end -->"


def sites(graphmend: str, tree: pathlib.Path) -> list[dict]:
    """GM101 findings of plain `graphmend check`: a safe fix, an unsafe one (offered, not applied
    without `--unsafe-fixes`) or a decline reason."""
    cmd = [graphmend, "check", "--no-cache", "--fix-generated", "--output-format", "json-lines", tree.name]
    out = subprocess.run(cmd, cwd=tree.parent, capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        sys.exit(f"graphmend check failed ({out.returncode}): {out.stderr}")
    found = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return [d for d in found if d["code"] == "GM101"]


KEEP = {"if", "elif", "else", "try", "with", "return", "raise", "name = value", "register_buffer", "and", "or"}


def pattern(reason: str) -> str:
    """The reason with its site-specific code replaced by `…`; keywords stay, and a branch
    statement keeps its first word (`return …`)."""
    def quoted(match: re.Match) -> str:
        text = match.group(1)
        if text in KEEP:
            return match.group(0)
        first = text.split()[0] if text.split() else ""
        if first in ("return", "raise", "continue", "break", "yield") or first.endswith("("):
            return f"`{first} …`"
        return "`…`"

    return re.sub(r"`([^`]*)`", quoted, reason)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--transformers", default=None, help="the package folder (default: bench/.venv's)")
    args = parser.parse_args()
    if args.transformers:
        tree = pathlib.Path(args.transformers)
    else:
        found = sorted((ROOT / "bench" / ".venv" / "lib").glob("python3*/site-packages/transformers"))
        if not found:
            sys.exit("no transformers in bench/.venv: run `bash bench/check_speed.sh` once")
        tree = found[0]
    version = next(tree.parent.glob("transformers-*.dist-info")).name.split("-")[1].removesuffix(".dist")

    plain = sites(args.graphmend, tree)
    safe_fixed = [d for d in plain if d.get("fix") and d["fix"]["applicability"] == "safe"]
    unsafe_only = [d for d in plain if d.get("fix") and d["fix"]["applicability"] != "safe"]
    declined = [d for d in plain if not d.get("fix")]
    rows = collections.Counter(pattern(d.get("decline_reason") or "(no reason)") for d in declined)
    examples: dict[str, str] = {}
    for d in declined:
        key = pattern(d.get("decline_reason") or "(no reason)")
        examples.setdefault(key, f"{d['filename'].removeprefix('transformers/')}:{d['location']['row']}")
    unsafe_reasons = collections.Counter(pattern(d["fix"]["title"]) for d in unsafe_only)
    codes = collections.Counter(d.get("decline_code") or "(none)" for d in declined)
    # Sites whose `if` no selection of tensor values can express, however good the analysis: a
    # Python value among the candidates, or a branch that decides which statements run next.
    beyond_where = sum(codes[c] for c in BEYOND_WHERE)
    literals = sorted({m.group(1) for d in declined if d.get("decline_code") == "python-value-selected"
                       for m in [re.search(r"Python value `([^`]*)`", d.get("decline_reason") or "")] if m})

    result = {
        "transformers": version,
        "gm101_sites": len(plain),
        "fixed_by_plain_fix": len(safe_fixed),
        "fixed_only_with_unsafe_fixes": len(unsafe_only),
        "declined": len(declined),
        "beyond_torch_where": beyond_where,
        "decline_codes": dict(codes.most_common()),
        "decline_reasons": dict(rows.most_common()),
        "unsafe_reasons": dict(unsafe_reasons.most_common()),
    }
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "gm101_sites.json").write_text(json.dumps(result, indent=2) + "\n")

    lines = [
        BEGIN,
        "",
        f"## [Where] over transformers {version}: GM101 sites and why each is left",
        "",
        "`bench/.venv/bin/python bench/gm101_sites.py` (seconds; `graphmend check`, nothing written).",
        (
            f"{len(plain)} GM101 sites: **{len(safe_fixed)} fixed by plain `graphmend fix`**, "
            f"{len(unsafe_only)} more with `--unsafe-fixes`, {len(declined)} declined [goal of issue 16: "
            f">= 150 by plain fix]. A reason's quoted names are replaced by `…`; the example is its first site."
        ),
        "",
        (
            f"{beyond_where} of the declined sites are beyond any torch.where selection "
            f"({', '.join(f'`{c}`' for c in BEYOND_WHERE)}: a Python value among the candidates, here "
            f"{', '.join(f'`{v}`' for v in literals)}; or a "
            f"`continue`/`break` deciding which statements run), so a sound [Where] rewrite fixes at most "
            f"{len(plain) - beyond_where} of these {len(plain)} sites."
        ),
        "",
        "| decline code (`decline_code` in JSON) | sites |",
        "|---|---:|",
        *[f"| `{code}` | {count} |" for code, count in codes.most_common()],
        "",
        "| declined because | sites | first example |",
        "|---|---:|---|",
    ]
    lines += [f"| {reason} | {count} | {examples[reason]} |" for reason, count in rows.most_common()]
    lines += ["", "| fixed only with `--unsafe-fixes` because | sites |", "|---|---:|"]
    lines += [f"| {reason} | {count} |" for reason, count in unsafe_reasons.most_common()]
    lines += ["", END]
    replace_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, "\n".join(lines))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
