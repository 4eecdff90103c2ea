"""[Where] behaviour on real PyTorch: a patched tensor branch selects with torch.where under
torch.compile and gives bit-identical results for inputs that take every branch.

graphmend fixes a copy of where/where_forms.py (with --unsafe-fixes, so the forms whose selected
tensor is a new object are applied too); then, for every case:

- the patched copy, eagerly: identical to the original (the eager path is the original code);
- compiled with fullgraph=True under torch.no_grad() on backend eager / aot_eager / inductor:
  the same results, bit for bit (Inductor within float32 rounding), and one graph per distinct
  input shape: no break, and no recompile when the branch taken flips between calls;
- with grad enabled, eager and compiled: the same values and the same gradients for every input
  (-0.0 counts as +0.0: torch.where's backward adds an exact zero), and where the fix is not gated
  on grad (a selection whose unselected branch provably contributes nothing), one graph;
- a condition with more than one element still raises the original's RuntimeError;
- the original compiled with fullgraph=True fails, proving the branch broke the graph.
"""
from __future__ import annotations

import importlib.util
import inspect
import pathlib
import shutil
import subprocess

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import behaviour
from behaviour import assert_same_results, run_all, same_result

WHERE = pathlib.Path(__file__).resolve().parent / "where" / "where_forms.py"
BACKENDS = ["eager", "aot_eager", "inductor"]


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("where")
    copy = workdir / WHERE.name
    shutil.copy(WHERE, copy)
    out = subprocess.run([graphmend_bin, "fix", "--unsafe-fixes", "--output-format", "concise", str(copy)],
                         capture_output=True, text=True)
    # Every site is rewritten but those of declined_cases(), one each.
    assert out.returncode == 1 and out.stdout.count(" GM101 ") == 2, out.stdout + out.stderr
    again = subprocess.run([graphmend_bin, "fix", "--unsafe-fixes", "--diff", str(copy)], capture_output=True, text=True)
    assert "\n@@ " not in again.stdout and "would apply" not in again.stdout, "a second fix must change nothing"
    return behaviour.import_path(WHERE, "where_forms__original"), behaviour.import_path(copy, "where_forms__patched")


