"""[Defer] when the compiled call fails: what was emitted before the failure is still emitted.

The `from __future__ import annotations` line checks that the generated block (which must come
after it) does not depend on evaluated annotations.
"""
from __future__ import annotations

import torch
from torch import nn


class FailsAfterPrint(nn.Module):
    def forward(self, x, idx):
        y = x * 2
        print("before the failure", y)
        z = y[idx]
        print("after the failure point", z)
        return z + 1


def cases():
    x = torch.arange(4, dtype=torch.float32)
    return [("passes", "compile(module)", FailsAfterPrint(), (x, torch.tensor([1, 3])))]


def failing_case():
    """Index 10 of 4 elements: eager raises IndexError after the first print."""
    x = torch.arange(4, dtype=torch.float32)
    return FailsAfterPrint(), (x, torch.tensor([1, 10]))
