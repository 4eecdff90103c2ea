"""[Defer] behaviour on real PyTorch: the patched program emits what the original emits, eagerly
and compiled, without graph breaks.

For every program under defer/, graphmend fixes a copy; the original and the patched copy are
imported side by side and every case is run:

- original, eager: the reference events (stdout/stderr text and flushes, log records, warnings,
  in one ordered list) and outputs, for two consecutive calls;
- patched, eager: events and outputs byte-identical to the reference;
- patched, compiled with backend eager / aot_eager / inductor and fullgraph=True: the same events
  and bit-identical outputs, one graph in total over both calls (no break, no recompile);
- original, compiled with fullgraph=True: fails, which proves each case really broke the graph.

A failing call must still emit what eager emitted before the failure.

Each compiled case runs in both forms of [Defer] (GRAPHMEND_DEFER): in-graph, the default, and
epilogue, whose effects wait for the graph to return; only a graph that raises tells them apart.
"""
from __future__ import annotations

import importlib.util
import linecache
import pathlib
import sys
import warnings

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import behaviour
from behaviour import capture, same_result, uncompiled

DEFER = pathlib.Path(__file__).resolve().parent / "defer"
PROGRAMS = sorted(p for p in DEFER.glob("*.py"))
behaviour.PROGRAM_NAMES |= {p.name for p in PROGRAMS}
BACKENDS = ["eager", "aot_eager", "inductor"]
FORMS = ["in-graph", "epilogue"]


@pytest.fixture(scope="module")
def pairs(graphmend_bin, tmp_path_factory):
    """{program stem: (original module, patched module, patched text)}"""
    workdir = tmp_path_factory.mktemp("defer")
    return {path.stem: behaviour.fixed_pair(graphmend_bin, path, workdir) for path in PROGRAMS}


@pytest.fixture(params=FORMS)
def defer_form(request, pairs, monkeypatch):
    """[Defer]'s form for this test, as GRAPHMEND_DEFER would choose it for a process: set in the
    runtime state the patched programs share (one per runtime version)."""
    (state,) = [m for name, m in sys.modules.items() if name.startswith("_graphmend_runtime_state_v")]
    monkeypatch.setattr(state, "defer_form", request.param)
    return request.param


