"""Import spellings: `import torch as T`, `from torch import compile`, logging/warnings aliases."""
import logging as L
import warnings as W

import torch as T
from torch import compile as tcompile

_log = L.getLogger(__name__)


@tcompile
def f(x: T.Tensor):
    y = T.tanh(x)
    _log.error("alias logger")
    y = y * 2
    W.warn("alias warnings")
    y = y + 1
    if T.any(y > 5):
        y = y - 5
    return y


@T.compile()
def g(x):
    y = x.exp()
    print("call-form decorator")
    return y


def cases():
    return [(f, (T.ones(3),)), (g, (T.ones(2),))]
