"""[Trap] behaviour on real PyTorch: a patched validation guard raises the original exception
class and message from the compiled call, in program order, without graph breaks.

For every case of trap/trap_forms.py, graphmend fixes a copy; then a sequence of calls
(passing, failing, passing, failing ...) runs through:

- the original, eagerly: the reference results (outputs, or exception class and message) and
  everything emitted;
- the patched copy, eagerly: identical;
- the patched copy compiled with fullgraph=True on backend eager / aot_eager / inductor: the same
  exceptions and emitted text, the same outputs (bit for bit; Inductor within float32 rounding),
  and one graph for the whole sequence: no break, no recompile between passing and failing inputs;
- the original compiled with fullgraph=True: fails, proving the guard really broke the graph.
"""
from __future__ import annotations

import pathlib

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import behaviour
from behaviour import assert_same_results, capture, run_all, same_result

TRAP = pathlib.Path(__file__).resolve().parent / "trap" / "trap_forms.py"
behaviour.PROGRAM_NAMES.add(TRAP.name)
BACKENDS = ["eager", "aot_eager", "inductor"]


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    return behaviour.fixed_pair(graphmend_bin, TRAP, tmp_path_factory.mktemp("trap"))


def _names():
    spec = __import__("importlib.util").util.spec_from_file_location("_trap_ids", TRAP)
    module = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [name for name, *_ in module.cases()]


NAMES = _names()


def _sequence(module, name):
    """The calls of one case: every passing input, then every failing one, then both again."""
    _, target, passing, failing = next(c for c in module.cases() if c[0] == name)
    calls = (passing + failing) * 2
    return target, calls


def _check_failures_happen(results, calls_count):
    assert any(isinstance(r, BaseException) for r in results), "each case must exercise the failure path"


@pytest.mark.parametrize("name", NAMES)
def test_patched_eager_is_identical(pair, name):
    original, patched, _ = pair
    target, calls = _sequence(original, name)
    ref_events, ref = capture(lambda: run_all(target, calls))
    _check_failures_happen(ref, len(calls))
    target, calls = _sequence(patched, name)
    events, out = capture(lambda: run_all(target, calls))
    assert events == ref_events
    assert same_result(out, ref)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_patched_compiled_raises_the_original_exception(pair, name, backend):
    original, patched, _ = pair
    target, calls = _sequence(original, name)
    ref_events, ref = capture(lambda: run_all(target, calls))

    target, calls = _sequence(patched, name)
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(target, backend=backend, fullgraph=True)
    events, out = capture(lambda: run_all(compiled, calls))
    assert_same_results(out, ref, exact=backend != "inductor")
    assert events == ref_events
    # Distinct input shapes are distinct graphs; flipping between passing and failing is not.
    shapes = {tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else a for a in args) for args in calls}
    assert counters["stats"]["unique_graphs"] == len(shapes), "no break, no recompile on pass/fail flips"


@pytest.mark.parametrize("name", NAMES)
def test_original_breaks_the_graph(pair, name):
    original, _, _ = pair
    target, calls = _sequence(original, name)
    torch._dynamo.reset()
    _events, out = capture(lambda: torch.compile(target, backend="eager", fullgraph=True)(*calls[0]))
    assert isinstance(out, torch._dynamo.exc.Unsupported), f"expected a graph break, got {out!r}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_async_tier(graphmend_bin, tmp_path, backend):
    """`fix --trap-async` emits torch._assert_async: no break, passing inputs unchanged, and a
    failing input raises RuntimeError with the guard's message (its documented divergence: the
    class is RuntimeError, not the original ValueError)."""
    import shutil
    import subprocess

    copy = tmp_path / "trap_async_forms.py"
    shutil.copy(TRAP, copy)
    out = subprocess.run([graphmend_bin, "fix", "--trap-async", "--select", "GM301", str(copy)],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    assert "_graphmend.assert_async(" in copy.read_text()
    patched = behaviour.import_path(copy, f"trap_async_forms_{backend}")
    target = patched.NegativeGuard()
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(target, backend=backend, fullgraph=True)
    good = torch.tensor([0.0, 1.0])
    assert torch.equal(compiled(good), target(good))
    with pytest.raises(RuntimeError, match="inputs must be non-negative"):
        compiled(torch.tensor([0.0, -1.0]))
    assert torch.equal(compiled(good), target(good))
    assert counters["stats"]["unique_graphs"] == 1


def test_every_way_of_requesting_compilation(pair):
    """The caller's code is never edited: the patched guard raises the original exception however
    compilation is requested, with no graph break (fullgraph=True) and no recompile."""
    original, patched, _ = pair
    good, bad = torch.tensor([0.0, 1.0]), torch.tensor([0.0, -3.0])
    for (style, _c, reference), (pstyle, compiled, _r) in zip(original.compile_styles(), patched.compile_styles()):
        assert style == pstyle
        torch._dynamo.reset()
        counters.clear()
        for x in (good, bad, good, bad):
            want = run_all(reference, [(x,)])
            assert_same_results(run_all(compiled, [(x,)]), want, context=style)
        assert counters["stats"]["unique_graphs"] == 1, style


@pytest.mark.parametrize("backend", BACKENDS)
def test_tensor_message_requiring_grad_runs_the_original_test(pair, backend):
    """A message tensor that requires grad cannot be carried into the check (its text shows
    grad_fn=): the compiled patched module tests the guard as the original does, so the same
    exception and message as the original compiled the same way (whose grad_fn, on aot_eager
    and inductor, is the compiled graph's), for passing and failing inputs."""
    original, patched, _ = pair
    calls = [(torch.tensor([1.0, 1.0]),), (torch.tensor([1.0, 2.0]),)] * 2
    torch._dynamo.reset()
    want = run_all(torch.compile(original.GradMessageGuard(), backend=backend), calls)
    torch._dynamo.reset()
    got = run_all(torch.compile(patched.GradMessageGuard(), backend=backend), calls)
    assert any(isinstance(w, BaseException) and "grad_fn=" in str(w) for w in want)
    assert_same_results(got, want, exact=backend != "inductor")


def test_tensor_message_under_export_fails_as_the_original(pair):
    """Under torch.export a [Trap] check becomes torch._assert_async with a message made at
    export time; a message formatted from a tensor cannot be made then, so the patched guard is
    tested as the original `if`, and export fails on it as it does on the original."""
    original, patched, _ = pair
    args = (torch.tensor([3, 1, 3]), 2)
    with pytest.raises(Exception) as want:
        torch.export.export(original.TokenCountGuard(), args)
    with pytest.raises(Exception) as got:
        torch.export.export(patched.TokenCountGuard(), args)
    assert type(got.value) is type(want.value), (got.value, want.value)
