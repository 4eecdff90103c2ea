"""[Defer] logging.Logger methods in an nn.Module forward compiled with torch.compile(module)."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        logger.warning("block forward")
        h = h * 2
        logger.info("scaled %s", "h")
        h = h + 1
        logger.debug(
            "multi-line call"
        )
        return h.relu()


model = torch.compile(Block())


def cases():
    return [(Block(), (torch.randn(2, 4),))]
