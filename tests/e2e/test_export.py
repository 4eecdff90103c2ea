"""torch.export of patched code (issue 15, item 2): the emitted forms lower to native ops.

An exported program runs without Python (AOTInductor, a C++ runtime), so graphmend's in-graph
ops, whose implementations are Python, must not be in it. Under torch.export only, a [Defer]
effect is dropped and a [Trap] check becomes torch._assert_async with the original exception's
class and message; [Where] is torch.where already. Here the original module cannot be exported
(its branch on a tensor value), the patched one can, strict and not, under torch.no_grad() (the
[Where] gate runs the original `if` while grad is enabled), and:
  - no op of graphmend's runtime is in the exported graph;
  - the exported program's outputs equal eager's bit for bit, for inputs taking both branches;
  - an input that fails the guard raises RuntimeError naming the original ValueError's message.
"""
from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest
import torch

import behaviour

FORMS = pathlib.Path(__file__).resolve().parent / "export" / "export_forms.py"


def _fixed(graphmend_bin, tmp_path_factory, program, *emitted):
    """(original module, patched module) of `program` fixed by graphmend, whose text holds `emitted`."""
    copy = tmp_path_factory.mktemp(program.stem) / program.name
    shutil.copy(program, copy)
    out = subprocess.run([graphmend_bin, "fix", str(copy)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    text = copy.read_text()
    assert all(form in text for form in emitted), text
    return (behaviour.import_path(program, f"{program.stem}__original"),
            behaviour.import_path(copy, f"{program.stem}__patched"))


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    return _fixed(graphmend_bin, tmp_path_factory, FORMS, "_graphmend.check(", "torch.where(", "_graphmend.call(")


def _export(module, x, strict):
    with torch.no_grad():
        return torch.export.export(module, (x,), strict=strict)


@pytest.mark.parametrize("strict", [False, True])
def test_original_does_not_export(pair, strict):
    original, _ = pair
    with pytest.raises(Exception, match="[Dd]ata-dependent|data dependent"):
        _export(original.Block().eval(), original.inputs()[0], strict)


@pytest.mark.parametrize("strict", [False, True])
def test_patched_exports_with_native_ops_only(pair, strict):
    original, patched = pair
    torch.manual_seed(1)
    reference = original.Block().eval()
    target = patched.Block().eval()
    target.load_state_dict(reference.state_dict())
    program = _export(target, original.inputs()[0], strict)
    ops = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
    assert not [op for op in ops if "graphmend" in op], ops
    assert "aten._assert_async.msg" in ops and "aten.where.self" in ops, ops
    exported = program.module()
    with torch.no_grad():
        for x in original.inputs():
            expected = reference(x)
            got = exported(x)
            assert torch.equal(got, expected) and got.dtype == expected.dtype
        bad = torch.full((2, 4), 1e6)
        with pytest.raises(ValueError, match="activations overflowed"):
            reference(bad)
        with pytest.raises(RuntimeError, match="ValueError: activations overflowed"):
            exported(bad)


def test_eager_and_compiled_still_raise_the_original_exception(pair):
    _, patched = pair
    block = patched.Block().eval()
    bad = torch.full((2, 4), 1e6)
    compiled = torch.compile(block, backend="aot_eager")
    with torch.no_grad():
        for run in (block, compiled):
            with pytest.raises(ValueError, match="activations overflowed"):
                run(bad)


SHARED = pathlib.Path(__file__).resolve().parent / "export" / "shared_submodule.py"


@pytest.fixture(scope="module")
def shared_pair(graphmend_bin, tmp_path_factory):
    return _fixed(graphmend_bin, tmp_path_factory, SHARED, "torch.where(")


@pytest.mark.parametrize("strict", [False, True])
def test_guard_after_a_module_reached_through_a_shared_one_exports(shared_pair, strict):
    """The fp16 guard's selection is safe because the LayerNorm returns new storage; under
    non-strict export the LayerNorm is reached through a proxy, which must count as one."""
    original, patched = shared_pair
    torch.manual_seed(2)
    reference = original.overflowing(original.Model().half().eval())
    target = patched.Model().half().eval()
    target.load_state_dict(reference.state_dict())
    with torch.no_grad():
        overflow = [bool(torch.isinf(reference.layer.final_layer_norm(reference.layer.proj(2 * reference.shared(ids))))
                         .any()) for ids in original.inputs()]
    assert overflow == [True, False]  # the inputs take both branches
    with pytest.raises(Exception, match="[Dd]ata-dependent|data dependent"):
        with torch.no_grad():
            torch.export.export(reference, (original.inputs()[0],), strict=strict)
    with torch.no_grad():
        program = torch.export.export(target, (original.inputs()[0],), strict=strict)
    ops = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
    assert not [op for op in ops if "graphmend" in op] and "aten.where.self" in ops, ops
    with torch.no_grad():
        for ids in original.inputs():
            expected = reference(ids)
            got = program.module()(ids)
            assert torch.equal(got, expected) and got.dtype == expected.dtype == torch.float16
