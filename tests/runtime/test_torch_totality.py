"""The table of which tensor operations torch accepts for every shape, by dtype class
(src/analysis/torch_totality.inc), which [Where] relies on for code the original may skip:
regenerated from the installed torch it must not drift, and what it says (and leaves out) holds
on real tensors."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import warnings

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "torch_totality.py"
TABLE = ROOT / "src" / "analysis" / "torch_totality.inc"
BOOL, INTEGER, FLOATING, COMPLEX = 1, 2, 4, 8


def _forms() -> dict[str, int]:
    return {m[1]: int(m[2]) for m in re.finditer(r'^GM_TOTAL_FORM\("(.*)", (\d+)\)$', TABLE.read_text(), re.M)}


def test_the_checked_in_table_is_what_torch_says():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + f"\nregenerate: .venv/bin/python {SCRIPT.relative_to(ROOT)}"
    assert torch.__version__.split("+")[0] in TABLE.read_text().splitlines()[0]


def test_the_table_lists_operators_and_calls_once_each():
    lines = [line for line in TABLE.read_text().splitlines() if line.startswith("GM_TOTAL_FORM(")]
    forms = _forms()
    assert len(lines) == len(forms) > 200
    assert {"x - n", "-x", "Tensor.abs()", "torch.clamp(x, min=n, max=n)", "torch.nn.functional.gelu(x)"} <= set(forms)


def _raises(call) -> bool:
    try:
        call()
    except Exception:  # noqa: BLE001
        return True
    return False


@pytest.mark.parametrize("form, call, dtype_class", [
    # Every dtype, every shape.
    ("Tensor.sum()", lambda x: x.sum(), COMPLEX), ("torch.isinf(x)", torch.isinf, BOOL),
    ("x * n", lambda x: x * 2.5, BOOL), ("x + n", lambda x: x + 1, BOOL),
    # Floating-point, with numbers of either sign, zero included.
    ("torch.clamp(x, min=n, max=n)", lambda x: torch.clamp(x, min=-0.5, max=0.0), FLOATING),
    ("x // n", lambda x: x // 0, FLOATING), ("Tensor.mean()", lambda x: x.mean(), FLOATING),
])
def test_a_form_the_table_lists_holds_for_its_dtype_classes(form, call, dtype_class):
    assert _forms()[form] & dtype_class, form
    dtype = {BOOL: torch.bool, INTEGER: torch.int64, FLOATING: torch.float16, COMPLEX: torch.complex64}[dtype_class]
    for shape in [(), (0,), (2, 0, 3), (2, 3)]:
        x = torch.zeros(shape, dtype=dtype)
        assert not _raises(lambda: call(x)), (form, shape)


@pytest.mark.parametrize("form, failing", [
    # Where the table says a dtype class is missing, torch raises for it.
    ("x - n", lambda: torch.tensor([True]) - 1),                  # no bool subtraction
    ("-x", lambda: -torch.tensor([True])),                         # no bool negation
    ("x // n", lambda: torch.tensor([3]) // 0),                    # integer division by zero
    ("x ** n", lambda: torch.tensor([3]) ** -1),                   # integers to negative powers
    ("~x", lambda: ~torch.tensor([1.5])),                          # no float bitwise not
    ("Tensor.mean()", lambda: torch.tensor([1, 2]).mean()),        # no integer mean
    ("x < n", lambda: torch.tensor([1j]) < 1),                     # complex is unordered
    ("Tensor.float()", lambda: torch.tensor([1j]).float()),        # warns: the imaginary part is dropped
])
def test_a_missing_dtype_class_is_one_torch_rejects(form, failing):
    dtype = {"x - n": BOOL, "-x": BOOL, "x // n": INTEGER, "x ** n": INTEGER, "~x": FLOATING,
             "Tensor.mean()": INTEGER, "x < n": COMPLEX, "Tensor.float()": COMPLEX}[form]
    assert not _forms()[form] & dtype, form
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning is emitted text the original would not print
        torch.set_warn_always(True)
        try:
            assert _raises(failing), form
        finally:
            torch.set_warn_always(False)


@pytest.mark.parametrize("form, failing", [
    # Left out altogether: each raises for some shape, so graphmend declines them in a branch.
    ("Tensor.amax()", lambda: torch.zeros(0).amax()),              # an empty tensor
    ("Tensor.max()", lambda: torch.zeros(0).max()),
    ("Tensor.t()", lambda: torch.zeros(2, 3, 4).t()),              # more than two dimensions
    ("Tensor.softmax()", lambda: torch.zeros(2).softmax()),        # needs its dim
    ("Tensor.view(n, n)", lambda: torch.zeros(3).view(2, -1)),     # a shape torch cannot view
    ("Tensor.mT", lambda: torch.zeros(3).mT),                      # an attribute: below two dimensions
])
def test_a_form_left_out_raises_for_some_shape(form, failing):
    assert form not in _forms()
    assert _raises(failing), form
