"""GM413 against Dynamo: each comprehension of programs/comprehension_frames.py that Dynamo, once it
skips the function around it, starts as a frame of its own and fails to iterate is logged as
"Missing tp_iternext" at the comprehension's first line (torch 2.13, Python 3.11). Those lines, the
lines the program marks `# expect: GM413 reported`, and graphmend's GM413 findings are the same set; every other
comprehension (a tuple, range, tensor or shape iterable; no torch module, tensor or module read; a
generator expression; a function Dynamo does not skip, or compiles up to a break first) is
neither logged nor reported."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from dynamo_sites import logged_break_lines

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM = PROGRAMS / "comprehension_frames.py"

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                                reason="comprehensions are frames of their own up to Python 3.11 (PEP 709)")


def test_comprehension_frames_match_dynamo(graphmend_bin):
    marked = {i for i, line in enumerate(PROGRAM.read_text().splitlines(), 1) if "# expect: GM413 reported" in line}
    assert len(marked) == 14
    logged = logged_break_lines(PROGRAMS, PROGRAM, "Missing tp_iternext")
    assert logged == marked, f"logged but not marked: {sorted(logged - marked)}; marked, not logged: {sorted(marked - logged)}"
    out = subprocess.run([graphmend_bin, "check", "--output-format", "json", "--select", "GM413", str(PROGRAM)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    diagnostics = json.loads(out.stdout)["diagnostics"]
    assert {d["location"]["row"] for d in diagnostics} == marked
    # Each message names the loop whose break makes Dynamo skip the function, and the iterable.
    first = min(diagnostics, key=lambda d: d["location"]["row"])
    assert "Dynamo skips `zip_before_loop` for the break in the loop at line" in first["message"], first
    assert "the iterator of `zip(xs, ys)`" in first["message"], first
    assert "GB4347: Missing tp_iternext" in first["message"], first
