"""Every decline reason and every reason a fix is unsafe is documented (issue 48, item 5):
docs/declines.md is what scripts/decline_table.py writes from the two tables, so a new code, a renamed one or a changed
sentence fails here until the page is regenerated (`python3 scripts/decline_table.py`)."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "decline_table.py"


def test_declines_page_is_current():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def assert_every_code_has_a_row(header_name: str, enum_name: str):
    """The table in `header_name` lists every enumerator of `enum_name` once, in order, and the page
    has a row for each code's stable name."""
    header = (ROOT / "include" / "graphmend" / "rewrite" / header_name).read_text()
    enum = header[header.index(f"enum class {enum_name}"):]
    codes = re.findall(r"^\s+([A-Z]\w+),", enum[:enum.index("};")], re.M)
    names = re.findall(rf'\{{{enum_name}::(\w+),\s*"([a-z0-9-]+)"', header)
    assert [code for code, _ in names] == codes  # the table lists every code, in order
    page = (ROOT / "docs" / "declines.md").read_text()
    missing = [name for _, name in names if f"| `{name}` |" not in page]
    assert not missing, missing


def test_every_code_of_the_table_has_a_row():
    assert_every_code_has_a_row("decline.h", "DeclineCode")


def test_every_unsafe_code_has_a_row():
    assert_every_code_has_a_row("unsafe.h", "UnsafeCode")
