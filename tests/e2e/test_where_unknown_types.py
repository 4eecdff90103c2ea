"""[Where] on values of unknown type, on real PyTorch (rules/GM101.md, "Unknown types").

Plain `graphmend fix` rewrites each site of where/unknown_types.py. With plain tensors the patched
copy compiles with fullgraph=True under torch.no_grad() on eager / aot_eager / inductor, gives the
original's results bit for bit and does not recompile when the condition flips. With other values
(None, a Python number) the gate's trace-time check fails and the original `if` runs: the same
result, or the same exception class and message, eager and compiled.
"""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import behaviour
from behaviour import same_result

FORMS = pathlib.Path(__file__).resolve().parent / "where" / "unknown_types.py"
BACKENDS = ["eager", "aot_eager", "inductor"]


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    check = subprocess.run([graphmend_bin, "check", "--output-format", "json", str(FORMS)], capture_output=True, text=True)
    sites = [d for d in json.loads(check.stdout)["diagnostics"] if d["code"] == "GM101"]
    assert len(sites) == 5 and all(d["fix"] and d["fix"]["applicability"] == "safe" for d in sites), sites
    copy = tmp_path_factory.mktemp("unknown-types") / FORMS.name
    shutil.copy(FORMS, copy)
    out = subprocess.run([graphmend_bin, "fix", str(copy)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "_graphmend.plain_tensors(" in copy.read_text()
    return behaviour.import_path(FORMS, "unknown_types__original"), behaviour.import_path(copy, "unknown_types__patched")


NAMES = [c[0] for c in behaviour.import_path(FORMS, "unknown_types__names").cases()]


def _case(module, name):
    return next(c[1:] for c in module.cases() if c[0] == name)


def _outcome(call):
    try:
        return ("value", call())
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return ("raises", type(e), str(e))


def _same(a, b):
    if a[0] != b[0]:
        return False
    return same_result([a[1]], [b[1]]) if a[0] == "value" else a == b


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_tensors_select_without_breaks(pair, name, backend):
    original, patched = pair
    module, tensors, _ = _case(original, name)
    target, _, _ = _case(patched, name)
    with torch.no_grad():
        reference = [module(*args) for args in tensors]
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(target, backend=backend, fullgraph=True)
        results = [compiled(*args) for args in tensors * 2]
    assert same_result(results, reference * 2, exact=backend != "inductor")
    assert counters["stats"]["unique_graphs"] == 1, "no break, no recompile when the condition flips"


@pytest.mark.parametrize("name", NAMES)
def test_other_values_run_the_original(pair, name):
    original, patched = pair
    module, _, others = _case(original, name)
    target, _, _ = _case(patched, name)
    torch._dynamo.reset()
    compiled = torch.compile(target, backend="aot_eager")
    with torch.no_grad():
        for args in others:
            expected = _outcome(lambda: module(*args))
            assert _same(_outcome(lambda: target(*args)), expected), args
            assert _same(_outcome(lambda: compiled(*args)), expected), args
