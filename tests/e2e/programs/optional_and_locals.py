"""Flow-sensitivity: a name that is a Python int on one path and a tensor later."""
import torch


@torch.compile
def f(x: torch.Tensor, n: int):
    count = n * 2
    if count > 3:
        x = x + 1
    count = x.sum()
    y = x * 2
    if count > 0:
        y = y + 1
    return y


def cases():
    return [(f, (torch.ones(3), 4))]
