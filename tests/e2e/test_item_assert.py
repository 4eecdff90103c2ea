"""[Trap] of an `assert` on a `.item()` value (GM401): the patched program is the original eagerly
and compiled it raises the same AssertionError on the same inputs, with the whole function in one
graph and no recompile when an assert flips; where the comparison cannot be exact in a tensor
(several elements) `.item()` itself runs, with its error; `python -O` drops the asserts as before.
"""
from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import behaviour

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "programs" / "item_assert.py"
BACKENDS = ["eager", "aot_eager", "inductor"]
behaviour.PROGRAM_NAMES.add(PROGRAM.name)


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    original, patched, text = behaviour.fixed_pair(graphmend_bin, PROGRAM, tmp_path_factory.mktemp("item_assert"))
    assert text.count("_graphmend.item_compare(") == 5, text  # every assert is rewritten
    return original, patched


def outcome(call):
    """The result, or the exception's class and message."""
    try:
        return ("ok", call())
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return ("raised", type(error).__name__, str(error))


def same(a, b):
    if a[0] != b[0]:
        return False
    return a[1:] == b[1:] if a[0] == "raised" else behaviour.same_result(a[1], b[1])


x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
CASES = [
    # (class, inputs), passing and failing each assert
    ("Lengths", (x, torch.tensor([2, 3]), 3)),
    ("Lengths", (x, torch.tensor([2, 4]), 3)),
    ("Lengths", (x, torch.tensor([3, 3]), 3)),
    ("Floats", (torch.tensor([0.5, -1.0]),)),
    ("Floats", (torch.tensor([25.0, 1.0]),)),
    ("Floats", (torch.tensor([-0.75, -0.75]),)),
    ("Floats", (torch.tensor([-101.0, 99.0]),)),
    ("Floats", (torch.tensor([float("nan"), 1.0]),)),
    ("Half", (torch.tensor([1.0, 2.0], dtype=torch.float16),)),
    ("Half", (torch.tensor([1.0, 65504.0], dtype=torch.float16),)),
    ("Half", (torch.tensor([1.0, float("inf")], dtype=torch.float16),)),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CASES)]


def test_the_cases_take_both_ways(pair):
    original, _ = pair
    results = [outcome(lambda: getattr(original, name)()(*args))[0] for name, args in CASES]
    assert "ok" in results and "raised" in results


@pytest.mark.parametrize("name,args", CASES, ids=IDS)
def test_patched_eager_is_identical(pair, name, args):
    original, patched = pair
    assert same(outcome(lambda: getattr(patched, name)()(*args)), outcome(lambda: getattr(original, name)()(*args)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,args", CASES, ids=IDS)
def test_patched_compiled_matches_eager_in_one_graph(pair, name, args, backend):
    original, patched = pair
    expected = outcome(lambda: getattr(original, name)()(*args))
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(getattr(patched, name)(), backend=backend, fullgraph=True)
    got = outcome(lambda: compiled(*args))
    assert got[0] == expected[0] and (got[1:] == expected[1:] if got[0] == "raised"
                                      else behaviour.same_result(got[1], expected[1], exact=backend != "inductor"))
    assert counters["stats"]["unique_graphs"] == 1


@pytest.mark.parametrize("name", ["Lengths", "Floats", "Half"])
def test_the_original_breaks_the_graph_and_the_patched_does_not(pair, name):
    """Without fullgraph, `.item()` splits the original's graph (GB0124); the patched is one graph."""
    original, patched = pair
    args = next(a for n, a in CASES if n == name)
    breaks = []
    for module in (original, patched):
        torch._dynamo.reset()
        counters.clear()
        torch.compile(getattr(module, name)(), backend="eager")(*args)
        breaks.append(sum(counters["graph_break"].values()))
    assert breaks[0] > 0 and breaks[1] == 0


@pytest.mark.parametrize("name,failing", [("Lengths", (x, torch.tensor([2, 4]), 3)),
                                          ("Floats", (torch.tensor([float("nan"), 1.0]),))])
def test_under_fullgraph_the_patched_raises_what_eager_raises(pair, name, failing):
    """With fullgraph, Dynamo captures the original's `.item()` and turns its assert into a runtime
    assertion: a failing input raises RuntimeError("Runtime assertion failed ..."), where eager
    raises AssertionError. The patched program raises the AssertionError both ways."""
    original, patched = pair
    eager = outcome(lambda: getattr(original, name)()(*failing))
    torch._dynamo.reset()
    compiled_original = outcome(lambda: torch.compile(getattr(original, name)(), backend="eager",
                                                      fullgraph=True)(*failing))
    torch._dynamo.reset()
    compiled_patched = outcome(lambda: torch.compile(getattr(patched, name)(), backend="eager",
                                                     fullgraph=True)(*failing))
    assert eager[:2] == ("raised", "AssertionError")
    assert compiled_original[:2] == ("raised", "RuntimeError")
    assert compiled_patched == eager


def test_an_assert_flips_between_calls_without_a_recompile(pair):
    original, patched = pair
    inputs = [args for name, args in CASES if name == "Floats"]
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(patched.Floats(), backend="aot_eager", fullgraph=True)
    for args in inputs:
        assert same(outcome(lambda: compiled(*args)), outcome(lambda: original.Floats()(*args)))
    assert counters["stats"]["unique_graphs"] == 1


def test_several_elements_raise_what_item_raises(pair):
    """`lengths` of one row per batch, here [[2, 3]]: `.max()` is one element, so use a module
    whose receiver has two: the comparison cannot be a tensor; `.item()` runs and raises."""
    original, patched = pair
    args = (x, torch.tensor([2, 3]), 3)

    class TwoElements(torch.nn.Module):
        def forward(self, x, lengths, slen):
            return patched.Lengths.forward(self, x, lengths, slen)

    lengths_max = torch.Tensor.max
    expected = None
    try:
        torch.Tensor.max = lambda self, *a, **k: self  # the receiver keeps both elements
        expected = outcome(lambda: original.Lengths()(*args))
        torch._dynamo.reset()
        got = outcome(lambda: torch.compile(TwoElements(), backend="eager")(*args))
    finally:
        torch.Tensor.max = lengths_max
    assert expected[0] == "raised" and "cannot be converted to Scalar" in expected[2]
    assert got == expected


def test_python_dash_o_drops_the_asserts_as_before(pair, tmp_path):
    """Under `python -O` the original has no asserts; the patched program neither, compiled or not."""
    _, patched = pair
    script = f"""
import sys, torch
sys.path.insert(0, {str(pathlib.Path(patched.__file__).parent)!r})
import importlib.util
spec = importlib.util.spec_from_file_location("patched", {patched.__file__!r})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
failing = torch.tensor([25.0, 1.0])
print(m.Floats()(failing).tolist())
print(torch.compile(m.Floats(), backend="eager", fullgraph=True)(failing).tolist())
"""
    done = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[26.0, 2.0]\n[26.0, 2.0]\n"
