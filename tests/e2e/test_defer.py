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
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import logging
import pathlib
import shutil
import subprocess
import sys
import warnings

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

DEFER = pathlib.Path(__file__).resolve().parent / "defer"
PROGRAMS = sorted(p for p in DEFER.glob("*.py"))
PROGRAM_NAMES = {p.name for p in PROGRAMS}
BACKENDS = ["eager", "aot_eager", "inductor"]
LOGGER_NAMES = {"root", "defer_forms", "defer_declines"}


class Events:
    """Everything a call emits, in order. Consecutive writes to one stream are merged."""

    def __init__(self):
        self.items: list[tuple] = []

    def write(self, stream: str, text: str):
        if self.items and self.items[-1][0] == stream:
            self.items[-1] = (stream, self.items[-1][1] + text)
        else:
            self.items.append((stream, text))

    def add(self, *item):
        self.items.append(item)


class _Stream(io.TextIOBase):
    def __init__(self, events: Events, name: str):
        self.events, self.name = events, name

    def write(self, text):
        self.events.write(self.name, text)
        return len(text)

    def flush(self):
        # print(flush=True) flushes from the program's frame; torch flushes on its own at times.
        caller = pathlib.Path(sys._getframe(1).f_code.co_filename).name
        if caller in PROGRAM_NAMES:
            self.events.add("flush", self.name)


class _Handler(logging.Handler):
    def __init__(self, events: Events):
        super().__init__(logging.DEBUG)
        self.events = events

    def emit(self, record):
        if record.name in LOGGER_NAMES:
            self.events.add("log", record.name, record.levelname, record.getMessage())


def capture(run, warnings_action="always"):
    """Runs `run()` and returns (events, result or the exception raised)."""
    events = Events()
    root = logging.getLogger()
    saved = list(root.handlers)
    root.handlers = [_Handler(events)]
    for name in LOGGER_NAMES - {"root"}:
        logging.getLogger(name).setLevel(logging.DEBUG)  # root keeps its level: torch's own logs stay quiet
    once = getattr(logging.Logger, "warning_once", None)
    if once is not None and hasattr(once, "cache_clear"):
        once.cache_clear()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(_Stream(events, "stdout")), \
                contextlib.redirect_stderr(_Stream(events, "stderr")):
            warnings.simplefilter(warnings_action)

            def show(message, category, filename, lineno, file=None, line=None):
                # The program's warnings are attributed to its file, or with stacklevel=2 to the
                # nn.Module call machinery; anything else is torch warning about itself.
                path = pathlib.Path(filename)
                if path.name in PROGRAM_NAMES or path.parts[-3:] == ("nn", "modules", "module.py"):
                    events.add("warning", category.__name__, str(message))

            warnings.showwarning = show
            try:
                result = run()
            except Exception as exc:  # compared by class and message
                result = exc
    finally:
        root.handlers = saved
    return events.items, result


def same_result(a, b, exact=True) -> bool:
    """Bit-identical (exact) or, for Inductor, whose fused kernels round differently from eager
    whatever graphmend does, equal to within float32 rounding."""
    if isinstance(a, BaseException) or isinstance(b, BaseException):
        return type(a) is type(b) and str(a) == str(b)
    if isinstance(a, torch.Tensor):
        if not (isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape):
            return False
        if not exact:
            return torch.allclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True)
        return torch.equal(a.view(-1).view(torch.uint8) if a.is_floating_point() else a,
                           b.view(-1).view(torch.uint8) if b.is_floating_point() else b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same_result(x, y, exact) for x, y in zip(a, b))
    return a == b


def _import(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _uncompiled(obj):
    return getattr(obj, "_torchdynamo_orig_callable", obj)


@pytest.fixture(scope="module")
def pairs(graphmend_bin, tmp_path_factory):
    """{program stem: (original module, patched module, graphmend's JSON report)}"""
    out = {}
    workdir = tmp_path_factory.mktemp("defer")
    for path in PROGRAMS:
        copy = workdir / path.name
        shutil.copy(path, copy)
        fixed = subprocess.run([graphmend_bin, "fix", str(copy)], capture_output=True, text=True)
        assert fixed.returncode in (0, 1), fixed.stderr
        again = subprocess.run([graphmend_bin, "fix", "--diff", str(copy)], capture_output=True, text=True)
        assert again.stdout.startswith("Checked") or again.stdout == "", "a second fix must change nothing"
        out[path.stem] = (_import(path, f"{path.stem}__original"), _import(copy, f"{path.stem}__patched"),
                          copy.read_text())
    return out


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
    original, patched, text = pairs[program]
    assert "import graphmend" not in text and "from graphmend" not in text
    how, target, args = _case(original, index)
    ref_events, ref_out = capture(_twice(_uncompiled(target), args))
    assert ref_events, "the case must emit something"
    how, target, args = _case(patched, index)
    events, out = capture(_twice(_uncompiled(target), args))
    assert events == ref_events
    assert same_result(out, ref_out)


@pytest.mark.parametrize("program,index,name,backend", COMPILED_CASES,
                         ids=[f"{p}:{n}-{b}" for p, _, n, b in COMPILED_CASES])
def test_patched_compiled_matches_eager(pairs, program, index, name, backend):
    original, patched, _ = pairs[program]
    how, target, args = _case(original, index)
    ref_events, ref_out = capture(_twice(_uncompiled(target), args))

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
    assert isinstance(out, torch._dynamo.exc.Unsupported), f"expected a graph break, got {out!r}"


def test_failing_call_emits_what_came_before(pairs):
    original, patched, _ = pairs["defer_raise"]
    target, args = original.failing_case()
    ref_events, ref_out = capture(lambda: target(*args))
    assert isinstance(ref_out, IndexError) and len(ref_events) == 1
    for backend in BACKENDS:
        target, args = patched.failing_case()
        torch._dynamo.reset()
        events, out = capture(lambda: torch.compile(target, backend=backend, fullgraph=True)(*args))
        assert isinstance(out, (IndexError, RuntimeError)), backend  # Inductor raises its own bounds check
        assert events == ref_events, backend


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("action", ["default", "once", "module", "error"])
def test_warning_filters_behave_as_in_eager(pairs, action, backend):
    """Deduplication by the warnings filters (and `error`, which turns the first warning into
    the exception) is what eager does, over two calls."""
    original, patched, _ = pairs["defer_forms"]
    index = next(i for p, i, n in CASES if p == "defer_forms" and n == "warnings")
    _how, target, args = _case(original, index)
    ref_events, ref_out = capture(_twice(target, args), warnings_action=action)
    _how, target, args = _case(patched, index)
    torch._dynamo.reset()
    events, out = capture(_twice(torch.compile(target, backend=backend, fullgraph=True), args),
                          warnings_action=action)
    assert events == ref_events
    assert same_result(out, ref_out, exact=backend != "inductor")
