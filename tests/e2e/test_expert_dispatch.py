"""GM407 (rules/GM407.md) on real PyTorch: a mixture-of-experts dispatch loop, rewritten by
`fix --unsafe-fixes` (plain `fix` leaves it: the fix is unsafe) to run every expert on every token
with a mask.

- Under torch.compile with grad disabled, the original is no single graph (the gather's shape
  depends on the routing: it breaks the graph, or recompiles as the routing changes); the patched
  layer compiles with fullgraph=True as one graph, with no recompile when the routing changes, on eager, aot_eager and inductor, and matches the original
  to within float32 rounding (the experts' matrix products run over every token, so the result is
  not bit for bit: the reason the fix is unsafe).
- Eager, and compiled with grad enabled, the patched layer runs the original loop: bit for bit
  the original's outputs and gradients.
- No topk slot (top_k == 0): the gate runs the original.
- The patch leaves each loop's lines where they are: the only lines it removes are the list of
  experts hit (moved into the eager branch) and a `range(...)` header (its iterable bound just
  before it); `check` of the patched file finds nothing left in the loops.
- Experts sampled with replacement (a token may select one expert twice): declined, the class left
  as written.
"""
from __future__ import annotations

import difflib
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

PROGRAM = pathlib.Path(__file__).resolve().parent / "dense" / "expert_dispatch.py"
BACKENDS = ["eager", "aot_eager", "inductor"]
FIXED = ["HitList", "AllExperts", "SkipsEmptyExperts"]


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    original, patched, text = behaviour.unsafe_fixed_pair(graphmend_bin, PROGRAM, tmp_path_factory.mktemp("dense"))
    assert text.count("_graphmend_routed = ") == len(FIXED), text
    check = subprocess.run([graphmend_bin, "check", "--select", "GM407", "--output-format", "json", str(PROGRAM)],
                           capture_output=True, text=True)
    found = {d["location"]["row"]: d for d in json.loads(check.stdout)["diagnostics"]}
    assert len(found) == 4
    declined = [d for d in found.values() if d.get("decline_code")]
    assert [d["decline_code"] for d in declined] == ["dispatch-experts-not-topk"]
    # The declined class is as written.
    start = text.index("class SampledExperts")
    assert text[start:] == PROGRAM.read_text()[PROGRAM.read_text().index("class SampledExperts"):]
    return original, patched


def _layers(pair, name, **kwargs):
    original, patched = pair
    torch.manual_seed(0)
    ref = getattr(original, name)(**kwargs).eval()
    new = getattr(patched, name)(**kwargs).eval()
    new.load_state_dict(ref.state_dict())
    return ref, new


def _inputs(name, count=4):
    torch.manual_seed(1)
    shape = (2, 5, 16) if name == "HitList" else (3, 16) if name == "SkipsEmptyExperts" else (10, 16)
    return [torch.randn(*shape) * (1 + i) for i in range(count)]


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", FIXED)
@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_inference_is_one_graph_close_to_the_original(pair, name, backend):
    ref, new = _layers(pair, name)
    inputs = _inputs(name)
    with torch.no_grad():
        expected = [_first(ref(x)) for x in inputs]
        # The original is no single graph: the gather's shape depends on the routing, so it
        # breaks the graph (the list of experts hit) or recompiles as the routing changes.
        torch._dynamo.reset()
        counters.clear()
        original = torch.compile(ref, backend=backend, dynamic=False)
        for x in inputs:
            original(x)
        assert counters["stats"]["unique_graphs"] > 1
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(new, backend=backend, fullgraph=True, dynamic=False)
        got = [_first(compiled(x)) for x in inputs]
    assert counters["stats"]["unique_graphs"] == 1  # the routing changes between inputs: no recompile
    for a, b in zip(got, expected):
        assert a.shape == b.shape and a.dtype == b.dtype
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", FIXED)
def test_eager_runs_the_original_bit_for_bit(pair, name):
    ref, new = _layers(pair, name)
    for x in _inputs(name):
        with torch.no_grad():
            assert same_result(new(x), ref(x))
        assert same_result(new(x), ref(x))


@pytest.mark.parametrize("name", FIXED)
def test_compiled_with_grad_runs_the_original_loop(pair, name):
    ref, new = _layers(pair, name)
    x = _inputs(name, 1)[0]
    results = []
    for layer in (ref, new):
        torch._dynamo.reset()
        counters.clear()
        out = _first(torch.compile(layer, backend="aot_eager")(x))
        out.square().sum().backward()
        results.append((out, [None if p.grad is None else p.grad.clone() for p in layer.parameters()]))
        assert counters["stats"]["unique_graphs"] > 1  # the gather still breaks the graph
        layer.zero_grad()
    assert same_result(results[1], results[0])


def test_no_topk_slot_runs_the_original(pair):
    ref, new = _layers(pair, "HitList", top_k=0)
    x = _inputs("HitList", 1)[0]
    with torch.no_grad():
        torch._dynamo.reset()
        got = torch.compile(new, backend="aot_eager")(x)
        assert same_result(got, ref(x))


def test_the_loops_keep_their_lines(graphmend_bin, tmp_path):
    copy = tmp_path / PROGRAM.name
    shutil.copy(PROGRAM, copy)
    subprocess.run([graphmend_bin, "fix", "--unsafe-fixes", str(copy)], capture_output=True, text=True, check=False)
    before, after = PROGRAM.read_text().splitlines(), copy.read_text().splitlines()
    removed = [line[2:].strip() for line in difflib.ndiff(before, after) if line.startswith("- ")]
    assert removed == [
        "expert_hitted = (expert_mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()",
        "for expert_idx in range(self.num_experts):",
        "for expert_idx in range(self.num_experts):",
    ]
    assert after.count("        for expert_idx in _graphmend_iterated:") == 2
    # A re-check counts the loops handled: no finding of the dispatch rules is left in them.
    check = subprocess.run([graphmend_bin, "check", "--select", "GM407,GM404", "--output-format", "json", str(copy)],
                           capture_output=True, text=True)
    rows = [d["location"]["row"] for d in json.loads(check.stdout)["diagnostics"]]
    sampled = next(i for i, line in enumerate(after, 1) if line.startswith("class SampledExperts"))
    assert rows and all(row > sampled for row in rows)  # only the declined class's sites
