"""The remedy a finding gives for a site that moves tensor data into Python, checked against torch
2.13 (issue 49 item 4): capture/remedies.py has one site per function and the remedy expected for
it. graphmend's finding must say it; and torch must agree: without the flags fullgraph=True fails;
with capture_scalar_outputs and capture_dynamic_output_shape_ops, a `data` site compiles to one
graph whose outputs equal eager bit for bit on every input, without a recompile, while a `control`
site (a Python branch or loop on the value, torch.equal's bool, a math function's number) still
fails. About ten seconds."""
from __future__ import annotations

import json
import pathlib
import subprocess

import pytest
import torch
import torch._dynamo
from dynamo_sites import _uncompiled
from torch._dynamo.testing import CompileCounter

PROGRAM = pathlib.Path(__file__).resolve().parent / "capture" / "remedies.py"
CLASS_WORDS = {  # what the remedy says, per class
    "data": "needs nothing more",
    "control": "not help",
    "elsewhere": "would still split it",
}


@pytest.fixture(scope="module")
def program():
    import importlib.util

    spec = importlib.util.spec_from_file_location("capture_remedies", PROGRAM)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def findings(graphmend_bin):
    out = subprocess.run([graphmend_bin, "check", "--no-cache", "--output-format", "json", str(PROGRAM)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    return json.loads(out.stdout)["diagnostics"]


def run_all(fn, inputs, flags: bool, fullgraph: bool = False):
    """`fn` compiled (graphs counted) and called on every input; a recompile counts as a graph too."""
    torch._dynamo.reset()
    counter = CompileCounter()
    with torch._dynamo.config.patch(capture_scalar_outputs=flags, capture_dynamic_output_shape_ops=flags):
        compiled = torch.compile(_uncompiled(fn), fullgraph=fullgraph, backend=counter)
        return [compiled(x) for x in inputs], counter


def explained(fn, x, flags: bool):
    """torch._dynamo.explain's graph breaks and operators in the graphs, for one call."""
    torch._dynamo.reset()
    with torch._dynamo.config.patch(capture_scalar_outputs=flags, capture_dynamic_output_shape_ops=flags):
        e = torch._dynamo.explain(fn)(x)
    return e.graph_break_count, e.op_count


def test_every_expected_site_has_its_finding(program, findings):
    ours = {d["function"]: d for d in findings}
    assert sorted(ours) == sorted(program.EXPECTED), sorted(ours)
    for name, (code, kind) in program.EXPECTED.items():
        d = ours[name]
        assert d["code"] == code, (name, d["code"])
        words = CLASS_WORDS["control"] if code == "GM406" else CLASS_WORDS[kind]
        assert words in d["help"], (name, d["help"])
        # The claim names the flag that keeps the site in the graph.
        flag = "capture_dynamic_output_shape_ops" if code == "GM404" else "capture_scalar_outputs"
        if code != "GM406":
            assert flag in d["help"], (name, d["help"])


@pytest.mark.parametrize("kind", ["data", "control"])
def test_torch_agrees(program, kind):
    names = [n for n, (_, k) in program.EXPECTED.items() if k == kind]
    for name in names:
        fn = getattr(program, name)
        original = _uncompiled(fn)
        expected = [original(x) for x in program.INPUTS]
        # Without the flags the site splits the graph (torch 2.13 captures both kinds by itself
        # under fullgraph=True: the flags matter where a graph may split).
        breaks, ops = explained(original, program.INPUTS[0], flags=False)
        if kind == "data":
            # Split, or left out: a tensor slice bound stops the trace, and the rest runs eagerly.
            assert breaks > 0 or ops < explained(original, program.INPUTS[0], flags=True)[1], name
            for fullgraph in (False, True):
                got, counter = run_all(fn, program.INPUTS, flags=True, fullgraph=fullgraph)
                assert counter.frame_count == 1, (name, fullgraph, counter.frame_count)  # one graph, no recompile
                for g, e in zip(got, expected):
                    assert g.dtype == e.dtype and torch.equal(g, e), (name, g, e)
        else:
            assert breaks > 0, name
            with pytest.raises(Exception) as raised:
                run_all(fn, program.INPUTS, flags=True, fullgraph=True)
            text = str(raised.value)
            assert "data-dependent expression" in text or "Data dependent operator" in text, (name, text[:300])


def test_a_value_passed_on_breaks_where_it_is_branched_on(program):
    """`elsewhere`: the finding does not claim the flag is enough, and here it is not."""
    with pytest.raises(Exception, match="data-dependent expression"):
        run_all(program.item_passed_on, program.INPUTS, flags=True, fullgraph=True)