def _case_ids():
    ids = []
    for path in PROGRAMS:
        spec = importlib.util.spec_from_file_location(f"_ids_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        ids += [(path.stem, index, name, how) for index, (name, how, *_rest) in enumerate(module.cases())]
    return ids


CASES = [(program, index, name) for program, index, name, _how in _case_ids()]
# A decorated function is compiled by its own decorator (aot_eager), so it runs under that backend only.
COMPILED_CASES = [(program, index, name, backend) for program, index, name, how in _case_ids()
                  for backend in BACKENDS if how != "decorator" or backend == "aot_eager"]


def _case(module, index):
    name, how, target, args = module.cases()[index]
    return how, target, args


def _compiled(how, target, backend):
    if how == "decorator":
        return target  # compiled by its own decorator, fullgraph=True
    if how == "module.compile()":
        target.compile(backend=backend, fullgraph=True)
        return target
    return torch.compile(target, backend=backend, fullgraph=True)


def _twice(fn, args):
    return lambda: (fn(*args), fn(*args))


@pytest.mark.parametrize("program,index,name", CASES, ids=[f"{p}:{n}" for p, _, n in CASES])
def test_patched_eager_is_identical(pairs, program, index, name):
    original, patched, _text = pairs[program]
    how, target, args = _case(original, index)
    ref_events, ref_out = capture(_twice(uncompiled(target), args))
    assert ref_events, "the case must emit something"
    how, target, args = _case(patched, index)
    events, out = capture(_twice(uncompiled(target), args))
    assert events == ref_events
    assert same_result(out, ref_out)


@pytest.mark.parametrize("program,index,name,backend", COMPILED_CASES,
                         ids=[f"{p}:{n}-{b}" for p, _, n, b in COMPILED_CASES])
def test_patched_compiled_matches_eager(pairs, defer_form, program, index, name, backend):
    original, patched, _ = pairs[program]
    how, target, args = _case(original, index)
    ref_events, ref_out = capture(_twice(uncompiled(target), args))

    how, target, args = _case(patched, index)
    torch._dynamo.reset()
    counters.clear()
    events, out = capture(_twice(_compiled(how, target, backend), args))
    assert events == ref_events
    assert same_result(out, ref_out, exact=backend != "inductor")
    if not isinstance(out, BaseException):
        assert counters["stats"]["unique_graphs"] == 1, "one graph for both calls: no break, no recompile"


@pytest.mark.parametrize("program,index,name", CASES, ids=[f"{p}:{n}" for p, _, n in CASES])
def test_original_breaks_the_graph(pairs, program, index, name):
    original, _, _ = pairs[program]
    how, target, args = _case(original, index)
    torch._dynamo.reset()
    _events, out = capture(_twice(_compiled(how, target, "eager"), args))
    # Under fullgraph, Dynamo captures a `.item()` value as a symbol and then cannot branch on it.
    data_dependent = isinstance(out, torch._dynamo.exc.UserError) and "data-dependent" in str(out)
    assert isinstance(out, torch._dynamo.exc.Unsupported) or data_dependent, f"expected a graph break, got {out!r}"


def test_failing_call_emits_what_came_before(pairs, defer_form):
    """In-graph, yes. The epilogue form's stated divergence: the graph raises before it returns,
    so what it deferred is never emitted."""
    original, patched, _ = pairs["defer_raise"]
    target, args = original.failing_case()
    ref_events, ref_out = capture(lambda: target(*args))
    assert isinstance(ref_out, IndexError) and len(ref_events) == 1
    for backend in BACKENDS:
        target, args = patched.failing_case()
        torch._dynamo.reset()
        events, out = capture(lambda: torch.compile(target, backend=backend, fullgraph=True)(*args))
        assert isinstance(out, (IndexError, RuntimeError)), backend  # Inductor raises its own bounds check
        assert events == (ref_events if defer_form == "in-graph" else []), backend


WARNING_CASES = ["warnings", "warnings at their site"]


@pytest.mark.parametrize("case", WARNING_CASES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("action", ["default", "once", "module", "error"])
def test_warning_filters_behave_as_in_eager(pairs, defer_form, action, backend, case):
    """Deduplication by the warnings filters (and `error`, which turns the first warning into
    the exception) is what eager does, over two calls."""
    original, patched, _ = pairs["defer_forms"]
    index = next(i for p, i, n in CASES if p == "defer_forms" and n == case)
    _how, target, args = _case(original, index)
    ref_events, ref_out = capture(_twice(target, args), warnings_action=action)
    _how, target, args = _case(patched, index)
    torch._dynamo.reset()
    events, out = capture(_twice(torch.compile(target, backend=backend, fullgraph=True), args),
                          warnings_action=action)
    assert events == ref_events
    assert same_result(out, ref_out, exact=backend != "inductor")


def _warnings_shown(run):
    """(category, message, file name, line, source line shown) of each warning `run` issues,
    under the `default` filter (once per location)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        run()
    return [(w.category.__name__, str(w.message), pathlib.Path(w.filename).name, w.lineno,
             linecache.getline(w.filename, w.lineno).strip()) for w in caught]


@pytest.mark.parametrize("backend", BACKENDS)
def test_warning_comes_from_its_site(pairs, defer_form, backend):
    """A warning in the callee form is issued from the line of its call, compiled as eagerly: the
    same file, line and source line shown, and the same once-per-location registry (the two sites
    with one text warn twice, the second call nothing more)."""
    _original, patched, _ = pairs["defer_forms"]
    index = next(i for p, i, n in CASES if p == "defer_forms" and n == "warnings at their site")
    _how, target, args = _case(patched, index)
    vars(patched).pop("__warningregistry__", None)
    eager = _warnings_shown(_twice(target, args))
    assert len(eager) == 6 and all(shown.startswith("_graphmend.call(") for *_, shown in eager)
    _how, target, args = _case(patched, index)
    vars(patched).pop("__warningregistry__", None)
    torch._dynamo.reset()
    assert _warnings_shown(_twice(torch.compile(target, backend=backend, fullgraph=True), args)) == eager


def test_warning_dynamo_cannot_place_warns_in_place(pairs, monkeypatch):
    """Where the runtime cannot place the site while tracing (here: the frame Dynamo reports is
    not in the module's file; another torch could report none), the call warns in place, eagerly,
    with the original's break: from the site's line all the same."""
    _original, patched, _ = pairs["defer_forms"]
    index = next(i for p, i, n in CASES if p == "defer_forms" and n == "warnings at their site")
    _how, target, args = _case(patched, index)
    vars(patched).pop("__warningregistry__", None)
    eager = _warnings_shown(_twice(target, args))
    monkeypatch.setattr(patched, "__file__", "/elsewhere/module.py")
    _how, target, args = _case(patched, index)
    vars(patched).pop("__warningregistry__", None)
    torch._dynamo.reset()
    counters.clear()
    assert _warnings_shown(_twice(torch.compile(target, backend="eager"), args)) == eager
    assert counters["graph_break"], "the warnings ran in place, each with its break"