def _names():
    spec = importlib.util.spec_from_file_location("_where_ids", WHERE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [name for name, *_ in module.cases()]


NAMES = _names()


def _case(module, name):
    _, target, inputs = next(c for c in module.cases() if c[0] == name)
    return target, inputs


def _shapes(inputs):
    return {tuple((tuple(a.shape), a.dtype) for a in args) for args in inputs}


@pytest.mark.parametrize("name", NAMES)
def test_patched_eager_is_identical(pair, name):
    original, patched = pair
    target, inputs = _case(original, name)
    reference = [target(*args) for args in inputs]
    target, inputs = _case(patched, name)
    assert same_result([target(*args) for args in inputs], reference)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_compiled_selection_is_identical_without_breaks(pair, name, backend):
    original, patched = pair
    target, inputs = _case(original, name)
    with torch.no_grad():
        reference = [target(*args) for args in inputs]
    target, inputs = _case(patched, name)
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(target, backend=backend, fullgraph=True)
    with torch.no_grad():
        results = [compiled(*args) for args in inputs * 2]  # every branch, twice
    assert same_result(results, reference * 2, exact=backend != "inductor")
    assert counters["stats"]["unique_graphs"] == len(_shapes(inputs)), "no break, no recompile on flips"


def _with_grad(target, inputs):
    """Each call's output (bits) and every input's gradient (None where none flows)."""
    out = []
    for args in inputs:
        leaves = [a.detach().clone().requires_grad_(a.is_floating_point()) for a in args]
        y = target(*leaves)
        if y.requires_grad:
            y.sum().backward()
        out.append((y.detach(), y.requires_grad, [a.grad for a in leaves]))
    return out


def _same_with_grad(got, want):
    for (y, rg, grads), (wy, wrg, wgrads) in zip(got, want, strict=True):
        assert same_result(y, wy) and rg == wrg
        for g, wg in zip(grads, wgrads, strict=True):
            assert (g is None) == (wg is None)
            if g is not None:  # -0.0 counts as +0.0; NaN where NaN
                assert torch.equal(torch.nan_to_num(g + 0.0, nan=7.0), torch.nan_to_num(wg + 0.0, nan=7.0))


@pytest.mark.parametrize("name", NAMES)
def test_grad_enabled_gives_the_originals_values_and_gradients(pair, name):
    """With grad enabled (training), eager and compiled: the original's values and gradients.
    A fix that is not gated on grad keeps the whole function in one graph there too."""
    original, patched = pair
    target, inputs = _case(original, name)
    reference = _with_grad(target, inputs)
    target, inputs = _case(patched, name)
    _same_with_grad(_with_grad(target, inputs), reference)  # the patched code, eagerly
    for backend in ("eager", "aot_eager"):
        torch._dynamo.reset()
        _same_with_grad(_with_grad(torch.compile(target, backend=backend), inputs), reference)
    source = inspect.getsource(type(target) if isinstance(target, torch.nn.Module) else target)
    if "is_grad_enabled" not in source and "_buffers" not in source:
        torch._dynamo.reset()
        counters.clear()
        _with_grad(torch.compile(target, backend="aot_eager", fullgraph=True), inputs)
        assert counters["stats"]["unique_graphs"] == len(_shapes(inputs))


def test_declined_forms_run_as_the_original(pair):
    original, patched = pair
    for (_, target, inputs), (_, ptarget, _) in zip(original.declined_cases(), patched.declined_cases()):
        assert same_result([ptarget(*args) for args in inputs], [target(*args) for args in inputs])


def test_multi_element_condition_still_raises(pair):
    original, patched = pair
    for (target, args), (ptarget, pargs) in zip(original.multi_element_cases(), patched.multi_element_cases()):
        with pytest.raises(RuntimeError) as expected:
            target(*args)
        for backend in BACKENDS:
            torch._dynamo.reset()
            with torch.no_grad(), pytest.raises(RuntimeError) as got:
                torch.compile(ptarget, backend=backend)(*pargs)
            assert str(got.value) == str(expected.value)


def _raised(target, args):
    """The exception's class and message; compiled, without the source location Dynamo appends
    ("from user code: File ..., line N"), which names the rewritten line."""
    try:
        target(*args)
    except Exception as e:  # noqa: BLE001 -- any exception, compared by class and message
        return type(e), str(e).split("\n\nfrom user code:")[0]
    return None


@pytest.mark.parametrize("backend", [None, *BACKENDS])
def test_first_atom_raises_the_originals_exception(pair, backend):
    original, patched = pair
    for (target, args), (ptarget, pargs) in zip(original.raising_cases(), patched.raising_cases(), strict=True):
        if backend is not None:
            torch._dynamo.reset()
            target, ptarget = torch.compile(target, backend=backend), torch.compile(ptarget, backend=backend)
        expected = _raised(target, args)
        assert expected is not None
        torch._dynamo.reset()
        assert _raised(ptarget, pargs) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_false_flag_after_tensor_runs_the_original(pair, backend):
    original, patched = pair
    for (target, inputs), (ptarget, _) in zip(original.flag_false_cases(), patched.flag_false_cases(), strict=True):
        reference = [target(*args) for args in inputs]
        torch._dynamo.reset()
        compiled = torch.compile(ptarget, backend=backend)
        with torch.no_grad():
            assert same_result([compiled(*args) for args in inputs], reference, exact=backend != "inductor")
        assert same_result([ptarget(*args) for args in inputs], reference)


@pytest.mark.parametrize("name", NAMES)
def test_original_breaks_the_graph(pair, name):
    original, _ = pair
    target, inputs = _case(original, name)
    torch._dynamo.reset()
    with torch.no_grad(), pytest.raises(torch._dynamo.exc.Unsupported):
        torch.compile(target, backend="eager", fullgraph=True)(*inputs[0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_metadata_mismatch_falls_back_to_the_original(pair, backend):
    """Candidates of different dtypes fail the static check, so the original `if` runs (and
    breaks the graph): no promotion ever changes a result's dtype or value."""
    original, patched = pair
    for (target, inputs), (ptarget, _) in zip(original.mismatch_cases(), patched.mismatch_cases()):
        with torch.no_grad():
            reference = [target(*args) for args in inputs]
            torch._dynamo.reset()
            compiled = torch.compile(ptarget, backend=backend)
            results = [compiled(*args) for args in inputs]
        assert [r.dtype for r in results] == [torch.float32, torch.float64]
        assert same_result(results, reference, exact=backend != "inductor")


@pytest.mark.parametrize("backend", BACKENDS)
def test_guards_in_branches_raise_only_on_their_branch(pair, backend):
    """[Where] over [Trap]: a validation guard inside a branch becomes a check predicated on its
    branch; it raises the original exception exactly when the original would."""
    original, patched = pair
    for (target, inputs), (ptarget, _) in zip(original.guard_cases(), patched.guard_cases()):
        with torch.no_grad():
            reference = run_all(target, inputs)
        assert any(isinstance(r, ValueError) for r in reference)
        assert any(isinstance(r, RuntimeError) for r in reference)
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(ptarget, backend=backend, fullgraph=True)
        with torch.no_grad():
            results = run_all(compiled, inputs)
        assert_same_results(results, reference, exact=backend != "inductor")
        assert counters["stats"]["unique_graphs"] == 1


def _rope_state(module):
    return [module.inv_freq.clone(), module.original_inv_freq.clone(), hasattr(module, "long_inv_freq")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_buffer_selection_keeps_the_original_state(pair, backend):
    """The LongRoPE buffer selection, compiled calls mixed with eager ones: after every call the
    buffer holds the original's values and the original table is never written (an in-place copy
    into the buffer, which aliases it, would leave long frequencies there after a long -> short
    transition). The cache is read when present and never stored under compile."""
    original, patched = pair
    reference_module, mine = original.LongShortRope(), patched.LongShortRope()
    compiled = torch.compile(mine, backend=backend, fullgraph=True)
    inputs = original.rope_positions()
    schedule = ["compiled", "compiled", "eager", "compiled", "eager", "compiled", "compiled", "eager"]
    table, reference_table = mine.original_inv_freq, reference_module.original_inv_freq
    with torch.no_grad():
        for step, how in enumerate(schedule):
            args = inputs[step % len(inputs)]
            want = reference_module(*args)
            got = (compiled if how == "compiled" else mine)(*args)
            assert same_result([got], [want], exact=backend != "inductor"), (step, how)
            state, reference_state = _rope_state(mine), _rope_state(reference_module)
            assert torch.equal(state[0], reference_state[0]), (step, how)
            assert torch.equal(state[1], reference_state[1]), (step, how)
            assert mine.original_inv_freq is table and reference_module.original_inv_freq is reference_table
    assert torch.equal(mine.original_inv_freq, original.LongShortRope().original_inv_freq)


def test_buffer_selection_does_not_recompile_from_call_two(pair):
    """Storing into `_buffers` keeps Dynamo from guarding the old buffer's aliasing with the
    original table: the first call's graph serves every later call of the same shape."""
    _, patched = pair
    module = patched.LongShortRope()
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(module, backend="eager", fullgraph=True)
    with torch.no_grad(), torch._dynamo.config.patch(error_on_recompile=True):
        for args in patched.rope_positions() * 2:
            compiled(*args)
    assert counters["stats"]["unique_graphs"] == 1
    assert not hasattr(module, "long_inv_freq"), "the cache is never stored under compile"
