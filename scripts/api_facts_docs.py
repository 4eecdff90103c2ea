"""Writes the lists of APIs in the rule documents from the one table of API facts (kRows in
src/analysis/api_facts.cpp), so a document names exactly the APIs its rule acts on. A list sits
between `<!-- api-facts: FACT -->` and `<!-- /api-facts -->` in a rules/*.md file and names, in the
table's order, every row that has FACT (`Breaks`: GM409's table of calls and their breaks).
`--check` says whether every document is current (the test command runs it:
tests/cli/test_api_facts.py).

    python3 scripts/api_facts_docs.py [--check]

`rows()` is also what tests read to tie other copies of these facts (the runtime's) to the table.
"""
from __future__ import annotations

import pathlib
import re
import sys
import textwrap
from typing import NamedTuple

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from generated_table import wants_check  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
TABLE = ROOT / "src" / "analysis" / "api_facts.cpp"
BLOCK = re.compile(r"(<!-- api-facts: (\w+) -->\n)(.*?)(<!-- /api-facts -->)", re.S)


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
    source = TABLE.read_text()
    table = source[source.index("constexpr Row kRows[] = {"):]
    table = table[:table.index("\n};")]
    out = []
    for line in table.splitlines()[1:]:
        if line.strip().startswith("//") or not line.strip():
            continue
        found = ROW.match(line)
        if not found:
            raise SystemExit(f"{TABLE.name}: cannot read the row {line.strip()!r}")
        space, name, facts, graph_break, size = found.groups()
        out.append(Row(space, name, set(re.findall(r"F::(\w+)", facts)), graph_break, size))
    return out


def graph_breaks() -> dict[str, str]:
    """GraphBreak enumerator -> "GB0007 Attempted to call function marked as skipped"."""
    import graph_break_table

    header = graph_break_table.HEADER.read_text()
    return {name: f"{gb_id} {text}" for name, gb_id, text, _ in graph_break_table.entries(header)}


def breaking_calls() -> str:
    """GM409's table: the calls that break, grouped by how, one line per group."""
    words = graph_breaks()
    groups: dict[tuple[str, str, str], list[str]] = {}
    for r in rows():
        for fact in ("Breaks", "BreaksOnTensor"):
            if fact not in r.facts:
                continue
            if r.space == "LoggerMethod":
                call = f"a logger's `{r.name}()`"
            elif fact == "BreaksOnTensor":
                call = f"`{r.name}(t)` of a tensor"
            elif r.size_argument:
                call = f"`{r.name}()` without a size"
            else:
                call = f"`{r.name}()`"
            groups.setdefault((r.space, fact, r.graph_break or ""), []).append(call)
    lines = ["| call | Dynamo's break |", "|---|---|"]
    for (_, _, graph_break), calls in groups.items():
        lines.append(f"| {', '.join(calls)} | {words[graph_break]} |")
    return "\n".join(lines) + "\n"


def listing(fact: str) -> str:
    """The rows with `fact` as Markdown: `math.sqrt`, `math.ceil`, ... (for Breaks, GM409's
    table)."""
    if fact == "Breaks":
        return breaking_calls()
    items = []
    for r in rows():
        if fact not in r.facts:
            continue
        name = f"`Tensor.{r.name}`" if r.space == "TensorMethod" else f"`{r.name}`"
        if fact == "TakesSize" and r.size_argument and r.size_argument.isdigit():
            name += f" ({r.size_argument})"  # the one argument that is the size
        items.append(name)
    if not items:
        raise SystemExit(f"no row of {TABLE.name} has the fact {fact}")
    text = ", ".join(items)
    return textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False) + "\n"


def rendered(document: str) -> str:
    return BLOCK.sub(lambda m: m[1] + listing(m[2]) + m[4], document)


def main() -> int:
    stale = []
    for path in sorted((ROOT / "rules").glob("*.md")):
        text = path.read_text()
        new = rendered(text)
        if new == text:
            continue
        if wants_check():
            stale.append(path.name)
        else:
            path.write_text(new)
    if stale:
        script = pathlib.Path(__file__).name
        print(f"out of date: {', '.join(stale)}: run {script}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
