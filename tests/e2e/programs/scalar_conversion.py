"""Report-only: int()/float()/bool() of a tensor (GB0124)."""
import torch


@torch.compile
def convert(x: torch.Tensor):
    s = x.sum()
    a = float(s)
    y = x * 2
    b = int(y[0])
    z = y + 1
    c = bool(z.max() > 0)
    return z * a * b * c


def cases():
    return [(convert, (torch.ones(3),))]
