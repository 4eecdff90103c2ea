"""The operator metadata table (`kOpMeta` in src/analysis/api_facts.cpp) that [Where] proves
shapes, dtypes and gradient safety from, held against real torch: every row's shape rule, dtype
rule and `zero_grad_safe` claim is run on tensors of several shapes and dtypes, with inf, NaN,
zero and negative values in them."""

from __future__ import annotations

import pathlib
import re

import pytest
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "analysis" / "api_facts.cpp"
ROW = re.compile(r'\{"([\w.]+)", \{S::(\w+), D::(\w+), (\{\}|"[\w.]+"), (true|false)\}\}')


def _rows() -> list[tuple[str, str, str, str | None, bool]]:
    text = SOURCE.read_text()
    table = text[text.index("kOpMeta[] = {") :]
    table = table[: table.index("};")]
    rows = []
    for key, shape, dtype, fixed, safe in ROW.findall(table):
        rows.append((key, shape, dtype, None if fixed == "{}" else fixed.strip('"'), safe == "true"))
    return rows


ROWS = _rows()
# Values a branch that is not selected may hold: the gradient through it must still be zero.
SPECIAL = [1.5, -2.0, 0.0, -0.0, float("inf"), float("-inf"), float("nan"), 3e38]


def _resolve(key: str):
    if key.startswith("Tensor."):
        name = key.removeprefix("Tensor.")
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    obj = torch
    for part in key.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _other(x: torch.Tensor) -> torch.Tensor:
    """A second operand; one the gradient is taken for in eager mode, a constant when compiled."""
    y = torch.full_like(x, 0.25)
    if torch.compiler.is_compiling():
        return y
    return y.detach().requires_grad_(x.requires_grad)


def _call(key: str, x: torch.Tensor):
    """The row's op applied the way [Where] sees it applied: the tensor first, then the numbers or
    the second tensor the op needs. Returns (result, the tensors read)."""
    fn = _resolve(key)
    name = key.rsplit(".", 1)[1]
    if name in ("clamp", "clip"):
        return fn(x, min=-1.0, max=1.0), [x]
    if name == "clamp_max":
        return fn(x, 1.0), [x]
    if name == "clamp_min":
        return fn(x, -1.0), [x]
    if name in ("maximum", "minimum", "type_as"):
        y = _other(x)
        return fn(x, y), [x, y]
    if name in ("logical_and", "logical_or"):
        return fn(x, _other(x)), [x]
    if name in ("eq", "ge", "gt", "le", "lt", "ne"):
        return fn(x, 0.5), [x]
    if name == "masked_fill":
        return fn(x, torch.ones(x.shape, dtype=torch.bool), 0.0), [x]
    if name == "where":
        y = _other(x)
        return torch.where(torch.ones(x.shape, dtype=torch.bool), x, y), [x, y]
    if name == "full_like":
        return fn(x, 2.0), [x]
    if name == "softmax":
        return fn(x, dim=-1), [x]
    return fn(x), [x]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_shape_rule(row):
    key, shape, _dtype, _fixed, _safe = row
    for dims in [(), (3,), (2, 3)]:
        x = torch.randn(dims)
        out, _ = _call(key, x)
        expected = () if shape == "FullReduction" else dims
        assert tuple(out.shape) == expected, (key, dims)


FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTEGERS = [torch.int32, torch.int64]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_dtype_rule(row):
    key, _shape, rule, fixed, _safe = row
    checked = 0
    for dtype in FLOATS + INTEGERS + [torch.bool]:
        x = (torch.randn(2, 3) * 4).to(dtype)
        try:
            out, _ = _call(key, x)
        except (RuntimeError, TypeError):
            continue  # an op that does not take this dtype: the totality table decides that
        checked += 1
        floating = dtype.is_floating_point
        if rule == "Same":
            assert out.dtype == dtype, (key, dtype, out.dtype)
        elif rule == "Bool":
            assert out.dtype == torch.bool, (key, dtype)
        elif rule == "Fixed":
            assert str(out.dtype) == fixed, (key, dtype)
        elif rule == "FloatOrSame":
            assert out.dtype == (dtype if floating else torch.get_default_dtype()), (key, dtype, out.dtype)
        elif rule == "SumLike":
            assert out.dtype == (dtype if floating else torch.int64), (key, dtype, out.dtype)
        elif rule == "Promote":
            # With the Python float the call above passes: the promotion of the operands.
            assert out.dtype == (dtype if floating else torch.get_default_dtype()) or out.dtype == dtype, (key, dtype)
        else:
            pytest.fail(f"unknown dtype rule {rule}")
    assert checked, key


@pytest.mark.parametrize("row", [r for r in ROWS if r[4]], ids=[r[0] for r in ROWS if r[4]])
def test_zero_gradient_stays_exactly_zero(row):
    """torch.where sends a zero gradient into the branch it did not select: a row marked
    zero_grad_safe turns it into exactly zero for every input, inf and NaN included."""
    key = row[0]
    for dtype in (torch.float32, torch.float64):
        for dims in [(len(SPECIAL),), (2, len(SPECIAL))]:
            x = torch.tensor(SPECIAL, dtype=dtype).expand(dims).clone().requires_grad_(True)
            out, inputs = _call(key, x)
            if not out.requires_grad:
                # bool and integer results carry none, nor a detached or a new `*_like` tensor
                assert not out.dtype.is_floating_point or key == "Tensor.detach" or key.endswith("_like"), key
                continue
            wanted = [t for t in inputs if t.requires_grad]
            grads = torch.autograd.grad(out, wanted, grad_outputs=torch.zeros_like(out), allow_unused=True)
            for g in grads:
                if g is not None:
                    assert torch.equal(g, torch.zeros_like(g)), (key, dtype, dims, g)
    # Compiled, as the selection runs: aot_eager traces the backward through torch's decompositions.
    def selection(x):
        out, _ = _call(key, x)
        if not out.dtype.is_floating_point:
            out = out.to(x.dtype)
        return torch.where(torch.tensor(False), out, x * 3).sum()

    torch._dynamo.reset()
    x = torch.tensor(SPECIAL, requires_grad=True)
    (g,) = torch.autograd.grad(torch.compile(selection, backend="aot_eager", fullgraph=True)(x), [x])
    assert torch.equal(g, torch.full_like(g, 3.0)), (key, g)


@pytest.mark.parametrize("row", [r for r in ROWS if not r[4]], ids=[r[0] for r in ROWS if not r[4]])
def test_rows_not_marked_safe_really_leak(row):
    """The rows left out are left out for a reason: some input turns a zero gradient into NaN."""
    key = row[0]
    leaked = False
    for value in SPECIAL:
        x = torch.tensor([value, 1.0, value], dtype=torch.float32, requires_grad=True)
        out, inputs = _call(key, x)
        grads = torch.autograd.grad(out, [t for t in inputs if t.requires_grad], grad_outputs=torch.zeros_like(out),
                                    allow_unused=True)
        leaked |= any(g is not None and not torch.equal(g, torch.zeros_like(g)) for g in grads)
    assert leaked, f"{key} keeps a zero gradient zero on every input tried: mark it zero_grad_safe"


def test_the_table_has_every_kind_of_row():
    assert len(ROWS) > 80
    assert {r[1] for r in ROWS} == {"Elementwise", "FullReduction"}
    assert any(r[4] for r in ROWS) and any(not r[4] for r in ROWS)


def test_functional_rows_resolve():
    assert _resolve("torch.nn.functional.gelu") is F.gelu
