"""[Defer] of a print or warning decided by a `.item()` value (GM401): the value is only compared
with a number in the `if` right after it. Each case has tests that pass and tests that fail, so
it emits something and takes both ways; test_defer.py compares every emitted byte, record and
warning with the original's, eager and compiled (fullgraph, one graph), and
test_item_effect.py flips the tests between calls, keeps integer values and the failure path.
"""
import warnings

import torch
from torch import nn


class Monitor(nn.Module):
    """float32: both operand orders, every operator, a negative number, an integer literal."""

    def forward(self, x):
        y = x * 2
        scale = y.abs().max().item()
        if scale > 1.0:
            warnings.warn("activations are large", RuntimeWarning)
        low = y.min().item()
        if low < -100:
            print("very negative")
        peak = y.max().item()
        if 0.5 <= peak:
            print("peak reached", flush=True)
        total = y.sum().item()
        if total != -1e300:
            print("total is finite")
        middle = y.mean().item()
        if middle == 12345:
            warnings.warn("a suspicious mean")
        return y


class BFloat16(nn.Module):
    """bfloat16 has 8 significant bits: 9983.5 and 10000 round to 9984 there. Compared as Python
    floats (what `.item()` gives), 9984 > 9983.5 and 9984 < 10000."""

    def forward(self, x):
        y = x.to(torch.bfloat16)
        v = y.max().item()
        if v > 9983.5:
            print("above 9983.5")
        w = y.max().item()
        if w >= 10000:
            print("at least 10000")
        return y


class Half(nn.Module):
    def forward(self, x):
        h = x.half() * 1000
        m = h.abs().amax().item()
        if m >= 65504:
            warnings.warn("float16 overflow ahead", UserWarning)
        return h


class Counts(nn.Module):
    """An integer value: `.item()` is kept (test_item_effect.py; not in cases(): it breaks)."""

    def forward(self, x):
        n = (x > 0).sum().item()
        if n >= 2:
            print("two positive")
        return x + 1


class PerRow(nn.Module):
    """`.item()` of a tensor of one element per row: several rows raise (test_item_effect.py)."""

    def forward(self, x):
        top = x.abs().amax(dim=-1).item()
        if top > 1.0:
            print("a large row")
        return x + 1


class Counted(nn.Module):
    """A value whose type the code does not say (a NumPy array here): `.item()` is kept."""

    def forward(self, x, count):
        c = count.item()
        if c > 1.5:
            print("counted more than 1.5")
        return x + 1


class BesidePlainEffects(nn.Module):
    """A plain warning and print ([Defer]) beside `.item()`-decided ones in one function: every
    site keeps a helper of its own (one namer names them all; two namers once gave the plain
    warning's helper to the decided one too)."""

    def forward(self, x):
        warnings.warn("plain warning", UserWarning)
        print("plain print", flush=True)
        scale = x.abs().max().item()
        if scale > 1.0:
            warnings.warn("activations are large", RuntimeWarning)
        low = x.min().item()
        if low < -1.0:
            print("very negative", flush=True)
        return x * 2


def cases():
    """(name, how it is compiled, the uncompiled callable or module, inputs)."""
    x = torch.arange(4, dtype=torch.float32) - 1.5
    return [
        ("item/float32", "compile(module)", Monitor(), (x,)),
        ("item/bfloat16 exact", "compile(module)", BFloat16(), (torch.tensor([1.0, 9984.0]),)),
        ("item/float16", "compile(module)", Half(), (torch.tensor([1.0, 70.0]),)),
        ("item/beside plain effects", "compile(module)", BesidePlainEffects(), (x,)),
    ]
