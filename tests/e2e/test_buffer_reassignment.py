"""GM416 against Dynamo: each store in programs/buffer_reassignment.py of an `nn.Buffer`-made
buffer that a conversion hands back unchanged breaks with "Unsupported python_type() call" inside
torch's Module.register_buffer, its innermost frame in the program being the store
(`torch._dynamo.explain`, torch 2.13, Python 3.11). Those lines, the lines the program marks
`# expect: GM416 reported`, and graphmend's GM416 findings are the same set. A buffer registered
from a plain tensor, a plain tensor attribute, a conversion kept in a local and
`.detach()`/`.clone()`/`.view()` neither break nor are reported, and every output equals eager's."""
from __future__ import annotations

import pathlib

from dynamo_sites import explained_break_lines, findings_match_breaks

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM = PROGRAMS / "buffer_reassignment.py"


def test_buffer_reassignment_matches_dynamo(graphmend_bin):
    diagnostics = findings_match_breaks(graphmend_bin, PROGRAM, "GM416", "Unsupported python_type() call", 11, explained_break_lines)
    first = min(diagnostics, key=lambda d: d["location"]["row"])
    assert "`self.pos_encoding` is an `nn.Buffer` (line 19)" in first["message"], first
    assert "GB4841: Unsupported python_type() call" in first["message"], first
    derived = max(diagnostics, key=lambda d: d["location"]["row"])
    assert "(line 49)" in derived["message"], derived
