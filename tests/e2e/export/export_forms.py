"""One module with a site of each rewrite, for torch.export (test_export.py): a print and a
logger call ([Defer]), a validation guard ([Trap]) and a tensor branch ([Where])."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor):
        h = self.proj(x)
        print("block input", x.shape)
        logger.info("projected %s", h.shape)
        if (h.abs() > 1e4).any():
            raise ValueError("activations overflowed")
        if h.sum() > 0:
            y = h * 2
        else:
            y = h - 1
        return y


def inputs():
    torch.manual_seed(0)
    return [torch.randn(2, 4), -torch.ones(2, 4) * 3, torch.ones(2, 4)]
