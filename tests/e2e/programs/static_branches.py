"""Negatives: branches on Python values, shapes, dtypes, None and module flags never break."""
from typing import Optional

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, use_bias: bool = True):
        super().__init__()
        self.use_bias = use_bias
        self.scale = 2.0
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None, depth: int = 2):
        h = self.lin(x)
        if self.training:
            h = h * 0.5
        if mask is not None:
            h = h * mask
        if h.shape[0] > 1 and h.dim() == 2:
            h = h + 1
        if x.dtype == torch.float32:
            h = h * self.scale
        if depth > 1 and self.use_bias:
            h = h - 1
        bsz, width = h.size()
        if width % 2 == 0:
            h = h.flip(1)
        for i in range(depth):
            h = h + i
        if isinstance(mask, torch.Tensor):
            h = h.relu()
        if mask is not None and torch.numel(mask) > 0:
            h = h * 3
        return h


compiled = torch.compile(Gate())


def cases():
    return [(Gate(), (torch.randn(3, 4), torch.ones(3, 4), 3))]
