"""The differential fuzzer's own parts (tests/difffuzz): a program is a function of its seed, and
the comparison catches every kind of divergence it is there to catch (a planted one of each)."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "difffuzz"))
import differential  # noqa: E402
import generate  # noqa: E402

ORIGINAL = '''import logging
import warnings
import torch
logger = logging.getLogger("difffuzz")
def f(x):
    print("v", x.sum())
    logger.warning("msg %s", 1)
    warnings.warn("careful 1")
    if x.sum() > 100:
        raise ValueError("n=1")
    y = x * 2
    return y, y
FUNCTIONS = ["f"]
EAGER_ONLY = []
EAGER_REFERENCE = []
def cases():
    return {"f": [(torch.ones(3),), (torch.full((3,), 50.0),)]}
'''

PLANTED = {
    "printed text": ('print("v", x.sum())', 'print("v ", x.sum())'),
    "log record": ('logger.warning("msg %s", 1)', 'logger.info("msg %s", 1)'),
    "warning": ('warnings.warn("careful 1")', 'warnings.warn("careful 1", DeprecationWarning)'),
    "exception message": ('raise ValueError("n=1")', 'raise ValueError("n=2")'),
    "a value's bits": ("y = x * 2", "y = x * 2.0000005"),
    "dtype": ("y = x * 2", "y = (x * 2).double()"),
    "identity": ("return y, y", "return y, y.clone()"),
    "gradient": ("y = x * 2", "y = x * 2 - x.detach() + x"),  # the same bits, twice the gradient
}


def test_a_program_is_a_function_of_its_seed():
    assert generate.program(7) == generate.program(7)
    assert generate.program(7) != generate.program(8)
    compile(generate.program(7), "prog_7.py", "exec")


@pytest.mark.parametrize("what", PLANTED)
def test_each_planted_divergence_is_caught(tmp_path, what):
    before, after = PLANTED[what]
    original, fixed = tmp_path / "a.py", tmp_path / "b.py"
    original.write_text(ORIGINAL)
    fixed.write_text(ORIGINAL.replace(before, after))
    assert differential.compare_program(1, str(original), str(fixed)), what


def test_no_divergence_between_equal_programs(tmp_path):
    original, fixed = tmp_path / "a.py", tmp_path / "b.py"
    original.write_text(ORIGINAL)
    fixed.write_text(ORIGINAL + "\n# a comment\n")
    assert differential.compare_program(1, str(original), str(fixed)) == []
