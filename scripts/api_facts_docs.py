"""Writes the lists of APIs in the rule documents from the one table of API facts (kRows in
src/analysis/api_facts.cpp), so a document names exactly the APIs its rule acts on. A list sits
between `<!-- api-facts: FACT -->` and `<!-- /api-facts -->` in a rules/*.md file and names, in the
table's order, every row that has FACT. `--check` says whether every document is current (the test
command runs it: tests/cli/test_api_facts.py).

    python3 scripts/api_facts_docs.py [--check]

`rows()` is also what tests read to tie other copies of these facts (the runtime's) to the table.
"""
from __future__ import annotations

import pathlib
import re
import sys
import textwrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from generated_table import wants_check  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
TABLE = ROOT / "src" / "analysis" / "api_facts.cpp"
BLOCK = re.compile(r"(<!-- api-facts: (\w+) -->\n)(.*?)(<!-- /api-facts -->)", re.S)


def rows() -> list[tuple[str, str, set[str]]]:
    """(space, name, facts) for each row of kRows, in the table's order."""
    source = TABLE.read_text()
    table = source[source.index("constexpr Row kRows[] = {"):]
    table = table[:table.index("\n};")]
    found = re.findall(r'\{Space::(\w+), "([^"]+)", ([^}]*)\}', table)
    return [(space, name, set(re.findall(r"F::(\w+)", facts))) for space, name, facts in found]


def listing(fact: str) -> str:
    """The names of the rows with `fact`, as one Markdown line: `math.sqrt`, `math.ceil`, ..."""
    names = [name for _, name, facts in rows() if fact in facts]
    if not names:
        raise SystemExit(f"no row of {TABLE.name} has the fact {fact}")
    return textwrap.fill(", ".join(f"`{name}`" for name in names), width=100, break_long_words=False,
                         break_on_hyphens=False) + "\n"


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
        print(f"out of date: {', '.join(stale)}: run {pathlib.Path(__file__).name}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
