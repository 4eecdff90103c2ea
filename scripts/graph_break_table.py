"""Writes docs/graph_breaks.md, every PyTorch graph break graphmend reports, from the one table that
defines them (kGraphBreakTable in include/graphmend/analysis/graph_breaks.h): its registry id, Dynamo's
words as graphmend's messages cite them, what to do about it, and the rules whose source names it.
`--check` says whether the checked-in page is what this writes (tests/cli/test_graph_break_docs.py
runs it, and checks the table is in id order and that no other source file writes an id).

    python3 scripts/graph_break_table.py [--check]
"""
from __future__ import annotations

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fact_tables import graph_break_entries as entries, rows  # noqa: E402
from generated_table import wants_check, write_or_check  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEADER = ROOT / "include" / "graphmend" / "analysis" / "graph_breaks.h"
RULES = ROOT / "src" / "rules"
PAGE = ROOT / "docs" / "graph_breaks.md"

def reporters() -> dict[str, list[str]]:
    """The rule codes whose source file names each enumerator."""
    found: dict[str, set[str]] = {}
    for source in sorted(RULES.glob("*.cpp")):
        text = source.read_text()
        code = re.search(r'RuleInfo kInfo\{"(GM\d+)"', text)
        if not code:
            continue
        for name in set(re.findall(r"GraphBreak::(\w+)", text)):
            found.setdefault(name, set()).add(code[1])
    # The calls that break are rows of the table of API facts (Breaks, BreaksOnTensor), whose only
    # reader is GM409 (untraceable_call.cpp): a rule that reads them too must be added here.
    for row in rows():
        if row.graph_break:
            found.setdefault(row.graph_break, set()).add("GM409")
    out = {name: sorted(codes) for name, codes in found.items()}
    # rule.cpp, which runs every rule, adds a note to any rule's site inside a loop.
    for name in set(re.findall(r"GraphBreak::(\w+)", (RULES / "rule.cpp").read_text())):
        out.setdefault(name, ["every rule, in the message of a site inside a loop"])
    return out


def page() -> str:
    lines = ["# The graph breaks graphmend reports", "",
             "Every PyTorch graph break a finding can name, by its id in Dynamo's registry",
             "(`torch/_dynamo/graph_break_registry.json`; the JSON report's `graph_break_id`), with the words",
             "graphmend's messages cite it in and what to do about it. Generated from `kGraphBreakTable`",
             "(include/graphmend/analysis/graph_breaks.h) by `scripts/graph_break_table.py`; `graphmend rule CODE`",
             "says more about each rule.", "",
             "| id | what Dynamo says | what to do | reported by |", "|---|---|---|---|"]
    by_rule = reporters()
    for name, gb_id, text, hint in entries(HEADER.read_text()):
        cells = [f"`{gb_id}`", text, hint, ", ".join(by_rule.get(name, []))]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(write_or_check(PAGE, page(), wants_check(), __file__))
