"""[Where] on values whose type the code does not state (rules/GM101.md, "Unknown types"):
parameters without an annotation, or Optional ones. graphmend plans the selection as if they were
plain tensors and the gate checks it at trace time (`_graphmend.plain_tensors`); when a value is
None, a Python number or anything else, the original `if` runs.

Each case: (name, module, inputs as tensors: both paths; inputs of other types: the original runs).
"""
from typing import Optional

import torch
from torch import nn


class Unannotated(nn.Module):
    def forward(self, x):
        h = x * 2
        if (x.abs() > 5).any():
            h = torch.clamp(h, -5, 5)
        return h


class ClampedItself(nn.Module):
    """The parameter itself clamped (rebound inside the `if`), then only read by a LayerNorm and an
    operator: planned as a plain tensor for the `if` (every read there sees the parameter, which
    the gate checks), and nothing after the `if` can tell the kept argument from the selection."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(2)

    def forward(self, x):
        if (x.abs() > 5.0).any():
            x = torch.clamp(x, -5.0, 5.0)
        return self.norm(x) * 2


class OptionalMask(nn.Module):
    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None):
        h = x * 2
        if mask is not None and (mask == 0).all():
            h = h + 1
        return h


class SometimesNumber(nn.Module):
    def forward(self, x: torch.Tensor, scale):
        h = x + 1
        if (scale * x > 1).any():
            h = h * 3
        return h


class Threshold(nn.Module):
    def forward(self, s):
        h = s * 2
        if s > 0:  # no tensor method: only the caller below says `s` is a tensor
            h = h + 1
        else:
            h = h - 1
        return h


class CalledWithATensor(nn.Module):
    def __init__(self):
        super().__init__()
        self.threshold = Threshold()

    def forward(self, x: torch.Tensor):
        return self.threshold(x.sum())


def cases():
    t = torch.tensor
    return [
        ("unannotated parameter", Unannotated(),
         [(t([1.0, 2.0]),), (t([1.0, 9.0]),)],
         [(7.0,), (t([1, 9]),)]),  # a float has no .abs(); an integer tensor selects too
        ("an unannotated parameter clamped itself", ClampedItself(),
         [(t([[1.0, 2.0]]),), (t([[1.0, 9.0]]),)],
         [(7.0,)]),
        ("Optional parameter", OptionalMask(),
         [(t([1.0, 2.0]), t([0, 0])), (t([1.0, 2.0]), t([0, 1]))],
         [(t([1.0, 2.0]), None)]),
        ("a receiver that is sometimes a Python number", SometimesNumber(),
         [(t([1.0, 2.0]), t([0.1, 0.1])), (t([1.0, 2.0]), t([3.0, 3.0]))],
         [(t([1.0, 2.0]), 0.1), (t([1.0, 2.0]), 3.0), (t([1.0, 2.0]), 3)]),
        ("a parameter a compiled caller passes a tensor", CalledWithATensor(),
         [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)],
         []),
        ("the same module called with a Python number", Threshold(),
         [(t(1.0),), (t(-1.0),)],
         [(1.0,), (-1,)]),
    ]
