"""GM414 against Dynamo: each use in programs/none_while_compiling.py that meets the None an
`is_compiling()` test leaves (a subscript, an attribute, a method, a mask passed two calls deep)
is logged as "Observed exception" at its line (torch 2.13); those lines, the lines the program marks
`# expect: GM414 reported`, and graphmend's GM414 findings are the same set. The uses left alone (a
test of the name around or before the use, a handler, a default made in every mode, a parameter
without a None default, a name bound again) are neither logged nor reported, and every output
equals eager's."""
from __future__ import annotations

import pathlib

from dynamo_sites import findings_match_breaks

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM = PROGRAMS / "none_while_compiling.py"


def test_none_while_compiling_matches_dynamo(graphmend_bin):
    diagnostics = findings_match_breaks(graphmend_bin, PROGRAM, "GM414", "Observed exception", 4)
    deep = next(d for d in diagnostics if "two calls deep" in PROGRAM.read_text().splitlines()[d["location"]["row"] - 1])
    assert "`mask_passed_down` passes it `mask` through `_local_mask`" in deep["message"], deep
    assert "raises AttributeError" in deep["message"] and "GB0088: Observed exception" in deep["message"], deep
