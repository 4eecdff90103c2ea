"""[Trap] forms: validation guards on tensor values in compiled code.

Each case gives inputs that pass and inputs that fail the guard; test_trap.py compares the
original (eager) with the graphmend-patched copy (eager and compiled): outputs bit for bit,
exception class and message exactly, and one graph for all calls (no recompile).
"""
import logging

import torch
from torch import nn

logger = logging.getLogger("trap_forms")


class NegativeGuard(nn.Module):
    def forward(self, x):
        y = x * 2
        if (y < 0).any():
            raise ValueError("inputs must be non-negative")
        return y + 1


class RangeGuard(nn.Module):
    def forward(self, x):
        y = x.abs()
        if not (y < 100).all():
            raise RuntimeError(f"values out of range for a tensor of shape {tuple(x.shape)} ({x.dim()}-d)")
        return y.sqrt()


class EqualGuard(nn.Module):
    def forward(self, mask, expected):
        z = mask.float() * 3
        if not torch.equal(mask, expected):
            raise ValueError("unsupported attention mask")
        return z


class ReductionGuard(nn.Module):
    def forward(self, x):
        total = x.sum()
        if total > 10:
            raise AssertionError("sum too large")
        return x - total


class StaticConjunct(nn.Module):
    def forward(self, x):
        y = x + 1
        if y.dtype == torch.float32 and torch.isnan(y).any():
            raise ValueError("NaN in activations")
        return y


class BareClass(nn.Module):
    def forward(self, idx, size: int):
        out = idx + 0
        if (idx >= size).any():
            raise IndexError
        return out


class PrintThenGuard(nn.Module):
    """[Defer] and [Trap] together: the print before a failing guard is still emitted first."""

    def forward(self, x):
        y = x.cumsum(0)
        print("checking", y)
        if (y > 5).any():
            raise ValueError("cumulative sum above 5")
        logger.warning("passed with %s", y[-1])
        return y


class Ambiguous(nn.Module):
    """A multi-element condition: eager raises RuntimeError("Boolean value ... ambiguous")."""

    def forward(self, x: torch.Tensor):
        y = x - 1
        if y > 0:
            raise ValueError("positive")
        return y


class TokenCountGuard(nn.Module):
    """A message formatted from tensor values (aria, got_ocr2, llama4): a 0-d count and a
    multi-element tensor, carried into the check and formatted only when it fails."""

    def forward(self, ids, expected: int):
        count = (ids == 3).sum()
        spread = ids.float() / 2
        if count != expected:
            raise ValueError(f"tokens: {count}, features {expected}; ids {spread}")
        return ids + count


class DiscriminantGuard(nn.Module):
    """vits' spline: `if not (discriminant >= 0).all(): raise RuntimeError(f"... {discriminant}")`."""

    def forward(self, b, c):
        discriminant = b.pow(2) - 4 * c
        if not (discriminant >= 0).all():
            raise RuntimeError(f"invalid discriminant {discriminant}")
        return discriminant.sqrt()


class LaterMutation(nn.Module):
    """The message's tensor is an input that the code after the guard updates in place: a
    failing call reports it as it was at the guard (and leaves it unchanged); a passing call
    doubles it, so the same input fails on its second call."""

    def forward(self, x):
        if (x > 5).any():
            raise ValueError(f"x at the guard: {x}")
        x.mul_(2)
        return x + 1


class LongMessages(nn.Module):
    """Messages too long for one line of the site helper, which graphmend cuts at spaces into
    adjacent literals: escapes, a raw string's backslashes, doubled braces (a piece without a
    field loses its `f`) and fields with format specs must come out the same."""

    def forward(self, x):
        n = x.shape[0]
        if (x < -10).any():
            raise ValueError(f"the input of {n} rows has a negative value \t \"quoted\" {{not a field}} and a tail that runs on {n:>4} times")
        if (x < -5).any():
            raise ValueError(r"a raw message with back\slashes \d+ \w+ and more text after them to pass the eighty-eight columns")
        if (x < 0).any():
            raise ValueError(f"{{braces}} first, then a field {n!r} and a format {n * 1.5:.3f} in a message long enough to be cut")
        return x + 1


