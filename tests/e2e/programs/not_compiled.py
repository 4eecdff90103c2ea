"""Negatives: the same patterns outside compiled code are not reported."""
import logging

import torch

logger = logging.getLogger(__name__)


def eager_only(x):
    print("eager")
    logger.warning("eager")
    if x.sum() > 0:
        return x.item()
    return 0.0


class Config:
    def forward(self, x):  # not an nn.Module: never compiled by Dynamo here
        print("not a module")
        return x


@torch.compile
def compiled(x):
    return x * 2 + 1


def cases():
    return [(compiled, (torch.randn(2),))]
