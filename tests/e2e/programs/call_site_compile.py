"""Compile by a call: `fast = torch.compile(fn)` with a logger and a tensor branch."""
import logging

import torch

log = logging.getLogger("call_site")


def body(x, y):
    s = x @ y
    log.warning("computing")
    s = s + 1
    if s.max() > 1000:
        s = s / 1000
    return s


fast = torch.compile(body, dynamic=False)


def cases():
    return [(body, (torch.randn(3, 3), torch.randn(3, 3)))]
