"""GM413 against Dynamo: each comprehension of programs/comprehension_frames.py that Dynamo, once it
skips the function around it, starts as a frame of its own and fails to iterate is logged as
"Missing tp_iternext" at the comprehension's first line (torch 2.13, Python 3.11). Those lines, the
lines the program marks `# expect: GM413 reported`, and graphmend's GM413 findings are the same set; every other
comprehension (a tuple, range, tensor or shape iterable; no torch module, tensor or module read; a
generator expression; a function Dynamo does not skip, or compiles up to a break first) is
neither logged nor reported."""
from __future__ import annotations

import pathlib
import sys

import pytest
from dynamo_sites import findings_match_breaks

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM = PROGRAMS / "comprehension_frames.py"

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                                reason="comprehensions are frames of their own up to Python 3.11 (PEP 709)")


def test_comprehension_frames_match_dynamo(graphmend_bin):
    diagnostics = findings_match_breaks(graphmend_bin, PROGRAM, "GM413", "Missing tp_iternext", 14)
    # Each message names the loop whose break makes Dynamo skip the function, and the iterable.
    first = min(diagnostics, key=lambda d: d["location"]["row"])
    assert "Dynamo skips `zip_before_loop` for the break in the loop at line" in first["message"], first
    assert "the iterator of `zip(xs, ys)`" in first["message"], first
    assert "GB4347: Missing tp_iternext" in first["message"], first
