"""Where real TorchDynamo breaks: graph-break locations and graph counts for fixture programs.

A break's location is the innermost frame of its user stack that lies in user code (Dynamo reports a break in an inlined
helper once per frame level; the innermost frame is the site). Each case is compiled from its
*uncompiled* callable so every program is measured the same way, whatever spelling of
torch.compile it uses itself.
"""
from __future__ import annotations

import importlib
import json
import logging
import pathlib
import re
import subprocess
import sys
import warnings
from dataclasses import dataclass, field

import torch
import torch._dynamo


@dataclass
class CaseResult:
    name: str
    graphs: int  # counting backend
    explain_graphs: int
    explain_breaks: int
    sites: set[tuple[str, int]] = field(default_factory=set)


def _uncompiled(obj):
    orig = getattr(obj, "_torchdynamo_orig_callable", None)
    if orig is not None:
        return orig
    if isinstance(obj, torch._dynamo.eval_frame.OptimizedModule):
        return obj._orig_mod
    return obj


def load_program(programs_dir: pathlib.Path, path: pathlib.Path):
    rel = path.relative_to(programs_dir).with_suffix("")
    name = ".".join(rel.parts)
    if str(programs_dir) not in sys.path:
        sys.path.insert(0, str(programs_dir))
    return importlib.import_module(name)


def _site(frames, user_root: pathlib.Path):
    """The innermost frame in user code: a break inside a library (e.g. logging) is attributed
    to the user line that called into it."""
    for frame in reversed(frames):
        path = pathlib.Path(frame.filename).resolve()
        if user_root in path.parents:
            return (str(path), frame.lineno)
    return None


def measure(module, user_root: pathlib.Path) -> list[CaseResult]:
    results = []
    for index, (fn, args) in enumerate(module.cases()):
        fn = _uncompiled(fn)
        label = f"{module.__name__}[{index}]"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch._dynamo.reset()
            explained = torch._dynamo.explain(fn)(*args)
            sites = set()
            for reason in explained.break_reasons:
                site = _site(reason.user_stack, user_root)
                if site:
                    sites.add(site)
            torch._dynamo.reset()
            graphs = []

            def backend(gm, example_inputs):
                graphs.append(gm)
                return gm.forward

            torch.compile(fn, backend=backend, dynamic=False)(*args)
        results.append(
            CaseResult(label, len(graphs), explained.graph_count, explained.graph_break_count, sites)
        )
    torch._dynamo.reset()
    return results


class _CauseLog(logging.Handler):
    """The lines of `program` at which Dynamo's graph-break log names `cause`."""

    def __init__(self, program: pathlib.Path, cause: str):
        super().__init__(logging.DEBUG)
        self.program, self.cause, self.lines = program, cause, set()

    def emit(self, record):
        message = record.getMessage()
        where = re.search(r"Graph break in user code at (\S+):(\d+)", message)
        reason = message.split("User code traceback:")[0]  # the stack quotes source lines, this test's too
        if where and self.cause in reason and pathlib.Path(where.group(1)).resolve() == self.program:
            self.lines.add(int(where.group(2)))


def logged_break_lines(programs_dir: pathlib.Path, program: pathlib.Path, cause: str,
                       logged_in: pathlib.Path | None = None) -> set[int]:
    """Compiles each of the program's `log_cases()` (backend "eager", dynamic=False) from its
    uncompiled callable, checks that its output prints as eager's does, and returns the lines of
    the program (or of `logged_in`, a file it imports) at which Dynamo's graph-break log names
    `cause`."""
    module = load_program(programs_dir, program)
    log = _CauseLog((logged_in or program).resolve(), cause)
    dynamo_log = logging.getLogger("torch._dynamo")
    dynamo_log.addHandler(log)
    torch._logging.set_logs(graph_breaks=True)
    torch_log = logging.getLogger("torch")
    saved, torch_log.handlers = torch_log.handlers, []
    try:
        for fn, args in module.log_cases():
            torch._dynamo.reset()
            plain = _uncompiled(fn)
            expected = plain(*args)
            got = torch.compile(plain, backend="eager", dynamic=False)(*args)
            assert repr(got) == repr(expected), fn.__name__
    finally:
        torch_log.handlers = saved
        torch._logging.set_logs()
        dynamo_log.removeHandler(log)
    return log.lines


def explained_break_lines(programs_dir: pathlib.Path, program: pathlib.Path, cause: str) -> set[int]:
    """Like logged_break_lines, from `torch._dynamo.explain`'s break reasons: each break's line is
    the program's innermost frame of its stack (`_site`). The log names a site once, by its innermost
    frame, so breaks inside one library line (torch's Module.register_buffer) need this."""
    module = load_program(programs_dir, program)
    lines = set()
    for fn, args in module.log_cases():
        torch._dynamo.reset()
        plain = _uncompiled(fn)
        expected = plain(*args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            explained = torch._dynamo.explain(plain)(*args)
        for reason in explained.break_reasons:
            site = _site(reason.user_stack, program.parent) if cause in reason.reason else None
            if site and pathlib.Path(site[0]) == program:
                lines.add(site[1])
        torch._dynamo.reset()
        got = torch.compile(plain, backend="eager", dynamic=False)(*args)
        assert repr(got) == repr(expected), getattr(fn, "__name__", type(fn).__name__)
    torch._dynamo.reset()
    return lines


def findings_match_breaks(graphmend_bin: str, program: pathlib.Path, code: str, cause: str, marked_count: int,
                          broken_lines=logged_break_lines) -> list[dict]:
    """A rule's program against Dynamo: the lines where it breaks with `cause` (`broken_lines`: the
    graph-break log, or explain's break reasons), the lines the program marks `# expect: ... <code>
    reported` (`marked_count` of them), and graphmend's `<code>` findings are one set. Returns the
    findings, for the test to read their messages."""
    text = program.read_text().splitlines()
    marked = {i for i, line in enumerate(text, 1) if re.search(rf"# expect: .*{code} reported", line)}
    assert len(marked) == marked_count
    broken = broken_lines(program.parent, program, cause)
    assert broken == marked, f"broken but not marked: {sorted(broken - marked)}; marked, not broken: {sorted(marked - broken)}"
    out = subprocess.run([graphmend_bin, "check", "--output-format", "json", "--select", code, str(program)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    diagnostics = json.loads(out.stdout)["diagnostics"]
    assert {d["location"]["row"] for d in diagnostics} == marked
    return diagnostics
