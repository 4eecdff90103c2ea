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

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fact_tables import API_FACTS as TABLE, graph_break_entries, rows  # noqa: E402
from generated_table import wants_check  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- api-facts: (\w+) -->\n)(.*?)(<!-- /api-facts -->)", re.S)


def graph_breaks() -> dict[str, str]:
    """GraphBreak enumerator -> "GB0007 Attempted to call function marked as skipped"."""
    return {name: f"{gb_id} {text}" for name, gb_id, text, _ in graph_break_entries()}


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
