"""A `.item()` value kept a tensor (GM401, `.detach().nan_to_num(torch.nan, torch.inf, -torch.inf)`
in place of `.item()`, a safe fix): item/item_tensor.py original against its copy fixed by plain
`fix`, eagerly and compiled with eager, aot_eager and inductor (the original compiled as users
compile it, breaking at `.item()`; the fixed copy with fullgraph=True, in one graph). Outputs bit
for bit (dtype, shape, every bit, a NaN's sign and payload included), the same exception class and
message, and the same gradients of x; floating-point, integer and bool tensors, values 0, -0,
negative, subnormal, the largest, inf and NaN (one with its sign and a payload bit set), 0-d and
2-d. bench/item_exactness.py measures the operations one by one (bench/RESULTS.md).
"""
from __future__ import annotations

import math
import pathlib

import behaviour
import pytest
import torch
import torch._dynamo

HERE = pathlib.Path(__file__).resolve().parent
PROGRAM = HERE / "item" / "item_tensor.py"
CASES = [("Normalize", ()), ("Shift", ()), ("Scale", (True,)), ("Scale", (False,))]


@pytest.fixture(scope="module")
def pair(graphmend_bin, tmp_path_factory):
    original, patched, text = behaviour.fixed_pair(graphmend_bin, PROGRAM, tmp_path_factory.mktemp("item_tensor"))
    code = text.split('"""', 2)[2]
    assert ".item()" not in code, text
    assert code.count(".detach().nan_to_num(torch.nan, torch.inf, -torch.inf)") == 3, text
    return original, patched


def _floats(dtype, shapes):
    fi = torch.finfo(dtype)
    g = torch.Generator().manual_seed(3)
    base = torch.randn(16, generator=g, dtype=torch.float64) * 3
    edge = torch.tensor([0.0, -0.0, 1.0, -1.0, fi.tiny, -fi.tiny, fi.smallest_normal / 4, fi.max, -fi.max, 0.1,
                         1 / 3, -2.5, 7.0, -fi.smallest_normal / 8, 1e-3, 2.0], dtype=torch.float64)
    inf, nan = base.clone(), base.clone()
    inf[3], nan[5] = math.inf, math.nan
    xs = [base, edge, inf, nan, -base.abs() - 0.5, torch.zeros(16, dtype=torch.float64)]
    xs = [x.to(dtype) for x in xs]
    # A NaN with its sign bit and a payload bit set, beside one of the default bits: the result
    # must carry the same NaN as the original's in each place.
    odd = nan.to(dtype)
    odd.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[odd.element_size()])[9] |= (
        torch.iinfo({2: torch.int16, 4: torch.int32, 8: torch.int64}[odd.element_size()]).min | 1)
    xs.append(odd)
    if shapes:
        xs += [torch.tensor(-2.75, dtype=dtype), (torch.randn(4, 4, generator=g) * 5).to(dtype)]
    return xs


def _others(dtype, shapes):
    g = torch.Generator().manual_seed(5)
    if dtype == torch.bool:
        xs = [torch.rand(16, generator=g) > 0.5, torch.zeros(16, dtype=torch.bool)]
    else:
        ii = torch.iinfo(dtype)
        extreme = torch.randint(-9, 9, (16,), generator=g).to(dtype)
        extreme[0], extreme[1] = ii.min, ii.max
        xs = [torch.randint(-1000, 1000, (16,), generator=g).to(dtype), torch.zeros(16, dtype=dtype),
              torch.randint(-9, -1, (16,), generator=g).to(dtype), extreme]
    if shapes:
        xs += [torch.ones((), dtype=dtype), torch.ones(4, 4, dtype=dtype)]
    return xs


def _inputs(shapes):
    """Inputs grouped by dtype: each group is compiled afresh (a dtype is a guard)."""
    return ([_floats(d, shapes) for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16)]
            + [_others(d, shapes) for d in (torch.int32, torch.int64, torch.bool)])


def _run(fn, x, args, grad):
    try:
        if grad:
            x = x.detach().clone().requires_grad_(True)
        out = fn(x, *args)
        outs = out if isinstance(out, tuple) else (out,)
        if not grad:
            return outs
        for i, o in enumerate(outs):
            o.backward(torch.linspace(-1.5, 2.0, o.numel(), dtype=torch.float64).to(o.dtype).reshape(o.shape),
                       retain_graph=i + 1 < len(outs))
        return tuple(o.detach() for o in outs) + (x.grad,)
    except Exception as exc:  # noqa: BLE001  (compared by class and message)
        return exc


def _compare(original, patched, backend, groups, grad=False):
    for name, args in CASES:
        for inputs in groups:
            ref_eager = [_run(getattr(original, name)(), x, args, grad) for x in inputs]
            if backend == "eager-mode":
                got = [_run(getattr(patched, name)(), x, args, grad) for x in inputs]
                behaviour.assert_same_results(got, ref_eager, context=(name, args, "eager"))
                continue
            torch._dynamo.reset()
            ref = [_run(torch.compile(getattr(original, name)(), backend=backend), x, args, grad) for x in inputs]
            torch._dynamo.reset()
            got = [_run(torch.compile(getattr(patched, name)(), backend=backend, fullgraph=True), x, args, grad)
                   for x in inputs]
            behaviour.assert_same_results(got, ref, context=(name, args, backend))
            # Outputs are eager's too; gradients need not be: aot_eager's backward of the original's
            # `x / scale` with a zero scale is NaN where eager's is inf, in both programs alike.
            if backend != "inductor" and not grad:
                behaviour.assert_same_results(got, ref_eager, context=(name, args, backend, "against eager"))


# Compiling is the cost: Dynamo's tracing is checked through aot_eager (the "eager" backend adds
# nothing to it), and Inductor with float32 and float16, whose whole-tensor amax gives a NaN of
# other bits than the number's unless the fix's nan_to_num makes it the number's
# (bench/item_exactness.py measures every dtype under Inductor).
@pytest.mark.parametrize("backend", ["eager-mode", "aot_eager", "inductor"])
def test_outputs_and_exceptions_are_the_originals(pair, backend):
    original, patched = pair
    groups = _inputs(shapes=backend != "inductor")
    if backend == "inductor":
        groups = [groups[0], groups[2]]
    _compare(original, patched, backend, groups)


@pytest.mark.parametrize("backend", ["eager-mode", "aot_eager", "inductor"])
def test_gradients_are_the_originals(pair, backend):
    """`.detach()`: the value stays out of the gradient, as the Python number was."""
    original, patched = pair
    dtypes = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
    if backend == "inductor":
        dtypes = (torch.float32,)
    _compare(original, patched, backend, [_floats(d, False) for d in dtypes], grad=True)


def test_the_fixed_copy_is_one_graph_and_the_original_breaks(pair):
    original, patched = pair
    x = torch.randn(8)
    for name, args in CASES:
        before = torch._dynamo.explain(getattr(original, name)())(x, *args)
        after = torch._dynamo.explain(getattr(patched, name)())(x, *args)
        assert before.graph_break_count == 1, (name, before.break_reasons)
        assert after.graph_break_count == 0 and after.graph_count == 1, (name, after.break_reasons)
