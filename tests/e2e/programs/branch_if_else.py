"""[Where] if/else on a tensor value."""
import torch


@torch.compile
def f(x: torch.Tensor):
    y = x + 1
    if y.sum() > 0:
        z = y * 2
    else:
        z = y * 3
    return z


def cases():
    return [(f, (torch.ones(4),)), (f, (-torch.ones(4) * 5,))]
