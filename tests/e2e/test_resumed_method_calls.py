"""GM415 against Dynamo: each tensor method call in programs/resumed_method_calls.py whose
arguments hold a data-dependent-shape break is logged as "Attempted to call function marked as
skipped" at the call's first line (torch 2.13, Python 3.11); those lines, the lines the program
marks `# expect: GM415 reported`, and graphmend's GM415 findings are the same set. A torch function
(`torch.cat`), a list's method, the break in a statement of its own, and a function Dynamo skips
for a break in its loop are neither logged nor reported, and every output equals eager's."""
from __future__ import annotations

import pathlib

from dynamo_sites import findings_match_breaks

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM = PROGRAMS / "resumed_method_calls.py"


def test_resumed_method_calls_match_dynamo(graphmend_bin):
    diagnostics = findings_match_breaks(graphmend_bin, PROGRAM, "GM415", "Attempted to call function marked as skipped", 3)
    first = min(diagnostics, key=lambda d: d["location"]["row"])
    assert "the break at line 16 (GB0036: Dynamic shape operator) is inside the arguments of `x.masked_scatter`" in first["message"], first
    assert "GB0007: Attempted to call function marked as skipped" in first["message"], first
