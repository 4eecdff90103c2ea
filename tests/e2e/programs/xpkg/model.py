"""Cross-file: a module whose forward calls helpers imported from xpkg.helpers."""
import torch
from torch import nn

from . import helpers
from .helpers import announce


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        y = self.lin(x)
        y = announce(y)
        return helpers.check_positive(y.abs())


def cases():
    return [(Model(), (torch.randn(2, 3),))]
