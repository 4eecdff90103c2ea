"""The graph breaks are one table (issue 48, item 6): docs/graph_breaks.md is what
scripts/graph_break_table.py writes from kGraphBreakTable, so a new break, a changed id or changed
words fail here until the page is regenerated (`python3 scripts/graph_break_table.py`); and no other
source file writes a break id in a string: the rules name a break by its enumerator."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "graph_break_table.py"
HEADER = ROOT / "include" / "graphmend" / "analysis" / "graph_breaks.h"
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def test_graph_breaks_page_is_current():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_table_lists_every_break_in_id_order():
    header = HEADER.read_text()
    enum = header[header.index("enum class GraphBreak"):]
    names = re.findall(r"^\s+([A-Z]\w+),", enum[:enum.index("};")], re.M)
    rows = re.findall(r'\{GraphBreak::(\w+),\s*"(GB\d{4})"', header)
    assert [name for name, _ in rows] == names  # every enumerator, in order
    ids = [gb_id for _, gb_id in rows]
    assert ids == sorted(set(ids))  # unique, increasing
    page = (ROOT / "docs" / "graph_breaks.md").read_text()
    missing = [gb_id for gb_id in ids if f"| `{gb_id}` |" not in page]
    assert not missing, missing


def test_no_other_source_writes_a_break_id():
    found = []
    for path in sorted([*(ROOT / "src").rglob("*"), *(ROOT / "include").rglob("*")]):
        if path.suffix not in {".cpp", ".h", ".inc", ".c"} or path == HEADER:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if any(re.search(r"GB\d{4}", s) for s in STRING.findall(line)):
                found.append(f"{path.relative_to(ROOT)}:{number}")
    assert not found, found
