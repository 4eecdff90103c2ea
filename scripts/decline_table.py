"""Writes docs/declines.md, every decline reason graphmend reports, from the one table that
defines them (kDeclineTable in include/graphmend/rewrite/decline.h): its stable name (the JSON
report's `decline_code`), the sentence users read (`…` where a field goes) and the section of the
table it sits in; then every reason a fix is unsafe, from kUnsafeTable (rewrite/unsafe.h, the JSON
report's `fix.unsafe_code`). `--check` says whether the checked-in page is what this writes (the test
command runs it; tests/unit/decline_test.cpp checks every code has a row).

    python3 scripts/decline_table.py [--check]
"""
from __future__ import annotations

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from generated_table import wants_check, write_or_check  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEADER = ROOT / "include" / "graphmend" / "rewrite" / "decline.h"
UNSAFE_HEADER = ROOT / "include" / "graphmend" / "rewrite" / "unsafe.h"
PAGE = ROOT / "docs" / "declines.md"


def entries(header: str, table_name: str = "kDeclineTable", enum: str = "DeclineCode"):
    """(section, name, sentence) for each table entry, in the table's order."""
    table = header[header.index(f"{table_name} = "):]
    table = table[:table.index("\n});")]
    section, comment, entry = "", [], ""
    for line in table.splitlines()[1:]:
        line = line.strip()
        if line.startswith("//"):
            comment.append(line.lstrip("/").strip())
            continue
        if comment:
            section, comment = " ".join(comment), []
        if not line:
            continue
        entry += " " + line
        if entry.rstrip().endswith("},"):
            found = re.match(rf'\s*\{{{enum}::\w+,\s*"([a-z0-9-]+)",(.*)\}},$', entry.rstrip())
            entry = ""
            if found:
                sentence = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', found[2])).replace('\\"', '"')
                yield section, found[1], sentence.replace("{}", "…")


def page() -> str:
    lines = ["# Why graphmend declines a fix", "",
             "Every reason a finding carries no fix, as the JSON report's `decline_code` names it and the",
             "text report says it (`…` stands for the site's own names and values). Generated from",
             "`kDeclineTable` (include/graphmend/rewrite/decline.h) by `scripts/decline_table.py`; each rule's",
             "document (`graphmend rule CODE`) says why its declines keep behaviour identical.", ""]
    current = None
    for section, name, sentence in entries(HEADER.read_text()):
        if section != current:
            lines += ["", f"## {section}", "", "| decline code | what the report says |", "|---|---|"]
            current = section
        escaped = sentence.replace("|", "\\|")
        lines.append(f"| `{name}` | {escaped} |")
    lines += ["", "# Why a fix is unsafe", "",
              "An unsafe fix is applied only with `--unsafe-fixes`. Its title gives the reason after \"unsafe: \",",
              "and the JSON report names it as `fix.unsafe_code`. Generated from `kUnsafeTable`",
              "(include/graphmend/rewrite/unsafe.h)."]
    current = None
    for section, name, sentence in entries(UNSAFE_HEADER.read_text(), "kUnsafeTable", "UnsafeCode"):
        if section != current:
            lines += ["", f"## {section}", "", "| unsafe code | what the fix's title says after \"unsafe: \" |",
                      "|---|---|"]
            current = section
        escaped = sentence.replace("|", "\\|")
        lines.append(f"| `{name}` | {escaped} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(write_or_check(PAGE, page(), wants_check(), __file__))
