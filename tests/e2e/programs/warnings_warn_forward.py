"""[Defer] warnings.warn in a forward, with two import spellings."""
import warnings
from warnings import warn

import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        y = x * 2
        warnings.warn("deprecated path", FutureWarning)
        y = y + 1
        warn("second form")
        return y.exp()


compiled = torch.compile(Net())


def cases():
    return [(Net(), (torch.randn(3),))]
