"""GM407's masked-store form (rules/GM407.md) on real PyTorch: a loop that selects each expert's
rows with a boolean mask and stores the expert's output back with it (Switch Transformers,
GPTSan), rewritten by `fix --unsafe-fixes` (plain `fix` leaves it: the fix is unsafe) to run
every expert on every row and select its rows with torch.where.

- Under torch.compile with grad disabled, the original is no single graph (the mask's row count
  depends on the routing); the patched layer compiles with fullgraph=True as one graph, with no
  recompile as the routing changes, on eager, aot_eager and inductor, and matches the original
  to within float32 rounding (the experts' products run over every row: why the fix is unsafe).
  Overlapping masks: the later expert's rows win, as in the original.
- Eager, and compiled with grad enabled, the patched layer runs the original loop: bit for bit
  the original's outputs and gradients.
- A mask whose shape does not match the rows: the gate runs the original, which raises the same
  exception.
- A mask not proven boolean: declined, the class left as written.
"""
from __future__ import annotations

import json
import pathlib
import re
import subprocess

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import behaviour
from behaviour import same_result

PROGRAM = pathlib.Path(__file__).resolve().parent / "dense" / "masked_dispatch.py"
BACKENDS = ["eager", "aot_eager", "inductor"]
FIXED = ["SwitchForm", "GPTSanForm", "RangeForm"]


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    original, patched, text = behaviour.unsafe_fixed_pair(graphmend_bin, PROGRAM, tmp_path_factory.mktemp("masked"))
    # One expert call per fixed form (each cast of its rows follows as a statement of its own).
    assert len(re.findall(r"_graphmend_rows = (?!_graphmend_rows)", text)) == len(FIXED), text
    check = subprocess.run([graphmend_bin, "check", "--select", "GM407", "--output-format", "json", str(PROGRAM)],
                           capture_output=True, text=True)
    found = json.loads(check.stdout)["diagnostics"]
    assert len(found) == 4
    assert [d.get("decline_code") for d in found if d.get("decline_code")] == ["dispatch-store-mask"]
    start = text.index("class NotBool")
    assert text[start:] == PROGRAM.read_text()[PROGRAM.read_text().index("class NotBool"):]
    return original, patched


def _layers(pair, name):
    original, patched = pair
    torch.manual_seed(0)
    ref = getattr(original, name)().eval()
    new = getattr(patched, name)().eval()
    new.load_state_dict(ref.state_dict())
    return ref, new


def _inputs(name, count=4):
    """Inputs whose routing differs from call to call; RangeForm's masks overlap and leave rows out."""
    torch.manual_seed(1)
    if name == "RangeForm":
        return [(torch.randn(12, 16) * (1 + i), torch.rand(12, 3)) for i in range(count)]
    return [(torch.randn(2, 7, 16) * (1 + i),) for i in range(count)]


@pytest.mark.parametrize("name", FIXED)
@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_inference_is_one_graph_close_to_the_original(pair, name, backend):
    ref, new = _layers(pair, name)
    inputs = _inputs(name)
    with torch.no_grad():
        expected = [ref(*x) for x in inputs]
        torch._dynamo.reset()
        counters.clear()
        original = torch.compile(ref, backend=backend, dynamic=False)
        for x in inputs:
            original(*x)
        assert counters["stats"]["unique_graphs"] > 1  # the masked read breaks the graph
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(new, backend=backend, fullgraph=True, dynamic=False)
        got = [compiled(*x) for x in inputs]
    assert counters["stats"]["unique_graphs"] == 1  # the routing changes between inputs: no recompile
    for a, b in zip(got, expected):
        assert a.shape == b.shape and a.dtype == b.dtype
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", FIXED)
def test_eager_runs_the_original_bit_for_bit(pair, name):
    ref, new = _layers(pair, name)
    for x in _inputs(name):
        with torch.no_grad():
            assert same_result(new(*x), ref(*x))
        assert same_result(new(*x), ref(*x))


@pytest.mark.parametrize("name", FIXED)
def test_compiled_with_grad_runs_the_original_loop(pair, name):
    ref, new = _layers(pair, name)
    x = _inputs(name, 1)[0]
    results = []
    for layer in (ref, new):
        torch._dynamo.reset()
        counters.clear()
        out = torch.compile(layer, backend="aot_eager")(*x)
        out.square().sum().backward()
        results.append((out, [None if p.grad is None else p.grad.clone() for p in layer.parameters()]))
        assert counters["stats"]["unique_graphs"] > 1  # the masked read still breaks the graph
        layer.zero_grad()
    assert same_result(results[1], results[0])


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_mismatched_mask_runs_the_original(pair, backend):
    """Masks for 5 rows, 12 rows of input: the gate runs the original, which raises as it does."""
    ref, new = _layers(pair, "RangeForm")
    x, scores = torch.randn(12, 16), torch.rand(5, 3)
    results = []
    with torch.no_grad():
        for layer in (ref, new):
            torch._dynamo.reset()
            try:
                results.append(torch.compile(layer, backend=backend)(x, scores))
            except Exception as error:  # noqa: BLE001 - the exception itself is compared
                results.append(error)
    assert isinstance(results[0], Exception)
    behaviour.assert_same_results(results[1:], results[:1])
