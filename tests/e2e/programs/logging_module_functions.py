"""[Defer] module-level logging functions inside compiled code."""
import logging

import torch


@torch.compile
def f(x):
    y = x.cos()
    logging.warning("module-level warning")
    return y + 1


def cases():
    return [(f, (torch.randn(3),))]