class GradMessageGuard(nn.Module):
    """A message tensor that requires grad (its text shows `grad_fn=`), so the check cannot carry
    it: the test runs where the guard was, as the original does (a graph break, never a
    different message). Not in cases(): it is no single graph."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([1.0, 2.0]))

    def forward(self, x):
        scaled = x * self.scale
        if (scaled > 3).any():
            raise ValueError(f"scaled too far: {scaled}")
        return scaled


def cases():
    """(name, module, [inputs that pass], [inputs that fail])."""
    f = torch.float32
    return [
        ("any", NegativeGuard(), [(torch.tensor([0.0, 1.0]),)], [(torch.tensor([0.0, -1.0]),)]),
        ("not-all f-string", RangeGuard(), [(torch.tensor([3.0, -4.0]),)], [(torch.tensor([3.0, 400.0]),)]),
        ("torch.equal", EqualGuard(),
         [(torch.tensor([1, 0, 1]), torch.tensor([1, 0, 1]))],
         [(torch.tensor([1, 0, 1]), torch.tensor([1, 1, 1])),
          # broadcastable but not equal in shape: torch.equal is False, so the guard must fail
          (torch.ones(2, 3, dtype=torch.long), torch.ones(3, dtype=torch.long))]),
        ("reduction", ReductionGuard(), [(torch.tensor([1.0, 2.0]),)], [(torch.tensor([9.0, 2.0]),)]),
        ("static conjunct", StaticConjunct(), [(torch.tensor([1.0, 2.0], dtype=f),)],
         [(torch.tensor([1.0, float("nan")], dtype=f),)]),
        ("bare class", BareClass(), [(torch.tensor([0, 3]), 4)], [(torch.tensor([0, 4]), 4)]),
        ("print then guard", PrintThenGuard(), [(torch.tensor([1.0, 2.0]),)], [(torch.tensor([1.0, 5.0]),)]),
        ("ambiguous", Ambiguous(), [], [(torch.tensor([0.0, 0.5]),), (torch.tensor([2.0, 0.5]),)]),
        ("tensor message", TokenCountGuard(), [(torch.tensor([3, 1, 3]), 2)],
         [(torch.tensor([3, 3, 3]), 2), (torch.tensor([1, 1, 1]), 2)]),
        ("tensor message, updated later", LaterMutation(), [(torch.tensor([1.0, 2.0]),)],
         [(torch.tensor([1.0, 6.0]),)]),
        ("tensor message, multi-element", DiscriminantGuard(),
         [(torch.tensor([3.0, 2.0]), torch.tensor([1.0, 1.0]))],
         [(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))]),
        ("long messages, cut in the helper", LongMessages(), [(torch.tensor([1.0, 2.0]),)],
         [(torch.tensor([1.0, v]),) for v in (-20.0, -7.0, -1.0)]),
    ]


def guard_function(x):
    y = x + 1
    if (y < 0).any():
        raise ValueError("function guard")
    return y * 2


compiled_guard_function = torch.compile(guard_function, backend="aot_eager", fullgraph=True)


@torch.compile(backend="aot_eager", fullgraph=True)
def decorated_guard(x):
    y = x + 1
    if (y < 0).any():
        raise ValueError("decorated guard")
    return y * 2


def compile_styles():
    """(style, the compiled callable, the eager reference callable) for torch.compile(fn),
    @torch.compile, torch.compile(module) and module.compile()."""
    module, compiled_module = NegativeGuard(), None
    method = NegativeGuard()
    method.compile(backend="aot_eager", fullgraph=True)
    compiled_module = torch.compile(module, backend="aot_eager", fullgraph=True)
    return [
        ("torch.compile(fn)", compiled_guard_function, guard_function),
        ("@torch.compile", decorated_guard, decorated_guard._torchdynamo_orig_callable),
        ("torch.compile(module)", compiled_module, NegativeGuard()),
        ("module.compile()", method, NegativeGuard()),
    ]
