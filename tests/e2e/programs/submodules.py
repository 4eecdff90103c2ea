"""Reachability through self.method(), self.sub(...) and a loop over a ModuleList."""
import warnings

import torch
from torch import nn


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        warnings.warn("inner")
        return y * 2


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])

    def forward(self, x):
        h = self.inner(x)
        for layer in self.layers:
            h = layer(h)
        return self.post(h)

    def post(self, h):
        g = h.tanh()
        print("post")
        return g


model = torch.compile(Outer())


def cases():
    return [(Outer(), (torch.randn(2, 4),))]
