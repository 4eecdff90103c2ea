"""Report-only: loops bounded by tensor data."""
import torch


@torch.compile
def grow(x: torch.Tensor):
    x = x + 1
    while x.sum() < 10:
        x = x * 2
    return x


@torch.compile
def repeat(x: torch.Tensor, n: torch.Tensor):
    y = x * 2
    for _ in range(n):
        y = y + 1
    return y


def cases():
    return [(grow, (torch.ones(2),)), (repeat, (torch.ones(2), torch.tensor(3)))]
