"""The two C++ tables of facts the generated documents are written from, read as the scripts
and tests need them: the table of API facts (kRows in src/analysis/api_facts.cpp) and the
graph-break table (kGraphBreakTable in include/graphmend/analysis/graph_breaks.h)."""
from __future__ import annotations

import pathlib
import re
from typing import NamedTuple

ROOT = pathlib.Path(__file__).resolve().parents[1]
API_FACTS = ROOT / "src" / "analysis" / "api_facts.cpp"
GRAPH_BREAKS = ROOT / "include" / "graphmend" / "analysis" / "graph_breaks.h"


class Row(NamedTuple):
    space: str
    name: str
    facts: set[str]
    graph_break: str | None  # the GraphBreak enumerator, for Breaks and BreaksOnTensor
    size_argument: str | None  # "kEveryPositional" or a position


ROW = re.compile(
    r'^\s*\{Space::(\w+), "([^"]+)", ([^,}]+)'  # space, name, facts
    r"(?:, (?:GraphBreak::(\w+)|\{\}))?(?:, (\w+))?"  # the break, the size argument
    r"\},(?:\s*//.*)?$")


def rows() -> list[Row]:
    """Every row of kRows, in the table's order."""
    source = API_FACTS.read_text()
    table = source[source.index("constexpr Row kRows[] = {"):]
    table = table[:table.index("\n};")]
    out = []
    for line in table.splitlines()[1:]:
        if line.strip().startswith("//") or not line.strip():
            continue
        found = ROW.match(line)
        if not found:
            raise SystemExit(f"{API_FACTS.name}: cannot read the row {line.strip()!r}")
        space, name, facts, graph_break, size = found.groups()
        out.append(Row(space, name, set(re.findall(r"F::(\w+)", facts)), graph_break, size))
    return out


LITERAL_OR_COMMA = re.compile(r'"((?:[^"\\]|\\.)*)"|(,)')


def graph_break_entries(header: str | None = None):
    """(enumerator, id, text, hint) for each table row, in the table's order."""
    header = GRAPH_BREAKS.read_text() if header is None else header
    table = header[header.index("kGraphBreakTable = "):]
    table = table[table.index("\n") + 1:table.index("\n});")]
    for row in re.split(r"\n\s*\{GraphBreak::", "\n" + table)[1:]:
        name, rest = row.split(",", 1)
        fields, current = [], ""
        for literal, comma in LITERAL_OR_COMMA.findall(rest):
            if comma:
                fields.append(current)
                current = ""
            else:
                current += literal.replace('\\"', '"')
        fields.append(current)
        yield name.strip(), fields[0], fields[1], fields[2]
