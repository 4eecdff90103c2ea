"""Shared by the behaviour-equivalence tests: run a call, record everything it emits in order
(stdout/stderr text, flushes from the program, log records, warnings) and its result, and compare
results bit for bit."""
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

import torch

# Loggers whose records are compared; torch's own logging is not.
LOGGER_NAMES = {"root", "defer_forms", "defer_declines", "trap_forms"}
# Files whose print(flush=True) and warnings count as the program's (set by each test module).
PROGRAM_NAMES: set[str] = set()


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


def assert_same_results(got, want, exact=True, context=None):
    """Each result is the reference's (same_result): a value bit for bit (or, not `exact`, within
    float32 rounding), an exception by class and message; a failure names the pair that differs."""
    assert len(got) == len(want), (context, got, want)
    for g, w in zip(got, want):
        assert same_result(g, w, exact), (context, g, w)


def import_path(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def uncompiled(obj):
    return getattr(obj, "_torchdynamo_orig_callable", obj)


def run_all(fn, calls):
    """fn(*args) for each args in `calls`: the result, or the exception raised."""
    results = []
    for args in calls:
        try:
            results.append(fn(*args))
        except Exception as exc:  # compared by class and message
            results.append(exc)
    return results


def fixed_pair(graphmend_bin: str, path: pathlib.Path, workdir: pathlib.Path):
    """(original module, graphmend-fixed copy's module, the copy's text)."""
    copy = workdir / path.name
    shutil.copy(path, copy)
    fixed = subprocess.run([graphmend_bin, "fix", str(copy)], capture_output=True, text=True)
    assert fixed.returncode in (0, 1), fixed.stderr
    again = subprocess.run([graphmend_bin, "fix", "--diff", str(copy)], capture_output=True, text=True)
    assert again.stdout.startswith("Checked"), "a second fix must change nothing:\n" + again.stdout
    text = copy.read_text()
    assert "import graphmend" not in text and "from graphmend" not in text
    return import_path(path, f"{path.stem}__original"), import_path(copy, f"{path.stem}__patched"), text


def unsafe_fixed_pair(graphmend_bin: str, path: pathlib.Path, workdir: pathlib.Path):
    """(original module, module of a copy fixed by `fix --unsafe-fixes`, the copy's text), for a
    program whose fixes are all unsafe: plain `fix` leaves the copy as it is, and a second unsafe
    run has nothing left to change."""
    copy = workdir / path.name
    shutil.copy(path, copy)
    plain = subprocess.run([graphmend_bin, "fix", str(copy)], capture_output=True, text=True)
    assert plain.returncode == 1, plain.stderr
    assert copy.read_text() == path.read_text()  # unsafe: plain fix leaves it
    fixed = subprocess.run([graphmend_bin, "fix", "--unsafe-fixes", str(copy)], capture_output=True, text=True)
    assert fixed.returncode in (0, 1), fixed.stderr
    again = subprocess.run([graphmend_bin, "fix", "--unsafe-fixes", "--diff", str(copy)], capture_output=True,
                           text=True)
    assert "would apply" not in again.stdout and "\n@@ " not in again.stdout, again.stdout  # nothing left to change
    text = copy.read_text()
    return import_path(path, f"{path.stem}__original"), import_path(copy, f"{path.stem}__patched"), text
