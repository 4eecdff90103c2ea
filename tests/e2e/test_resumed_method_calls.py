"""GM415 against Dynamo: each tensor method call in programs/resumed_method_calls.py whose
arguments hold a data-dependent-shape break is logged as "Attempted to call function marked as
skipped" at the call's first line (torch 2.13, Python 3.11); those lines, the lines the program
marks `# expect: GM415 reported`, and graphmend's GM415 findings are the same set. A torch function
(`torch.cat`), a list's method, the break in a statement of its own, and a function Dynamo skips
for a break in its loop are neither logged nor reported, and every output equals eager's."""
from __future__ import annotations

import json
import pathlib
import re
import subprocess

from dynamo_sites import logged_break_lines

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM = PROGRAMS / "resumed_method_calls.py"


def test_resumed_method_calls_match_dynamo(graphmend_bin):
    marked = {i for i, line in enumerate(PROGRAM.read_text().splitlines(), 1) if re.search(r"# expect: .*GM415 reported", line)}
    assert len(marked) == 3
    logged = logged_break_lines(PROGRAMS, PROGRAM, "Attempted to call function marked as skipped")
    assert logged == marked, f"logged but not marked: {sorted(logged - marked)}; marked, not logged: {sorted(marked - logged)}"
    out = subprocess.run([graphmend_bin, "check", "--output-format", "json", "--select", "GM415", str(PROGRAM)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    diagnostics = json.loads(out.stdout)["diagnostics"]
    assert {d["location"]["row"] for d in diagnostics} == marked
    first = min(diagnostics, key=lambda d: d["location"]["row"])
    assert "the break at line 16 (GB0036: Dynamic shape operator) is inside the arguments of `x.masked_scatter`" in first["message"], first
    assert "GB0007: Attempted to call function marked as skipped" in first["message"], first
