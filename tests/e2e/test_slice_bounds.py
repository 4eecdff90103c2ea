"""Breaks `explain` cannot show at their line (programs/slice_bounds_logged.py: GM412's slice
bounds, and a GM101 and a GM404 in loops over `enumerate(zip(...))`): the sites come from Dynamo's own
graph-break log instead, compiled with a counting backend, and must equal graphmend's. The breaks
are real: a bound that is an input leaves no graph at all (the whole function runs eagerly), a
slice in a loop stops the graph before the loop, and the data-dependent repeat in a loop leaves
no graph either."""
from __future__ import annotations

import json
import logging
import pathlib
import re
import subprocess

import torch
import torch._dynamo

from dynamo_sites import _uncompiled, load_program

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM = PROGRAMS / "slice_bounds_logged.py"


class BreakLog(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.sites = set()
        self.consequences = set()

    def emit(self, record):
        message = record.getMessage()
        where = re.search(r"Graph break in user code at (\S+):(\d+)", message)
        if not where:
            return
        site = (str(pathlib.Path(where.group(1)).resolve()), int(where.group(2)))
        # Once Dynamo runs a function eagerly (a break in a loop), each comprehension in it is a
        # frame of its own, which Dynamo cannot start on its list iterator: a consequence of the
        # first break, which graphmend reports as GM413.
        if "Missing tp_iternext" in message:
            self.consequences.add(site)
        else:
            self.sites.add(site)


def dynamo_sites_from_log():
    module = load_program(PROGRAMS, PROGRAM)
    sites, graph_counts = set(), []
    log = BreakLog()
    dynamo_log = logging.getLogger("torch._dynamo")
    dynamo_log.addHandler(log)
    torch._logging.set_logs(graph_breaks=True)
    torch_log = logging.getLogger("torch")
    saved, torch_log.handlers = torch_log.handlers, []
    try:
        for fn, args in module.log_cases():
            torch._dynamo.reset()
            graphs = []
            fn = _uncompiled(fn)
            compiled = torch.compile(fn, backend=lambda gm, ex, graphs=graphs: graphs.append(gm) or gm.forward,
                                     dynamic=False)
            expected = fn(*args)
            got = compiled(*args)
            assert torch.equal(got, expected)
            graph_counts.append(len(graphs))
    finally:
        torch_log.handlers = saved
        torch._logging.set_logs()
        dynamo_log.removeHandler(log)
    program = str(PROGRAM.resolve())
    # padding_choice's comprehension (`pads = [...]`) is the one such consequence.
    comprehension = next(i for i, line in enumerate(PROGRAM.read_text().splitlines(), 1) if "pads = [" in line)
    assert {line for path, line in log.consequences if path == program} == {comprehension}, log.consequences
    sites = {s for s in log.sites | log.consequences if s[0] == program}
    return sites, graph_counts


def test_logged_slice_bound_sites_match_graphmend(graphmend_bin):
    dynamo, graph_counts = dynamo_sites_from_log()
    # An input bound leaves no graph: Dynamo gives up on the whole function.
    assert graph_counts[:2] == [0, 0], graph_counts
    # A data-dependent branch and a data-dependent shape in a loop: no graph.
    assert graph_counts[2:] == [1, 1, 0, 0], graph_counts
    out = subprocess.run([graphmend_bin, "check", "--output-format", "json", str(PROGRAM)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    ours = {(str(pathlib.Path(d["filename"]).resolve()), d["location"]["row"])
            for d in json.loads(out.stdout)["diagnostics"]}
    assert len(dynamo) == 7
    assert ours == dynamo, f"missed: {sorted(dynamo - ours)}\nspurious: {sorted(ours - dynamo)}"
