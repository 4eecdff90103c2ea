"""The programs hostile testing wrote against graphmend (issue 45, defects 1 to 4), run before and
after a plain `graphmend fix` with the differential fuzzer's comparison (tests/difffuzz): eager,
compiled with `eager` and `aot_eager`, grad off and on; results bit for bit, exceptions,
printed text, log records, warnings and gradients. Every fixed file compiles with CPython and a
second fix changes nothing."""
from __future__ import annotations

import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "difffuzz"))
import differential  # noqa: E402

PROGRAMS = sorted((HERE / "hostile").glob("*.py"))


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_fixed_program_behaves_as_the_original(graphmend_bin, tmp_path, program):
    divergences, stats = differential.run_programs({0: program.read_text()}, graphmend_bin, tmp_path, jobs=1)
    assert stats["changed"] == 1, "graphmend fixes some site of the program"
    assert not divergences, "\n".join(d.line() for d in divergences)
